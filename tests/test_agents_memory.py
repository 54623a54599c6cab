"""A seat remembers where it saw cards go face down (Table.remember), and the
worlds it imagines keep them there (Table.determinized).

tests/fixtures/games/remember: the Ace is shown to everyone, then goes face
down into the table with two blanks and the table is shuffled; P2 holds a
blank, the deck two more, all of one back.  P1 takes the top card of the
table or of the deck.  A seat that remembers wins 1 time in 3 by taking
from the table; one that forgot sees no difference and wins 1 time in 6.
"""
from __future__ import annotations

import random

import pytest

from cardc.agents import make_agent
from cardc.agents.view import SeatView
from cardc.engine import Game
from cardc.engine.errors import CorruptState
from cardc.engine.state import State
from cardc.project import load_bundle

from test_agents_fair import Path, binomial_range, built_game

REMEMBER = Path(__file__).parent / "fixtures" / "games" / "remember"
GAMES = 200


@pytest.fixture(scope="module")
def game():
    return built_game(REMEMBER)


def parts(game, st):
    ace = next(c for c in range(len(game.instances)) if game.card_field["id"][c] == "ace")
    return ace, game.slot(st, "table", None), game.slot(st, "deck", None), game.slot(st, "hand", 1)


def aces_in(game, st, seat, slot, tries=100):
    ace = parts(game, st)[0]
    view = SeatView(st, seat)
    return sum(ace in view.resample(random.Random(i))._st.zones[slot] for i in range(tries))


def test_a_seat_remembers_the_card_it_saw_go_face_down(game):
    st = game.new_state(2, seed=3)
    ace, table, _, _ = parts(game, st)
    assert st.memory == [{table: {ace}}, {table: {ace}}]      # the table was shuffled since
    assert aces_in(game, st, 0, table) == 100
    assert aces_in(game, st, 1, table) == 100


def test_a_seat_that_forgot_imagines_the_card_anywhere(game):
    st = game.new_state(2, seed=3)
    _, table, _, _ = parts(game, st)
    st.memory = None
    assert aces_in(game, st, 0, table) < 80


def test_a_card_leaving_unseen_makes_the_seat_unsure_of_its_zone(game):
    """P1 sees neither the table nor P2's hand: when a table card goes to
    that hand it cannot tell which, so it no longer knows the Ace is on the
    table; P2 sees the card arrive, so it knows which one left."""
    for seed in range(6):
        st = game.new_state(2, seed=seed)
        ace, table, _, hand = parts(game, st)
        moved = st.zones[table][0]
        st.move(moved, hand)
        assert table not in st.memory[0]
        assert st.memory[1] == ({} if moved == ace else {table: {ace}})
        if moved != ace:
            assert 0 < aces_in(game, st, 0, hand, 60) < 60        # P1: it may have gone
            assert aces_in(game, st, 1, table, 60) == 60          # P2: it did not


def test_a_card_seen_leaving_keeps_what_the_seat_knew_of_the_rest(game):
    st = game.new_state(2, seed=1)
    ace, table, _, _ = parts(game, st)
    other = next(c for c in st.zones[table] if c != ace)
    st.move(other, game.slot(st, "found", 0))                     # face up: everyone sees it
    assert st.memory[0] == {table: {ace}}


def test_a_whole_zone_moved_takes_what_was_remembered_with_it(game):
    st = game.new_state(2, seed=1)
    ace, table, deck, _ = parts(game, st)
    st.move_zone(table, deck)
    assert st.memory == [{deck: {ace}}, {deck: {ace}}]
    assert aces_in(game, st, 0, deck) == 100


def test_a_card_shown_to_a_seat_is_remembered_after_its_zone_is_shuffled(game):
    st = game.new_state(2, seed=1)
    _, _, deck, _ = parts(game, st)
    card = st.zones[deck][0]
    st.reveal(card, 0)
    st.shuffle_zone(deck)
    assert card in st.memory[0][deck] and deck not in st.memory[1]


def test_a_guess_holds_its_seats_memory_and_no_other(game):
    st = game.new_state(2, seed=1)
    st.memory[1][0] = set()              # something only P2 would know
    view = SeatView(st, 0)
    assert view._guess.memory[1] == {} and view._guess.memory[0] == st.memory[0]


@pytest.mark.parametrize("spec", ["mcts:40"])
def test_an_agent_that_remembers_wins_as_often_as_remembering_allows(game, spec):
    wins = 0
    for seed in range(GAMES):
        st = game.new_state(2, seed=seed)
        st.apply(make_agent(spec, 1000 + seed).act(st, 0))
        wins += st.winners == [0]
    lo, hi = binomial_range(GAMES, 1 / 3)
    forgot_lo, forgot_hi = binomial_range(GAMES, 1 / 6)
    assert lo <= wins <= hi and wins > forgot_hi, f"{spec} won {wins} of {GAMES}"


def test_memory_is_saved_and_a_save_that_lies_about_it_is_refused(game):
    st = game.new_state(2, seed=1)
    back = State.from_json(game, st.to_json())
    assert back.memory == st.memory
    data = st.to_json()
    ace, table, deck, _ = parts(game, st)
    data["memory"][0] = {str(deck): [ace]}                     # the Ace is not in the deck
    with pytest.raises(CorruptState, match="memory"):
        State.from_json(game, data)
    del data["memory"]                                         # a save from before: nobody remembers
    assert State.from_json(game, data).memory == [{}, {}]


@pytest.mark.parametrize("name", ["unicorn", "startup", "ipo"])
def test_memory_never_changes_the_game_itself(name):
    g = Game(load_bundle(name))
    for seed in range(3):
        a, b = g.new_state(3, seed=seed, log=True), g.new_state(3, seed=seed, log=True, memory=False)
        rnd = random.Random(seed)
        while not a.terminal:
            i = rnd.randrange(len(a.pending.values))
            a.apply(i)
            b.apply(i)
        assert a.log == b.log and b.memory is None and a.memory is not None
