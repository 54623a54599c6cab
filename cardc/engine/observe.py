"""What one player may see of a state.

Agents get observations, never the state.  A zone shows card faces to a
player when it is public, when it is theirs and owner-visible, or card by
card when an effect revealed them; otherwise it shows only how many cards it
holds.  Game and player counters are shown unless the content declares
them `visibility: owner` (a player sees only their own value) or `hidden`
(nobody does until the game ends); a value the player may not see is
`HIDDEN` in the observation.  Card counters (tokens on a card) are public:
a card the player sees shows those not at their start value under
`counters` (a list by player for a `per_player` counter).
"""
from __future__ import annotations


def hidden():
    """A counter value the player may not see (a fresh mapping: JSON-safe,
    never equal to a value content can hold)."""
    return {"hidden": True}


def card_view(st, c, p):
    g = st.game
    if not st.visible(c, p):
        return None
    view = {"iid": c, "id": g.card_field["id"][c], "name": g.card_name[c]}
    if st.card_counters:
        counters = card_counters(st, c)
        if counters:
            view["counters"] = counters
    under = st.under.get(c)
    if under:
        view["attached"] = [card_view(st, a, p) for a in under]
    return view


def card_counters(st, c) -> dict:
    """Card c's counters that are not at their start value."""
    out = {}
    n = st.n
    for name, spec in st.game.counters["card"].items():
        values, start = st.card_counters[name], spec["start"]
        if spec["per_player"]:
            mine = values[c * n:(c + 1) * n]
            if any(v != start for v in mine):
                out[name] = mine
        elif values[c] != start:
            out[name] = values[c]
    return out


def observe(st, p) -> dict:
    g = st.game
    zones = {}
    for slot, cards in enumerate(st.zones):
        name = g.slot_decl(st, slot)["id"]
        owner = g.slot_owner(st, slot)
        key = name if owner is None else f"{name}@{owner}"
        views = [card_view(st, c, p) for c in cards]
        zones[key] = {"count": len(cards), "cards": views}
    d = st.pending
    decision = None
    if d is not None and d.player == p and not st.terminal:
        decision = {"kind": d.kind, "prompt": d.prompt, "actions": list(d.labels),
                    "unavailable": list(d.unavailable)}
    return {
        "player": p, "players": st.n, "turn": st.turn, "round": st.round,
        "turn_player": st.turn_player, "phase": st.phase,
        "levels": [list(lv) for lv in g.level_values(st)],
        "game": {k: (v if st.terminal or _seen(g, "game", k) else hidden()) for k, v in st.game_counters.items()},
        "counters": {k: [x if st.terminal or _seen(g, "player", k, q == p) else hidden()
                         for q, x in enumerate(v)] for k, v in st.player_counters.items()},
        "zones": zones,
        "decision": decision,
        "terminal": st.terminal, "winners": list(st.winners),
    }


def _seen(game, scope, name, own=False) -> bool:
    """May a player see this counter's value (`own`: it is their own)?"""
    vis = game.counters[scope][name].get("visibility", "public")
    return vis == "public" or (vis == "owner" and own)
