"""The measuring tools of tools/: their counts are the same on every run
(that is what makes them worth more than a timer on a shared machine)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _tool(name):
    spec = importlib.util.spec_from_file_location(name, REPO / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bytecodes_are_counted_the_same_on_every_run_and_by_generated_line(mini_game):
    bytecodes = _tool("bytecodes")
    bytecodes.count(mini_game, 2, 2)    # what these games compile on first use is compiled now
    first = bytecodes.count(mini_game, 2, 2)
    again = bytecodes.count(mini_game, 2, 2)
    assert first == again and first[0] > 0
    generated = {f for (f, _, line), n in first[1].items() if f.startswith("<cardc _blk") and line}
    assert generated, "the generated blocks' lines are counted"


def test_bytecodes_lists_a_generated_functions_lines(capsys):
    bytecodes = _tool("bytecodes")
    assert bytecodes.main([str(REPO / "generated" / "unicorn.json"), "1", "--lines", "_menu",
                           "--top", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "bytecodes a decision" in out[0] and len(out) == 4 and all("_menu" in x for x in out[1:])
