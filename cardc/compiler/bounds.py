"""What `check` can prove never ends: a cycle of unconditional calls.

A procedure that calls itself (or two that call each other) before any
condition, a function whose value needs its own value, a hook that
triggers its own event on every path: each would run until the engine's
budget stops it, on every game that reaches it. Such a cycle is a content
error, reported at the call that closes it.

"Unconditional" is read off the compiled code: the ops a block runs from its
start before its first branch (`if`, a loop head, a menu, `return`, `end`),
and the parts of an expression always evaluated (not the branches of an
`if`, not what follows the first operand of `and`/`or`, not the body of a
comprehension). Recursion under a condition is allowed: the engine's call
depth limit bounds it at run time.
"""
from __future__ import annotations

from dataclasses import dataclass

from cardc.load.diagnostics import Loc

_BRANCHES = {"jf", "next", "countdown", "menu", "return", "end"}


@dataclass(frozen=True)
class Edge:
    target: str          # "proc:x", "fn:x", "event:e"
    loc: Loc


def _always_evaluated(ir):
    """The sub-expressions of `ir` that are evaluated whenever `ir` is."""
    stack = [ir]
    while stack:
        e = stack.pop()
        if not isinstance(e, list) or not e or not isinstance(e[0], str):
            continue
        yield e
        kind = e[0]
        if kind == "if":
            stack.append(e[1])
        elif kind in ("and", "or"):
            stack.extend(e[1][:1])
        elif kind == "comp":
            stack.append(e[3])
        elif kind == "str":
            stack.extend(p[1] for p in e[1] if isinstance(p, list))
        elif kind == "lit":
            continue
        else:
            for x in e[1:]:
                if isinstance(x, list):
                    stack.append(x)
                elif isinstance(x, dict):
                    stack.extend(x.values())


def _fn_calls(ir, loc):
    return [Edge("fn:" + e[1], loc) for e in _always_evaluated(ir) if e[0] == "fn"]


def _block_edges(code: dict) -> list[Edge]:
    ops, src = code["ops"], code["src"]
    edges, pc, seen = [], 0, set()
    while 0 <= pc < len(ops) and pc not in seen:
        seen.add(pc)
        op = ops[pc]
        line, col = src[pc] if pc < len(src) else (0, 0)
        loc = Loc(code["file"], line, col)
        kind = op[0]
        if kind in _BRANCHES:
            break
        if kind == "jump":
            pc = op[1]
            continue
        if kind == "call":
            edges.append(Edge("proc:" + op[1], loc))
        elif kind == "trigger":
            edges.append(Edge("event:" + op[1], loc))
        pc += 1
    return edges


def _names(node: str) -> str:
    kind, _, name = node.partition(":")
    if kind == "fn":
        return f"function `{name}`"
    if kind == "proc":
        return f"procedure `{name}`"
    if kind == "event":
        return f"event `{name}`"
    if kind == "hook":
        return f"the game's hook `{name}`"
    if kind == "card":
        card, _, event = name.partition(":")
        return f"card `{card}`'s hook `{event}`"
    return node


def check_unbounded(code: dict, cards: list, fn_locs: dict, diags) -> None:
    """Report each cycle of unconditional calls, triggers and hooks once."""
    graph: dict[str, list[Edge]] = {}
    for key, value in code.items():
        if key.startswith("fn:") and isinstance(value, dict):
            graph[key] = _fn_calls(value.get("expr"), fn_locs.get(key[3:]) or Loc("?", 0, 0))
        elif key.startswith(("proc:", "hook:")) and isinstance(value, dict) and "ops" in value:
            graph[key] = _block_edges(value)
            if key.startswith("hook:"):
                graph.setdefault("event:" + key[5:], []).append(Edge(key, Loc(value["file"], 0, 0)))
    for card in cards:
        for event, block in (card.get("hooks") or {}).items():
            node = f"card:{card['id']}:{event}"
            graph[node] = _block_edges(block)
            graph.setdefault("event:" + event, []).append(Edge(node, Loc(block["file"], 0, 0)))
    reported: set[frozenset] = set()
    for start in sorted(graph):
        cycle = _cycle_from(start, graph)
        if cycle is None or frozenset(n for n, _ in cycle) in reported:
            continue
        reported.add(frozenset(n for n, _ in cycle))
        path = " → ".join(_names(n) for n, _ in cycle) + " → " + _names(cycle[0][0])
        first = next((edge.loc for _, edge in cycle if edge.loc.line), cycle[0][1].loc)
        what = "calls itself" if start.startswith(("fn:", "proc:")) else "triggers itself"
        diags.error(first, f"{_names(start)} {what} on every path, so it would never end ({path})",
                    "put the call or trigger under a condition that becomes false")


def _cycle_from(start: str, graph) -> list | None:
    """A shortest cycle back to `start` along unconditional edges, as
    [(node, edge out of it), ...] (breadth first: no recursion, each node once)."""
    parent: dict[str, tuple[str, Edge]] = {}
    queue, seen = [start], {start}
    while queue:
        node = queue.pop(0)
        for edge in graph.get(node, ()):
            if edge.target == start:
                cycle = [(node, edge)]
                while node != start:
                    node, via = parent[node]
                    cycle.insert(0, (node, via))
                return cycle
            if edge.target in graph and edge.target not in seen:
                seen.add(edge.target)
                parent[edge.target] = (node, edge)
                queue.append(edge.target)
    return None
