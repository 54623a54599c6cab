"""Content that `check` cannot prove unbounded (the loop or recursion is
under a condition, the count is computed) must stop at the engine's run-time
budget with a located EngineFault, never hang, exhaust memory or end in a
RecursionError.

The budgets (steps per action, call depth, integer size) are the engine's
(issue 11, engine part); until they land these cases are not run, since
without the budget they would hang."""
from __future__ import annotations

import pytest

from cardc.engine import EngineError, Game

TURN = "    me.plays = 1\n"
CASES = [
    ("recursion at run time", {
        "rules.yaml": [("procs:\n", "procs:\n  deeper:\n    params: {p: player, n: int}\n    do: |\n"
                                    "      if n >= 0:\n        deeper(p, n + 1)\n")],
        "game.yaml": [(TURN, TURN + "    deeper(me, 0)\n")]}),
    ("a computed repeat of 10^12", {"game.yaml": [(TURN, TURN + "    repeat win_at * 100000000000:\n      me.plays = 1\n")]}),
    ("two nested whiles of 9,999", {"game.yaml": [(TURN, TURN + "    let i = 0\n    while i < 9999:\n      let j = 0\n"
                                                             "      while j < 9999:\n        j += 1\n      i += 1\n")]}),
    ("x = x * x forty times", {"game.yaml": [(TURN, TURN + "    let x = 3\n    repeat 40:\n      x = x * x\n")]}),
]


@pytest.mark.parametrize("name, edits", CASES, ids=[c[0] for c in CASES])
def test_unbounded_at_run_time_stops_with_a_located_fault(built_error, name, edits):
    built, error = built_error(edits)
    assert error is None, error           # check cannot prove these unbounded
    game = Game(built.bundle)
    with pytest.raises(EngineError) as info:
        st = game.new_state(2, seed=1)          # the first turn runs up to its first decision
        while not st.is_terminal():
            st.apply(0)
    assert "game.yaml:" in str(info.value) or "rules.yaml:" in str(info.value)
