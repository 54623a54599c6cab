"""The call graph of a game's content, built once from its IR.

Nodes are "fn:<name>" (a function), "proc:<name>" (a procedure),
"hook:<event>" (the game's hook of an event), "card:<id>:<event>" (a card's
hook) and "event:<event>" (an event that has hooks). Each node lists its
`Call`s: the functions a function's body calls, the procedures a block
calls and the events it triggers, and the hooks an event runs. A call is
`always` when it is made whenever its caller runs:

- in a block, the ops from its start before its first branch (`if`, a loop
  head, a menu, `return`, `end`), following plain jumps;
- in an expression, the parts always evaluated: not the branches of an
  `if`, not what follows the first operand of `and`/`or`, not a
  comprehension's item or test, and not a call's arguments (read as
  conditional, as the check of never-ending calls always did: reading them
  as always would report more cycles);
- an event always runs its hooks.

Two stages read it: the compiler's check that no cycle of `always` calls
exists (compiler/bounds.py), and the engine, which follows every call
between functions to know which are random or recursive (engine/game.py).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from cardc.ir.builtins import RANDOM
from cardc.ir.jsonform import json_fields
from cardc.ir.nodes import EXPR, EXPRS, KWEXPRS, OPT_EXPR
from cardc.load.diagnostics import Loc

#: the ops that end a block's unconditional start
BRANCHES = frozenset({"jf", "next", "countdown", "menu", "return", "end"})
NOWHERE = Loc("?", 0, 0)


@dataclass(frozen=True)
class Call:
    target: str          # "fn:x", "proc:x", "event:e", "hook:e", "card:<id>:<e>"
    loc: Loc             # where the call is written (a function's call: the function)
    always: bool         # made whenever the caller runs


def _children(e: list, always: bool) -> Iterator[tuple[object, bool]]:
    """The parts of expression `e`, each with whether it is evaluated
    whenever `e` is (and `e` is, when `always`)."""
    kind = e[0]
    if kind == "lit":
        return
    if kind == "if":
        yield e[1], always
        yield from ((x, False) for x in e[2:])
    elif kind in ("and", "or"):
        yield from ((x, False) for x in e[1][1:])
        yield from ((x, always) for x in e[1][:1])
    elif kind == "comp":
        yield from ((x, False) for i, x in enumerate(e[1:], 1) if i != 3)
        yield e[3], always
    elif kind == "str":
        yield from ((p[1], always) for p in e[1] if isinstance(p, list))
    else:
        for what, x in json_fields(e):
            if x is None:
                continue
            if what == EXPRS:
                yield from ((item, False) for item in x)      # a list of expressions: arguments
            elif what in (EXPR, OPT_EXPR):
                yield x, always
            elif what == KWEXPRS:
                yield from ((v, always) for v in x.values())


def expressions(ir) -> Iterator[tuple[list, bool]]:
    """Every expression node of `ir` with whether it is always evaluated,
    depth first (the order a cycle is reported in follows it)."""
    stack: list[tuple[object, bool]] = [(ir, True)]
    while stack:
        e, always = stack.pop()
        if isinstance(e, dict):
            stack.extend((v, always) for v in e.values())
            continue
        if not isinstance(e, list) or not e:
            continue
        if not isinstance(e[0], str):
            stack.extend((x, False) for x in e)
            continue
        yield e, always
        stack.extend(_children(e, always))


def expr_calls(ir, loc: Loc = NOWHERE) -> list[Call]:
    """The functions expression `ir` calls."""
    return [Call("fn:" + e[1], loc, always) for e, always in expressions(ir)
            if e[0] == "fn" and len(e) > 1 and isinstance(e[1], str)]


def calls_random(ir) -> bool:
    """Whether expression `ir` itself calls a random builtin."""
    return any(e[0] == "call" and len(e) > 1 and e[1] in RANDOM for e, _ in expressions(ir))


def block_calls(code: dict) -> list[Call]:
    """The procedures a block of ops calls and the events it triggers: the
    unconditional start first, in the order it runs, then the rest."""
    ops, src = code["ops"], code["src"]

    def call(pc: int, always: bool) -> Call | None:
        op = ops[pc]
        line, col = src[pc] if pc < len(src) else (0, 0)
        if op[0] == "call":
            return Call("proc:" + op[1], Loc(code["file"], line, col), always)
        if op[0] == "trigger":
            return Call("event:" + op[1], Loc(code["file"], line, col), always)
        return None
    start: dict[int, None] = {}         # the ops of the unconditional start, in the order they run
    pc = 0
    while 0 <= pc < len(ops) and pc not in start and ops[pc][0] not in BRANCHES:
        start[pc] = None
        pc = ops[pc][1] if ops[pc][0] == "jump" else pc + 1
    made = [call(pc, True) for pc in start] + [call(pc, False) for pc in range(len(ops)) if pc not in start]
    return [c for c in made if c is not None]


def call_graph(code: dict, cards: list, fn_locs: dict | None = None) -> dict[str, list[Call]]:
    """{node: its calls} for the bundle's `code` and `cards` (see the module
    docstring); `fn_locs`: where each function is written, for messages."""
    fn_locs = fn_locs or {}
    graph: dict[str, list[Call]] = {}
    for key, value in code.items():
        if key.startswith("fn:") and isinstance(value, dict):
            graph[key] = expr_calls(value.get("expr"), fn_locs.get(key[3:]) or NOWHERE)
        elif key.startswith(("proc:", "hook:")) and isinstance(value, dict) and "ops" in value:
            graph[key] = block_calls(value)
            if key.startswith("hook:"):
                graph.setdefault("event:" + key[5:], []).append(Call(key, Loc(value["file"], 0, 0), True))
    for card in cards:
        for event, block in (card.get("hooks") or {}).items():
            node = f"card:{card['id']}:{event}"
            graph[node] = block_calls(block)
            graph.setdefault("event:" + event, []).append(Call(node, Loc(block["file"], 0, 0), True))
    return graph


def function_calls(graph: dict[str, list[Call]]) -> dict[str, set[str]]:
    """{function: the functions its body calls, on any path}."""
    return {node[3:]: {c.target[3:] for c in calls if c.target.startswith("fn:")}
            for node, calls in graph.items() if node.startswith("fn:")}


def impure_functions(code: dict) -> set[str]:
    """Functions whose result depends on randomness (they call a random
    builtin, or such a function): never cached, never computed once for two uses."""
    calls = function_calls(call_graph(code, []))
    impure = {k[3:] for k, v in code.items()
              if k.startswith("fn:") and isinstance(v, dict) and calls_random(v.get("expr"))}
    changed = True
    while changed:
        changed = False
        for name, callees in calls.items():
            if name not in impure and callees & impure:
                impure.add(name)
                changed = True
    return impure


def recursive_functions(code: dict) -> set[str]:
    """Functions that can call themselves (directly or through others): each
    of their calls counts against the engine's step budget."""
    calls = function_calls(call_graph(code, []))
    out = set()
    for start in calls:
        seen: set[str] = set()
        todo = list(calls[start])
        while todo:
            f = todo.pop()
            if f == start:
                out.add(start)
                break
            if f not in seen and f in calls:
                seen.add(f)
                todo.extend(calls[f])
    return out
