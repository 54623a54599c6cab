"""`cardc skill`: how much playing better pays in a game.

A round robin of agents of rising strength (by default random, greedy and
mcts at two budgets), per player count.  Each *table* seats one agent (the
row) against n-1 copies of another (the column), the seats rotating game
by game as in `simulate`; every table plays the same deals (the run's seed),
so the tables differ only in who plays.  The report holds:

* the win-rate matrix: the row agent's win rate at each table, with its
  Wilson interval, beside the fair share 1/n;
* a rating per agent with a 95% interval.  Luce's choice model (Bradley-Terry
  for any number of players): the winner of a game is seat i with
  probability s_i / (sum of the strengths at the table); the strengths are
  fitted by Hunter's MM algorithm and shown on the Elo scale, random = 0
  (400 points: ten times the strength).  Intervals come from a seeded
  bootstrap of the games of each table;
* the skill spread: the best agent's rating above random and its win rate
  against a table of random agents.  A game where the best play barely
  beats random is a game of luck; designers want that number.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from rich.text import Text

from cardc.sim.intervals import wilson

#: the named ladder (cardc.agents.LADDER), weakest first: each rung should beat the one below
DEFAULT_AGENTS = ("random", "osla", "greedy", "mcts", "elite")
#: bootstrap resamples for the rating intervals
BOOTSTRAP = 400
#: pseudo-wins given to every agent at every table, so that an agent that
#: never won still has a finite (very low) rating
PRIOR = 0.5


@dataclass
class Table:
    """One table of the round robin: `hero` in one seat, `rival` in the others."""
    players: int
    hero: str
    rival: str
    games: int = 0
    wins: dict = field(default_factory=dict)        # agent -> seats won (shared wins count for each)
    no_winner: int = 0

    @property
    def seats(self) -> tuple[str, ...]:
        return (self.hero,) + (self.rival,) * (self.players - 1)

    def count(self, agent: str) -> int:
        return self.seats.count(agent)


def tables_for(players: int, agents) -> list[Table]:
    """Every pairing of two agents: at two players one table per pair (the
    seats rotate, so A-B and B-A are the same table); at more players one
    per ordered pair (one A among Bs is not one B among As)."""
    out = []
    for i, a in enumerate(agents):
        for j, b in enumerate(agents):
            if a == b or (players == 2 and j < i):
                continue
            out.append(Table(players, a, b))
    return out


def fit_strengths(tables: list[Table], agents, iterations: int = 500) -> dict:
    """Luce-model strengths (Hunter's MM updates), scaled so that the first
    agent has strength 1.  Every agent gets PRIOR pseudo-wins at each of its
    tables, which keeps every strength positive and finite."""
    s = {a: 1.0 for a in agents}
    for _ in range(iterations):
        wins = {a: 0.0 for a in agents}
        spent = {a: 0.0 for a in agents}
        for t in tables:
            kinds = {t.hero, t.rival}
            decided = sum(t.wins.get(a, 0) for a in kinds) + PRIOR * len(kinds)
            total = sum(t.count(a) * s[a] for a in kinds)
            for a in kinds:
                wins[a] += t.wins.get(a, 0) + PRIOR
                spent[a] += decided * t.count(a) / total
        new = {a: wins[a] / spent[a] if spent[a] else 1.0 for a in agents}
        ref = new[agents[0]]
        new = {a: v / ref for a, v in new.items()}
        if all(abs(new[a] - s[a]) < 1e-10 * max(1.0, s[a]) for a in agents):
            s = new
            break
        s = new
    return s


def elo(strength: float) -> float:
    return 400 * math.log10(strength)


def resample(tables: list[Table], rnd: random.Random) -> list[Table]:
    """The tables played again in imagination: each table's chances (which
    agent wins, or nobody) drawn from their Jeffreys posterior, a Dirichlet
    of the counts plus 1/2, and its games drawn from those chances.  A plain
    bootstrap (the games drawn again with replacement) cannot vary a clean
    sweep: 8 wins in 8 resample to 8 in 8, and every interval that rests on
    such a table collapses to a point; the posterior lets the loser win now
    and then, as often as 8 losses in 8 allow.  "Nobody won" is a chance only
    at a table where it happened."""
    out = []
    for t in tables:
        kinds = sorted({t.hero, t.rival})
        counts = [t.wins.get(a, 0) for a in kinds]
        cats = list(kinds)
        if t.no_winner:
            counts.append(t.no_winner)
            cats.append(None)
        copy = Table(t.players, t.hero, t.rival, t.games)
        if t.games:
            weights = [rnd.gammavariate(c + 0.5, 1.0) for c in counts]
            draws = rnd.choices(cats, weights=weights, k=t.games)
            copy.wins = {a: draws.count(a) for a in kinds}
            copy.no_winner = draws.count(None)
        out.append(copy)
    return out


def open_ends(tables: list[Table], agents) -> dict:
    """agent -> which end of its rating the games leave open, relative to the
    first agent: None (both ends rest on games), "above" (no chain of wins
    leads from the first agent up to it: it and every agent it lost to won
    every game against the agents below, so nothing the games say caps its
    rating), "below" (no chain of wins leads from it to the first agent) or
    "both" (no chain either way).  A Luce rating has a finite best fit only
    within a set of agents that beat one another around in a circle; across
    sets, only the order is known.  The fit's prior (PRIOR pseudo-wins) gives
    such a rating a value all the same: that value and the open end are the
    prior's, not the games'."""
    beat = {a: set() for a in agents}          # a -> the agents a won a game against
    for t in tables:
        kinds = {t.hero, t.rival}
        for a in kinds:
            if t.wins.get(a, 0):
                beat[a] |= kinds - {a}

    def reach(a):
        seen, todo = {a}, [a]
        while todo:
            for b in beat[todo.pop()]:
                if b not in seen:
                    seen.add(b)
                    todo.append(b)
        return seen

    ref = agents[0]
    from_ref = reach(ref)
    out = {}
    for a in agents:
        up, down = a in from_ref, ref in reach(a)
        out[a] = None if (up and down) else "above" if down else "below" if up else "both"
    return out


def ratings(tables: list[Table], agents, seed: int = 0, bootstrap: int = BOOTSTRAP) -> dict:
    """agent -> {rating, lo, hi, open} on the Elo scale, the first agent at 0
    (`open`: see `open_ends`; an open end's number is the prior's)."""
    point = fit_strengths(tables, agents)
    rnd = random.Random(seed)
    samples = {a: [] for a in agents}
    for _ in range(bootstrap):
        s = fit_strengths(resample(tables, rnd), agents, iterations=200)
        for a in agents:
            samples[a].append(elo(s[a]))
    ends = open_ends(tables, agents)
    out = {}
    for a in agents:
        xs = sorted(samples[a])
        lo = xs[int(0.025 * (len(xs) - 1))] if xs else -math.inf
        hi = xs[int(math.ceil(0.975 * (len(xs) - 1)))] if xs else math.inf
        out[a] = {"rating": elo(point[a]), "lo": lo, "hi": hi, "strength": point[a],
                  "open": None if a == agents[0] else ends[a]}
    out[agents[0]]["reference"] = True
    return out


def rating_text(x: dict) -> str:
    """A rating's interval as the terminal shows it: `[lo, hi]`, or only the
    end the games fix (`≥ lo`, `≤ hi`) when the other is open."""
    end = x.get("open")
    if x.get("reference"):
        return "the reference"
    if end == "above":
        return f"≥ {x['lo']:+.0f} (no upper end)"
    if end == "below":
        return f"≤ {x['hi']:+.0f} (no lower end)"
    if end == "both":
        return "no end (never linked to the first agent by a win)"
    return f"[{x['lo']:+.0f}, {x['hi']:+.0f}]"


def summarize(tables: list[Table], agents, players, seed: int, run: dict) -> dict:
    """The skill report as a JSON-able dict."""
    agents = list(agents)
    out = {"kind": "skill", "agents": agents, "seed": seed, "players": {}, "run": run}
    for n in players:
        mine = [t for t in tables if t.players == n]
        matrix = {}
        for t in mine:
            k = t.wins.get(t.hero, 0)
            lo, hi = wilson(k, t.games)
            matrix.setdefault(t.hero, {})[t.rival] = {
                "wins": k, "games": t.games, "rate": k / t.games if t.games else 0.0,
                "lo": lo, "hi": hi}
            if n == 2:          # the same table read from the other side
                k2 = t.wins.get(t.rival, 0)
                lo2, hi2 = wilson(k2, t.games)
                matrix.setdefault(t.rival, {})[t.hero] = {
                    "wins": k2, "games": t.games, "rate": k2 / t.games if t.games else 0.0,
                    "lo": lo2, "hi": hi2}
        rated = ratings(mine, agents, seed)
        best = max(agents, key=lambda a: rated[a]["rating"])
        base = agents[0]
        out["players"][str(n)] = {
            "fair_share": 1 / n, "matrix": matrix, "ratings": rated,
            "spread": {"best": best, "over": base, "rating": rated[best]["rating"] - rated[base]["rating"],
                       "lo": rated[best]["lo"] - rated[base]["rating"],
                       "hi": rated[best]["hi"] - rated[base]["rating"],
                       "open": rated[best]["open"],
                       "win_rate_vs": matrix.get(best, {}).get(base)}}
    return out


def print_skill(report: dict, console=None) -> None:
    from rich.table import Table as RichTable

    from cardc.render.terminal import console as terminal_console
    console = console or terminal_console()
    agents = report["agents"]
    console.print(Text.assemble((report["name"], "bold"), f" skill: round robin of {', '.join(agents)} "
                                f"({report['games']} games per table, seed {report['seed']})"))
    think = report["run"].get("seconds_per_decision") or {}
    if think:
        console.print("CPU seconds per decision (with 2+ options, one core): "
                      + ", ".join(f"{a} {s:.4f}s" for a, s in think.items()))
    for n, part in report["players"].items():
        t = RichTable(title=f"{n} players: win rate of the row agent in one seat, the column "
                            f"agent in the other{'s' if int(n) > 2 else ''} "
                            f"(fair share {100 * part['fair_share']:.0f}%)")
        t.add_column("one seat")
        for a in agents:
            t.add_column(f"vs {a}", justify="right")
        for a in agents:
            row = part["matrix"].get(a, {})
            t.add_row(a, *("–" if b == a or b not in row else
                           f"{100 * row[b]['rate']:.0f}% [{100 * row[b]['lo']:.0f}–{100 * row[b]['hi']:.0f}]"
                           for b in agents))
        console.print(t)
        r = RichTable(title=f"{n} players: rating (Elo scale, {agents[0]} = 0, 95% interval: a bootstrap "
                            "from each table's posterior)")
        for col in ("agent", "rating", "95% interval"):
            r.add_column(col, justify="left" if col == "agent" else "right")
        opened = []
        for a in sorted(agents, key=lambda a: -part["ratings"][a]["rating"]):
            x = part["ratings"][a]
            if x.get("open"):
                opened.append(a)
            r.add_row(a, f"{x['rating']:+.0f}" + ("*" if x.get("open") else ""), rating_text(x))
        console.print(r)
        if opened:
            console.print(
                f"* {', '.join(opened)}: clean sweeps leave an end of the rating open: no chain of "
                f"wins links {'it' if len(opened) == 1 else 'each'} to {agents[0]} both ways (one "
                f"side won every game between them), so the games fix only the end shown; the "
                f"rating itself is set by the fit's prior ({PRIOR} pseudo-wins a table), not by "
                f"the games.  More games, or a closer opponent in the round robin, close it.")
        sp = part["spread"]
        vs = sp["win_rate_vs"]
        rel = {k: sp[k] for k in ("lo", "hi")}
        rel["open"] = sp.get("open")
        console.print(f"Skill spread at {n} players: {sp['best']} is "
                      + (f"{sp['rating']:+.0f} " if not rel["open"] else "")
                      + rating_text(rel) + f" over {sp['over']}"
                      + (f"; in one seat against {sp['over']} it wins {100 * vs['rate']:.0f}% "
                         f"[{100 * vs['lo']:.0f}–{100 * vs['hi']:.0f}] (fair share "
                         f"{100 * part['fair_share']:.0f}%)" if vs else ""))


# ---------------------------------------------------------------- the command

def add_command(sub) -> None:
    s = sub.add_parser("skill", help="round robin of agents of rising strength: how much "
                       "playing better pays, per player count")
    s.add_argument("game", help="game id or folder")
    s.add_argument("--players", help="player counts, e.g. 2,3 (default: every count allowed)")
    s.add_argument("--agents", default=",".join(DEFAULT_AGENTS),
                   help=f"agents from weakest to strongest (default {','.join(DEFAULT_AGENTS)}); "
                        "ratings are relative to the first")
    s.add_argument("--games", type=int, default=40, help="games per table (default 40)")
    s.add_argument("--seed", type=int, default=0, help="the run's seed: same seed, same report")
    s.add_argument("--jobs", type=int, default=None,
                   help="worker processes (default: every core); results do not depend on it")
    s.add_argument("--cluster", metavar="ADDRESS", help="run on a Dask scheduler")
    s.add_argument("--max-decisions", type=int, default=100_000,
                   help="a game still running after this many decisions is stopped as stalled")
    s.add_argument("--json", metavar="PATH", help="write the report as JSON")
    s.add_argument("--quiet", action="store_true", help="no progress bar nor tables")
    s.set_defaults(func=cmd_skill)


def cmd_skill(args) -> int:
    import json
    import os
    import time

    from cardc.project import UsageError
    from cardc.sim.cli import _progress, _write, make_plan, variant_bundle
    from cardc.sim.run import Plan, Totals, add_think, executor, play_many, seconds_per_decision

    if args.jobs is None:
        args.jobs = os.cpu_count() or 1
    args.start_zone = None
    bundle = variant_bundle(args.game, {})
    base = make_plan(args, bundle)              # checks players, agents, jobs and games
    agents = list(dict.fromkeys(base.agents))
    if len(agents) < 2:
        raise UsageError("--agents: a round robin needs two agents or more, e.g. random,greedy,mcts")
    tables = [t for n in base.players for t in tables_for(n, agents)]
    think, t0 = {}, time.perf_counter()
    pool = executor(args.jobs, args.cluster)
    try:
        with _progress(args.quiet) as bar:
            task = bar.add_task(f"{bundle['name']} skill", total=len(tables) * args.games, rate="")
            for t in tables:
                plan = Plan((t.players,), t.seats, args.seed, None, args.max_decisions)
                bar.update(task, rate=f"{t.hero} vs {t.rival} ({t.players}p)")
                totals = play_many(pool, [bundle], plan, 0, args.games, Totals.empty(1),
                                   on_chunk=lambda r: bar.advance(task, r.stop - r.start))
                agg = totals.aggregates[0]
                tallies = agg.counts[t.players].agents if t.players in agg.counts else {}
                t.games = agg.games
                t.wins = {a: tally.wins for a, tally in tallies.items()}
                t.no_winner = sum(agg.endings.get(e, 0) for e in ("no_winner", "capped", "stalled", "fault"))
                add_think(think, totals.think)
    finally:
        pool.close()
    seconds = time.perf_counter() - t0
    report = summarize(tables, agents, base.players, args.seed,
                       {"seconds": round(seconds, 3), "workers": pool.workers, "cluster": args.cluster,
                        "seconds_per_decision": seconds_per_decision(think)})
    report.update({"game": bundle["game"], "name": bundle["name"], "bundle": bundle["source_hash"],
                   "games": args.games})
    if not args.quiet:
        print_skill(report)
    if args.json:
        _write(args.json, json.dumps(report, indent=1))
        if not args.quiet:
            print(f"JSON report written to {args.json}")
    return 0
