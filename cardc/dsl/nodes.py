"""Typed syntax-tree nodes of the effect language.

The parser turns Lark's tree into these small dataclasses; the checker and
the compiler only ever see them.  Every node keeps `pos`, the character
offset of its first token in the effect text, so an error can be mapped back
to the YAML file's line and column (see `cardc.dsl.parser.Source`).
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Node:
    pos: int = field(default=0, kw_only=True)
    end: int = field(default=0, kw_only=True)


# ------------------------------------------------------------------ expressions

class Expr(Node):
    pass


@dataclass
class Lit(Expr):
    value: object            # int, bool, None


@dataclass
class Str(Expr):
    parts: list              # str pieces and Expr interpolations, in order


@dataclass
class Name(Expr):
    name: str


@dataclass
class Attr(Expr):
    obj: Expr
    name: str


@dataclass
class Index(Expr):
    obj: Expr
    index: Expr


@dataclass
class Call(Expr):
    name: str
    args: list
    kwargs: dict             # name -> Expr


@dataclass
class BinOp(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass
class Compare(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass
class BoolOp(Expr):
    op: str                  # "and" | "or"
    values: list


@dataclass
class Not(Expr):
    value: Expr


@dataclass
class Neg(Expr):
    value: Expr


@dataclass
class IfExpr(Expr):
    cond: Expr
    then: Expr
    other: Expr


@dataclass
class ListLit(Expr):
    items: list


@dataclass
class ListComp(Expr):
    elt: Expr
    var: str
    iter: Expr
    cond: Expr | None


# ------------------------------------------------------- choices (right-hand sides)

@dataclass
class Choose(Node):
    var: str
    iter: Expr
    where: Expr | None
    by: Expr | None
    optional: bool
    prompt: Str | None


@dataclass
class Random(Node):
    var: str
    iter: Expr
    where: Expr | None


@dataclass
class Ask(Node):
    player: Expr
    prompt: Str


@dataclass
class Window(Node):
    tag: str
    players: Expr
    fields: dict             # name -> Expr


# ------------------------------------------------------------------ statements

class Stmt(Node):
    pass


@dataclass
class Let(Stmt):
    name: str
    value: object            # Expr | Choose | Random | Ask | Window


@dataclass
class Assign(Stmt):
    target: Expr
    op: str                  # "=", "+=", "-="
    value: object


@dataclass
class ExprStmt(Stmt):
    expr: Expr               # a proc call


@dataclass
class Move(Stmt):
    cards: Expr
    zone: Expr
    place: str               # "top" | "bottom"


@dataclass
class Shuffle(Stmt):
    zone: Expr


@dataclass
class Attach(Stmt):
    card: Expr
    host: Expr


@dataclass
class Detach(Stmt):
    card: Expr


@dataclass
class Reveal(Stmt):
    cards: Expr
    to: Expr


@dataclass
class Break(Stmt):
    pass


@dataclass
class Return(Stmt):
    value: Expr | None


@dataclass
class Log(Stmt):
    message: Str


@dataclass
class Resolve(Stmt):
    card: Expr


@dataclass
class Trigger(Stmt):
    event: str
    args: dict


@dataclass
class EndGame(Stmt):
    winners: Expr | None


@dataclass
class Assert(Stmt):
    cond: Expr
    message: Str


@dataclass
class Cancel(Stmt):
    event: Expr


@dataclass
class Pass(Stmt):
    pass


@dataclass
class If(Stmt):
    branches: list           # [(cond, body)]
    other: list | None


@dataclass
class For(Stmt):
    var: str
    iter: Expr
    body: list


@dataclass
class Repeat(Stmt):
    count: Expr
    body: list


@dataclass
class While(Stmt):
    cond: Expr
    body: list


@dataclass
class Phase(Stmt):
    name: str
    body: list


@dataclass
class Menu(Stmt):
    by: Expr | None
    prompt: Str | None
    items: list              # MenuOption | MenuFor | MenuIf


@dataclass
class MenuOption(Node):
    label: Str
    cond: Expr | None
    reason: Str | None
    body: list


@dataclass
class MenuFor(Node):
    var: str
    iter: Expr
    items: list


@dataclass
class MenuIf(Node):
    cond: Expr
    items: list
    elifs: list = field(default_factory=list)     # [(cond, items)], each tried when those above fail
    other: list | None = None                     # the `else:` items
