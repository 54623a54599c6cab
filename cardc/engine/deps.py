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
from typing import cast

from cardc.ir import builtins as registry
from cardc.ir import nodes as n
from cardc.ir.builtins import ATTACHMENTS, BUILTINS, STATIC_READS

EVERYTHING = "*"
#: the part `attach`, `detach` and moves of attached cards change: ATTACHMENTS (from the registry)
ATTACHMENT_CALLS = frozenset(b.name for b in BUILTINS.values() if b.reads == ATTACHMENTS)
#: the parts of the game's outer structure content can read (`game.turn` …)
FLOW_PARTS = ("flow:turn", "flow:round", "flow:turn_player", "flow:first_player")
#: the builtins that read only their arguments (and the game's fixed
#: tables); `sort_by` and `modified` read what they name (expr_deps)
_STATIC_CALLS = frozenset(b.name for b in BUILTINS.values() if b.reads in STATIC_READS)


def expr_deps(expr: n.Node | None, fn_deps: dict, mod_deps: dict, out: set, params=(), covered=frozenset(),
              origins=None) -> None:
    """Add to `out` the parts read by expression `expr`, in the body of a
    function with parameters `params` (a zone of one of them is a part of
    its own: see `player_part`).  `covered`: the comprehension variables that
    range over the cards of some cells of a zone (`cell_origin`), whose
    counters that zone's cell versions already cover (see `cell_part`);
    `origins`: the functions that return cards of some cells (`cell_origins`)."""
    def read(x, params=params, covered=covered):     # what a part of `expr` reads, into `out`
        expr_deps(x, fn_deps, mod_deps, out, params, covered, origins)

    match expr:
        case None:
            return
        case n.Comp(items=n.Cards(zone=source)) if (part := keyed_part(expr, params)) is not None:
            out.add(part)
            if isinstance(source, n.Pzone):     # whose zone: any expression, read as usual
                read(source.player)
            return
        case n.Cmp() if (name := emptiness_zone(expr)) is not None:
            out.add(EMPTY + name)
            return
        case n.Call(builtin="cards_at") if (part := cell_part(expr, params)) is not None:
            out.add(part)
            return
        case n.Comp(item=item, var=var, items=items, test=test):
            # the variable hides a parameter, and a covered variable, of the
            # same name (a covered one in `items` too, outside its scope: there
            # its counters count as every card's, which is only the safer)
            outer = covered - {var}
            hidden = tuple(None if p == var else p for p in params)
            inner = outer
            if _own_zone_list(items, params) or cell_origin(items, origins, params):
                # the counters of the cards of one player's zone, or of a zone's
                # cells: that zone's or those cells' versions cover them (a counter
                # written on a card bumps its zone and its cell, Table.counter_written).
                # Not for a whole shared zone: there, every function reading the zone
                # would go stale with each write of the counter (measured: slower)
                inner = outer | {var}
            read(items, params, outer)
            read(item, hidden, inner)
            read(test, hidden, inner)
            return
        case n.Cctr(counter=counter, card=n.Var(name=card)) if card in covered:
            out.add(COVERED + counter)          # see function_deps
            return
        case n.Cpp(counter=counter, card=n.Var(name=card), player=player) if card in covered:
            out.add(COVERED + counter)
            read(player)
            return
        case n.Zone(zone=zone):
            out.add("z:" + zone)
        case n.Pzone(zone=zone, player=player):
            out.add(player_part(zone, player, params))
        case n.Gctr(counter=counter):
            out.add("g:" + counter)
        case n.Pctr(counter=counter):
            out.add("p:" + counter)
        case n.Cctr(counter=counter) | n.Cpp(counter=counter):
            out.add("c:" + counter)
        case n.Gattr(attr=attr) if attr != "player_count":      # player_count is fixed for the whole game
            out.add("flow:" + attr)
        case n.Eattr():
            out.add("events")
        case n.Call(builtin=builtin, args=args):
            match BUILTINS[builtin].reads if builtin in BUILTINS else None, args:
                case registry.FUNCTION, [_, n.Lit(value=function), *_]:     # sort_by(xs, "f", …)
                    out.update(fn_deps.get(function, ()))
                case registry.MODIFIER, [n.Lit(value=modifier), *_]:        # modified("name", …)
                    out.update(mod_deps.get(modifier, ()))
                case registry.FUNCTION | registry.MODIFIER, _:
                    out.add(EVERYTHING)         # a name not written out (the compiler always writes one)
                case _ if builtin in ATTACHMENT_CALLS:
                    out.add(ATTACHMENTS)
                case _ if builtin not in _STATIC_CALLS:
                    out.add(EVERYTHING)
        case n.Fn(function=function, args=args):
            for d in fn_deps.get(function, ()):
                if d.startswith("z:") and "@" in d:     # the callee's parameter i: here, the zone of its argument
                    zone, i = d[2:].split("@")
                    out.add(player_part(zone, args[int(i)] if int(i) < len(args) else None, params))
                elif d.startswith(CELLS):               # the callee's cells, of its arguments: here, of ours
                    out.add(cells_called(d, args, params))
                elif d.startswith(KEYED):               # the callee's value, of its arguments: here, of ours
                    out.update(keyed_called(d, args, params))
                else:
                    out.add(d)
    for child in n.children(expr):
        read(child)


def player_part(zone: str, who: n.Node | None, params) -> str:
    """The part of player zone `zone` read for player `who`: "z:<zone>@<i>"
    when `who` is the function's parameter i (only that player's zone: a
    function of one player stays valid while another player's hand changes:
    a change to that player's slot forgets only its entries, stale.py), else "z:<zone>"
    (every player's)."""
    match who:
        case n.Var(name=name) if name in params:
            return f"z:{zone}@{params.index(name)}"
    return "z:" + zone


#: whether a shared zone holds any card: "empty:<zone>" (`emptiness_zone`)
EMPTY = "empty:"
#: (comparison, number) that ask of a count only whether it is 0
_EMPTY_TESTS = {("==", 0), ("!=", 0), (">", 0), ("<=", 0), (">=", 1), ("<", 1)}
_MIRROR = {"==": "==", "!=": "!=", ">": "<", "<": ">", ">=": "<=", "<=": ">="}


def emptiness_zone(cmp: n.Cmp) -> str | None:
    """For a comparison that asks only whether a shared zone is empty
    (`count(tile_pool) == 0`, `count(market_row) > 0`, `1 <= count(z)`),
    that zone's name: such a read depends on the zone's emptiness, a part
    of its own, so a card drawn from a pile that stays non-empty leaves the
    value as it is (`Table.move`).  Else None."""
    for counted, number, test in ((cmp.left, cmp.right, cmp.operator),
                                  (cmp.right, cmp.left, _MIRROR.get(cmp.operator))):
        match _counted_zone(counted), number:
            case str(zone), n.Lit(value=value) if type(value) is int and (test, value) in _EMPTY_TESTS:
                return zone
    return None


def _counted_zone(expr: n.Node) -> str | None:
    """The shared zone of `count(<zone>)`, else None."""
    match expr:
        case n.Call(builtin="count", args=[n.Cards(zone=n.Zone(zone=zone))], kwargs=kwargs) if not kwargs:
            return zone
    return None


#: the part of some cells of a zone: "cells:<zone>|<the cells, as JSON IR
#: in which ["arg", i] is the function's parameter i>"
CELLS = "cells:"
#: a mark (not a part) that a counter is read on the cards of one player's
#: zone or of a zone's cells, so that zone's parts cover it: writes of that
#: counter bump the card's zone and cell (Table.counter_written; function_deps)
COVERED = "covered:"


def _json(ir: list) -> str:
    """An IR fragment as a part's key writes it."""
    return json.dumps(ir, separators=(",", ":"))


def _arg(name: str, params) -> list:
    """The function's parameter `name` as a key writes it: its position, ["arg", i]."""
    return ["arg", params.index(name)]


def _cells_ir(cells: n.Node | None, params) -> list | None:
    """`cells` (the cells of a `cards_at`) as JSON IR with each parameter
    written as its position (`_arg`), if it is one of the forms a change can
    find the entries of at once (`Table.forget_cell`): a parameter or a
    literal cell, the printed cell of a card parameter, or the neighbours of
    either; else None.  Each is cheap, and reads nothing of the state (a
    card's printed cell, the grid's neighbours).  A call is written as
    `nodes.dump` writes it, around the parameter's position; `_called`
    reads it back."""
    match cells:
        case n.Var(name=name) if name in params:
            return _arg(name, params)
        case n.Lit(value=str()):
            return n.dump(cells)
        case n.Call(builtin="cell", args=[n.Var(name=card)], kwargs=kwargs) if card in params and not kwargs:
            return ["call", "cell", [_arg(card, params)], {}]
        case n.Call(builtin="neighbors", args=[n.Call(builtin="neighbors")]):
            return None                 # the neighbours of neighbours: not a cell list
        case n.Call(builtin="neighbors", args=[around], kwargs=kwargs) if not kwargs:
            inner = _cells_ir(around, params)
            return None if inner is None else ["call", "neighbors", [inner], {}]
    return None


def _called(where: list, args: list) -> n.Expr:
    """A callee's cells or value as its part's key writes them (`_cells_ir`,
    `_value_ir`), for a call with `args`: each of its parameters is the
    argument passed for it (none when the call passes fewer)."""
    match where:
        case ["arg", int(i)]:
            return args[i] if i < len(args) else n.Lit(None)
        case ["call", str(builtin), [inner], dict(kwargs)]:
            return n.Call(builtin, [_called(inner, args)], kwargs)
    return cast(n.Expr, n.parse(where))     # without `op`, parse makes an expression


def cell_part(call: n.Call, params) -> str | None:
    """For `cards_at(zone, cells)` on a whole shared zone, with cells worked
    out from the parameters alone (`_cells_ir`), the part of those cells:
    the function is stale only when a card comes to or leaves one of them,
    or a counter of a card on one of them changes (`Table.forget_cell`), not when
    any card of the zone moves.  Else None (the whole zone, as any read)."""
    match call.args:
        case [n.Cards(zone=n.Zone(zone=zone)), cells, *_] if (where := _cells_ir(cells, params)) is not None:
            return f"{CELLS}{zone}|{_json(where)}"
    return None


def cells_called(part: str, args: list, params) -> str:
    """A callee's cell part, called with `args`: the same cells worked out
    from our own parameters, or the whole zone when they cannot be."""
    zone, where = part[len(CELLS):].split("|", 1)
    mine = _cells_ir(_called(json.loads(where), args), params)
    if mine is None:
        return "z:" + zone
    return f"{CELLS}{zone}|{_json(mine)}"


#: the part of the cards of a zone whose counter holds one value:
#: "keyed:<zone>|<counter>|<the value, as JSON IR: ["arg", i] or ["lit", v]>"
KEYED = "keyed:"


def _value_ir(value: n.Node, params) -> list | None:
    """`value` as JSON IR, if it is a value whose entries a change can find at
    once: ["arg", i] for the function's parameter i (`_arg`), the literal
    itself for a literal that can be a key; else None."""
    match value:
        case n.Var(name=name) if name in params:
            return _arg(name, params)
        case n.Lit(value=v) if v is None or type(v) in (str, int, bool):
            return n.dump(value)
    return None


def keyed_part(comp: n.Comp, params) -> str | None:
    """For `[m for m in <zone> if m.<counter> == <value>]`, with the value
    worked out from the parameters alone (`_value_ir`), the part of the
    cards of that zone (every player's, for a player zone) whose counter
    holds that value: the function is stale only when such a card comes or
    goes, or a card of the zone takes or loses that value
    (`Table.forget_keyed`, `Table.key_written`), not whenever any card of the
    zone moves or any card's counter changes.  Else None."""
    match comp:
        case n.Comp(item=n.Var(name=item), var=var, items=n.Cards(zone=n.Zone(zone=zone) | n.Pzone(zone=zone)),
                    test=n.Cmp(operator="==", left=left, right=right)) if item == var:
            hidden = tuple(None if p == var else p for p in params)
            for ctr, value in ((left, right), (right, left)):
                match ctr, _value_ir(value, hidden):
                    case n.Cctr(counter=counter, card=n.Var(name=card)), list(where) if card == var:
                        return f"{KEYED}{zone}|{counter}|{_json(where)}"
    return None


def keyed_called(part: str, args: list, params) -> set:
    """A callee's keyed part, called with `args`: the same value worked out
    from our own parameters, or else the whole zone and counter."""
    zone, ctr, where = part[len(KEYED):].split("|", 2)
    mine = _value_ir(_called(json.loads(where), args), params)
    if mine is None:
        return unkeyed(part)
    return {f"{KEYED}{zone}|{ctr}|{_json(mine)}"}


def unkeyed(part) -> set:
    """What a keyed part stands for when it cannot be one: the whole zone
    and every card's counter."""
    zone, ctr, _ = part[len(KEYED):].split("|", 2)
    return {"z:" + zone, "c:" + ctr}


def cell_origin(items: n.Node, origins, params) -> str | None:
    """The zone whose cells the cards of list `items` come from, when it is
    such a `cards_at`, a call of a function that returns such cards
    (`origins`), or a filter of either; else None."""
    part = _origin_part(items, origins or {}, params)
    return None if part is None else part[len(CELLS):].split("|", 1)[0]


def _own_zone_list(items: n.Node, params) -> bool:
    """`items` is the list of the cards of a player zone of a parameter
    (`p.pile`: a part of its own, "z:pile@0"), or a filter of it."""
    match items:
        case n.Cards(zone=n.Pzone(zone=zone, player=who)):
            return "@" in player_part(zone, who, params)
        case n.Comp(item=n.Var(name=item), var=var, items=inner) if item == var:
            return _own_zone_list(inner, params)
    return False


def _origin_part(items: n.Node, origins: dict, params) -> str | None:
    """The cell part the cards of list `items` come from (see `cell_origin`)."""
    match items:
        case n.Call(builtin="cards_at"):
            return cell_part(items, params)
        case n.Fn(function=function, args=args) if function in origins:
            part = cells_called(origins[function], args, params)
            return part if part.startswith(CELLS) else None
        case n.Comp(item=n.Var(name=item), var=var, items=inner) if item == var:
            return _origin_part(inner, origins, params)       # some of those cards
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


def _function_bodies(code: dict) -> dict[str, n.Node]:
    """{function: its body, as a typed node} of a bundle's `code`."""
    return {k[3:]: n.parse(v["expr"]) for k, v in code.items() if k.startswith("fn:")}


def function_deps(code: dict, cards: list, active_zones: list) -> tuple[dict, dict, set]:
    """({function: frozenset of parts}, {modifier: frozenset of parts}, the
    card counters whose reads a zone's parts cover: see `expr_deps`)."""
    bodies = _function_bodies(code)
    params = {k[3:]: tuple(v.get("params") or ()) for k, v in code.items() if k.startswith("fn:")}
    modifiers: dict[str, list[n.Node]] = {}
    for card in cards:
        for name, ir in (card.get("modifiers") or {}).items():
            modifiers.setdefault(name, []).append(n.parse(ir))
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
        for name, exprs in modifiers.items():
            out = set(mod_deps[name])
            for expr in exprs:
                expr_deps(expr, fn_deps, mod_deps, out, origins=origins)
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


#: the kinds of expression a simple body is made of, besides calls
_SIMPLE = (n.Lit, n.Var, n.Pctr, n.Gctr, n.Cctr, n.Cpp, n.Field, n.Gattr, n.Bin, n.Cmp, n.And,
           n.Or, n.Not, n.Neg, n.If, n.Pattr, n.Str, n.Eattr, n.Cards, n.Zone, n.Pzone)
_CHEAP_CALLS = frozenset(b.name for b in BUILTINS.values() if b.cheap)


def simple_functions(code: dict) -> dict:
    """{function: whether its body is a few reads and comparisons, with calls
    of cheap builtins and of functions (no comprehension or list written
    out)}: such a function is cheaper to compute again than to look up in a
    cache."""
    def simple(expr: n.Node) -> bool:
        match expr:
            case n.Fn(args=args):           # the callee caches itself if it is worth it
                return all(map(simple, args))
            case n.Call(builtin="cards_at", args=[n.Cards(), *_] as args):
                return all(map(simple, args))   # on a whole zone: a lookup in the zone's index
            case n.Call(builtin=builtin, args=args):
                return builtin in _CHEAP_CALLS and all(map(simple, args))
        return isinstance(expr, _SIMPLE) and all(map(simple, n.children(expr)))

    return {name: simple(body) for name, body in _function_bodies(code).items()}
