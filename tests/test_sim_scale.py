"""Scale-out: a bundle is shipped to workers as bytes made once and
compiled once per worker, and a run reports the CPU time it cost in every
process (the measure of per-game overhead that holds on a busy machine)."""
from __future__ import annotations

import json

from cardc.cli import main
from cardc.project import build_folder
from cardc.sim.run import _GAMES, Plan, Shipped, run_chunk
from conftest import MINI


def test_a_shipped_bundle_plays_the_same_games_and_is_compiled_once():
    bundle = build_folder(MINI).bundle
    plan = Plan(players=(2, 3), agents=("random", "greedy"), seed=4)
    plain = run_chunk([bundle], plan, 0, 12)
    _GAMES.clear()
    shipped = run_chunk([Shipped.of(bundle)], plan, 0, 12)
    assert shipped.aggregates == plain.aggregates
    # a worker that compiled the bundle never reads its bytes again
    again = run_chunk([Shipped(bundle["source_hash"], b"")], plan, 12, 20)
    assert again.aggregates[0].games == 8


def test_a_run_reports_the_cpu_time_of_every_process(tmp_path):
    runs = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"r{jobs}.json"
        assert main(["simulate", str(MINI), "--games", "40", "--jobs", jobs, "--quiet",
                     "--holes", str(tmp_path / "h"), "--json", str(out)]) == 0
        runs[jobs] = json.loads(out.read_text())["run"]
    inline, pool = runs["1"], runs["2"]
    # inline, the games are the parent's own work; in a pool, the workers'
    assert inline["workers_cpu_seconds"] == 0 and inline["parent_cpu_seconds"] > 0
    assert pool["workers"] == 2 and pool["workers_cpu_seconds"] > 0
    assert pool["cpu_seconds"] >= pool["workers_cpu_seconds"] + pool["parent_cpu_seconds"]
