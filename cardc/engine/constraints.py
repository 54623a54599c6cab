"""Check a game where it starts, for every player count it allows: its own
constraints (`constraints:` in game.yaml) on the cards in their starting
zones, before any setup step has run (`game.player_count` tells a
constraint which); then, once they hold, its setup run once, so that numbers
that make the setup impossible (a hand larger than the deck can deal) are a
warning of `check` (an error with --strict), not only a fault of the first
game played.  A warning, not an error: the dry run takes the first option of
every decision, and a game may still be built to study its fault.

It runs the engine on the bundle, so it is not part of the compiler: the
compiler calls it on the bundle it made, passed in by
`project.compile_checked`."""
from __future__ import annotations

import re

from cardc.ir import nodes
from cardc.ir.nodes import Call, Cmp, Node
from cardc.load.diagnostics import Loc


def check_start(bundle: dict, diags) -> None:
    from cardc.engine.game import Game
    try:
        game = Game(bundle)
    except RecursionError:      # e.g. a function that calls itself, inlined by the engine
        if bundle["code"].get("constraints"):
            file, line, col = bundle["code"]["constraints"][0]["loc"]
            diags.error(Loc(file, line, col), "the engine could not build this game's rules to check "
                        "this: they nest or call themselves too deep (a function that calls itself?)")
        return
    check_constraints(game, bundle, diags)
    if not diags.has_errors:
        check_setup(game, diags)


#: decisions a setup may ask for, at most, in the dry run (option 0 each time)
SETUP_DECISIONS = 1000


def check_setup(game, diags) -> None:
    """Run the setup once per player count (seed 0, the first option of
    every decision it asks), up to the first turn; a fault is a warning at
    the statement that failed, naming the count."""
    from cardc.engine.errors import EngineError
    setup = game.bundle["code"].get("flow:setup") or {}
    for n in range(game.min_players, game.max_players + 1):
        try:
            st = game.new_state(n, seed=0)
            for _ in range(SETUP_DECISIONS):
                if st.terminal or st.pending is None or st.stage not in ("init", "setup"):
                    break
                st.apply(0)
        except EngineError as exc:
            where = re.match(r"^(.+?):(\d+):(\d+)\b", getattr(exc, "where", "") or "")
            loc = Loc(where.group(1), int(where.group(2)), int(where.group(3))) if where \
                else Loc(setup.get("file") or "game.yaml", (setup.get("src") or [[1, 1]])[0][0], 1)
            diags.warning(loc, f"the setup cannot run with {n} players: {getattr(exc, 'message', exc)}",
                        "check the numbers it deals with (params, card counts) against what there is")
            return


def check_constraints(game, bundle: dict, diags) -> None:
    from cardc.engine.state import State
    if not bundle["code"].get("constraints"):
        return
    states = [State.initial(game, n, seed=0, run=False)
              for n in range(game.min_players, game.max_players + 1)]
    # each check as written, a typed node (in game.constraints' order): `explain` reads it
    written = [nodes.parse(c["expect"]) for c in bundle["code"]["constraints"]]
    for (check, message, (file, line, col)), expect in zip(game.constraints, written, strict=False):
        failing = []
        try:
            failing = [st.n for st in states if not check(st, {})]
        except _cannot() as exc:
            diags.error(Loc(file, line, col), f"constraint could not be evaluated: {exc}")
            continue
        if failing:
            counts = "" if len(failing) == len(states) else \
                " (with " + ", ".join(map(str, failing)) + " players)"
            found, cards = explain(game, expect, next(st for st in states if st.n in failing))
            diags.error(Loc(file, line, col), f"constraint not met: {message}{counts}{found}",
                        (f"{cards}; " if cards else "") + "change the card quantities or values, or the constraint")


def _cannot():
    from cardc.engine.errors import EngineError
    return (EngineError, ArithmeticError, LookupError, TypeError, ValueError)


def explain(game, expect: Node, st) -> tuple[str, str]:
    """What a failed comparison `expect` found, (": it is 100, not 98", "the
    100 cards counted: 12 ruby, …"), so that the designer sees the actual
    value and the cards that make it, not only the message they wrote
    (which may itself be out of date).  Each side is computed alone, and
    the list a side counts (`count(xs)`) is listed by card."""
    match expect:
        case Cmp(operator="==" | "!=" | "<" | "<=" | ">" | ">=" as op, left=left, right=right):
            pass
        case _:
            return "", ""
    try:
        a, b = _value(game, left, st), _value(game, right, st)
    except _cannot():             # a side that cannot be computed alone: the message as written
        return "", ""
    if not all(isinstance(v, (int, str)) or v is None for v in (a, b)):
        return "", ""
    found = f": it is {_shown(a)}, not {_shown(b)}" if op == "==" else \
        f": it is {_shown(a)} against {_shown(b)} (wanted {op})"
    match left, right:
        case (Call(builtin="count", args=[counted]), _) | (_, Call(builtin="count", args=[counted])):
            pass
        case _:
            return found, ""
    try:
        cards = _value(game, counted, st)
    except _cannot():
        return found, ""
    by_id: dict[str, int] = {}
    for iid in cards or ():
        cid = game.instances[iid]["card"]
        by_id[cid] = by_id.get(cid, 0) + 1
    listed = ", ".join(f"{n} {cid}" for cid, n in by_id.items())
    return found, f"the {len(cards or ())} cards counted: {listed}"


def _value(game, expr: Node, st):
    """The value of `expr` in state `st` (the generator builds the JSON form)."""
    return game.pygen.build(expr)(st, {})


def _shown(value) -> str:
    return "none" if value is None else str(value)
