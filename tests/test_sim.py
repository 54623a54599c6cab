"""Bulk simulation: reproducible for a seed whatever the jobs or cluster,
numbers that match a hand count, paired variants that share their deals,
rule holes saved as replays that reproduce them."""
from __future__ import annotations

import json
import math
from collections import Counter

import pytest

from cardc.cli import main
from cardc.engine import EngineError, Game
from cardc.project import build_folder
from cardc.sim.run import Plan, derive_seed, play_game, run_chunk
from cardc.sim.intervals import Moments, newcombe, wilson
from cardc.sim.stats import Dist, PairedDiff
from conftest import MINI


def simulate(tmp_path, *extra, name="r.json"):
    out = tmp_path / name
    code = main(["simulate", str(MINI), "--quiet", "--json", str(out),
                 "--holes", str(tmp_path / "holes"), *extra])
    assert code == 0
    return json.loads(out.read_text())


def deterministic(report: dict) -> dict:
    """The report without `run` (wall-clock speed and memory of this run)."""
    return {k: v for k, v in report.items() if k != "run"}


# ---------------------------------------------------------------- reproducibility

def test_same_report_for_one_or_two_jobs(tmp_path):
    args = ["--games", "150", "--agents", "random,greedy", "--seed", "7"]
    one = simulate(tmp_path, *args, "--jobs", "1", name="one.json")
    two = simulate(tmp_path, *args, "--jobs", "2", name="two.json")
    assert one["plan"]["games"] == 150
    assert deterministic(one) == deterministic(two)
    assert two["run"]["workers"] == 2


def test_another_seed_gives_other_games(tmp_path):
    a = simulate(tmp_path, "--games", "40", "--jobs", "1", "--seed", "1", name="a.json")
    b = simulate(tmp_path, "--games", "40", "--jobs", "1", "--seed", "2", name="b.json")
    assert a["length"] != b["length"]


def test_cluster_run_equals_local_run(tmp_path):
    distributed = pytest.importorskip("distributed")
    args = ["--games", "60", "--agents", "random,greedy", "--seed", "3"]
    local = simulate(tmp_path, *args, "--jobs", "1", name="local.json")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        remote = simulate(tmp_path, *args, "--cluster", cluster.scheduler_address, name="dask.json")
    assert remote["run"]["cluster"]
    assert deterministic(local) == deterministic(remote)


def test_seating_rotates_every_agent_through_every_seat():
    plan = Plan(players=(2, 3), agents=("random", "greedy"))
    seats = Counter()
    for i in range(8):
        n, agents = plan.seating(i)
        assert n == (2, 3)[i % 2]
        seats.update((n, seat, a) for seat, a in enumerate(agents))
    # 4 games of each count, 2 agents: each agent sits in each seat twice
    assert set(seats.values()) == {2} and len(seats) == 2 * 2 + 3 * 2


# ---------------------------------------------------------------- numbers vs a hand count

def test_report_matches_a_hand_count(tmp_path, mini_game):
    """Replay the run's 12 games with a plain loop and count by hand."""
    report = simulate(tmp_path, "--games", "12", "--jobs", "1", "--seed", "5",
                      "--agents", "random,greedy")
    plan = Plan(players=(2, 3), agents=("random", "greedy"), seed=5)
    from cardc.agents import make_agent
    endings, wins, trials, turns, resolved = Counter(), Counter(), Counter(), {}, Counter()
    answered = Counter()
    decisions = forced = 0
    for i in range(12):
        n, seats = plan.seating(i)
        st = mini_game.new_state(n, seed=derive_seed(5, i))
        st.start_tracking()
        agents = [make_agent(a, derive_seed(5, i, s)) for s, a in enumerate(seats)]
        while not st.is_terminal():
            decisions += 1
            forced += len(st.legal_actions()) == 1
            st.apply(agents[st.pending.player].act(st, st.pending.player))
        endings["capped" if st.capped else "winner" if len(st.winners) == 1 else "shared"] += 1
        turns.setdefault(n, []).append(st.turn)
        resolved.update(st.track["resolve"])
        answered.update(st.track["react"])
        for s in range(n):
            trials[n, s] += 1
            wins[n, s] += s in st.winners

    for ending, count in endings.items():
        assert report["endings"][ending]["games"] == count
        assert report["endings"][ending]["lo"] == pytest.approx(wilson(count, 12)[0])
    for n, ts in turns.items():
        length = report["length"][str(n)]["turns"]
        assert length["n"] == len(ts) and length["mean"] == pytest.approx(sum(ts) / len(ts))
        assert (length["min"], length["max"]) == (min(ts), max(ts))
        for s, win in enumerate(report["seats"][str(n)]["win"]):
            assert (win["wins"], win["trials"]) == (wins[n, s], trials[n, s])
    assert report["decisions"]["total"] == decisions
    assert report["decisions"]["forced"] == forced
    for card in report["cards"]:
        assert card["resolved"]["times"] == resolved.get(card["id"], 0)
        # a card with a reaction also says how often it answered a window
        assert ("answered" in card) == (card["id"] == "guard")
    guard = next(c for c in report["cards"] if c["id"] == "guard")
    assert guard["answered"]["times"] == answered["guard"]
    assert report["unused"]["never_resolved"] == ([] if resolved["thief"] else ["thief"])


def test_finishing_places_and_lead_changes(mini_game):
    plan = Plan(players=(3,), agents=("random",), seed=11)
    for i in range(10):
        rec = play_game(mini_game, plan, i)
        assert rec.scores == rec.samples[-1][1]
        for p in range(3):
            better = [q for q in range(3) if (q in rec.winners, rec.scores[q]) > (p in rec.winners, rec.scores[p])]
            assert rec.places[p] == 1 + len(better)
        changes, leader = 0, None
        for _, scores in rec.samples:
            top = [p for p, s in enumerate(scores) if s == max(scores)]
            if len(top) == 1:
                changes += leader is not None and top[0] != leader
                leader = top[0]
        assert rec.lead_changes == changes


def test_statistics_against_known_values():
    assert wilson(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    # Newcombe (1998), method 10: 56/70 - 48/80 = 0.2, interval 0.0524 to 0.3339
    d = newcombe(48, 80, 56, 70)
    assert (d["diff"], d["lo"], d["hi"]) == pytest.approx((0.2, 0.0524, 0.3339), abs=1e-4)
    dist = Dist()
    for v in (3, 1, 2, 2, 10):
        dist.add(v)
    s = dist.summary()
    assert (s["min"], s["median"], s["max"], s["mean"]) == (1, 2, 10, 3.6)
    m = Moments()
    for v in (2, 4, 4, 4, 5, 5, 7, 9):
        m.add(v)
    assert (m.mean, m.sd) == pytest.approx((5.0, math.sqrt(32 / 7)))
    p = PairedDiff()
    for b, v in ((1, 2), (2, 3), (3, 4)):
        p.add(b, v)
    assert p.summary()["diff"] == 1 and p.summary()["width"] == 0


# ---------------------------------------------------------------- paired variants

def test_paired_variants_play_the_same_deals():
    base = build_folder(MINI).bundle
    twin = dict(base, source_hash="twin-" + base["source_hash"])     # same rules, other hash
    plan = Plan(players=(2, 3), agents=("random", "greedy"), seed=9)
    chunk = run_chunk([base, twin], plan, 0, 20)
    games = [Game(base), Game(twin)]
    for i in range(20):
        a, b = (play_game(g, plan, i) for g in games)
        assert (a.seed, a.actions, a.winners) == (b.seed, b.actions, b.winners)
    for name, diff in chunk.paired[1].diffs.items():
        assert diff.diff.n > 0 and diff.summary()["diff"] == 0 and diff.summary()["width"] == 0, name


def test_sweep_reports_differences_and_stops_when_decisive(tmp_path):
    out = tmp_path / "sweep.json"
    code = main(["sweep", str(MINI), "--set", "params.win_at=12,10", "--games", "40",
                 "--until-decisive", "0.5", "--max-games", "400", "--jobs", "1", "--quiet",
                 "--json", str(out), "--holes", str(tmp_path / "holes")])
    assert code == 0
    sweep = json.loads(out.read_text())
    same, lower = sweep["variants"]
    assert same["set"] == {"params.win_at": "12"} and lower["set"] == {"params.win_at": "10"}
    assert all(d["diff"] == 0 and not d["significant"] for d in same["diffs"].values())
    assert lower["diffs"]["turns"]["diff"] < 0 and lower["diffs"]["turns"]["significant"]
    assert sweep["games"] == 40 and same["decided"] and lower["decided"]   # one batch was enough


def test_card_use_counts_each_seat_of_an_agent_with_zeros():
    from cardc.sim.run import GameRecord
    from cardc.sim.stats import card_observations, resolvable_cards
    rec = GameRecord(0, 1, 3, ("random", "greedy", "random"), ending="winner", winners=[0],
                     resolved={"thief": Counter({2: 3, 1: 1})})
    obs = card_observations(rec, ["thief", "spy"])
    assert obs == {"played.thief.random": [0, 3], "played.thief.greedy": [1],
                   "played.spy.random": [0, 0], "played.spy.greedy": [0]}
    assert card_observations(GameRecord(0, 1, 2, ("random", "random"), ending="fault"), ["thief"]) == {}
    assert resolvable_cards(build_folder(MINI).bundle) == ["thief"]     # the one card with an effect


def test_sweep_shows_card_use_by_agent_in_a_family_of_its_own(tmp_path, capsys):
    out, page = tmp_path / "sweep.json", tmp_path / "sweep.html"
    code = main(["sweep", str(MINI), "--set", "params.win_at=12,20", "--games", "200", "--fixed",
                 "--players", "2", "--agents", "random,greedy", "--jobs", "1", "--json", str(out),
                 "--html", str(page),
                 "--holes", str(tmp_path / "holes")])
    assert code == 0
    sweep = json.loads(out.read_text())
    same, longer = sweep["variants"]
    assert set(same["cards"]) == set(longer["cards"]) == {
        "played.thief.random", "played.thief.greedy", "answered.guard.random", "answered.guard.greedy"}
    assert not any(d["tested"] or d["significant"] for d in same["cards"].values())  # the same game
    thief = longer["cards"]["played.thief.random"]
    # a longer game leaves more turns to rob in: one observation per random seat per game
    assert thief["n"] == 200 and thief["diff"] > 0 and thief["significant"]
    assert thief["card"] == "thief" and thief["agent"] == "random" and thief["name"] == "Thief"
    tested = [d for v in sweep["variants"] for d in v["cards"].values() if d["tested"]]
    families = sweep["families"]
    guard = longer["cards"]["answered.guard.random"]
    assert guard["card"] == "guard" and guard["use"] == "answered" and guard["name"] == "Guard (answer)"
    assert families["card_use"] == {"tests": len(tested), "untested": 8 - len(tested),
                                    "significant": sum(d["significant"] for d in tested)}
    # the outcome metrics are corrected among themselves only
    assert families["outcome"]["tests"] == sum(len(v["diffs"]) for v in sweep["variants"])
    assert not any(n.startswith(("played.", "answered.")) for v in sweep["variants"] for n in v["diffs"])
    from cardc.sim.report import _p
    assert (_p(0.0), _p(0.0123)) == ("<1e-15", "0.012")     # 1 - cdf rounds to 0: a bound, not 0
    printed = capsys.readouterr().out
    assert "card use" in printed and "Thief *" in printed
    assert "Card use, params.win_at=20" in page.read_text()


def test_an_answer_is_the_answering_seats_and_records_keep_card_use_per_seat(tmp_path):
    """Mini's Guard answers a Thief: the answer is credited to the robbed
    seat (whose turn it is not), the theft to the thief; a sweep pairs both
    per agent, and `--records` lines keep both (and cards entering zones)
    per seat."""
    from cardc.engine import Game
    from cardc.project import build_folder
    from cardc.sim.run import Plan, play_game
    from cardc.sim.stats import card_observations
    game = Game(build_folder(MINI).bundle)
    plan = Plan((2,), ("random", "greedy"), 0, None, 10_000)
    answered = 0
    for index in range(100):
        rec = play_game(game, plan, index)
        for seat, times in (rec.answered.get("guard") or {}).items():
            answered += times
            # every Guard answers a Thief played by the other seat
            assert rec.resolved["thief"][1 - seat] >= times
        obs = card_observations(rec, ["thief"], ["guard"])
        for agent in set(rec.agents):
            seats = [s for s, a in enumerate(rec.agents) if a == agent]
            assert obs[f"answered.guard.{agent}"] == [rec.answered.get("guard", {}).get(s, 0) for s in seats]
        line = rec.line()
        assert line["answered_by_seat"].get("guard", [0, 0]) == [
            rec.answered.get("guard", {}).get(s, 0) for s in range(2)]
        if "thief" in rec.resolved:
            assert line["resolved_by_seat"]["thief"] == [rec.resolved["thief"].get(s, 0) for s in range(2)]
            assert sum(line["resolved_by_seat"]["thief"]) == line["resolved"]["thief"]
        # cards entering zones too, per seat (not only summed over seats)
        assert line["entered"] and set(line["entered_by_seat"]) == set(line["entered"])
        for key, times in line["entered"].items():
            assert line["entered_by_seat"][key] == [rec.entered[key].get(s, 0) for s in range(2)]
            assert sum(line["entered_by_seat"][key]) == times
    assert answered > 5


# ---------------------------------------------------------------- holes, records, reports

def test_holes_are_saved_as_replays_that_reproduce_them(tmp_path, game_copy):
    # without the empty-deck end, games where nobody reaches the target run to the turn cap
    folder = game_copy(edits={"cards/cards.yaml": [("move prize to me.bank", "resolve prize")],
                              "game.yaml": [("elif count(draw) == 0 and", "elif false and")]})
    out = tmp_path / "r.json"
    assert main(["simulate", str(folder), "--games", "30", "--jobs", "1", "--quiet",
                 "--json", str(out), "--holes", str(tmp_path / "holes")]) == 1, "games faulted"
    report = json.loads(out.read_text())
    kinds = {h["ending"] for h in report["holes"]}
    assert report["endings"]["fault"]["games"] > 0 and {"fault", "capped"} <= kinds
    assert len(report["holes"]) == sum(report["endings"][e]["games"] for e in ("fault", "capped"))
    from cardc.sim.play import replay
    game = Game(build_folder(folder).bundle)
    for hole in report["holes"]:
        assert hole["replay"].endswith(f"--bundle {folder}")
        record = json.loads(open(hole["file"]).read())
        if hole["ending"] == "fault":
            with pytest.raises(EngineError):
                replay(game, record)
        else:
            assert replay(game, record).state.capped


def test_overridden_holes_replay_with_their_saved_bundle(tmp_path):
    report = simulate(tmp_path, "--games", "30", "--jobs", "1", "--set", "flow.max_turns=4")
    assert report["overrides"] == {"flow.max_turns": "4"} and report["holes"]
    hole = report["holes"][0]
    bundle_file = hole["replay"].split("--bundle ")[1]
    assert main(["replay", hole["file"], "--bundle", bundle_file, "--quiet"]) == 0
    assert main(["replay", hole["file"], "--bundle", str(MINI), "--quiet"]) != 0   # not the same game


def test_records_hold_one_line_per_game_in_order(tmp_path):
    lines = tmp_path / "games.jsonl"
    simulate(tmp_path, "--games", "25", "--jobs", "2", "--records", str(lines))
    rows = [json.loads(line) for line in lines.read_text().splitlines()]
    assert [r["index"] for r in rows] == list(range(25))
    assert all("actions" not in r and r["ending"] for r in rows)


def test_html_is_self_contained_and_compare_reads_reports(tmp_path, capsys):
    html = tmp_path / "r.html"
    a = simulate(tmp_path, "--games", "30", "--jobs", "1", "--html", str(html), "--start-zone", "bank")
    text = html.read_text()
    assert text.count("<svg") >= 5 and "<script" not in text and "http://" not in text.replace(
        "http://www.w3.org/2000/svg", "")
    assert set(a["starts"]["all"]) == {"(none)"}       # the bank is empty when setup ends
    simulate(tmp_path, "--games", "30", "--jobs", "1", name="b.json")
    assert main(["compare", str(tmp_path / "r.json"), str(tmp_path / "b.json")]) == 0
    from cardc.sim.report import compare
    rows = compare(a, a)
    assert rows and all(r["diff"] == 0 and not r["significant"] for r in rows)


@pytest.mark.parametrize("args", [["--players", "5"], ["--agents", "genius"],
                                  ["--start-zone", "draw"], ["--set", "params.nope=1"]])
def test_usage_errors(tmp_path, args):
    assert main(["simulate", str(MINI), "--games", "2", "--quiet", *args]) == 2


def test_t_quantiles_and_p_values_match_the_tables():
    from cardc.sim.intervals import t_p_value, t_quantile
    # two-sided 95% quantiles of Student's t (any statistics table)
    for df, q in ((1, 12.706), (2, 4.303), (5, 2.571), (10, 2.228), (30, 2.042), (1000, 1.962)):
        assert t_quantile(df) == pytest.approx(q, abs=1e-3)
    assert t_p_value(2.228, 10) == pytest.approx(0.05, abs=1e-4)
    assert t_p_value(0.0, 5) == 1.0


def test_small_samples_get_t_intervals():
    m = Moments()
    for v in (1, 2, 3, 4, 5):
        m.add(v)
    s = m.summary()
    half = 2.776 * math.sqrt(2.5) / math.sqrt(5)      # t(4) = 2.776, not z = 1.96
    assert (s["lo"], s["hi"]) == pytest.approx((3 - half, 3 + half), abs=1e-3)


def test_moments_merge_exactly_where_sums_of_squares_cancel():
    """A billion plus small noise: the sum-of-squares formula loses every digit
    of the variance here; Welford's moments merged by Chan's formula keep it."""
    values = [1e9 + x for x in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)]
    whole, left, right = Moments(), Moments(), Moments()
    for i, v in enumerate(values):
        whole.add(v)
        (left if i < 2 else right).add(v)
    left.merge(right)
    exact = math.sqrt(sum((v - sum(values) / 6) ** 2 for v in values) / 5)
    for m in (whole, left):
        assert m.n == 6 and m.sd == pytest.approx(exact, rel=1e-6)
    assert left.mean == pytest.approx(whole.mean)


def test_holm_marks_fewer_than_the_raw_intervals():
    from cardc.sim.stats import holm, mark_significant
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    rows = [{"p": p, "significant": p < 0.05} for p in (0.01, 0.04, 0.03, 0.005)] + [{"p": None}]
    mark_significant(rows)
    assert [r["significant"] for r in rows] == [True, False, False, True, False]
    assert [r["significant_alone"] for r in rows] == [True, True, True, True, False]


def test_progress_goes_to_stderr_as_lines_when_the_output_is_no_terminal(tmp_path, capsys):
    """A run logged to a file (nohup, CI) shows its progress as it goes: a
    line on stderr each tenth of the games, none with --quiet."""
    args = ["--games", "20", "--jobs", "1", "--holes", str(tmp_path / "h")]
    assert main(["simulate", str(MINI), *args]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("Mini: 20/20 games (100%)") and "elapsed" in err[-1]
    assert any("/20 games (" in line and not line.startswith("Mini: 20/20") for line in err)
    assert main(["sweep", str(MINI), "--set", "params.win_at=20", "--fixed", *args]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("Mini: 40/40 games (100%)")           # both variants' games
    assert main(["simulate", str(MINI), *args, "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_progress_lines_name_what_they_count():
    """In a log (not a terminal) the progress line says what it counts:
    games for simulate and sweep, settings for tune."""
    import io

    from cardc.sim.cli import _LineProgress
    out = io.StringIO()
    bar = _LineProgress(out)
    games = bar.add_task("mini", total=2, rate="")
    tune = bar.add_task("mini: tune, settings tried", total=1, unit="settings", rate="")
    bar.update(games, completed=2)
    bar.advance(tune)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("mini: 2/2 games (100%)")
    assert lines[1].startswith("mini: tune, settings tried: 1/1 settings (100%)")


def test_a_name_that_looks_like_terminal_markup_is_printed_as_written(game_copy, capsys):
    """A game named `[/x] :100:` is content, not rich markup nor an emoji
    code: the report prints it as written (it used to end in MarkupError)."""
    from cardc.cli import main
    folder = game_copy(edits={"game.yaml": [("name: Mini\n", "name: \"Mini [/x] :100:\"\n")]})
    assert main(["simulate", str(folder), "--games", "2", "--players", "2", "--jobs", "1"]) == 0
    assert "Mini [/x] :100:: 2 games, players 2" in capsys.readouterr().out
