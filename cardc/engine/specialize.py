"""Modifiers specialised for an argument the call site fixes.

A modifier's cards often test one of its arguments against a word:

    income: value + this.amount if player == owner_of(this) and resource == "wood" else value

and most call sites pass that argument as a word too (`gain(p, "stone",
…)`, inlined).  At such a site the card's modifier is known to be `value`
itself for every word but "wood": it need not be called at all.  So, once
per game, each card's modifier is folded for every word its modifier's
cards compare an argument with, or a call passes for it (`keys`); the
folded modifier is dropped where it is `value` itself, and compiled where
it changed.  A call
site with a word reads the list of cards in force for `(modifier,
argument, word)`, which the scan of the cards in force builds beside the
plain one (Game._scan_modifiers): most of the time it is empty, and the
site takes the value as it is, with no call.

Exactness: folding only decides what the word decides.  A comparison of
two words becomes true or false; an `if` whose test is then a constant is
its branch; in a test, `a and false` is false (and `a or true` true) only
where `a` cannot fail (`safe`), so no fault is lost, and a true part of an
`and` (false of an `or`) is dropped, which keeps the test's truth.
Nothing else is rewritten.  The values are the same, in the same order of
cards; only the calls that return their value unchanged are skipped.
"""
from __future__ import annotations

from cardc.engine.inline import substitute
from cardc.ir.nodes import code_expressions, json_walk

#: literal values a comparison may fold: what `==` compares the same in the
#: generated code as here
_WORDS = (str, int, bool, type(None))


def keys(modifier_bodies: dict, modifier_args: dict, code=None, fn_bodies=None,
         fn_params=None) -> dict:
    """{modifier: [(argument, word)]}: each argument of each modifier that
    some card's modifier compares with a literal, with each such literal,
    and with each other word a call may pass for it (`passed`): there every
    card's comparison is false."""
    out = {}
    for name, bodies in modifier_bodies.items():
        declared = modifier_args.get(name, ())
        found: set = set()
        for ir in bodies:
            _compared(ir, set(declared), found)
        if found and code is not None:
            compared = {a for a, _ in found}
            found |= {(a, w) for a, w in passed(name, code, fn_bodies or {}, fn_params or {})
                      if a in compared}
        out[name] = sorted(found, key=repr)
    return out


def passed(modifier: str, code, fn_bodies: dict, fn_params: dict) -> set:
    """(argument, word) for each word a `modified(modifier, …)` call passes
    for an argument: written there, or passed to a function whose parameter
    the call passes on (`gain(p, "gold", …)`, `gain` calling `modified(…,
    resource=resource)`).  A word found here that no card compares with
    leaves every card's modifier `value` itself."""
    words: set = set()
    through: dict[str, dict] = {}       # function -> {param index: argument}
    for name, body in fn_bodies.items():
        params = fn_params.get(name, ())
        for node in json_walk(body):
            if _modifies(node, modifier):
                for a, v in node[3].items():
                    if _is_var(v, params):
                        through.setdefault(name, {})[params.index(v[1])] = a
    for node in code_expressions(code):
        if _modifies(node, modifier):
            words |= {(a, v[1]) for a, v in node[3].items() if _is_word(v)}
        elif node[0] == "fn" and len(node) == 3 and node[1] in through and isinstance(node[2], list):
            for i, a in through[node[1]].items():
                if i < len(node[2]) and _is_word(node[2][i]):
                    words.add((a, node[2][i][1]))
    return words


def _modifies(node, modifier) -> bool:
    """`node` is a call `modified(modifier, …)` with its arguments by name."""
    return (node[0] == "call" and len(node) == 4 and node[1] == "modified" and isinstance(node[3], dict)
            and bool(node[2]) and node[2][0] == ["lit", modifier])


def _compared(ir, args, found):
    """Add to `found` each (argument, word) that `ir` compares with `==` or `!=`."""
    for node in json_walk(ir):
        if node[0] == "cmp" and len(node) == 4 and node[1] in ("==", "!="):
            for a, b in ((node[2], node[3]), (node[3], node[2])):
                if _is_var(a, args) and _is_word(b):
                    found.add((a[1], b[1]))


def _is_var(ir, names) -> bool:
    return isinstance(ir, list) and len(ir) == 2 and ir[0] == "var" and ir[1] in names


def _is_word(ir) -> bool:
    return isinstance(ir, list) and len(ir) == 2 and ir[0] == "lit" and type(ir[1]) in _WORDS


def specialise(ir, arg: str, word):
    """`ir` with argument `arg` fixed to `word`, folded (see the module
    docstring); `None` where the result is `value` itself."""
    out = _value(substitute(ir, {arg: ["lit", word]}))
    return None if out == ["var", "value"] else out


def _value(ir):
    """Fold where a value is used: only `if` is rewritten."""
    if isinstance(ir, list) and len(ir) == 4 and ir[0] == "if":
        test = _test(ir[1])
        if _is_word(test) and type(test[1]) is bool:
            return _value(ir[2] if test[1] else ir[3])
        return ["if", test, _value(ir[2]), _value(ir[3])]
    return ir


def _test(ir):
    """Fold where only truth is used (an `if`'s test)."""
    if not isinstance(ir, list) or not ir:
        return ir
    op = ir[0]
    if op == "cmp" and len(ir) == 4 and ir[1] in ("==", "!=") and _is_word(ir[2]) and _is_word(ir[3]):
        same = ir[2][1] == ir[3][1]
        return ["lit", same if ir[1] == "==" else not same]
    if op == "not" and len(ir) == 2:
        inner = _test(ir[1])
        if _is_word(inner) and type(inner[1]) is bool:
            return ["lit", not inner[1]]
        return ["not", inner]
    if op in ("and", "or") and len(ir) == 2 and isinstance(ir[1], list):
        stop = op == "or"          # the value that decides: true for `or`, false for `and`
        parts, before_safe = [], True
        for part in ir[1]:
            part = _test(part)
            if _is_word(part) and type(part[1]) is bool:
                if part[1] != stop:
                    continue        # a part that does not decide: dropped, the truth kept
                if before_safe:
                    return ["lit", stop]
                parts.append(part)
                break               # nothing after it runs
            before_safe = before_safe and safe(part)
            parts.append(part)
        if not parts:
            return ["lit", not stop]
        return parts[0] if len(parts) == 1 else [op, parts]
    return ir


def safe(ir) -> bool:
    """An expression whose evaluation cannot fail: dropping it loses no
    fault.  Names, literals, `==`/`!=` of such, and the owner of the card
    whose modifier this is."""
    if not isinstance(ir, list) or not ir:
        return False
    op = ir[0]
    if op in ("var", "lit"):
        return True
    if op == "cmp":
        return len(ir) == 4 and ir[1] in ("==", "!=") and safe(ir[2]) and safe(ir[3])
    if op in ("and", "or"):
        return isinstance(ir[1], list) and all(safe(p) for p in ir[1])
    if op == "not":
        return safe(ir[1])
    if op == "call" and ir[1] == "owner_of":
        return ir[2] == [["var", "this"]] and not ir[3]
    return False


def owner_guard(ir, declared) -> str | None:
    """The argument `a` when `ir` is `X if a == owner_of(this) … else value`
    (the comparison alone, or first in an `and`): the card then modifies
    only for its own zone's owner, and for any other value of `a` gives
    `value` itself (the comparison cannot fail, and is false).  None for
    any other shape."""
    if not (isinstance(ir, list) and len(ir) == 4 and ir[0] == "if" and ir[3] == ["var", "value"]):
        return None
    test = ir[1]
    if isinstance(test, list) and len(test) == 2 and test[0] == "and" and \
            isinstance(test[1], list) and test[1]:
        test = test[1][0]
    if not (isinstance(test, list) and len(test) == 4 and test[0] == "cmp" and test[1] == "=="):
        return None
    owner = ["call", "owner_of", [["var", "this"]], {}]
    for a, b in ((test[2], test[3]), (test[3], test[2])):
        if b == owner and _is_var(a, set(declared)):
            return a[1]
    return None
