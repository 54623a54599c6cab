"""The one place that builds jinja2 environments for content templates.

Card text, layout templates (corner, type line, footer) and the rulebook are
written by designers and shared between them: they are untrusted. Every one
of them renders here, in jinja2's `ImmutableSandboxedEnvironment` (no
attribute tricks such as `cycler.__init__.__globals__`, no mutating what the
template is given, such as `params.update(...)`), with a budget:

- work: every loop item, call, attribute or item lookup and arithmetic
  operation costs one step; a render may take `MAX_STEPS` of them;
- size: every string a template builds (by `~`, `+`, `*`, a filter or a
  method) is refused past `MAX_STRING` characters before it is made, and
  the whole output of one render past `MAX_OUTPUT`; an integer past
  `MAX_INT_BITS` bits; `range()` past `MAX_RANGE` items;
- memory: every value a filter, call, operator or concatenation produces is
  counted as it is made (a string by its characters, a list by its items and
  their characters), and one render may make `MAX_BUILT` in all.  Each
  string under `MAX_STRING` is not enough: `range(N)|map("center", 999999)
  |list` makes N strings of a megabyte each, one step apiece.  What is made
  bounds what is alive at once, so a render's memory stays under about
  `4 * MAX_BUILT` bytes (a character takes at most 4) plus jinja's own;
- depth: macro calls (and `loop()` of a recursive for) nest at most
  `MAX_CALL_DEPTH` deep; a template that nests too deeply to parse is an
  error, not a RecursionError;
- reach: `include`, `import` and `extends` are refused (a game has one
  rulebook template and no others to include), and so is `%`/`.format()`
  string formatting (its width field builds strings of any size; the
  filters do the same job).

Budgets count work, not seconds, so a template that passes on one machine
passes on every machine. Every failure is a `TemplateProblem` carrying the
line of the template; callers turn it into a located diagnostic.
"""
from __future__ import annotations

import contextvars
import functools
import itertools
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.visitor import NodeTransformer

MAX_STEPS = 1_000_000       # a shipped rulebook takes 1,600-3,200; a card text under 20
MAX_STRING = 1_000_000      # characters in any one string a template builds
MAX_OUTPUT = 4_000_000      # characters one render writes in total (a rulebook is ~20,000)
MAX_BUILT = 16_000_000      # characters (and list items) one render may make in all (a rulebook makes ~100,000)
MAX_RANGE = 100_000         # items of one range()
MAX_INT_BITS = 4_096        # an integer a template computes (about 1,200 digits)
MAX_CALL_DEPTH = 40         # nested macro calls

LIMITS_TEXT = (f"templates may take {MAX_STEPS:,} steps, build strings of up to {MAX_STRING:,} "
               f"characters and {MAX_BUILT:,} in all, write {MAX_OUTPUT:,}, nest macros {MAX_CALL_DEPTH} deep")


class TemplateProblem(Exception):
    """A content template that cannot be compiled or rendered.  `line` is the
    line inside the template (1-based) when it is known."""

    def __init__(self, message: str, line: int | None = None, undefined: bool = False):
        super().__init__(message)
        self.message = message
        self.line = line
        self.undefined = undefined      # a name the context lacks (a card without that field)

    def __str__(self) -> str:
        return self.message


class _OverBudget(Exception):
    """Raised inside a render; becomes a TemplateProblem with its line."""


@dataclass
class _Budget:
    steps: int = 0
    output: int = 0
    depth: int = 0
    built: int = 0

    def made(self, size: int) -> None:
        """A value of `size` characters or items was made (see `_size`)."""
        self.built += size
        if self.built > MAX_BUILT:
            raise _OverBudget(f"the template makes over {MAX_BUILT:,} characters of text and lists in all: "
                              "a long loop or map that builds large strings?")

    def step(self, n: int = 1) -> None:
        self.steps += n
        if self.steps > MAX_STEPS:
            raise _OverBudget(f"the template does too much work (over {MAX_STEPS:,} steps): "
                              "a loop too long, or loops nested too deep")

    def write(self, n: int) -> None:
        self.output += n
        self.step()
        if self.output > MAX_OUTPUT:
            raise _OverBudget(f"the template writes over {MAX_OUTPUT:,} characters")


_BUDGET: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar("cardc_template_budget", default=None)


def _budget() -> _Budget:
    """The budget of the render under way. Outside one (jinja folding a
    constant such as `{{ 'a'|upper }}` while it compiles) a throwaway one:
    folding does bounded work on constants, and a size check that fails
    there only makes jinja leave the expression to run time."""
    return _BUDGET.get() or _Budget()


def _size(value: Any) -> int:
    """What making `value` cost: a string's characters; a list's items and the
    characters of the strings in it (counted again: a bound, not an exact
    figure); an integer's bytes; anything else (a lookup, a generator) 0."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        return len(value) + sum(len(x) for x in value if isinstance(x, str))
    if isinstance(value, int):
        return value.bit_length() // 8
    return 0


def _check_size(value: Any) -> Any:
    """Refuse a value too big to keep, then count it against the render's
    memory budget (`_Budget.made`)."""
    if isinstance(value, (str, list, tuple)) and len(value) > MAX_STRING:
        raise _OverBudget(f"the template builds a string of over {MAX_STRING:,} characters"
                          if isinstance(value, str) else f"the template builds a list of over {MAX_STRING:,} items")
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_INT_BITS:
        raise _OverBudget(f"the template computes a number of over {MAX_INT_BITS:,} bits")
    size = _size(value)
    if size:
        _budget().made(size)
    return value


def _check_structure(value: Any) -> None:
    """Refuse a list or mapping whose text would be huge: `{% set x = [x, x] %}`
    forty times shares its parts and costs nothing to build, but its text has
    2^40 parts. Counts parts up to the limit only, so it costs at most that."""
    if not isinstance(value, (list, tuple, dict)):
        return
    stack, parts = [value], 0
    while stack:
        item = stack.pop()
        parts += 1
        if parts > MAX_STRING:
            raise _OverBudget(f"the template builds a value of over {MAX_STRING:,} parts")
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, str):
            parts += len(item) // 64


def _check_args(args, kwargs) -> None:
    """Refuse a size argument that would build a huge string before it is built
    (`'x'.ljust(10**9)`, `center(10**9)`)."""
    for a in (*args, *kwargs.values()):
        if isinstance(a, int) and not isinstance(a, bool) and abs(a) > MAX_STRING:
            raise _OverBudget(f"the number {a} is too large here (at most {MAX_STRING:,})")


def _check_replace(text, old, new, count=-1) -> None:
    if isinstance(text, str) and isinstance(old, str) and isinstance(new, str):
        times = text.count(old) if old else len(text) + 1
        if count is not None and isinstance(count, int) and count >= 0:
            times = min(times, count)
        if len(text) + times * (len(new) - len(old)) > MAX_STRING:
            raise _OverBudget(f"this replace would build a string of over {MAX_STRING:,} characters")


def _check_join(sep, items) -> None:
    if isinstance(sep, str) and isinstance(items, (list, tuple, range, str, dict, set)):
        size = len(sep) * len(items) + sum(len(x) for x in items if isinstance(x, str))
        if size > MAX_STRING:
            raise _OverBudget(f"this join would build a string of over {MAX_STRING:,} characters")


def _sized(items: Any, budget: _Budget) -> Any:
    """`items` with a length: a lazy sequence (`map`, `select`, a generator)
    made a list here, of at most MAX_STRING items, so that what a join of
    them would build is known before it is built."""
    if isinstance(items, (list, tuple, range, str, dict, set)) or not hasattr(items, "__iter__"):
        return items
    made = _check_size(list(itertools.islice(items, MAX_STRING + 1)))
    budget.made(len(made))
    return made


def _range(*args):
    r = range(*args)
    try:
        size = len(r)
    except OverflowError:       # range(10**100)
        raise _OverBudget(f"range() of over {MAX_RANGE:,} items") from None
    if size > MAX_RANGE:
        raise _OverBudget(f"range() of {size:,} items: at most {MAX_RANGE:,}")
    return r


# The filters the instrumented template calls take the context
# (`pass_context`) for one reason: jinja never folds such a filter at compile
# time, so the literal text inside a loop is counted on every pass.

@jinja2.pass_context
def _iterate(context, items):
    """Every loop of a template goes through here: one step per item."""
    budget = _budget()
    for item in items:
        budget.step()
        yield item


@jinja2.pass_context
def _output(context, value):
    """Every piece a template writes goes through here."""
    _check_structure(value)
    text = value if isinstance(value, str) else str(value)
    _budget().write(len(text))
    return value


@jinja2.pass_context
def _part(context, value):
    """Each operand of a `~` concatenation, before it is turned into text."""
    _check_structure(value)
    return value


@jinja2.pass_context
def _built(context, value):
    """The result of a `~` concatenation."""
    _budget().step()
    return _check_size(value)


class _Instrument(NodeTransformer):
    """Rewrites a parsed template so that its loops, output and concatenations
    pass through the budget (`_iterate`, `_output`, `_part`, `_built`)."""

    def _wrap(self, name: str, node):
        # a filter, not a call: filters are looked up by the compiler, so a
        # template cannot shadow these with a `{% set %}`
        return nodes.Filter(node, name, [], [], None, None, lineno=node.lineno)

    def visit_For(self, node):
        node = self.generic_visit(node)
        node.iter = self._wrap("cardc_iterate", node.iter)
        return node

    def visit_Output(self, node):
        node = self.generic_visit(node)
        node.nodes = [self._wrap("cardc_output", child) for child in node.nodes]
        return node

    def visit_Concat(self, node):
        node = self.generic_visit(node)
        node.nodes = [self._wrap("cardc_part", child) for child in node.nodes]
        return self._wrap("cardc_built", node)


# jinja's filters whose number arguments are sizes of what they build
_SIZING_FILTERS = {"do_center", "do_indent", "do_truncate", "do_wordwrap", "do_batch", "do_slice",
                   "do_format", "do_filesizeformat"}


def _capped_filter(f: Callable) -> Callable:
    @functools.wraps(f)
    def capped(*args, **kwargs):
        budget = _budget()
        budget.step()
        plain = [a for a in args if not isinstance(a, (jinja2.Environment, jinja2.runtime.Context,
                                                       jinja2.nodes.EvalContext))]
        if f.__name__ in _SIZING_FILTERS:
            _check_args(plain[1:], kwargs)
        for a in plain[:1]:
            _check_structure(a)
        if f.__name__ == "do_replace" and len(plain) >= 3:
            _check_replace(*plain[:4])
        if f.__name__ == "do_join" and plain:
            items = _sized(plain[0], budget)
            args = tuple(items if a is plain[0] else a for a in args)
            _check_join(plain[1] if len(plain) > 1 else kwargs.get("d", ""), items)
        return _check_size(f(*args, **kwargs))
    return capped


class ContentEnvironment(ImmutableSandboxedEnvironment):
    """The immutable sandbox with cardc's budget (see the module docstring)."""

    intercepted_binops = frozenset(["+", "-", "*", "/", "//", "%", "**"])
    intercepted_unops = frozenset(["-", "+"])

    def __init__(self, **options):
        options.setdefault("undefined", jinja2.StrictUndefined)
        options.setdefault("autoescape", False)
        super().__init__(**options)
        self.globals.pop("lipsum", None)          # lipsum(n=10**9) would write without end
        self.globals["range"] = _range
        self.filters.pop("format", None)          # `%` formatting: its width field builds any size
        self.filters = {name: _capped_filter(f) for name, f in self.filters.items()}
        self.filters.update(cardc_iterate=_iterate, cardc_output=_output, cardc_part=_part, cardc_built=_built)

    def add_filters(self, **filters: Callable) -> None:
        """Filters of a renderer (money, plural, ...), under the same budget."""
        self.filters.update({name: _capped_filter(f) for name, f in filters.items()})

    # --- what the parsed template may contain
    def _parse(self, source, name, filename):
        tree = super()._parse(source, name, filename)
        for node in tree.find_all((nodes.Include, nodes.Import, nodes.FromImport, nodes.Extends)):
            kind = type(node).__name__.lower().replace("fromimport", "import")
            raise jinja2.TemplateSyntaxError(f"`{{% {kind} %}}` is not available in content templates: "
                                             "write the text here", node.lineno, name, filename)
        return _Instrument().visit(tree)

    # --- what a render may do
    def call_binop(self, context, operator, left, right):
        _budget().step()
        if operator == "%" and isinstance(left, str):
            raise _OverBudget("`%` string formatting is not available in content templates; "
                              "use `~` and filters")
        if operator == "*":
            if isinstance(left, (list, tuple)) or isinstance(right, (list, tuple)):
                raise _OverBudget("repeating a list with `*` is not available in content templates")
            for seq, times in ((left, right), (right, left)):
                if isinstance(seq, (str, list, tuple)) and isinstance(times, int):
                    if len(seq) * max(times, 0) > MAX_STRING:
                        raise _OverBudget(f"the template builds a string of over {MAX_STRING:,} characters")
            if isinstance(left, int) and isinstance(right, int) and \
                    left.bit_length() + right.bit_length() > MAX_INT_BITS:
                raise _OverBudget(f"the template computes a number of over {MAX_INT_BITS:,} bits")
        if operator == "**" and isinstance(left, int) and isinstance(right, int) and abs(left) > 1 \
                and right > 0 and left.bit_length() * right > MAX_INT_BITS:
            raise _OverBudget(f"the template computes a number of over {MAX_INT_BITS:,} bits")
        return _check_size(super().call_binop(context, operator, left, right))

    def call_unop(self, context, operator, arg):
        _budget().step()
        return super().call_unop(context, operator, arg)

    def getattr(self, obj, attribute):
        _budget().step()
        return super().getattr(obj, attribute)

    def getitem(self, obj, argument):
        _budget().step()
        return super().getitem(obj, argument)

    def wrap_str_format(self, value):
        """`'{:>1000000000}'.format(1)`: its width field builds a string of any size."""
        if super().wrap_str_format(value) is None:
            return None

        def refused(*args, **kwargs):
            raise _OverBudget("`.format()` is not available in content templates; use `~` and filters")
        return refused

    def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805 (jinja's own signature)
        budget = _budget()
        budget.step()
        owner = getattr(__obj, "__self__", None)
        if isinstance(owner, (str, list, tuple)):       # 'x'.ljust(10**9), 'x'.zfill(10**9)
            _check_args(args, kwargs)
            if getattr(__obj, "__name__", None) == "replace":
                _check_replace(owner, *args[:3])
            if getattr(__obj, "__name__", None) == "join" and args:
                args = (_sized(args[0], budget), *args[1:])
                _check_join(owner, args[0])
        budget.depth += 1
        try:
            if budget.depth > MAX_CALL_DEPTH:
                raise _OverBudget(f"macros call each other over {MAX_CALL_DEPTH} deep: "
                                  "a macro that calls itself without end?")
            return _check_size(super().call(__context, __obj, *args, **kwargs))
        finally:
            budget.depth -= 1


def environment(**options) -> ContentEnvironment:
    """A content environment; `options` are jinja2 Environment options
    (trim_blocks, ...)."""
    return ContentEnvironment(**options)


def template_line(exc: BaseException, name: str) -> int | None:
    """The innermost line of the template in an exception's traceback (jinja
    rewrites its frames to carry the template's file name and line)."""
    line = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename == name:
            line = lineno
    return line


def compile_template(env: ContentEnvironment, source: str, name: str = "<template>") -> jinja2.Template:
    """The compiled template, or a TemplateProblem naming the line."""
    try:
        code = env.compile(source, name, name)
        return env.template_class.from_code(env, code, env.make_globals(None), None)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateProblem(exc.message or str(exc), exc.lineno) from None
    except (RecursionError, MemoryError, SyntaxError):
        raise TemplateProblem("the template nests too deeply to read "
                              "(brackets, blocks or expressions inside each other)", 1) from None


def render(template: jinja2.Template, context: Mapping[str, Any], name: str = "<template>") -> str:
    """Render under a fresh budget; every failure is a TemplateProblem."""
    token = _BUDGET.set(_Budget())
    try:
        return "".join(template.generate(dict(context)))
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateProblem(exc.message or str(exc), exc.lineno) from None
    except _OverBudget as exc:
        raise TemplateProblem(str(exc), template_line(exc, name)) from None
    except RecursionError as exc:
        raise TemplateProblem(f"macros or loops call themselves too deep (at most {MAX_CALL_DEPTH})",
                              template_line(exc, name)) from None
    except MemoryError:
        raise TemplateProblem("the template ran out of memory", None) from None
    except jinja2.UndefinedError as exc:
        raise TemplateProblem(exc.message or str(exc), template_line(exc, name), undefined=True) from None
    except jinja2.exceptions.SecurityError as exc:
        raise TemplateProblem(f"not allowed in a content template: {exc}", template_line(exc, name)) from None
    except Exception as exc:    # noqa: BLE001 - a template's own failure (a helper's, a bad value)
        raise TemplateProblem(str(exc) or type(exc).__name__, template_line(exc, name)) from None
    finally:
        _BUDGET.reset(token)


def render_text(env: ContentEnvironment, source: str, context: Mapping[str, Any],
                name: str = "<template>") -> str:
    """Compile and render one template: the common case."""
    return render(compile_template(env, source, name), context, name)


def source_loc(text: Any, line: int | None, fallback):
    """Where line `line` of a template written in a YAML string is in its file:
    a `Loc`, exact when the string knows its position (`LocStr.position`)."""
    from cardc.load.diagnostics import Loc
    position = getattr(text, "position", None)
    if position is None or not line:
        return fallback
    lines = str(text).split("\n")
    offset = sum(len(s) + 1 for s in lines[:max(0, min(line, len(lines)) - 1)])
    row, col = position(min(offset, len(text)))
    return Loc(fallback.file, row, col)
