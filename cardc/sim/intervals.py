"""Counts that merge, and their 95% intervals: the building blocks of
`stats` and `quality`, in a module of their own so that both build on it
(`stats` holds a `quality.Quality` per player count, and `quality` counts
with these).

Wilson's interval for a proportion (honest near 0% and 100%), Newcombe's
for the difference of two, and Student's t for means: a `Moments` keeps a
mean and its variance as Welford running moments, merged with Chan's
formula, so chunks merged in game order give bit-identical sums.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

Z95 = 1.959963984540054
#: the level of every interval and test
ALPHA = 0.05

def wilson(k: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of k successes out of n."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # exact ends: 0 wins has a lower bound of 0, not 1e-18 of rounding
    return (0.0 if k == 0 else centre - half), (1.0 if k == n else centre + half)


def t_cdf_abs(t: float, df: int) -> float:
    """P(|T| <= t) for Student's T with `df` (a whole number) degrees of
    freedom: the closed forms of Abramowitz & Stegun 26.7.3 and 26.7.4,
    exact to rounding.  Past 100 degrees of freedom the normal's erf with the
    usual 1/df correction of the statistic is within 1e-6."""
    t = abs(t)
    if df > 100:
        z = t * (1 - 1 / (4 * df)) / math.sqrt(1 + t * t / (2 * df))
        return math.erf(z / math.sqrt(2))
    theta = math.atan(t / math.sqrt(df))
    c2, s = math.cos(theta) ** 2, math.sin(theta)
    if df % 2:
        term, total = math.cos(theta), 0.0
        for k in range(1, (df - 1) // 2 + 1):
            if k > 1:
                term *= c2 * (2 * k - 2) / (2 * k - 1)
            total += term
        return 2 / math.pi * (theta + s * total) if df > 1 else 2 * theta / math.pi
    term, total = 1.0, 1.0
    for k in range(1, df // 2):
        term *= c2 * (2 * k - 1) / (2 * k)
        total += term
    return s * total


@lru_cache(maxsize=4096)
def t_quantile(df: int, level: float = 1 - ALPHA) -> float:
    """The two-sided quantile: P(|T| <= q) = level (12.706 for df 1, 2.228
    for 10, 1.960 for very many).  Bisection on `t_cdf_abs`."""
    if df < 1:
        return math.inf
    lo, hi = 0.0, 1.0
    while t_cdf_abs(hi, df) < level:
        lo, hi = hi, hi * 2
    for _ in range(80):
        mid = (lo + hi) / 2
        if t_cdf_abs(mid, df) < level:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def t_p_value(t: float, df: int) -> float:
    """Two-sided p-value of a t statistic."""
    if df < 1:
        return 1.0
    return max(0.0, 1.0 - t_cdf_abs(t, df))


@dataclass
class Tally:
    """Wins out of trials, e.g. games seat 1 won out of games it sat in."""
    wins: int = 0
    trials: int = 0

    def add(self, won: bool) -> None:
        self.wins += bool(won)
        self.trials += 1

    def merge(self, other: Tally) -> None:
        self.wins += other.wins
        self.trials += other.trials

    @property
    def rate(self) -> float:
        return self.wins / self.trials if self.trials else 0.0

    def summary(self) -> dict:
        lo, hi = wilson(self.wins, self.trials)
        return {"wins": self.wins, "trials": self.trials, "rate": self.rate, "lo": lo, "hi": hi}


@dataclass
class Moments:
    """Count, mean and sum of squared deviations (Welford), merged with
    Chan's pairwise formula: a mean, its standard deviation and a t interval."""
    n: int = 0
    mean: float = 0.0
    m2: float = 0.0

    def add(self, x) -> None:
        self.n += 1
        d = x - self.mean
        self.mean += d / self.n
        self.m2 += d * (x - self.mean)

    def merge(self, other: Moments) -> None:
        if not other.n:
            return
        if not self.n:
            self.n, self.mean, self.m2 = other.n, other.mean, other.m2
            return
        n = self.n + other.n
        d = other.mean - self.mean
        self.mean += d * other.n / n
        self.m2 += other.m2 + d * d * self.n * other.n / n
        self.n = n

    @property
    def sd(self) -> float:
        return math.sqrt(max(0.0, self.m2) / (self.n - 1)) if self.n > 1 else 0.0

    def summary(self) -> dict:
        se = self.sd / math.sqrt(self.n) if self.n else 0.0
        half = t_quantile(self.n - 1) * se if self.n > 1 else 0.0
        out = {"n": self.n, "mean": self.mean, "sd": self.sd,
               "lo": self.mean - half, "hi": self.mean + half}
        if self.n > 1:
            out["p"] = (t_p_value(self.mean / se, self.n - 1) if se else
                        (1.0 if self.mean == 0 else 0.0))      # p of "the mean is 0"
        return out


def newcombe(k1: int, n1: int, k2: int, n2: int) -> dict:
    """p2 - p1 for two independent proportions with Newcombe's interval
    (built from the two Wilson intervals), sound near 0% and 100% where the
    normal approximation claims certainty from a handful of games."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1)
    l2, u2 = wilson(k2, n2)
    diff = p2 - p1
    lo = diff - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
    hi = diff + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    # the pooled two-proportion z test, for the correction over many rows
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    p = (1.0 - math.erf(abs(diff) / se / math.sqrt(2))) if se else (1.0 if diff == 0 else 0.0)
    return {"diff": diff, "lo": lo, "hi": hi, "p": p, "significant": lo > 0 or hi < 0}


def welch(a: dict, b: dict) -> dict:
    """B minus A for two independent summaries {n, mean, sd}: the difference,
    its 95% interval and p-value by Welch's t test (Welch-Satterthwaite
    degrees of freedom, rounded down)."""
    diff = b["mean"] - a["mean"]
    va = a["sd"] ** 2 / a["n"] if a["n"] else 0.0
    vb = b["sd"] ** 2 / b["n"] if b["n"] else 0.0
    se = math.sqrt(va + vb)
    if a["n"] < 2 or b["n"] < 2:
        return {"diff": diff, "lo": -math.inf, "hi": math.inf, "p": None, "significant": False}
    if se == 0:
        p = 1.0 if diff == 0 else 0.0
        return {"diff": diff, "lo": diff, "hi": diff, "p": p, "significant": diff != 0}
    df = max(1, int((va + vb) ** 2 / (va * va / (a["n"] - 1) + vb * vb / (b["n"] - 1))))
    half = t_quantile(df) * se
    lo, hi = diff - half, diff + half
    return {"diff": diff, "lo": lo, "hi": hi, "p": t_p_value(diff / se, df),
            "significant": lo > 0 or hi < 0}
