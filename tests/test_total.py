"""What total.py proves harmless: text a bot may leave unbuilt only when
building it could not have failed (see cardc/engine/total.py)."""
from types import SimpleNamespace

from cardc.engine import total
from cardc.ir.nodes import dump, parse

V = lambda name: ["var", name]                      # noqa: E731
FIELD = lambda f, x: ["field", f, x]                # noqa: E731


def harmless(ir, game, **kw):
    """total.harmless of an expression written in its JSON form (as a bundle holds it)."""
    return total.harmless(parse(ir), game, **kw)


def risky_parts(ir, game, **kw):
    return [dump(x) for x in total.risky_parts(parse(ir), game, **kw)]


def game(fn_bodies=None, fn_params=None, modifiers=None):
    """What total.py reads of a game: its functions' and modifiers' bodies, as typed nodes."""
    return SimpleNamespace(fn_bodies={k: parse(v) for k, v in (fn_bodies or {}).items()},
                           fn_params=fn_params or {},
                           modifier_bodies={k: [parse(x) for x in v] for k, v in (modifiers or {}).items()})


def modified(name, base, **kwargs):
    return ["call", "modified", [["lit", name], base], kwargs]


DISCOUNT = ["if", ["cmp", "==", V("player"), ["call", "owner_of", [V("this")], {}]],
            ["bin", "-", V("value"), FIELD("amount", V("this"))], V("value")]
PER_CARD = ["if", ["cmp", "==", FIELD("dept", V("card")), ["lit", "eng"]],
            ["bin", "-", V("value"), ["lit", 1]], V("value")]
DIVIDES = ["bin", "/", V("value"), ["lit", 2]]


def test_a_field_of_a_local_may_fail_unless_the_local_is_never_none():
    assert not harmless(["bin", "+", FIELD("cost", V("c")), ["lit", 1]], game())
    assert harmless(["bin", "+", FIELD("cost", V("c")), ["lit", 1]], game(), safe=frozenset({"c"}))


def test_a_modifier_is_harmless_when_every_body_and_argument_is():
    g = game(modifiers={"cost": [DISCOUNT]})
    call = modified("cost", FIELD("cost", V("c")), card=V("c"), player=V("p"))
    assert not harmless(call, g)                        # c could be none
    assert harmless(call, g, safe=frozenset({"c"}))
    assert harmless(["call", "max", [["lit", 0], call], {}], g, safe=frozenset({"c"}))


def test_a_modifier_that_divides_may_fail():
    g = game(modifiers={"cost": [DISCOUNT, DIVIDES]})
    call = modified("cost", FIELD("cost", V("c")), card=V("c"))
    assert not harmless(call, g, safe=frozenset({"c"}))
    assert risky_parts(["str", ["Hire for $", ["fmt", call, "int"]]], g, safe=frozenset({"c"})) == [call]


def test_never_none_passes_into_the_bodies_that_receive_it():
    g = game(modifiers={"cost": [PER_CARD]})
    assert harmless(modified("cost", ["lit", 3], card=V("c")), g, safe=frozenset({"c"}))
    assert not harmless(modified("cost", ["lit", 3], card=V("x")), g, safe=frozenset({"c"}))
    fg = game(fn_bodies={"dept_of": FIELD("dept", V("k"))}, fn_params={"dept_of": ["k"]})
    call = ["fn", "dept_of", [V("c")]]
    assert harmless(["cmp", "==", call, ["lit", "eng"]], fg, safe=frozenset({"c"}))
    assert not harmless(["cmp", "==", call, ["lit", "eng"]], fg)


CLAIMED = ["comp", ["cctr", "claim", V("m")], "m",
           ["call", "flatten", [["comp", ["pzone", "claims", V("q")], "q", ["players"], None]], {}], None]


def test_a_comprehension_over_seats_zones_or_cells_holds_no_none():
    # each m is a card of a seat's zone, so m.claim cannot fail
    assert harmless(CLAIMED, game())
    assert harmless(["comp", FIELD("cost", V("c")), "c", ["cards", ["zone", "deck"]],
                     ["cmp", "==", V("c"), V("x")]], game())
    assert harmless(["comp", V("x"), "x", ["call", "cells", [], {}], None], game())


def test_a_comprehension_over_anything_else_may_fail():
    # a list a function returns may hold none (or not be a list)
    over_fn = ["comp", FIELD("cost", V("c")), "c", ["fn", "hand_of", [V("p")]], None]
    assert not harmless(over_fn, game(fn_bodies={"hand_of": ["lit", None]}, fn_params={"hand_of": ["p"]}))
    # a zone of a player who may be none
    assert not harmless(["comp", V("c"), "c", ["cards", ["pzone", "hand", V("p")]], None], game())
    # its element may fail
    assert not harmless(["comp", ["bin", "/", ["lit", 1], V("x")], "x", ["players"], None], game())
    # flatten of anything but zones
    assert not harmless(["call", "flatten", [["comp", V("q"), "q", ["players"], None]], {}], game())
