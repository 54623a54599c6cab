"""Startup's invariants over many random games.

1,000 seeded random games at 2, 3, 4 and 5 players (250 each), every action
followed by the content's `invariants:` (content/startup/game.yaml), the
engine's "every card in exactly one place", and `startup_rules`
(tests/invariant_runner.py): the budgets at the start of every turn, the
hiring pool after every change, the C-Suite never growing, and the end after
the 4th funding round (quarter 16) with the right winners.
"""
from __future__ import annotations

import os

from invariant_runner import run

GAMES = 1000
PLAYERS = [2, 3, 4, 5]


def test_startup_invariants_hold_in_1000_random_games():
    summary = run("startup", PLAYERS, GAMES, seed0=0, extra="startup_rules",
                  workers=min(2, os.cpu_count() or 1))
    print(f"startup: {summary.games} games, median {summary.median_turns()} turns, "
          f"endings {summary.endings}, {len(summary.problems)} problems")
    assert summary.games == GAMES
    assert summary.problems == [], "\n".join(summary.problems[:20])
    assert summary.capped == 0
    assert summary.winners == GAMES
    assert "capped" not in summary.endings
