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


def _imports(tree):
    """Every import statement of a module, at its top or inside a function,
    less those under `if TYPE_CHECKING:` (never run)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", None)) == "TYPE_CHECKING":
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _imported(name: str, node, is_package: bool, mods) -> list:
    """The cardc modules one import statement names (`from a import b`:
    the module a.b if there is one, else a)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = node.module or ""
    if node.level:                                   # from . import x, from ..y import z
        parts = name.split(".")[:None if is_package else -1]
        parts = parts[:len(parts) - node.level + 1]
        base = ".".join(parts + ([base] if base else []))
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]


def import_graph() -> dict:
    """module -> the cardc modules it imports, wherever in the file.  Importing
    a.b.c runs the packages a and a.b first, so those count too, unless the
    importer is inside them (its own packages are already under way)."""
    mods = _modules()
    graph = defaultdict(set)
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in _imports(tree):
            for target in _imported(name, node, path.name == "__init__.py", mods):
                parts = target.split(".")
                for i in range(1, len(parts) + 1):
                    step = ".".join(parts[:i])
                    if step in mods and step != name and (i == len(parts) or not name.startswith(step + ".")):
                        graph[name].add(step)
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


def test_cardc_has_no_import_cycle():
    found = cycles(import_graph())
    assert found == [], "import cycles (each a set of modules that import one another): " + "; ".join(
        " <-> ".join(c) for c in found)


def test_the_graph_sees_imports_inside_functions_and_skips_type_checking_ones():
    graph = import_graph()
    assert "cardc.engine.state" in graph["cardc.engine.game"]          # inside Game.new_state
    assert "cardc.testing.scenario" in graph["cardc.cli"]               # inside cmd_scenario
    assert "cardc.render.fonts" in graph["cardc.render.guide"]           # from .fonts import Fonts
    assert "cardc.render.pipeline" not in graph["cardc.render.guide"]    # only under TYPE_CHECKING
    assert "cardc.load" in graph["cardc.dsl.parser"], "cardc.load.paths runs the package cardc.load first"


def test_a_cycle_is_found_and_named():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_cardc_has_no_loose_modules_but_its_entry_points():
    """Every other module sits in the package of its stage (docs/layout.md)."""
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py", "cli.py"]


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
