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

from cardc.ir.builtins import BUILTINS, NEVER, RULE, WITH_ARGS

_LEAVES = {"lit", "var", "players", "game", "zone", "gctr", "gattr"}
_ALWAYS_SET = {"me", "this"}
_OPEN = {"str", "fmt", "and", "or", "not", "if", "list", "neg", "pattr"}


def harmless(ir, game, _stack=(), text=False, safe=frozenset()) -> bool:
    """Can `ir` never fail?  With `text`, as written in text for people,
    where a printed field or counter of none reads as none.  `safe` names
    locals that are never none where `ir` stands (a loop over a zone's cards)."""
    if ir is None:
        return True
    if not isinstance(ir, list) or not ir or not isinstance(ir[0], str):
        return False
    kind = ir[0]
    if kind in _LEAVES:
        return True
    if kind == "str":
        return all(isinstance(p, str) or harmless(p[1], game, _stack, text, safe) for p in ir[1])
    if kind in ("fmt", "not", "neg"):
        return harmless(ir[1], game, _stack, text, safe)
    if kind == "pattr":
        return harmless(ir[2], game, _stack, text, safe)
    if kind in ("and", "or", "list"):
        return all(harmless(x, game, _stack, text, safe) for x in ir[1])
    if kind == "if":
        return all(harmless(x, game, _stack, text, safe) for x in ir[1:4])
    if kind in ("field", "pctr", "cctr"):
        return _never_none(ir[2], safe) or (text and harmless(ir[2], game, _stack, text, safe))
    if kind == "pzone":
        return _never_none(ir[2], safe)
    if kind == "cards":
        return harmless(ir[1], game, _stack, text, safe)
    if kind == "bin":
        return ir[1] in ("+", "-", "*") and harmless(ir[2], game, _stack, safe=safe) and \
            harmless(ir[3], game, _stack, safe=safe)
    if kind == "cmp":
        return ir[1] in ("==", "!=") and harmless(ir[2], game, _stack, text, safe) and \
            harmless(ir[3], game, _stack, text, safe)
    if kind == "comp":
        if len(ir) != 5 or not _listed(ir[3], game, _stack, safe):
            return False
        inner = safe | {ir[2]}          # a `_listed` list holds no none
        return harmless(ir[1], game, _stack, text, inner) and harmless(ir[4], game, _stack, text, inner)
    if kind == "call":
        builtin = BUILTINS.get(ir[1])
        if builtin is None or builtin.harmless == NEVER:
            return False
        if builtin.harmless == WITH_ARGS:
            return bool(ir[2]) and all(harmless(a, game, _stack, safe=safe) for a in ir[2])
        return RULES[ir[1]](ir, game, _stack, safe)
    if kind == "fn":
        name = ir[1]
        if name in _stack or name not in game.fn_bodies:
            return False
        # a parameter passed something never none is never none in the body
        inner = frozenset(p for p, a in zip(game.fn_params[name], ir[2], strict=False) if _never_none(a, safe))
        return all(harmless(a, game, _stack, text, safe) for a in ir[2]) and \
            harmless(game.fn_bodies[name], game, _stack + (name,), safe=inner)
    return False


def _count(ir, game, _stack, safe) -> bool:
    """`count` of a zone's cards (a list that is never none)."""
    args = ir[2]
    return bool(args) and args[0][0] in ("cards",) and harmless(args[0], game, _stack, safe=safe)


def _listed(ir, game, _stack, safe) -> bool:
    """A list that can be computed without failing and holds no none: the
    players, a zone's cards, the grid's cells, or `flatten` of a
    comprehension of zones (their cards)."""
    if ir == ["players"] or ir == ["call", "cells", [], {}]:
        return True
    if not isinstance(ir, list) or not ir:
        return False
    if ir[0] == "cards":
        return harmless(ir, game, _stack, safe=safe)
    if ir[:2] == ["call", "flatten"] and len(ir) == 4 and len(ir[2]) == 1 and not ir[3]:
        comp = ir[2][0]
        return isinstance(comp, list) and len(comp) == 5 and comp[0] == "comp" and \
            isinstance(comp[1], list) and comp[1][:1] in (["pzone"], ["zone"]) and \
            harmless(comp, game, _stack, safe=safe)
    return False


def _harmless_modifier(ir, game, _stack, safe) -> bool:
    """`modified("name", value, k: v …)`: its arguments, and the body of every
    card's modifier of that name (with `value` as it is passed)."""
    args, kwargs = ir[2], ir[3]
    if len(args) != 2 or args[0][0] != "lit" or not isinstance(args[0][1], str):
        return False
    key = "modifier:" + args[0][1]
    if key in _stack:
        return False
    if not harmless(args[1], game, _stack, safe=safe) or \
            not all(harmless(v, game, _stack, safe=safe) for v in kwargs.values()):
        return False
    bodies = getattr(game, "modifier_bodies", {}).get(args[0][1], ())
    inner = frozenset(k for k, v in kwargs.items() if _never_none(v, safe))
    return all(harmless(body, game, _stack + (key,), safe=inner) for body in bodies)


def _never_none(ir, safe=frozenset()) -> bool:
    """An index the engine always sets: the acting player, the card itself,
    a loop's card from a zone."""
    return isinstance(ir, list) and len(ir) == 2 and ir[0] == "var" and \
        (ir[1] in _ALWAYS_SET or ir[1] in safe)


#: the builtins declared `harmless=RULE` (cardc/ir/builtins.py): name -> its proof
RULES = {"count": _count, "flatten": _listed, "modified": _harmless_modifier}
if set(RULES) != {b.name for b in BUILTINS.values() if b.harmless == RULE}:
    raise AssertionError("total.RULES and the builtins declared `harmless=RULE` differ")

_EVERY_PART = {"str", "fmt", "list", "not", "neg", "pattr", "cards", "field", "pctr", "cctr", "pzone"}


def risky_parts(ir, game, text=True, safe=frozenset()) -> list:
    """The smallest parts of `ir` that could fail, each evaluated exactly when
    `ir` is (so evaluating just these fails exactly when `ir` would): a node
    that evaluates all its parts is opened up; anything else is taken whole."""
    if ir is None or harmless(ir, game, text=text, safe=safe):
        return []
    kind = ir[0] if isinstance(ir, list) and ir and isinstance(ir[0], str) else None
    if kind == "str":
        return [x for p in ir[1] if not isinstance(p, str) for x in risky_parts(p[1], game, text, safe)]
    if kind in ("fmt", "not", "neg", "cards"):
        return risky_parts(ir[1], game, text, safe)
    if kind == "list":
        return [x for v in ir[1] for x in risky_parts(v, game, text, safe)]
    return [ir]
