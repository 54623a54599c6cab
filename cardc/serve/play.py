"""A game in the browser: people's seats against bots.

`Table` holds the state on the server and hands each person only what
their seat may see: `view(seat)` is built from `observation(seat)` and the
game's log, never from the state itself.  Bots move at once until a person
has a decision (or the game ends).  Seeds and agent seeds are those of
`cardc play`, so a replay downloaded here is a `cardc replay` file.

Each person's undo goes back to their own last decision while nothing
random happened, nobody else decided, and they saw nothing new since; the
host's step back goes back to the last decision any person took, whatever
happened since (the game is replayed from its actions).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

from cardc.agents import make_agent
from cardc.agents.view import SeatView
from cardc.render.terminal import value_text
from cardc.serve.board import board_of, card_choices, cell_choices
from cardc.sim.play import Logger, replay_record, scores_are_public, seen_cards, undo_refusal

#: decisions the bots may take in a row before the server gives up on a game
BOT_LIMIT = 100_000


@dataclass
class UndoPoint:
    """The moment before one of a person's decisions."""
    state: object
    actions: int
    seen: set
    lines: int
    logged: int
    turn: int | None


class Table:
    def __init__(self, game, players: int, seed: int, agents: list[str], actions=()):
        """A new game, or with `actions` (a saved game's) the game they led to."""
        self.humans = [i for i, a in enumerate(agents) if a == "human"]
        if not self.humans:
            raise ValueError("choose at least one seat for a person")
        self.game, self.players, self.seed, self.agents = game, players, seed, list(agents)
        self.seat = self.humans[0]          # the seat a call names when it names none
        # one request at a time: a double click must not apply two moves at once
        self.lock = threading.Lock()
        self.notes: dict[int, str] = {}
        self._start(actions)

    def _start(self, actions) -> None:
        """The game from its first state, with `actions` taken."""
        game, seed = self.game, self.seed
        self.st = game.new_state(self.players, seed=seed, log=True)
        self.logger = Logger(self.st)
        # the agent seeds of `cardc play`: the same seed and agents give the same game
        self.bots = {i: make_agent(a, seed * 1000 + i, game.bundle.get("agents"))
                     for i, a in enumerate(self.agents) if a != "human"}
        self.actions: list[int] = []
        self.deciders: list[int] = []                 # the seat that took each action
        self.hidden_lines: dict[int, tuple[str, set]] = {}   # log line -> (its text for these seats)
        self.points: dict[int, list[UndoPoint]] = {s: [] for s in self.humans}
        for action in actions:
            self.logger.flush()
            if self.st.is_terminal() or not 0 <= action < len(self.st.pending.values):
                raise ValueError("the saved actions do not fit this game")
            self._take(action)
        self._advance()

    @property
    def note(self) -> str:
        return self.notes.get(self.seat, "")

    # ------------------------------------------------------------ moves
    def act(self, action: int, at: int | None = None, seat: int | None = None) -> None:
        """The person at `seat` takes action number `action` of their
        decision; `at`, the number of moves the page saw, refuses a form
        sent twice."""
        seat = self.seat if seat is None else seat
        with self.lock:
            if at is not None and at != len(self.actions):
                return
            self._act(action, seat)

    def _act(self, action: int, seat: int) -> None:
        st = self.st
        if st.is_terminal() or st.current_player() != seat:
            raise ValueError("it is not your decision")
        if not 0 <= action < len(st.pending.values):
            raise ValueError(f"no action {action} now")
        lg = self.logger
        self.points[seat].append(UndoPoint(st.clone(), len(self.actions), seen_cards(st, seat),
                                           len(lg.lines), lg.seen, lg.turn))
        self.notes[seat] = ""
        self._take(action)
        self._advance()

    def undo(self, seat: int | None = None) -> None:
        """Back to the person's previous decision, if nothing they could not
        know then has happened since and nobody else has decided."""
        seat = self.seat if seat is None else seat
        with self.lock:
            self.notes[seat] = self._undo(seat)

    def _undo(self, seat: int) -> str:
        points = self.points[seat]
        if not points:
            return "nothing to undo"
        point = points[-1]
        if any(d != seat and d in self.humans for d in self.deciders[point.actions:]):
            return "cannot undo: another person has decided since"
        refusal = undo_refusal(point.state, point.seen, self.st, seat)
        if refusal:
            return refusal
        points.pop()
        self.st = point.state.clone()
        self._cut(point.actions, point.lines)
        lg = self.logger
        lg.st, lg.seen, lg.turn = self.st, point.logged, point.turn
        lg.emit("  (undone)")
        return "undone"

    def _cut(self, actions: int, lines: int) -> None:
        del self.actions[actions:], self.deciders[actions:], self.logger.lines[lines:]
        self.hidden_lines = {i: v for i, v in self.hidden_lines.items() if i < lines}

    def step_back(self) -> str:
        """The host's step back: to the last decision any person took,
        whatever happened since; every person's undo starts afresh."""
        with self.lock:
            people = [i for i, d in enumerate(self.deciders) if d in self.humans]
            if not people:
                return "nothing to step back to"
            self._start(self.actions[:people[-1]])
            self.logger.emit("  (the host stepped back)")
            return "stepped back"

    def _take(self, action: int) -> None:
        st, d = self.st, self.st.pending
        # labels and the prompt are lazy: read them before the state moves on
        label, prompt = d.labels[action], d.prompt
        self.actions.append(action)
        self.deciders.append(d.player)
        st.apply(action)
        line = f"  {st.player_name(d.player)} · {prompt or d.kind} → "
        blind = {s for s in self.humans if s != d.player and self.names_hidden_card(d, label, action, s)}
        if blind:
            self.hidden_lines[len(self.logger.lines)] = (line + "a card you cannot see", blind)
        self.logger.lines.append(line + label)

    def _advance(self) -> None:
        st = self.st
        for _ in range(BOT_LIMIT):
            self.logger.flush()
            if st.is_terminal() or st.current_player() in self.humans:
                break
            seat = st.current_player()
            self._take(self.bots[seat].act(st, seat))
        if st.is_terminal():
            self.logger.end()

    def names_hidden_card(self, d, label, action, seat) -> bool:
        """Whether the chosen value holds a card `seat` cannot see whose
        name the label prints (a menu option's value carries its bindings):
        the log line a person reads does not name it."""
        g = self.st.game
        for v in _ints(d.values[action]):
            if 0 <= v < len(g.instances) and g.card_name[v] in label \
                    and not self.st.visible(v, seat):
                return True
        return False

    def log(self, seat: int) -> list[str]:
        """The log as `seat` may read it."""
        hidden = self.hidden_lines
        return [hidden[i][0] if i in hidden and seat in hidden[i][1] else line
                for i, line in enumerate(self.logger.lines)]

    # ------------------------------------------------------------ what the page shows
    def view(self, seat: int | None = None, choosing: bool = True) -> dict:
        """Everything the seat's page shows: its observation and the log;
        `choosing` False: its decision too, but nothing on the page takes it."""
        with self.lock:
            return self._view(self.seat if seat is None else seat, choosing)

    def _view(self, me: int, choosing: bool = True) -> dict:
        st, g = self.st, self.game
        obs = st.observation(me)
        mine = None
        if choosing and not st.is_terminal() and st.current_player() == me:
            # the seat's decision through the agents' own window on the game
            seat = SeatView(st, me)
            mine = {"prompt": seat.prompt, "kind": st.pending.kind,
                    "actions": [seat.action_to_string(a) for a in seat.legal_actions()],
                    "unavailable": [list(x) for x in seat.why_not()]}
        # a choice of cells or cards: the board's cells and the cards' pictures take it too
        values = st.pending.values if mine else []
        labels = mine["actions"] if mine else []
        board = board_of(st, obs, me, cell_choices(st, values, labels))
        # the counters the seat may see, less the rules' bookkeeping
        shown = {scope: {k: c["type"] for k, c in g.counters[scope].items() if not c.get("bookkeeping")}
                 for scope in ("game", "player")}
        game_counters = {k: value_text(v, shown["game"][k], g) for k, v in obs["game"].items()
                         if k in shown["game"]}
        counters = {k: [value_text(v, shown["player"][k], g) for v in per_seat]
                    for k, per_seat in obs["counters"].items() if k in shown["player"]}
        scores = st.scores() if g.score and (st.is_terminal() or scores_are_public(g)) else None
        seats = [{"name": st.player_name(p), "you": p == me, "person": p in self.humans,
                  "score": scores[p] if scores else None,
                  "to_play": not st.is_terminal() and st.current_player() == p,
                  "won": st.is_terminal() and p in st.winners}
                 for p in range(self.players)]
        return {
            "obs": obs, "seat": me, "name": st.player_name(me),
            "game_counters": game_counters, "counters": counters,
            "decision": mine, "waiting": None if mine or st.is_terminal()
            else st.player_name(st.current_player()),
            "log": self.log(me), "board": board, "note": self.notes.get(me, ""),
            "card_actions": card_choices(st, values, labels),
            "can_undo": bool(self.points[me]) and not st.is_terminal(),
            "terminal": st.is_terminal(),
            "winners": [st.player_name(w) for w in st.winners],
            "scores": scores if st.is_terminal() else None,
            "seats": seats,
            "actions": len(self.actions),
        }

    @property
    def over(self) -> bool:
        return self.st.is_terminal()

    def replay(self) -> dict:
        return replay_record(self.game, self.players, self.seed, self.actions, self.agents)


def _ints(value, depth: int = 4) -> list[int]:
    """Every whole number inside a decision's value (lists and dicts, a few levels deep)."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value]
    if depth and isinstance(value, (list, tuple)):
        return [i for v in value for i in _ints(v, depth - 1)]
    if depth and isinstance(value, dict):
        return [i for v in value.values() for i in _ints(v, depth - 1)]
    return []
