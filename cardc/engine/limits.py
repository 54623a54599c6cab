"""The engine's run-time budgets: bounded work by design, not by luck.

`cardc check` refuses what it can prove unbounded (cardc/ir/content_limits.py); these
catch the rest while a game runs.  Each is far above what the shipped games
use (the figure in brackets: the most seen in 180 random games of each, at
the fewest and the most players), so a real game
never meets one, and each failure is an EngineFault located at the statement
that ran over, naming the procedure and the cards being resolved.

A game may raise a budget in game.yaml (`limits: {steps: …}`) up to the hard
ceiling below, never past it: a shared game must not be able to switch the
guard off.
"""
from __future__ import annotations

from dataclasses import dataclass

#: (default, hard ceiling) of each budget
STEPS = (1_000_000, 50_000_000)     # loop turns, procedure calls and recursive function
                                    # calls between two decisions (shipped: 124)
DEPTH = (200, 2_000)                # procedures and hooks running inside each other (shipped: 9)
DIGITS = (30, 1_000)                # decimal digits of a number kept in a counter or a local
                                    # (shipped: 6); ~10^30 is beyond any game's money


@dataclass(frozen=True)
class Limits:
    steps: int = STEPS[0]
    depth: int = DEPTH[0]
    digits: int = DIGITS[0]

    @property
    def max_int(self) -> int:
        return 10 ** self.digits - 1

    @classmethod
    def of(cls, spec: dict | None) -> Limits:
        """The budgets a bundle asks for, each within its ceiling (an out-of-range
        value is refused: BadBundle names it)."""
        from cardc.engine.errors import BadBundle
        spec = spec or {}
        out = {}
        for name, (default, ceiling) in (("steps", STEPS), ("depth", DEPTH), ("digits", DIGITS)):
            value = spec.get(name, default)
            if type(value) is not int or not 1 <= value <= ceiling:
                raise BadBundle(f"limits.{name}: {value!r} is not a whole number from 1 to {ceiling:,}")
            out[name] = value
        unknown = sorted(set(spec) - set(out))
        if unknown:
            raise BadBundle(f"limits: unknown budget `{unknown[0]}` (budgets: steps, depth, digits)")
        return cls(**out)
