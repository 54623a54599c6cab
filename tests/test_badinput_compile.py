"""Bad input to the compiler: mistakes in effect text, names, types and
quantities, each a one-line mutation of the test game, each reported at the
exact file:line:col with the exact message (and hint, where one helps)."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardc.project import build_folder

CASES = [  # name, file, edits, where, message, hint
    ('dsl_syntax_start', 'game.yaml', [('    shuffle draw\n', '    shufle draw\n')], 'game.yaml:25:5', 'unknown statement `shufle`', 'did you mean `shuffle`?'),
    ('dsl_syntax_middle', 'rules.yaml', [('        move top(draw) to p.hand', '        move top(draw) p.hand')], 'rules.yaml:14:24', 'unexpected `p`; expected `to` (or an operator)', None),
    ('dsl_syntax_end', 'cards/cards.yaml', [('        move prize to me.bank', '        move prize to me.bank +')], 'cards/cards.yaml:28:32', 'unexpected end of line: the expression is not finished', None),
    ('dsl_unknown_name', 'game.yaml', [('if worth(me) >= win_at:', 'if worth(me) >= win_att:')], 'game.yaml:43:21', 'unknown name `win_att`', 'did you mean `win_at`?'),
    ('dsl_unknown_function', 'game.yaml', [('if worth(me) >= win_at:', 'if wroth(me) >= win_at:')], 'game.yaml:43:8', 'unknown function `wroth`', 'did you mean `worth`?'),
    ('dsl_unknown_field', 'cards/cards.yaml', [('move prize to me.bank', 'move prize to me.bnak')], 'cards/cards.yaml:28:23', 'a player has no field `bnak`', 'did you mean `bank`?'),
    ('dsl_type_mismatch', 'rules.yaml', [('expr: sum([c.value for c in p.bank])', 'expr: sum([c.name for c in p.bank])')], 'rules.yaml:6:15', '`sum` needs a list of numbers, but this is a list of texts', None),
    ('dsl_condition_not_bool', 'game.yaml', [('while me.plays > 0:', 'while me.plays:')], 'game.yaml:31:11', 'a condition must be true/false, but this is a number', 'compare it, e.g. `count(x) > 0` or `x != none`'),
    ('dsl_wrong_arity', 'game.yaml', [('    draw(me, 1)\n', '    draw(me)\n')], 'game.yaml:29:5', '`draw` takes 2 arguments (p, n), got 1', None),
    ('dsl_proc_in_expr', 'game.yaml', [('if worth(me) >= win_at:', 'if draw(me, 1) >= win_at:')], 'game.yaml:43:8', '`draw` is a procedure: call it as a statement on its own line, not inside an expression', None),
    ('dsl_unknown_window', 'cards/cards.yaml', [('window steal for', 'window stael for')], 'cards/cards.yaml:26:15', 'unknown window `stael`; declare it under `windows:` in game.yaml', 'did you mean `steal`?'),
    ('dsl_break_outside_loop', 'game.yaml', [('    shuffle draw\n', '    break\n')], 'game.yaml:25:5', '`break` outside a loop', None),
    ('dsl_assign_param', 'game.yaml', [('    me.plays = 1\n', '    win_at = 1\n')], 'game.yaml:30:5', '`win_at` is a param (a fixed number); params cannot change during play', None),
    ('duplicate_card_id', 'cards/cards.yaml', [('  - id: pearl', '  - id: ruby')], 'cards/cards.yaml:10:9', 'duplicate card id `ruby` (first defined at <game>/cards/cards.yaml:4)', None),
    ('constraint_violated', 'cards/cards.yaml', [('    count: 6', '    count: 7')], 'game.yaml:51:13', 'constraint not met: the draw pile holds 14 cards: it is 15, not 14', 'the 15 cards counted: 7 ruby, 4 pearl, 2 thief, 2 guard; change the card quantities or values, or the constraint'),
    ('unknown_kind', 'cards/cards.yaml', [('    kind: thief\n', '    kind: theif\n')], 'cards/cards.yaml:18:11', 'unknown card kind `theif`; declare it under `kinds:` in game.yaml', 'did you mean `thief`?'),
    ('unknown_zone_start', 'cards/cards.yaml', [('defaults: {starts_in: draw}', 'defaults: {starts_in: drew}')], 'cards/cards.yaml:2:23', 'unknown zone `drew` for `starts_in`', 'did you mean `draw`?'),
    ('text_template_error', 'cards/cards.yaml', [('text: Worth {{ value }} banked.', 'text: Worth {{ valeu }} banked.')], 'cards/cards.yaml:9:11', "card text template of `ruby`: 'valeu' is undefined", None),
    ('unknown_event_trigger', 'game.yaml', [('    me.plays = 1\n', '    me.plays = 1\n    trigger funding\n')], 'game.yaml:31:5', 'unknown event `funding`; declare it under `events:` in game.yaml', None),
    ('overflow_proc_missing', 'game.yaml', [('overflow: discard_down', 'overflow: discard_dwn')], 'game.yaml:17:79', 'unknown procedure `discard_dwn`', 'did you mean `discard_down`?'),
]


@pytest.mark.parametrize("name, rel, edits, where, message, hint", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_reported_at_its_place(game_copy, name, rel, edits, where, message, hint):
    folder = game_copy(edits={rel: edits})
    built = build_folder(folder)
    assert built.bundle is None, "a build with errors must not produce a bundle"
    errors = [d for d in built.diags.sorted() if d.severity == "error"]
    assert errors, "the mistake was not reported"
    first = errors[0]
    got_where = f"{Path(first.loc.file).resolve().relative_to(folder.resolve())}:{first.loc.line}:{first.loc.col}"
    assert got_where == where
    assert first.message.replace(str(folder), "<game>") == message
    assert first.hint == hint


def test_every_mistake_in_one_run(game_copy):
    folder = game_copy(edits={
        "game.yaml": [("if worth(me) >= win_at:", "if wroth(me) >= win_at:")],
        "rules.yaml": [("        move top(draw) to p.hand", "        move top(draw) p.hand")],
        "cards/cards.yaml": [("move prize to me.bank", "move prize to me.bnak")],
    })
    built = build_folder(folder)
    files = sorted({Path(d.loc.file).name for d in built.diags.errors})
    assert files == ["cards.yaml", "game.yaml", "rules.yaml"]
    locs = [(d.loc.file, d.loc.line, d.loc.col) for d in built.diags.sorted()]
    assert locs == sorted(locs)


def test_rendered_error_has_source_line_and_caret(game_copy):
    from cardc.load.diagnostics import SourceCache
    folder = game_copy(edits={"cards/cards.yaml": [("move prize to me.bank", "move prize to me.bnak")]})
    text = build_folder(folder).diags.render(SourceCache())
    lines = text.splitlines()
    assert lines[0].endswith("cards.yaml:28:23: error: a player has no field `bnak`")
    assert lines[1].strip() == "28 |         move prize to me.bnak"
    assert lines[2].strip() == "|                       ^^^^^^^"
    assert lines[3] == "hint: did you mean `bank`?"


def test_unused_procedure_is_a_warning_that_strict_turns_into_failure(game_copy, capsys):
    from cardc.cli import main
    folder = game_copy()
    with open(folder / "rules.yaml", "a") as f:
        f.write("  unused_thing:\n    params: {p: player}\n    do: |\n      pass\n")
    built = build_folder(folder)
    assert built.bundle is not None
    (warning,) = built.diags.warnings
    assert (warning.loc.line, warning.loc.col) == (21, 3)
    assert warning.message == "procedure `unused_thing` is never used"
    assert main(["check", str(folder)]) == 0
    assert main(["check", "--strict", str(folder)]) == 1


from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

_WORDS = ["me", "this", "draw", "discard", "me.hand", "p.bank", "count(", ")", "[", "]", "c",
          ".value", "+", "-", "==", "and", "not", "if", ":", "move", "to", "let", "x", "=",
          "choose", "in", "where", "1", "\"t\"", "none", "worth(me)", "resolve", "window",
          "steal", "for", "option", "\n  ", "\n", "players", "rivals(me)", "top(draw)"]


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=12).map(" ".join))
def test_any_effect_text_compiles_or_reports_a_located_error(game_copy, text):
    """Whatever a designer types as a card's effect, the compiler answers with
    a bundle or with located diagnostics, never a crash."""
    import shutil
    folder = game_copy()
    path = folder / "cards/cards.yaml"
    body = "\n".join("        " + line for line in text.splitlines() or [""])
    original = path.read_text()
    path.write_text(original.replace(
        "      cancel event\n", "      cancel event\n" + body.replace("        ", "      ", 1) + "\n", 1))
    try:
        built = build_folder(folder)
        for d in built.diags.errors:
            assert d.loc is not None and d.loc.line >= 1, d
    finally:
        shutil.rmtree(folder)


def test_mistakes_in_the_boards_display_are_located(game_copy):
    """`display.group`, `display.legend` and `display.markers` (what the
    browser table draws on ipo's board) are checked like any expression."""
    from conftest import REPO
    folder = game_copy(REPO / "content" / "ipo", edits={"game.yaml": [
        ("  markers: claims ", "  markers: claimz "),
        ("  group: this.company ", "  group: this.ticker "),
        ("    price: price_of(this)", "    price: price_off(this)"),
    ]})
    built = build_folder(folder)
    assert built.bundle is None
    got = [(d.loc.line, d.loc.col, d.message, d.hint) for d in built.diags.sorted() if d.severity == "error"]
    assert got == [
        (155, 12, "unknown zone `claimz`", "did you mean `claims`?"),
        (156, 10, "this expression must be a card, but this is text", None),
        (159, 12, "unknown function `price_off`", "did you mean `price_of`?"),
    ]
