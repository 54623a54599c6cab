"""Content that `check` cannot prove unbounded (the loop or recursion is
under a condition, the count is computed) must stop at the engine's run-time
budget with a located EngineFault, never hang, exhaust memory or end in a
RecursionError.

The budgets (steps per action, call depth, integer size) are the engine's
(cardc/engine/limits.py); these cases check that each one stops its case
where it is written."""
from __future__ import annotations

import pytest

from cardc.engine import EngineError, Game

TURN = "    me.plays = 1\n"
CASES = [
    ("recursion at run time", {
        "rules.yaml": [("procs:\n", "procs:\n  deeper:\n    params: {p: player, n: int}\n    do: |\n"
                                    "      if n >= 0:\n        deeper(p, n + 1)\n")],
        "game.yaml": [(TURN, TURN + "    deeper(me, 0)\n")]},
     "mini/rules.yaml:12:9 in procedure `deeper`: procedures and hooks run more than 200 deep"),
    ("a computed repeat of 10^12", {"game.yaml": [(TURN, TURN + "    repeat win_at * 100000000000:\n      me.plays = 1\n")]},
     "mini/game.yaml:31:5 in flow `turn`: more than 1,000,000 steps"),
    ("two nested whiles of 9,999", {"game.yaml": [(TURN, TURN + "    let i = 0\n    while i < 9999:\n      let j = 0\n"
                                                             "      while j < 9999:\n        j += 1\n      i += 1\n")]},
     "mini/game.yaml:34:7 in flow `turn`: more than 1,000,000 steps"),
    ("x = x * x forty times", {"game.yaml": [(TURN, TURN + "    let x = 3\n    repeat 40:\n      x = x * x\n")]},
     "mini/game.yaml:33:7 in flow `turn`: a number of more than 30 digits"),
]


@pytest.mark.parametrize("name, edits, expected", CASES, ids=[c[0] for c in CASES])
def test_unbounded_at_run_time_stops_with_a_located_fault(built_error, name, edits, expected):
    built, error = built_error(edits)
    assert error is None, error           # check cannot prove these unbounded
    game = Game(built.bundle)
    with pytest.raises(EngineError) as info:      # the first turn runs as the game starts
        st = game.new_state(2, seed=1)
        while not st.is_terminal():
            st.apply(0)
    assert expected in str(info.value)
