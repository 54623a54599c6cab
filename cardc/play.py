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


class Logger:
    """Turns the engine's log and each decision into readable lines."""

    def __init__(self, st, echo=None):
        self.st = st
        self.echo = echo
        self.lines = []
        self.seen = 0
        self.turn = None

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
        if st.game.score:
            self.emit("   scores: " + ", ".join(f"{st.player_name(p)} {s}"
                                                for p, s in enumerate(st.scores())))

    def decision(self, action):
        d = self.st.pending
        self.emit(f"  {self.st.player_name(d.player)} · {d.prompt or d.kind} → {self.st.action_to_string(action)}")

    def end(self):
        st = self.st
        self.flush()
        self.scores()
        if st.capped:
            self.emit(f"Game stopped at the turn cap ({st.game.max_turns} turns): no winner.")
        elif st.winners:
            self.emit("Winner: " + " and ".join(st.player_name(w) for w in st.winners))
        else:
            self.emit("No winner.")


def play(game: Game, players: int, seed: int, agent_names, echo=None, log=True) -> PlayedGame:
    st = game.new_state(players, seed=seed, log=True)
    # one agent per seat; when fewer are named, the last one fills the other seats
    agents = [make_agent(agent_names[min(i, len(agent_names) - 1)], seed * 1000 + i)
              for i in range(players)]
    logger = Logger(st, echo)
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
            if not points:
                logger.emit("  (nothing to undo)")
            elif points[-1][0].rng != st.rng:
                logger.emit("  (cannot undo: something was drawn or shuffled since)")
            elif not seen_cards(st, seat) <= points[-1][2]:
                logger.emit("  (cannot undo: you have seen cards since that you could not see then)")
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
    logger.end()
    return PlayedGame(st, actions, logger.lines)


def seen_cards(st, seat) -> set:
    """The cards whose faces `seat` can see now: an undo may not go back past
    a moment after which the seat saw something new."""
    return {c for c in range(len(st.game.instances)) if st.loc[c] != -2 and st.visible(c, seat)}


def replay_record(game: Game, players, seed, actions, agents) -> dict:
    return {"format": REPLAY_FORMAT, "game": game.id, "bundle": game.hash, "players": players,
            "seed": seed, "agents": list(agents), "actions": list(actions)}


def replay(game: Game, record: dict, echo=None) -> PlayedGame:
    """Re-run a saved game; refuse it if the bundle changed since it was played."""
    if record.get("game") != game.id:
        raise BundleMismatch(f"this replay is of `{record.get('game')}`, not `{game.id}`")
    if record.get("bundle") != game.hash:
        raise BundleMismatch(f"`{game.id}` changed since this game was recorded (bundle hash "
                             f"{str(record.get('bundle'))[:12]}… is now {game.hash[:12]}…): "
                             "the same actions may not mean the same moves any more")
    st = game.new_state(record["players"], seed=record["seed"], log=True)
    logger = Logger(st, echo)
    for i, action in enumerate(record["actions"]):
        logger.flush()
        if st.is_terminal():
            raise ValueError(f"the replay has {len(record['actions']) - i} actions after the game ended")
        logger.decision(action)
        st.apply(action)
    logger.end()
    return PlayedGame(st, list(record["actions"]), logger.lines)


def save_json(path, data):
    from cardc.render.atomic import write_atomic
    write_atomic(Path(path), (json.dumps(data, indent=1) + "\n").encode())
