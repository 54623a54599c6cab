"""Which parts of the state a function reads, worked out once from its IR.

Function results are cached; an entry stays valid while every part the
function depends on is unchanged.  Parts are named "z:<zone>" (the cards of
every zone of that name), "g:<counter>", "p:<counter>", "c:<counter>",
"flow" (turn, round, whose turn), "events" (reaction windows).  A function
that reads something harder to track (where a card is, what is revealed,
modifiers, randomness) depends on "*": any change at all.
"""
from __future__ import annotations

EVERYTHING = "*"
_STATIC_CALLS = {"count", "sum", "any", "all", "max", "min", "max_list", "min_list", "top",
                 "bottom", "first", "last", "reversed", "unique", "index_of", "rivals",
                 "next_player", "players_from", "round_up", "abs", "cell", "cells",
                 "neighbors", "distance", "column", "row", "connected", "cards_at",
                 "has_reaction", "has_effect", "sort_by"}


def expr_deps(ir, fn_deps: dict, out: set) -> None:
    """Add to `out` the parts read by expression `ir`."""
    if not isinstance(ir, list) or not ir:
        return
    op = ir[0]
    if op in ("zone", "pzone"):
        out.add("z:" + ir[1])
    elif op == "gctr":
        out.add("g:" + ir[1])
    elif op == "pctr":
        out.add("p:" + ir[1])
    elif op in ("cctr", "cpp"):
        out.add("c:" + ir[1])
    elif op == "gattr":
        out.add("flow")
    elif op == "eattr":
        out.add("events")
    elif op == "call":
        name = ir[1]
        if name == "sort_by":
            out.update(fn_deps.get(ir[2][1][1], {EVERYTHING}))
        elif name not in _STATIC_CALLS:
            out.add(EVERYTHING)
    elif op == "fn":
        out.update(fn_deps.get(ir[1], {EVERYTHING}))
    elif op == "var":
        return
    for part in ir[1:]:
        if isinstance(part, list):
            if part and isinstance(part[0], str):
                expr_deps(part, fn_deps, out)
            else:
                for item in part:
                    expr_deps(item, fn_deps, out)
        elif isinstance(part, dict):
            for item in part.values():
                expr_deps(item, fn_deps, out)


def function_deps(code: dict) -> dict:
    """{function name: frozenset of parts}, following calls between functions."""
    bodies = {k[3:]: v["expr"] for k, v in code.items() if k.startswith("fn:")}
    deps: dict = {}

    def visit(name, stack):
        if name in deps:
            return deps[name]
        if name in stack:                 # recursion: do not cache
            return {EVERYTHING}
        out: set = set()
        called = set()
        _calls(bodies[name], called)
        for other in called:
            if other in bodies:
                out.update(visit(other, stack | {name}))
        expr_deps(bodies[name], deps_view, out)
        deps[name] = frozenset(out)
        return deps[name]

    deps_view = deps
    for name in bodies:
        visit(name, frozenset())
    return deps


def _calls(ir, out):
    if isinstance(ir, list):
        if ir and ir[0] == "fn":
            out.add(ir[1])
        if ir and ir[0] == "call" and ir[1] == "sort_by":
            out.add(ir[2][1][1])
        for part in ir:
            _calls(part, out)
    elif isinstance(ir, dict):
        for part in ir.values():
            _calls(part, out)
