"""How well `cardc simulate --jobs N` uses the machine: wall-clock speed-up
and the CPU time each game costs, per number of workers.

    python -m cardc.sim.scaling startup --games 2000 --players 4 --jobs 1,2,4,16

Each run is a fresh `cardc simulate` process, so process start, imports,
compiling the bundle in every worker, shipping chunks and merging their
results are all counted.  CPU time (the command's and every worker's, as
the report's `run.cpu_seconds` adds them) is the measure that holds on a shared machine: the overhead of a
worker per game is (CPU seconds with N workers - with 1) / games.  Wall
time and speed-up are shown too; they mean something on a quiet machine
only.  Reported, never asserted in tests.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def measure(game: str, games: int, players: str, agents: str, jobs: int, seed: int = 0) -> dict:
    """One `cardc simulate` run: its wall seconds and its CPU seconds (the
    command and all its workers, as its report's `run.cpu_seconds` counts them)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.json"
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "cardc", "simulate", game, "--games", str(games),
                        "--players", players, "--agents", agents, "--jobs", str(jobs),
                        "--seed", str(seed), "--quiet", "--max-holes", "0", "--json", str(out)],
                       check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        run = json.loads(out.read_text())["run"]
    return {"jobs": jobs, "games": games, "wall_s": wall, "cpu_s": run["cpu_seconds"],
            "parent_s": run["parent_cpu_seconds"], "workers_s": run["workers_cpu_seconds"]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("game")
    p.add_argument("--games", type=int, default=2000)
    p.add_argument("--players", default="4")
    p.add_argument("--agents", default="random")
    p.add_argument("--jobs", default=f"1,{os.cpu_count() or 1}")
    args = p.parse_args(argv)
    rows = [measure(args.game, args.games, args.players, args.agents, int(j))
            for j in args.jobs.split(",")]
    one = rows[0]
    print(f"{args.game}: {args.games} games, players {args.players}, agents {args.agents}, "
          f"{os.cpu_count()} cores")
    print(f"{'jobs':>5} {'wall s':>8} {'speed-up':>9} {'efficiency':>11} {'CPU s':>8} "
          f"{'CPU ms/game':>12} {'overhead ms/game':>17} {'parent ms/game':>15}")
    for r in rows:
        speed = one["wall_s"] / r["wall_s"] * one["jobs"]
        print(f"{r['jobs']:>5} {r['wall_s']:>8.2f} {speed:>8.2f}x {100 * speed / r['jobs']:>10.0f}% "
              f"{r['cpu_s']:>8.2f} {1000 * r['cpu_s'] / r['games']:>12.2f} "
              f"{1000 * (r['cpu_s'] - one['cpu_s']) / r['games']:>17.2f} "
              f"{1000 * r['parent_s'] / r['games']:>15.2f}")
    many = rows[-1]
    if many["jobs"] > 1:
        work = many["workers_s"] / many["games"]
        feed = work / (many["parent_s"] / many["games"])
        print(f"with {many['jobs']} workers the parent spent {1000 * many['parent_s'] / many['games']:.2f} "
              f"ms a game while they played (ship, merge, progress) against {1000 * work:.2f} ms in the "
              f"workers: one parent keeps about {feed:.0f} workers busy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
