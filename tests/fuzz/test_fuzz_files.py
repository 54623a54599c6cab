"""Bundle IR fields and replay fields, mutated: a bundle is refused naming
its field, or loads and plays with only engine faults; a replay is refused
naming its key, or replays. Nothing raises anything else."""
from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardc.ir.schema import BundleInvalid, check_bundle
from cardc.engine import EngineError
from cardc.sim.play import ReplayError, replay, replay_record
from cardc.project import build_folder
from tests.conftest import MINI
from tests.fuzz.conftest import DEEP_EXAMPLES, EXAMPLES

_BUNDLE = build_folder(MINI).bundle

json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=False),
              st.sampled_from(["+", "==", "jump", "lit", "var", "me", "draw", "__class__", "0; import os", "",
                               "hand", "plays", "worth", "count", "-1"])),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(["a", "ops", "src"]),
                                                                          inner, max_size=2)),
    max_leaves=8)


def _places(node, path=()):
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _places(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _places(v, path + (i,))


_PLACES = [p for p in _places(_BUNDLE) if p and p[0] in ("code", "cards", "zones", "instances", "counters", "players")]


@st.composite
def bundle_mutation(draw):
    b = copy.deepcopy(_BUNDLE)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_PLACES))
        holder = b
        try:
            for p in path[:-1]:
                holder = holder[p]
            holder[path[-1]]
        except (KeyError, IndexError, TypeError):
            continue
        if isinstance(holder[path[-1]], int) and not isinstance(holder[path[-1]], bool) and draw(st.booleans()):
            holder[path[-1]] += draw(st.sampled_from([-1, 1, 1000]))     # a jump target, a count off by one
        else:
            holder[path[-1]] = draw(json_values)
    return b


def _bundle_case(bundle):
    try:
        check_bundle(bundle, "fuzz.json")
    except BundleInvalid as exc:
        assert str(exc).startswith("fuzz.json: "), exc
        return
    from cardc.engine import Game
    try:
        game = Game(bundle)
        st_ = game.new_state(2, seed=1)
        for _ in range(200):
            if st_.is_terminal():
                break
            st_.apply(0)
    except EngineError:
        pass


@settings(max_examples=EXAMPLES * 2)
@given(bundle=bundle_mutation())
def test_bundle_ir_mutations(bundle):
    _bundle_case(bundle)


@pytest.mark.slow
@settings(max_examples=DEEP_EXAMPLES)
@given(bundle=bundle_mutation())
def test_bundle_ir_mutations_deep(bundle):
    _bundle_case(bundle)


# ---------------------------------------------------------------- replays

def _record():
    from cardc.engine import Game
    from cardc.sim.play import play
    game = Game(_BUNDLE)
    result = play(game, 2, 5, ["random"])
    return game, replay_record(game, 2, 5, result.actions, ["random"])


_GAME, _RECORD = _record()
replay_values = st.one_of(json_values, st.lists(st.integers(-3, 12), max_size=60))


@st.composite
def replay_mutation(draw):
    record = dict(_RECORD)
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from(sorted(record) + ["extra"]))
        if draw(st.integers(0, 4)) == 0:
            record.pop(key, None)
        else:
            record[key] = draw(replay_values)
    return record


def _replay_case(tmp_path_factory, record):
    from cardc.engine import BundleMismatch
    from cardc.sim.play import read_replay
    path = tmp_path_factory.mktemp("replay") / "r.json"
    path.write_text(json.dumps(record))
    try:
        replay(_GAME, read_replay(path), name=str(path))
    except (ReplayError, BundleMismatch) as exc:
        assert str(exc)
    except EngineError:
        pass


@settings(max_examples=EXAMPLES * 2)
@given(record=replay_mutation())
def test_replay_field_mutations(tmp_path_factory, record):
    _replay_case(tmp_path_factory, record)


@pytest.mark.slow
@settings(max_examples=DEEP_EXAMPLES)
@given(record=replay_mutation())
def test_replay_field_mutations_deep(tmp_path_factory, record):
    _replay_case(tmp_path_factory, record)
