"""The agent boundary is hard: a SeatView does not hold the real game.

It holds a copy the seat imagines (agents/view.py), made when the view is
made: its answers (observation, options, their labels and keys, the prompt,
what is not open and why) are the real game's, because what the seat sees
is exact in the copy; and the copy is the same whatever the real game holds
where the seat cannot see, so nothing reachable from a view tells a hidden
card or the real game's coming shuffles.
"""
from __future__ import annotations

import gc

import pytest
from test_actions import GAMES, states  # every decision of a few random games
from test_agents_fair import GUESS, built_game

from cardc.agents import make_agent
from cardc.agents.view import Menu, SeatView
from cardc.engine import Game
from cardc.engine.state import State


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_view_answers_what_the_real_game_would(name):
    checked = 0
    for st in states(name, 3, range(2), 80):
        seat = st.current_player()
        view = SeatView(st, seat)
        assert view.observation() == st.observation(seat)
        assert list(view.legal_actions()) == list(range(st.num_actions()))
        assert [view.action_to_string(a) for a in view.legal_actions()] == st.action_labels()
        assert view.action_keys() == st.legal_actions()
        assert view.prompt == st.pending.prompt
        assert view.why_not() == st.why_not()
        checked += 1
    assert checked > 60


def reachable_states(root, limit=200_000) -> list:
    """Every State reachable from `root` through references (the compiled
    Game, shared by every state and public like a rulebook, is not entered)."""
    seen, found, todo = set(), [], [root]
    while todo and len(seen) < limit:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (Game, type)):
            continue
        seen.add(id(obj))
        if isinstance(obj, State):
            found.append(obj)
        todo.extend(gc.get_referents(obj))
    return found


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_real_state_cannot_be_reached_from_a_view(name):
    for k, st in enumerate(states(name, 3, [4], 40)):
        if k % 8:
            continue
        view = SeatView(st, st.current_player())
        assert not any(s is st for s in reachable_states(view))


def test_the_view_is_the_same_whatever_is_hidden():
    """Two deals of the guessing game that differ only where P1 cannot see
    (where the Ace lies) give P1 the same view, down to its imagined cards."""
    game = built_game(GUESS)
    table = None
    seen = {}
    for seed in range(40):
        st = game.new_state(2, seed=seed)
        table = game.slot(st, "table", None)
        ace_on_table = any(game.card_field["id"][c] == "ace" for c in st.zones[table])
        view = SeatView(st, 0)
        seen.setdefault(ace_on_table, view._guess.zones)
    assert set(seen) == {True, False}
    assert seen[True] == seen[False]


def test_random_gets_only_the_menu():
    st = GAMES["startup"].new_state(2, seed=1)
    agent = make_agent("random", 3)
    assert agent.view is Menu
    menu = Menu(st, st.current_player())
    assert list(menu.legal_actions()) == list(range(st.num_actions()))
    assert not any(s is st for s in reachable_states(menu))
    assert agent.act(st, st.current_player()) in range(st.num_actions())
