"""The engine's builtins that have a fast path for the common case give what
their plain definition gives, for every input (checked with hypothesis)."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cardc.engine.builtins import _rivals, _unique

plain = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["a", "b"]))


@given(st.lists(plain, max_size=5))
def test_unique_keeps_each_value_once_in_the_order_first_met(xs):
    before = list(xs)
    got = _unique(None, None, xs)
    assert got == list(dict.fromkeys(xs))
    # equal values of different types count as one, as in a dict (1 and true)
    assert [type(v) for v in got] == [type(v) for v in dict.fromkeys(xs)]
    assert got is not xs and xs == before        # a new list; the argument untouched


def test_unique_of_lists_fails_as_a_dict_would_whatever_the_length():
    for xs in ([[1]], [[1], [2]], [[1], [2], [3]]):
        try:
            _unique(None, None, xs)
        except TypeError:
            continue
        raise AssertionError(f"unique({xs}) did not fail")


class Seats:
    def __init__(self, n):
        self.n = n


@given(st.integers(1, 8), st.data())
def test_rivals_are_the_seats_after_p_round_the_table(n, data):
    p = data.draw(st.integers(-2, n + 2))
    got = _rivals(Seats(n), None, p)
    assert got == [(p + k) % n for k in range(1, n)]
    got.append("changed")                       # the caller's own list
    assert _rivals(Seats(n), None, p) == [(p + k) % n for k in range(1, n)]


_IPO = []


def _ipo():
    if not _IPO:
        from cardc.engine import Game
        from cardc.project import load_bundle
        _IPO.append(Game(load_bundle("ipo")))
    return _IPO[0]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_connected_searched_on_the_cell_index_is_connected_of_the_scan(data):
    """`connected([t for t in board if t.company == v], start)`, written as a
    search from the start's cell on the board's cell index
    (`connected_valued`), gives what the builtin gives on the scanned list:
    the same cards in the same order, for a start on the board or off it,
    with or without the value, a card with no cell, or none."""
    from cardc.engine.builtins import _connected, connected_valued, zone_index
    game = _ipo()
    s = game.new_state(2, seed=data.draw(st.integers(0, 3)))
    board, pool = game.slot(s, "board", None), game.slot(s, "tile_pool", None)
    firms = s.zones[game.slot(s, "market", None)][:2] + [None]
    values = s.own_cc("company")
    tiles = s.zones[pool][:100]
    for t in data.draw(st.lists(st.sampled_from(tiles), min_size=20, max_size=90, unique=True)):
        values[t] = data.draw(st.sampled_from(firms + [None, None]))   # big groups of one value
        s.move(t, board, data.draw(st.sampled_from(["top", "bottom"])))
    start = data.draw(st.sampled_from(tiles + firms))     # a tile (placed or not), a company card, none
    value = data.draw(st.sampled_from(firms))
    want = _connected(s, None, [c for c in s.zones[board] if values[c] == value], start)
    assert connected_valued(s, zone_index(s, board), start, values, value) == want


# ---------------------------------------------------------------- the registry

def test_every_builtin_is_declared_once_and_each_part_of_cardc_reads_that():
    """cardc/ir/builtins.py is the one table: the compiler's type rules, the
    engine's bodies, the cache analysis and the bundle schema's closed list
    of callable names all come from it."""
    from cardc.ir.schema import _validator
    from cardc.compiler.builtins import BUILTINS as RULES
    from cardc.engine import deps
    from cardc.engine.builtins import IMPL
    from cardc.ir.builtins import ATTACHMENTS, BUILTINS, CALLABLE, STATIC_READS
    assert set(RULES) == {n for n, b in BUILTINS.items() if not b.ir_only}
    assert set(IMPL) == CALLABLE == {n for n, b in BUILTINS.items() if b.body is not None}
    assert all(callable(f) for f in IMPL.values())
    enum = _validator().schema["$defs"]["expr_call"]["prefixItems"][1]["enum"]
    assert enum == sorted(CALLABLE)
    for name in CALLABLE:
        b = BUILTINS[name]
        assert (name in deps._STATIC_CALLS) == (b.reads in STATIC_READS)
        assert (name in deps.ATTACHMENT_CALLS) == (b.reads == ATTACHMENTS)
        assert (name in deps._CHEAP_CALLS) == b.cheap


def test_the_inline_forms_and_the_proofs_of_harmlessness_are_the_declared_ones():
    """A builtin's inline form and whether it can fail are declared in the
    registry; the generator's forms and total.py's rules are exactly those
    (a mismatch fails at import, which this test would show)."""
    from cardc.engine import inline, total
    from cardc.ir.builtins import BUILTINS, NEVER, RULE, WITH_ARGS
    from cardc.ir.nodes import parse
    assert set(inline.FORMS) == {n for n, b in BUILTINS.items() if b.inline}
    assert set(total.RULES) == {n for n, b in BUILTINS.items() if b.harmless == RULE}

    class Game:
        fn_bodies, fn_params = {}, {}
    me = ["var", "me"]
    for name, b in BUILTINS.items():
        call = parse(["call", name, [me], {}])
        if b.harmless == WITH_ARGS:         # of an argument that cannot fail: cannot fail
            assert total.harmless(call, Game()), name
            assert not total.harmless(parse(["call", name, [["bin", "/", me, me]], {}]), Game()), name
        elif b.harmless == NEVER:
            assert not total.harmless(call, Game()), name


def test_range_is_checked_like_any_builtin(game_copy):
    from cardc.project import build_folder
    folder = game_copy(edits={"rules.yaml": [("    expr: sum([c.value for c in p.bank])",
                                              '    expr: sum(range("a", 3))')]})
    built = build_folder(folder)
    (error,) = [d for d in built.diags.errors]
    assert error.message == "argument 1 of `range` must be a number, but this is text"
    assert (error.loc.line, error.loc.col) == (6, 21)


def test_a_range_too_long_is_a_fault_that_names_the_limit(game_copy):
    """A range of more than MAX_RANGE numbers is refused (in the rules, the
    fault is located at the statement like any other)."""
    import pytest as _pytest
    from cardc.engine import Game
    from cardc.engine.errors import EngineFault
    from cardc.project import build_folder
    folder = game_copy(edits={"rules.yaml": [("    expr: sum([c.value for c in p.bank])",
                                              "    expr: count(range(0, 20000))")]})
    built = build_folder(folder)
    assert built.bundle, built.diags.render()
    game = Game(built.bundle)
    with _pytest.raises(EngineFault) as info:
        st = game.new_state(2, seed=1)
        st.scores()
    assert "range(0, 20000) would give 20,000 numbers; at most 10,000" in str(info.value)
