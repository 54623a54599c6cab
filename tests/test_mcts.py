"""The mcts agent: plays any bundle, reproducible for a seed on one core,
several or a Dask cluster, and every simulate report works with it."""
from __future__ import annotations

import json

import pytest

from cardc.agents import make_agent, parse_agent
from cardc.agents.mcts import MCTSAgent
from cardc.agents.view import SeatView
from cardc.cli import main
from cardc.engine import Game
from cardc.project import build_folder
from conftest import MINI

ARGS = ["--games", "8", "--players", "2", "--agents", "mcts:12:4,greedy", "--seed", "2",
        "--start-zone", "bank"]


def simulate(tmp_path, *extra, name="r.json"):
    out = tmp_path / name
    assert main(["simulate", str(MINI), "--quiet", "--json", str(out),
                 "--holes", str(tmp_path / "holes"), *ARGS, *extra]) == 0
    return json.loads(out.read_text())


def deterministic(report):
    return {k: v for k, v in report.items() if k != "run"}


def test_mcts_settings_come_from_its_name():
    agent = make_agent("mcts:30:5", 1)
    assert isinstance(agent, MCTSAgent) and (agent.iterations, agent.depth) == (30, 5)
    assert agent.name == "mcts:30:5"
    for bad in ("mcts:x", "mcts:1:2:3:4:5", "greedy:4:4", "mcts:0"):
        with pytest.raises(ValueError):
            parse_agent(bad)


def test_mcts_is_reproducible_and_every_report_works_with_it(tmp_path):
    one = simulate(tmp_path, "--jobs", "1", name="one.json")
    two = simulate(tmp_path, "--jobs", "2", name="two.json")
    assert deterministic(one) == deterministic(two)
    assert set(one["agents"]["all"]) == {"mcts:12:4", "greedy"}
    assert one["agents"]["all"]["mcts:12:4"]["trials"] == 8
    assert set(one["run"]["seconds_per_decision"]) == {"mcts:12:4", "greedy"}
    assert one["starts"]["all"] and one["cards"] and one["length"]["2"]["games"] == 8


def test_mcts_on_a_dask_cluster_equals_local(tmp_path):
    distributed = pytest.importorskip("distributed")
    local = simulate(tmp_path, "--jobs", "1", name="local.json")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        remote = simulate(tmp_path, "--cluster", cluster.scheduler_address,
                          name="dask.json")
    assert deterministic(local) == deterministic(remote)


def test_terminal_report_shows_seconds_per_decision(tmp_path, capsys):
    assert main(["simulate", str(MINI), "--games", "4", "--agents", "mcts:8,random", "--jobs", "1",
                 "--holes", str(tmp_path / "holes")]) == 0
    out = capsys.readouterr().out
    assert "seconds per decision" in out and "mcts:8" in out


def winning_positions(game, count):
    """Decisions (found by random play) where some action wins at once."""
    import random
    rnd, found = random.Random(0), []
    for seed in range(200):
        st = game.new_state(2, seed=seed)
        while not st.terminal and len(found) < count:
            n, me = len(st.pending.values), st.pending.player
            wins = []
            for a in range(n):
                after = st.clone()
                after.apply(a)
                if after.terminal and after.winners == [me]:
                    wins.append(a)
            if wins and len(wins) < n:
                found.append((st.clone(), wins))
            st.apply(rnd.randrange(n))
        if len(found) >= count:
            return found
    return found


def test_mcts_takes_an_immediate_win():
    """At 12 points a player wins at the end of their turn: mcts takes the win."""
    game = Game(build_folder(MINI).bundle)
    positions = winning_positions(game, 8)
    assert len(positions) == 8
    for i, (st, wins) in enumerate(positions):
        assert make_agent("mcts:40", i).act(SeatView(st, st.pending.player)) in wins


def test_mcts_without_an_eval_plays_out_and_still_takes_the_win(game_copy):
    """A game with no `eval` (nor a score) has nothing to score a leaf with: mcts plays
    random moves to the end instead, and still finds the immediate win."""
    built = build_folder(game_copy(edits={"game.yaml": [("eval: worth(p)\n", ""), ("score: worth(p)\n", "")]}))
    game = Game(built.bundle)
    assert game.eval is None
    positions = winning_positions(game, 4)
    assert len(positions) == 4
    for i, (st, wins) in enumerate(positions):
        view = SeatView(st, st.pending.player)
        assert not view.has_eval
        assert make_agent("mcts:40", i).act(view) in wins


def test_named_settings_ride_on_the_name_after_the_positional_ones():
    agent = make_agent("mcts:120:turns=2:eval=0:c=0.25:cost=0", 1)
    assert (agent.iterations, agent.turns, agent.use_eval, agent.c, agent.cost) == (120, 2, False, 0.25, 0.0)
    assert make_agent("elite", 0).iterations == 2 * make_agent("mcts", 0).iterations
    assert make_agent("osla", 0).follow == 1
    for bad, said in (("mcts:turns=2:300", "named ones come last"), ("mcts:turns=x", "not a number"),
                      ("mcts:depth=3", "not a named setting"), ("mcts:turns=-1", "negative")):
        with pytest.raises(ValueError, match=r"write `mcts:ITERATIONS:DEPTH:FOLLOW` with positive whole "
                                             r"numbers, then any of `turns=N`"):
            parse_agent(bad)


def test_mcts_keys_its_tree_by_the_actions_stable_keys_when_asked():
    """With `keyed=1` the root's children are keyed by (seat, the action's
    key), so the move played is found by its key, whatever its position in a
    guessed world; by default by (seat, the action's position)."""
    game = Game(build_folder(MINI).bundle)
    st = winning_positions(game, 1)[0][0]
    view = SeatView(st, st.pending.player)
    agent = make_agent("mcts:40:keyed=1", 0)
    agent.act(view)
    assert {k for _, k in agent.root.children} <= set(view.action_keys())
    assert all(p == view.seat for p, _ in agent.root.children)
    plain = make_agent("mcts:40", 0)
    plain.act(view)
    assert {k for _, k in plain.root.children} <= set(range(len(view.legal_actions())))
    assert (plain.keyed, plain.cost) == (False, 0.0)
