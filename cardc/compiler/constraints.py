"""Check a game's own constraints (`constraints:` in game.yaml) on the
state the game starts from: cards in their starting zones, for the smallest
player count, before any setup step has run."""
from __future__ import annotations

from cardc.diagnostics import Loc


def check_constraints(bundle: dict, diags) -> None:
    from cardc.engine.errors import EngineError
    from cardc.engine.game import Game
    from cardc.engine.state import State
    if not bundle["code"].get("constraints"):
        return
    game = Game(bundle)
    st = State.initial(game, game.min_players, seed=0, run=False)
    for check, message, (file, line, col) in game.constraints:
        try:
            ok = check(st, {})
        except (EngineError, TypeError, KeyError, IndexError, ValueError) as exc:
            diags.error(Loc(file, line, col), f"constraint could not be evaluated: {exc}")
            continue
        if not ok:
            diags.error(Loc(file, line, col), f"constraint not met: {message}",
                        "change the card quantities or values, or the constraint")
