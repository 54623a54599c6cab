"""Stable actions: an action's key names what it does, not where it stands.

`State.legal_actions()` gives each open action a key (asking.action_keys):
where the rules ask, which option, what it names (a card by its id, a seat,
a cell, a word), and which of several options that read the same.  The same
action has the same key in every state and in every world an agent imagines;
a key tells no more than the action's label; `apply` takes a key or a
position, and a replay still records positions.
"""
from __future__ import annotations

import random

import pytest

from cardc.agents.view import SeatView
from cardc.engine import Game
from cardc.engine.errors import IllegalAction
from cardc.project import load_bundle

GAMES = {name: Game(load_bundle(name)) for name in ("unicorn", "startup", "ipo")}


def states(name, players=3, seeds=range(3), limit=120):
    """Every decision of a few random games."""
    for seed in seeds:
        st = GAMES[name].new_state(players, seed=seed)
        rnd = random.Random(seed)
        while not st.is_terminal() and st.decisions < limit:
            yield st
            st.apply(rnd.randrange(st.num_actions()))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_keys_are_unique_hashable_and_in_the_order_of_the_labels(name):
    for st in states(name):
        keys = st.legal_actions()
        assert len(keys) == st.num_actions() == len(st.action_labels())
        assert len(set(keys)) == len(keys)
        for i, key in enumerate(keys):
            assert st.action_index(key) == i
            assert st.action_to_string(key) == st.action_to_string(i)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_applying_a_key_is_applying_its_position(name):
    for seed in range(2):
        a, b = GAMES[name].new_state(3, seed=seed), GAMES[name].new_state(3, seed=seed)
        a.log, b.log = [], []
        rnd = random.Random(seed)
        while not a.is_terminal() and a.decisions < 150:
            i = rnd.randrange(a.num_actions())
            a.apply(i)
            b.apply(b.legal_actions()[i])
        assert a.log == b.log and a.history == b.history        # the history records positions


@pytest.mark.parametrize("name", sorted(GAMES))
def test_an_action_has_the_same_key_in_every_world_a_seat_imagines(name):
    """A resampled world shuffles every card the seat cannot see: the keys of
    the seat's own decision are the same there (the seat sees what it picks
    from, and a card it cannot see is only "a hidden card")."""
    rnd = random.Random(7)
    checked = 0
    for st in states(name, seeds=range(2), limit=60):
        view = SeatView(st, st.current_player())
        keys = view.action_keys()
        assert keys == st.legal_actions()             # the view's own imagined copy, too
        for _ in range(3):
            world = view.resample(rnd)
            assert world.action_keys() == keys
        checked += 1
    assert checked > 20


def test_a_key_names_a_card_by_its_id_and_hides_what_the_seat_cannot_see():
    game = GAMES["unicorn"]
    seen_card = hidden = 0
    for st in states("unicorn", seeds=range(4), limit=200):
        d = st.pending
        for key, label in zip(st.legal_actions(), st.action_labels()):
            parts = [p for p in key if isinstance(p, tuple)]
            for part in parts:
                if part[0] == "card":
                    assert part[1] in game.card_index
                    seen_card += 1
                else:
                    assert part == ("hidden card",)
                    assert "hidden" in label
                    hidden += 1
        assert d is st.pending
    assert seen_card > 100


def test_the_same_action_in_two_states_has_the_same_key():
    """Keys do not depend on positions: after a card leaves the hand, the
    options for the other cards keep their keys."""
    game = GAMES["unicorn"]
    found = 0
    for st in states("unicorn", seeds=range(3), limit=150):
        if st.pending.kind != "menu" or st.num_actions() < 3:
            continue
        keys = st.legal_actions()
        copy = st.clone()
        copy.apply(0)
        if copy.is_terminal() or copy.current_player() != st.current_player() or copy.pending.kind != "menu":
            continue
        later = set(copy.legal_actions())
        labels = dict(zip(copy.legal_actions(), copy.action_labels()))
        for key, label in zip(keys[1:], st.action_labels()[1:]):
            if key in later:
                assert labels[key] == label
                found += 1
    assert found > 0


def test_an_unknown_key_or_a_wrong_position_is_refused_and_changes_nothing():
    st = GAMES["startup"].new_state(3, seed=1)
    before = st.to_json()
    for bad in [("proc:nowhere", 0, 0), (), st.num_actions(), -1, "0", None, True, 1.0]:
        with pytest.raises(IllegalAction):
            st.apply(bad)
    assert st.to_json() == before


def test_a_choice_among_cards_the_seat_cannot_see_keys_them_by_position_only(mini_game):
    """A blind pick (cards face down): the key says "a hidden card" and which
    of them, never the card's id, as the label says "a hidden card"."""
    from cardc.engine.asking import Decision, action_keys
    st = mini_game.new_state(2, seed=3)
    draw = st.zones[mini_game.slot(st, "draw", None)]
    assert len(draw) >= 3 and not st.visible(draw[0], 0)
    d = Decision("choose", 0, "Take which?", None, draw[:3], "pick", menu=("card", False))
    d._owner = st._owner_ref()
    keys = action_keys(st, d)
    site = (st.stack[-1].code.name, st.stack[-1].pc)
    assert keys == [site + (("hidden card",), k) for k in range(3)]
