"""The IR's JSON form, as a bundle holds it, walked by the declarations of
`cardc/ir/nodes.py`: for the compiler, which writes this form, and for the
checks of a bundle as it arrives (`ir/schema.py`, `BlockGen._check`), which
read it before anything is made of it.  The engine reads typed nodes
(`nodes.parse`).  A literal's value, a name or a type is never taken for an
expression here: a literal list `["var", "p"]` (an enumeration's two
members) is not a read of `p`.
"""
from __future__ import annotations

from collections.abc import Iterator

from cardc.ir.nodes import EXPR, EXPRS, EXPRS_, KWEXPRS, MENU, OPS, OPT_EXPR, PC, TEXT


def json_children(ir: list, op: bool = False) -> Iterator[list]:
    """The expressions directly inside the positional list `ir` (an
    expression; with `op` an op), in field order.  A kind not declared
    here (the engine's own, `["arg", 0]`) has none."""
    if ir[0] == "fmt":                  # a text's part: ["fmt", expr, type]
        yield ir[1]
        return
    yield from _inside(json_fields(ir, op))


def json_fields(ir: list, op: bool = False) -> Iterator[tuple]:
    """(what the field holds, its value) for each field of the positional
    list `ir` (an expression; with `op` an op), in order: for a walker whose
    meaning differs per field.  A kind not declared here has none."""
    kind = (OPS if op else EXPRS_).get(ir[0])
    if kind is not None:
        yield from zip((what for _, what in kind.fields), ir[1:], strict=False)


def json_walk(ir: list, op: bool = False) -> Iterator[list]:
    """`ir` and every expression inside it, depth first, with a stack."""
    stack = [ir]
    first = op
    while stack:
        e = stack.pop()
        yield e
        stack.extend(reversed(list(json_children(e, first))))
        first = False










def code_expressions(code: dict) -> Iterator[list]:
    """Every expression of a bundle's `code`, and inside them: the bodies of
    functions, the ops of blocks, `eval` and `score`, the checks of
    `constraints` and `invariants`."""
    for entry in code.values():
        yield from entry_expressions(entry)


def entry_expressions(entry) -> Iterator[list]:
    """Every op and expression of one entry of a bundle's `code` (a block's
    ops, a function's body, an expression, a list of checks), and inside them."""
    if isinstance(entry, dict) and "expr" in entry:
        yield from json_walk(entry["expr"])
    elif isinstance(entry, dict) and "ops" in entry:
        for o in entry["ops"]:
            yield from json_walk(o, op=True)
    elif isinstance(entry, list) and entry and isinstance(entry[0], str):
        yield from json_walk(entry)
    elif isinstance(entry, list):
        for check in entry:
            yield from json_walk(check["expect"])


def card_expressions(card: dict) -> Iterator[list]:
    """Every op and expression of a compiled card: its effect's, reaction's
    and hooks' ops, its modifiers, its `requires` and reaction's `if` tests,
    and inside them."""
    if card.get("effect"):
        yield from entry_expressions(card["effect"])
    reaction = card.get("reaction") or {}
    if reaction.get("if"):
        yield from json_walk(reaction["if"])
    if reaction.get("effect"):
        yield from entry_expressions(reaction["effect"])
    for block in (card.get("hooks") or {}).values():
        yield from entry_expressions(block)
    for body in (card.get("modifiers") or {}).values():
        yield from json_walk(body)
    if card.get("requires"):
        yield from json_walk(card["requires"])


def _inside(fields):
    """The expressions held by (what the field holds, its value) pairs of
    the JSON form."""
    for what, value in fields:
        if value is None:
            continue
        if what in (EXPR, OPT_EXPR):
            yield value
        elif what == EXPRS:
            yield from value
        elif what == KWEXPRS:
            yield from value.values()
        elif what == TEXT:
            yield from (x[1] for x in value if not isinstance(x, str))
        elif what == MENU:
            yield from _item_nodes(value)


def _item_nodes(items):
    for item in items:
        if item[0] == "opt":
            yield from (x for x in item[1:4] if x is not None)
        elif item[0] == "for":
            yield item[2]
            yield from _item_nodes(item[3])
        else:
            yield item[1]
            yield from _item_nodes(item[2])


# ---------------------------------------------------------------- positions

def expr_fields(kind: str, op: bool = True) -> tuple[int, ...]:
    """The positions (in the JSON list) of a kind's expression fields."""
    return tuple(i + 1 for i, (_, what) in enumerate((OPS if op else EXPRS_)[kind].fields) if what in (EXPR, OPT_EXPR))


def list_fields(kind: str, op: bool = True) -> tuple[int, ...]:
    """The positions of a kind's lists of expressions."""
    return tuple(i + 1 for i, (_, what) in enumerate((OPS if op else EXPRS_)[kind].fields) if what == EXPRS)




def pc_fields(kind: str, op: bool = True) -> tuple[int, ...]:
    """The positions of a kind's jump targets."""
    return tuple(i + 1 for i, (_, what) in enumerate((OPS if op else EXPRS_)[kind].fields) if what == PC)
