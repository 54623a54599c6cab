"""What the generated code's text costs at load, against building its trees.

The generator writes each function's source as text in its own vocabulary
(`cardc/engine/lower.py` parses it once; every rewrite is on the tree).  The
engine-core issue asked for the trees to be built directly.  This measures
what that would change in a game's load: the texts of every function one
load writes are recorded, then timed three ways, best of ROUNDS:

- `parse`: `ast.parse` of every text (what would go);
- `build`: the same trees made node by node in Python, by calling each
  node's class with its fields (a lower bound of what a generator building
  trees would spend: it makes at least these nodes, and decides too);
- `compile`: each tree to bytecode (paid either way).

    .venv/bin/python tools/tree_cost.py generated/ipo.json
"""
from __future__ import annotations

import argparse
import ast
import json
import time

from cardc.engine import pygen
from cardc.engine.game import Game

ROUNDS = 5


def recorded_sources(bundle: dict) -> list[tuple[str, str]]:
    """(source, filename) of every text one load of `bundle` lowers."""
    seen: list[tuple[str, str]] = []
    real = pygen.lower

    def spy(source, filename, *args, **kwargs):
        seen.append((source, filename))
        return real(source, filename, *args, **kwargs)
    pygen.lower = spy
    try:
        Game(bundle)
    finally:
        pygen.lower = real
    return seen


def rebuild(node):
    """A copy of `node` made node by node, as a generator building it would."""
    if isinstance(node, ast.AST):
        fields = {name: rebuild(getattr(node, name)) for name in node._fields if hasattr(node, name)}
        made = type(node)(**fields)
        for attr in node._attributes:
            if hasattr(node, attr):
                setattr(made, attr, getattr(node, attr))
        return made
    if isinstance(node, list):
        return [rebuild(x) for x in node]
    return node


def best(f) -> float:
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bundle")
    args = ap.parse_args()
    with open(args.bundle, encoding="utf-8") as f:
        bundle = json.load(f)
    sources = recorded_sources(bundle)
    trees = [ast.parse(s, name) for s, name in sources]
    load = best(lambda: Game(bundle))
    parse = best(lambda: [ast.parse(s, name) for s, name in sources])
    build = best(lambda: [rebuild(t) for t in trees])
    made = [rebuild(t) for t in trees]
    assert all(ast.dump(a) == ast.dump(b) for a, b in zip(trees, made, strict=True))
    comp = best(lambda: [compile(t, name, "exec") for t, (_, name) in zip(made, sources, strict=True)])
    nodes = sum(1 for t in trees for _ in ast.walk(t))
    print(f"{args.bundle}: {len(sources)} texts, {sum(map(len, (s for s, _ in sources))):,} characters, "
          f"{nodes:,} nodes; best of {ROUNDS}")
    for what, t in (("load", load), ("parse", parse), ("build", build), ("compile", comp)):
        print(f"  {what:8} {t * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
