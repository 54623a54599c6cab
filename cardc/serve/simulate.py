"""A simulation started from the browser, run in the background.

It runs through the same pieces as `cardc simulate` (its option checks,
`make_plan`, the runner with its worker pool and rule-hole replays, and
`report.summarize`), so the same options and seed give the same numbers as
the terminal; the page shows the progress and then the existing HTML report.
"""
from __future__ import annotations

import argparse
import os
import threading
import time
from dataclasses import dataclass, field

from cardc.sim import cli as sim_cli
from cardc.sim import report as rep

MAX_GAMES = 100_000


@dataclass
class Progress:
    """What the runner reports as chunks of games finish (it calls
    `update` the way it updates its terminal progress bar)."""
    total: int = 0
    done: int = 0
    rate: str = ""

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

    def args(self) -> argparse.Namespace:
        """The options as `cardc simulate` would have parsed them."""
        return argparse.Namespace(
            game=self.folder, games=self.games, players=self.players, agents=self.agents,
            seed=self.seed, jobs=self.jobs, cluster=None, start_zone=None, use_zones=None,
            target_minutes=None, max_decisions=100_000, holes=self.holes, max_holes=100,
            json=None, records=None, trace_memory=False, quiet=True, set=list(self.sets))

    def start(self) -> None:
        threading.Thread(target=self._run, name=f"simulate {self.game}", daemon=True).start()

    def _run(self) -> None:
        from cardc.overrides import parse_sets
        t0 = time.perf_counter()
        try:
            if not 1 <= self.games <= MAX_GAMES:
                raise ValueError(f"games: give 1 to {MAX_GAMES:,}")
            args = self.args()
            overrides = sim_cli._parse(parse_sets, args.set)
            bundle = sim_cli.variant_bundle(args.game, overrides)
            plan = sim_cli.make_plan(args, bundle)
            self.progress.total = self.games
            with sim_cli._Runner(args, [bundle], [overrides], plan, self.games) as runner:
                runner.bar = self.progress       # progress goes to the page, not a terminal
                totals = runner.run(0, self.games)
            self.report = runner.summary(0, totals)
            self.html = rep.render_html(self.report)
        except Exception as exc:                 # shown on the page; the server goes on
            self.error = str(exc) or type(exc).__name__
        self.seconds = time.perf_counter() - t0

    @property
    def finished(self) -> bool:
        return self.html is not None or self.error is not None


def default_jobs() -> int:
    return max(1, (os.cpu_count() or 1))
