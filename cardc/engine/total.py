"""Which expressions cannot fail: text that may safely be left unbuilt.

Log lines, option labels and "not now" reasons are text for people.  A bot
never reads them, so bulk simulation does not build them.  That is only
exact if building them could not have failed: `log "ratio {10 / me.plays}"`
faults when `me.plays` is 0, and a simulation that skipped it would report a
game that `play` cannot finish.  So the engine skips a text only when this
module proves it harmless; any other text is built in simulation too (and
dropped), so play, scenarios and simulation evaluate the same things.

The proof is conservative: reads of locals, literals, counters and printed
fields of the acting player or the card itself (`me`, `this`, always set),
in text any printed field or counter (there, one of none reads as none),
formatting, `+ - *`, `==` and `!=`, `and`/`or`/`not`, conditionals, lists,
counting a zone, the builtins declared harmless (`max`, `min`,
`owner_of`: cardc/ir/builtins.py), comprehensions over the
seats, a zone's cards or the grid's cells (whose variable is never none),
`flatten` of a comprehension of zones, and calls of functions and
modifiers whose bodies are harmless (in a modifier, `value` and `this` are
always set).  Besides skipping text, the code generator computes a value
that is harmless before the loop it is hoisted from (pygen.Memo).  Anything
else (division, indexing, ordering comparisons that may meet none, most
builtins) is assumed to be able to fail.
"""
from __future__ import annotations

from cardc.ir import nodes as n
from cardc.ir.builtins import BUILTINS, NEVER, RULE, WITH_ARGS

_ALWAYS_SET = {"me", "this"}


def harmless(ir, game, _stack=(), text=False, safe=frozenset()) -> bool:
    """Can `ir` never fail?  With `text`, as written in text for people,
    where a printed field or counter of none reads as none.  `safe` names
    locals that are never none where `ir` stands (a loop over a zone's cards)."""
    if ir is None:
        return True
    return _harmless(ir, game, _stack, text, safe)


def _harmless(ir, game, _stack, text, safe) -> bool:
    def each(parts, text=text, safe=safe) -> bool:
        return all(p is None or _harmless(p, game, _stack, text, safe) for p in parts)

    match ir:
        case n.Lit() | n.Var() | n.Players() | n.Game() | n.Zone() | n.Gctr() | n.Gattr():
            return True
        case n.Str(parts=parts):
            return each(p.value for p in parts if isinstance(p, n.Fmt))
        case n.Not(value=x) | n.Neg(value=x) | n.Pattr(player=x) | n.Cards(zone=x):
            return each([x])
        case n.And(parts=xs) | n.Or(parts=xs) | n.List(items=xs):
            return each(xs)
        case n.If(test=a, then=b, otherwise=c):
            return each([a, b, c])
        case n.Field(card=x) | n.Cctr(card=x) | n.Pctr(player=x):
            return _never_none(x, safe) or (text and each([x]))
        case n.Pzone(player=x):
            return _never_none(x, safe)
        case n.Bin(operator="+" | "-" | "*", left=a, right=b):
            return each([a, b], text=False)
        case n.Cmp(operator="==" | "!=", left=a, right=b):
            return each([a, b])
        case n.Comp(item=item, var=var, items=items, test=test):
            # a `_listed` list holds no none
            return _listed(items, game, _stack, safe) and each([item, test], safe=safe | {var})
        case n.Call(builtin=name, args=args):
            builtin = BUILTINS.get(name)
            if builtin is None or builtin.harmless == NEVER:
                return False
            if builtin.harmless == WITH_ARGS:
                return bool(args) and each(args, text=False)
            return RULES[name](ir, game, _stack, safe)
        case n.Fn(function=name, args=args):
            if name in _stack or name not in game.fn_bodies:
                return False
            # a parameter passed something never none is never none in the body
            inner = frozenset(p for p, a in zip(game.fn_params[name], args, strict=False) if _never_none(a, safe))
            return each(args) and _harmless(game.fn_bodies[name], game, _stack + (name,), False, inner)
    return False


def _count(ir: n.Call, game, _stack, safe) -> bool:
    """`count` of a zone's cards (a list that is never none)."""
    match ir.args:
        case [n.Cards() as cards, *_]:
            return _harmless(cards, game, _stack, False, safe)
    return False


def _listed(ir, game, _stack, safe) -> bool:
    """A list that can be computed without failing and holds no none: the
    players, a zone's cards, the grid's cells, or `flatten` of a
    comprehension of zones (their cards)."""
    match ir:
        case n.Players():
            return True
        case n.Call(builtin="cells", args=[], kwargs=kw) if not kw:     # (a pattern `{}` takes any dict)
            return True
        case n.Cards():
            return _harmless(ir, game, _stack, False, safe)
        case n.Call(builtin="flatten", args=[n.Comp(item=n.Pzone() | n.Zone()) as comp], kwargs=kw) if not kw:
            return _harmless(comp, game, _stack, False, safe)
    return False


def _harmless_modifier(ir: n.Call, game, _stack, safe) -> bool:
    """`modified("name", value, k: v …)`: its arguments, and the body of every
    card's modifier of that name (with `value` as it is passed)."""
    match ir.args:
        case [n.Lit(value=str() as name), value]:
            pass
        case _:
            return False
    key = "modifier:" + name
    if key in _stack:
        return False
    if not _harmless(value, game, _stack, False, safe) or \
            not all(_harmless(v, game, _stack, False, safe) for v in ir.kwargs.values()):
        return False
    bodies = getattr(game, "modifier_bodies", {}).get(name, ())
    inner = frozenset(k for k, v in ir.kwargs.items() if _never_none(v, safe))
    return all(_harmless(body, game, _stack + (key,), False, inner) for body in bodies)


def _never_none(ir: n.Node, safe=frozenset()) -> bool:
    """An index the engine always sets: the acting player, the card itself,
    a loop's card from a zone."""
    return isinstance(ir, n.Var) and (ir.name in _ALWAYS_SET or ir.name in safe)


#: the builtins declared `harmless=RULE` (cardc/ir/builtins.py): name -> its proof
RULES = {"count": _count, "flatten": _listed, "modified": _harmless_modifier}
if set(RULES) != {b.name for b in BUILTINS.values() if b.harmless == RULE}:
    raise AssertionError("total.RULES and the builtins declared `harmless=RULE` differ")


def risky_parts(ir, game, text=True, safe=frozenset()) -> list:
    """The smallest parts of `ir` that could fail, each evaluated exactly when
    `ir` is (so evaluating just these fails exactly when `ir` would): a node
    that evaluates all its parts is opened up; anything else is taken whole."""
    if ir is None:
        return []
    if _harmless(ir, game, (), text, safe):
        return []
    match ir:
        case n.Str(parts=parts):
            return [x for p in parts if isinstance(p, n.Fmt) for x in risky_parts(p.value, game, text, safe)]
        case n.Not(value=x) | n.Neg(value=x) | n.Cards(zone=x):
            return risky_parts(x, game, text, safe)
        case n.List(items=xs):
            return [x for v in xs for x in risky_parts(v, game, text, safe)]
    return [ir]
