"""Until-decisive sweeps: stop as soon as every difference is decided.

A sweep looks at its paired differences after 1, 2, 4, 8, ... batches of
games (doubling looks) until the budget (`--max-games`) is spent.  At each
look a difference the patterns name (`--decide-on`) is

* **changed** when its paired t test passes Holm's correction over every
  outcome difference of every variant (the report's family), at level
  alpha / looks;
* **unchanged** when its interval at level 1 - alpha / looks lies inside
  plus or minus the smallest difference that matters (`--detect`: points
  of a win rate, or a share of the baseline for other metrics);
* **open** otherwise.

The sweep stops when none is open.  Spending alpha evenly over the looks
planned (Bonferroni over looks) is the simplest sound group-sequential
design: whatever look it stops at, the chance of calling any difference
changed when none is stays at most alpha (5%), and for each difference the
chance of calling it unchanged when it really moves by the smallest
difference or more stays at most alpha.  Doubling looks keep their number
small (8 looks from 500 to 64,000 games), so each look's level is not far
from alpha.  The price: a sweep may need somewhat more games than one fixed
test of the same power; the report says how many were played and why it
stopped.
"""
from __future__ import annotations

import fnmatch
import math
from dataclasses import dataclass

from cardc.sim.intervals import t_quantile
from cardc.sim.stats import ALPHA, holm, is_rate

#: the smallest change that matters, by default: 5 points of a win rate...
DETECT_POINTS = 0.05
#: ...or 10% of the baseline value of any other metric (turns, scores)
DETECT_SHARE = 0.10
#: the budget: games per variant a sweep plays at most (`--max-games`)
BUDGET = 20_000


def look_sizes(first: int, budget: int) -> list[int]:
    """Games played at each look: first, 2*first, 4*first, ... then budget."""
    sizes, n = [], first
    while n < budget:
        sizes.append(n)
        n *= 2
    return sizes + [budget]


@dataclass(frozen=True)
class Design:
    """The sequential test of a sweep: how many looks, at what level, and
    the smallest difference that matters for each metric."""
    looks: int
    patterns: tuple[str, ...] = ("win.*",)
    alpha: float = ALPHA
    detect_points: float = DETECT_POINTS
    detect_share: float = DETECT_SHARE

    @property
    def level(self) -> float:
        """The level of each look's tests (alpha spent evenly over the looks)."""
        return self.alpha / self.looks

    def chosen(self, name: str) -> bool:
        return any(fnmatch.fnmatch(name, p) for p in self.patterns)

    def smallest(self, name: str, d: dict) -> float:
        """The smallest difference of this metric that matters."""
        if is_rate(name):
            return self.detect_points
        return self.detect_share * abs(d["base"]) or self.detect_share

    def verdicts(self, variants: list[dict]) -> list[dict]:
        """{metric: "changed" | "unchanged" | "open"} for each variant's
        `diffs` (summaries of paired differences), for the chosen metrics.
        Holm's correction runs over every difference given (the report's
        family of outcome metrics), so a verdict of "changed" is exactly
        the report's significance mark."""
        every = [(k, name, d) for k, diffs in enumerate(variants) for name, d in sorted(diffs.items())]
        tested = [(k, name, d) for k, name, d in every if d.get("p") is not None]
        adjusted = holm([d["p"] for _, _, d in tested], self.level)
        changed = {(k, name) for (k, name, _), p in zip(tested, adjusted, strict=True) if p < self.level}
        rows = [(k, name, d) for k, name, d in every if self.chosen(name)]
        out: list[dict] = [{} for _ in variants]
        for k, name, d in rows:
            if (k, name) in changed:
                out[k][name] = "changed"
            elif self.unchanged(name, d):
                out[k][name] = "unchanged"
            else:
                out[k][name] = "open"
        return out

    def unchanged(self, name: str, d: dict) -> bool:
        """The difference's interval at this design's level lies inside
        plus or minus the smallest difference that matters.  Where every
        pair agreed (sd 0, often a win rate over few games) there is no
        spread to build an interval on, and a zero-width one would call a
        real change unchanged: a win rate moves by `detect_points` only if
        at least that share of the pairs differ, so agreement is trusted
        after `agreeing_pairs` pairs, when a change that large would have
        shown in one of them but for a chance of at most the level."""
        if d["n"] < 2:
            return False
        if not d["sd"]:
            return d["n"] >= self.agreeing_pairs() and abs(d["diff"]) < self.smallest(name, d)
        return self.half_width(d) + abs(d["diff"]) < self.smallest(name, d)

    def agreeing_pairs(self) -> int:
        """The fewest pairs, all agreeing, that rule out a change of the
        smallest size: (1 - detect_points)^n <= level."""
        return math.ceil(math.log(self.level) / math.log(1 - self.detect_points))

    def half_width(self, d: dict) -> float:
        """Half the interval of a paired difference at this design's level."""
        return t_quantile(d["n"] - 1, 1 - self.level) * d["sd"] / math.sqrt(d["n"])

    def describe(self) -> str:
        return (f"until decisive: looks after doubling numbers of games, each at level "
                f"{100 * self.alpha:g}%/{self.looks} = {100 * self.level:.2g}% (Holm over the "
                f"differences); at most {100 * self.alpha:g}% chance of calling any difference "
                f"changed when none is, and for each difference at most {100 * self.alpha:g}% chance "
                f"of calling it unchanged when it moves by {100 * self.detect_points:g} points "
                f"(win rates) or {100 * self.detect_share:g}% (other metrics) or more; a "
                f"difference whose every pair agreed is called unchanged only after "
                f"{self.agreeing_pairs():,} pairs")
