"""The replay viewer: a finished game, move by move, from one seat's view
or every seat's at once (boardgame.io's debug log, Ludii's player).

A frame is the game after its first `at` actions, rebuilt from the seed and
the actions (the engine is deterministic) by a `Table` whose every seat is a
person, so no bot moves on its own.  Only a finished game is shown: then
nothing is secret any more.
"""
from __future__ import annotations

from dataclasses import dataclass

from cardc.serve.play import Table


@dataclass
class Frame:
    table: Table
    view: dict
    at: int                 # actions taken so far
    total: int              # actions in the game
    seat: int | None        # whose view; None: every seat's
    next_move: str          # the move taken from here, as the viewer may read it


def frame(game, players: int, seed: int, actions: list[int], at: int, seat: int | None) -> Frame:
    at = max(0, min(at, len(actions)))
    table = Table(game, players, seed, ["human"] * players, actions=actions[:at])
    me = 0 if seat is None else seat
    view = table.view(me, choosing=False)
    if seat is None:
        view["seat"] = -1                       # nobody's "your"
        view["obs"] = every_seat(table.st)
        view["log"] = list(table.logger.lines)
        view["counters"] = _every_counter(table, view["counters"])
    for s in view["seats"]:
        s["you"] = seat is not None and s["you"]
    return Frame(table, view, at, len(actions), seat, _next_move(table, actions, at, seat))


def every_seat(st) -> dict:
    """One observation holding what any seat sees: each player's own zones
    as their owner sees them (shared zones as every seat sees them)."""
    views = [st.observation(p) for p in range(st.n)]
    merged = dict(views[0])
    merged["zones"] = {key: views[int(key.partition("@")[2])]["zones"][key] if "@" in key else zone
                       for key, zone in views[0]["zones"].items()}
    merged["counters"] = {k: [views[q]["counters"][k][q] for q in range(st.n)]
                          for k in views[0]["counters"]}
    return merged


def _every_counter(table: Table, shown: dict) -> dict:
    """The shown player counters, each seat's value as that seat sees it."""
    from cardc.render.terminal import value_text
    g, st = table.game, table.st
    return {k: [value_text(st.observation(q)["counters"][k][q], g.counters["player"][k]["type"], g)
                for q in range(st.n)] for k in shown}


def _next_move(table: Table, actions: list[int], at: int, seat: int | None) -> str:
    st = table.st
    if at >= len(actions) or st.is_terminal():
        return ""
    d, action = st.pending, actions[at]
    label = d.labels[action]
    if seat is not None and d.player != seat and table.names_hidden_card(d, label, action, seat):
        label = "a card you cannot see"
    return f"{st.player_name(d.player)} · {d.prompt or d.kind} → {label}"
