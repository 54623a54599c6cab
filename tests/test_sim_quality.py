"""Quality measures (Browne's and Ludii's): decisiveness and drama, lead
changes, uncertainty over time, branching factor, first-player advantage
and skill gap, per player count with intervals, in every report form."""
from __future__ import annotations

import json

import pytest

from cardc.cli import main
from cardc.sim.quality import Quality
from cardc.sim.run import GameRecord
from cardc.sim.intervals import Tally
from conftest import MINI


def comeback() -> GameRecord:
    """Seat 1 leads after turns 1 and 2 of 3; seat 2 wins in the last turn."""
    return GameRecord(0, 1, 2, ("random", "greedy"), ending="winner", winners=[1], turns=3,
                      decisions=4, options=10, lead_changes=1,
                      samples=[(0, [0, 0]), (1, [2, 1]), (2, [3, 1]), (3, [3, 5])])


def test_measures_of_hand_made_games():
    q = Quality()
    q.add(comeback())
    held = comeback()
    held.winners, held.samples = [0], held.samples[:3] + [(3, [6, 5])]
    q.add(held)
    s = q.summary(2, {0: Tally(1, 2), 1: Tally(1, 2)}, {"random": Tally(0, 2), "greedy": Tally(2, 2)})
    # at two thirds (turn 2) seat 1 leads alone: it won one of the two games
    assert (s["decisiveness"]["wins"], s["decisiveness"]["trials"]) == (1, 2)
    assert s["drama"]["rate"] == 0.5
    # at a quarter (turn 0) both share the lead: the winner holds half of it in both games
    at = {w["at"]: w["mean"] for w in s["winner_leads"]}
    assert at == {0.25: 0.5, 0.5: 0.5, 0.75: 0.5}
    assert s["branching"]["mean"] == 2.5 and s["lead_changes"]["mean"] == 1
    assert s["first_player"]["advantage"] == 0.0 and s["first_player"]["fair"] == 0.5
    gap = s["skill_gap"]
    assert gap["best"] == "greedy" and gap["diff"] == 1.0 and gap["lo"] < 1.0


def test_quality_merges_in_chunks_as_in_one_go():
    whole, left, right = Quality(), Quality(), Quality()
    for i in range(4):
        whole.add(comeback())
        (left if i < 1 else right).add(comeback())
    left.merge(right)
    args = (2, {}, {})
    assert left.summary(*args) == whole.summary(*args)


def test_reports_show_the_measures_per_player_count(tmp_path, capsys):
    out, page = tmp_path / "r.json", tmp_path / "r.html"
    assert main(["simulate", str(MINI), "--games", "60", "--agents", "random,greedy", "--jobs", "1",
                 "--holes", str(tmp_path / "h"), "--json", str(out), "--html", str(page)]) == 0
    report = json.loads(out.read_text())
    assert set(report["quality"]) == {"2", "3"}
    for n, q in report["quality"].items():
        assert q["branching"]["mean"] > 1 and q["branching"]["lo"] <= q["branching"]["mean"]
        assert q["first_player"]["fair"] == pytest.approx(1 / int(n))
        assert q["skill_gap"]["best"] == "greedy" and q["decisiveness"]["trials"] > 0
    printed = capsys.readouterr().out
    assert "Quality measures (Browne; Ludii)" in printed and "skill gap: best agent" in printed
    text = page.read_text()
    assert "<h2>Quality measures</h2>" in text and "decisiveness: leader at 2/3 wins" in text


def test_a_report_saved_without_the_spread_compares_the_same(tmp_path):
    """Reports saved before the quality measures kept their sd still compare:
    the sd comes back from the t interval."""
    from cardc.sim.quality import compare_rows
    out = tmp_path / "r.json"
    assert main(["simulate", str(MINI), "--games", "40", "--players", "2", "--jobs", "1", "--quiet",
                 "--holes", str(tmp_path / "h"), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    old = json.loads(out.read_text())
    for q in old["quality"].values():
        for m in (q["lead_changes"], q["branching"], *q["winner_leads"]):
            del m["sd"]
    new_rows, old_rows = compare_rows(report, report), compare_rows(old, old)
    assert [r["what"] for r in new_rows] == [r["what"] for r in old_rows]
    for x, y in zip(new_rows, old_rows, strict=True):
        assert (x["lo"], x["hi"]) == pytest.approx((y["lo"], y["hi"]))
