"""Record the golden games: `python tests/golden/record.py` (from the repo root).

Each golden game is a replay (`<name>.json`: game, seed, players, agents,
actions) beside its full text log (`<name>.log`, exactly what `cardc replay`
prints).  `tests/test_golden.py` replays every one and compares the log byte
for byte: the proof that an engine change changed no game.  Re-record only
when a game's rules or content changed on purpose, and say so in the commit.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

#: (game, players, seed, agents): a few seeds, player counts and agents per game
GAMES = [
    ("unicorn", 3, 1, ["random"]), ("unicorn", 4, 2, ["random"]), ("unicorn", 5, 3, ["random"]),
    ("unicorn", 4, 4, ["greedy", "random"]), ("unicorn", 3, 5, ["greedy"]),
    ("startup", 2, 1, ["random"]), ("startup", 4, 2, ["random"]), ("startup", 5, 3, ["random"]),
    ("startup", 4, 4, ["greedy", "random"]), ("startup", 3, 5, ["greedy"]),
    ("ipo", 2, 1, ["random"]), ("ipo", 4, 2, ["random"]), ("ipo", 6, 3, ["random"]),
    ("ipo", 4, 4, ["greedy", "random"]), ("ipo", 3, 5, ["greedy"]),
]


def name_of(game, players, seed, agents):
    return f"{game}-{players}p-s{seed}-{'-'.join(agents)}"


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from cardc.engine import Game
    from cardc.sim.play import play, replay_record
    for game_id, players, seed, agents in GAMES:
        game = Game.load(ROOT / "generated" / f"{game_id}.json")
        result = play(game, players, seed, agents)
        name = name_of(game_id, players, seed, agents)
        record = replay_record(game, players, seed, result.actions, agents)
        (HERE / f"{name}.json").write_text(json.dumps(record) + "\n")
        (HERE / f"{name}.log").write_text("\n".join(result.lines) + "\n")
        print(f"{name}: {len(result.actions)} actions, {len(result.lines)} lines")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
