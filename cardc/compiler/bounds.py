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
depth limit bounds it at run time. The calls are the content's one call
graph (cardc/ir/calls.py), its `always` edges.
"""
from __future__ import annotations

from cardc.ir.calls import Call, call_graph


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
    graph = {node: [c for c in calls if c.always] for node, calls in call_graph(code, cards, fn_locs).items()}
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
    parent: dict[str, tuple[str, Call]] = {}
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
