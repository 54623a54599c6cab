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


def _t(a, b, wa, wb, no_winner=0):
    return Table(2, a, b, wa + wb + no_winner, {a: wa, b: wb}, no_winner)


def test_open_ends_follow_the_chains_of_wins():
    """A rating rests on games at both ends only where wins link the agent
    to the first agent both ways; a clean sweep leaves the winner's upper end
    (and the loser's lower end) open."""
    from cardc.sim.skill import open_ends
    agents = ["r", "g", "m", "x"]
    # r and m beat each other; g beat both and lost to neither; x never played
    tables = [_t("r", "g", 0, 8), _t("g", "m", 8, 0), _t("r", "m", 3, 5)]
    assert open_ends(tables, agents) == {"r": None, "g": "above", "m": None, "x": "both"}
    # a circle of wins (r beat m, m beat g, g beat r) links all three
    tables = [_t("r", "g", 0, 8), _t("g", "m", 0, 8), _t("r", "m", 1, 7)]
    assert open_ends(tables, ["r", "g", "m"]) == {"r": None, "g": None, "m": None}
    # m beats everyone, nobody beats m: open above; r is linked to g both ways
    tables = [_t("r", "g", 3, 5), _t("g", "m", 0, 8), _t("r", "m", 0, 8)]
    assert open_ends(tables, ["r", "g", "m"]) == {"r": None, "g": None, "m": "above"}
    # measured from the strongest: the weak ones are open below
    assert open_ends(tables, ["m", "g", "r"]) == {"m": None, "g": "below", "r": "below"}


def test_a_clean_sweep_is_shown_as_a_bound_not_as_a_point(capsys):
    """sweep4's ipo tables (8 games a table, every one but mcts:50-mcts a
    clean sweep): the plain bootstrap printed greedy +324 [+323, +325].  Now
    each rating is open above, its interval is wide, and the terminal shows
    only the lower end, with the reason."""
    from rich.console import Console
    from cardc.sim.skill import print_skill, summarize
    agents = ["random", "greedy", "mcts:50", "mcts"]
    tables = [_t("random", "greedy", 0, 8), _t("random", "mcts:50", 0, 8), _t("random", "mcts", 0, 8),
              _t("greedy", "mcts:50", 0, 8), _t("greedy", "mcts", 0, 8), _t("mcts:50", "mcts", 6, 2)]
    rep = summarize(tables, agents, [2], 0, {})
    rated = rep["players"]["2"]["ratings"]
    for a in ("greedy", "mcts:50", "mcts"):
        x = rated[a]
        assert x["open"] == "above"
        assert x["hi"] - x["lo"] > 100, x            # not a point
        assert x["lo"] < x["rating"]
    assert rated["random"]["open"] is None and rated["random"]["reference"]
    assert rep["players"]["2"]["spread"]["open"] == "above"
    rep.update(name="ipo", games=8)
    print_skill(rep, Console(width=200))
    out = capsys.readouterr().out
    assert "no upper end" in out and "clean sweeps" in out and "≥ +" in out
    assert "[+323, +325]" not in out and "+324*" in out


def test_tables_that_are_not_clean_sweeps_keep_two_ended_intervals(capsys):
    from rich.console import Console
    from cardc.sim.skill import print_skill, summarize
    agents = ["random", "greedy", "mcts"]
    tables = [_t("random", "greedy", 2, 28), _t("random", "mcts", 1, 29), _t("greedy", "mcts", 9, 21)]
    rep = summarize(tables, agents, [2], 0, {})
    rated = rep["players"]["2"]["ratings"]
    assert all(rated[a]["open"] is None for a in agents)
    assert rated["random"]["rating"] == 0
    assert rated["greedy"]["lo"] < rated["greedy"]["rating"] < rated["greedy"]["hi"]
    assert 0 < rated["greedy"]["rating"] < rated["mcts"]["rating"]
    rep.update(name="startup", games=30)
    print_skill(rep, Console(width=200))
    out = capsys.readouterr().out
    assert "no upper end" not in out and "clean sweeps" not in out
    assert f"[{rated['mcts']['lo']:+.0f}, {rated['mcts']['hi']:+.0f}]" in out


def test_skill_shows_progress_by_table_on_stderr_when_the_output_is_no_terminal(capsys):
    assert main(["skill", str(MINI), "--players", "2", "--agents", "random,greedy,greedy:1",
                 "--games", "10", "--jobs", "1"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("Mini skill: 30/30 games (100%)") and "greedy vs greedy:1 (2p)" in err[-1]
    assert any("/30 games (" in line and "random vs greedy (2p)" in line for line in err)
