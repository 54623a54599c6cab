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
counting a zone, and calls of functions whose bodies are harmless.  Anything
else (division, indexing, ordering comparisons that may meet none, most
builtins, modifiers) is assumed to be able to fail.
"""
from __future__ import annotations

_LEAVES = {"lit", "var", "players", "game", "zone", "gctr", "gattr"}
_ALWAYS_SET = {"me", "this"}
_OPEN = {"str", "fmt", "and", "or", "not", "if", "list", "neg", "pattr"}


def harmless(ir, game, _stack=(), text=False) -> bool:
    """Can `ir` never fail?  With `text`, as written in text for people,
    where a printed field or counter of none reads as none."""
    if ir is None:
        return True
    if not isinstance(ir, list) or not ir or not isinstance(ir[0], str):
        return False
    kind = ir[0]
    if kind in _LEAVES:
        return True
    if kind == "str":
        return all(isinstance(p, str) or harmless(p[1], game, _stack, text) for p in ir[1])
    if kind in ("fmt", "not", "neg"):
        return harmless(ir[1], game, _stack, text)
    if kind == "pattr":
        return harmless(ir[2], game, _stack, text)
    if kind in ("and", "or", "list"):
        return all(harmless(x, game, _stack, text) for x in ir[1])
    if kind == "if":
        return all(harmless(x, game, _stack, text) for x in ir[1:4])
    if kind in ("field", "pctr", "cctr"):
        return _never_none(ir[2]) or (text and harmless(ir[2], game, _stack, text))
    if kind == "pzone":
        return _never_none(ir[2])
    if kind == "cards":
        return harmless(ir[1], game, _stack, text)
    if kind == "bin":
        return ir[1] in ("+", "-", "*") and harmless(ir[2], game, _stack) and harmless(ir[3], game, _stack)
    if kind == "cmp":
        return ir[1] in ("==", "!=") and harmless(ir[2], game, _stack, text) and \
            harmless(ir[3], game, _stack, text)
    if kind == "call":
        return ir[1] == "count" and ir[2] and ir[2][0][0] in ("cards",) and \
            harmless(ir[2][0], game, _stack)
    if kind == "fn":
        name = ir[1]
        if name in _stack or name not in game.fn_bodies:
            return False
        return all(harmless(a, game, _stack, text) for a in ir[2]) and \
            harmless(game.fn_bodies[name], game, _stack + (name,))
    return False


def _never_none(ir) -> bool:
    """An index the engine always sets: the acting player, the card itself."""
    return isinstance(ir, list) and len(ir) == 2 and ir[0] == "var" and ir[1] in _ALWAYS_SET


_EVERY_PART = {"str", "fmt", "list", "not", "neg", "pattr", "cards", "field", "pctr", "cctr", "pzone"}


def risky_parts(ir, game, text=True) -> list:
    """The smallest parts of `ir` that could fail, each evaluated exactly when
    `ir` is (so evaluating just these fails exactly when `ir` would): a node
    that evaluates all its parts is opened up; anything else is taken whole."""
    if ir is None or harmless(ir, game, text=text):
        return []
    kind = ir[0] if isinstance(ir, list) and ir and isinstance(ir[0], str) else None
    if kind == "str":
        return [x for p in ir[1] if not isinstance(p, str) for x in risky_parts(p[1], game, text)]
    if kind in ("fmt", "not", "neg", "cards"):
        return risky_parts(ir[1], game, text)
    if kind == "list":
        return [x for v in ir[1] for x in risky_parts(v, game, text)]
    return [ir]
