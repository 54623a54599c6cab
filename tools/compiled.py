"""What compiling the engine with Cython buys: a measurement, not a backend.

The compiled-engine issue asks for the runtime and each game's generated
code compiled together, and for 3x the hand-written reference engine.  This
builds both halves with Cython 3 (no source changed, no C types declared)
into a folder of its own and times random games against the pure-Python
engine:

- **runtime**: the engine's hand-written modules that run during play
  (RUNTIME) compiled in a copy of the package (`build-runtime DIR`; run
  this tool with `PYTHONPATH=DIR` to use it);
- **generated**: a game's generated functions, recorded as the engine
  compiles them (after every tree rewrite, `lower.py`), written out as one
  module, compiled, and loaded in place of the engine's own `exec` when a
  second load writes the very same source for the same name (a function
  written only during play, or differently, falls back to `exec`).

With `build-runtime --typed-state` the copy's state also gets its fields
declared on a compiled base class, and the generated functions' `st` that
class (`type_the_state`).  Games must be identical: each game's
`tools/digest.py` digest is printed for both engines.  Usage:

    python tools/compiled.py build-runtime /tmp/cy          # Cython's .so files beside a copy of cardc/
    PYTHONPATH=/tmp/cy python tools/compiled.py time generated/ipo.json --work /tmp/cygen
    PYTHONPATH=/tmp/cy python tools/compiled.py play generated/ipo.json --games 300 --generated
    PYTHONPATH=/tmp/cy python tools/compiled.py count generated/ipo.json    # callgrind

Results and what they mean: docs/history/compiled.md.

Needs Cython and a C compiler (`pip install cython`); nothing in cardc does.
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: the modules that run during play (profiled: cProfile of `cardc bench`)
RUNTIME = ["cardc.engine.state", "cardc.engine.interp", "cardc.engine.asking", "cardc.engine.table",
           "cardc.engine.writes", "cardc.engine.rng", "cardc.engine.builtins", "cardc.ir.builtins",
           "cardc.sim.bench"]

SETUP = """
import os
import sys
from setuptools import setup, Extension
from Cython.Build import cythonize
mods = sys.argv[1:]
sys.argv[1:] = ["build_ext", "--inplace"]
exts = [Extension(m, [m.replace(".", "/") + ".py"]) for m in mods]
setup(name="compiled", packages=[], py_modules=[],
      ext_modules=cythonize(exts, language_level=3, quiet=True, compiler_directives={"binding": True},
                            include_path=[p for p in os.environ.get("CARDC_RUNTIME", "").split(":") if p]))
"""


def cython_build(folder: Path, modules: list[str]) -> float:
    """Build `modules` (dotted names of .py files under `folder`) in place;
    the seconds it took."""
    setup = folder / "_compiled_setup.py"
    setup.write_text(SETUP)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, str(setup), *modules], cwd=folder, capture_output=True, text=True)
    if done.returncode:
        sys.exit(done.stdout[-3000:] + done.stderr[-3000:] + "\ncompiled.py: the build failed")
    return time.perf_counter() - start


def build_runtime(out: Path, typed_state: bool = False) -> None:
    root = Path(__file__).resolve().parent.parent
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(root / "cardc", out / "cardc", ignore=shutil.ignore_patterns("__pycache__"))
    modules = RUNTIME
    if typed_state:
        type_the_state(out / "cardc" / "engine")
        modules = ["cardc.engine.statedata"] + RUNTIME
    seconds = cython_build(out, modules)
    print(f"runtime: {len(RUNTIME)} modules compiled in {seconds:.0f} s into {out}")


def type_the_state(engine: Path) -> None:
    """`--typed-state`: the state's fields (its `__slots__`) declared on a
    compiled base class, `StateData` (a `.pxd` beside a `.py` of the same
    name), so that code that knows a value is a state reads a field at a
    fixed offset rather than by name.  The copy's `State` keeps its mixins
    and gains that base (an extension type may be one base among several)."""
    path = engine / "state.py"
    text = path.read_text()
    slots = re.search(r"    __slots__ = \((.*?)\)\n", text, re.S)
    names = [x.strip().strip('"') for x in slots.group(1).replace("\n", " ").split(",") if x.strip()]
    text = text.replace(slots.group(0), "    __slots__ = ()\n")
    text = text.replace("class State(Interpreter, Asking, Table, Writes):",
                        "class State(StateData, Interpreter, Asking, Table, Writes):")
    text = text.replace("from cardc.engine.writes import Writes",
                        "from cardc.engine.writes import Writes\nfrom cardc.engine.statedata import StateData")
    path.write_text(text)
    (engine / "statedata.py").write_text('"""The state\'s fields (tools/compiled.py)."""\n\n\n'
                                         'class StateData:\n    pass\n')
    (engine / "statedata.pxd").write_text("cdef class StateData:\n    cdef public object " + ", ".join(names) + "\n")


# ---------------------------------------------------------------- the generated half

class Recorder:
    """Patches the engine to keep each generated function's final tree."""

    def __init__(self):
        from cardc.engine import lower
        self.lower = lower
        self.trees: dict[str, ast.Module] = {}
        self.sources: dict[str, str] = {}

    def __enter__(self):
        real_compile = compile
        trees = self.trees

        def spy(source, filename, mode, *args, **kwargs):
            tree = source if isinstance(source, ast.AST) else ast.parse(source, filename)
            name = filename[len("<cardc "):-1]
            trees[name] = tree
            return real_compile(source, filename, mode, *args, **kwargs)
        self.lower.compile = spy
        return self

    def __exit__(self, *exc):
        del self.lower.compile


def module_text(trees: dict, typed: bool = False) -> str:
    """One module of every recorded function (the names it reads are the
    game namespace's, set before it runs)."""
    body = []
    for tree in trees.values():
        for node in tree.body:
            body.append(ast.fix_missing_locations(node))
    module = ast.Module(body=body, type_ignores=[])
    # Cython refuses a global it never sees assigned: the namespace's names
    # (bound objects, other functions) are declared first, then set on load
    defined = {n.name for n in body if isinstance(n, ast.FunctionDef)}
    read = sorted({n.id for n in ast.walk(module) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
                  - defined - set(dir(__builtins__)))
    declared = "".join(f"{name} = None\n" for name in read)
    if typed:
        # every generated function's first argument `st` is a state
        for node in body:
            if isinstance(node, ast.FunctionDef) and node.args.args and node.args.args[0].arg == "st":
                node.args.args[0].annotation = ast.Name("StateData", ast.Load())
        declared = "from cython.cimports.cardc.engine.statedata import StateData\n" + declared
    return declared + ast.unparse(module) + "\n"


def play(game, players: int, seeds) -> int:
    from cardc.sim.bench import random_game
    return sum(random_game(game, players, s).decisions for s in seeds)


def compiled_game(bundle: dict, work: Path, players: int):
    """A Game whose generated functions run compiled; the build's seconds."""
    from cardc.engine import Game
    from cardc.engine import pygen as pygen_module
    with Recorder() as rec:
        first = Game(bundle)
        play(first, players, range(3))              # functions written on first use, too
    work.mkdir(parents=True, exist_ok=True)
    recorded = {name: ast.dump(tree) for name, tree in rec.trees.items()}
    from cardc.engine import state
    typed = hasattr(state, "StateData")        # a runtime built with --typed-state
    text = module_text(rec.trees, typed)
    modname = "cardc_compiled_" + hashlib.sha256(text.encode()).hexdigest()[:12]
    seconds = 0.0
    if not list(work.glob(f"{modname}.cpython-*.so")):      # built before: the same text
        (work / f"{modname}.py").write_text(text)
        import cardc  # its .pxd files, for a typed state's cimport
        os.environ["CARDC_RUNTIME"] = str(Path(cardc.__file__).resolve().parent.parent)
        seconds = cython_build(work, [modname])
    spec = importlib.util.spec_from_file_location(
        modname, next(work.glob(f"{modname}.cpython-*.so")))
    module = importlib.util.module_from_spec(spec)
    namespace = module.__dict__
    real_init, real_exec = pygen_module.PyGen.__init__, pygen_module.PyGen.exec_source
    hits = [0, 0]

    def init(self, game):
        real_init(self, game)
        namespace.update(self.ns)
        self.ns = namespace

    def exec_source(self, name, source, origin=None, tree_pass=None):
        with Recorder() as again:
            fn = real_exec(self, name, source, origin, tree_pass)
        if name in namespace.get("_compiled_names", ()) and recorded.get(name) == ast.dump(again.trees[name]):
            hits[0] += 1
            # the exec above wrote its own function under this name: the
            # compiled one goes back, for every call made through the namespace
            namespace[name] = namespace["_compiled"][name]
            return namespace[name]
        hits[1] += 1
        return fn
    spec.loader.exec_module(module)
    namespace["_compiled"] = {n: namespace[n] for n in rec.trees if n in namespace}
    namespace["_compiled_names"] = set(namespace["_compiled"])
    pygen_module.PyGen.__init__, pygen_module.PyGen.exec_source = init, exec_source
    try:
        game = Game(bundle)
        play(game, players, range(3))
    finally:
        pygen_module.PyGen.__init__, pygen_module.PyGen.exec_source = real_init, real_exec
    return game, seconds, hits


def timed(game, players: int, seeds) -> float:
    """Decisions per CPU second over `seeds`."""
    start = time.process_time()
    decisions = play(game, players, seeds)
    return decisions / (time.process_time() - start)


def digest(game) -> str:
    """tools/digest.py's digest of many games (random and greedy)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import digest as digest_tool
    return digest_tool.digest(game)


def time_game(path: str, work: Path, players: int, rounds: int, games: int) -> None:
    from cardc.engine import Game, table
    with open(path, encoding="utf-8") as f:
        bundle = json.load(f)
    runtime = "compiled" if table.__file__.endswith(".so") else "pure"
    pure = Game(bundle)
    fast, seconds, hits = compiled_game(bundle, work, players)
    digests = digest(pure), digest(fast)
    ratios, base, comp = [], [], []
    for r in range(rounds):
        seeds = range(100 + r * games, 100 + (r + 1) * games)
        a = timed(pure, players, seeds)
        b = timed(fast, players, seeds)
        base.append(a)
        comp.append(b)
        ratios.append(b / a)
    print(f"{Path(path).stem}: runtime {runtime}; generated code compiled in {seconds:.0f} s (0: built before) "
          f"({hits[0]} functions compiled, {hits[1]} left to exec); digests {digests[0]} {digests[1]}")
    print(f"  decisions per CPU second: exec'd {statistics.median(base):,.0f}, compiled "
          f"{statistics.median(comp):,.0f}; ratio median {statistics.median(ratios):.2f} "
          f"(rounds {min(ratios):.2f}-{max(ratios):.2f})")


def play_only(path: str, games: int, players: int, generated: bool) -> None:
    """Games 100..100+games-1 (after the load and its first 3 games), for a
    count under valgrind or a timing: prints the decisions played and the
    CPU seconds they took."""
    from cardc.engine import Game
    with open(path, encoding="utf-8") as f:
        bundle = json.load(f)
    if generated:
        game, _, _ = compiled_game(bundle, Path(tempfile.gettempdir()) / "cardc-compiled", players)
    else:
        game = Game(bundle)
        play(game, players, range(3))
    start = time.process_time()
    decisions = play(game, players, range(100, 100 + games))
    print(decisions, time.process_time() - start)


def count(path: str, between: tuple[int, int], players: int, generated: bool) -> float:
    """Instructions a decision of the games between the two counts (the
    difference of two valgrind runs: what both pay, the loads, cancels)."""
    made = []
    for games in between:
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
               "play", path, "--games", str(games), "--players", str(players)] + (["--generated"] if generated else [])
        done = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
        if done.returncode:
            sys.exit(done.stderr[-3000:])
        collected = int(re.search(r"Collected : (\d+)", done.stderr).group(1))
        made.append((collected, int(done.stdout.split()[-2])))
    (i0, d0), (i1, d1) = made
    return (i1 - i0) / (d1 - d0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build-runtime")
    b.add_argument("out", type=Path)
    b.add_argument("--typed-state", action="store_true", help="the state's fields on a compiled base class")
    t = sub.add_parser("time")
    t.add_argument("bundle")
    t.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "cardc-compiled")
    t.add_argument("--players", type=int, default=4)
    t.add_argument("--rounds", type=int, default=5)
    t.add_argument("--games", type=int, default=40)
    p = sub.add_parser("play")
    p.add_argument("bundle")
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--generated", action="store_true", help="with the generated code compiled")
    c = sub.add_parser("count")
    c.add_argument("bundle")
    c.add_argument("--between", type=int, nargs=2, default=(5, 15))
    c.add_argument("--players", type=int, default=4)
    args = ap.parse_args()
    if args.cmd == "build-runtime":
        build_runtime(args.out, args.typed_state)
    elif args.cmd == "time":
        time_game(args.bundle, args.work, args.players, args.rounds, args.games)
    elif args.cmd == "play":
        play_only(args.bundle, args.games, args.players, args.generated)
    else:
        from cardc.engine import table
        runtime = "compiled" if table.__file__.endswith(".so") else "pure"
        for generated in (False, True):
            n = count(args.bundle, tuple(args.between), args.players, generated)
            how = "compiled" if generated else "exec'd"
            print(f"{Path(args.bundle).stem}: runtime {runtime}, generated code {how}: "
                  f"{n:,.0f} instructions a decision")


if __name__ == "__main__":
    main()
