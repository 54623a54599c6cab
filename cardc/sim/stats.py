"""Streaming statistics over simulated games.

Everything here is built to be *merged*: a worker aggregates its chunk of
games, the main process merges chunk after chunk in game order, and the
memory held never grows with the number of games (distributions are exact
value counts, bounded by the range of values a game can produce, not by how
many games produced them).  Merging in a fixed order also keeps float sums
bit-identical whatever the number of workers, so a seed gives one report.

Confidence intervals are 95%: Wilson for proportions (honest near 0% and
100%, where the normal approximation is not), a normal approximation for
means and for paired differences.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

Z95 = 1.959963984540054

#: game endings, in the order reports list them
ENDINGS = ("winner", "shared", "no_winner", "capped", "stalled", "fault")
#: endings that point at a hole in the rules: saved as replays
HOLE_ENDINGS = ("capped", "stalled", "fault")


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of k successes out of n."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # exact ends: 0 wins has a lower bound of 0, not 1e-18 of rounding
    return (0.0 if k == 0 else centre - half), (1.0 if k == n else centre + half)


# ---------------------------------------------------------------- building blocks

@dataclass
class Tally:
    """Wins out of trials, e.g. games seat 1 won out of games it sat in."""
    wins: int = 0
    trials: int = 0

    def add(self, won: bool) -> None:
        self.wins += bool(won)
        self.trials += 1

    def merge(self, other: "Tally") -> None:
        self.wins += other.wins
        self.trials += other.trials

    @property
    def rate(self) -> float:
        return self.wins / self.trials if self.trials else 0.0

    def summary(self) -> dict:
        lo, hi = wilson(self.wins, self.trials)
        return {"wins": self.wins, "trials": self.trials, "rate": self.rate, "lo": lo, "hi": hi}


@dataclass
class Dist:
    """An exact distribution of numbers: value -> how many times seen.

    Game lengths and scores take few distinct values, so this stays small
    while giving exact quantiles and histograms, and merging is just adding."""
    counts: Counter = field(default_factory=Counter)

    def add(self, value, times: int = 1) -> None:
        self.counts[value] += times

    def merge(self, other: "Dist") -> None:
        self.counts.update(other.counts)

    @property
    def n(self) -> int:
        return sum(self.counts.values())

    def quantile(self, q: float):
        """The smallest value with at least a share q of the values at or below it."""
        need, seen = q * self.n, 0
        for value in sorted(self.counts):
            seen += self.counts[value]
            if seen >= need:
                return value
        return None

    def summary(self) -> dict:
        n = self.n
        if not n:
            return {"n": 0}
        values = sorted(self.counts)
        mean = sum(v * self.counts[v] for v in values) / n
        var = sum(self.counts[v] * (v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
        return {"n": n, "mean": mean, "sd": math.sqrt(var), "min": values[0],
                "p10": self.quantile(0.1), "median": self.quantile(0.5),
                "p90": self.quantile(0.9), "max": values[-1],
                "counts": [[v, self.counts[v]] for v in values]}


@dataclass
class Moments:
    """Count, sum and sum of squares: a mean and its standard deviation."""
    n: int = 0
    total: float = 0
    squares: float = 0

    def add(self, x) -> None:
        self.n += 1
        self.total += x
        self.squares += x * x

    def merge(self, other: "Moments") -> None:
        self.n += other.n
        self.total += other.total
        self.squares += other.squares

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else 0.0

    @property
    def sd(self) -> float:
        if self.n < 2:
            return 0.0
        return math.sqrt(max(0.0, (self.squares - self.total * self.total / self.n) / (self.n - 1)))

    def summary(self) -> dict:
        half = Z95 * self.sd / math.sqrt(self.n) if self.n else 0.0
        return {"n": self.n, "mean": self.mean, "sd": self.sd,
                "lo": self.mean - half, "hi": self.mean + half}


@dataclass
class PairedDiff:
    """Variant minus baseline, observation by observation on the same seeds.

    Pairing removes the luck of the deal from the difference, so a small
    change shows up with far fewer games than two independent runs need."""
    base: Moments = field(default_factory=Moments)
    variant: Moments = field(default_factory=Moments)
    diff: Moments = field(default_factory=Moments)

    def add(self, base, variant) -> None:
        self.base.add(base)
        self.variant.add(variant)
        self.diff.add(variant - base)

    def merge(self, other: "PairedDiff") -> None:
        self.base.merge(other.base)
        self.variant.merge(other.variant)
        self.diff.merge(other.diff)

    def summary(self) -> dict:
        d = self.diff.summary()
        return {"n": self.diff.n, "base": self.base.mean, "variant": self.variant.mean,
                "diff": d["mean"], "lo": d["lo"], "hi": d["hi"], "width": d["hi"] - d["lo"],
                "significant": self.diff.n > 1 and (d["lo"] > 0 or d["hi"] < 0)}


def _merge_map(mine: dict, theirs: dict, factory) -> None:
    """Merge a dict of mergeable values into another, creating missing keys."""
    for key, value in theirs.items():
        if key not in mine:
            mine[key] = factory()
        mine[key].merge(value)


# ---------------------------------------------------------------- per-game observations

def observations(rec) -> dict[str, list]:
    """The numbers one game contributes to each named metric.

    These names are shared by `compare` (two saved reports) and `sweep`
    (paired variants).  A metric may get several observations from one game
    (`win.random` once per seat a random agent held)."""
    obs = {"turns": [rec.turns], "decisions": [rec.decisions], "minutes": [rec.minutes],
           "capped": [int(rec.ending == "capped")], "fault": [int(rec.ending == "fault")],
           "no_winner": [int(rec.ending in ("no_winner", "capped", "stalled"))],
           "shared_win": [int(rec.ending == "shared")]}
    if rec.ending == "fault":
        return obs
    obs["lead_changes"] = [rec.lead_changes]
    for seat in range(rec.players):
        won = int(seat in rec.winners)
        obs[f"win.seat{seat + 1}"] = [won]
        obs.setdefault(f"win.{rec.agents[seat]}", []).append(won)
    if rec.scores is not None and len(rec.winners) == 1:
        obs["score.winner"] = [rec.scores[rec.winners[0]]]
    return obs


@dataclass
class Paired:
    """Paired differences of every metric between a variant and the baseline."""
    diffs: dict[str, PairedDiff] = field(default_factory=dict)

    def add(self, base_obs: dict, variant_obs: dict) -> None:
        """Pair the same game under both; a metric one of them lacks (a
        faulted game has no winner) is left out of that game's pairs."""
        for name, base in base_obs.items():
            variant = variant_obs.get(name)
            if variant is None or len(variant) != len(base):
                continue
            diff = self.diffs.setdefault(name, PairedDiff())
            for b, v in zip(base, variant):
                diff.add(b, v)

    def merge(self, other: "Paired") -> None:
        _merge_map(self.diffs, other.diffs, PairedDiff)


# ---------------------------------------------------------------- the aggregate

@dataclass
class CardUse:
    """How often something happened to a card (resolved, or entered a zone),
    in how many games, and how the seats that did it fared."""
    times: int = 0
    games: int = 0
    seats: Tally = field(default_factory=Tally)

    def merge(self, other: "CardUse") -> None:
        self.times += other.times
        self.games += other.games
        self.seats.merge(other.seats)


@dataclass
class CountStats:
    """Everything that depends on the number of players."""
    games: int = 0
    turns: Dist = field(default_factory=Dist)
    minutes: Dist = field(default_factory=Dist)          # to 0.1 minute, for quantiles
    decisions: int = 0
    choices: int = 0                                      # decisions with 2+ options
    places: dict[int, Counter] = field(default_factory=dict)    # seat -> place -> games
    seats: dict[int, Tally] = field(default_factory=dict)
    agents: dict[str, Tally] = field(default_factory=dict)
    starts: dict[str, Tally] = field(default_factory=dict)
    final_scores: Dist = field(default_factory=Dist)
    winning_scores: Dist = field(default_factory=Dist)
    lead_changes: Dist = field(default_factory=Dist)
    # turns completed -> [games sampled, sum of the leader's score, sum of all scores, seats]
    by_turn: dict[int, list] = field(default_factory=dict)

    def add(self, rec) -> None:
        self.games += 1
        self.turns.add(rec.turns)
        self.minutes.add(round(rec.minutes, 1))
        self.decisions += rec.decisions
        self.choices += rec.choices
        if rec.ending == "fault":
            return
        for seat in range(rec.players):
            won = seat in rec.winners
            self.seats.setdefault(seat, Tally()).add(won)
            self.agents.setdefault(rec.agents[seat], Tally()).add(won)
            if rec.starts is not None:
                self.starts.setdefault(rec.starts[seat], Tally()).add(won)
            if rec.places is not None:
                self.places.setdefault(seat, Counter())[rec.places[seat]] += 1
        if rec.scores is not None:
            for s in rec.scores:
                self.final_scores.add(s)
            for w in rec.winners:
                self.winning_scores.add(rec.scores[w])
        self.lead_changes.add(rec.lead_changes)
        for turn, scores in rec.samples:
            row = self.by_turn.setdefault(turn, [0, 0, 0, 0])
            row[0] += 1
            row[1] += max(scores)
            row[2] += sum(scores)
            row[3] += len(scores)

    def merge(self, other: "CountStats") -> None:
        self.games += other.games
        for name in ("turns", "minutes", "final_scores", "winning_scores", "lead_changes"):
            getattr(self, name).merge(getattr(other, name))
        self.decisions += other.decisions
        self.choices += other.choices
        for seat, places in other.places.items():
            self.places.setdefault(seat, Counter()).update(places)
        _merge_map(self.seats, other.seats, Tally)
        _merge_map(self.agents, other.agents, Tally)
        _merge_map(self.starts, other.starts, Tally)
        for turn, row in other.by_turn.items():
            mine = self.by_turn.setdefault(turn, [0, 0, 0, 0])
            for i, v in enumerate(row):
                mine[i] += v


@dataclass
class Aggregate:
    """All the statistics of a run (or of one chunk of it), games added one
    at a time and chunks merged, in constant memory."""
    games: int = 0
    endings: Counter = field(default_factory=Counter)
    counts: dict[int, CountStats] = field(default_factory=dict)
    resolved: dict[str, CardUse] = field(default_factory=dict)    # card id -> use
    entered: dict[str, CardUse] = field(default_factory=dict)     # "card>zone" -> use
    metrics: dict[str, Moments] = field(default_factory=dict)

    def add(self, rec, obs: dict | None = None) -> None:
        self.games += 1
        self.endings[rec.ending] += 1
        self.counts.setdefault(rec.players, CountStats()).add(rec)
        for target, used in ((self.resolved, rec.resolved), (self.entered, rec.entered)):
            for key, by_seat in used.items():
                use = target.setdefault(key, CardUse())
                use.times += sum(by_seat.values())
                use.games += 1
                if rec.ending != "fault":
                    for seat in by_seat:
                        use.seats.add(seat in rec.winners)
        for name, values in (obs if obs is not None else observations(rec)).items():
            moments = self.metrics.setdefault(name, Moments())
            for v in values:
                moments.add(v)

    def merge(self, other: "Aggregate") -> None:
        self.games += other.games
        self.endings.update(other.endings)
        _merge_map(self.counts, other.counts, CountStats)
        _merge_map(self.resolved, other.resolved, CardUse)
        _merge_map(self.entered, other.entered, CardUse)
        _merge_map(self.metrics, other.metrics, Moments)


def is_rate(metric: str) -> bool:
    """Metrics whose observations are 0 or 1 (a game was capped, a seat won)."""
    return metric in ("capped", "fault", "no_winner", "shared_win") or metric.startswith("win.")


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
    return {"diff": diff, "lo": lo, "hi": hi, "significant": lo > 0 or hi < 0}


def welch(a: dict, b: dict) -> dict:
    """B minus A for two independent summaries {n, mean, sd}: the difference
    and its normal-approximation 95% interval (Welch's standard error)."""
    diff = b["mean"] - a["mean"]
    se = math.sqrt((a["sd"] ** 2 / a["n"] if a["n"] else 0) + (b["sd"] ** 2 / b["n"] if b["n"] else 0))
    lo, hi = diff - Z95 * se, diff + Z95 * se
    return {"diff": diff, "lo": lo, "hi": hi,
            "significant": a["n"] > 1 and b["n"] > 1 and (lo > 0 or hi < 0)}
