"""The engine's builtins that have a fast path for the common case give what
their plain definition gives, for every input (checked with hypothesis)."""
from __future__ import annotations

from hypothesis import given
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
