"""The one write path of a state's counters and turn order.

A content function's value is cached until something it reads changes
(stale.py).  So a write must say what it changed, and each kind of write
must say the same things wherever it is made: in the rules (generated
code), in a scenario's start state, in a determinisation for an agent.
`WritePlan` is that knowledge, worked out once per counter and game
(`Game.write_plan`); `Writes` applies it at run time; the code generator
writes the same plan inline (`BlockGen._set`, which reads the same
`WritePlan`), because a rule's write is the hottest line of a game.

Nothing outside generated code writes `st.game_counters`, `st.player_counters`, `st.card_counters` or the turn
order directly: it calls `set_counter` or `set_flow` here.  The reference
mode (`Game(bundle, reference=True)`, no caches) checks both renderings:
a game plays the same with and without them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cardc.engine.errors import EngineFault
from cardc.engine.fields import StateFields

#: the kinds of counter a write can name, and the prefix of their part (deps.py)
PARTS = {"gctr": "g:", "gattr": "flow:", "pctr": "p:", "cctr": "c:", "cpp": "c:"}
#: the turn order's attributes a rule or a start state may set (`game.turn_player = …`)
FLOW = ("turn", "round", "turn_player", "first_player")


@dataclass(frozen=True)
class WritePlan:
    """What a write of one counter makes stale."""
    part: str               # "p:plays": what cached functions read it by (deps.py)
    caches: int             # the caches of the functions that read it, a mask (stale.Stale.parts)
    per_card: bool          # a card counter read on the cards of a zone or cell: `counter_written(c)`
    keyed: bool             # a card counter whose value some function reads a zone by: `key_written`

    @classmethod
    def of(cls, game, kind: str, name: str) -> WritePlan:
        part = PARTS[kind] + name
        card = kind in ("cctr", "cpp")
        return cls(part, game.stale.parts.get(part) or 0,
                   card and name in game.covered_counters,
                   kind == "cctr" and name in game.keyed_counters)


class Writes(StateFields):
    """State methods: a counter or the turn order written from outside the
    rules, with everything the write makes stale forgotten (the plan)."""

    def set_counter(self, kind: str, name: str, value, card: int | None = None, player: int | None = None):
        """Counter `name` of kind "gctr" (the game's), "pctr" (`player`'s),
        "cctr" (`card`'s) or "cpp" (`card`'s, for `player`) becomes `value`."""
        values: Any
        i: Any
        if kind == "gctr":
            values, i = self.game_counters, name
        elif kind == "pctr":
            values, i = self.player_counters[name], player
        elif kind == "cctr":
            values, i = self.own_cc(name), card
        elif kind == "cpp":
            if card is None or player is None:
                raise EngineFault(f"cannot set `{name}` of none")
            values, i = self.own_cc(name), card * self.n + player
        else:
            raise EngineFault(f"cannot set a counter of kind {kind!r}")
        if i is None:
            raise EngineFault(f"cannot set `{name}` of none")
        old = values[i]
        if old is value:
            return
        values[i] = value
        self._written(self.game.write_plan(kind, name), card, name, old, value)

    def replace_counter(self, kind: str, name: str, values: list):
        """Every value of player counter ("pctr") or card counter ("cctr")
        `name` at once, as a new list (a determinisation renames the cards it
        holds; the list it replaces may be shared with the real game)."""
        plan = self.game.write_plan(kind, name)
        if kind == "pctr":
            self.player_counters[name] = values
        else:
            self.card_counters[name] = values
            if self.owned_cc is not None:
                self.owned_cc.add(name)
        self.version += 1
        if plan.caches:
            self.forget(plan.caches)
        if plan.per_card or plan.keyed:
            self.forget_zone()          # any card's value may have changed: every zone read by it

    def set_flow(self, name: str, value: int):
        """`turn`, `round`, `turn_player` or `first_player` becomes `value`."""
        if name not in FLOW:
            raise EngineFault(f"cannot set the turn order's {name!r}")
        setattr(self, name, value)
        self._written(self.game.write_plan("gattr", name), None, name, None, value)

    def _written(self, plan: WritePlan, card, name, old, new):
        self.version += 1
        if plan.caches:
            self.forget(plan.caches)
        if plan.per_card:
            self.counter_written(card)
        if plan.keyed:
            self.key_written(card, name, old, new)
