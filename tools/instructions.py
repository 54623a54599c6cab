"""Instructions per decision of the engine, counted, not timed.

Wall-clock figures on a shared machine scatter by tens of percent; an
instruction count does not: the same bundle, seeds and Python give the same
count whatever else the machine runs.  So each engine change is measured
with it first, and `cardc bench --anchor` (ratios to a hand-written engine
in one run) gives the headline figures.  Run it twice under valgrind, with
0 games and with N, and divide the difference by the decisions:

    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        .venv/bin/python tools/instructions.py generated/ipo.json 0
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        .venv/bin/python tools/instructions.py generated/ipo.json 5

(`Collected :` in valgrind's output is the count; the last line printed
here is the number of decisions.)  Random agents, 4 players, seeds 0..N-1;
the bundle is read as JSON, without the schema check, so loading costs little.

Run both with `PYTHONHASHSEED=0`: Python's string-hash seed changes dict
layouts, and with them the count, by up to 1.5% between runs.  Counting
with 10 games and with 20 (games 10-19) leaves out what only the first games
pay (code compiled on first use, caches filling), which is what a long
simulation sees.
"""
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardc.engine import Game  # noqa: E402


def main(bundle_path: str, games: int, players: int = 4) -> int:
    game = Game(json.loads(Path(bundle_path).read_text(encoding="utf-8")))
    decisions = 0
    for seed in range(games):
        st = game.new_state(players, seed=seed)
        rnd = random.Random(seed)
        while not st.terminal:
            st.apply(rnd.randrange(len(st.pending.values)))
        decisions += st.decisions
    print(decisions)
    return 0


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: tools/instructions.py BUNDLE.json GAMES [PLAYERS]")
    sys.exit(main(sys.argv[1], int(sys.argv[2]), *(int(x) for x in sys.argv[3:])))
