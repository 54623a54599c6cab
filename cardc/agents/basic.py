"""The random and greedy agents, and what every agent shares.

An agent's `act(view)` gets a `SeatView` (cardc/agents/view.py): what its
seat may see, never the game itself.  Random is uniform over the legal
actions with its own seeded generator, so a game is reproducible.  Greedy
looks one step ahead: for each legal action it plays the action on one game
its seat might imagine (`view.resample`) and scores the position when the
next decision comes up with the game's own `eval` expression for its seat,
so a designer changes what "good" means in content, not in Python.
"""
from __future__ import annotations

import random

from cardc.agents.view import SeatView


class Agent:
    """Base of the agents: a name and a seeded generator of its own."""
    name = "agent"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def act(self, view, seat: int | None = None) -> int:
        """The action to take.  Callers pass a SeatView; older callers that
        pass (state, seat) get one made for them, so the choice itself
        (`choose`) still sees only the seat's view."""
        if seat is not None:
            view = SeatView(view, seat)
        return self.choose(view)

    def choose(self, view: SeatView) -> int:
        raise NotImplementedError


class RandomAgent(Agent):
    name = "random"

    def choose(self, view: SeatView) -> int:
        return self.rng.randrange(len(view.legal_actions()))


class GreedyAgent(Agent):
    name = "greedy"

    def choose(self, view: SeatView) -> int:
        n = len(view.legal_actions())
        if n == 1:
            return 0
        guess = view.resample(self.rng)
        seat = view.seat
        best, best_value = [], None
        for a in range(n):
            # the last look-ahead may use the guess itself: it is not needed after
            value = afterstate_value(guess if a == n - 1 else guess.clone(), a, seat)
            if best_value is None or value > best_value:
                best, best_value = [a], value
            elif value == best_value:
                best.append(a)
        return self.rng.choice(best)


def afterstate_value(world, action: int, seat: int) -> float:
    """The game's evaluation for `seat` after taking `action` in `world`
    (played on: pass a copy), with a win worth more than any position and a
    loss less."""
    world.apply(action, last=True)
    if world.terminal:
        if seat in world.winners:
            return float("inf")
        return float("-inf") if world.winners else world.evaluate(seat)
    return world.evaluate(seat)
