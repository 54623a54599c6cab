"""Streaming statistics over simulated games.

Everything here is built to be *merged*: a worker aggregates its chunk of
games, the main process merges chunk after chunk in game order, and the
memory held never grows with the number of games (distributions are exact
value counts, bounded by the range of values a game can produce, not by how
many games produced them).  Merging in a fixed order also keeps float sums
bit-identical whatever the number of workers, so a seed gives one report.

Confidence intervals are 95%: Wilson for proportions (honest near 0% and
100%, where the normal approximation is not), Student's t for means and for
paired differences (a sweep of 20 games must not claim the certainty of a
normal interval).  Means and variances are kept as Welford running moments
and merged with Chan's formula, which stays exact where "sum of squares
minus square of sums" loses every digit (long games, large scores).

A report tests many metrics at once, so a difference is marked significant
only after Holm's correction over all the tests of the report
(`holm`): with a dozen metrics at 5% each, one would otherwise be "found"
by chance in every other sweep.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from cardc.sim.intervals import ALPHA, Moments, Tally
from cardc.sim.quality import Quality

#: game endings, in the order reports list them
ENDINGS = ("winner", "shared", "no_winner", "capped", "stalled", "fault")
#: endings that point at a hole in the rules: saved as replays
HOLE_ENDINGS = ("capped", "stalled", "fault")


def holm(p_values: list[float], alpha: float = ALPHA) -> list[float]:
    """Holm's step-down adjusted p-values (same order as given): a test is
    significant at `alpha` for the whole family when its adjusted p-value is
    below it.  Holm controls the chance of even one false mark, in any
    dependence between the tests, and is never weaker than Bonferroni."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    m, running = len(p_values), 0.0
    adjusted = [1.0] * m
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def mark_significant(rows: list[dict], alpha: float = ALPHA) -> None:
    """Set `p_adjusted` (Holm over all `rows`) and `significant` on each row
    that has a `p`; rows without one are not significant.  The mark before
    the correction stays as `significant_alone`."""
    tested = [r for r in rows if r.get("p") is not None]
    for r in rows:
        r["significant_alone"] = bool(r.get("significant"))
    for r, adj in zip(tested, holm([r["p"] for r in tested], alpha), strict=False):
        r["p_adjusted"] = adj
        r["significant"] = adj < alpha
    for r in rows:
        if r.get("p") is None:
            r["significant"] = False


# ---------------------------------------------------------------- building blocks

@dataclass
class Dist:
    """An exact distribution of numbers: value -> how many times seen.

    Game lengths and scores take few distinct values, so this stays small
    while giving exact quantiles and histograms, and merging is just adding."""
    counts: Counter = field(default_factory=Counter)

    def add(self, value, times: int = 1) -> None:
        self.counts[value] += times

    def merge(self, other: Dist) -> None:
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

    def merge(self, other: PairedDiff) -> None:
        self.base.merge(other.base)
        self.variant.merge(other.variant)
        self.diff.merge(other.diff)

    def summary(self) -> dict:
        """The difference with its t interval and the paired t test's p-value;
        `significant` is the unadjusted mark (`mark_significant` corrects it
        over a whole report)."""
        d = self.diff.summary()
        return {"n": self.diff.n, "base": self.base.mean, "variant": self.variant.mean,
                "diff": d["mean"], "lo": d["lo"], "hi": d["hi"], "width": d["hi"] - d["lo"],
                "sd": self.diff.sd, "base_sd": self.base.sd, "variant_sd": self.variant.sd,
                "p": d.get("p"), "significant": self.diff.n > 1 and (d["lo"] > 0 or d["hi"] < 0)}


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


#: the prefixes of the card-use metrics of a sweep (see `card_observations`):
#: a card resolved (played for its effect), a window answered with a card
CARD_USE = "played."
ANSWER_USE = "answered."
CARD_USES = (CARD_USE, ANSWER_USE)


def card_observations(rec, cards, answers=()) -> dict[str, list]:
    """How often each agent's seats used each card in one game:
    `played.<card id>.<agent>` (the card resolved: played for its effect)
    and `answered.<card id>.<agent>` (a reaction window answered with it)
    get one observation per seat that agent held (like `win.<agent>`), 0 when
    the seat never did, so that every game counts and the mean is "times per
    seat per game".  `cards` are the card ids that can be resolved (those
    with an effect), `answers` those that can answer a window (a
    `reaction`), the same lists for every variant, so a baseline game and
    its variant pair metric by metric.  An answer is the answering seat's
    (the target of an attack, not the attacker whose turn it is).

    A strong player adapts its play to a rule change where random play
    cannot: these are what `sweep` shows beside the outcome metrics, tested
    as a family of their own (see `cardc.sim.cli.sweep_report`); a defence
    held back for the attack that matters shows in `answered`."""
    if rec.ending == "fault":
        return {}
    obs = {}
    for prefix, ids, used in ((CARD_USE, cards, rec.resolved), (ANSWER_USE, answers, rec.answered)):
        for cid in ids:
            by_seat = used.get(cid) or {}
            for seat, agent in enumerate(rec.agents):
                obs.setdefault(f"{prefix}{cid}.{agent}", []).append(by_seat.get(seat, 0))
    return obs


def resolvable_cards(bundle: dict) -> list[str]:
    """The ids of the cards a game can resolve (those with an effect), in
    the bundle's order."""
    return [c["id"] for c in bundle["cards"] if c.get("effect")]


def answering_cards(bundle: dict) -> list[str]:
    """The ids of the cards that can answer a reaction window, in the
    bundle's order."""
    return [c["id"] for c in bundle["cards"] if c.get("reaction")]


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
            for b, v in zip(base, variant, strict=False):
                diff.add(b, v)

    def merge(self, other: Paired) -> None:
        _merge_map(self.diffs, other.diffs, PairedDiff)


# ---------------------------------------------------------------- the aggregate

@dataclass
class CardUse:
    """How often something happened to a card (resolved, entered a zone, or
    answered a window), in how many games, and how the seats that did it
    fared."""
    times: int = 0
    games: int = 0
    seats: Tally = field(default_factory=Tally)

    def merge(self, other: CardUse) -> None:
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
    quality: Quality = field(default_factory=Quality)      # Browne's / Ludii's measures

    def add(self, rec) -> None:
        self.games += 1
        self.quality.add(rec)
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
            row[1] += max(scores) if rec.score_sign > 0 else min(scores)     # the leader's
            row[2] += sum(scores)
            row[3] += len(scores)

    def merge(self, other: CountStats) -> None:
        self.games += other.games
        for name in ("turns", "minutes", "final_scores", "winning_scores", "lead_changes"):
            getattr(self, name).merge(getattr(other, name))
        self.decisions += other.decisions
        self.choices += other.choices
        self.quality.merge(other.quality)
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
    answered: dict[str, CardUse] = field(default_factory=dict)    # card id -> windows answered
    metrics: dict[str, Moments] = field(default_factory=dict)

    def add(self, rec, obs: dict | None = None) -> None:
        self.games += 1
        self.endings[rec.ending] += 1
        self.counts.setdefault(rec.players, CountStats()).add(rec)
        for target, used in ((self.resolved, rec.resolved), (self.entered, rec.entered),
                             (self.answered, rec.answered)):
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

    def merge(self, other: Aggregate) -> None:
        self.games += other.games
        self.endings.update(other.endings)
        _merge_map(self.counts, other.counts, CountStats)
        _merge_map(self.resolved, other.resolved, CardUse)
        _merge_map(self.entered, other.entered, CardUse)
        _merge_map(self.answered, other.answered, CardUse)
        _merge_map(self.metrics, other.metrics, Moments)


def is_rate(metric: str) -> bool:
    """Metrics whose observations are 0 or 1 (a game was capped, a seat won)."""
    return metric in ("capped", "fault", "no_winner", "shared_win") or metric.startswith("win.")
