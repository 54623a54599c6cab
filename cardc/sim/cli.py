"""The `simulate`, `sweep` and `compare` commands.

    cardc simulate ipo --games 2000 --players 3,4,5 --agents random,greedy --json r.json --html r.html
    cardc simulate unicorn --start-zone startup --set params.pr_penalty=100
    cardc sweep unicorn --set params.pr_penalty=50,100 --until-decisive 0.04 --max-games 20000
    cardc compare before.json after.json

This module only reads options, builds the bundles and wires the pieces:
games are played by `run`, counted by `stats` and shown by `report`.
"""
from __future__ import annotations

import contextlib
import fnmatch
import json
import os
import sys
import time
import tracemalloc
from pathlib import Path

from cardc.commands.cliargs import AGENTS_MEANING, not_negative, positive
from cardc.load.paths import find_project
from cardc.project import UsageError, build_folder, game_folders, generated_dir, load_bundle
from cardc.sim import report as rep
from cardc.sim.answer import baseline_values, compare_answer, sweep_answer
from cardc.sim.run import (
    HoleWriter,
    Plan,
    Totals,
    cpu_seconds,
    executor,
    peak_rss_mb,
    play_many,
    seconds_per_decision,
    workers_cpu_seconds,
    write_bundle,
)
from cardc.sim.sequential import BUDGET, DETECT_POINTS, DETECT_SHARE, Design, look_sizes
from cardc.sim.stats import ALPHA, ANSWER_USE, CARD_USES, mark_significant


def add_commands(sub) -> None:
    s = sub.add_parser("simulate", help="play many games with agents and report balance, length "
                       "and card usage")
    _common(s)
    s.add_argument("--games", type=positive, default=1000, help="games to play (default 1000)")
    s.add_argument("--set", action="append", default=[], metavar="PATH=VALUE",
                   help="change a number of the content for this run, e.g. params.win_at=15")
    s.add_argument("--html", metavar="PATH", help="write an HTML report with charts")
    s.set_defaults(func=cmd_simulate)

    s = sub.add_parser("sweep", help="paired runs of content variants against the baseline")
    _common(s)
    s.add_argument("--set", action="append", default=[], required=True, metavar="PATH=V1,V2,...",
                   help="values to try, one variant each (repeat for several paths)")
    s.add_argument("--games", type=positive, default=500,
                   help="games per variant at the first look (then 2x, 4x, ... until decided; "
                        "with --fixed: all the games; default 500)")
    s.add_argument("--fixed", action="store_true",
                   help="play exactly --games games, no sequential stopping")
    s.add_argument("--detect", type=float, default=100 * DETECT_POINTS, metavar="POINTS",
                   help="the smallest win-rate difference that matters, in percentage points "
                        "(default 5): smaller is called unchanged")
    s.add_argument("--detect-change", type=float, default=100 * DETECT_SHARE, metavar="PERCENT",
                   help="the same for other metrics, in percent of the baseline (default 10)")
    s.add_argument("--until-decisive", type=float, metavar="WIDTH",
                   help="instead: play batches until every difference's 95%% interval is narrower "
                        "than WIDTH")
    s.add_argument("--max-games", type=positive, default=BUDGET,
                   help="the budget: games per variant at most (default 20000)")
    s.add_argument("--decide-on", default="win.*",
                   help="metrics (comma-separated, * wildcards) a sweep waits for "
                        "(default win.*: win rates by seat and by agent)")
    s.add_argument("--html", metavar="PATH", help="write an HTML page of the differences")
    s.set_defaults(func=cmd_sweep)

    s = sub.add_parser("compare", help="two saved simulation reports side by side")
    s.add_argument("a", help="the first report, the baseline (written by cardc simulate --json)")
    s.add_argument("b", help="the second report, compared with the first")
    s.add_argument("--significant", action="store_true", help="show only significant differences")
    s.add_argument("--json", metavar="PATH", help="write the comparison as JSON")
    s.add_argument("--html", metavar="PATH", help="write the comparison as an HTML page")
    s.set_defaults(func=cmd_compare)


def _common(s) -> None:
    s.add_argument("game", help="game id or folder")
    s.add_argument("--players", help="player counts, e.g. 3,4,5 (default: every count allowed)")
    s.add_argument("--agents", default="random",
                   help="agents, comma-separated: " + AGENTS_MEANING + "; the seating shifts one "
                        "seat each game, so every agent plays every seat (default random)")
    s.add_argument("--seed", type=int, default=0, help="the run's seed: same seed, same report")
    s.add_argument("--jobs", type=positive, default=os.cpu_count() or 1,
                   help="worker processes (default: every core); results do not depend on it")
    s.add_argument("--cluster", metavar="ADDRESS", help="run on a Dask scheduler, e.g. tcp://host:8786")
    s.add_argument("--start-zone", metavar="ZONE",
                   help="per-player zone holding each seat's starting choice once setup is over "
                        "(e.g. startup for unicorn, trait for startup): win rates by it")
    s.add_argument("--use-zones", metavar="Z1,Z2",
                   help="zones a card entering counts as used (default: public per-player zones)")
    s.add_argument("--target-minutes", type=float, help="target length (default: the game's timing)")
    s.add_argument("--max-decisions", type=positive, default=100_000,
                   help="a game still running after this many decisions is stopped as stalled")
    s.add_argument("--holes", metavar="DIR", help="where rule-hole replays go "
                   "(default generated/holes/<game>/)")
    s.add_argument("--max-holes", type=not_negative, default=100, help="replays saved at most (default 100)")
    s.add_argument("--json", metavar="PATH", help="write the report as JSON")
    s.add_argument("--records", metavar="PATH", help="append one JSON line per game to this file")
    s.add_argument("--trace-memory", action="store_true",
                   help="measure the main process's peak Python memory (tracemalloc; slower)")
    s.add_argument("--quiet", action="store_true", help="no progress bar nor tables")


# ---------------------------------------------------------------- simulate

def cmd_simulate(args) -> int:
    report = simulate_report(args)
    _finish(args, report, rep.print_report, rep.render_html)
    if report.get("holes_failed"):
        print(f"cardc: warning: {report['holes_failed']}", file=sys.stderr)
    faulted = report["endings"].get("fault", {}).get("games", 0)
    if faulted:      # an engine fault is a bug in the rules: a script must not miss it
        holes = Path(args.holes) if args.holes else generated_dir(args.game) / "holes" / report["game"]
        print(f"cardc: {faulted} of {args.games} games faulted; their replays are in {holes}",
              file=sys.stderr)
        return 1
    return 0


def simulate_report(args, progress=None) -> dict:
    """The report of `cardc simulate`; `progress` stands in for the terminal's
    progress bar (`cardc serve` shows it on a page)."""
    from cardc.project.overrides import parse_sets
    overrides = _parse(parse_sets, args.set)
    bundle = variant_bundle(args.game, overrides)
    plan = make_plan(args, bundle)
    with _Runner(args, [bundle], [overrides], plan, args.games, progress) as runner:
        totals = runner.run(0, args.games)
    report = runner.summary(0, totals)
    if runner.holes.failed:         # a read-only or full disk: the report says so, and is still written
        report["holes_failed"] = f"{runner.holes.failed} ({runner.holes.skipped} not saved)"
    return report


# ---------------------------------------------------------------- sweep

def cmd_sweep(args) -> int:
    _finish(args, sweep_report(args), rep.print_sweep, rep.render_sweep_html)
    return 0


def sweep_report(args, progress=None) -> dict:
    """The report of `cardc sweep` (`progress` as for simulate_report)."""
    variants = [{}]
    for item in args.set:
        path, sep, values = item.partition("=")
        if not sep or not values:
            raise UsageError(f"`--set {item}`: write PATH=V1,V2,... e.g. params.pr_penalty=50,100")
        variants += [{path.strip(): v.strip()} for v in values.split(",") if v.strip()]
    bundles = [variant_bundle(args.game, v) for v in variants]
    plan = make_plan(args, bundles[0])
    patterns = [p.strip() for p in args.decide_on.split(",") if p.strip()]
    sequential = not getattr(args, "fixed", True) and not args.until_decisive
    limit = args.games if not sequential and not args.until_decisive else max(args.games, args.max_games)
    looks = look_sizes(args.games, limit) if sequential else \
        list(range(args.games, limit, args.games)) + [limit]
    design = Design(len(looks), tuple(patterns), detect_points=args.detect / 100,
                    detect_share=args.detect_change / 100) if sequential else None
    done, totals, verdicts = 0, None, None
    with _Runner(args, bundles, variants, plan, limit, progress) as runner:
        for look, stop in enumerate(looks, 1):  # noqa: B007 (`look` is read after the loop)
            if design is not None:     # the bar runs to the next look, not to the budget
                runner.expect(stop)
            totals = runner.run(done, stop, totals)
            done = stop
            if design is not None:
                verdicts = design.verdicts([{n: d.summary() for n, d in p.diffs.items()
                                             if not n.startswith(CARD_USES)}
                                            for p in totals.paired[1:]])
                if all(v != "open" for vs in verdicts for v in vs.values()):
                    break
            elif not args.until_decisive or _decided(totals, patterns, args.until_decisive):
                break
    sweep = {"format": rep.REPORT_FORMAT, "kind": "sweep", "game": bundles[0]["game"],
             "name": bundles[0]["name"], "seed": plan.seed, "games": done,
             "players": list(plan.players), "agents": list(plan.agents),
             "until_decisive": args.until_decisive, "decide_on": patterns,
             "baseline": runner.summary(0, totals), "variants": []}
    names = {c["id"]: c["name"] for c in bundles[0]["cards"]}
    for k in range(1, len(bundles)):
        every = {name: d.summary() for name, d in sorted(totals.paired[k].diffs.items())}
        diffs = {n: d for n, d in every.items() if not n.startswith(CARD_USES)}
        cards = {n: d for n, d in every.items() if n.startswith(CARD_USES)}
        for n, d in cards.items():
            use, _, rest = n.partition(".")
            d["card"], _, d["agent"] = rest.partition(".")
            d["use"] = use
            d["name"] = names.get(d["card"], d["card"]) + (" (answer)" if n.startswith(ANSWER_USE) else "")
        decided = (_widths_ok(every, patterns, args.until_decisive) if args.until_decisive else
                   all(v != "open" for v in verdicts[k - 1].values()) if verdicts else None)
        sweep["variants"].append({
            "set": variants[k], "diffs": diffs, "cards": cards, "decided": decided,
            **({"verdicts": verdicts[k - 1]} if verdicts else {}),
            "report": runner.summary(k, totals)})
    sweep["correction"] = "holm"
    sweep["level"] = design.level if design else ALPHA
    sweep["families"] = mark_families(sweep["variants"], sweep["level"])
    if design is not None:
        sweep["sequential"] = {"looks": look, "looks_planned": len(looks), "level": design.level,
                               "detect_points": design.detect_points,
                               "detect_share": design.detect_share, "budget": limit,
                               "error_rates": design.describe()}
        sweep["stopped"] = _stopped(sweep, look, len(looks), limit)
    sweep["answer"] = sweep_answer(sweep, baseline_values(bundles[0], [p for v in variants for p in v]))
    sweep["run"] = sweep["baseline"]["run"]
    return sweep


def _stopped(sweep: dict, look: int, looks: int, budget: int) -> str:
    """Why a sequential sweep stopped, in words."""
    open_ = sorted({n for v in sweep["variants"] for n, x in v["verdicts"].items() if x == "open"})
    tally = [x for v in sweep["variants"] for x in v["verdicts"].values()]
    if not open_:
        return (f"Stopped at look {look} of {looks} ({sweep['games']:,} games): every difference "
                f"waited for is decided ({tally.count('changed')} changed, "
                f"{tally.count('unchanged')} unchanged by less than the smallest that matters).")
    return (f"The budget of {budget:,} games is spent; still undecided: {', '.join(open_[:6])}"
            + (" ..." if len(open_) > 6 else "") + " (raise --max-games or --detect).")


def mark_families(variants: list, alpha: float = ALPHA) -> dict:
    """Mark significance in two families, each Holm-corrected on its own:
    the outcome metrics (`diffs`: length, win rates, scores) of every
    variant, and the card-use metrics (`cards`: `played.<card>.<agent>` and
    `answered.<card>.<agent>`) of every variant.  Forty cards times two agents would otherwise swamp a
    dozen outcome metrics: a change in who wins would need a p-value ten
    times smaller to be seen.  A card row whose every paired difference is
    0 (the card was resolved alike in both games of every pair, mostly
    never) cannot be significant and is left out of its family
    (`tested: false`), so dead cards do not weaken the test of live ones."""
    outcome = [d for v in variants for d in v["diffs"].values()]
    mark_significant(outcome, alpha)
    cards = [d for v in variants for d in v["cards"].values()]
    tested = []
    for d in cards:
        d["tested"] = d["n"] > 1 and not (d["diff"] == 0 and d["width"] == 0)
        if d["tested"]:
            tested.append(d)
        else:
            d["significant_alone"] = d["significant"] = False
    mark_significant(tested, alpha)
    return {"outcome": {"tests": len(outcome), "significant": sum(d["significant"] for d in outcome)},
            "card_use": {"tests": len(tested), "untested": len(cards) - len(tested),
                         "significant": sum(d["significant"] for d in tested)}}


def _decided(totals: Totals, patterns, width) -> bool:
    return all(_widths_ok({n: d.summary() for n, d in paired.diffs.items()}, patterns, width)
               for paired in totals.paired[1:])


def _widths_ok(diffs: dict, patterns, width) -> bool:
    """Every difference the patterns name is measured and narrower than `width`."""
    chosen = [d for name, d in diffs.items() if any(fnmatch.fnmatch(name, p) for p in patterns)]
    return bool(chosen) and all(d["n"] > 1 and d["width"] < width for d in chosen)


# ---------------------------------------------------------------- compare

def cmd_compare(args) -> int:
    a, b = (_read_report(p) for p in (args.a, args.b))
    if a["game"] != b["game"]:
        print(f"note: comparing two different games ({a['game']} and {b['game']})", file=sys.stderr)
    rows = rep.compare(a, b)
    answer = compare_answer(a, b, rows)
    rep.print_compare(a, b, rows, only_significant=args.significant, answer=answer)
    if args.json:
        _write(args.json, json.dumps({"a": args.a, "b": args.b, "answer": answer, "rows": rows},
                                     indent=1))
    if args.html:
        _write(args.html, rep.render_compare_html(a, b, rows, answer))
    return 0


def _read_report(path) -> dict:
    try:
        text = Path(path).read_text(encoding="utf-8")    # unreadable: the OSError, exit 3
    except UnicodeDecodeError:
        raise UsageError(f"`{path}` is not a report written by `cardc simulate --json` (not text)") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"`{path}` is not a report written by `cardc simulate --json` "
                         f"(not JSON: {exc})") from None
    if not isinstance(data, dict) or "metrics" not in data or data.get("kind") == "sweep":
        raise UsageError(f"`{path}` is not a report written by `cardc simulate --json`")
    return data


# ---------------------------------------------------------------- shared

def variant_bundle(name: str, overrides: dict) -> dict:
    """The game's bundle with `overrides` applied.  A variant gets its own
    hash (the sources' hash plus the overrides), so its replays are never
    taken for replays of the unchanged game."""
    if not overrides:
        return load_bundle(name)
    if Path(name).suffix == ".json":
        raise UsageError("--set changes the content before compiling: name a game or folder, "
                         "not a compiled bundle")
    built = build_folder(game_folders([name])[0], overrides=overrides)
    if built.bundle is None or built.diags.has_errors:
        from cardc.load.diagnostics import SourceCache
        print(built.diags.render(SourceCache()), file=sys.stderr)
        raise UsageError("the --set values do not make a valid game")
    return built.bundle        # build_folder gives a variant its own source hash


def make_plan(args, bundle: dict) -> Plan:
    from cardc.agents import make_agent, parse_agent
    lo, hi = bundle["players"]["min"], bundle["players"]["max"]
    try:
        players = tuple(int(x) for x in args.players.split(",")) if args.players else tuple(range(lo, hi + 1))
    except ValueError:
        raise UsageError(f"--players takes numbers, e.g. 3,4,5, not `{args.players}`") from None
    bad = [n for n in players if not lo <= n <= hi]
    if bad or not players:
        raise UsageError(f"{bundle['name']} is for {lo} to {hi} players, not {bad or args.players}")
    agents = tuple(a.strip() for a in args.agents.split(",") if a.strip())
    if not agents:
        raise UsageError(f"--agents names no agent: `{args.agents}`")
    for a in agents:
        try:
            cls, _ = parse_agent(a)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if cls.name == "human":
            raise UsageError("`human` cannot play in a simulation; simulation agents: random, "
                             "osla, greedy, mcts, elite (e.g. mcts:400)")
    tuned = (bundle.get("agents") or {}).get("mcts")
    if tuned:
        try:
            make_agent("mcts", 0, bundle["agents"])
        except ValueError as exc:
            raise UsageError(f"{bundle['name']}: {exc}; fix `agents:` in its game.yaml") from None
    zone = args.start_zone
    if zone:
        zones = {z["id"]: z for z in bundle["zones"]}
        if zone not in zones or zones[zone]["owner"] != "player":
            mine = [z for z, d in zones.items() if d["owner"] == "player"]
            raise UsageError(f"--start-zone `{zone}` is not a per-player zone of {bundle['name']}; "
                             "those are: " + ", ".join(mine))
    if args.jobs < 1 or getattr(args, "games", 1) < 1:
        raise UsageError("--jobs and --games must be at least 1")
    return Plan(players, agents, args.seed, zone, args.max_decisions)


def _parse(parser, items):
    try:
        return parser(items)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


class _Runner:
    """Runs games of one or more variants: owns the worker pool, the progress
    bar and the JSON-lines file for the whole command, saves rule holes as
    chunks arrive, and measures speed and memory."""

    def __init__(self, args, bundles, variants, plan, total, progress=None):
        self.args, self.bundles, self.variants, self.plan = args, bundles, variants, plan
        game_id = bundles[0]["game"]
        self.holes = HoleWriter(Path(args.holes) if args.holes else generated_dir(args.game) / "holes" / game_id,
                                args.max_holes)
        self.source = _replay_source(args.game, game_id)
        self.games, self.bundle_files = {}, {}
        self.total = total * len(bundles)
        self.seconds, self.played, self.worker_rss, self.memory = 0.0, 0, 0.0, {}
        self.parent_cpu = 0.0       # CPU seconds of this process while games were played
        self.stack = contextlib.ExitStack()
        self.progress = progress

    def __enter__(self):
        args = self.args
        if args.trace_memory:
            tracemalloc.start()
        self.lines = self.stack.enter_context(open(args.records, "a")) if args.records else None
        self.pool = executor(args.jobs, args.cluster)
        self.stack.callback(self.pool.close)
        self.bar = self.progress or self.stack.enter_context(_progress(args.quiet))
        self.task = self.bar.add_task(self.bundles[0]["name"], total=self.total, rate="")
        return self

    def __exit__(self, *exc):
        self.stack.close()
        self.memory = {"peak_rss_mb": peak_rss_mb(), "worker_peak_rss_mb": self.worker_rss}
        if self.args.trace_memory:
            self.memory["traced_peak_mb"] = round(tracemalloc.get_traced_memory()[1] / 2**20, 2)
            tracemalloc.stop()

    def run(self, start, stop, totals=None) -> Totals:
        """Play games [start, stop) of every variant into `totals`."""
        totals = totals or Totals.empty(len(self.bundles))
        t0 = time.perf_counter()
        played_before, seconds_before = self.played, self.seconds

        def on_chunk(result):
            self.played += (result.stop - result.start) * len(self.bundles)
            self.seconds = seconds_before + time.perf_counter() - t0
            rate = (self.played - played_before) / (self.seconds - seconds_before or 1e-9)
            self.bar.update(self.task, completed=self.played, rate=f"{rate:,.1f} games/s")
            for k, rec in result.holes:
                self._save_hole(k, rec)
            for k, line in result.lines:
                if len(self.bundles) > 1:
                    line = {"variant": self.variants[k], **line}
                self.lines.write(json.dumps(line) + "\n")

        cpu0 = time.process_time()
        play_many(self.pool, self.bundles, self.plan, start, stop, totals, on_chunk,
                  lines=self.lines is not None)
        self.parent_cpu += time.process_time() - cpu0
        self.worker_rss = max(self.worker_rss, totals.worker_rss_mb)
        return totals

    def expect(self, games: int) -> None:
        """The progress bar's end: `games` games of every variant."""
        self.total = games * len(self.bundles)
        self.bar.update(self.task, total=self.total)

    def _save_hole(self, k, rec):
        """Save a hole's replay; a variant's replay needs the variant's bundle
        (saved beside it), a game outside content/ its folder."""
        from cardc.engine import Game
        if k not in self.games:
            self.games[k] = Game(self.bundles[k])
            try:
                self.bundle_files[k] = (write_bundle(self.holes.folder, self.bundles[k])
                                        if self.variants[k] else self.source)
            except OSError as exc:
                self.holes.failed = f"cannot save rule holes in {self.holes.folder}: {exc.strerror or exc}"
                self.bundle_files[k] = None
        self.holes.save(self.games[k], rec, self.variants[k], self.bundle_files[k])

    def summary(self, k, totals) -> dict:
        args = self.args
        run = {"seconds": round(self.seconds, 3), "games_per_s": round(self.played / self.seconds, 2)
               if self.seconds else 0.0, "workers": self.pool.workers, "cluster": args.cluster,
               "seconds_per_decision": seconds_per_decision(totals.think),
               "cpu_seconds": cpu_seconds(totals), "parent_cpu_seconds": round(self.parent_cpu, 3),
               "workers_cpu_seconds": workers_cpu_seconds(totals),
               **self.memory}
        holes = [h for h in self.holes.saved if h["overrides"] == self.variants[k]]
        use = args.use_zones.split(",") if args.use_zones else None
        return rep.summarize(totals.aggregates[k], self.bundles[k], self.plan,
                             overrides=self.variants[k], holes=holes,
                             holes_skipped=self.holes.skipped if k == 0 else 0,
                             target_minutes=args.target_minutes, use_zones=use, run=run)


def _replay_source(name: str, game_id: str) -> str | None:
    """What `cardc replay --bundle` needs to find the game again: nothing
    for a game of content/, else the folder or bundle file as given."""
    project = find_project()
    if Path(name).suffix != ".json" and project is not None and \
            game_folders([name])[0].resolve() == (project.content / game_id).resolve():
        return None
    return name


#: a progress line is printed each time this share of the games is done
#: (when the output is not a terminal)
PROGRESS_STEP = 0.1


class _LineProgress:
    """The progress bar's stand-in when the output is not a terminal (a
    `nohup` log, a CI job): the bar would show only once the run ends, so a
    line goes to stderr each time another tenth of the games is done, and at
    the end.  The same calls as rich's Progress (add_task, update, advance)."""

    def __init__(self, stream):
        self.stream, self.tasks = stream, []

    def add_task(self, description, total=None, unit="games", **fields):
        """`unit` names what is counted in the line (rich's bar shows only the numbers)."""
        self.tasks.append({"description": description, "total": total or 0, "completed": 0, "unit": unit,
                           "fields": dict(fields), "start": time.perf_counter(), "shown": -1})
        return len(self.tasks) - 1

    def update(self, task, completed=None, advance=None, total=None, **fields):
        t = self.tasks[task]
        t["fields"].update(fields)
        if total is not None and total != t["total"]:
            t["total"] = total          # a new end: the lines go on from the share done so far
            t["shown"] = min(int(t["completed"] / total / PROGRESS_STEP), int(1 / PROGRESS_STEP)) \
                if total else -1
        if advance:
            t["completed"] += advance
        if completed is not None:
            t["completed"] = completed
        self._maybe_show(t)

    def advance(self, task, advance=1):
        self.update(task, advance=advance)

    def _maybe_show(self, t):
        total, done = t["total"], t["completed"]
        if not total or not done:
            return
        step = min(int(done / total / PROGRESS_STEP), int(1 / PROGRESS_STEP))
        if step <= t["shown"] and done < total:
            return
        if done >= total and t["shown"] == "end":
            return
        t["shown"] = "end" if done >= total else step
        elapsed = time.perf_counter() - t["start"]
        eta = elapsed * (total - done) / done
        extra = " ".join(str(v) for v in t["fields"].values() if v)
        print(f"{t['description']}: {done}/{total} {t['unit']} ({100 * done / total:.0f}%), "
              f"{_clock(elapsed)} elapsed, eta {_clock(eta)}" + (f", {extra}" if extra else ""),
              file=self.stream, flush=True)


def _clock(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


@contextlib.contextmanager
def _progress(quiet: bool):
    """The progress bar: rich's on a terminal, lines on stderr otherwise."""
    if not quiet and not sys.stdout.isatty():
        yield _LineProgress(sys.stderr)
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    with Progress(TextColumn("{task.description}", style="bold", markup=False), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("eta"),
                  TimeRemainingColumn(), disable=quiet) as bar:
        yield bar


def _finish(args, data: dict, printer, html_renderer) -> None:
    if not args.quiet:
        printer(data)
    if args.json:
        _write(args.json, json.dumps(data, indent=1))
    if args.html:
        _write(args.html, html_renderer(data))
    for what, path in (("JSON", args.json), ("HTML", args.html)):
        if path and not args.quiet:
            print(f"{what} report written to {path}")


def _write(path, text: str) -> None:
    from cardc.render.atomic import write_atomic
    write_atomic(Path(path), (text + "\n").encode("utf-8"))
