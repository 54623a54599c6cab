"""Check a game's own constraints (`constraints:` in game.yaml) on the
state the game starts from, before any setup step has run."""
from __future__ import annotations

from cardc.diagnostics import Loc


def check_constraints(bundle: dict, diags) -> None:
    from cardc.engine.game import Game
    from cardc.engine.errors import EngineError
    if not bundle["code"].get("constraints"):
        return
    game = Game(bundle)
    st = _unstarted(game)
    for check, message, (file, line, col) in game.constraints:
        try:
            ok = check(st, {})
        except EngineError as exc:
            diags.error(Loc(file, line, col), f"constraint could not be evaluated: {exc}")
            continue
        if not ok:
            diags.error(Loc(file, line, col), f"constraint not met: {message}",
                        "change the card quantities or values, or the constraint")


def _unstarted(game):
    """Cards in their starting zones, for the smallest player count, with no setup run."""
    from cardc.engine.state import State
    from cardc.engine import rng
    n = game.min_players
    st = State(game, n)
    st.zones = [[] for _ in range(game.slot_count(n))]
    st.loc = [-2] * len(game.instances)
    for iid, inst in enumerate(game.instances):
        seat = inst["seat"]
        if seat is not None and seat >= n:
            continue
        slot = game.slot(st, game.cards[game.card_def[iid]]["starts_in"], seat)
        st.zones[slot].append(iid)
        st.loc[iid] = slot
    st.host, st.under, st.revealed = {}, {}, {}
    st.g = {k: v["start"] for k, v in game.counters["game"].items()}
    st.pc = {k: [v["start"]] * n for k, v in game.counters["player"].items()}
    st.cc = {k: [v["start"]] * (len(game.instances) * (n if v["per_player"] else 1))
             for k, v in game.counters["card"].items()}
    st.rng, st.seed, st.stack, st.pending, st.events = rng.seed_state(0), 0, [], None, []
    st.turn = st.round = st.turn_player = st.first_player = 0
    st.log = None
    return st
