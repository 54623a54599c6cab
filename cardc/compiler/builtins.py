"""Type rules of the builtin functions.  Each rule checks one call and
returns (IR, type).

Every builtin is declared once in `cardc/ir/builtins.py`; one with a plain
signature (argument types, a result type) gets its rule from that
(`_fixed`).  The rules here (`RULES`) are those that need more: a list of any
element, keyword arguments, the game's card table, players who are out.
"""
from __future__ import annotations

from cardc.compiler import types as T
from cardc.ir.builtins import BUILTINS as DECLARED


def _call(name, irs, kwargs=None):
    return ["call", name, irs, kwargs or {}]


def _fixed(params, result):
    """A builtin with fixed parameter types."""
    def rule(c, node, scope):
        if node.kwargs:
            c.error(node, f"`{node.name}` takes no named arguments")
        if len(node.args) != len(params):
            c.error(node, f"`{node.name}` takes {len(params)} argument"
                    f"{'s' if len(params) != 1 else ''}, got {len(node.args)}")
            return ["lit", None], T.ANY
        irs = [c.expect(a, c.expr(a, scope), t, f"argument {i + 1} of `{node.name}`")
               for i, (a, t) in enumerate(zip(node.args, params, strict=False))]
        return _call(node.name, irs), result
    return rule


def _one_list(result_of):
    """A builtin over one list; `result_of(element_type)` gives its type."""
    def rule(c, node, scope):
        if len(node.args) != 1 or node.kwargs:
            c.error(node, f"`{node.name}` takes one list")
            return ["lit", None], T.ANY
        ir, t = c.as_list(node.args[0], scope)
        res = result_of(T.elem(t))
        if res is None:
            c.error(node.args[0], f"`{node.name}` needs a list of numbers, "
                    f"but this is {T.plain(t)}")
            return ["lit", None], T.ANY
        return _call(node.name, [ir]), res
    return rule


def _max_min(c, node, scope):
    if len(node.args) == 1:
        ir, t = c.as_list(node.args[0], scope)
        if T.elem(t) not in (T.INT, T.ANY):
            c.error(node.args[0], f"`{node.name}` needs numbers, but this is {T.plain(t)}")
        return _call(node.name + "_list", [ir]), T.INT
    irs = [c.expect(a, c.expr(a, scope), T.INT, f"an argument of `{node.name}`") for a in node.args]
    if len(irs) < 2:
        c.error(node, f"`{node.name}` takes a list or two or more numbers")
    return _call(node.name, irs), T.INT


def _list_to_same(c, node, scope):
    if len(node.args) != 1:
        c.error(node, f"`{node.name}` takes one list")
        return ["lit", None], T.ANY
    ir, t = c.as_list(node.args[0], scope)
    if t == T.ZONE:
        t = "list:card"
    return _call(node.name, [ir]), t


def _sort_by(c, node, scope):
    if len(node.args) != 2:
        c.error(node, "`sort_by` takes a list and the name of a one-argument function")
        return ["lit", None], T.ANY
    ir, t = c.as_list(node.args[0], scope)
    fn = node.args[1]
    fname = getattr(fn, "name", None)
    sig = c.d.functions.get(fname) if fname else None
    if sig is None or len(sig.params) != 1:
        from cardc.load.diagnostics import did_you_mean
        one_arg = sorted(f for f, s in c.d.functions.items() if len(s.params) == 1)
        c.error(fn, "the second argument of `sort_by` must name a function of one argument "
                "(from rules.yaml), e.g. `sort_by(parts, size)`",
                did_you_mean(fname, one_arg) if fname and sig is None else None)
        return ["lit", None], T.ANY
    ptype = list(sig.params.values())[0]
    if not T.fits(T.elem(t), ptype):
        c.error(node.args[0], f"`{fname}` takes {T.plain(ptype)}, but the list holds {T.plain(T.elem(t))}")
    desc = node.kwargs.get("desc")
    desc_ir = c.condition(desc, scope) if desc is not None else ["lit", False]
    return _call("sort_by", [ir, ["lit", fname], desc_ir]), t


def _first_last(c, node, scope):
    if len(node.args) != 1:
        c.error(node, f"`{node.name}` takes one list")
        return ["lit", None], T.ANY
    ir, t = c.as_list(node.args[0], scope)
    return _call(node.name, [ir]), T.elem(t)


def _flatten(c, node, scope):
    if len(node.args) != 1:
        c.error(node, "`flatten` takes one list of lists")
        return ["lit", None], T.ANY
    ir, t = c.as_list(node.args[0], scope)
    inner = T.elem(t)
    if inner == T.ZONE:
        return _call("flatten", [ir]), "list:card"
    if not (inner.startswith("list:") or inner == T.ANY):
        c.error(node.args[0], f"`flatten` needs a list of lists, but this is {T.plain(t)}")
        return ["lit", None], T.ANY
    return _call("flatten", [ir]), inner


def _index_of(c, node, scope):
    if len(node.args) != 2:
        c.error(node, "`index_of` takes a list and an item")
        return ["lit", None], T.ANY
    ir, t = c.as_list(node.args[0], scope)
    x = c.expect(node.args[1], c.expr(node.args[1], scope), T.elem(t), "the item")
    return _call("index_of", [ir, x]), T.INT


def _modified(c, node, scope):
    if len(node.args) != 2 or not hasattr(node.args[0], "parts") or \
            not all(isinstance(p, str) for p in node.args[0].parts):
        c.error(node, "`modified` takes a modifier name in quotes and a base value, "
                "e.g. `modified(\"hire_cost\", c.cost, card=c)`")
        return ["lit", None], T.ANY
    name = "".join(node.args[0].parts)
    if name not in c.d.modifiers:
        from cardc.load.diagnostics import did_you_mean
        c.error(node.args[0], f"unknown modifier `{name}`; declare it under `modifiers:` in game.yaml",
                did_you_mean(name, sorted(c.d.modifiers)))
        return ["lit", None], T.ANY
    base = c.expect(node.args[1], c.expr(node.args[1], scope), T.INT, "the base value")
    declared = c.d.modifiers[name]
    kw = {}
    for k, v in node.kwargs.items():
        if k not in declared:
            c.error(v, f"modifier `{name}` has no argument `{k}` (it has: {', '.join(declared) or 'none'})")
            continue
        kw[k] = c.expect(v, c.expr(v, scope), declared[k], f"argument `{k}`")
    for k in declared:
        if k not in kw:
            kw[k] = ["lit", None]
    return ["call", "modified", [["lit", name], base], kw], T.INT


def _playable(c, node, scope):
    if scope.get("me") is None:
        c.error(node, "`playable` asks whether the acting player may play a card, and there is "
                "no acting player here (`me`)", "use it in a procedure, a card or the flow, "
                "or give the function a player and test the card's condition directly")
        return ["lit", False], T.BOOL
    return _fixed([T.CARD], T.BOOL)(c, node, scope)


def _cards_at(c, node, scope):
    if len(node.args) != 2:
        c.error(node, "`cards_at` takes a zone (or list of cards) and a cell")
        return ["lit", None], T.ANY
    ir, t = c.as_list(node.args[0], scope)
    cell_ir, cell_t = c.expr(node.args[1], scope)
    if not (T.fits(cell_t, T.CELL) or T.fits(cell_t, "list:cell")):
        c.error(node.args[1], f"`cards_at` needs a cell or a list of cells, not {T.plain(cell_t)}")
    return _call("cards_at", [ir, cell_ir]), "list:card"


def _connected(c, node, scope):
    if len(node.args) != 2:
        c.error(node, "`connected` takes a list of cards and a start card")
        return ["lit", None], T.ANY
    ir, t = c.as_list(node.args[0], scope)
    start = c.expect(node.args[1], c.expr(node.args[1], scope), T.CARD, "the start card")
    return _call("connected", [ir, start]), "list:card"


# ---------------------------------------------------------------- the card list
# The game's cards are known when it is built, so these are tables written
# into the bundle, not searches of every zone while the game runs.

def _in_game(entries):
    """IR: the instances of `entries` in play at this player count (a
    per-player copy of an empty seat is not), in instance order."""
    if all(e.seat is None for e in entries):
        return ["lit", [e.iid for e in entries]]
    table = [[-1 if e.seat is None else e.seat, e.iid] for e in entries]
    return ["comp", ["index", ["var", "$i"], ["lit", 1]], "$i", ["lit", table],
            ["cmp", "<", ["index", ["var", "$i"], ["lit", 0]], ["gattr", "player_count"]]]


def _literal_text(node):
    parts = getattr(node, "parts", None)
    if parts is not None and all(isinstance(p, str) for p in parts):
        return "".join(parts)
    return None


def _all_cards(c, node, scope):
    if node.args or node.kwargs:
        c.error(node, "`all_cards` takes no arguments: `all_cards()`")
    return _in_game(c.d.catalog), "list:card"


def _cards_by(key, known, what):
    """`cards_of_kind("gem")`, `cards_with_id("ruby")`: by a literal, a table;
    by any other text, a filter of all the cards as the game runs."""
    def rule(c, node, scope):
        if len(node.args) != 1 or node.kwargs:
            c.error(node, f"`{node.name}` takes one {what}")
            return ["lit", None], T.ANY
        text = _literal_text(node.args[0])
        if text is not None:
            names = known(c.d)
            if text not in names:
                from cardc.load.diagnostics import did_you_mean
                c.error(node.args[0], f"there is no {what} `{text}`", did_you_mean(text, sorted(names)))
            return _in_game([e for e in c.d.catalog if e.fields.get(key) == text]), "list:card"
        ir = c.expect(node.args[0], c.expr(node.args[0], scope), T.STR, f"the {what}")
        return ["comp", ["var", "$c"], "$c", _in_game(c.d.catalog),
                ["cmp", "==", ["field", key, ["var", "$c"]], ir]], "list:card"
    return rule


def _printed(c, node, scope):
    """`printed("ruby", "value")`: a card's printed field by its id."""
    from cardc.compiler.decls import CARD_BUILTIN_FIELDS
    from cardc.load.diagnostics import did_you_mean
    if len(node.args) != 2 or node.kwargs:
        c.error(node, "`printed` takes a card id and a field name: `printed(\"ruby\", \"value\")`")
        return ["lit", None], T.ANY
    field = _literal_text(node.args[1])
    types = {**{k: v for k, v in CARD_BUILTIN_FIELDS.items() if k != "text"}, **c.d.card_fields}
    if field not in types:
        c.error(node.args[1], "the field must be a printed field's name in quotes"
                + (f"; there is no field `{field}`" if field else ""),
                did_you_mean(field or "", sorted(types)))
        return ["lit", None], T.ANY
    table: dict = {}
    for e in c.d.catalog:
        table.setdefault(e.id, e.fields.get(field))
    cid = _literal_text(node.args[0])
    if cid is not None:
        if cid not in table:
            c.error(node.args[0], f"there is no card `{cid}`", did_you_mean(cid, sorted(table)))
            return ["lit", None], types[field]
        return ["lit", table[cid]], types[field]
    ir = c.expect(node.args[0], c.expr(node.args[0], scope), T.STR, "the card id")
    ids = list(table)
    return ["index", ["lit", [table[i] for i in ids] + [None]],
            ["call", "index_of", [["lit", ids], ir], {}]], types[field]


def _prev_player(c, node, scope):
    """`prev_player(p)`: the player before p in seat order, as arithmetic on
    seats (players are seat numbers in the bundle)."""
    ir, _ = _fixed([T.PLAYER], T.PLAYER)(c, node, scope)
    if ir[0] != "call":
        return ir, T.ANY
    n = ["gattr", "player_count"]
    return ["bin", "%", ["bin", "+", ir[2][0], ["bin", "-", n, ["lit", 1]]], n], T.PLAYER


def _rivals(c, node, scope):
    """`rivals(p)`: the other players in turn order after p; in a game with
    players out (`p.out`), only those still in."""
    ir, t = _fixed([T.PLAYER], "list:player")(c, node, scope)
    if not c.d.players_out or ir[0] != "call":
        return ir, t
    return ["comp", ["var", "$q"], "$q", ir, ["not", ["pctr", "out", ["var", "$q"]]]], t


def _players_in(c, node, scope):
    """`players_in()`: every player not out, in seat order."""
    if node.args or node.kwargs:
        c.error(node, "`players_in` takes no arguments: `players_in()`")
    if not c.d.players_out:
        return ["players"], "list:player"
    return ["comp", ["var", "$q"], "$q", ["players"], ["not", ["pctr", "out", ["var", "$q"]]]], "list:player"


RULES = {
    "prev_player": _prev_player,
    "players_in": _players_in,
    "all_cards": _all_cards,
    "cards_of_kind": _cards_by("kind", lambda d: set(d.kinds), "kind"),
    "cards_with_id": _cards_by("id", lambda d: {e.id for e in d.catalog}, "card id"),
    "printed": _printed,
    "count": _one_list(lambda e: T.INT),
    "sum": _one_list(lambda e: T.INT if e in (T.INT, T.ANY) else None),
    "any": _one_list(lambda e: T.BOOL),
    "all": _one_list(lambda e: T.BOOL),
    "max": _max_min,
    "min": _max_min,
    "top": _first_last,
    "bottom": _first_last,
    "first": _first_last,
    "last": _first_last,
    "reversed": _list_to_same,
    "unique": _list_to_same,
    "shuffled_order": _list_to_same,
    "sort_by": _sort_by,
    "index_of": _index_of,
    "flatten": _flatten,
    "rivals": _rivals,
    "playable": _playable,
    "modified": _modified,
    "connected": _connected,
    "cards_at": _cards_at,
}


def _rule(b):
    if b.params is None:
        return RULES[b.name]
    return _fixed(list(b.params), b.result)


#: name -> type rule, for every builtin content may call
BUILTINS = {b.name: _rule(b) for b in DECLARED.values() if not b.ir_only}
