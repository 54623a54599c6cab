"""Check a game's own constraints (`constraints:` in game.yaml) on the
state the game starts from: cards in their starting zones, before any setup
step has run, for every player count the game allows (`game.player_count`
tells a constraint which).  It runs the engine on the bundle, so it is a
step after the compiler (`project.compile_checked`), not part of it."""
from __future__ import annotations

from cardc.diagnostics import Loc
from cardc.engine.errors import EngineError
from cardc.engine.game import Game
from cardc.engine.state import State


def check_constraints(bundle: dict, diags) -> None:
    if not bundle["code"].get("constraints"):
        return
    try:
        game = Game(bundle)
    except RecursionError:      # e.g. a function that calls itself, inlined by the engine
        file, line, col = bundle["code"]["constraints"][0]["loc"]
        diags.error(Loc(file, line, col), "the engine could not build this game's rules to check this: "
                    "they nest or call themselves too deep (a function that calls itself?)")
        return
    states = [State.initial(game, n, seed=0, run=False)
              for n in range(game.min_players, game.max_players + 1)]
    for check, message, (file, line, col) in game.constraints:
        failing = []
        try:
            failing = [st.n for st in states if not check(st, {})]
        except (EngineError, TypeError, KeyError, IndexError, ValueError) as exc:
            diags.error(Loc(file, line, col), f"constraint could not be evaluated: {exc}")
            continue
        if failing:
            counts = "" if len(failing) == len(states) else \
                " (with " + ", ".join(map(str, failing)) + " players)"
            diags.error(Loc(file, line, col), f"constraint not met: {message}{counts}",
                        "change the card quantities or values, or the constraint")
