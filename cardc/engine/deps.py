"""Which parts of the state a function reads, worked out once from its IR.

Function results are cached; an entry stays valid while every part the
function depends on is unchanged.  Parts are named "z:<zone>" (the cards of
every zone of that name), "z:<zone>@<i>" (that zone of the player who is
parameter i), "cells:<zone>|<cells>" (the cards of a shared zone on some
cells only, worked out from the parameters: `cell_part`), "g:<counter>",
"keyed:<zone>|<counter>|<value>" (the cards of a zone, every player's
if it is a player zone, whose counter holds one value worked out from the
parameters: `keyed_part`), "empty:<zone>" (whether a shared zone holds any
card: `emptiness_zone`), "p:<counter>", "c:<counter>", "flow:<attribute>" (turn, round, turn_player,
first_player: each its own, so a function that reads whose turn it is stays
valid when only the turn number moves on), "events" (reaction windows),
"attachments" (which card is attached to which: `host`, `attachments`).  A
function that reads something harder to track (where a card is, what is
revealed, randomness) depends on "*": any change at all.

A card counter read on the cards of one player's zone or of some cells
(`[m for m in p.pile if m.mark == x]`) depends on that zone or those
cells, not on the counter of every card: a write of such a counter counts
as a change to the card's zone and cell (`Table.counter_written`).

Functions may call functions and modifiers (`modified("x", …)`), and
modifiers may call functions, so the parts are found as a fixpoint: start
from nothing and add what each body reads until nothing changes.
"""
from __future__ import annotations

import json

from cardc.ir.builtins import ATTACHMENTS, BUILTINS, FUNCTION, MODIFIER, STATIC_READS
from cardc.ir.nodes import json_children

EVERYTHING = "*"
#: the part `attach`, `detach` and moves of attached cards change: ATTACHMENTS (from the registry)
ATTACHMENT_CALLS = frozenset(b.name for b in BUILTINS.values() if b.reads == ATTACHMENTS)
#: the parts of the game's outer structure content can read (`game.turn` …)
FLOW_PARTS = ("flow:turn", "flow:round", "flow:turn_player", "flow:first_player")
#: the builtins that read only their arguments (and the game's fixed
#: tables); `sort_by` and `modified` read what they name (expr_deps)
_STATIC_CALLS = frozenset(b.name for b in BUILTINS.values() if b.reads in STATIC_READS)


def expr_deps(ir, fn_deps: dict, mod_deps: dict, out: set, params=(), covered=frozenset(),
              origins=None) -> None:
    """Add to `out` the parts read by expression `ir`, in the body of a
    function with parameters `params` (a zone of one of them is a part of
    its own: see `player_part`).  `covered`: the comprehension variables that
    range over the cards of some cells of a zone (`cell_origin`), whose
    counters that zone's cell versions already cover (see `cell_part`);
    `origins`: the functions that return cards of some cells (`cell_origins`)."""
    if not isinstance(ir, list) or not ir:
        return
    op = ir[0]
    if op == "comp":
        part = keyed_part(ir, params)
        if part is not None:
            out.add(part)
            who = ir[3][1]
            if who[0] == "pzone":               # whose zone: any expression, read as usual
                expr_deps(who[2], fn_deps, mod_deps, out, params, covered, origins)
            return
    if op == "cmp":
        zone = emptiness_zone(ir)
        if zone is not None:
            out.add(EMPTY + zone)
            return
    if op == "call" and ir[1] == "cards_at":
        part = cell_part(ir, params)
        if part is not None:
            out.add(part)
            return
    if op == "comp" and len(ir) == 5 and (ir[2] in covered or ir[2] in params):
        covered = covered - {ir[2]}         # a variable of the same name hides it
    if op == "comp" and len(ir) == 5 and (_own_zone_list(ir[3], params) or cell_origin(ir[3], origins, params)):
        # the counters of the cards of one player's zone, or of a zone's
        # cells: that zone's or those cells' versions cover them (a counter
        # written on a card bumps its zone and its cell, Table.counter_written).
        # Not for a whole shared zone: there, every function reading the zone
        # would go stale with each write of the counter (measured: slower)
        _, elt, var, it, cond = ir
        expr_deps(it, fn_deps, mod_deps, out, params, covered, origins)
        hidden = tuple(None if p == var else p for p in params)
        expr_deps(elt, fn_deps, mod_deps, out, hidden, covered | {var}, origins)
        expr_deps(cond, fn_deps, mod_deps, out, hidden, covered | {var}, origins)
        return
    if op in ("cctr", "cpp") and ir[2] == ["var", ir[2][1]] and ir[2][1] in covered:
        out.add(COVERED + ir[1])           # see function_deps
        if op == "cpp":
            expr_deps(ir[3], fn_deps, mod_deps, out, params, covered, origins)
        return
    if op == "zone":
        out.add("z:" + ir[1])
    elif op == "pzone":
        out.add(player_part(ir[1], ir[2], params))
    elif op == "comp" and len(ir) == 5 and ir[2] in params:
        # the comprehension's variable hides a parameter of the same name
        _, elt, var, it, cond = ir
        expr_deps(it, fn_deps, mod_deps, out, params, covered, origins)
        hidden = tuple(None if p == var else p for p in params)
        expr_deps(elt, fn_deps, mod_deps, out, hidden, covered, origins)
        expr_deps(cond, fn_deps, mod_deps, out, hidden, covered, origins)
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
        reads = BUILTINS[name].reads if name in BUILTINS else None
        if reads == FUNCTION:                   # sort_by(xs, "f", …)
            out.update(fn_deps.get(ir[2][1][1], ()))
        elif reads == MODIFIER:                 # modified("name", …)
            out.update(mod_deps.get(ir[2][0][1], ()))
        elif name in ATTACHMENT_CALLS:
            out.add(ATTACHMENTS)
        elif name not in _STATIC_CALLS:
            out.add(EVERYTHING)
    elif op == "fn":
        args = ir[2] if len(ir) > 2 else []
        for d in fn_deps.get(ir[1], ()):
            if d.startswith("z:") and "@" in d:     # the callee's parameter i: here, the zone of its argument
                zone, i = d[2:].split("@")
                arg = args[int(i)] if int(i) < len(args) else None
                d = player_part(zone, arg, params)
            elif d.startswith(CELLS):               # the callee's cells, of its arguments: here, of ours
                d = cells_called(d, args, params)
            elif d.startswith(KEYED):               # the callee's value, of its arguments: here, of ours
                out.update(keyed_called(d, args, params))
                continue
            out.add(d)
    elif op == "var":
        return
    for part in json_children(ir):
        expr_deps(part, fn_deps, mod_deps, out, params, covered, origins)


def player_part(zone: str, who, params) -> str:
    """The part of player zone `zone` read for player `who`: "z:<zone>@<i>"
    when `who` is the function's parameter i (only that player's zone: a
    function of one player stays valid while another player's hand changes:
    a change to that player's slot forgets only its entries, stale.py), else "z:<zone>"
    (every player's)."""
    if isinstance(who, list) and len(who) == 2 and who[0] == "var" and who[1] in params:
        return f"z:{zone}@{params.index(who[1])}"
    return "z:" + zone


#: whether a shared zone holds any card: "empty:<zone>" (`emptiness_zone`)
EMPTY = "empty:"
#: (comparison, number) that ask of a count only whether it is 0
_EMPTY_TESTS = {("==", 0), ("!=", 0), (">", 0), ("<=", 0), (">=", 1), ("<", 1)}
_MIRROR = {"==": "==", "!=": "!=", ">": "<", "<": ">", ">=": "<=", "<=": ">="}


def emptiness_zone(ir):
    """For a comparison that asks only whether a shared zone is empty
    (`count(tile_pool) == 0`, `count(market_row) > 0`, `1 <= count(z)`),
    that zone's name: such a read depends on the zone's emptiness, a part
    of its own, so a card drawn from a pile that stays non-empty leaves the
    value as it is (`Table.move`).  Else None."""
    if len(ir) != 4:
        return None
    _, op, left, right = ir
    for counted, number, test in ((left, right, op), (right, left, _MIRROR.get(op))):
        zone = _counted_zone(counted)
        if (zone is not None and isinstance(number, list) and len(number) == 2
                and number[0] == "lit" and type(number[1]) is int
                and (test, number[1]) in _EMPTY_TESTS):
            return zone
    return None


def _counted_zone(ir):
    """The shared zone of `count(<zone>)` (["call", "count", [["cards",
    ["zone", name]]], {}]), else None."""
    if not (isinstance(ir, list) and len(ir) == 4 and ir[:2] == ["call", "count"] and not ir[3]
            and isinstance(ir[2], list) and len(ir[2]) == 1):
        return None
    cards = ir[2][0]
    if isinstance(cards, list) and len(cards) == 2 and cards[0] == "cards" and \
            isinstance(cards[1], list) and len(cards[1]) == 2 and cards[1][0] == "zone":
        return cards[1][1]
    return None


#: the part of some cells of a zone: "cells:<zone>|<the cells, as JSON IR
#: in which ["arg", i] is the function's parameter i>"
CELLS = "cells:"
#: a mark (not a part) that a counter is read on the cards of one player's
#: zone or of a zone's cells, so that zone's parts cover it: writes of that
#: counter bump the card's zone and cell (Table.counter_written; function_deps)
COVERED = "covered:"
#: what the cells of a cell part may be made of: each is cheap, and reads
#: nothing of the state (a card's printed cell, the grid's neighbours)
_CELL_CALLS = {"neighbors", "cell"}


def _cells_ir(ir, params):
    """`ir` (the cells of a `cards_at`) with each parameter written as its
    position, ["arg", i], if it is one of the forms a change can find the
    entries of at once (`Table.forget_cell`): a parameter or a literal cell, the printed cell of a
    card parameter, or the neighbours of either; else None."""
    if not isinstance(ir, list) or not ir:
        return None
    if ir[0] == "var":
        return ["arg", params.index(ir[1])] if ir[1] in params else None
    if ir[0] == "arg":
        return ir
    if ir[0] == "lit":
        return ir if type(ir[1]) is str else None
    if ir[0] == "call" and ir[1] in _CELL_CALLS and len(ir[2]) == 1 and not ir[3]:
        inner = _cells_ir(ir[2][0], params)
        if inner is None or inner[0] == "call" and (ir[1] == "cell" or inner[1] == "neighbors"):
            return None             # cell(cell(…)) or neighbours of neighbours: not a cell list
        if ir[1] == "cell" and inner[0] == "lit":
            return None
        return ["call", ir[1], [inner], {}]
    return None


def cell_part(ir, params):
    """For `cards_at(zone, cells)` on a whole shared zone, with cells worked
    out from the parameters alone (`_cells_ir`), the part of those cells:
    the function is stale only when a card comes to or leaves one of them,
    or a counter of a card on one of them changes (`Table.forget_cell`), not when
    any card of the zone moves.  Else None (the whole zone, as any read)."""
    cards, cells = (ir[2] + [None, None])[:2]
    if not (isinstance(cards, list) and cards[:1] == ["cards"] and isinstance(cards[1], list)
            and cards[1][:1] == ["zone"]):
        return None
    where = _cells_ir(cells, params)
    if where is None:
        return None
    return f"{CELLS}{cards[1][1]}|{json.dumps(where, separators=(',', ':'))}"


def cells_called(part, args, params):
    """A callee's cell part, called with `args`: the same cells worked out
    from our own parameters, or the whole zone when they cannot be."""
    zone, where = part[len(CELLS):].split("|", 1)

    def put(x):
        if isinstance(x, list) and x[:1] == ["arg"]:
            return args[x[1]] if x[1] < len(args) else ["lit", None]
        if isinstance(x, list):
            return [put(y) for y in x]
        return x
    mine = _cells_ir(put(json.loads(where)), params)
    if mine is None:
        return "z:" + zone
    return f"{CELLS}{zone}|{json.dumps(mine, separators=(',', ':'))}"


#: the part of the cards of a zone whose counter holds one value:
#: "keyed:<zone>|<counter>|<the value, as JSON IR: ["arg", i] or ["lit", v]>"
KEYED = "keyed:"


def _value_ir(ir, params):
    """`ir` as a value whose entries a change can find at once: ["arg", i] for the function's
    parameter i, the literal itself for a literal that can be a key; else None."""
    if isinstance(ir, list) and len(ir) == 2:
        if ir[0] == "var" and ir[1] in params:
            return ["arg", params.index(ir[1])]
        if ir[0] == "arg":
            return ir
        if ir[0] == "lit" and (ir[1] is None or type(ir[1]) in (str, int, bool)):
            return ir
    return None


def keyed_part(ir, params):
    """For `[m for m in <zone> if m.<counter> == <value>]`, with the value
    worked out from the parameters alone (`_value_ir`), the part of the
    cards of that zone (every player's, for a player zone) whose counter
    holds that value: the function is stale only when such a card comes or
    goes, or a card of the zone takes or loses that value
    (`Table.forget_keyed`, `Table.key_written`), not whenever any card of the
    zone moves or any card's counter changes.  Else None."""
    if not (len(ir) == 5 and ir[1] == ["var", ir[2]] and isinstance(ir[3], list)
            and ir[3][:1] == ["cards"] and isinstance(ir[3][1], list)
            and ir[3][1][:1] in (["zone"], ["pzone"]) and isinstance(ir[4], list)
            and ir[4][:2] == ["cmp", "=="]):
        return None
    var = ir[2]
    hidden = tuple(None if p == var else p for p in params)
    left, right = ir[4][2:4]
    for ctr, value in ((left, right), (right, left)):
        if isinstance(ctr, list) and ctr[:1] == ["cctr"] and ctr[2:] == [["var", var]]:
            where = _value_ir(value, hidden)
            if where is not None:
                return f"{KEYED}{ir[3][1][1]}|{ctr[1]}|{json.dumps(where, separators=(',', ':'))}"
    return None


def keyed_called(part, args, params) -> set:
    """A callee's keyed part, called with `args`: the same value worked out
    from our own parameters, or else the whole zone and counter."""
    zone, ctr, where = part[len(KEYED):].split("|", 2)
    x = json.loads(where)
    if x[0] == "arg":
        x = args[x[1]] if x[1] < len(args) else ["lit", None]
    mine = _value_ir(x, params)
    if mine is None:
        return unkeyed(part)
    return {f"{KEYED}{zone}|{ctr}|{json.dumps(mine, separators=(',', ':'))}"}


def unkeyed(part) -> set:
    """What a keyed part stands for when it cannot be one: the whole zone
    and every card's counter."""
    zone, ctr, _ = part[len(KEYED):].split("|", 2)
    return {"z:" + zone, "c:" + ctr}


def cell_origin(it, origins, params):
    """The zone whose cells the cards of list `it` come from, when `it` is
    such a `cards_at`, a call of a function that returns such cards
    (`origins`), or a filter of either; else None."""
    part = _origin_part(it, origins or {}, params)
    return None if part is None else part[len(CELLS):].split("|", 1)[0]


def _own_zone_list(it, params) -> bool:
    """`it` is the list of the cards of a player zone of a parameter
    (`p.pile`: a part of its own, "z:pile@0"), or a filter of it."""
    if not isinstance(it, list) or not it:
        return False
    if it[0] == "cards":
        return "@" in player_part(it[1][1], it[1][2], params) if it[1][:1] == ["pzone"] else False
    return it[0] == "comp" and len(it) == 5 and it[1] == ["var", it[2]] and _own_zone_list(it[3], params)


def _origin_part(it, origins, params):
    """The cell part the cards of list `it` come from (see `cell_origin`)."""
    if not isinstance(it, list) or not it:
        return None
    if it[0] == "call" and it[1] == "cards_at":
        return cell_part(it, params)
    if it[0] == "fn" and it[1] in origins:
        part = cells_called(origins[it[1]], it[2] if len(it) > 2 else [], params)
        return part if part.startswith(CELLS) else None
    if it[0] == "comp" and len(it) == 5 and it[1] == ["var", it[2]]:
        return _origin_part(it[3], origins, params)       # some of those cards
    return None


def cell_origins(bodies: dict, params: dict) -> dict:
    """{function: the cell part (in its parameters) whose cards it returns},
    for the functions whose body is such a list (`_origin_part`)."""
    origins: dict = {}
    changed = True
    while changed:
        changed = False
        for name, body in bodies.items():
            if name not in origins:
                part = _origin_part(body, origins, params[name])
                if part is not None:
                    origins[name], changed = part, True
    return origins


def _whole(deps: set) -> set:
    """`deps` without the one-player parts, cell parts and emptiness parts
    whose whole zone is there too, and the keyed parts whose whole zone and
    counter are."""
    return {d for d in deps
            if not ((d.startswith("z:") and "@" in d and d.split("@")[0] in deps)
                    or (d.startswith(EMPTY) and "z:" + d[len(EMPTY):] in deps)
                    or (d.startswith(CELLS) and "z:" + d[len(CELLS):].split("|")[0] in deps)
                    or (d.startswith(KEYED) and {"z:" + d[len(KEYED):].split("|")[0],
                                                 "c:" + d[len(KEYED):].split("|")[1]} <= deps))}


def function_deps(code: dict, cards: list, active_zones: list) -> tuple[dict, dict, set]:
    """({function: frozenset of parts}, {modifier: frozenset of parts}, the
    card counters whose reads a zone's parts cover: see `expr_deps`)."""
    bodies = {k[3:]: v["expr"] for k, v in code.items() if k.startswith("fn:")}
    params = {k[3:]: tuple(v.get("params") or ()) for k, v in code.items() if k.startswith("fn:")}
    modifiers: dict = {}
    for card in cards:
        for name, ir in (card.get("modifiers") or {}).items():
            modifiers.setdefault(name, []).append(ir)
    # a modifier reads which cards are in force, and whose turn it is (the
    # owner of a card in a shared zone)
    base = {"flow:turn_player"} | {"z:" + z for z in active_zones}
    fn_deps: dict[str, set[str]] = {name: set() for name in bodies}
    mod_deps = {name: set(base) for name in modifiers}
    origins = cell_origins(bodies, params)
    changed = True
    while changed:
        changed = False
        for name, body in bodies.items():
            out = set(fn_deps[name])
            expr_deps(body, fn_deps, mod_deps, out, params[name], origins=origins)
            out = _whole(out)
            if out != fn_deps[name]:
                fn_deps[name], changed = out, True
        for name, irs in modifiers.items():
            out = set(mod_deps[name])
            for ir in irs:
                expr_deps(ir, fn_deps, mod_deps, out, origins=origins)
            if out != mod_deps[name]:
                mod_deps[name], changed = out, True
    # the marks of covered counter reads are not parts: they say which
    # counters' writes must bump the card's zone (`Game.covered_counters`)
    marks = {d[len(COVERED):] for deps in list(fn_deps.values()) + list(mod_deps.values())
             for d in deps if d.startswith(COVERED)}

    def parts(deps):
        return frozenset(d for d in deps if not d.startswith(COVERED))
    return ({k: parts(v) for k, v in fn_deps.items()},
            {k: parts(v) for k, v in mod_deps.items()}, marks)


_SIMPLE = {"lit", "var", "pctr", "gctr", "cctr", "cpp", "field", "gattr", "bin", "cmp", "and",
           "or", "not", "neg", "if", "pattr", "str", "fmt", "eattr", "cards", "zone", "pzone"}
_CHEAP_CALLS = frozenset(b.name for b in BUILTINS.values() if b.cheap)


def simple_functions(code: dict) -> dict:
    """{function: True} for bodies of a few reads and comparisons, calling
    only other such functions (no lists, no modifiers): cheaper to compute
    again than to look up in a cache."""
    bodies = {k[3:]: v["expr"] for k, v in code.items() if k.startswith("fn:")}
    memo: dict = {}

    def simple(ir, stack):
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
        return all(simple(part, stack) for part in json_children(ir))

    def fn_simple(name, stack):
        if name not in memo:
            if name in stack or name not in bodies:
                return False
            memo[name] = simple(bodies[name], stack | {name})
        return memo[name]

    return {name: fn_simple(name, frozenset()) for name in bodies}
