"""`cardc skill`: the round robin, its win-rate matrix and its ratings."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardc.cli import main
from cardc.sim.skill import Table, elo, fit_strengths, tables_for

from conftest import MINI     # the `cardc new` template game


def test_tables_pair_every_agent_once_heads_up_and_both_ways_at_more_players():
    two = [(t.hero, t.rival) for t in tables_for(2, ["a", "b", "c"])]
    assert two == [("a", "b"), ("a", "c"), ("b", "c")]
    three = tables_for(3, ["a", "b"])
    assert [t.seats for t in three] == [("a", "b", "b"), ("b", "a", "a")]


def test_luce_strengths_are_recovered_from_win_counts():
    """b is three times as strong as a: heads up it wins 3 in 4; alone
    against two a's it wins 3 in 5; one a against two b's wins 1 in 7."""
    tables = [Table(2, "a", "b", 4000, {"a": 1000, "b": 3000}),
              Table(3, "b", "a", 5000, {"b": 3000, "a": 2000}),
              Table(3, "a", "b", 7000, {"a": 1000, "b": 6000})]
    s = fit_strengths(tables, ["a", "b"])
    assert s["a"] == 1.0 and s["b"] == pytest.approx(3.0, rel=0.01)
    assert elo(s["b"]) == pytest.approx(400 * 0.4771, rel=0.01)


def test_skill_report_is_deterministic_and_ranks_greedy_above_random(tmp_path):
    args = ["skill", str(MINI), "--players", "2", "--agents", "random,greedy", "--games", "30",
            "--quiet"]
    assert main([*args, "--jobs", "1", "--json", str(tmp_path / "a.json")]) == 0
    assert main([*args, "--jobs", "2", "--json", str(tmp_path / "b.json")]) == 0
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("a.json", "b.json"))
    assert {k: v for k, v in a.items() if k != "run"} == {k: v for k, v in b.items() if k != "run"}
    part = a["players"]["2"]
    cell = part["matrix"]["greedy"]["random"]
    assert cell["games"] == 30 and cell["lo"] <= cell["rate"] <= cell["hi"]
    rating = part["ratings"]["greedy"]
    assert rating["lo"] <= rating["rating"] <= rating["hi"] and rating["rating"] > 0
    assert part["spread"]["best"] == "greedy"
    assert set(a["run"]["seconds_per_decision"]) == {"random", "greedy"}


@pytest.mark.parametrize("agents", ["random", "random,genius", "greedy,mcts:0", "greedy,human"])
def test_skill_usage_errors(agents):
    assert main(["skill", str(MINI), "--agents", agents, "--games", "2", "--quiet"]) == 2
