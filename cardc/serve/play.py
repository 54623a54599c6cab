"""A game in the browser: one person's seat against bots.

`Table` holds the state on the server and hands the page only what the
person's seat may see: `view()` is built from `observation(seat)` and the
game's log, never from the state itself.  Bots move at once until the
person has a decision (or the game ends).  Seeds and agent seeds are those
of `cardc play`, so a replay downloaded here is a `cardc replay` file.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

from cardc.agents import make_agent
from cardc.agents.view import SeatView
from cardc.play import Logger, replay_record, scores_are_public, seen_cards, undo_refusal
from cardc.render_text import value_text
from cardc.serve.board import board_of, card_choices, cell_choices

#: decisions the bots may take in a row before the server gives up on a game
BOT_LIMIT = 100_000


@dataclass
class UndoPoint:
    """The moment before one of the person's decisions."""
    state: object
    actions: int
    seen: set
    lines: int
    logged: int
    turn: int | None


class Table:
    def __init__(self, game, players: int, seed: int, agents: list[str], actions=()):
        """A new game, or with `actions` (a saved game's) the game they led to."""
        if agents.count("human") != 1:
            raise ValueError("choose exactly one seat for yourself")
        self.game, self.players, self.seed, self.agents = game, players, seed, list(agents)
        self.seat = agents.index("human")
        self.st = game.new_state(players, seed=seed, log=True)
        self.logger = Logger(self.st)
        # the agent seeds of `cardc play`: the same seed and agents give the same game
        self.bots = {i: make_agent(a, seed * 1000 + i) for i, a in enumerate(agents) if a != "human"}
        self.actions: list[int] = []
        self.points: list[UndoPoint] = []
        self.note = ""
        # one request at a time: a double click must not apply two moves at once
        self.lock = threading.Lock()
        for action in actions:
            self.logger.flush()
            if self.st.is_terminal() or not 0 <= action < len(self.st.pending.values):
                raise ValueError("the saved actions do not fit this game")
            self._take(action)
        self._advance()

    # ------------------------------------------------------------ moves
    def act(self, action: int, at: int | None = None) -> None:
        """The person takes action number `action` of their decision; `at`,
        the number of moves the page saw, refuses a form sent twice."""
        with self.lock:
            if at is not None and at != len(self.actions):
                return
            self._act(action)

    def _act(self, action: int) -> None:
        st = self.st
        if st.is_terminal() or st.current_player() != self.seat:
            raise ValueError("it is not your decision")
        if not 0 <= action < len(st.pending.values):
            raise ValueError(f"no action {action} now")
        lg = self.logger
        self.points.append(UndoPoint(st.clone(), len(self.actions), seen_cards(st, self.seat),
                                     len(lg.lines), lg.seen, lg.turn))
        self.note = ""
        self._take(action)
        self._advance()

    def undo(self) -> None:
        """Back to the person's previous decision, if nothing they could not
        know then has happened since."""
        with self.lock:
            self._undo()

    def _undo(self) -> None:
        if not self.points:
            self.note = "nothing to undo"
            return
        point = self.points[-1]
        refusal = undo_refusal(point.state, point.seen, self.st, self.seat)
        if refusal:
            self.note = refusal
            return
        self.points.pop()
        self.st = point.state.clone()
        del self.actions[point.actions:]
        lg = self.logger
        lg.st, lg.seen, lg.turn = self.st, point.logged, point.turn
        del lg.lines[point.lines:]
        lg.emit("  (undone)")
        self.note = "undone"

    def _take(self, action: int) -> None:
        st, d = self.st, self.st.pending
        # labels and the prompt are lazy: read them before the state moves on
        label, prompt = d.labels[action], d.prompt
        self.actions.append(action)
        st.apply(action)
        self.logger.lines.append(self._decision_line(d, prompt, label, action))

    def _advance(self) -> None:
        st = self.st
        for _ in range(BOT_LIMIT):
            self.logger.flush()
            if st.is_terminal() or st.current_player() == self.seat:
                break
            seat = st.current_player()
            self._take(self.bots[seat].act(SeatView(st, seat)))
        if st.is_terminal():
            self.logger.end()

    def _decision_line(self, d, prompt, label: str, action: int) -> str:
        """The log line of decision `d`, just taken, as the person may read
        it: another seat's choice of a card the person still cannot see is
        not named."""
        st = self.st
        if d.player != self.seat and self._names_hidden_card(d, label, action):
            label = "a card you cannot see"
        return f"  {st.player_name(d.player)} · {prompt or d.kind} → {label}"

    def _names_hidden_card(self, d, label, action) -> bool:
        """Whether the chosen value holds a card the person cannot see whose
        name the label prints (a menu option's value carries its bindings)."""
        g = self.st.game
        for v in _ints(d.values[action]):
            if 0 <= v < len(g.instances) and g.card_name[v] in label \
                    and not self.st.visible(v, self.seat):
                return True
        return False

    # ------------------------------------------------------------ what the page shows
    def view(self) -> dict:
        """Everything the page shows: the seat's observation and the log."""
        with self.lock:
            return self._view()

    def _view(self) -> dict:
        st, g = self.st, self.game
        obs = st.observation(self.seat)
        mine = None
        if not st.is_terminal() and st.current_player() == self.seat:
            # the seat's decision through the agents' own window on the game
            seat = SeatView(st, self.seat)
            mine = {"prompt": seat.prompt, "kind": st.pending.kind,
                    "actions": [seat.action_to_string(a) for a in seat.legal_actions()],
                    "unavailable": [list(x) for x in seat.why_not()]}
        # a choice of cells or cards: the board's cells and the cards' pictures take it too
        values = st.pending.values if mine else []
        labels = mine["actions"] if mine else []
        board = board_of(st, obs, self.seat, cell_choices(st, values, labels))
        # the counters the seat may see, less the rules' bookkeeping
        shown = {scope: {k: c["type"] for k, c in g.counters[scope].items() if not c.get("bookkeeping")}
                 for scope in ("game", "player")}
        game_counters = {k: value_text(v, shown["game"][k], g) for k, v in obs["game"].items()
                         if k in shown["game"]}
        counters = {k: [value_text(v, shown["player"][k], g) for v in values]
                    for k, values in obs["counters"].items() if k in shown["player"]}
        scores = st.scores() if g.score and (st.is_terminal() or scores_are_public(g)) else None
        seats = [{"name": st.player_name(p), "you": p == self.seat,
                  "score": scores[p] if scores else None,
                  "to_play": not st.is_terminal() and st.current_player() == p,
                  "won": st.is_terminal() and p in st.winners}
                 for p in range(self.players)]
        return {
            "obs": obs, "seat": self.seat, "name": st.player_name(self.seat),
            "game_counters": game_counters, "counters": counters,
            "decision": mine, "waiting": None if mine or st.is_terminal()
            else st.player_name(st.current_player()),
            "log": list(self.logger.lines), "board": board, "note": self.note,
            "card_actions": card_choices(st, values, labels),
            "can_undo": bool(self.points) and not st.is_terminal(),
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
