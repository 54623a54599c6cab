"""`cardc tune` finds the numbers that meet a designer's targets: shown on
a shipped game (startup) with a planted imbalance, a start bonus for seat
1 that the search must remove, and its report names the fix."""
from __future__ import annotations

import json
import math

import pytest

from cardc.cli import main
from cardc.sim.tune import Knob
from conftest import CONTENT

PLANT = {"game.yaml": [
    ("  start_money: 10                 # $ every player starts with (setup 3)\n",
     "  start_money: 10                 # $ every player starts with (setup 3)\n  seat1_bonus: 30\n"),
    ("    for p in players:\n      p.money = start_money\n",
     "    for p in players:\n      p.money = start_money\n    players[0].money += seat1_bonus\n")]}


def tune(tmp_path, folder, *extra):
    out = tmp_path / "tune.json"
    assert main(["tune", str(folder), "--fair", "5", "--players", "3", "--agents", "random",
                 "--jobs", "1", "--quiet", "--json", str(out), *extra]) == 0
    return json.loads(out.read_text())


def test_tune_removes_a_planted_start_bonus_and_names_the_fix(tmp_path, game_copy):
    folder = game_copy(CONTENT / "startup", PLANT)
    result = tune(tmp_path, folder, "--vary", "params.seat1_bonus=0:40:10", "--trials", "5",
                  "--games", "60")
    assert result["written"] == {"params.seat1_bonus": 30}
    assert result["baseline"]["miss"] > 20           # seat 1 wins far more than its third
    assert result["best"]["settings"] == {"params.seat1_bonus": 0}
    assert result["fix"] == ["params.seat1_bonus: 30 → 0"]
    assert [t["settings"]["params.seat1_bonus"] for t in result["trials"]] != []
    assert sorted(t["settings"]["params.seat1_bonus"] for t in result["trials"]) == [0, 10, 20, 30, 40]
    assert result["answer"][0].startswith("Startup as written (params.seat1_bonus = 30) misses its "
                                          "targets by ")
    assert "params.seat1_bonus: 30 → 0." in result["answer"][1]
    assert result["answer"][2].startswith("  every seat within ±5 pts of 1/players: worst: seat ")
    assert "(as written: worst: seat 1 at 3 players " in result["answer"][2]
    # 60 games a setting cannot tell a seat within 5 points from one outside: the report says so
    assert result["answer"][1].startswith("Best found (misses by ")
    assert result["answer"][1].endswith(" pts; not every target is sure at 60 games): "
                                        "params.seat1_bonus: 30 → 0.")
    assert ", not sure: its 95% interval [" in result["answer"][2]


def test_a_target_is_sure_only_when_its_interval_is_on_one_side_of_the_edge():
    from cardc.sim.tune import _unsure
    assert _unsure(-0.03, 0.04, -5, 5) is None                   # inside ±5 pts: met, surely
    assert _unsure(0.06, 0.12, -5, 5) is None                    # outside: missed, surely
    assert _unsure(-0.02, 0.07, -5, 5).startswith("not sure: its 95% interval [-2.0, +7.0] pts")
    assert _unsure(0.08, 0.30, 10, math.inf) is not None         # a skill gap that may be under 10


@pytest.mark.slow
def test_tune_searches_a_wide_range_with_tpe(tmp_path, game_copy):
    folder = game_copy(CONTENT / "startup", PLANT)
    result = tune(tmp_path, folder, "--vary", "params.seat1_bonus=0:40", "--trials", "16",
                  "--games", "200")
    assert result["best"]["settings"]["params.seat1_bonus"] <= 5


@pytest.mark.parametrize("vary, message", [
    ("params.x", "`--vary params.x`: write PATH=LOW:HIGH[:STEP] or PATH=V1,V2,..., e.g. params.seat1_bonus=0:40"),
    ("params.x=5:1", "`--vary params.x=5:1`: LOW:HIGH[:STEP] needs numbers with LOW < HIGH and STEP > 0; "
                     "a list needs two numbers or more"),
])
def test_bad_ranges_are_usage_errors(vary, message, capsys):
    assert main(["tune", str(CONTENT / "startup"), "--vary", vary, "--fair", "5", "--quiet"]) == 2
    assert message in capsys.readouterr().err


def test_a_path_the_content_does_not_take_names_the_vary(capsys):
    assert main(["tune", str(CONTENT / "startup"), "--vary", "params.nope=0:5", "--fair", "5",
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "--set params.nope=0: error: `params.nope`: no `nope` in `params`" in err
    assert "cardc: `--vary params.nope=0:5`: the content does not take this value (the diagnostic " \
           "above says why)" in err


def test_tune_needs_a_target(capsys):
    assert main(["tune", str(CONTENT / "startup"), "--vary", "params.start_money=5:15", "--quiet"]) == 2
    assert "name at least one target" in capsys.readouterr().err


def test_knob_values():
    assert Knob.parse("params.a=0:40:10").values() == [0, 10, 20, 30, 40]
    assert Knob.parse("cards.x.count=3,1,2").values() == [1, 2, 3]
