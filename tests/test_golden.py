"""Golden games: recorded games replayed and compared byte for byte.

Each `tests/golden/<name>.json` is a replay of a shipped game (random and
greedy agents, several seeds and player counts) and `<name>.log` its full
text log.  The replay must reproduce the log exactly: an engine change that
alters any decision, draw, label or log line of any of these games fails
here.  The bundle hash is not compared (a compiler change that leaves the
games alone is fine); `python tests/golden/record.py` re-records them when
the rules change on purpose.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardc.engine import Game
from cardc.sim.play import replay

GOLDEN = Path(__file__).parent / "golden"
ROOT = Path(__file__).parent.parent
CASES = sorted(p.stem for p in GOLDEN.glob("*.json"))


def test_every_shipped_game_has_golden_games():
    assert {c.split("-")[0] for c in CASES} >= {"unicorn", "startup", "ipo"}


@pytest.mark.parametrize("name", CASES)
def test_golden_game_replays_byte_for_byte(name):
    record = json.loads((GOLDEN / f"{name}.json").read_text())
    game = Game.load(ROOT / "generated" / f"{record['game']}.json")
    record["bundle"] = game.hash
    lines = replay(game, record).lines
    want = (GOLDEN / f"{name}.log").read_text()
    assert "\n".join(lines) + "\n" == want
