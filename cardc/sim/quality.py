"""Quality measures of a game from the literature of automated evaluation.

Browne's thesis (Automatic generation and evaluation of recombination
games, 2008) and Ludii's metrics (Piette, Stephenson, Browne et al.) judge
a game by how its plays unfold, not only by who wins.  The ones a card game
designer asks about, per player count, each with a 95% interval:

* **decisiveness**: how often the seat alone in the lead at two thirds of
  the game (by turns) wins; **drama** is the rest, the comebacks.  A game
  whose leader at two thirds nearly always wins has a dull last third;
* **lead changes** per game (a new seat alone in the lead);
* **uncertainty over time**: how often the eventual winner leads at a
  quarter, half and three quarters of the game (a tie shares the lead);
  near 1/players early and rising late is the shape of a tense game;
* **branching factor**: legal actions per decision, averaged per game;
* **first-player advantage**: seat 1's win rate against a fair 1/players;
* **skill gap**: the best agent's win rate minus random's, when a run
  seats random beside another agent (Browne's "skill" measure; Ludii's
  "agent win rates").

Everything here merges like `stats`: Tallies and Moments added chunk by
chunk in game order, so a seed gives the same measures whatever the jobs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from cardc.sim.intervals import Z95, Moments, Tally, newcombe, t_quantile, welch, wilson

#: where in the game (share of its turns) the eventual winner's lead is read
TIMES = (0.25, 0.5, 0.75)
#: the point at which the leader's chance to win is decisiveness
DECISIVE_AT = 2 / 3


def _sample_at(samples: list, turns: int, share: float):
    """The scores after the last turn change at or before `share` of the
    game's turns (None when the game had none so early)."""
    chosen = None
    for turn, scores in samples:
        if turn > share * turns:
            break
        chosen = scores
    return chosen


def _leaders(scores, sign: int) -> list[int]:
    best = max(s * sign for s in scores)
    return [p for p, s in enumerate(scores) if s * sign == best]


@dataclass
class Quality:
    """The measures of one player count, added game by game."""
    leader_wins: Tally = field(default_factory=Tally)       # alone in the lead at 2/3: won?
    lead_changes: Moments = field(default_factory=Moments)
    branching: Moments = field(default_factory=Moments)     # per game: legal actions per decision
    winner_leads: dict[float, Moments] = field(
        default_factory=lambda: {t: Moments() for t in TIMES})

    def add(self, rec) -> None:
        if rec.decisions:
            self.branching.add(rec.options / rec.decisions)
        if rec.ending == "fault" or not rec.winners:
            return
        self.lead_changes.add(rec.lead_changes)
        scores = _sample_at(rec.samples, rec.turns, DECISIVE_AT)
        if scores is not None:
            top = _leaders(scores, rec.score_sign)
            if len(top) == 1:
                self.leader_wins.add(top[0] in rec.winners)
        for t in TIMES:
            scores = _sample_at(rec.samples, rec.turns, t)
            if scores is not None:
                top = _leaders(scores, rec.score_sign)
                self.winner_leads[t].add(sum(p in rec.winners for p in top) / len(top))

    def merge(self, other: Quality) -> None:
        self.leader_wins.merge(other.leader_wins)
        self.lead_changes.merge(other.lead_changes)
        self.branching.merge(other.branching)
        for t in TIMES:
            self.winner_leads[t].merge(other.winner_leads[t])

    def summary(self, players: int, seats: dict, agents: dict) -> dict:
        """The JSON of the measures; `seats` and `agents` are the count's
        win Tallies (first-player advantage and skill gap come from them)."""
        decisive = self.leader_wins.summary()
        out = {"decisiveness": decisive,
               "drama": {"rate": 1 - decisive["rate"] if decisive["trials"] else 0.0,
                         "lo": 1 - decisive["hi"], "hi": 1 - decisive["lo"],
                         "trials": decisive["trials"]},
               "lead_changes": _mean(self.lead_changes),
               "branching": _mean(self.branching),
               "winner_leads": [{"at": t, **_mean(self.winner_leads[t])} for t in TIMES]}
        first = seats.get(0, Tally())
        lo, hi = wilson(first.wins, first.trials)
        fair = 1 / players
        out["first_player"] = {"rate": first.rate, "lo": lo, "hi": hi, "fair": fair,
                               "advantage": first.rate - fair, "advantage_lo": lo - fair,
                               "advantage_hi": hi - fair, "trials": first.trials}
        out["skill_gap"] = _skill_gap(agents)
        return out


def _mean(m: Moments) -> dict:
    s = m.summary()
    return {"n": s["n"], "mean": s["mean"], "sd": s["sd"], "lo": s["lo"], "hi": s["hi"]}


def _skill_gap(agents: dict) -> dict | None:
    """The best other agent's win rate minus random's, with Newcombe's
    interval (the seats are counted as independent trials)."""
    rand = agents.get("random")
    others = {a: t for a, t in agents.items() if a != "random" and t.trials}
    if rand is None or not rand.trials or not others:
        return None
    best = max(sorted(others), key=lambda a: others[a].rate)
    gap = newcombe(rand.wins, rand.trials, others[best].wins, others[best].trials)
    return {"best": best, "best_rate": others[best].rate, "random_rate": rand.rate,
            "diff": gap["diff"], "lo": gap["lo"], "hi": gap["hi"]}


def rows(quality: dict) -> list[tuple[str, dict]]:
    """(measure, {player count: "value [lo–hi]"}) for the terminal and HTML tables."""
    def pct(x):
        return f"{100 * x:.1f}%"

    def pts(x):
        return f"{100 * x:+.1f} pts"

    def num(x):
        return f"{x:.2f}" if math.isfinite(x) else "–"

    table = []

    def add(name, cell):
        table.append((name, {n: cell(q) for n, q in quality.items()}))

    add("decisiveness: leader at 2/3 wins", lambda q: (
        f"{pct(q['decisiveness']['rate'])} [{pct(q['decisiveness']['lo'])}–"
        f"{pct(q['decisiveness']['hi'])}]" if q["decisiveness"]["trials"] else "–"))
    add("drama: comebacks after 2/3", lambda q: (
        f"{pct(q['drama']['rate'])} [{pct(q['drama']['lo'])}–{pct(q['drama']['hi'])}]"
        if q["drama"]["trials"] else "–"))
    add("lead changes per game", lambda q: (
        f"{num(q['lead_changes']['mean'])} [{num(q['lead_changes']['lo'])}–"
        f"{num(q['lead_changes']['hi'])}]" if q["lead_changes"]["n"] else "–"))
    for i, t in enumerate(TIMES):
        add(f"winner leads at {100 * t:.0f}% of the game", lambda q, i=i: (
            f"{pct(q['winner_leads'][i]['mean'])} [{pct(q['winner_leads'][i]['lo'])}–"
            f"{pct(q['winner_leads'][i]['hi'])}]" if q["winner_leads"][i]["n"] else "–"))
    add("branching: legal actions per decision", lambda q: (
        f"{num(q['branching']['mean'])} [{num(q['branching']['lo'])}–{num(q['branching']['hi'])}]"
        if q["branching"]["n"] else "–"))
    add("first-player advantage (vs 1/players)", lambda q: (
        f"{pts(q['first_player']['advantage'])} [{pts(q['first_player']['advantage_lo'])}, "
        f"{pts(q['first_player']['advantage_hi'])}]" if q["first_player"]["trials"] else "–"))
    add("skill gap: best agent − random", lambda q: (
        f"{q['skill_gap']['best']} {pts(q['skill_gap']['diff'])} [{pts(q['skill_gap']['lo'])}, "
        f"{pts(q['skill_gap']['hi'])}]" if q["skill_gap"] else "–"))
    return table


# ---------------------------------------------------------------- compare

#: a compare row of a quality measure is named `quality <n>p <measure>`
QUALITY = "quality "

#: each measure's unit in `cardc compare`: a share ("percent", its change in
#: points), a difference of rates already ("points"), or a plain number
UNITS = {"decisiveness": "percent", "drama": "percent", "lead changes": "number",
         "winner leads": "percent", "branching": "number",
         "first-player advantage": "points", "skill gap": "points"}


def unit(name: str) -> str | None:
    """The unit of a quality row of `cardc compare`; None for any other row."""
    if not name.startswith(QUALITY):
        return None
    measure = name.split(" ", 2)[-1]
    return next((u for m, u in UNITS.items() if measure.startswith(m)), None)


def compare_rows(a: dict, b: dict) -> list[dict]:
    """B against A for each measure of each player count both reports hold,
    as rows like `report.compare`'s (the runs are independent: Newcombe's
    interval for shares, Welch's for means, a normal interval for the skill
    gap's change).  Drama is decisiveness seen from the other side, and the
    first-player advantage moves exactly as seat 1's win rate: their rows
    name the test they repeat (`same_as`) and carry no p of their own, so
    Holm's correction counts each test once."""
    out = []
    qa, qb = a.get("quality") or {}, b.get("quality") or {}
    for n in sorted(set(qa) & set(qb), key=int):
        x, y, name = qa[n], qb[n], f"{QUALITY}{n}p "
        dx, dy = x["decisiveness"], y["decisiveness"]
        if dx["trials"] and dy["trials"]:
            d = newcombe(dx["wins"], dx["trials"], dy["wins"], dy["trials"])
            out.append({"what": name + "decisiveness", "a": dx["rate"], "b": dy["rate"], **d})
            out.append({"what": name + "drama", "a": 1 - dx["rate"], "b": 1 - dy["rate"],
                        "diff": -d["diff"], "lo": -d["hi"], "hi": -d["lo"], "p": None,
                        "same_as": name + "decisiveness"})
        out += _means(name + "lead changes per game", x["lead_changes"], y["lead_changes"])
        for i, t in enumerate(TIMES):
            out += _means(f"{name}winner leads at {100 * t:.0f}% of the game",
                          x["winner_leads"][i], y["winner_leads"][i])
        out += _means(name + "branching: legal actions per decision", x["branching"], y["branching"])
        fx, fy = x["first_player"], y["first_player"]
        if fx["trials"] and fy["trials"]:
            d = newcombe(round(fx["rate"] * fx["trials"]), fx["trials"],
                         round(fy["rate"] * fy["trials"]), fy["trials"])
            out.append({"what": name + "first-player advantage", "a": fx["advantage"],
                        "b": fy["advantage"], **d, "p": None, "same_as": f"win {n}p seat 1"})
        gap = _gap_change(x["skill_gap"], (a.get("agents") or {}).get(n, {}),
                          (b.get("agents") or {}).get(n, {}))
        if gap:
            out.append({"what": f"{name}skill gap: {gap.pop('best')} − random", **gap})
    return out


def _means(what: str, x: dict, y: dict) -> list[dict]:
    if not x["n"] or not y["n"]:
        return []
    return [{"what": what, "a": x["mean"], "b": y["mean"], **welch(_spread(x), _spread(y))}]


def _spread(m: dict) -> dict:
    """{n, mean, sd}; a report saved before the sd was kept gives it back
    through its t interval (half-width = t * sd / sqrt(n))."""
    if "sd" in m or m["n"] < 2:
        return {"sd": 0.0, **m}
    return {**m, "sd": (m["hi"] - m["mean"]) * math.sqrt(m["n"]) / t_quantile(m["n"] - 1)}


def _gap_change(gap_a: dict | None, agents_a: dict, agents_b: dict) -> dict | None:
    """The change of A's skill gap (A's best agent against random) in B: a
    difference of two differences of independent rates, with a normal
    (Wald) interval; None when either run lacks one of the two agents."""
    if not gap_a:
        return None
    best, tallies = gap_a["best"], []
    for agents in (agents_a, agents_b):
        for agent in (best, "random"):
            t = agents.get(agent)
            if not t or not t["trials"]:
                return None
            tallies.append((t["wins"] / t["trials"], t["trials"]))
    (ba, _), (ra, _), (bb, _), (rb, _) = tallies
    diff = (bb - rb) - (ba - ra)
    se = math.sqrt(sum(p * (1 - p) / k for p, k in tallies))
    p = (1.0 - math.erf(abs(diff) / se / math.sqrt(2))) if se else (1.0 if diff == 0 else 0.0)
    lo, hi = diff - Z95 * se, diff + Z95 * se
    return {"best": best, "a": ba - ra, "b": bb - rb, "diff": diff, "lo": lo, "hi": hi, "p": p,
            "significant": lo > 0 or hi < 0}
