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

Everything here reads and makes typed nodes (cardc/ir/nodes.py).  A word
is a literal `str`, `int`, `bool` or none (the pattern `Lit(value=str() |
int() | None)`): what `==` compares the same in the generated code as
here, so a comparison of two of them may be folded; a float or a list is
not one.
"""
from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import cast

from cardc.ir import nodes as n
from cardc.ir.nodes import And, Call, Cmp, Expr, Fn, If, Lit, Node, Not, Or, Var

#: what a modifier's body is when it returns its value unchanged
VALUE = Var("value")


def keys(modifier_bodies: dict[str, list[Node]], modifier_args: dict, code: dict | None = None,
         fn_bodies: dict[str, Node] | None = None, fn_params: dict | None = None) -> dict:
    """{modifier: [(argument, word)]}: each argument of each modifier that
    some card's modifier (`modifier_bodies`, its cards' bodies) compares
    with a word, with each such word, and with each other word a call in
    the bundle's `code` may pass for it (`passed`): there every card's
    comparison is false."""
    out = {}
    roots: list[Node] | None = None         # the code's nodes, parsed once, when a modifier needs them
    for name, bodies in modifier_bodies.items():
        declared = set(modifier_args.get(name, ()))
        found = {pair for body in bodies for pair in _compared(body, declared)}
        if found and code is not None:
            if roots is None:
                roots = list(n.code_nodes(code))
            compared = {a for a, _ in found}
            found |= {(a, w) for a, w in passed(name, roots, fn_bodies or {}, fn_params or {})
                      if a in compared}
        out[name] = sorted(found, key=repr)
    return out


def passed(modifier: str, roots: Iterable[Node], fn_bodies: dict[str, Node], fn_params: dict) -> set:
    """(argument, word) for each word a `modified(modifier, …)` call in
    `roots` (a bundle's code) passes for an argument: written there, or
    passed to a function whose parameter the call passes on (`gain(p,
    "gold", …)`, `gain` calling `modified(…, resource=resource)`).  A word
    found here that no card compares with leaves every card's modifier
    `value` itself."""
    through: dict[str, dict[int, str]] = {}     # function -> {param index: argument}
    for name, body in fn_bodies.items():
        params = list(fn_params.get(name, ()))
        for node in n.walk(body):
            for a, v in _modified_args(node, modifier).items():
                match v:
                    case Var(name=param) if param in params:
                        through.setdefault(name, {})[params.index(param)] = a
    words: set = set()
    for root in roots:
        for node in n.walk(root):
            for a, v in _modified_args(node, modifier).items():
                match v:
                    case Lit(value=str() | int() | None as word):
                        words.add((a, word))
            match node:
                case Fn(function=function, args=args) if function in through:
                    for i, a in through[function].items():
                        match args[i] if i < len(args) else None:
                            case Lit(value=str() | int() | None as word):
                                words.add((a, word))
    return words


def _modified_args(node: Node, modifier: str) -> dict[str, Expr]:
    """The arguments by name of `node` where it is a call `modified(modifier,
    …)`; none for any other node."""
    match node:
        case Call(builtin="modified", args=[Lit(value=name), *_], kwargs=kwargs) if name == modifier:
            return kwargs
    return {}


def _compared(body: Node, args: Collection[str]) -> Iterable[tuple]:
    """Each (argument, word) that `body` compares with `==` or `!=`, the
    argument one of `args`."""
    for node in n.walk(body):
        match node:
            case (Cmp(operator="==" | "!=", left=Var(name=arg), right=Lit(value=str() | int() | None as word))
                  | Cmp(operator="==" | "!=", left=Lit(value=str() | int() | None as word), right=Var(name=arg))) \
                    if arg in args:
                yield arg, word


def specialise(body: Node, arg: str, word) -> Node | None:
    """`body` (a modifier's, an expression) with argument `arg` fixed to
    `word`, folded (see the module docstring); `None` where the result is
    `value` itself."""
    out = _value(cast(Expr, n.substitute(body, {arg: Lit(word)})))
    return None if out == VALUE else out


def _value(node: Expr) -> Expr:
    """Fold where a value is used: only `if` is rewritten."""
    match node:
        case If(test=test, then=then, otherwise=otherwise):
            match _test(test):
                case Lit(value=bool() as truth):
                    return _value(then if truth else otherwise)
                case folded:
                    return If(folded, _value(then), _value(otherwise))
    return node


def _test(node: Expr) -> Expr:
    """Fold where only truth is used (an `if`'s test)."""
    match node:
        case Cmp(operator="==" | "!=" as operator, left=Lit(value=str() | int() | None as a),
                 right=Lit(value=str() | int() | None as b)):
            same = a == b
            return Lit(same if operator == "==" else not same)
        case Not(value=inner):
            match _test(inner):
                case Lit(value=bool() as truth):
                    return Lit(not truth)
                case folded:
                    return Not(folded)
        case And(parts=written) | Or(parts=written):
            stop = isinstance(node, Or)     # the value that decides: true for `or`, false for `and`
            parts: list[Expr] = []
            before_safe = True
            for part in map(_test, written):
                match part:
                    case Lit(value=bool() as truth) if truth != stop:
                        continue            # a part that does not decide: dropped, the truth kept
                    case Lit(value=bool()):
                        if before_safe:
                            return Lit(stop)
                        parts.append(part)
                        break               # nothing after it runs
                before_safe = before_safe and safe(part)
                parts.append(part)
            match parts:
                case []:
                    return Lit(not stop)
                case [only]:
                    return only
            return type(node)(parts)
    return node


def safe(node: Node) -> bool:
    """An expression whose evaluation cannot fail: dropping it loses no
    fault.  Names, literals, `==`/`!=` of such, and the owner of the card
    whose modifier this is."""
    match node:
        case Var() | Lit():
            return True
        case Cmp(operator="==" | "!=", left=left, right=right):
            return safe(left) and safe(right)
        case And(parts=parts) | Or(parts=parts):
            return all(map(safe, parts))
        case Not(value=inner):
            return safe(inner)
    return _owner_of_this(node)


def _owner_of_this(node: Node) -> bool:
    """`owner_of(this)`: the owner of the card whose modifier this is."""
    match node:
        case Call(builtin="owner_of", args=[Var(name="this")], kwargs=kwargs):
            return not kwargs
    return False


def owner_guard(body: Node, declared: Collection[str]) -> str | None:
    """The argument `a` when `body` is `X if a == owner_of(this) … else
    value` (the comparison alone, or first in an `and`): the card then
    modifies only for its own zone's owner, and for any other value of `a`
    gives `value` itself (the comparison cannot fail, and is false).  None
    for any other shape."""
    match body:
        case If(test=And(parts=[test, *_]) | test, otherwise=Var(name="value")):
            pass
        case _:
            return None
    match test:
        case Cmp(operator="==", left=Var(name=arg), right=other) | Cmp(operator="==", left=other, right=Var(name=arg)) \
                if arg in declared and _owner_of_this(other):
            return arg
    return None
