"""The inline forms of builtins: a call written as Python in place.

A builtin is declared once, in `cardc/ir/builtins.py`; one declared with
`inline=True` has its inline form here (`FORMS[name]`), and the generator
(`PyGen.e_call`) asks it first.  A form returns the Python text of the call
written in place, or None where its special case does not apply (then the
call goes to the builtin's body, `IMPL`).  Every form gives the same value
and the same error as the body: `max(0, x)` is the comparison `max` makes,
`count(cards_at(zone, cell))` the length of the zone's cell index entry.

A form reads the generator's helpers (`g.expr`, `g.bind`, `g.memo`, …) and
never writes a text of the content into the source (`g.lit` names it).
"""
from __future__ import annotations

import re
from collections.abc import Callable

from cardc.engine.builtins import IMPL, cards_in, cards_in_distinct, connected_valued, count_in_distinct
from cardc.engine.errors import BadBundle
from cardc.ir import nodes as n
from cardc.ir.builtins import BUILTINS
from cardc.ir.nodes import substitute


def trivial(ir) -> bool:
    """An argument cheap and safe to evaluate more than once."""
    match ir:
        case n.Var() | n.Lit() | n.Field(card=n.Var()) | n.Pctr(player=n.Var()) | n.Cctr(card=n.Var()):
            return True
    return False


def _any_all(g, name, args, kwargs, scope):
    """`any(test for x in xs)`: a generator, stopping at the first that decides."""
    if not isinstance(args[0], n.Comp):
        return None
    elt, var, it, cond = args[0].item, args[0].var, args[0].items, args[0].test
    inner = {**scope, var: g._loop_local(it)}
    with g.no_memo():
        loop = f"for {inner[var]} in {g._iterable(it, scope)}"
    with g.comprehension(inner[var]):
        test = f" if {g.expr(cond, inner)}" if cond else ""
        return f"{name}({g.expr(elt, inner)} {loop}{test})"


def _count(g, name, args, kwargs, scope):
    """`count(xs)`: `len`, and of an indexed zone's cards on a cell, or on a
    cell's neighbours, with no list made.  A function written in place
    (`PyGen.e_fn`) is looked through: what it returns is counted as the
    expression it is."""
    inner, names = args[0], []
    while _inlinable(g, inner) and inner.function not in names:
        names.append(inner.function)
        inner = substitute(g.game.fn_bodies[inner.function],
                           dict(zip(g.game.fn_params[inner.function], inner.args, strict=False)))
    g._inlining += names
    try:
        return _count_of(g, inner, scope)
    finally:
        del g._inlining[len(g._inlining) - len(names):]


def _inlinable(g, ir) -> bool:
    """A call of a function that `PyGen.e_fn` writes in place."""
    game = g.game
    return (isinstance(ir, n.Fn) and ir.function in game.fn_bodies
            and bool(game.fn_simple.get(ir.function)) and ir.function not in g._inlining
            and all(trivial(a) for a in ir.args))


def _count_of(g, inner, scope) -> str:
    match inner:
        case n.Call(builtin="cards_at", args=[n.Cards() as cards, where, *_]) if trivial(where):
            # how many cards of an indexed zone on one cell: no list made
            index, x = g._zone_index(cards, scope), g.expr(where, scope)
            if g.one_cell(where, x):
                return f"len({g._by_cell(index)}.get({x}, ()))"
            return (f"(len({g._by_cell(index)}.get({x}, ())) if type({x}) is _str "
                    f"else len({g.bind(cards_in, '_b')}({index}, {x})))")
        case n.Call(builtin="cards_at", args=[n.Cards() as cards, n.Call(builtin="neighbors", args=[_]) as where,
                                              *_]) if neighbors_distinct(g.game):
            # on a cell's neighbours (no cell twice): the cards counted,
            # not gathered and put in the zone's order first
            index = g._zone_index(cards, scope)
            return f"{g.bind(count_in_distinct, '_b')}({index}, {g.expr(where, scope)})"
    return f"len({g.expr(inner, scope)})"


def neighbors_distinct(game) -> bool:
    """No cell's neighbour list repeats a cell (true of any grid whose
    column names differ)."""
    return all(len(set(v)) == len(v) for v in game.grid_neighbors.values())


def _cards_at(g, name, args, kwargs, scope):
    """`cards_at(zone, where)` of a whole zone: from its index, found once
    per expression (hoisted out of loops over cells when the zone does not
    change with the element)."""
    if not isinstance(args[0], n.Cards):
        return None
    index = g._zone_index(args[0], scope)
    where = args[1]
    if isinstance(where, n.Call) and where.builtin == "neighbors" and \
            len(where.args) == 1 and neighbors_distinct(g.game):
        # a cell's neighbours repeat no cell
        return f"{g.bind(cards_in_distinct, '_b')}({index}, {g.expr(where, scope)})"
    return f"{g.bind(cards_in, '_b')}({index}, {g.expr(where, scope)})"


def _max_min(g, name, args, kwargs, scope):
    """`max(0, x)` without a call: the same comparison the builtin makes
    (x > 0, or 0 > x), so the same result and the same error."""
    parts = [g.expr(a, scope) for a in args]
    lit = [isinstance(a, n.Lit) and type(a.value) is int for a in args]
    if len(args) == 2 and lit.count(True) == 1 and g.memo is not None and g.memo.on:
        t, op = g.fresh("_x"), ">" if name == "max" else "<"
        if lit[0]:
            return f"({t} if ({t} := {parts[1]}) {op} {parts[0]} else {parts[0]})"
        return f"({parts[1]} if {parts[1]} {op} ({t} := {parts[0]}) else {t})"
    return f"{name}({', '.join(parts)})"


def _ends(g, name, args, kwargs, scope):
    """`top(xs)` (`first`, `bottom`, `last`): the builtin's own expression."""
    if len(args) != 1 or g.memo is None or not g.memo.on:
        return None
    t, i = g.fresh("_x"), 0 if name in ("top", "first") else -1
    return f"({t}[{i}] if ({t} := {g.expr(args[0], scope)}) else None)"


def _modified(g, name, args, kwargs, scope):
    """`modified("name", value, k: v …)`: the value itself when no card in
    force modifies it, known from one lookup at the top of the function."""
    if not (args and isinstance(args[0], n.Lit)):
        raise BadBundle("`modified` takes the modifier's name first, as a literal")
    mod = str(args[0].value)
    game = g.game
    declared = game.modifier_args.get(mod)
    if declared is not None and set(kwargs) <= set(declared) and \
            all(isinstance(v, (n.Var, n.Lit)) for v in kwargs.values()):
        # plain arguments: cheap and safe to evaluate before knowing
        # whether any card modifies this (so no dict, no lambda)
        values = "".join(", " + g.expr(kwargs.get(a, n.Lit(None)), scope) for a in declared)
        base = g.expr(args[1], scope)
        if g.memo is None:       # nothing kept here: the call checks for itself
            return f"{g.modifier_call(mod)}(st, {base}{values})"
        # most of the time no card in force modifies this: then it is
        # the value itself, known from one lookup at the top of the
        # function (or op), which also finds the cards that do.  Where
        # the call fixes an argument some card compares with a word,
        # the list is that word's: the cards whose modifier is then
        # not `value` itself (specialize.py), most of the time none
        fixed = game.modifier_keys.get(mod, ())
        words = {a: v.value for a, v in kwargs.items() if isinstance(v, n.Lit)}
        key = next(((mod, a, w) for a in declared if a in words
                    for fa, w in fixed
                    if fa == a and type(w) is type(words[a]) and w == words[a]), mod)
        every = g.memo.first('_mods_of(st)')
        arg = game.modifier_owner.get(mod)
        who = g.expr(kwargs[arg], scope) if key == mod and arg in kwargs else ""
        if not re.fullmatch(r"_[ak]\d+", who):
            mods = g.memo.first(f"{every}.get({g.lit(key)})")
        else:
            # some cards modify only for their own zone's owner: the
            # list for this player, without other seats' such cards
            # (Game.seat_modifiers, kept once made); with none in
            # force, or a player that is not an int, the whole list.
            # The temporaries are the modifier's own, so the text is
            # the same at each call and the value is found once (at
            # the top: the player is a parameter, or read from the
            # frame there)
            i = sorted(game.modifier_owner).index(mod)
            t, u = f"_ws{i}", f"_wt{i}"
            text = (f"({t} if not ({t} := {every}.get({g.lit(mod)})) or type({who}) is not int "
                    f"else {u} if ({u} := {every}.get(({g.lit(mod)}, {g.lit(arg)}, {g.lit('owner')}, {who}), _U)) "
                    f"is not _U else _game.seat_modifiers({every}, {g.lit(mod)}, {who}))")
            mods = g.memo.first(text)
        return f"({base} if not {mods} else {g.modifier_call(mod, True)}(st, {mods}, {base}{values}))"
    with g.no_memo():
        kw = ", ".join(f"{g.lit(str(k))}: {g.expr(v, scope)}" for k, v in kwargs.items())
    return f"_modified(st, {g.lit(mod)}, {g.expr(args[1], scope)}, lambda: {{{kw}}})"


def _cell(g, name, args, kwargs, scope):
    """A read of the printed field, as the builtin does (the same error on none)."""
    if len(args) != 1 or "cell" not in g.game.card_field:
        return None
    return f"{g.bind(g.game.card_field['cell'], '_F')}[{g.expr(args[0], scope)}]"


def _owner_of(g, name, args, kwargs, scope):
    """In a modifier, of its own card: its zone's owner was passed in."""
    if g._in_modifier and args == [n.Var("this")] and scope.get("this") == "_this":
        return "_owner"
    return None


def _playable(g, name, args, kwargs, scope):
    """Most cards have no requirement, or `requires: false`: known from one
    list, no call."""
    if len(args) != 1 or not trivial(args[0]):
        return None
    c = g.expr(args[0], scope)
    fixed = g.bind(g.game.card_play_fixed, "_P")
    return f"({fixed}[{c}] if {fixed}[{c}] is not None else {g.bind(IMPL[name], '_b')}(st, env, {c}))"


def _connected(g, name, args, kwargs, scope):
    """`connected([x for x in zone if x.counter == v], start)`, over a
    shared zone of cards on the grid, with `v` a local or a literal that
    does not read `x`: a search from the start's cell on the zone's cell
    index (`connected_valued`), else None.  Exact: the same cards in the
    same order; the test, which cannot fail, is made only on the cards
    the search meets instead of on every card of the zone."""
    game = g.game
    match args:
        case [n.Comp(item=n.Var(name=elt), var=var, items=n.Cards(zone=n.Zone(zone=str() as zone)) as it,
                     test=n.Cmp(operator="==", left=left, right=right)), start] \
                if elt == var and zone in game.shared_slot and game.grid_neighbors and "cell" in game.card_field:
            pass
        case _:
            return None
    for mine, other in ((left, right), (right, left)):
        if (isinstance(mine, n.Cctr) and mine.card == n.Var(var)
                and isinstance(other, (n.Var, n.Lit)) and other != n.Var(var)):
            index = g._zone_index(it, scope)
            values = g._counters("card", str(mine.counter))
            return (f"{g.bind(connected_valued, '_b')}(st, {index}, {g.expr(start, scope)}, "
                    f"{values}, {g.expr(other, scope)})")
    return None


def _one_arg(write: Callable[..., str]):
    """A form for a call of one argument: `write(g, x)` with `x` its text."""
    def form(g, name, args, kwargs, scope):
        return write(g, name, g.expr(args[0], scope)) if len(args) == 1 else None
    return form


def _neighbors(g, name, args, kwargs, scope):
    """A cell's neighbours: the grid's table, read in place."""
    if len(args) != 1:
        return None
    return f"{g.bind(g.game.grid_neighbors, '_G')}[{g.expr(args[0], scope)}]"


#: name -> form(g, name, args, kwargs, scope) -> text, or None (then the body is called)
FORMS = {
    "any": _any_all,
    "all": _any_all,
    "count": _count,
    "cards_at": _cards_at,
    "max": _max_min,
    "min": _max_min,
    "top": _ends, "first": _ends, "bottom": _ends, "last": _ends,
    "modified": _modified,
    "cell": _cell,
    "owner_of": _owner_of,
    "playable": _playable,
    "connected": _connected,
    # the builtin's own expression, without a call of it: the same result and the same error
    "sum": _one_arg(lambda g, name, x: f"{name}({x})"),
    "abs": _one_arg(lambda g, name, x: f"{name}({x})"),
    "next_player": _one_arg(lambda g, name, x: f"(({x} + 1) % st.n)"),
    "host": _one_arg(lambda g, name, x: f"st.host.get({x})"),
    "has_effect": _one_arg(lambda g, name, x: f"_game.card_has_effect[{x}]"),
    "neighbors": _neighbors,
}

_DECLARED = {b.name for b in BUILTINS.values() if b.inline}
if set(FORMS) != _DECLARED:     # one declaration: the registry says which builtins have a form here
    raise AssertionError(f"inline forms {sorted(set(FORMS) ^ _DECLARED)} not declared `inline` in "
                         "cardc/ir/builtins.py, or declared with no form here")
