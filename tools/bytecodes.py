"""Bytecodes per decision, by function and by line, counted exactly.

A sampling profiler (py-spy) says where the time went, within a few
percent; `tools/instructions.py` says how much work there was in all.
This says which lines of the generated code and of the engine did it:
Python's tracer, asked for every opcode (`frame.f_trace_opcodes`), counts
the bytecodes each line runs.  The count is the same on every run, so a
change to the code generator can be judged line by line before it is
timed (the eleventh wave of DESIGN.md "Speed" was found this way).  The
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
bytecode (the thirteenth wave of DESIGN.md "Speed" was found this way).

Random agents, 4 players; games 0-2 are played first and not counted
(code compiled on first use), then games 3 .. 3+GAMES-1.  `--lines NAME`
lists the lines of every generated function whose name starts with NAME,
with their source.
"""
import argparse
import collections
import gc
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardc.engine import Game  # noqa: E402


def play(game, seeds, players):
    decisions = 0
    for seed in seeds:
        st = game.new_state(players, seed=seed)
        rnd = random.Random(seed)
        while not st.terminal:
            st.apply(rnd.randrange(len(st.pending.values)))
        decisions += st.decisions
    return decisions


def traced(game, games, players, key):
    """(decisions, Counter of key(frame) -> bytecodes run there): games 0-2
    played first, not counted (code compiled on first use), then the rest."""
    counts = collections.Counter()

    def tracer(frame, event, arg):
        frame.f_trace_opcodes = True
        if event == "opcode":
            counts[key(frame)] += 1
        return tracer

    play(game, range(3), players)
    # no collection while counting: a collection runs whatever Python hooks
    # are registered for it (a test library's), and they would be counted
    gc.collect()
    gc.disable()
    sys.settrace(tracer)
    try:
        decisions = play(game, range(3, 3 + games), players)
    finally:
        sys.settrace(None)
        gc.enable()
    return decisions, counts


def count(game, games, players, sites=False):
    """(decisions, Counter of (file, function, line) -> bytecodes); with
    `sites`, by bytecode instead of by line: (file, function, its first
    line, the bytecode's offset)."""
    def key(frame):
        code = frame.f_code
        return ((code.co_filename, code.co_name, code.co_firstlineno, frame.f_lasti) if sites
                else (code.co_filename, code.co_name, frame.f_lineno))
    return traced(game, games, players, key)


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
    12 ns, among 1,400 or more in 20-21 ns (DESIGN.md, "Twelfth wave")."""
    total, run, out = sum(counts.values()), 0, {}
    for i, n in enumerate(sorted(counts.values(), reverse=True), 1):
        run += n
        for share in SHARES:
            if share not in out and run >= share * total:
                out[share] = i
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bundle")
    ap.add_argument("games", type=int)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--lines", metavar="NAME", help="the lines of generated functions named NAME…")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--sites", action="store_true",
                    help="how many distinct bytecodes run most of the work (the footprint)")
    ap.add_argument("--made", action="store_true",
                    help="which functions make objects (lists, dicts, functions, generators)")
    args = ap.parse_args(argv)
    game = Game(json.loads(Path(args.bundle).read_text(encoding="utf-8")))
    if args.made:
        decisions, counts = made(game, args.games, args.players)
        print(f"{decisions} decisions, {sum(counts.values()) / decisions:,.1f} objects made a decision")
        for (file, function, op), n in counts.most_common(args.top):
            print(f"{n / decisions:8.2f}  {op:20s} {function}  ({file})")
        return 0
    if args.sites:
        decisions, counts = count(game, args.games, args.players, sites=True)
        shares = footprint(counts)
        print(f"{decisions} decisions, {sum(counts.values()) / decisions:,.0f} bytecodes a decision, "
              f"{len(counts):,} distinct bytecodes run")
        for share, n in shares.items():
            print(f"{share:4.0%} of the bytecodes run are {n:,} distinct ones")
        return 0
    decisions, counts = count(game, args.games, args.players)
    total = sum(counts.values())
    print(f"{decisions} decisions, {total / decisions:,.0f} bytecodes a decision")
    if args.lines:
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
    by_function = collections.Counter()
    for (file, function, _), n in counts.items():
        by_function[(Path(file).name if not file.startswith("<") else file, function)] += n
    for (file, function), n in by_function.most_common(args.top):
        print(f"{n / decisions:8.1f}  {100 * n / total:5.1f}%  {function}  ({file})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
