"""Instructions per decision of the engine, counted, not timed.

Wall-clock figures on a shared machine scatter by tens of percent; an
instruction count does not: the same bundle, seeds and Python give the same
count whatever else the machine runs.  So each engine change is measured
with it first, and `cardc bench --anchor` (ratios to a hand-written engine
in one run) gives the headline figures.

    .venv/bin/python tools/instructions.py generated/ipo.json --between 10 20

runs this script twice under valgrind (`--tool=callgrind`, with
`PYTHONHASHSEED=0`), playing games 0..9 and then 0..19, and prints the
instructions a decision of games 10-19: the difference of the two counts
over the difference of the decisions.  Leaving out the first games leaves
out what only they pay (code compiled on first use, caches filling and
settling), which is what a long simulation sees.  Python's string-hash
seed changes dict layouts, and with them the count, by up to 1.5% between
runs: hence the fixed seed.

Without `--between` it plays GAMES games and prints their decisions, for a
run under valgrind by hand (`Collected :` in valgrind's output is the
count).  Random agents, 4 players, seeds 0..N-1; the bundle is read as
JSON, without the schema check, so loading costs little.
"""
import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardc.engine import Game  # noqa: E402
from cardc.sim.bench import random_game  # noqa: E402


def play(bundle_path: str, games: int, players: int = 4) -> int:
    """Decisions in `games` random games, seeds 0..games-1."""
    game = Game(json.loads(Path(bundle_path).read_text(encoding="utf-8")))
    # the bench's own random games (cardc.sim.bench.random_game), counted as it plays them
    return sum(random_game(game, players, seed).decisions for seed in range(games))


def counted(output: str) -> tuple[int, int]:
    """(instructions, decisions) from a run under valgrind: its `Collected :`
    line and the decisions this script printed last."""
    found = re.search(r"Collected\s*:\s*(\d+)", output)
    numbers = re.findall(r"^(\d+)$", output, re.MULTILINE)
    if not found or not numbers:
        raise SystemExit(f"no count in valgrind's output:\n{output[-600:]}")
    return int(found.group(1)), int(numbers[-1])


def per_decision(first: tuple[int, int], second: tuple[int, int]) -> float:
    """Instructions a decision of the games the second run played beyond the first."""
    (c1, d1), (c2, d2) = first, second
    if d2 <= d1:
        raise SystemExit("the second run must play more games than the first")
    return (c2 - c1) / (d2 - d1)


def under_valgrind(bundle_path: str, games: int, players: int) -> tuple[int, int]:
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
           sys.executable, __file__, bundle_path, str(games), str(players)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=False,
                             env={**os.environ, "PYTHONHASHSEED": "0"})
    except FileNotFoundError:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)") from None
    return counted(out.stdout + out.stderr)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bundle")
    ap.add_argument("games", type=int, nargs="?", help="games to play (without --between)")
    ap.add_argument("players", type=int, nargs="?", default=4)
    ap.add_argument("--between", type=int, nargs=2, metavar=("A", "B"),
                    help="instructions a decision of games A..B-1, counted under valgrind")
    args = ap.parse_args(argv)
    if args.between:
        a, b = args.between
        result = per_decision(under_valgrind(args.bundle, a, args.players),
                              under_valgrind(args.bundle, b, args.players))
        print(f"{Path(args.bundle).stem}: {result / 1000:.2f}k instructions a decision "
              f"(games {a}-{b - 1}, {args.players} players, PYTHONHASHSEED=0)")
        return 0
    if args.games is None:
        ap.error("say how many games, or --between A B")
    print(play(args.bundle, args.games, args.players))
    return 0


if __name__ == "__main__":
    sys.exit(main())
