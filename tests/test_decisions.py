"""What a pending decision tells a person (labels, options not open and
why) is the same whether it is worked out when the question is asked or
later, when someone reads it: a bot never reads it, so the engine leaves it
until then (Asking.ask_menu, `unavailable_later`)."""
from __future__ import annotations

import random
import re

import pytest

from cardc.engine import Game
from cardc.project import load_bundle


def eager_unavailable(st):
    """The options not open, listed by running the menu with a list to fill,
    as the engine did for every menu before it left them for later."""
    d = st.pending
    items = d.menu[0]
    env = st.stack[-1].env
    found = []
    items(st, env, [], found)
    return [[f(st, {**env, **b}), r(st, {**env, **b})] for f, r, b in found]


def each_decision(name, seeds):
    """The state at every decision of random 4-player games of a shipped game."""
    game = Game(load_bundle(name))
    for seed in seeds:
        st = game.new_state(4, seed=seed)
        rnd = random.Random(seed)
        while not st.is_terminal():
            yield st
            st.apply(rnd.randrange(len(st.legal_actions())))


@pytest.mark.parametrize("name", ["unicorn", "startup", "ipo"])
def test_options_not_open_are_the_same_read_late(name):
    menus = with_reasons = late = 0
    for st in each_decision(name, range(3)):
        d = st.pending
        if d.kind == "menu":
            menus += 1
            late += d.menu[1] is None           # not listed when asked
            expected = eager_unavailable(st)
            assert st.why_not() == expected
            with_reasons += bool(expected)
            for label, reason in expected:
                assert st.explain(d.player, label) == reason
    assert menus > 20 and with_reasons > 0 and late > 0


def test_options_not_open_cannot_be_read_after_the_decision():
    st = next(st for st in each_decision("unicorn", [0])
              if st.pending.kind == "menu" and eager_unavailable(st))
    d = st.pending
    st.apply(0)
    with pytest.raises(RuntimeError, match="while it is pending"):
        d.unavailable


@pytest.mark.parametrize("name", ["unicorn", "startup", "ipo"])
def test_choice_labels_one_by_one_match_the_list(name):
    """A log needs only the label of the option taken (`label(i)`); a person
    reads them all: the two agree, "Pass" included where one may pass."""
    kinds = set()
    for st in each_decision(name, range(2)):
        d = st.pending
        if d.kind == "choose":
            kinds.add(d.menu[1])
            twin = st.clone()
            one = [twin.pending.label(i) for i in range(len(d.values))]
            assert one == d.labels
            assert len(d.labels) == len(d.values)
            assert (d.labels[-1] == "Pass") == (d.values[-1] is None)
    assert False in kinds


def test_unique_keeps_the_first_of_each_in_order():
    """`unique` (companies a tile touches, in the order their tiles lie) is
    read in that order by rules and logs: the first of each value, in order."""
    from cardc.engine.builtins import IMPL
    unique = IMPL["unique"]
    assert unique(None, None, [5, 3, 5, 1, 3, 7, 1]) == [5, 3, 1, 7]
    assert unique(None, None, ["b4", "a1", "b4"]) == ["b4", "a1"]
    assert unique(None, None, []) == []


@pytest.mark.parametrize("name", ["unicorn", "startup"])
def test_a_state_saved_with_options_as_dicts_still_resumes(name):
    """Saves before the ninth wave held a menu option as [pc, {name: value}];
    now it is [pc, name, value, …].  An old save resumes to the same game."""
    from cardc.engine.state import State
    checked = 0
    for st in each_decision(name, [1]):
        d = st.pending
        if d.kind != "menu" or len(d.values) < 2 or not any(len(o) > 1 for o in d.values):
            continue
        saved = st.to_json()
        old = saved["pending"]["values"]
        saved["pending"]["values"] = [[o[0], dict(zip(o[1::2], o[2::2]))] for o in old]
        for action in range(len(old)):
            now, then = st.clone(), State.from_json(st.game, saved)
            assert then.action_labels() == now.action_labels()
            now.apply(action)
            then.apply(action)
            assert then.to_json()["zones"] == now.to_json()["zones"]
            assert [f.env for f in then.stack] == [f.env for f in now.stack]
        checked += 1
        if checked == 5:
            break
    assert checked == 5


def _same_menus(one, two, seeds=range(15)):
    """Play random 2-player games of two builds of a game side by side: the
    same options and labels at every decision, the same games.  The labels
    of every decision, for the caller to count what it wanted to see."""
    seen = []
    for seed in seeds:
        a, b = one.new_state(2, seed=seed), two.new_state(2, seed=seed)
        rnd = random.Random(seed)
        while not a.is_terminal():
            assert a.pending.values == b.pending.values
            assert a.pending.labels == b.pending.labels
            seen.append(a.pending.labels)
            action = rnd.randrange(len(a.legal_actions()))
            a.apply(action)
            b.apply(action)
        assert b.is_terminal() and a.history == b.history and a.winners == b.winners
    return seen


def _menu_source(game):
    return "\n".join(text for name, text in game.pygen.sources if name.startswith("_menu"))


@pytest.mark.parametrize("shared, apart, marker", [
    # rubies (worth 3) are neither banked nor held: the shared test fails
    (("c.value <= 2 and c.kind == \"gem\"", "c.value <= 2 and c.kind != \"gem\""),
     ("c.kind == \"gem\" and c.value <= 2", "c.kind != \"gem\" and c.value <= 2"), "<= 2"),
])
def test_options_whose_conditions_start_alike_test_it_once_and_offer_the_same(game_copy, shared,
                                                                              apart, marker):
    """Options side by side whose conditions start with the same test (as
    startup's two ways to hire a card) test it once, with the rest of each
    condition inside it (PyGen._same_first_test): the options offered at
    every decision are those of the same menu written so that nothing is
    shared."""
    from cardc.project import build_folder
    bank = 'option "Bank {c.name}":'
    play = 'option "Play {c.name}" if c.kind == "thief" and playable(c) else "nothing to steal":'

    def build(first, second):
        hold = f'option "Hold {{c.name}}" if {second}:\n            me.plays -= 1\n          '
        folder = game_copy(edits={"game.yaml": [(bank, f'option "Bank {{c.name}}" if {first}:'),
                                                (play, hold + play)]})
        built = build_folder(folder)
        assert built.bundle, built.diags.render()
        return Game(built.bundle)

    one, two = build(*shared), build(*apart)
    # the shared test is written once in the first menu, twice in the second
    assert _menu_source(one).count(marker) == 1 and _menu_source(two).count(marker) == 2
    seen = _same_menus(one, two)
    held = sum(any(lab.startswith("Hold") for lab in labels) for labels in seen)
    banked = sum(any(lab.startswith("Bank") for lab in labels) for labels in seen)
    assert len(seen) > 200 and held > 20 and banked > 20


def test_a_first_test_that_draws_is_not_shared():
    """A first test that could draw from the random generator is written
    once an option, as it was: evaluated once instead, the game would draw
    fewer numbers (the compiler refuses such a condition; a bundle written by
    hand may still hold one)."""
    from cardc.engine.pygen import PyGen
    from cardc.ir.nodes import parse_menu
    game = Game(load_bundle("startup"))
    px = PyGen(game)
    draws = ["cmp", ">", ["call", "count", [["call", "shuffled_order", [["players"]], {}]], {}], ["lit", 0]]
    plain = ["cmp", ">", ["lit", 1], ["lit", 0]]

    def opt(first, pc):
        return parse_menu([["opt", ["lit", "x"], ["and", [first, ["lit", True]]], None, pc]])[0]
    assert px._same_first_test([opt(plain, 1), opt(plain, 2), opt(draws, 3)], 0) == 2
    assert px._same_first_test([opt(draws, 1), opt(draws, 2)], 0) == 1


def test_a_loop_whose_options_start_with_a_test_of_no_card_tests_it_once(game_copy):
    """A menu's loop whose options all start with the same test, one that
    reads no card of the loop, tests it once, before the loop, and only if
    the loop has a card (PyGen._loop_invariant_first): the same options at
    every decision as the loop written with the test last."""
    from cardc.project import build_folder
    pass_option = 'option "Pass":'

    def build(show, hide):
        loop = (f'for c in me.bank:\n'
                f'          option "Show {{c.name}}" if {show}:\n'
                f'            me.plays -= 1\n'
                f'          option "Hide {{c.name}}" if {hide}:\n'
                f'            me.plays -= 1\n'
                f'        ')
        folder = game_copy(edits={"game.yaml": [(pass_option, loop + pass_option)]})
        built = build_folder(folder)
        assert built.bundle, built.diags.render()
        return Game(built.bundle)

    once = build("count(me.hand) > 1 and c.value > 2", "count(me.hand) > 1 and c.value <= 2")
    each = build("c.value > 2 and count(me.hand) > 1", "c.value <= 2 and count(me.hand) > 1")
    source = _menu_source(once)
    # the test stands before the loop over the bank, beside the check that it has a card
    assert source.count("> 1") == 1 and re.search(r"if _l\d+ and \(len\(", source), source
    assert _menu_source(each).count("> 1") == 2
    seen = _same_menus(once, each)
    shown = sum(any(lab.startswith(("Show", "Hide")) for lab in labels) for labels in seen)
    assert len(seen) > 200 and shown > 20
