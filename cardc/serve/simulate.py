"""A simulation or a sweep started from the browser, run in the background.

It is `cardc simulate` (or `cardc sweep`, when a change lists several
values) itself: `simulate_report` / `sweep_report` with the options as the
command line would parse them, so the same options and seed give the same
numbers as the terminal; the page shows the progress and then the same HTML
report.  A sweep runs until decisive as the command does by default (its
sequential driver, `sweep_report`: looks at `games`, 2x, 4x, ... up to
`max_games`), or plays exactly `games` when `fixed`; the result page opens
with the sweep's answer in words.

One simulation runs at a time (`SimulationQueue`): two at once would share the CPUs
and each would take twice as long, so the others wait in order, and the page
says how many are ahead.  A cancel is seen when the next chunk of games
finishes: the progress callback raises `Cancelled` inside the runner, which
closes its worker pool on the way out.
"""
from __future__ import annotations

import argparse
import queue
import threading
import time
from dataclasses import dataclass, field

from cardc.sim import cli as sim_cli
from cardc.sim import report as rep
from cardc.sim.sequential import BUDGET, DETECT_POINTS, DETECT_SHARE

MAX_GAMES = 100_000


class Cancelled(Exception):
    """Raised through the runner when the person cancels the simulation."""


@dataclass
class Progress:
    """Stands in for the terminal's progress bar: the runner calls
    `add_task` once and `update` as chunks of games finish."""
    total: int = 0
    done: int = 0
    rate: str = ""
    cancel: threading.Event = field(default_factory=threading.Event)

    def add_task(self, _description, total=0, **_):
        self.total = total
        return 0

    def update(self, _task, completed=None, rate="", total=None, **_):
        if self.cancel.is_set():
            raise Cancelled
        if total is not None:        # a sequential sweep: the bar runs to its next look
            self.total = total
        if completed is not None:
            self.done = completed
        self.rate = rate or self.rate


@dataclass
class Simulation:
    game: str
    folder: str
    games: int
    players: str | None
    agents: str
    seed: int
    sets: list[str] = field(default_factory=list)
    holes: str | None = None
    jobs: int = 1
    fixed: bool = False          # a sweep: exactly `games`, not until decisive
    max_games: int = BUDGET       # a sweep until decisive: its budget per variant
    answer: list[str] = field(default_factory=list)   # a sweep's opening sentences
    progress: Progress = field(default_factory=Progress)
    report: dict | None = None
    html: str | None = None
    error: str | None = None
    started: float = field(default_factory=time.time)
    seconds: float = 0.0
    state: str = "queued"        # queued, running, done, failed, cancelled, interrupted
    on_end: object = None        # called with the simulation once it ends (saving it)

    @property
    def sweep(self) -> bool:
        """A change with several values (params.x=1,2) makes it a sweep."""
        return any("," in item.partition("=")[2] for item in self.sets)

    def args(self) -> argparse.Namespace:
        """The options as `cardc simulate` / `cardc sweep` would have parsed them."""
        return argparse.Namespace(
            game=self.folder, games=self.games, players=self.players, agents=self.agents,
            seed=self.seed, jobs=self.jobs, cluster=None, start_zone=None, use_zones=None,
            target_minutes=None, max_decisions=100_000, holes=self.holes, max_holes=100,
            json=None, records=None, trace_memory=False, quiet=True, set=list(self.sets),
            fixed=self.fixed, until_decisive=None, max_games=self.max_games, decide_on="win.*",
            detect=100 * DETECT_POINTS, detect_change=100 * DETECT_SHARE)

    def command(self) -> str:
        """The command line that gives the same report in a terminal."""
        words = ["cardc", "sweep" if self.sweep else "simulate", self.game, "--games", str(self.games)]
        if self.sweep:
            words += ["--fixed"] if self.fixed else ["--max-games", str(self.max_games)]
        if self.players:
            words += ["--players", self.players]
        words += ["--agents", self.agents, "--seed", str(self.seed)]
        for item in self.sets:
            words += ["--set", item]
        return " ".join(words)

    def cancel(self) -> None:
        """Stop it: at once if it waits, at its next chunk of games if it runs."""
        self.progress.cancel.set()
        if self.state == "queued":
            self._end("cancelled")

    def run(self) -> None:
        if self.progress.cancel.is_set():
            return
        self.state = "running"
        t0 = time.perf_counter()
        try:
            if not 1 <= self.games <= MAX_GAMES:
                raise ValueError(f"games: give 1 to {MAX_GAMES:,}")
            if self.sweep and not self.fixed and not 1 <= self.max_games <= MAX_GAMES:
                raise ValueError(f"at most (a sweep's budget): give 1 to {MAX_GAMES:,} games")
            if self.sweep:
                self.report = sim_cli.sweep_report(self.args(), self.progress)
                self.answer = list(self.report["answer"])
                self.html = rep.render_sweep_html(self.report)
            else:
                self.report = sim_cli.simulate_report(self.args(), self.progress)
                self.html = rep.render_html(self.report)
        except Cancelled:
            self.seconds = time.perf_counter() - t0
            return self._end("cancelled")
        except Exception as exc:                 # shown on the page; the server goes on
            self.error = str(exc) or type(exc).__name__
        self.seconds = time.perf_counter() - t0
        self._end("failed" if self.error else "done")

    def _end(self, state: str) -> None:
        self.state = state
        if self.on_end is not None:
            self.on_end(self)

    @property
    def finished(self) -> bool:
        return self.state in ("done", "failed", "cancelled", "interrupted")

    def record(self) -> dict:
        """What is saved of it (the report's HTML is saved beside)."""
        return {"game": self.game, "games": self.games, "players": self.players, "agents": self.agents,
                "seed": self.seed, "sets": self.sets, "fixed": self.fixed, "max_games": self.max_games,
                "answer": self.answer, "state": self.state, "error": self.error,
                "started": self.started, "seconds": self.seconds, "done": self.progress.done}

    @classmethod
    def saved(cls, record: dict, html: str | None) -> Simulation:
        """A simulation read back after a restart: one that had not ended
        then was interrupted by it."""
        sim = cls(record["game"], "", record["games"], record.get("players"), record["agents"],
                  record["seed"], list(record.get("sets") or []), html=html, error=record.get("error"),
                  started=record.get("started", 0.0), seconds=record.get("seconds", 0.0),
                  # saved before sweeps ran until decisive: they were fixed
                  fixed=record.get("fixed", True), max_games=record.get("max_games", record["games"]),
                  answer=list(record.get("answer") or []))
        sim.state = record.get("state", "interrupted")
        if sim.state in ("queued", "running"):
            sim.state = "interrupted"
        sim.progress.done = record.get("done", 0)
        return sim


class SimulationQueue:
    """Runs simulations one at a time, in the order they were started."""

    def __init__(self) -> None:
        self.waiting: list[Simulation] = []
        self._queue: queue.Queue = queue.Queue()
        self._worker: threading.Thread | None = None

    def submit(self, sim: Simulation) -> None:
        self.waiting.append(sim)
        self._queue.put(sim)
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name="simulations", daemon=True)
            self._worker.start()

    def ahead_of(self, sim: Simulation) -> int:
        """How many simulations run or wait before this one starts."""
        if sim.state != "queued":
            return 0
        live = [s for s in self.waiting if s.state in ("queued", "running")]
        return live.index(sim) if sim in live else 0

    def _work(self) -> None:
        while True:
            sim = self._queue.get()
            try:
                sim.run()
            finally:
                self.waiting = [s for s in self.waiting if s is not sim]

