"""The compiled IR's node kinds, each declared once, with its fields.

A bundle holds a game's rules as ops (`["choose", "victim", <expr>, …]`, one
statement each, in a block with jumps) and expressions (`["bin", "+", <expr>,
<expr>]`).  Each kind is declared here once, as a frozen dataclass
(`ChooseOp`, `Bin`, …): its name, whether it is an op or an expression, and
its fields in order, each annotated with what it holds (`E`: an expression,
`Name`: a name from the content, `Pc`: a jump target, …).  From the
declarations come

- the typed nodes: `parse` turns a bundle's positional list into one and
  `dump` back (a round trip of every shipped bundle is tested); the engine
  reads them by name (`match node: case Call(builtin="count", args=[x])`),
  walks them (`children`, `walk`) and rewrites them (`transform`);
- the bundle schema's shape of every op and expression
  (`cardc/ir/schema.py`): the closed set of kinds and each one's fields
  are written nowhere else;
- the walks of the JSON form itself (`cardc/ir/jsonform.py`), for the
  compiler that writes it and the checks of a bundle as it arrives.

Adding an IR kind is one declaration here; the compiler that writes it and
the generator that runs it are the other two places that change.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, cast, get_type_hints

# what a field holds
EXPR = "expr"               # an expression
OPT_EXPR = "expr?"          # an expression or null
EXPRS = "exprs"             # a list of expressions
KWEXPRS = "kwexprs"         # {name: expression}
NAME = "name"               # a name from the content (zone, counter, local, function …)
PC = "pc"                   # a jump target: an op of the same block
BOOL = "bool"
TYPE = "type"               # a type as the compiler writes it ("card", "list:player")
LIT = "lit"                 # a constant: a plain value or a list of them
TEXT = "text"               # a text's parts: strings and ["fmt", expr, type]
MENU = "menu"               # a menu's items: options, loops and conditions over them
BUILTIN = "builtin"         # the name of a builtin a bundle may call (cardc/ir/builtins.py)


def one_of(*values) -> tuple:
    """A field that holds one of a closed set of words."""
    return ("enum", values)


@dataclass(frozen=True)
class Kind:
    name: str
    op: bool
    fields: tuple               # ((field name, what it holds), …)
    cls: type
    doc: str


#: the kinds of op and of expression, by name (`call` is one of each)
OPS: dict[str, Kind] = {}
EXPRS_: dict[str, Kind] = {}


class Node:
    """A node of the IR (see the module docstring); `kind` names its kind,
    `op` says whether it is an op or an expression."""
    kind: ClassVar[str] = ""
    op: ClassVar[bool] = False


# ---------------------------------------------------------------- the kinds
# A kind is a frozen dataclass; each field's annotation says what it holds
# (`E`: an expression, `Name`: a name from the content, …): the JSON form,
# the schema and every walk below read these annotations, nothing else.

E = Annotated["Expr", EXPR]
OptE = Annotated["Expr | None", OPT_EXPR]
Es = Annotated["list[Expr]", EXPRS]
KwEs = Annotated["dict[str, Expr]", KWEXPRS]
Name = Annotated[str, NAME]
Pc = Annotated[int, PC]
Flag = Annotated[bool, BOOL]
TypeName = Annotated[str, TYPE]
Const = Annotated[Any, LIT]
Text = Annotated["list[str | Fmt]", TEXT]
Menu = Annotated["list[MenuItem]", MENU]
Builtin = Annotated[str, BUILTIN]


class Expr(Node):
    """An expression: a value read or worked out."""
    op = False


class Op(Node):
    """An op: one statement of a block."""
    op = True


@dataclass(frozen=True)
class Lit(Expr):
    """A constant: a number, text, true/false, none, or a list of them."""
    value: Const


@dataclass(frozen=True)
class Var(Expr):
    """A local, a parameter or a loop variable."""
    name: Name


@dataclass(frozen=True)
class Players(Expr):
    """Every player, in seat order."""


@dataclass(frozen=True)
class Game(Expr):
    """The game itself (`game.x`)."""


@dataclass(frozen=True)
class Zone(Expr):
    """A shared zone's cards."""
    zone: Name


@dataclass(frozen=True)
class Pzone(Expr):
    """A player's zone's cards."""
    zone: Name
    player: E


@dataclass(frozen=True)
class Cards(Expr):
    """The cards of a zone given as a value."""
    zone: E


@dataclass(frozen=True)
class Gctr(Expr):
    """A game counter."""
    counter: Name


@dataclass(frozen=True)
class Gattr(Expr):
    """The turn order's attributes."""
    attr: Annotated[str, one_of("first_player", "player_count", "round", "turn", "turn_player")]


@dataclass(frozen=True)
class Pctr(Expr):
    """A player's counter."""
    counter: Name
    player: E


@dataclass(frozen=True)
class Pattr(Expr):
    """A player's name or seat."""
    attr: Annotated[str, one_of("name", "seat")]
    player: E


@dataclass(frozen=True)
class Field(Expr):
    """A card's printed field."""
    field: Name
    card: E


@dataclass(frozen=True)
class Cctr(Expr):
    """A card's counter."""
    counter: Name
    card: E


@dataclass(frozen=True)
class Cpp(Expr):
    """A card's counter kept for each player."""
    counter: Name
    card: E
    player: E


@dataclass(frozen=True)
class Eattr(Expr):
    """A field of a reaction window's event."""
    field: Name
    event: E


@dataclass(frozen=True)
class Index(Expr):
    """An item of a list."""
    items: E
    index: E


@dataclass(frozen=True)
class Bin(Expr):
    """Arithmetic."""
    operator: Annotated[str, one_of("+", "-", "*", "/", "%")]
    left: E
    right: E


@dataclass(frozen=True)
class Neg(Expr):
    """A number's negation."""
    value: E


@dataclass(frozen=True)
class Cmp(Expr):
    """A comparison."""
    operator: Annotated[str, one_of("==", "!=", "<", "<=", ">", ">=", "in", "not in")]
    left: E
    right: E


@dataclass(frozen=True)
class And(Expr):
    """True if every part is (evaluated in order, stopping at the first false)."""
    parts: Es


@dataclass(frozen=True)
class Or(Expr):
    """True if any part is (evaluated in order, stopping at the first true)."""
    parts: Es


@dataclass(frozen=True)
class Not(Expr):
    """A test's negation."""
    value: E


@dataclass(frozen=True)
class If(Expr):
    """`a if test else b`."""
    test: E
    then: E
    otherwise: E


@dataclass(frozen=True)
class List(Expr):
    """A list written out."""
    items: Es


@dataclass(frozen=True)
class Comp(Expr):
    """`[item for var in items if test]`."""
    item: E
    var: Name
    items: E
    test: OptE


@dataclass(frozen=True)
class Fn(Expr):
    """A call of a content function."""
    function: Name
    args: Es


@dataclass(frozen=True)
class Call(Expr):
    """A call of a builtin."""
    builtin: Builtin
    args: Es
    kwargs: KwEs


@dataclass(frozen=True)
class Str(Expr):
    """Text with values written in."""
    parts: Text


# the parts of a text and of a menu: held by a kind's field, not kinds of
# their own (no op or expression is one)

@dataclass(frozen=True)
class Fmt:
    """A value written into a text (`Str.parts`), as its type is written
    (a card by its name, a list joined with commas)."""
    value: Expr
    type: str


@dataclass(frozen=True)
class Option:
    """A menu's option: its label, the test that opens it (none: always
    open), the reason shown while it is not, and the op its body starts at."""
    label: Expr
    test: Expr | None
    reason: Expr | None
    to: int


@dataclass(frozen=True)
class OptionsFor:
    """A menu's options once for each item of a list, the item in `var`."""
    var: str
    items: Expr
    options: list[MenuItem]


@dataclass(frozen=True)
class OptionsIf:
    """A menu's options, offered only while a test holds."""
    test: Expr
    options: list[MenuItem]


MenuItem = Option | OptionsFor | OptionsIf


# ---------------------------------------------------------------- ops

@dataclass(frozen=True)
class LetOp(Op):
    """`let var = value`."""
    var: Name
    value: E


@dataclass(frozen=True)
class RandomOp(Op):
    """`let var = random c in items where test`."""
    var: Name
    items: E
    cvar: Name
    where: OptE


@dataclass(frozen=True)
class AskOp(Op):
    """A yes-or-no question to a player."""
    var: Name
    player: E
    prompt: OptE


@dataclass(frozen=True)
class ChooseOp(Op):
    """`let var = choose c in items where … by player prompt …` (optional: may pass)."""
    var: Name
    items: E
    cvar: Name
    where: OptE
    player: E
    optional: Flag
    prompt: OptE
    type: TypeName


@dataclass(frozen=True)
class WindowOp(Op):
    """Open a reaction window and keep its event in `var`."""
    var: Name
    tag: Name
    players: E
    fields: KwEs


@dataclass(frozen=True)
class SetOp(Op):
    """Write a counter or the turn order."""
    target: E
    operator: Annotated[str, one_of("=", "+=", "-=")]
    value: E


@dataclass(frozen=True)
class CallOp(Op):
    """Run a procedure."""
    procedure: Name
    args: Es


@dataclass(frozen=True)
class MoveOp(Op):
    """Move cards to a zone."""
    cards: E
    to: E
    place: Annotated[str, one_of("top", "bottom")]
    many: Flag


@dataclass(frozen=True)
class ShuffleOp(Op):
    """Shuffle a zone."""
    zone: E


@dataclass(frozen=True)
class AttachOp(Op):
    """Attach a card to a host card."""
    card: E
    host: E


@dataclass(frozen=True)
class DetachOp(Op):
    """Detach a card from its host."""
    card: E


@dataclass(frozen=True)
class RevealOp(Op):
    """Show a card to a player."""
    card: E
    player: E


@dataclass(frozen=True)
class JumpOp(Op):
    """Go on at another op."""
    to: Pc


@dataclass(frozen=True)
class ReturnOp(Op):
    """End the block."""


@dataclass(frozen=True)
class LogOp(Op):
    """Write a line of the game's log."""
    text: E


@dataclass(frozen=True)
class ResolveOp(Op):
    """Run a card's effect."""
    card: E


@dataclass(frozen=True)
class TriggerOp(Op):
    """Run every hook of an event."""
    event: Name
    args: KwEs


@dataclass(frozen=True)
class EndOp(Op):
    """End the game (with the winners, or by the scoring)."""
    winners: OptE


@dataclass(frozen=True)
class AssertOp(Op):
    """Fail with a message unless a test holds."""
    test: E
    message: E


@dataclass(frozen=True)
class CancelOp(Op):
    """Cancel a reaction window's event."""
    event: E


@dataclass(frozen=True)
class JfOp(Op):
    """Go on at `to` if the test is false."""
    test: E
    to: Pc


@dataclass(frozen=True)
class IterOp(Op):
    """Start a `for` loop: keep its list in `slot`."""
    slot: Name
    items: E


@dataclass(frozen=True)
class NextOp(Op):
    """A `for` loop's next turn: the next item in `var`, or on at `end`."""
    slot: Name
    var: Name
    end: Pc


@dataclass(frozen=True)
class RepeatOp(Op):
    """Start a `repeat n:` loop."""
    slot: Name
    times: E


@dataclass(frozen=True)
class CountdownOp(Op):
    """A `repeat` loop's next turn, or on at `end`."""
    slot: Name
    end: Pc


@dataclass(frozen=True)
class GuardOp(Op):
    """A `while` loop's count of its turns (it fails past the limit)."""
    slot: Name


@dataclass(frozen=True)
class PhaseOp(Op):
    """Name the phase of the turn."""
    phase: Name


@dataclass(frozen=True)
class MenuOp(Op):
    """Ask a player to pick one of a menu's open options."""
    player: E
    prompt: OptE
    items: Menu
    end: Pc


def _declare(cls: type[Node]) -> None:
    """Enter a kind's class in `OPS` or `EXPRS_`: its name is the class's,
    lower case and without `Op`; its fields and what each holds come from
    the annotations."""
    name = cls.__name__.lower().removesuffix("op")
    hints = get_type_hints(cls, include_extras=True)
    fields = tuple((f.name, hints[f.name].__metadata__[0]) for f in dataclasses.fields(cls))  # type: ignore[arg-type]
    cls.kind = name
    (OPS if cls.op else EXPRS_)[name] = Kind(name, cls.op, fields, cls, cls.__doc__ or "")


for _cls in [*Expr.__subclasses__(), *Op.__subclasses__()]:
    _declare(_cls)


# ---------------------------------------------------------------- JSON form

def parse(data: list, op: bool = False) -> Node:
    """The node of a bundle's positional list, an expression (or with `op`
    an op); its shape is assumed checked by the bundle schema: this only
    names the parts."""
    if not op and data[0] == "bin" and len(data) == 4:
        # `a + b + c + …` nests to the left, one level an operator: a long
        # chain is parsed in a loop, not a recursion as deep as it is long
        # (PyGen.e_bin writes it flat the same way)
        chain = []
        while isinstance(data, list) and data[:1] == ["bin"] and len(data) == 4:
            chain.append(data)
            data = data[2]
        node = cast(Expr, parse(data))
        for b in reversed(chain):
            node = Bin(b[1], node, cast(Expr, parse(b[3])))
        return node
    kind = (OPS if op else EXPRS_)[data[0]]
    values = [_parse_field(what, value) for (_, what), value in zip(kind.fields, data[1:], strict=True)]
    return kind.cls(*values)


def _parse_field(what, value):
    if value is None:
        return None
    if what in (EXPR, OPT_EXPR):
        return parse(value)
    if what == EXPRS:
        return [parse(x) for x in value]
    if what == KWEXPRS:
        return {k: parse(x) for k, x in value.items()}
    if what == TEXT:
        return [x if isinstance(x, str) else Fmt(cast(Expr, parse(x[1])), x[2]) for x in value]
    if what == MENU:
        return parse_menu(value)
    return value


def parse_menu(items: list) -> list[MenuItem]:
    """A menu's items (`["opt", label, test, reason, pc]`, `["for", var,
    items, sub]`, `["if", test, sub]`) as `Option`, `OptionsFor`, `OptionsIf`."""
    return [_parse_item(x) for x in items]


def _parse_item(item) -> MenuItem:
    if item[0] == "opt":
        return Option(cast(Expr, parse(item[1])), _parse_field(OPT_EXPR, item[2]), _parse_field(OPT_EXPR, item[3]),
                      item[4])
    if item[0] == "for":
        return OptionsFor(item[1], cast(Expr, parse(item[2])), parse_menu(item[3]))
    return OptionsIf(cast(Expr, parse(item[1])), parse_menu(item[2]))


def dump(node: Node) -> list:
    """The positional list of a node: what the bundle holds."""
    kind = (OPS if node.op else EXPRS_)[node.kind]
    return [node.kind] + [_dump_field(what, getattr(node, name)) for name, what in kind.fields]


def _dump_field(what, value):
    if value is None:
        return None
    if what in (EXPR, OPT_EXPR):
        return dump(value)
    if what == EXPRS:
        return [dump(x) for x in value]
    if what == KWEXPRS:
        return {k: dump(x) for k, x in value.items()}
    if what == TEXT:
        return [x if isinstance(x, str) else ["fmt", dump(x.value), x.type] for x in value]
    if what == MENU:
        return [_dump_item(x) for x in value]
    return value


def _dump_item(item: MenuItem) -> list:
    match item:
        case Option(label=label, test=test, reason=reason, to=to):
            return ["opt", dump(label), _dump_field(OPT_EXPR, test), _dump_field(OPT_EXPR, reason), to]
        case OptionsFor(var=var, items=items, options=options):
            return ["for", var, dump(items), [_dump_item(x) for x in options]]
    return ["if", dump(item.test), [_dump_item(x) for x in item.options]]


# ---------------------------------------------------------------- walking

def children(node: Node) -> Iterator[Expr]:
    """The nodes directly inside `node`, in field order."""
    kind = (OPS if node.op else EXPRS_)[node.kind]
    for name, what in kind.fields:
        value = getattr(node, name)
        if value is None:
            continue
        if what in (EXPR, OPT_EXPR):
            yield value
        elif what == EXPRS:
            yield from value
        elif what == KWEXPRS:
            yield from value.values()
        elif what == TEXT:
            yield from (x.value for x in value if isinstance(x, Fmt))
        elif what == MENU:
            yield from _menu_children(value)


def _menu_children(items: list[MenuItem]) -> Iterator[Expr]:
    for item in items:
        match item:
            case Option(label=label, test=test, reason=reason):
                yield from (x for x in (label, test, reason) if x is not None)
            case OptionsFor(items=of, options=options):
                yield of
                yield from _menu_children(options)
            case OptionsIf(test=test, options=options):
                yield test
                yield from _menu_children(options)


def menu_nodes(items: list[MenuItem]) -> Iterator[Node]:
    """Every node of a menu's items (`parse_menu`), and inside them."""
    for node in _menu_children(items):
        yield from walk(node)


def walk(node: Node):
    """`node` and every node inside it, depth first, with a stack (an
    expression nested thousands deep is walked without recursion)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(list(children(n))))


def transform(node: Node, f) -> Node:
    """A copy of `node` with each node directly inside it replaced by
    `f(node)`; names, constants and types as they were.  The one
    transformer of the typed form: a rewrite (`specialize`, substituting
    arguments) is `f` calling `transform` on what it does not change."""
    kind = (OPS if node.op else EXPRS_)[node.kind]
    return dataclasses.replace(node, **{  # type: ignore[type-var]
        name: _transform_field(what, getattr(node, name), f) for name, what in kind.fields})


def _transform_field(what, value, f):
    if value is None:
        return None
    if what in (EXPR, OPT_EXPR):
        return f(value)
    if what == EXPRS:
        return [f(x) for x in value]
    if what == KWEXPRS:
        return {k: f(x) for k, x in value.items()}
    if what == TEXT:
        return [x if isinstance(x, str) else Fmt(f(x.value), x.type) for x in value]
    if what == MENU:
        return [_transform_item(x, f) for x in value]
    return value


def _transform_item(item: MenuItem, f) -> MenuItem:
    match item:
        case Option(label=label, test=test, reason=reason, to=to):
            return Option(f(label), _transform_field(OPT_EXPR, test, f), _transform_field(OPT_EXPR, reason, f), to)
        case OptionsFor(var=var, items=items, options=options):
            return OptionsFor(var, f(items), [_transform_item(x, f) for x in options])
    return OptionsIf(f(item.test), [_transform_item(x, f) for x in item.options])


# ---------------------------------------------------------------- the typed form, rewritten

def substitute(node: Node, args: dict[str, Expr]) -> Node:
    """`node` with every `Var(name)` for a name of `args` replaced by that
    name's node (a parameter by its argument); a literal's value is a
    value, never a read, and is left as it is."""
    match node:
        case Var(name=name) if name in args:
            return args[name]
    return transform(node, lambda child: substitute(child, args))


def code_nodes(code: dict) -> Iterator[Node]:
    """The typed nodes of a bundle's `code`, each parsed here: the bodies of
    functions, the ops of blocks, `eval` and `score`, the checks of
    `constraints` and `invariants` (what `code_expressions` walks; `walk`
    each for the nodes inside)."""
    for entry in code.values():
        if isinstance(entry, dict) and "expr" in entry:
            yield parse(entry["expr"])
        elif isinstance(entry, dict) and "ops" in entry:
            yield from (parse(o, op=True) for o in entry["ops"])
        elif isinstance(entry, list) and entry and isinstance(entry[0], str):
            yield parse(entry)
        elif isinstance(entry, list):
            yield from (parse(check["expect"]) for check in entry)
