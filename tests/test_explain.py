"""`cardc build --explain`: the generated engine code, written out to read."""
from __future__ import annotations

from cardc.engine.explain import explain

MINI_DRAW = "# op 4 move  content/mini/rules.yaml:14:9:  move top(draw) to p.hand"


def test_explain_writes_every_block_with_its_source_lines(mini_game):
    from tests.conftest import MINI
    text = explain(mini_game, MINI.parent.parent)     # the project folder: bundles name files from it
    compile(text, "explain.py", "exec")              # valid Python a person can read
    assert MINI_DRAW in text                         # a statement, located, with its effect text
    assert "# a block: procedure `draw` (content/mini/rules.yaml)" in text and "def _blk" in text
    assert "the printed field 'value' of every card" in text
