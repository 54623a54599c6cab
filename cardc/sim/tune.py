"""`cardc tune`: search the numbers a designer lets move for a game that
meets their targets.

    cardc tune startup --vary params.seat1_bonus=0:40 --fair 5 --players 3 --agents random

The designer names targets (every seat's win rate within `--fair` points
of 1/players, a skill gap from random to the best agent of at least
`--skill-gap` points, a length of about `--minutes`, `--cards-used`: no
card left unused) and the numbers that may move (`--vary PATH=LO:HI[:STEP]`
or `PATH=V1,V2,...`, the paths of `--set`).  Each setting tried is built as
`--set` builds a variant, so the content's own constraints (schema, types,
a count that cannot go negative) decide what is allowed: a setting that
does not make a valid game is skipped, never played.

The search is optuna's TPE sampler (a well-kept Bayesian optimiser; seeded,
so a seed gives one search).  Every setting plays the same deals (the same
seed for games 0..N-1: common random numbers), so two settings differ by
the rules, not by the luck of the deal.  The miss of a setting is the sum
of its targets' misses, each in points (percentage points of a win rate,
percent of the target length, 5 per unused card); 0 meets every target.
The report gives the content as written, the best setting found, the fix
(what to change from what), and the evidence for each target with its
interval.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from cardc.project import UsageError
from cardc.sim.answer import change, points, points_interval

#: points of miss for each card no agent used (`--cards-used`)
UNUSED_CARD_MISS = 5.0
#: a length within this share of `--minutes` meets the target
MINUTES_TOLERANCE = 0.10


@dataclass(frozen=True)
class Knob:
    """A number that may move: integers low..high by step, or listed values."""
    path: str
    low: float = 0
    high: float = 0
    step: float = 1
    choices: tuple = ()

    @classmethod
    def parse(cls, text: str) -> Knob:
        path, sep, rest = text.partition("=")
        path, rest = path.strip(), rest.strip()
        if not sep or not path or not rest:
            raise UsageError(f"`--vary {text}`: write PATH=LOW:HIGH[:STEP] or PATH=V1,V2,..., "
                             "e.g. params.seat1_bonus=0:40")
        try:
            if ":" in rest:
                parts = [_number(x) for x in rest.split(":")]
                if len(parts) not in (2, 3) or parts[0] >= parts[1] or (len(parts) == 3 and parts[2] <= 0):
                    raise ValueError
                return cls(path, parts[0], parts[1], parts[2] if len(parts) == 3 else 1)
            values = tuple(_number(x) for x in rest.split(",") if x.strip())
            if len(values) < 2:
                raise ValueError
            return cls(path, choices=values)
        except ValueError:
            raise UsageError(f"`--vary {text}`: LOW:HIGH[:STEP] needs numbers with LOW < HIGH and "
                             "STEP > 0; a list needs two numbers or more") from None

    def values(self) -> list:
        """Every value the knob may take, low to high."""
        if self.choices:
            return sorted(self.choices)
        count = int(round((self.high - self.low) / self.step)) + 1
        return [_number(repr(self.low + i * self.step)) for i in range(count)
                if self.low + i * self.step <= self.high + 1e-9]

    def suggest(self, trial):
        if self.choices:
            return trial.suggest_categorical(self.path, list(self.choices))
        if all(float(x).is_integer() for x in (self.low, self.high, self.step)):
            return trial.suggest_int(self.path, int(self.low), int(self.high), step=int(self.step))
        return trial.suggest_float(self.path, self.low, self.high, step=self.step)


def _number(text: str):
    value = float(text)
    return int(value) if value.is_integer() else value


@dataclass(frozen=True)
class Targets:
    fair: float | None = None          # points: every seat within this of 1/players
    skill_gap: float | None = None     # points: best agent minus random at least this
    minutes: float | None = None       # about this long (within 10%)
    cards_used: bool = False


@dataclass
class Evidence:
    """One target's measure for one setting."""
    target: str
    found: str
    miss: float
    unsure: str | None = None          # why this many games do not settle met or missed

    @property
    def met(self) -> bool:
        return self.miss == 0


def evidence(report: dict, targets: Targets) -> list[Evidence]:
    """Each target's measure in a `simulate` report, and its miss in points."""
    out = []
    if targets.fair is not None:
        worst = None
        for n, seats in report["seats"].items():
            for w in seats["win"]:
                dev = w["rate"] - 1 / int(n)
                if worst is None or abs(dev) > abs(worst[0]):
                    worst = (dev, n, w)
        if worst:
            dev, n, w = worst
            fair = 1 / int(n)
            out.append(Evidence(f"every seat within ±{targets.fair:g} pts of 1/players",
                                f"worst: seat {w['seat']} at {n} players {100 * w['rate']:.1f}% "
                                f"[{100 * w['lo']:.1f}%–{100 * w['hi']:.1f}%] against a fair "
                                f"{100 * fair:.1f}% ({points(dev)})",
                                max(0.0, 100 * abs(dev) - targets.fair),
                                _unsure(w["lo"] - fair, w["hi"] - fair, -targets.fair, targets.fair)))
    if targets.skill_gap is not None:
        gaps = [(n, q["skill_gap"]) for n, q in report.get("quality", {}).items() if q["skill_gap"]]
        if not gaps:
            raise UsageError("--skill-gap needs random and another agent, e.g. --agents random,greedy")
        n, g = min(gaps, key=lambda item: item[1]["diff"])
        out.append(Evidence(f"skill gap random → best at least {targets.skill_gap:g} pts",
                            f"smallest: {g['best']} {points(g['diff'])} "
                            f"{points_interval(g['lo'], g['hi'])} at {n} players",
                            max(0.0, targets.skill_gap - 100 * g["diff"]),
                            _unsure(g["lo"], g["hi"], targets.skill_gap, math.inf)))
    if targets.minutes is not None:
        games = sum(L["games"] for L in report["length"].values())
        mean = sum(L["minutes"].get("mean", 0) * L["games"] for L in report["length"].values()) / max(1, games)
        off = abs(mean / targets.minutes - 1)
        out.append(Evidence(f"about {targets.minutes:g} minutes (±{100 * MINUTES_TOLERANCE:.0f}%)",
                            f"{mean:.1f} minutes on average "
                            f"({change({'base': targets.minutes, 'diff': mean - targets.minutes})})",
                            max(0.0, 100 * (off - MINUTES_TOLERANCE))))
    if targets.cards_used:
        unused = report["unused"]["never_used"] + [c for c in report["unused"]["never_resolved"]
                                                   if c not in report["unused"]["never_used"]]
        out.append(Evidence("no card unused",
                            f"{len(unused)} unused" + (f": {', '.join(unused[:5])}" if unused else ""),
                            UNUSED_CARD_MISS * len(unused)))
    return out


def _unsure(lo: float, hi: float, low: float, high: float) -> str | None:
    """Whether a 95% interval [lo, hi] (rates) settles a target band of
    [low, high] points: met only if it lies inside, missed only if it lies
    outside; else say how far it reaches."""
    lo, hi = 100 * lo, 100 * hi
    if low <= lo and hi <= high or hi < low or lo > high:
        return None
    return (f"not sure: its 95% interval [{lo:+.1f}, {hi:+.1f}] pts crosses the target's edge; "
            "more --games settle it")


@dataclass
class Trial:
    settings: dict
    evidence: list = field(default_factory=list)
    invalid: str | None = None         # why the setting does not make a valid game

    @property
    def miss(self) -> float:
        return math.inf if self.invalid else sum(e.miss for e in self.evidence)

    def to_json(self) -> dict:
        return {"settings": self.settings, "miss": None if self.invalid else self.miss,
                "invalid": self.invalid,
                "evidence": [{"target": e.target, "found": e.found, "miss": e.miss, "met": e.met,
                              "unsure": e.unsure} for e in self.evidence]}


class Tuner:
    """Plays each setting on the same deals and remembers what it found."""

    def __init__(self, game: str, plan, targets: Targets, games: int, pool):
        self.game, self.plan, self.targets, self.games, self.pool = game, plan, targets, games, pool
        self.tried: dict[tuple, Trial] = {}

    def evaluate(self, settings: dict) -> Trial:
        key = tuple(sorted(settings.items()))
        if key not in self.tried:
            self.tried[key] = self._play(settings)
        return self.tried[key]

    def _play(self, settings: dict) -> Trial:
        from cardc.sim import report as rep
        from cardc.sim.cli import variant_bundle
        from cardc.sim.run import Totals, play_many
        trial = Trial(dict(settings))
        try:
            bundle = _quietly(variant_bundle, self.game, {k: str(v) for k, v in settings.items()})
        except UsageError:
            trial.invalid = "the content does not allow it"
            return trial
        totals = play_many(self.pool, [bundle], self.plan, 0, self.games, Totals.empty(1))
        report = rep.summarize(totals.aggregates[0], bundle, self.plan)
        trial.evidence = evidence(report, self.targets)
        return trial


def _quietly(fn, *args):
    """Run `fn` with the build's diagnostics (stderr) held back: a setting the
    content refuses is a skipped trial, not an error to show."""
    import contextlib
    import io
    with contextlib.redirect_stderr(io.StringIO()):
        return fn(*args)


def search(tuner: Tuner, knobs: list, trials: int, seed: int, on_trial=None) -> list[Trial]:
    """`trials` settings of the knobs (a repeat costs nothing).  A space of
    no more settings than trials is tried whole (optuna's GridSampler);
    a larger one starts from its corners (every knob low, every knob high,
    the middle) and goes on with optuna's TPE, which models where good
    settings lie from those already tried."""
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    grid = {k.path: k.values() for k in knobs}
    if math.prod(len(v) for v in grid.values()) <= trials:
        sampler = optuna.samplers.GridSampler(grid, seed=seed)
        trials = math.prod(len(v) for v in grid.values())
    else:
        sampler = optuna.samplers.TPESampler(seed=seed, n_startup_trials=max(3, trials // 4))
    study = optuna.create_study(direction="minimize", sampler=sampler)
    if not isinstance(sampler, optuna.samplers.GridSampler):
        for pick in (0, -1, None):
            study.enqueue_trial({path: v[len(v) // 2] if pick is None else v[pick]
                                 for path, v in grid.items()})
    order = []

    def objective(trial):
        found = tuner.evaluate({k.path: k.suggest(trial) for k in knobs})
        if found not in order:
            order.append(found)
        if on_trial:
            on_trial()
        return found.miss if math.isfinite(found.miss) else 1e9
    study.optimize(objective, n_trials=trials)
    return order


def add_command(sub) -> None:
    from cardc.sim.cli import _common
    s = sub.add_parser("tune", help="search the numbers you let move for a game that meets "
                       "your targets (seat fairness, skill gap, length, every card used)")
    _common(s)
    s.add_argument("--vary", action="append", default=[], required=True,
                   metavar="PATH=LOW:HIGH[:STEP]",
                   help="a number that may move, as for --set (repeat for several), "
                        "or PATH=V1,V2,... for listed values")
    s.add_argument("--fair", type=float, metavar="POINTS",
                   help="target: every seat's win rate within POINTS of 1/players (e.g. 5)")
    s.add_argument("--skill-gap", type=float, metavar="POINTS",
                   help="target: the best agent beats random's win rate by at least POINTS")
    s.add_argument("--minutes", type=float, help="target: games about this long (within 10%%)")
    s.add_argument("--cards-used", action="store_true", help="target: no card left unused")
    s.add_argument("--trials", type=int, default=20, help="settings to try (default 20)")
    s.add_argument("--games", type=int, default=200,
                   help="games per setting, the same deals for each (default 200)")
    s.set_defaults(func=cmd_tune)


def cmd_tune(args) -> int:
    from cardc.sim.answer import baseline_values
    from cardc.sim.cli import _progress, _write, make_plan, variant_bundle
    from cardc.sim.run import executor
    try:
        import optuna  # noqa: F401
    except ImportError:
        raise UsageError("cardc tune needs optuna: pip install optuna (or cardc's `tune` extra)") from None
    knobs = [Knob.parse(v) for v in args.vary]
    targets = Targets(args.fair, args.skill_gap, args.minutes, args.cards_used)
    if targets == Targets():
        raise UsageError("name at least one target: --fair 5, --skill-gap 20, --minutes 45 "
                         "or --cards-used")
    if args.trials < 1 or args.games < 2:
        raise UsageError("--trials must be at least 1 and --games at least 2")
    bundle = variant_bundle(args.game, {})
    plan = make_plan(args, bundle)
    for k, text in zip(knobs, args.vary, strict=True):
        # a path that names no number is the designer's to fix, not a skipped trial
        try:
            variant_bundle(args.game, {k.path: str(k.choices[0] if k.choices else k.low)})
        except UsageError:
            raise UsageError(f"`--vary {text}`: the content does not take this value "
                             "(the diagnostic above says why)") from None
    written = baseline_values(bundle, [k.path for k in knobs])
    pool = executor(args.jobs, args.cluster)
    try:
        tuner = Tuner(args.game, plan, targets, args.games, pool)
        with _progress(args.quiet) as bar:
            task = bar.add_task(f"{bundle['name']}: tune, settings tried", total=args.trials + 1,
                                unit="settings", rate="")
            # the content as written is a setting too (the same cache, the same deals)
            baseline = tuner.evaluate(written if None not in written.values() else {})
            bar.advance(task)
            tried = search(tuner, knobs, args.trials, args.seed, lambda: bar.advance(task))
    finally:
        pool.close()
    best = min(tried, key=lambda t: (t.miss, _distance(t.settings, written)))
    result = {"game": bundle["game"], "name": bundle["name"], "seed": args.seed,
              "games_per_setting": args.games, "players": list(plan.players),
              "agents": list(plan.agents), "written": written,
              "baseline": baseline.to_json(), "best": best.to_json(),
              "fix": fix(best.settings, written), "trials": [t.to_json() for t in tried]}
    result["answer"] = answer(result)
    if not args.quiet:
        print_tune(result)
    if args.json:
        import json
        _write(args.json, json.dumps(result, indent=1))
    return 0


def _distance(settings: dict, written: dict) -> float:
    """How far a setting moves from the content as written (ties go to the nearest)."""
    return sum(abs(v - (written.get(k) or 0)) for k, v in settings.items())


def fix(settings: dict, written: dict) -> list[str]:
    """What to change, from what, in the content."""
    return [f"{path}: {written[path] if written.get(path) is not None else '(not written)'} → {v}"
            for path, v in settings.items() if written.get(path) != v]


def answer(result: dict) -> list[str]:
    base, best = result["baseline"], result["best"]
    written = ", ".join(f"{k} = {v}" for k, v in result["written"].items() if v is not None)
    name = f"{result['name']} as written" + (f" ({written})" if written else "")
    lines = [f"{name} misses its targets by {base['miss']:.1f} pts" if base["miss"]
             else f"{name} meets every target"]
    lines[0] += (f" ({result['games_per_setting']:,} games a setting, the same deals for each; "
                 f"{len(result['trials'])} settings tried)."
                 )
    if best["miss"] is None:
        lines.append("No setting tried makes a valid game.")
        return lines
    met = "meets every target" if best["miss"] == 0 else f"misses by {best['miss']:.1f} pts"
    if any(e.get("unsure") for e in best["evidence"]):
        met += f"; not every target is sure at {result['games_per_setting']:,} games"
    lines.append(f"Best found ({met}): " + (", ".join(result["fix"]) or "the content as written") + ".")
    for e, was in zip(best["evidence"], base["evidence"], strict=False):
        lines.append(f"  {e['target']}: {e['found']} — {'met' if e['met'] else 'missed'}"
                     + (f", {e['unsure']}" if e.get("unsure") else "")
                     + f" (as written: {was['found']}).")
    return lines


def print_tune(result: dict, console=None) -> None:
    from cardc.render.terminal import console as terminal_console
    from cardc.sim.report import _table
    console = console or terminal_console()
    for line in result["answer"]:
        console.print(line, markup=False, highlight=False)
    paths = list(result["trials"][0]["settings"]) if result["trials"] else []
    t = _table("Settings tried (miss in points; 0 meets every target)", (*paths, "miss"),
               left=())
    for trial in sorted(result["trials"], key=lambda x: (x["miss"] is None, x["miss"] or 0)):
        t.add_row(*(str(trial["settings"].get(p)) for p in paths),
                  trial["invalid"] or f"{trial['miss']:.1f}")
    console.print(t)
