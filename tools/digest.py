"""One digest per game of many complete games: run it before and after an
engine change, and the two outputs must be the same.

The golden games (tests/golden/) pin a few recorded games byte for byte; an
engine change that should change nothing is checked wider with this: 12
random games at each of two player counts and 2 greedy games (look-ahead,
copies of the state, guesses at hidden cards), each game's saved state and
log hashed in order.  Every speed wave (docs/history/speed-waves.md) was checked this way.

    .venv/bin/python tools/digest.py                # the shipped games
    .venv/bin/python tools/digest.py generated/mine.json --random 30 --greedy 0
"""
import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cardc.agents import make_agent  # noqa: E402
from cardc.engine import Game  # noqa: E402


def digest(game, randoms=12, greedies=2, counts=None) -> str:
    """The sha256 (16 hex digits) of the games' states and logs, in order."""
    h = hashlib.sha256()

    def add(st):
        h.update(json.dumps(st.to_json(), sort_keys=True, default=str).encode())
        h.update(json.dumps(st.log, default=str).encode())

    counts = counts or sorted({min(max(3, game.min_players), game.max_players), game.max_players})
    for players in counts:
        for seed in range(randoms):
            st = game.new_state(players, seed=seed, log=True)
            rnd = random.Random(seed)
            while not st.terminal:
                st.apply(rnd.randrange(len(st.pending.values)))
            add(st)
    for seed in range(greedies):
        players = counts[-1]
        st = game.new_state(players, seed=seed, log=True)
        agents = [make_agent("greedy", seed * 100 + i) for i in range(players)]
        while not st.terminal:
            st.apply(agents[st.pending.player].act(st, st.pending.player))
        add(st)
    return h.hexdigest()[:16]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bundles", nargs="*", help="bundle files (default: the three shipped games)")
    ap.add_argument("--random", type=int, default=12, help="random games per player count")
    ap.add_argument("--greedy", type=int, default=2, help="greedy games")
    args = ap.parse_args(argv)
    paths = [Path(b) for b in args.bundles] or \
        [ROOT / "generated" / f"{name}.json" for name in ("unicorn", "startup", "ipo")]
    for path in paths:
        game = Game(json.loads(path.read_text(encoding="utf-8")))
        print(f"{path.stem} {digest(game, args.random, args.greedy)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
