"""Check a game's own constraints (`constraints:` in game.yaml) on the
state the game starts from: cards in their starting zones, before any setup
step has run, for every player count the game allows (`game.player_count`
tells a constraint which)."""
from __future__ import annotations

from cardc.diagnostics import Loc


def check_constraints(bundle: dict, diags) -> None:
    from cardc.engine.game import Game
    from cardc.engine.state import State
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
    written = [c["expect"] for c in bundle["code"]["constraints"]]     # in game.constraints' order
    for (check, message, (file, line, col)), ir in zip(game.constraints, written):
        failing = []
        try:
            failing = [st.n for st in states if not check(st, {})]
        except _cannot() as exc:
            diags.error(Loc(file, line, col), f"constraint could not be evaluated: {exc}")
            continue
        if failing:
            counts = "" if len(failing) == len(states) else \
                " (with " + ", ".join(map(str, failing)) + " players)"
            found, cards = explain(game, ir, next(st for st in states if st.n in failing))
            diags.error(Loc(file, line, col), f"constraint not met: {message}{counts}{found}",
                        (f"{cards}; " if cards else "") + "change the card quantities or values, or the constraint")


def _cannot():
    from cardc.engine.errors import EngineError
    return (EngineError, ArithmeticError, LookupError, TypeError, ValueError)


def explain(game, ir, st) -> tuple[str, str]:
    """What a failed comparison found, (": it is 100, not 98", "the 100
    cards counted: 12 ruby, …"), so that the designer sees the actual value
    and the cards that make it, not only the message they wrote (which may
    itself be out of date)."""
    if not (isinstance(ir, list) and ir[:1] == ["cmp"] and ir[1] in ("==", "!=", "<", "<=", ">", ">=")):
        return "", ""
    _, op, left, right = ir
    try:
        a, b = game.pygen.build(left)(st, {}), game.pygen.build(right)(st, {})
    except _cannot():             # a side that cannot be computed alone: the message as written
        return "", ""
    if not all(isinstance(v, (int, str)) or v is None for v in (a, b)):
        return "", ""
    found = f": it is {_shown(a)}, not {_shown(b)}" if op == "==" else \
        f": it is {_shown(a)} against {_shown(b)} (wanted {op})"
    counted = [side[2][0] for side in (left, right) if isinstance(side, list)
               and side[:2] == ["call", "count"] and len(side[2]) == 1]
    if not counted:
        return found, ""
    try:
        cards = game.pygen.build(counted[0])(st, {})
    except _cannot():
        return found, ""
    by_id: dict[str, int] = {}
    for iid in cards or ():
        cid = game.instances[iid]["card"]
        by_id[cid] = by_id.get(cid, 0) + 1
    listed = ", ".join(f"{n} {cid}" for cid, n in by_id.items())
    return found, f"the {len(cards or ())} cards counted: {listed}"


def _shown(value) -> str:
    return "none" if value is None else str(value)
