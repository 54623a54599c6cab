"""Play a game to the end with agents, writing a readable log, and replay
a saved game.  A game is fully determined by (bundle hash, seed, actions):
that triple is the replay format."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from cardc.agents import make_agent
from cardc.engine import BundleMismatch, Game

REPLAY_FORMAT = 1


@dataclass
class PlayedGame:
    state: object
    actions: list = field(default_factory=list)
    lines: list = field(default_factory=list)
    summary: list = field(default_factory=list)     # the result: final scores and the winner


class Logger:
    """Turns the engine's log and each decision into readable lines."""

    def __init__(self, st, echo=None):
        self.st = st
        self.echo = echo
        self.lines = []
        self.seen = 0
        self.turn = None
        self.show_scores = True     # off while a person plays a game with secret counters

    def emit(self, line):
        self.lines.append(line)
        if self.echo:
            self.echo(line)

    def flush(self):
        """Print the engine's new log lines; a turn header (written by the
        engine as each turn starts) is preceded by the scores after the last turn."""
        st = self.st
        while self.seen < len(st.log):
            line = st.log[self.seen]
            self.seen += 1
            if line.startswith("== Turn "):
                if self.turn is not None:
                    self.scores()
                self.turn = st.turn
                self.emit(line)
            else:
                self.emit("  " + line)

    def scores(self):
        st = self.st
        if st.game.score and (self.show_scores or st.terminal):
            self.emit("   scores: " + ", ".join(f"{st.player_name(p)} {s}"
                                                for p, s in enumerate(st.scores())))

    def decision(self, action):
        d = self.st.pending
        self.emit(f"  {self.st.player_name(d.player)} · {d.prompt or d.kind} → {self.st.action_to_string(action)}")

    def end(self) -> list:
        """The closing lines (final scores, the winner); returns them, so that
        a quiet game can still print its result."""
        st = self.st
        self.flush()
        start = len(self.lines)
        self.scores()
        if st.capped:
            self.emit(f"Game stopped at the turn cap ({st.game.max_turns} turns): no winner.")
        elif st.winners:
            self.emit("Winner: " + " and ".join(st.player_name(w) for w in st.winners))
        else:
            self.emit("No winner.")
        return self.lines[start:]


def seat_agents(agent_names, players: int) -> list:
    """The agent of each seat: seat by seat, the list repeating when there are
    more seats than names (the first game of `simulate` is seated so too)."""
    return [agent_names[i % len(agent_names)] for i in range(players)]


def play(game: Game, players: int, seed: int, agent_names, echo=None, log=True) -> PlayedGame:
    st = game.new_state(players, seed=seed, log=True)
    agents = [make_agent(name, seed * 1000 + i, game.bundle.get("agents"))
              for i, name in enumerate(seat_agents(agent_names, players))]
    logger = Logger(st, echo)
    logger.show_scores = scores_are_public(game) or not any(a.name == "human" for a in agents)
    actions = []
    undo_points = {}
    while not st.is_terminal():
        logger.flush()
        seat = st.current_player()
        agent = agents[seat]
        if agent.name == "human":
            undo_points.setdefault(seat, [])
        choice = agent.act(st, seat)
        if choice == "undo":
            points = undo_points.get(seat) or []
            refusal = undo_refusal(points[-1][0], points[-1][2], st, seat) if points else "nothing to undo"
            if refusal:
                logger.emit(f"  ({refusal})")
            else:
                saved, at, _ = points.pop()
                st = logger.st = saved.clone()
                del actions[at:]
                logger.emit("  (undone)")
            continue
        if agent.name == "human":
            undo_points[seat].append((st.clone(), len(actions), seen_cards(st, seat)))
        logger.decision(choice)
        actions.append(choice)
        st.apply(choice)
    summary = logger.end()
    return PlayedGame(st, actions, logger.lines, summary)


def scores_are_public(game: Game) -> bool:
    """Whether a person may read every seat's score mid-game: not when a
    game or player counter is secret (the score could give it away)."""
    return not any(c.get("visibility", "public") != "public"
                   for scope in ("game", "player") for c in game.counters[scope].values())


def undo_refusal(saved, seen_then: set, st, seat) -> str | None:
    """Why `seat` may not go back from `st` to the earlier state `saved`
    (None if it may): nothing random happened since, and the seat has seen
    no card since that it could not see then."""
    if saved.rng != st.rng:
        return "cannot undo: something was drawn or shuffled since"
    if not seen_cards(st, seat) <= seen_then:
        return "cannot undo: you have seen cards since that you could not see then"
    return None


def seen_cards(st, seat) -> set:
    """The cards whose faces `seat` can see now: an undo may not go back past
    a moment after which the seat saw something new."""
    return {c for c in range(len(st.game.instances)) if st.loc[c] != -2 and st.visible(c, seat)}


def replay_record(game: Game, players, seed, actions, agents) -> dict:
    return {"format": REPLAY_FORMAT, "game": game.id, "bundle": game.hash, "players": players,
            "seed": seed, "agents": list(agents), "actions": list(actions)}


class ReplayError(ValueError):
    """A replay file that cannot be replayed: the message names the file and
    the key, and says what is allowed."""


def read_replay(path) -> dict:
    """A replay file, checked against grammar/replay.schema.json: any file
    (binary, cut short, hand-edited) gives a ReplayError naming it, never a
    traceback."""
    from cardc.ir.schema import read_json_file
    from cardc.load.paths import GRAMMAR
    from cardc.load.schema import StrictValidator
    name = str(path)
    record = read_json_file(path, "replay", ReplayError)
    if isinstance(record, dict) and record.get("format", REPLAY_FORMAT) != REPLAY_FORMAT:
        raise ReplayError(f"{name}: `format` is {record.get('format')!r}, but this cardc reads replay "
                          f"format {REPLAY_FORMAT} only")
    schema = json.loads((GRAMMAR / "replay.schema.json").read_text(encoding="utf-8"))
    errors = sorted(StrictValidator(schema).iter_errors(record), key=lambda e: list(e.absolute_path))
    if errors:
        raise ReplayError(f"{name}: {_replay_problem(errors[0], schema)}")
    return record


def _replay_problem(error, schema) -> str:
    """One schema error of a replay, in words: the key, what it holds, what it may hold."""
    path = list(error.absolute_path)
    if not path and error.validator == "type":
        return "not a replay: it must be a JSON object with format, game, bundle, players, seed and actions"
    if error.validator == "required":
        missing = [k for k in error.validator_value if k not in (error.instance or {})]
        return (f"no `{missing[0]}`: a replay needs " + ", ".join(f"`{k}`" for k in error.validator_value)) \
            if missing else error.message
    key = ".".join(f"[{p}]" if isinstance(p, int) else str(p) for p in path).replace(".[", "[")
    wanted = {"players": "a whole number of players, e.g. 3",
              "seed": "a whole number",
              "actions": "a list of whole numbers (option indexes, 0 or more)",
              "bundle": "the 64-hex-digit bundle hash",
              "game": "a game id (lower_snake_case)",
              "agents": "a list of agent names"}.get(str(path[0]), "")
    if path[0] == "actions" and len(path) > 1:
        wanted = "a whole number, 0 or more (the index of the option chosen)"
    return f"`{key}` is {json.dumps(error.instance)[:60]}: it must be {wanted or error.message}"


def replay(game: Game, record: dict, echo=None, name: str = "the replay") -> PlayedGame:
    """Re-run a saved game; refuse it if the bundle changed since it was
    played, if an action is not legal where it stands, or if the actions end
    before the game does."""
    if record.get("game") != game.id:
        raise BundleMismatch(f"this replay is of `{record.get('game')}`, not `{game.id}`")
    if record.get("bundle") != game.hash:
        raise BundleMismatch(f"`{game.id}` changed since this game was recorded (bundle hash "
                             f"{str(record.get('bundle'))[:12]}… is now {game.hash[:12]}…): "
                             "the same actions may not mean the same moves any more")
    players = record["players"]
    if not game.min_players <= players <= game.max_players:
        raise ReplayError(f"{name}: `players` is {players}, but {game.id} is for {game.min_players} "
                          f"to {game.max_players} players")
    st = game.new_state(players, seed=record["seed"], log=True)
    logger = Logger(st, echo)
    actions = record["actions"]
    for i, action in enumerate(actions):
        logger.flush()
        if st.is_terminal():
            raise ReplayError(f"{name}: the game ended after {i} actions, but the replay has "
                              f"{len(actions) - i} more")
        legal = len(st.legal_actions())
        if not 0 <= action < legal:
            raise ReplayError(f"{name}: `actions[{i}]` is {action}, but {st.player_name(st.pending.player)} "
                              f"has {legal} options there (0 to {legal - 1})")
        logger.decision(action)
        st.apply(action)
    logger.flush()
    if not st.is_terminal():
        raise ReplayError(f"{name}: the replay ends after {len(actions)} actions, before the game does "
                          "(it was cut short, or recorded from an unfinished game)")
    logger.end()
    return PlayedGame(st, list(actions), logger.lines)


def save_json(path, data):
    from cardc.render.atomic import write_atomic
    write_atomic(Path(path), (json.dumps(data, indent=1) + "\n").encode())
