"""A sweep or comparison report opens with its answer in words (what
changed, by how much, how sure, what did not, how many games a given
difference needs), in the same units everywhere, and nothing is cut off in
a narrow terminal; a sweep stops as soon as every difference it waits for
is decided (sequential testing with stated error rates)."""
from __future__ import annotations

import json

import pytest

from cardc.cli import main
from cardc.sim.answer import baseline_values, detectable, games_needed
from cardc.sim.sequential import Design, look_sizes
from conftest import CONTENT, MINI

SWEEP = ["sweep", str(MINI), "--set", "params.win_at=10", "--games", "100", "--fixed",
         "--players", "2", "--agents", "random,greedy", "--jobs", "1"]


def test_a_sweep_report_opens_with_the_answer_in_words(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    out = tmp_path / "s.json"
    assert main([*SWEEP, "--holes", str(tmp_path / "h"), "--json", str(out)]) == 0
    answer = json.loads(out.read_text())["answer"]
    assert answer[0] == ("Setting params.win_at from 12 (baseline) to 10, over 100 paired games "
                         "(random, greedy; players 2):")
    assert answer[1].startswith("  Changed (sure at 5% after Holm's correction): decisions per game "
                                "-1.98 (12.5 → 10.5, -16%; 95% [-2.28, -1.68]);")
    assert "game length in turns -1.51 (9.49 → 7.98, -16%" in answer[1]
    assert answer[2] == "  Not changed: 4 win rates (by seat and agent), each within ±5.5 pts (95%)."
    assert answer[3] == ("  Power: 100 games detect a win-rate change of 8.4 pts (80% power); "
                         "a 5-pt change needs about 281 games.")
    printed = capsys.readouterr().out.splitlines()
    # the terminal's first lines are the same words, wrapped at 60 columns, and nothing is cut
    words = " ".join(answer).split()
    assert " ".join(printed[:12]).split()[:len(words)] == words
    tables = [line for line in printed if not line.startswith("JSON report written to")]
    assert [line for line in tables if len(line) > 60] == [] and "…" not in "\n".join(printed)
    # percentages and points in the tables too
    row = next(line for line in printed if line.startswith("│ win.sea"))
    assert "53.0%" in row and "52.0%" in row and "-1.0" in row


def test_the_html_page_opens_with_the_same_answer(tmp_path):
    page = tmp_path / "s.html"
    assert main([*SWEEP, "--quiet", "--holes", str(tmp_path / "h"), "--html", str(page)]) == 0
    text = page.read_text()
    assert text.index("Setting params.win_at from 12 (baseline) to 10") < text.index("<svg")


def test_a_sweep_stops_at_the_first_look_where_everything_is_decided(tmp_path):
    """The baseline against itself: every difference is 0 with no spread,
    unchanged at the first look; a lower win target leaves the win rates
    within 8 points (`--detect 8`), decided after a few looks, before the
    budget is spent."""
    out = tmp_path / "s.json"
    assert main(["sweep", str(MINI), "--set", "params.win_at=12,10", "--games", "50",
                 "--max-games", "1600", "--detect", "8", "--players", "2", "--jobs", "1", "--quiet",
                 "--holes", str(tmp_path / "h"), "--json", str(out)]) == 0
    sweep = json.loads(out.read_text())
    same, lower = sweep["variants"]
    seq = sweep["sequential"]
    assert seq["looks_planned"] == 6 and seq["level"] == pytest.approx(0.05 / 6)   # 50 ... 1600
    assert set(same["verdicts"].values()) == {"unchanged"}
    assert sweep["games"] in look_sizes(50, 1600) and 50 < sweep["games"] < 1600
    assert lower["decided"] and set(lower["verdicts"]) == {"win.random", "win.seat1", "win.seat2"}
    assert sweep["stopped"].startswith(f"Stopped at look {seq['looks']} of 6 ({sweep['games']:,} games)")
    assert "at most 5% chance of calling any difference changed when none is" in seq["error_rates"]
    assert sweep["answer"][-1] == sweep["stopped"]
    for v in sweep["variants"]:      # a verdict of "changed" is the report's significance mark
        assert all((x == "changed") == v["diffs"][n]["significant"] for n, x in v["verdicts"].items())
    assert "  Decided unchanged (each moves by less than 8 pts or 10%): random's win rate, " \
           "seat 1's win rate, seat 2's win rate." in sweep["answer"]


def test_the_budget_ends_a_sweep_that_cannot_decide(tmp_path):
    out = tmp_path / "s.json"
    assert main(["sweep", str(MINI), "--set", "params.win_at=10", "--games", "20", "--max-games",
                 "40", "--detect", "0.5", "--players", "2", "--jobs", "1", "--quiet",
                 "--holes", str(tmp_path / "h"), "--json", str(out)]) == 0
    sweep = json.loads(out.read_text())
    assert sweep["games"] == 40 and not sweep["variants"][0]["decided"]
    assert sweep["stopped"].startswith("The budget of 40 games is spent; still undecided: win.")


def test_verdicts_call_changes_non_changes_and_open_questions():
    design = Design(looks=5)
    base = {"base": 0.5, "variant": 0.5, "n": 400, "sd": 0.3}
    diffs = {"win.seat1": {**base, "diff": 0.2, "p": 1e-9},         # a clear change
             "win.seat2": {**base, "diff": 0.0, "p": 1.0},          # ±0.045 inside ±0.05
             "win.seat3": {**base, "diff": 0.03, "p": 0.05},        # neither yet
             "turns": {**base, "diff": 0.03, "p": 0.05}}            # not waited for
    assert design.verdicts([diffs]) == [{"win.seat1": "changed", "win.seat2": "unchanged",
                                         "win.seat3": "open"}]
    assert look_sizes(500, 20_000) == [500, 1000, 2000, 4000, 8000, 16000, 20000]


def test_power_analysis_matches_the_textbook():
    # a paired difference of sd 0.5, 5 points at 5% two-sided with 80% power: 785 pairs
    assert games_needed(0.5, 0.05, 0.05) == 785
    assert detectable(0.5, 785, 0.05) == pytest.approx(0.05, rel=1e-3)


def test_the_baseline_value_is_read_from_the_bundle():
    from cardc.project import build_folder
    bundle = build_folder(MINI).bundle
    thief = next(c for c in bundle["cards"] if c["id"] == "thief")
    assert baseline_values(bundle, ["params.win_at", "cards.thief.count", "params.nope"]) == {
        "params.win_at": 12, "cards.thief.count": thief["count"], "params.nope": None}


def test_compare_opens_with_its_answer_in_the_same_units(tmp_path, capsys):
    for name, extra in (("a", []), ("b", ["--set", "params.win_at=10"])):
        assert main(["simulate", str(MINI), "--games", "200", "--players", "2", "--jobs", "1",
                     "--quiet", "--holes", str(tmp_path / "h"), "--json", str(tmp_path / f"{name}.json"),
                     *extra]) == 0
    out = tmp_path / "c.json"
    assert main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--json", str(out)]) == 0
    answer = json.loads(out.read_text())["answer"]
    assert answer[0] == "B against A (200 and 200 independent games; B sets params.win_at from 12 (A) to 10):"
    assert answer[1].startswith("  Changed (sure at 5% after Holm's correction): ")
    assert "game length in turns" in answer[1]
    assert answer[-1].startswith("  Power: detecting a 5-pt change in a win rate needs about ")
    printed = capsys.readouterr().out
    assert printed.startswith("B against A (200 and 200") and " pts" in printed


def test_compare_shows_each_quality_measure_on_both_sides_with_its_change(tmp_path, capsys,
                                                                         monkeypatch):
    """A shipped game against a finish line at 400 instead of 1000: games get
    far shorter, with fewer lead changes and more choices a decision; the
    quality measures are tested together with the rest (one Holm family)."""
    for name, extra in (("a", []), ("b", ["--set", "params.win_at=400"])):
        assert main(["simulate", str(CONTENT / "unicorn"), "--games", "40", "--players", "3",
                     "--agents", "random,greedy", "--seed", "1", "--jobs", "1", "--quiet",
                     "--holes", str(tmp_path / "h"), "--json", str(tmp_path / f"{name}.json"),
                     *extra]) == 0
    monkeypatch.setenv("COLUMNS", "60")
    out, page = tmp_path / "c.json", tmp_path / "c.html"
    assert main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--json", str(out),
                 "--html", str(page)]) == 0
    data = json.loads(out.read_text())
    quality = next(line for line in data["answer"] if line.startswith("  Quality measures"))
    assert quality == ("  Quality measures changed (Holm's correction over these 7 and the rows "
                       "above together): branching: legal actions per decision (3 players) +1.54 "
                       "(3.95 → 5.49; 95% [+1.32, +1.77]); lead changes per game (3 players) -3.5 "
                       "(6.2 → 2.7; 95% [-5.21, -1.79]).")
    rows = {r["what"]: r for r in data["rows"]}
    assert [n for n in rows if n.startswith("quality ")] == [
        "quality 3p decisiveness", "quality 3p drama", "quality 3p lead changes per game",
        "quality 3p winner leads at 25% of the game", "quality 3p winner leads at 50% of the game",
        "quality 3p winner leads at 75% of the game",
        "quality 3p branching: legal actions per decision", "quality 3p first-player advantage",
        "quality 3p skill gap: greedy − random"]
    for r in rows.values():
        assert r["lo"] <= r["diff"] <= r["hi"] and r["diff"] == pytest.approx(r["b"] - r["a"])
    # the rows that repeat a test carry its verdict: counted once by Holm's correction
    drama, decisive = rows["quality 3p drama"], rows["quality 3p decisiveness"]
    assert drama["diff"] == -decisive["diff"] and drama["p_adjusted"] == decisive["p_adjusted"]
    assert rows["quality 3p first-player advantage"]["p_adjusted"] == rows["win 3p seat 1"]["p_adjusted"]
    assert rows["quality 3p lead changes per game"]["significant"]
    printed = capsys.readouterr().out.splitlines()
    assert [line for line in printed if len(line) > 60] == [] and "…" not in "\n".join(printed)
    words = " ".join(" ".join(printed).split())
    assert "Quality measures (Browne; Ludii), B − A: drama mirrors decisiveness" in words
    assert sum(line.startswith("│ 3p") for line in printed) == 9     # one row per measure
    text = page.read_text()
    assert text.index("Quality measures changed") < text.index("<h2>Quality measures</h2>")
    # a measure that is itself a difference is shown in points, its change in % of it left out
    assert ("<td>3p first-player advantage</td><td>-13.3 pts</td><td>-13.3 pts</td><td>+0.0 pts</td>"
            "<td>–</td>") in text


def test_a_sequential_sweep_is_the_same_whatever_the_jobs(tmp_path):
    runs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"s{jobs}.json"
        assert main(["sweep", str(MINI), "--set", "params.win_at=10", "--games", "30",
                     "--max-games", "120", "--players", "2", "--jobs", jobs, "--quiet",
                     "--holes", str(tmp_path / "h"), "--json", str(out)]) == 0
        sweep = json.loads(out.read_text())
        for part in (sweep, sweep["baseline"], *(v["report"] for v in sweep["variants"])):
            part.pop("run")
        runs.append(sweep)
    assert runs[0] == runs[1]


def test_a_sequential_sweeps_progress_ends_at_its_last_look(tmp_path, capsys):
    """The bar runs to the next look, so a sweep that stops early still ends at 100%."""
    out = tmp_path / "s.json"
    assert main(["sweep", str(MINI), "--set", "params.win_at=10", "--games", "20", "--max-games",
                 "400", "--players", "2", "--jobs", "1", "--holes", str(tmp_path / "h"),
                 "--json", str(out)]) == 0
    games = json.loads(out.read_text())["games"]
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith(f"Mini: {2 * games}/{2 * games} games (100%)")


def test_pairs_that_all_agree_decide_nothing_until_there_are_enough_of_them():
    """Twenty paired games with the same winner each time have no spread to
    build an interval on; a 5-point change would leave them all alike with
    a chance of 0.95^20 = 36%, so the verdict waits for 0.95^n <= 1% (90)."""
    design = Design(looks=5)
    assert design.agreeing_pairs() == 90 and 0.95 ** 90 <= design.level < 0.95 ** 89
    same = {"base": 0.5, "variant": 0.5, "diff": 0.0, "sd": 0.0, "p": 1.0}
    assert design.verdicts([{"win.seat1": {**same, "n": 20}}]) == [{"win.seat1": "open"}]
    assert design.verdicts([{"win.seat1": {**same, "n": 90}}]) == [{"win.seat1": "unchanged"}]
