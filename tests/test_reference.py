"""The reference mode agrees with the fast engine (the engine-core issue).

`Game(bundle, reference=True)` generates the same game with every
optimisation off: no function caches, no specialised modifiers, loops and
branches op by op, a frame for every call, comprehensions as written.  Every
golden game replays to the same log in it, and every rules scenario gives the
same result and the same transcript, step by step.  A cache that misses a
write, or a rewrite of the generated code that changes a value, shows here.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardc.engine import Game
from cardc.sim.play import replay
from cardc.testing.scenario import expand, run_file

from conftest import REPO, TEMPLATE

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p.stem for p in GOLDEN.glob("*.json"))
FILES = expand([Path(__file__).parent / "scenarios", TEMPLATE / "scenarios"])
_fast: dict = {}
_reference: dict = {}


def test_the_reference_mode_turns_the_optimisations_off():
    from cardc.project import load_bundle
    game = Game(load_bundle("ipo"), reference=True)
    source = "".join(src for _, src in game.pygen.sources)
    assert not game.cache_functions and not game.direct_procs and not game.started_procs
    assert "(a straight loop)" not in source
    assert all(keys == [] for keys in game.modifier_keys.values())


@pytest.mark.parametrize("name", CASES)
def test_golden_game_replays_the_same_in_reference_mode(name):
    record = json.loads((GOLDEN / f"{name}.json").read_text())
    game = Game.load(REPO / "generated" / f"{record['game']}.json", reference=True)
    record["bundle"] = game.hash
    assert "\n".join(replay(game, record).lines) + "\n" == (GOLDEN / f"{name}.log").read_text()


@pytest.mark.parametrize("path", FILES, ids=[p.relative_to(REPO).as_posix() for p in FILES])
def test_scenario_gives_the_same_result_in_reference_mode(path):
    fast = run_file(path, _fast)
    slow = run_file(path, _reference, reference=True)
    assert [(r.name, r.ok, r.failures) for r in slow] == [(r.name, r.ok, r.failures) for r in fast]
    assert [r.transcript for r in slow] == [r.transcript for r in fast]


STALE_START = """\
game: unicorn
players: 3
scenarios:
  - title: a counter set in a start is read afresh by a function cached earlier in the same start
    rule: the engine-core issue's stale-cache case
    start:
      turn: P1
      counters:
        P3.plays: "count(team(P1))"
        P1.partner: P2
        P2.partner: P1
    expect:
      values: {P3.plays: 1, "count(team(P1))": 2}
"""


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
def test_a_start_state_write_forgets_what_a_cached_function_read(tmp_path, reference):
    """`count(team(P1))` is cached while P3.plays is set; setting P1's partner
    afterwards must make it stale (it read 1, the old team, before the one
    write path: `Writes.set_counter`)."""
    path = tmp_path / "stale.yaml"
    path.write_text(STALE_START)
    (result,) = run_file(path, {}, reference=reference)
    assert result.ok, result.failures


def test_cardc_scenario_runs_in_the_reference_mode_when_asked(tmp_path, capsys):
    from cardc.cli import main
    path = tmp_path / "stale.yaml"
    path.write_text(STALE_START)
    assert main(["scenario", str(path), "--reference"]) == 0
    assert capsys.readouterr().out.endswith("1 passed, 0 failed\n")
