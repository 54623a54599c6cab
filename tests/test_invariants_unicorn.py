"""Unicorn played thousands of times by random agents, on all cores: after
every action the content's `invariants:` (content/unicorn/game.yaml), the
engine's "every card in exactly one place" and the finish-line checks of
`invariant_runner.unicorn_rules` (a game ends only in the valuation phase of
a turn, with one winner at $1B - the player whose turn ended - or at the
content's frozen end; a player who completes a turn at $1B wins then) must
hold.  Run with -s to see the numbers."""
from __future__ import annotations

import time

from invariant_runner import Summary, run

GAMES_PER_COUNT = 700          # x 3 player counts = 2,100 games
SEED0 = 1


def test_unicorn_invariants_hold_in_random_games():
    start = time.time()
    total = Summary()
    lines = []
    for i, players in enumerate((3, 4, 5)):
        part = run("unicorn", [players], GAMES_PER_COUNT, seed0=SEED0 + i * GAMES_PER_COUNT,
                   extra="unicorn_rules")
        total.add(part)
        lines.append(f"  {players} players: {part.games} games, {part.winners} with a winner, "
                     f"{part.capped} capped, median {part.median_turns()} turns, "
                     f"endings {dict(sorted(part.endings.items()))}")
    took = time.time() - start
    print(f"\nunicorn invariants: {total.games} games in {took:.1f}s, "
          f"{total.winners} with a winner, {total.capped} capped, "
          f"median {total.median_turns()} turns\n" + "\n".join(lines))

    assert total.games == 3 * GAMES_PER_COUNT
    assert not total.problems, f"{len(total.problems)} games broke a rule:\n" + "\n".join(total.problems[:10])
    assert total.capped == 0, f"{total.capped} games reached the turn cap without an end"
    assert total.winners == total.games, "every game that ends has a winner (a $1B startup or the frozen end)"
    assert sum(total.endings.values()) == total.games
