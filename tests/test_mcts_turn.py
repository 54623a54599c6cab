"""mcts scores every iteration at one kind of point: once the turn the root
decision is asked in is over (or the game is), so that leaves compare."""
from __future__ import annotations

import random

import pytest

from cardc.agents import make_agent, parse_agent
from cardc.agents.mcts import DEFAULT_DEPTH, MCTSAgent
from cardc.agents.view import SeatView
from cardc.engine import Game
from cardc.project import build_folder
from conftest import MINI


def positions(game, count, seed=0):
    """Decisions with two or more options, from random play of mini."""
    rnd, found = random.Random(seed), []
    for s in range(50):
        st = game.new_state(2, seed=s)
        while not st.terminal and len(found) < count:
            if len(st.pending.values) > 1:
                found.append(st.clone())
            st.apply(rnd.randrange(len(st.pending.values)))
        if len(found) >= count:
            break
    return found


@pytest.fixture
def leaves(monkeypatch):
    """Where each iteration was scored: (terminal, turn) of the world."""
    seen = []
    values = MCTSAgent._values

    def spy(self, world, *scored):
        seen.append((world.terminal, world.turn))
        return values(self, world, *scored)
    monkeypatch.setattr(MCTSAgent, "_values", spy)
    return seen


def test_every_leaf_is_scored_once_the_roots_turn_is_over(leaves):
    game = Game(build_folder(MINI).bundle)
    for i, st in enumerate(positions(game, 12)):
        leaves.clear()
        make_agent("mcts:30", i).act(SeatView(st, st.pending.player))
        assert len(leaves) == 30
        assert all(terminal or turn > st.turn for terminal, turn in leaves)


def test_depth_still_caps_an_iteration(leaves):
    """`mcts:ITER:DEPTH`, the old spec, still means something: an iteration
    plays DEPTH decisions at most, so with 1 it is scored inside the turn
    whenever the first move does not end it."""
    game = Game(build_folder(MINI).bundle)
    inside = 0
    for i, st in enumerate(positions(game, 12)):
        leaves.clear()
        make_agent("mcts:30:1", i).act(SeatView(st, st.pending.player))
        inside += sum(not terminal and turn == st.turn for terminal, turn in leaves)
    assert inside > 0
    assert parse_agent("mcts:300:6") == (MCTSAgent, [300, 6])
    assert make_agent("mcts", 0).depth == DEFAULT_DEPTH


def test_a_leaf_at_the_turns_end_is_not_discounted_by_the_decisions_it_took():
    """Every leaf sits at the same point, so a line that plays more of its
    turn is not worth less for it: the root's values are the leaves' own
    (with no cost a decision: that tie-break is `cost=`, 0 here)."""
    game = Game(build_folder(MINI).bundle)
    st = positions(game, 1)[0]
    agent = make_agent("mcts:40:cost=0", 3)
    got = []
    values = agent._values

    def spy(world, *scored):
        v = values(world, *scored)
        got.append(v[st.pending.player])
        return v
    agent._values = spy
    from cardc.agents import mcts
    root_totals = []
    iterate = agent._iterate

    def count(root, world, w, horizon):
        iterate(root, world, w, horizon)
        root_totals.append(sum(c.total for (p, _), c in root.children.items()))
    agent._iterate = count
    agent.act(SeatView(st, st.pending.player))
    assert root_totals[-1] == pytest.approx(sum(got))
    assert mcts.DISCOUNT < 1


def test_turns_sets_how_many_turn_ends_a_playout_runs_to(leaves):
    """`turns=2`: every leaf is scored at the start of the second turn after
    the root's or later (never sooner), or at the game's end."""
    game = Game(build_folder(MINI).bundle)
    for i, st in enumerate(positions(game, 8)):
        leaves.clear()
        make_agent("mcts:20:turns=2", i).act(SeatView(st, st.pending.player))
        assert len(leaves) == 20
        assert all(terminal or turn >= st.turn + 2 for terminal, turn in leaves)
        assert any(not terminal and turn == st.turn + 2 for terminal, turn in leaves)


def test_without_eval_every_playout_runs_to_the_end(leaves):
    """`eval=0`: results alone, so every iteration plays to the game's end."""
    game = Game(build_folder(MINI).bundle)
    for i, st in enumerate(positions(game, 3)):
        leaves.clear()
        make_agent("mcts:10:eval=0", i).act(SeatView(st, st.pending.player))
        assert leaves and all(terminal for terminal, _ in leaves)
