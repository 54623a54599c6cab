"""A simulation or a sweep started from the browser, run in the background.

It is `cardc simulate` (or `cardc sweep`, when a change lists several
values) itself: `simulate_report` / `sweep_report` with the options as the
command line would parse them, so the same options and seed give the same
numbers as the terminal; the page shows the progress and then the same HTML
report.
"""
from __future__ import annotations

import argparse
import threading
import time
from dataclasses import dataclass, field

from cardc.sim import cli as sim_cli
from cardc.sim import report as rep

MAX_GAMES = 100_000


@dataclass
class Progress:
    """Stands in for the terminal's progress bar: the runner calls
    `add_task` once and `update` as chunks of games finish."""
    total: int = 0
    done: int = 0
    rate: str = ""

    def add_task(self, _description, total=0, **_):
        self.total = total
        return 0

    def update(self, _task, completed=None, rate="", **_):
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
    progress: Progress = field(default_factory=Progress)
    report: dict | None = None
    html: str | None = None
    error: str | None = None
    started: float = field(default_factory=time.time)
    seconds: float = 0.0

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
            until_decisive=None, max_games=self.games, decide_on="win.*")

    def start(self) -> None:
        threading.Thread(target=self.run, name=f"simulate {self.game}", daemon=True).start()

    def run(self) -> None:
        t0 = time.perf_counter()
        try:
            if not 1 <= self.games <= MAX_GAMES:
                raise ValueError(f"games: give 1 to {MAX_GAMES:,}")
            if self.sweep:
                self.report = sim_cli.sweep_report(self.args(), self.progress)
                self.html = rep.render_sweep_html(self.report)
            else:
                self.report = sim_cli.simulate_report(self.args(), self.progress)
                self.html = rep.render_html(self.report)
        except Exception as exc:                 # shown on the page; the server goes on
            self.error = str(exc) or type(exc).__name__
        self.seconds = time.perf_counter() - t0

    @property
    def finished(self) -> bool:
        return self.html is not None or self.error is not None

