"""The random and greedy agents.

Random is uniform over the legal actions with its own seeded generator, so
a game is reproducible.  Greedy looks one step ahead: for each legal action
it plays the action on a copy of the game as its seat might imagine it (the
cards it cannot see shuffled among the places it cannot see into, so it
never acts on hidden information) and scores the position when the next
decision comes up with the game's own `eval` expression for its seat, so a
designer changes what "good" means in content, not in Python.
"""
from __future__ import annotations

import random


class RandomAgent:
    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def act(self, st, seat: int) -> int:
        return self.rng.randrange(len(st.pending.values))


class GreedyAgent:
    name = "greedy"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def act(self, st, seat: int) -> int:
        n = len(st.pending.values)
        if n == 1:
            return 0
        guess = st.determinized(seat, self.rng)
        best, best_value = [], None
        for a in range(n):
            # the last look-ahead may use the guess itself: it is not needed after
            value = afterstate_value(guess, a, seat, in_place=(a == n - 1))
            if best_value is None or value > best_value:
                best, best_value = [a], value
            elif value == best_value:
                best.append(a)
        return self.rng.choice(best)


def afterstate_value(st, action: int, seat: int, in_place: bool = False) -> float:
    """The game's evaluation for `seat` after taking `action`, with a win
    worth more than any position and a loss less.  With `in_place`, `st`
    itself is played on (a throwaway copy the caller no longer needs)."""
    after = st if in_place else st.clone()
    after.log = None
    after.lookahead = True          # stop at the next menu without evaluating it
    after.apply(action)
    if after.terminal:
        if seat in after.winners:
            return float("inf")
        return float("-inf") if after.winners else after.evaluate(seat)
    return after.evaluate(seat)
