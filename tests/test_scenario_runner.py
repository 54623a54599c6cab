"""The scenario runner itself: a failing case says what was expected, what
was found and the steps so far; a mistake in a scenario is located."""
from __future__ import annotations

from cardc.testing.scenario import run_scenarios

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


# ---------------------------------------------------------------- the format of issue 14

def test_an_unknown_player_is_an_error_wherever_it_is_named(tmp_path, capsys):
    code, out = run(tmp_path, BASE.replace("  - P1: Ruby\n", "  - P7: Ruby\n"), capsys)
    assert code == 1 and "case.yaml:12:5: there is no P7 in a 2-player game (the players are P1, P2)" in out
    code, out = run(tmp_path, BASE.replace("start:\n", "start:\n  turn: P3\n"), capsys)
    assert code == 1 and "there is no P3 in a 2-player game" in out
    code, out = run(tmp_path, BASE + "expect:\n  winner: P9\n", capsys)
    assert code == 1 and "there is no P9 in a 2-player game" in out
    code, out = run(tmp_path, BASE + "expect:\n  values:\n    game.turn_player: P4\n", capsys)
    assert code == 1 and "case.yaml:15:23: there is no P4 in a 2-player game" in out


def test_exact_labels_refuse_a_part(tmp_path, capsys):
    code, out = run(tmp_path, "labels: exact\n" + BASE, capsys)
    assert code == 0
    code, out = run(tmp_path, "labels: exact\n" + BASE.replace("Play Thief", "Play"), capsys)
    assert code == 1 and "step `P1: Play`: no such action now" in out


def test_log_in_order_says_when_a_line_comes_too_early(tmp_path, capsys):
    code, out = run(tmp_path, BASE + 'expect:\n  log_in_order: ["Turn 2", "Turn 1"]\n', capsys)
    assert code == 1
    assert "log_in_order: no line containing `Turn 1` after the line of the one before it" in out


def test_a_run_step_is_checked_like_content(tmp_path, capsys):
    code, out = run(tmp_path, BASE.replace("  - P1: Ruby\n", "  - run: drwa(P1, 1)\n"), capsys)
    assert code == 1 and "case.yaml:12:10: unknown procedure `drwa` (did you mean `draw`?)" in out


def test_a_repeat_needs_times_and_steps(tmp_path, capsys):
    code, out = run(tmp_path, BASE.replace("  - P1: Ruby\n", "  - repeat: 3\n"), capsys)
    assert code == 1 and "case.yaml:12:5: `repeat` is `{times: N, steps: [...]}`" in out


def test_a_step_that_breaks_an_invariant_fails(tmp_path, capsys, game_copy):
    folder = game_copy(edits={"game.yaml": [("constraints:", "invariants:\n  - expect: all([count(p.bank) < 2 for p in players])\n"
                                             "    message: a bank holds one gem at most\nconstraints:")]})
    text = BASE.replace("cardc/template/content/mini", str(folder)).replace(
        "  - P1: Ruby\n", "  - run: move top(draw) to P2.bank\n")
    code, out = run(tmp_path, text, capsys)
    assert code == 1
    assert "invariant broken: a bank holds one gem at most (after step `run: move top(draw) to P2.bank`" in out
    code, out = run(tmp_path, "invariants: false\n" + text, capsys)
    assert code == 0


def test_verbose_shows_each_step_the_open_actions_and_the_log(tmp_path, capsys):
    path = tmp_path / "case.yaml"
    path.write_text(BASE)
    assert run_scenarios([path], verbose=True) == 0
    out = capsys.readouterr().out
    assert "P1 · Play a card: Bank Pearl | Bank Thief | Play Thief | Pass" in out
    assert "step 3: P1: Ruby" in out
    assert "log: == Turn 1 (round 1): P1 ==" in out


def test_stack_needs_a_real_setup(tmp_path, capsys):
    code, out = run(tmp_path, BASE.replace("start:\n", "start:\n  stack: {draw: [ruby]}\n"), capsys)
    assert code == 1 and "`stack` scripts the draws of a real setup" in out


def test_a_players_own_copy_must_exist(tmp_path, capsys):
    code, out = run(tmp_path, BASE.replace("P2.bank: [ruby]", 'P2.bank: ["ruby[P1]"]'), capsys)
    assert code == 1 and "no copy of `ruby` of P1 is left to place" in out


def test_turn_end_after_a_step_that_does_not_end_the_turn(tmp_path, capsys):
    code, out = run(tmp_path, BASE.replace("  - P1: Ruby\n", "  - turn_end: {}\n"), capsys)
    assert code == 1
    assert "case.yaml:12:5: turn_end: the turn has not ended: P1 still decides (Take which gem?: Ruby)" in out
    code, out = run(tmp_path, BASE.replace("steps:\n", "steps:\n  - turn_end: {}\n"), capsys)
    assert code == 1 and "`turn_end` checks go right after the step that ends a turn" in out


def test_a_scenarios_start_adds_to_the_files_start(tmp_path, capsys):
    """The file's `start:` is shared: a case's own `start:` merges with it,
    key by key, instead of silently replacing it (issue 41)."""
    text = ("game: cardc/template/content/mini\nplayers: 2\n"
            "start:\n  zones:\n    draw: [pearl]\n    P1.hand: [thief]\n"
            "scenarios:\n"
            "  - title: the shared start alone\n"
            "    expect: {zones: {P1.hand: [pearl, thief], P2.bank: []}}\n"
            "  - title: its own zones added to the shared ones\n"
            "    start:\n      zones:\n        P2.bank: [ruby]\n"
            "    expect: {zones: {P1.hand: [pearl, thief], P2.bank: [ruby]}}\n"
            "  - title: its own value of a shared key wins\n"
            "    start:\n      zones:\n        P1.hand: [guard]\n"
            "    expect: {zones: {P1.hand: [guard, pearl]}}\n")
    code, out = run(tmp_path, text, capsys)
    assert code == 0, out
    assert out.strip().endswith("3 passed, 0 failed")


def test_a_bare_none_in_values_is_none_for_a_text_counter(tmp_path, capsys, game_copy):
    folder = game_copy(edits={"game.yaml": [("counters:\n", "counters:\n  game: {led: {type: str}}\n")]})
    text = (f"game: {folder}\nplayers: 2\ntitle: nothing led yet\n"
            "expect:\n  values:\n    game.led: none\n")
    code, out = run(tmp_path, text, capsys)
    assert code == 0, out
    code, out = run(tmp_path, text.replace("game.led: none", 'game.led: "none"'), capsys)
    assert code == 1 and '`game.led`: expected none, got none' in out
