"""Which parts of the state a function reads, worked out once from its IR.

Function results are cached; an entry stays valid while every part the
function depends on is unchanged.  Parts are named "z:<zone>" (the cards of
every zone of that name), "g:<counter>", "p:<counter>", "c:<counter>",
"flow:<attribute>" (turn, round, turn_player, first_player: each its own, so
a function that reads whose turn it is stays valid when only the turn
number moves on), "events" (reaction windows), "attachments" (which card is
attached to which: `host`, `attachments`).  A function
that reads something harder to track (where a card is, what is revealed,
randomness) depends on "*": any change at all.

Functions may call functions and modifiers (`modified("x", …)`), and
modifiers may call functions, so the parts are found as a fixpoint: start
from nothing and add what each body reads until nothing changes.
"""
from __future__ import annotations

EVERYTHING = "*"
#: the part `attach`, `detach` and moves of attached cards change
ATTACHMENTS = "attachments"
ATTACHMENT_CALLS = {"host", "attachments"}
#: the parts of the game's outer structure content can read (`game.turn` …)
FLOW_PARTS = ("flow:turn", "flow:round", "flow:turn_player", "flow:first_player")
_STATIC_CALLS = {"count", "sum", "any", "all", "max", "min", "max_list", "min_list", "top",
                 "bottom", "first", "last", "reversed", "unique", "index_of", "rivals",
                 "next_player", "players_from", "round_up", "abs", "cell", "cells",
                 "neighbors", "distance", "column", "row", "connected", "cards_at",
                 "has_reaction", "has_effect", "sort_by", "modified", "flatten"}


def expr_deps(ir, fn_deps: dict, mod_deps: dict, out: set, params=()) -> None:
    """Add to `out` the parts read by expression `ir`, in the body of a
    function with parameters `params` (a zone of one of them is a part of
    its own: see `player_part`)."""
    if not isinstance(ir, list) or not ir:
        return
    op = ir[0]
    if op == "zone":
        out.add("z:" + ir[1])
    elif op == "pzone":
        out.add(player_part(ir[1], ir[2], params))
    elif op == "comp" and len(ir) == 5 and ir[2] in params:
        # the comprehension's variable hides a parameter of the same name
        _, elt, var, it, cond = ir
        expr_deps(it, fn_deps, mod_deps, out, params)
        hidden = tuple(None if p == var else p for p in params)
        expr_deps(elt, fn_deps, mod_deps, out, hidden)
        expr_deps(cond, fn_deps, mod_deps, out, hidden)
        return
    elif op == "gctr":
        out.add("g:" + ir[1])
    elif op == "pctr":
        out.add("p:" + ir[1])
    elif op in ("cctr", "cpp"):
        out.add("c:" + ir[1])
    elif op == "gattr":
        if ir[1] != "player_count":         # fixed for the whole game
            out.add("flow:" + ir[1])
    elif op == "eattr":
        out.add("events")
    elif op == "call":
        name = ir[1]
        if name == "sort_by":
            out.update(fn_deps.get(ir[2][1][1], ()))
        elif name == "modified":
            out.update(mod_deps.get(ir[2][0][1], ()))
        elif name in ATTACHMENT_CALLS:
            out.add(ATTACHMENTS)
        elif name not in _STATIC_CALLS:
            out.add(EVERYTHING)
    elif op == "fn":
        args = ir[2] if len(ir) > 2 else []
        for d in fn_deps.get(ir[1], ()):
            if "@" in d:            # the callee's parameter i: here, the zone of its argument
                zone, i = d[2:].split("@")
                arg = args[int(i)] if int(i) < len(args) else None
                d = player_part(zone, arg, params)
            out.add(d)
    elif op == "var":
        return
    for part in ir[1:]:
        if isinstance(part, list):
            if part and isinstance(part[0], str):
                expr_deps(part, fn_deps, mod_deps, out, params)
            else:
                for item in part:
                    expr_deps(item, fn_deps, mod_deps, out, params)
        elif isinstance(part, dict):
            for item in part.values():
                expr_deps(item, fn_deps, mod_deps, out, params)


def player_part(zone: str, who, params) -> str:
    """The part of player zone `zone` read for player `who`: "z:<zone>@<i>"
    when `who` is the function's parameter i (only that player's zone: a
    function of one player stays valid while another player's hand changes;
    its stamp reads that slot's own version, `State.sv`), else "z:<zone>"
    (every player's)."""
    if isinstance(who, list) and len(who) == 2 and who[0] == "var" and who[1] in params:
        return f"z:{zone}@{params.index(who[1])}"
    return "z:" + zone


def _whole(deps: set) -> set:
    """`deps` without the one-player parts whose whole zone is there too."""
    return {d for d in deps if "@" not in d or d.split("@")[0] not in deps}


def function_deps(code: dict, cards: list, active_zones: list) -> tuple[dict, dict]:
    """({function: frozenset of parts}, {modifier: frozenset of parts})."""
    bodies = {k[3:]: v["expr"] for k, v in code.items() if k.startswith("fn:")}
    params = {k[3:]: tuple(v.get("params") or ()) for k, v in code.items() if k.startswith("fn:")}
    modifiers: dict = {}
    for card in cards:
        for name, ir in (card.get("modifiers") or {}).items():
            modifiers.setdefault(name, []).append(ir)
    # a modifier reads which cards are in force, and whose turn it is (the
    # owner of a card in a shared zone)
    base = {"flow:turn_player"} | {"z:" + z for z in active_zones}
    fn_deps = {name: set() for name in bodies}
    mod_deps = {name: set(base) for name in modifiers}
    changed = True
    while changed:
        changed = False
        for name, body in bodies.items():
            out = set(fn_deps[name])
            expr_deps(body, fn_deps, mod_deps, out, params[name])
            out = _whole(out)
            if out != fn_deps[name]:
                fn_deps[name], changed = out, True
        for name, irs in modifiers.items():
            out = set(mod_deps[name])
            for ir in irs:
                expr_deps(ir, fn_deps, mod_deps, out)
            if out != mod_deps[name]:
                mod_deps[name], changed = out, True
    return ({k: frozenset(v) for k, v in fn_deps.items()},
            {k: frozenset(v) for k, v in mod_deps.items()})


_SIMPLE = {"lit", "var", "pctr", "gctr", "cctr", "cpp", "field", "gattr", "bin", "cmp", "and",
           "or", "not", "neg", "if", "pattr", "str", "fmt", "eattr", "cards", "zone", "pzone"}
_CHEAP_CALLS = {"abs", "count", "round_up", "max", "min", "column", "row", "cell", "has_effect",
                "has_reaction", "next_player", "owner_of", "host", "modified", "neighbors"}


def simple_functions(code: dict) -> dict:
    """{function: True} for bodies of a few reads and comparisons, calling
    only other such functions (no lists, no modifiers): cheaper to compute
    again than to look up in a cache."""
    bodies = {k[3:]: v["expr"] for k, v in code.items() if k.startswith("fn:")}
    memo: dict = {}

    def simple(ir, stack):
        if not isinstance(ir, list) or not ir:
            return True
        if not isinstance(ir[0], str):          # a list of expressions (the parts of `and`)
            return all(simple(part, stack) for part in ir)
        op = ir[0]
        if op == "fn":                      # the callee caches itself if it is worth it
            return all(simple(a, stack) for a in ir[2])
        if op == "call":
            # `cards_at` on a whole zone is a lookup in the zone's index
            indexed = ir[1] == "cards_at" and ir[2] and isinstance(ir[2][0], list) \
                and ir[2][0][:1] == ["cards"]
            return (ir[1] in _CHEAP_CALLS or indexed) and all(simple(a, stack) for a in ir[2])
        if op not in _SIMPLE:
            return False
        return all(simple(part, stack) for part in ir[1:] if isinstance(part, list))

    def fn_simple(name, stack):
        if name not in memo:
            if name in stack or name not in bodies:
                return False
            memo[name] = simple(bodies[name], stack | {name})
        return memo[name]

    return {name: fn_simple(name, frozenset()) for name in bodies}


RANDOM_CALLS = {"shuffled_order"}


def call_graph(bodies: dict) -> tuple[dict, set]:
    """For each function, the functions its body calls; and the functions
    that call a random builtin themselves."""
    calls = {name: set() for name in bodies}
    random = set()

    def scan(ir, name):
        if isinstance(ir, list):
            if len(ir) > 1 and ir[0] == "call" and ir[1] in RANDOM_CALLS:
                random.add(name)
            if len(ir) > 1 and ir[0] == "fn" and isinstance(ir[1], str):
                calls[name].add(ir[1])
            for part in ir:
                scan(part, name)
        elif isinstance(ir, dict):
            for part in ir.values():
                scan(part, name)
    for name, body in bodies.items():
        scan(body, name)
    return calls, random


def impure_functions(bodies: dict) -> set:
    """Functions whose result depends on randomness (they call a random
    builtin, or such a function): never cached, never computed once for two uses."""
    calls, impure = call_graph(bodies)
    changed = True
    while changed:
        changed = False
        for name, callees in calls.items():
            if name not in impure and callees & impure:
                impure.add(name)
                changed = True
    return impure


def recursive_functions(bodies: dict) -> set:
    """Functions that can call themselves (directly or through others): each
    of their calls counts against the engine's step budget."""
    calls, _ = call_graph(bodies)
    out = set()
    for start in bodies:
        seen, todo = set(), list(calls[start])
        while todo:
            f = todo.pop()
            if f == start:
                out.add(start)
                break
            if f not in seen and f in calls:
                seen.add(f)
                todo.extend(calls[f])
    return out
