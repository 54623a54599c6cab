"""The main job of `./run`: every game of the project checked, built,
printed, given its rulebook and simulated, then one screen saying what
happened. What each step printed goes to a log file under
`generated/run/`, named in the summary, as is each full simulation report.

    python -m cardc.commands.showcase [--games 200] [--seed 1] [GAME ...]
"""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from cardc.cli import main as cardc
from cardc.load.diagnostics import display_path
from cardc.project import current_project


@dataclass
class Step:
    code: int
    out: str
    log: Path


@dataclass
class GameRun:
    name: str
    steps: dict[str, Step] = field(default_factory=dict)
    report: dict | None = None
    report_file: Path | None = None

    @property
    def ok(self) -> bool:
        return all(s.code == 0 for s in self.steps.values())


def run_step(logs: Path, label: str, args: list[str]) -> Step:
    """One cardc command, its output kept in logs/<label>.log."""
    log = logs / f"{label}.log"
    with open(log, "w", encoding="utf-8") as handle, \
            contextlib.redirect_stdout(handle), contextlib.redirect_stderr(handle):
        print("$ cardc " + " ".join(args), flush=True)
        code = cardc(args)
    text = log.read_text(encoding="utf-8").split("\n", 1)[1]
    return Step(code, text, log)


def run_game(game: str, logs: Path, games: int, seed: int) -> GameRun:
    out = GameRun(game)
    out.steps["check"] = run_step(logs, f"{game}-check", ["check", game])
    out.steps["build"] = run_step(logs, f"{game}-build", ["build", game])
    if out.steps["build"].code:
        return out
    out.steps["print"] = run_step(logs, f"{game}-print", ["print", game])
    out.steps["rulebook"] = run_step(logs, f"{game}-rulebook", ["rulebook", game])
    out.report_file = logs / f"{game}-simulate.json"
    out.steps["simulate"] = run_step(logs, f"{game}-simulate", [
        "simulate", game, "--games", str(games), "--seed", str(seed), "--quiet",
        "--json", str(out.report_file)])
    if out.report_file.is_file():
        out.report = json.loads(out.report_file.read_text(encoding="utf-8"))
    return out


def _status(step: Step | None, game: str) -> str:
    """What check and build said about the game: their `game: …` line."""
    if step is None:
        return "not run"
    said = [ln.removeprefix(f"{game}:").strip() for ln in step.out.splitlines()
            if ln.startswith(f"{game}:")]
    text = said[-1] if said else f"exit {step.code}"
    return text if step.code == 0 else f"{text}  [FAILED, see {display_path(step.log)}]"


def _files(step: Step | None) -> str:
    if step is None:
        return "not run"
    paths = [display_path(ln.strip()) for ln in step.out.splitlines() if ln.strip().endswith((".pdf", ".md"))]
    if step.code or not paths:
        return f"FAILED, see {display_path(step.log)}"
    return ", ".join(paths)


def digest_rows(run: GameRun) -> list[list[str]]:
    """Rows of the simulation digest: one per player count."""
    report = run.report
    if not report:
        return [[run.name, "-", "-", "-", f"no report, see {display_path(run.steps['simulate'].log)}"
                 if "simulate" in run.steps else "not run", "-", "-"]]
    endings = report.get("endings", {})
    faults = endings.get("fault", {}).get("games", 0)
    no_winner = sum(endings.get(e, {}).get("games", 0) for e in ("no_winner", "capped", "stalled"))
    rows: list[list[str]] = []
    for n, length in sorted(report.get("length", {}).items(), key=lambda kv: int(kv[0])):
        wins = report.get("seats", {}).get(n, {}).get("win", [])
        rates = "/".join(f"{w['rate'] * 100:.0f}" for w in wins)
        turns = length.get("turns", {}).get("mean")
        rows.append([run.name, n, str(length.get("games", 0)),
                     f"{turns:.1f}" if isinstance(turns, (int, float)) else "-", rates,
                     str(no_winner) if not rows else "", str(faults) if not rows else ""])
    return rows


def table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def summary(runs: list[GameRun], games: int, seed: int, seconds: float) -> str:
    out = []
    for run in runs:
        out.append(f"{run.name}")
        out.append(f"  checked   {_status(run.steps.get('check'), run.name)}")
        out.append(f"  built     {_status(run.steps.get('build'), run.name)}")
        out.append(f"  printed   {_files(run.steps.get('print'))}")
        out.append(f"  rulebook  {_files(run.steps.get('rulebook'))}")
    out.append("")
    out.append(f"simulation: {games} games per game, seed {seed}, random agents "
               "(no winner: capped or stalled games too)")
    rows = [row for run in runs for row in digest_rows(run)]
    out.append(table(["game", "players", "games", "mean turns", "win % by seat", "no winner", "faults"], rows))
    reports = [display_path(r.report_file) for r in runs if r.report and r.report_file]
    if reports:
        out.append("full reports: " + ", ".join(reports))
    bad = [r.name for r in runs if not r.ok]
    out.append(f"{'FAILED: ' + ', '.join(bad) if bad else 'all ok'} in {seconds:.0f}s "
               f"(each step's output: {display_path(runs[0].steps['check'].log.parent)}/)" if runs else "no games")
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m cardc.commands.showcase", description=__doc__.split("\n\n")[0])
    p.add_argument("games", nargs="*", help="game ids (default: every game of the project)")
    p.add_argument("--games", dest="count", type=int, default=200, help="games simulated per game")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    project = current_project()
    names = args.games or [f.name for f in project.games()]
    logs = project.generated / "run"
    logs.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    runs = []
    for name in names:
        print(f"{name}: checking, building, printing, simulating {args.count} games…", flush=True)
        runs.append(run_game(name, logs, args.count, args.seed))
    print()
    print(summary(runs, args.count, args.seed, time.perf_counter() - t0))
    return 0 if all(r.ok for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
