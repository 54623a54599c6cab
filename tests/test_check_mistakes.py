"""Mistakes `cardc check` used to let through (issue 41): each one a
located error or warning with what to do, instead of a rule that silently
never fires or a failure at run time."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardc.project import build_folder

EXPEDITION = Path(__file__).parent / "fixtures" / "games" / "expedition"
WIN = "if worth(me) >= win_at:"
PICK = ("  total:\n", "  pick:\n    params: {cols: \"list[colour]\"}\n    returns: int\n    expr: count(cols)\n"
                      "  total:\n")

CASES = [
    # 1. a card id, a kind or a member of a named list that names nothing
    ("card_id_compared", None, "game.yaml", [(WIN, 'if any([c.id == "rubby" for c in me.bank]):')],
     "game.yaml:43:13", "no card has the id `rubby`", "did you mean `ruby`?"),
    ("card_id_compared_either_side", None, "game.yaml", [(WIN, 'if any(["rubby" != c.id for c in me.bank]):')],
     "game.yaml:43:13", "no card has the id `rubby`", "did you mean `ruby`?"),
    ("card_id_in_a_list", None, "game.yaml", [(WIN, 'if any([c.id in ["ruby", "perl"] for c in me.bank]):')],
     "game.yaml:43:21", "no card has the id `perl`", "did you mean `pearl`?"),
    ("card_kind_compared", None, "game.yaml", [('c.kind == "thief"', 'c.kind == "theif"')],
     "game.yaml:37:37", "there is no kind `theif` (the kinds are gem, thief, guard)", "did you mean `thief`?"),
    ("member_passed_as_argument", EXPEDITION, "rules.yaml",
     [("sum([column_score(p, col) for col in colour])", 'column_score(p, "gren")')],
     "rules.yaml:21:27", "`gren` is not a colour (the colours are red, blue, green)", "did you mean `green`?"),
    ("members_passed_as_a_list", EXPEDITION, "rules.yaml",
     [PICK, ("sum([column_score(p, col) for col in colour])", 'pick(["red", "bleu"])')],
     "rules.yaml:25:16", "`bleu` is not a colour (the colours are red, blue, green)", "did you mean `blue`?"),
]


def _diag(folder, message):
    built = build_folder(folder)
    found = [d for d in built.diags.sorted() if d.message.replace(str(folder), "<game>") == message]
    assert found, [d.message for d in built.diags.sorted()]
    return found[0]


@pytest.mark.parametrize("name, src, rel, edits, where, message, hint", CASES, ids=[c[0] for c in CASES])
def test_a_mistake_check_used_to_miss_is_reported_at_its_place(game_copy, name, src, rel, edits, where,
                                                                message, hint):
    folder = game_copy(src, edits={rel: edits}) if src else game_copy(edits={rel: edits})
    d = _diag(folder, message)
    got = f"{Path(d.loc.file).resolve().relative_to(folder.resolve())}:{d.loc.line}:{d.loc.col}"
    assert (got, d.hint) == (where, hint)


def test_right_card_ids_kinds_and_members_are_accepted(game_copy):
    folder = game_copy(edits={"game.yaml": [(WIN, 'if any([c.id in ["ruby", "pearl"] and c.kind == "gem" '
                                                    'for c in me.bank]) or worth(me) >= win_at:')]})
    built = build_folder(folder)
    assert built.bundle is not None, built.diags.render()


# 2. numbers no game can use

@pytest.mark.parametrize("edits, where, message, hint", [
    ([("players: {min: 2, max: 3}", "players: {min: 4, max: 3}")], "game.yaml:4:16",
     "players: `min` is 4 but `max` is 3: no number of players can start the game",
     "make min at most max, e.g. `players: {min: 3, max: 4}`"),
    ([("hand_limit: 3", "hand_limit: -1")], "game.yaml:6:15",
     "param `hand_limit` is -1, but it is the limit of zone `hand` (game.yaml, zones), which can hold "
     "no fewer than 0 cards", "make `hand_limit` 0 or more"),
])
def test_an_impossible_number_is_an_error_at_check_time(game_copy, edits, where, message, hint):
    folder = game_copy(edits={"game.yaml": edits})
    d = _diag(folder, message)
    assert (f"{Path(d.loc.file).name}:{d.loc.line}:{d.loc.col}", d.hint) == (where, hint)


def test_set_of_an_impossible_number_is_refused_with_the_same_message(capsys):
    from cardc.cli import main
    from conftest import MINI
    assert main(["play", str(MINI), "--seed", "1", "--set", "params.hand_limit=-1"]) == 2
    assert "param `hand_limit` is -1, but it is the limit of zone `hand`" in capsys.readouterr().err


# 3. a generated card named by one generated number

def test_a_generated_name_that_is_one_number_is_text(game_copy):
    folder = game_copy(EXPEDITION, edits={"cards/numbers.yaml": [
        ('name: "{{ colour | title }} {{ number }}"', 'name: "{{ number }}"')]})
    built = build_folder(folder)
    assert built.bundle is not None, built.diags.render()
    assert [c["name"] for c in built.bundle["cards"]][:3] == ["1", "2", "3"]
    assert built.bundle["cards"][0]["fields"]["value"] == 1       # a field keeps its number


# 4. setup choosing who plays first

def test_next_player_set_in_setup_plays_the_first_turn(game_copy):
    from cardc.engine import Game
    from conftest import FIXTURES
    folder = game_copy(FIXTURES / "games" / "circle", edits={"game.yaml": [
        ("flow:\n", "flow:\n  setup: |\n    game.next_player = players[game.player_count - 1]\n")]})
    built = build_folder(folder)
    assert built.bundle is not None, built.diags.render()
    st = Game(built.bundle).new_state(4, seed=1)
    assert (st.current_player(), st.first_player, st.game_counters["next_player"]) == (3, 3, None)
    labels = [st.action_to_string(a) for a in st.legal_actions()]
    st.apply(labels.index("Pass"))
    assert st.current_player() == 0          # and the turn goes on from there


# 5. a text counter without `start`

def test_a_text_counter_without_start_begins_as_none(game_copy):
    from cardc.engine import Game
    folder = game_copy(edits={"game.yaml": [("player: {plays: 0}", "player: {plays: 0, mood: {type: str}}"),
                                            ("  - expect: count(draw) == 14", "  - expect: all([p.mood == none "
                                             "for p in players])\n    message: no mood yet\n"
                                             "  - expect: count(draw) == 14")]})
    built = build_folder(folder)
    assert built.bundle is not None, built.diags.render()
    st = Game(built.bundle).new_state(2, seed=1)
    assert st.player_counters["mood"] == [None, None]


# 6. messages that misled

@pytest.mark.parametrize("rel, edits, where, message, hint", [
    ("game.yaml", [("  win_at: 12", "   win_at: 12")], "game.yaml:7:4",
     "invalid YAML: this line is indented more than the line above it, so YAML reads it as more text "
     "of that line's value", "line `win_at` up with the keys above it (column 3)"),
    ("game.yaml", [("players: {min: 2, max: 3}", "players: [2, 3")], "game.yaml:4:10",
     "invalid YAML: this `[` is never closed: the list runs on to line 5, which cannot be part of it",
     "close it with `]` after its last item"),
    ("game.yaml", [("players: {min: 2, max: 3}", "players: {min: 2, max: 3")], "game.yaml:4:10",
     "invalid YAML: this `{` is never closed: the mapping runs on to line 5, which cannot be part of it",
     "close it with `}` after its last item"),
])
def test_a_yaml_slip_is_named_for_what_it_is(game_copy, rel, edits, where, message, hint):
    folder = game_copy(edits={rel: edits})
    built = build_folder(folder)
    [d] = built.diags.errors
    assert (f"{Path(d.loc.file).name}:{d.loc.line}:{d.loc.col}", d.message, d.hint) == (where, message, hint)


def test_one_misspelt_counter_is_one_error(game_copy):
    folder = game_copy(edits={"game.yaml": [("    me.plays = 1", "    me.plyas = 1")]})
    [d] = build_folder(folder).diags.errors
    assert (d.loc.line, d.message, d.hint) == (30, "a player has no field `plyas`", "did you mean `plays`?")


def test_sort_by_a_misspelt_function_suggests_it(game_copy):
    folder = game_copy(edits={"rules.yaml": [("expr: sum([c.value for c in p.bank])",
                                              "expr: count(sort_by(p.bank, wroth))")]})
    d = _diag(folder, "the second argument of `sort_by` must name a function of one argument "
                      "(from rules.yaml), e.g. `sort_by(parts, size)`")
    assert d.hint == "did you mean `worth`?"


def test_a_bare_member_in_a_scenario_is_told_to_be_quoted(tmp_path, capsys):
    from cardc.testing.scenario import run_scenarios
    path = tmp_path / "case.yaml"
    source = (Path(__file__).parent / "scenarios" / "expedition" / "columns.yaml").read_text()
    assert 'column_score(P1, "green")' in source
    path.write_text(source.replace("game: tests/fixtures/games/expedition", f"game: {EXPEDITION}")
                    .replace('column_score(P1, "green")', "column_score(P1, green)"))
    assert run_scenarios([path]) == 1
    out = capsys.readouterr().out
    assert 'unknown name `green` (`green` is a colour: as a value it is text, in quotes: `"green"`)' in out


def test_a_setup_that_cannot_deal_its_numbers_is_a_warning_at_check_time(game_copy):
    """A hand of 13 for two players from a deck of 24: the setup's fault is
    found by `check` (a dry run of the setup for every count), at the
    statement that fails, not only by the first game played."""
    folder = game_copy(EXPEDITION, edits={"game.yaml": [("  hand_size: 5", "  hand_size: 13")]})
    d = _diag(folder, "the setup cannot run with 2 players: `move` of none: no card to move")
    assert (d.severity, d.loc.line, d.loc.col, d.hint) == (
        "warning", 31, 9, "check the numbers it deals with (params, card counts) against what there is")
