"""Bytecodes per decision, by function and by line, counted exactly.

A sampling profiler (py-spy) says where the time went, within a few
percent; `tools/instructions.py` says how much work there was in all.
This says which lines of the generated code and of the engine did it:
Python's tracer, asked for every opcode (`frame.f_trace_opcodes`), counts
the bytecodes each line runs.  The count is the same on every run, so a
change to the code generator can be judged line by line before it is
timed (the eleventh wave, docs/history/speed-waves.md, was found this way).  The
tracer makes the games some 30 times slower: use a few games.

    .venv/bin/python tools/bytecodes.py generated/startup.json 10
    .venv/bin/python tools/bytecodes.py generated/startup.json 10 --lines _menu
    .venv/bin/python tools/bytecodes.py generated/startup.json 10 --sites
    .venv/bin/python tools/bytecodes.py generated/startup.json 10 --made

`--sites` says over how many distinct bytecodes the work is spread (the
hot code's footprint), which on some processors costs as much as the count.
`--made` says which functions make objects, and how many a decision: on
Python 3.11 a list or dict built, a function made (every comprehension and
lambda makes one) or a generator started costs far more than its one
bytecode (the thirteenth wave, docs/history/speed-waves.md, was found this way).

Random agents, 4 players; games 0-2 are played first and not counted
(code compiled on first use), then games 3 .. 3+GAMES-1.  `--lines NAME`
lists the lines of every generated function whose name starts with NAME,
with their source.

The reference engine is counted the same way, with its own Python (the
anchor's virtualenv, which has no cardc dependencies: cardc is imported
only for a bundle), so a game's count can be put beside it:

    ~/.cache/anchor-venv/bin/python tools/bytecodes.py pyminion 5
    ~/.cache/anchor-venv/bin/python tools/bytecodes.py pyminion 5 --sites

(pyminion 0.4.0, four BigMoney bots, `../shared/bench/anchors/anchors.py`;
a decision is one call of a bot's decider, as `cardc bench --anchor` counts.)
"""
import argparse
import collections
import gc
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

#: the word that names the reference engine instead of a bundle
ANCHOR = "pyminion"


def load(bundle_path: str):
    from cardc.engine import Game  # here, so the anchor's Python can run this file
    return Game(json.loads(Path(bundle_path).read_text(encoding="utf-8")))


def play(game, seeds, players):
    """The bench's own random games (cardc.sim.bench.random_game)."""
    from cardc.sim.bench import random_game
    return sum(random_game(game, players, seed).decisions for seed in seeds)


def traced(game, games, players, key):
    """(decisions, Counter of key(frame) -> bytecodes run there): games 0-2
    played first, not counted (code compiled on first use), then the rest."""
    return traced_play(lambda: play(game, range(3), players),
                       lambda: play(game, range(3, 3 + games), players), key)


def anchor_games(games, anchors=None):
    """(warm-up, counted) for the reference engine: `traced_play`'s two
    plays, three games and then `games` games of four BigMoney bots."""
    import importlib.util
    folder = Path(anchors) if anchors else REPO.parent / "shared" / "bench" / "anchors"
    try:
        spec = importlib.util.spec_from_file_location("anchors", folder / "anchors.py")
        reference = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(reference)
        one_game = reference.pyminion_bigmoney(0)
    except (ImportError, OSError) as exc:
        raise SystemExit(f"no reference engine to count ({exc}): run this file with the anchor's "
                         f"Python (see {folder / 'README.md'})") from None
    return (lambda: sum(one_game() for _ in range(3)),
            lambda: sum(one_game() for _ in range(games)))


def traced_play(warm, run, key):
    """(decisions, Counter of key(frame) -> bytecodes run there) of `run()`,
    which plays and returns its decisions, after `warm()`, not counted."""
    counts = collections.Counter()

    def tracer(frame, event, arg):
        frame.f_trace_opcodes = True
        if event == "opcode":
            counts[key(frame)] += 1
        return tracer

    warm()
    # no collection while counting: a collection runs whatever Python hooks
    # are registered for it (a test library's), and they would be counted
    gc.collect()
    gc.disable()
    sys.settrace(tracer)
    try:
        decisions = run()
    finally:
        sys.settrace(None)
        gc.enable()
    return decisions, counts


def _key(sites):
    def key(frame):
        code = frame.f_code
        return ((code.co_filename, code.co_name, code.co_firstlineno, frame.f_lasti) if sites
                else (code.co_filename, code.co_name, frame.f_lineno))
    return key


def count(game, games, players, sites=False):
    """(decisions, Counter of (file, function, line) -> bytecodes); with
    `sites`, by bytecode instead of by line: (file, function, its first
    line, the bytecode's offset)."""
    return traced(game, games, players, _key(sites))


def count_anchor(games, sites=False, anchors=None):
    """`count` for the reference engine (`anchor_games`)."""
    return traced_play(*anchor_games(games, anchors), _key(sites))


SHARES = (0.5, 0.8, 0.9, 0.95, 0.99)

#: the opcodes that make an object (Python 3.11's names; RETURN_GENERATOR
#: starts a generator, MAKE_FUNCTION makes a comprehension's or a lambda's function)
MAKERS = {"BUILD_LIST", "BUILD_MAP", "BUILD_CONST_KEY_MAP", "BUILD_TUPLE", "BUILD_SET",
          "BUILD_SLICE", "BUILD_STRING", "MAKE_FUNCTION", "RETURN_GENERATOR"}


def made(game, games, players=4):
    """(decisions, Counter of (file, function, opcode) -> how many times an
    object-making opcode (MAKERS) ran), counted as `count` counts."""
    import dis
    codes = {}

    def key(frame):
        code = frame.f_code
        codes[id(code)] = code
        return id(code), frame.f_lasti

    decisions, at = traced(game, games, players, key)
    names, out = {}, collections.Counter()
    for (cid, offset), n in at.items():
        code = codes[cid]
        if cid not in names:
            names[cid] = {i.offset: i.opname for i in dis.get_instructions(code)}
        op = names[cid].get(offset)
        if op in MAKERS:
            file = code.co_filename
            out[(Path(file).name if not file.startswith("<") else file, code.co_name, op)] += n
    return decisions, out


def footprint(counts) -> dict:
    """{share: how few distinct bytecodes (sites) run that share of all the
    bytecodes run}.  Time per bytecode grows with this, not with the count:
    on the twelfth wave's machine, a statement among 350 distinct ones ran in
    12 ns, among 1,400 or more in 20-21 ns (docs/history/speed-waves.md, "Twelfth wave")."""
    total, run, out = sum(counts.values()), 0, {}
    for i, n in enumerate(sorted(counts.values(), reverse=True), 1):
        run += n
        for share in SHARES:
            if share not in out and run >= share * total:
                out[share] = i
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bundle", help=f"a bundle's JSON file, or {ANCHOR!r} for the reference engine")
    ap.add_argument("games", type=int)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--lines", metavar="NAME", help="the lines of generated functions named NAME…")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--sites", action="store_true",
                    help="how many distinct bytecodes run most of the work (the footprint)")
    ap.add_argument("--made", action="store_true",
                    help="which functions make objects (lists, dicts, functions, generators)")
    args = ap.parse_args(argv)
    if args.bundle == ANCHOR:
        if args.lines or args.made:
            ap.error(f"{ANCHOR}: only the count and --sites")
        decisions, counts = count_anchor(args.games, sites=args.sites)
        return report(decisions, counts, args.top, sites=args.sites)
    game = load(args.bundle)
    if args.made:
        decisions, counts = made(game, args.games, args.players)
        print(f"{decisions} decisions, {sum(counts.values()) / decisions:,.1f} objects made a decision")
        for (file, function, op), n in counts.most_common(args.top):
            print(f"{n / decisions:8.2f}  {op:20s} {function}  ({file})")
        return 0
    decisions, counts = count(game, args.games, args.players, sites=args.sites)
    if args.sites or not args.lines:
        return report(decisions, counts, args.top, sites=args.sites)
    print(f"{decisions} decisions, {sum(counts.values()) / decisions:,.0f} bytecodes a decision")
    sources = dict(game.pygen.sources)
    rows = collections.Counter()
    for (file, _, line), n in counts.items():
        name = file[len("<cardc "):-1] if file.startswith("<cardc ") else None
        if name and name.startswith(args.lines) and line:
            rows[(name, line)] += n
    for (name, line), n in rows.most_common(args.top):
        text = sources[name].split("\n")[line - 1].strip()
        print(f"{n / decisions:8.1f}  {name}:{line}  {text[:110]}")
    return 0


def report(decisions, counts, top, sites=False) -> int:
    """Print the count: by function, or (`sites`) the footprint."""
    total = sum(counts.values())
    if sites:
        print(f"{decisions} decisions, {total / decisions:,.0f} bytecodes a decision, "
              f"{len(counts):,} distinct bytecodes run")
        for share, n in footprint(counts).items():
            print(f"{share:4.0%} of the bytecodes run are {n:,} distinct ones")
        return 0
    print(f"{decisions} decisions, {total / decisions:,.0f} bytecodes a decision")
    by_function = collections.Counter()
    for (file, function, _), n in counts.items():
        by_function[(Path(file).name if not file.startswith("<") else file, function)] += n
    for (file, function), n in by_function.most_common(top):
        print(f"{n / decisions:8.1f}  {100 * n / total:5.1f}%  {function}  ({file})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
