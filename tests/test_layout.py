"""The package's shape: no import cycles among cardc's modules (an import
inside a function counts too), so each stage can be read, and loaded, on
its own."""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).parent.parent / "cardc"


def _modules() -> dict:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = path
    return out


def import_graph() -> dict:
    """module -> the cardc modules it imports, wherever in the file."""
    mods = _modules()
    graph = defaultdict(set)
    for name, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("cardc"):
                names = {f"{node.module}.{a.name}" for a in node.names} & set(mods)
                graph[name] |= names or ({node.module} & set(mods))
            elif isinstance(node, ast.Import):
                graph[name] |= {a.name for a in node.names} & set(mods)
    return graph


def cycles(graph) -> list:
    """The strongly connected parts of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_engine_has_no_import_cycle():
    assert [c for c in cycles(import_graph()) if any(m.startswith("cardc.engine") for m in c)] == []


def test_the_ir_imports_neither_the_compiler_nor_the_engine():
    graph = import_graph()
    for name, targets in graph.items():
        if name.startswith("cardc.ir"):
            assert not {t for t in targets if t.startswith(("cardc.compiler", "cardc.engine", "cardc.render"))}, name


def test_the_compiler_imports_neither_the_engine_nor_the_renderer():
    """The compiler turns content into a bundle; running it (constraints) and
    drawing it are later stages (project.compile_checked)."""
    graph = import_graph()
    for name, targets in graph.items():
        if name.startswith("cardc.compiler"):
            assert not {t for t in targets if t.startswith(("cardc.engine", "cardc.render"))}, name
