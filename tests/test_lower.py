"""Comprehensions run as loops (cardc/engine/lower.py) do exactly what they did.

The pass rewrites generated code that decides every game, so it is checked
against Python itself: random expressions of the shapes the generator writes
(`and`, `or`, `x if c else y`, walrus, calls, comparisons, `any`/`all` over
generators, list comprehensions, nested), each part traced, run once as
written and once lowered.  The value, the order in which the parts ran, and
the error (a part that raises) must be the same.
"""
import ast

from hypothesis import assume, example, given, settings
from hypothesis import strategies as hs

from cardc.engine.lower import Lowering, lower


class Boom(Exception):
    pass


def t(log, i, v):
    """Part `i` ran; its value is `v` (a part with value 'boom' raises)."""
    log.append(i)
    if v == "boom":
        raise Boom(i)
    return v


_ids = iter(range(10**9))

LEAVES = hs.sampled_from([0, 1, 2, True, False, "boom", [], [1, 2], [0, 3, 1]])


@hs.composite
def exprs(draw, depth=0, kept=False):
    """Python text of one expression; `x` and `y` are loop variables in scope
    only inside comprehensions, so a leaf may read them there.  With `kept`,
    some parts are values kept by the generator (`_m0`…`_m2`, pygen.Memo),
    computed by whichever read of them runs first."""
    i = next(_ids)
    if depth >= 3 or draw(hs.integers(0, 3)) == 0:
        if draw(hs.integers(0, 4)) == 0:
            return "w"          # a name a walrus elsewhere in the statement may change
        return f"t(log, {i}, {draw(LEAVES)!r})"
    kind = draw(hs.sampled_from(["and", "or", "if", "any", "all", "list", "call", "cmp",
                                 "walrus", "len", "sum", "count"] + ["kept"] * (3 * kept)))
    a, b = draw(exprs(depth + 1, kept)), draw(exprs(depth + 1, kept))
    if kind == "kept":
        m = f"_m{draw(hs.integers(0, 2))}"
        return f"({m} if {m} is not _U else ({m} := {a}))"
    if kind in ("and", "or"):
        return f"({a} {kind} {b} {kind} {draw(exprs(depth + 1, kept))})"
    if kind == "if":
        return f"({a} if {b} else {draw(exprs(depth + 1, kept))})"
    if kind in ("any", "all"):
        v = f"_l{i}"
        return f"{kind}(t(log, {i}, {v} if {b} else 0) for {v} in _it({a}))"
    if kind == "list":
        v = f"_l{i}"
        return f"[({v}, {b}) for {v} in _it({a}) if t(log, {i}, {v})]"
    if kind == "call":
        return f"f({a}, {b})"
    if kind == "cmp":
        return f"({a} == {b})"
    if kind == "walrus":
        return f"(w := {a})"
    if kind == "count":
        v = f"_l{i}"
        return f"len([{v} for {v} in _it({a}) if t(log, {i}, {b})])"
    if kind == "len":
        return f"len(_it({a}))"
    return f"sum(1 for _s{i} in _it({a}) if {b})"      # a generator left as it is


def _it(v):
    return v if isinstance(v, list) else [v, v]


def f(a, b):
    return (a, b)


_UNSET = object()


def run(code):
    log = []
    ns = {"t": t, "log": log, "_it": _it, "f": f, "_U": _UNSET}
    try:
        exec(code, ns)  # noqa: S102
        out = ("value", ns["result"])
    except Boom as exc:
        out = ("raised", exc.args)
    return out, log


STATEMENTS = [
    "def g(log):\n    w = 'w'\n    return {e}\nresult = g(log)\n",
    "def g(log):\n    w = 'w'\n    if {e}:\n        return 'yes'\n    elif {e2}:\n        return 'elif'\n    return 'no'\nresult = g(log)\n",
    "def g(log):\n    w = 'w'\n    r = {e}\n    out = []\n    for z in _it({e2}):\n        out.append(z)\n    return (r, out)\nresult = g(log)\n",
]


@settings(max_examples=400, deadline=None)
@given(exprs(), exprs(), hs.sampled_from(STATEMENTS))
# a name read before a loop that a walrus in the loop changes: read first
@example("f(w, any((w := t(log, 1, x)) for x in [0, 2]))", "0", STATEMENTS[0])
@example("(w, [(w := x) for x in [3]], w)", "0", STATEMENTS[0])
def test_a_lowered_function_gives_the_same_value_order_and_error(e, e2, shape):
    same_as_written(shape.format(e=e, e2=e2))


def same_as_written(source):
    """`source` rewritten by `lower` runs as it does as written."""
    try:
        plain = compile(source, "<test>", "exec")
    except SyntaxError:         # a walrus in a comprehension's iterable: not Python
        assume(False)
    assert run(lower(source, "<test>")) == run(plain), source


KEPT = [
    "def g(log):\n    _m0 = _m1 = _m2 = _U\n    w = 'w'\n    return {e}\nresult = g(log)\n",
    "def g(log):\n    _m0 = _m1 = _m2 = _U\n    w = 'w'\n    if {e}:\n        return ({e2}, _m0)\n"
    "    r = [{e2}, {e}]\n    for z in _it({e2}):\n        r.append(z)\n    return r\nresult = g(log)\n",
    # values reset at the top of a loop's body, and read in the `if`s in it
    "def g(log):\n    _m0 = _m1 = _m2 = _U\n    w = 'w'\n    r = [{e2}]\n    for z in _it({e}):\n"
    "        _m1 = _m2 = _U\n        if {e2}:\n            r.append(({e}, {e2}))\n"
    "        else:\n            r.append({e})\n        r.append({e2})\n    return (r, {e})\nresult = g(log)\n",
    # a value reset again in an `if`, and read before and after it
    "def g(log):\n    _m0 = _m1 = _m2 = _U\n    w = 'w'\n    r = [{e}]\n    if {e2}:\n"
    "        _m0 = _m2 = _U\n        r.append({e})\n    return (r, {e2}, {e})\nresult = g(log)\n",
    # a block: cases of a `while True`, each resetting its own values
    "def g(log):\n    _m0 = _m1 = _m2 = _U\n    w = 'w'\n    pc, r = 0, []\n    while True:\n"
    "        if pc == 0:\n            _m0 = _m1 = _U\n            r.append({e})\n"
    "            pc = 1 if {e2} else 2\n        if pc == 1:\n            _m2 = _U\n"
    "            r.append(({e2}, {e}))\n            pc = 2\n        if pc == 2:\n"
    "            return (r, {e2})\nresult = g(log)\n",
]


@settings(max_examples=400, deadline=None)
@given(exprs(kept=True), exprs(kept=True), hs.sampled_from(KEPT))
# the conditional read runs first: the certain one after it keeps its test
@example("f((t(log, 1, 1) and (_m0 if _m0 is not _U else (_m0 := t(log, 2, 5)))), "
         "(_m0 if _m0 is not _U else (_m0 := t(log, 3, 6))))", "0", KEPT[0])
# a certain read that keeps its test: the value inside it may not run
@example("f(f((t(log, 1, 1) and (_m0 if _m0 is not _U else (_m0 := t(log, 2, 5)))), "
         "(_m0 if _m0 is not _U else (_m0 := (_m1 if _m1 is not _U else (_m1 := t(log, 3, 6)))))), "
         "(_m1 if _m1 is not _U else (_m1 := t(log, 4, 7))))", "0", KEPT[0])
# computed before an `if` that resets it: after the `if`, not certain any more
@example("w", "(_m0 if _m0 is not _U else (_m0 := t(log, 6, 1)))", KEPT[3])
def test_a_kept_value_is_computed_by_the_read_that_ran_first(e, e2, shape):
    """lower.FirstUse: a kept value read certainly, before any other read of
    it, is computed there with no test, and later reads are plain names; the
    value, the order of the parts and the error stay the same."""
    same_as_written(shape.format(e=e, e2=e2))


def test_a_certain_read_computes_a_kept_value_and_later_reads_are_plain():
    from cardc.engine.lower import FirstUse
    source = ("def g(st, a):\n    _m0 = _m1 = _U\n"
              "    return (len((_m0 if _m0 is not _U else (_m0 := h(a)))) == 0 and "
              "(_m1 if _m1 is not _U else (_m1 := k(a)))) or len((_m0 if _m0 is not _U else (_m0 := h(a)))) == 1\n")
    tree = ast.parse(source)
    FirstUse().function(tree.body[0])
    assert ast.unparse(tree).split("\n")[1:] == [
        "    _m1 = _U",
        "    return len((_m0 := h(a))) == 0 and (_m1 if _m1 is not _U else (_m1 := k(a))) or len(_m0) == 1"]


def test_any_and_filters_in_a_function_become_loops():
    source = ("def g(xs, k):\n"
              "    return k and any(x > 2 for x in xs) and [x for x in xs if x]\n")
    tree = ast.parse(source)
    Lowering().function(tree.body[0])
    text = ast.unparse(tree)
    assert "any(" not in text and "for x in xs:" in text and "break" in text
    ns = {}
    exec(lower(source, "<test>"), ns)  # noqa: S102
    assert ns["g"]([0, 3], 1) == [3]
    assert ns["g"]([0, 1], 1) is False
    assert ns["g"]([5], 0) == 0


def test_a_comprehension_in_a_lambda_stays_one():
    source = "def g(xs):\n    return (lambda: any(x for x in xs))()\n"
    tree = ast.parse(source)
    Lowering().function(tree.body[0])
    assert "lambda: any(" in ast.unparse(tree) and "for x in xs:" not in ast.unparse(tree)


def test_a_fault_in_a_loop_is_on_the_line_of_its_statement():
    source = "def g(xs):\n    a = 1\n    return any(1 // x for x in xs)\n"
    ns = {}
    exec(lower(source, "<test>"), ns)  # noqa: S102
    try:
        ns["g"]([0])
    except ZeroDivisionError as exc:
        tb = exc.__traceback__
        while tb.tb_next is not None:
            tb = tb.tb_next
        assert tb.tb_lineno == 3
    else:
        raise AssertionError("no fault")
