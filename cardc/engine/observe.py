"""What one player may see of a state.

Agents get observations, never the state.  A zone shows card faces to a
player when it is public, when it is theirs and owner-visible, or card by
card when an effect revealed them; otherwise it shows only how many cards it
holds.  Counters are public information in every shipped game.
"""
from __future__ import annotations


def card_view(st, c, p):
    g = st.game
    if not st.visible(c, p):
        return None
    view = {"iid": c, "id": g.card_field["id"][c], "name": g.card_name[c]}
    under = st.under.get(c)
    if under:
        view["attached"] = [card_view(st, a, p) for a in under]
    return view


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
        "game": dict(st.g),
        "counters": {k: list(v) for k, v in st.pc.items()},
        "zones": zones,
        "decision": decision,
        "terminal": st.terminal, "winners": list(st.winners),
    }
