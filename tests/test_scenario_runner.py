"""The scenario runner itself: a failing case says what was expected, what
was found and the steps so far; a mistake in a scenario is located."""
from __future__ import annotations

from cardc.scenario import run_scenarios

BASE = """\
game: cardc/template/content/mini
title: a theft
players: 2
start:
  zones:
    draw: [pearl]
    P1.hand: [thief]
    P2.bank: [ruby]
steps:
  - P1: Play Thief
  - P1: P2
  - P1: Ruby
"""


def run(tmp_path, text, capsys):
    path = tmp_path / "case.yaml"
    path.write_text(text)
    code = run_scenarios([path])
    return code, capsys.readouterr().out


def test_a_passing_scenario(tmp_path, capsys):
    code, out = run(tmp_path, BASE + "expect:\n  values:\n    worth(P1): 3\n  where:\n    ruby: P1.bank\n", capsys)
    assert code == 0 and out.strip().endswith("1 passed, 0 failed")


def test_a_wrong_expectation_shows_expected_found_and_steps(tmp_path, capsys):
    code, out = run(tmp_path, BASE + "expect:\n  values:\n    worth(P1): 5\n", capsys)
    assert code == 1
    assert "case.yaml:15:5: `worth(P1)`: expected 5, got 3" in out
    assert "steps: P1 → Play Thief | P1 → P2 | P1 → Ruby" in out


def test_a_step_that_is_not_open_says_what_is(tmp_path, capsys):
    code, out = run(tmp_path, BASE.replace("  - P1: Ruby\n", "  - P1: Pearl\n"), capsys)
    assert code == 1
    assert "step `P1: Pearl`: no such action now (Take which gem?: Ruby)" in out


def test_unknown_card_is_located_with_a_hint(tmp_path, capsys):
    code, out = run(tmp_path, BASE.replace("P2.bank: [ruby]", "P2.bank: [rubby]"), capsys)
    assert code == 1
    assert "case.yaml:8:15: unknown card `rubby` (did you mean `ruby`?)" in out


def test_unknown_key_is_a_schema_error(tmp_path, capsys):
    code, out = run(tmp_path, BASE + "expectt: {}\n", capsys)
    assert code == 1 and "unknown key `expectt`" in out
