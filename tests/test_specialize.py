"""Modifiers folded for a word a call site fixes (cardc/engine/specialize.py)."""
import random

import pytest

from cardc.engine import Game, specialize
from cardc.ir.nodes import dump, parse
from cardc.project import load_bundle

V = lambda name: ["var", name]                      # noqa: E731
IS = lambda name, word: ["cmp", "==", V(name), ["lit", word]]     # noqa: E731
MINE = ["cmp", "==", V("player"), ["call", "owner_of", [V("this")], {}]]
PLUS = ["bin", "+", V("value"), ["field", "amount", V("this")]]


# the tests write the IR as the bundle does; specialize reads typed nodes
def specialise(ir, arg, word):
    out = specialize.specialise(parse(ir), arg, word)
    return None if out is None else dump(out)


def keys(bodies, args, code=None, fns=None, params=None):
    return specialize.keys({m: [parse(ir) for ir in irs] for m, irs in bodies.items()}, args, code,
                           {name: parse(ir) for name, ir in (fns or {}).items()}, params)


def owner_guard(ir, declared):
    return specialize.owner_guard(parse(ir), declared)


def test_a_modifier_for_another_word_is_value_itself():
    ir = ["if", IS("resource", "sales"), PLUS, V("value")]
    assert specialise(ir, "resource", "widgets") is None
    assert specialise(ir, "resource", "sales") == PLUS


def test_nested_tests_fold_branch_by_branch():
    ir = ["if", IS("resource", "sales"), ["bin", "-", V("value"), ["lit", 1]],
          ["if", IS("resource", "widgets"), PLUS, V("value")]]
    assert specialise(ir, "resource", "widgets") == PLUS
    assert specialise(ir, "resource", "hype") is None


def test_a_part_that_cannot_fail_goes_with_a_false_and():
    ir = ["if", ["and", [MINE, IS("resource", "interest")]], PLUS, V("value")]
    assert specialise(ir, "resource", "sales") is None
    # true: the test keeps its other part, which decides
    assert specialise(ir, "resource", "interest") == ["if", MINE, PLUS, V("value")]


def test_a_part_that_may_fail_is_kept():
    call = ["fn", "in_dept", [V("card"), ["lit", "eng"]]]
    ir = ["if", ["and", [call, IS("resource", "sales")]], PLUS, V("value")]
    folded = specialise(ir, "resource", "hype")
    assert folded == ["if", ["and", [call, ["lit", False]]], PLUS, V("value")]


def test_or_and_not_fold_the_same_way():
    ir = ["if", ["or", [IS("resource", "a"), ["not", IS("resource", "b")]]], PLUS, V("value")]
    assert specialise(ir, "resource", "b") is None
    assert specialise(ir, "resource", "a") == PLUS
    assert specialise(ir, "resource", "c") == PLUS


def test_only_words_compared_with_a_declared_argument_are_keys():
    bodies = {"need": [["if", IS("resource", "sales"), PLUS, V("value")],
                       ["if", IS("value", 3), PLUS, V("value")],
                       ["if", IS("other", "x"), PLUS, V("value")]]}
    assert keys(bodies, {"need": ["card", "resource"]}) == {"need": [("resource", "sales")]}


def test_a_word_passed_on_through_a_function_is_a_key_too():
    """`need(p, "hype")` where `need` calls `modified(…, resource=resource)`:
    no card compares with "hype", so at that site every card's modifier is
    `value` itself, and the site reads an empty list."""
    bodies = {"need": [["if", IS("resource", "sales"), PLUS, V("value")]]}
    call = ["call", "modified", [["lit", "need"], V("base")], {"resource": V("r"), "player": V("p")}]
    fns = {"need_of": call, "other": ["fn", "need_of", [V("p"), ["lit", "hype"]]]}
    params = {"need_of": ["p", "r"], "other": ["p"]}
    code = {"fn:need_of": {"expr": call}, "fn:other": {"expr": fns["other"]},
            "proc:x": {"ops": [["let", "x", ["fn", "need_of", [V("p"), ["lit", 3]]]]]}}
    got = keys(bodies, {"need": ["player", "resource"]}, code, fns, params)
    # "sales" from the card; "hype" and 3 passed on by `other` and by a block
    assert got == {"need": [("resource", "hype"), ("resource", "sales"), ("resource", 3)]}
    assert specialise(bodies["need"][0], "resource", "hype") is None


def _states(game, games=3, every=15):
    for seed in range(games):
        st = game.new_state(4, seed=seed)
        rnd = random.Random(seed)
        while not st.terminal:
            if st.decisions % every == 0:
                yield st
            st.apply(rnd.randrange(len(st.pending.values)))


def _outcome(f, *args):
    try:
        return ("value", f(*args))
    except Exception as exc:        # noqa: BLE001 - the same fault either way
        return ("fault", type(exc).__name__, str(exc))


@pytest.mark.parametrize("name", ["startup"])
def test_a_folded_modifier_gives_what_the_whole_one_gives(name):
    """On real content and real states: every card's modifier, folded for
    each word, against the modifier as written (a dropped one must give the
    value back unchanged)."""
    game = Game(load_bundle(name))
    declared = game.modifier_args
    checked = dropped = 0
    for st in _states(game):
        for c, special in enumerate(game.card_special):
            if special is None or st.loc[c] < 0:
                continue
            whole = dict(special[0])
            folded = dict(special[2])
            owner = game.slot_owner(st, st.loc[c])
            me = owner if owner is not None else st.turn_player
            for m, f in whole.items():
                for arg, word in game.modifier_keys.get(m, ()):
                    other = [st.turn_player if a == "player" else c if a == "card" else word
                             for a in declared[m]]
                    values = [word if a == arg else v for a, v in zip(declared[m], other)]
                    for value in (0, 2, 5):
                        expect = _outcome(f, st, value, c, me, owner, *values)
                        g = folded.get((m, arg, word))
                        if g is None:
                            assert expect == ("value", value), (m, arg, word, c)
                            dropped += 1
                        else:
                            assert _outcome(g, st, value, c, me, owner, *values) == expect
                            checked += 1
    assert checked > 100 and dropped > 100


def test_a_modifier_guarded_by_its_owner_is_recognised():
    owner = ["call", "owner_of", [V("this")], {}]
    assert owner_guard(["if", MINE, PLUS, V("value")], ["card", "player"]) == "player"
    assert owner_guard(["if", ["and", [["cmp", "==", owner, V("player")], IS("card", 3)]], PLUS, V("value")],
                       ["card", "player"]) == "player"
    # the guard second in an `and`, another else, another comparison: not guarded
    assert owner_guard(["if", ["and", [IS("card", 3), MINE]], PLUS, V("value")], ["card", "player"]) is None
    assert owner_guard(["if", MINE, PLUS, ["lit", 0]], ["card", "player"]) is None
    assert owner_guard(["if", ["cmp", "!=", V("player"), owner], PLUS, V("value")], ["player"]) is None


def _apply(st, mods, value, values):
    tp = st.turn_player
    for c, f, owner in mods:
        value = f(st, value, c, owner if owner is not None else tp, owner, *values)
    return value


def test_a_seats_list_gives_what_the_whole_list_gives():
    """On startup's cards and real states: for each modifier some cards apply
    only for their owner, the list for one player (Game.seat_modifiers)
    gives, for that player, the value the whole list gives."""
    game = Game(load_bundle("startup"))
    assert game.modifier_owner
    words = sorted({w for ks in game.modifier_keys.values() for _, w in ks}) or [None]
    shorter = 0
    for st in _states(game, games=2, every=10):
        found = game._scan_modifiers(st)[1]
        some_cards = [c for c in range(len(st.loc)) if st.loc[c] >= 0][:40:7]
        for m, arg in game.modifier_owner.items():
            whole = found.get(m, ())
            for p in range(st.n):
                seat = game.seat_modifiers(found, m, p)
                shorter += len(seat) < len(whole)
                for c in some_cards:
                    for w in words[:3]:
                        values = [p if a == arg else c if a == "card" else w for a in game.modifier_args[m]]
                        for value in (0, 3):
                            assert (_outcome(_apply, st, seat, value, values)
                                    == _outcome(_apply, st, whole, value, values)), (m, p, c, w)
    assert shorter > 20
