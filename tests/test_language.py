"""The language items of issue 14 that live in the compiler: function
locals, enumerations and zone families, non-number params, generated cards
and the card catalogue.  The happy paths are played by the scenarios of
tests/scenarios/expedition/ (a test game built on all of them); here are
the bundle's shape and every mistake a designer can make with them, each
reported at its place in plain words."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardc.project import build_folder

EXPEDITION = Path(__file__).parent / "fixtures" / "games" / "expedition"


def test_expedition_bundle_expands_families_and_generators():
    built = build_folder(EXPEDITION)
    assert built.bundle, built.diags.render()
    b = built.bundle
    zones = [z["id"] for z in b["zones"]]
    assert zones == ["draw", "hand", "column[red]", "column[blue]", "column[green]",
                     "discard[red]", "discard[blue]", "discard[green]"]
    assert b["enums"] == {"colour": ["red", "blue", "green"]}
    assert b["zone_families"] == {"column": "colour", "discard": "colour"}
    ids = [c["id"] for c in b["cards"]]
    assert ids[:3] == ["red_1", "red_2", "red_3"] and ids[-1] == "green_8" and len(ids) == 24
    red3 = b["cards"][2]
    assert red3["name"] == "Red 3" and red3["fields"] == {"colour": "red", "value": 3}
    assert red3["text"] == "Worth 3 in your red column."
    assert red3["source"].endswith("cards/numbers.yaml:5")      # every generated card keeps the entry's place
    assert b["params"]["bonus_values"] == [7, 8]


def test_function_locals_compile_to_the_same_expression(game_copy):
    """A function's `let` is a name for its expression: the bundle is the same."""
    from conftest import MINI
    plain = build_folder(MINI).bundle["code"]["fn:worth"]
    folder = game_copy(edits={"rules.yaml": [(
        "    expr: sum([c.value for c in p.bank])",
        "    expr: |\n      let banked = [c for c in p.bank]\n      sum([c.value for c in banked])")]})
    local = build_folder(folder).bundle["code"]["fn:worth"]
    assert local["params"] == plain["params"]
    assert local["expr"][0] == "call" and local["expr"][1] == "sum"


FN = "    expr: sum([c.value for c in p.bank])"
MINI_CASES = [  # name, file, edits, where, message, hint
    ("let_hidden_by_loop", "rules.yaml", [(FN, "    expr: |\n      let n = count(p.bank)\n      sum([n for p in players])")],
     "rules.yaml:8:12", "`n` uses `p`, but `p` is another name here (a list-building loop variable)",
     "rename the loop variable, e.g. `[… for p2 in …]`"),
    ("fn_body_statement", "rules.yaml", [(FN, "    expr: |\n      let n = count(p.bank)\n      move top(draw) to p.hand")],
     "rules.yaml:8:7", "a function computes a value; it cannot change the game (use a procedure)",
     "a function body is one expression, optionally after `let` lines that name its parts "
     "(`let n = count(p.hand)` on its own line, then the expression)"),
    ("fn_body_statement_alone", "rules.yaml", [(FN, "    expr: move top(draw) to p.hand")],
     "rules.yaml:6:16", "unexpected `top`; expected end of line",
     "a function body is one expression, optionally after `let` lines that name its parts "
     "(`let n = count(p.hand)` on its own line, then the expression)"),
    ("fn_ends_with_let", "rules.yaml", [(FN, "    expr: |\n      let n = count(p.bank)\n      let m = n")],
     "rules.yaml:8:7", "a function ends with the expression it computes", None),
    ("fn_let_choice", "rules.yaml", [(FN, "    expr: |\n      let c = choose c in p.bank\n      c.value")],
     "rules.yaml:7:15", "a function cannot ask anyone anything: choices belong in procedures", None),
    ("fn_let_param_name", "rules.yaml", [(FN, "    expr: |\n      let p = 3\n      p")],
     "rules.yaml:7:7", "`p` is already a name here (a param or the function's own parameter); choose another local name", None),
    ("param_mixed_list", "game.yaml", [("  win_at: 12", "  win_at: [1, two]")],
     "game.yaml:7:11", "param `win_at` must be a number, true/false, text, or a list of one of them (all items of one type)", None),
    ("card_lookup_unknown_id", "game.yaml", [("if worth(me) >= win_at:", 'if printed("rubby", "value") >= win_at:')],
     "game.yaml:43:16", "there is no card `rubby`", "did you mean `ruby`?"),
    ("card_lookup_unknown_field", "game.yaml", [("if worth(me) >= win_at:", 'if printed("ruby", "vlaue") >= win_at:')],
     "game.yaml:43:24", "the field must be a printed field's name in quotes; there is no field `vlaue`",
     "did you mean `value`?"),
    ("cards_of_unknown_kind", "game.yaml", [("if worth(me) >= win_at:", 'if count(cards_of_kind("gen")) >= win_at:')],
     "game.yaml:43:28", "there is no kind `gen`", "did you mean `gem`?"),
]

EXP_CASES = [
    ("family_without_index", "game.yaml", [("move c to discard[c.colour]", "move c to discard")],
     "game.yaml:38:21", "`discard` is a family of zones, one per colour; say which, e.g. `discard[red]` or `discard[c.colour]`", None),
    ("player_family_without_index", "game.yaml", [("move c to me.column[c.colour]", "move c to me.column")],
     "game.yaml:36:21", "`column` is a family of zones, one per colour; say which, e.g. `p.column[red]`", None),
    ("family_member_misspelt", "game.yaml", [("move c to discard[c.colour]", "move c to discard[gren]")],
     "game.yaml:38:29", "`gren` is not a colour (the colours are red, blue, green)", "did you mean `green`?"),
    ("family_index_wrong_type", "game.yaml", [("move c to discard[c.colour]", "move c to discard[c.value]")],
     "game.yaml:38:29", "`discard` is indexed by a colour, not a number", None),
    ("enum_literal_compared", "rules.yaml", [("count(pile) == 0 or", 'c.colour == "purple" or')],
     "rules.yaml:9:7", "`purple` is not a colour (the colours are red, blue, green)", None),
    ("enum_field_value", "cards/numbers.yaml", [('colour: "{{ colour }}"', "colour: purple")],
     "cards/numbers.yaml:7:13", "card field `colour` must be one of colour: red, blue, green", None),
    ("zone_family_unknown_enum", "game.yaml", [("per: colour, description: \"Your", "per: color, description: \"Your")],
     "game.yaml:24:58", "unknown enumeration `color`; declare it under `enums:` in game.yaml", "did you mean `colour`?"),
    ("enum_duplicate_member", "game.yaml", [("colour: [red, blue, green]", "colour: [red, blue, red]")],
     "game.yaml:10:11", "enumeration `colour` names `red` twice", None),
    ("unknown_type_in_params", "rules.yaml", [("{p: player, col: colour}", "{p: player, col: color}")],
     "rules.yaml:12:30", "unknown type `color`", "did you mean `colour`?"),
    ("generator_bad_range", "cards/numbers.yaml", [("{from: 1, to: 8}", "{from: 1, to: 8, step: 0}")],
     "cards/numbers.yaml:4:63", "`step` must be at least 1, got the number 0", None),
    ("generator_unknown_enum", "cards/numbers.yaml", [("{colour: colour,", "{colour: colours,")],
     "cards/numbers.yaml:4:24", "generator `colour`: `colours` is neither a list, a range `{from: …, to: …}` nor an enumeration", None),
    ("generator_template_error", "cards/numbers.yaml", [('name: "{{ colour | title }} {{ number }}"', 'name: "{{ colur }} {{ number }}"')],
     "cards/numbers.yaml:6:11", "template of `name`: 'colur' is undefined", None),
    ("generator_duplicate_ids", "cards/numbers.yaml", [('id: "{{ colour }}_{{ number }}"', 'id: "{{ colour }}_x"')],
     "cards/numbers.yaml:5:9", "duplicate card id `red_x` (first defined at <game>/cards/numbers.yaml:5)", None),
    ("template_id_without_generate", "cards/numbers.yaml", [("  - generate: {colour: colour, number: {from: 1, to: 8}}\n    id:", "  - id:")],
     "cards/numbers.yaml:4:9", "card id `{{ colour }}_{{ number }}` is not lower_snake_case: a templated id needs `generate:`", None),
]


def _error(folder, message):
    """The error with this message (a mistake may cause others after it)."""
    built = build_folder(folder)
    assert built.bundle is None, "a build with errors must not produce a bundle"
    errors = [d for d in built.diags.sorted() if d.severity == "error"]
    assert errors, "the mistake was not reported"
    same = [d for d in errors if d.message.replace(str(folder), "<game>") == message]
    assert same, [d.message for d in errors]
    return folder, same[0]


@pytest.mark.parametrize("name, rel, edits, where, message, hint",
                         MINI_CASES + EXP_CASES, ids=[c[0] for c in MINI_CASES + EXP_CASES])
def test_language_mistakes_are_reported_at_their_place(game_copy, name, rel, edits, where, message, hint):
    src = EXPEDITION if (name, rel, edits, where, message, hint) in EXP_CASES else None
    folder, first = _error(game_copy(src, edits={rel: edits}) if src else game_copy(edits={rel: edits}), message)
    got = f"{Path(first.loc.file).resolve().relative_to(folder.resolve())}:{first.loc.line}:{first.loc.col}"
    assert (got, first.message.replace(str(folder), "<game>")) == (where, message)
    if hint is not None:
        assert first.hint == hint


# ---------------------------------------------------------------- messages a newcomer needed

def test_a_more_indented_line_in_a_folded_block_is_a_warning(game_copy):
    folder = game_copy(edits={"cards/cards.yaml": [(
        "    text: Take a banked gem from a rival.",
        "    text: >-\n      Take a banked gem\n        from a rival.")]})
    built = build_folder(folder)
    assert built.bundle is not None
    warning = next(d for d in built.diags.warnings if "`>` block" in d.message)
    assert (warning.loc.line, warning.loc.col) == (23, 9)
    assert warning.message.startswith("this line is indented more than the first line of its `>` block")
    assert built.bundle["cards"][2]["text"] == "Take a banked gem\n  from a rival."


def test_a_schema_error_does_not_hide_the_other_errors_of_its_file(game_copy):
    folder = game_copy(edits={"cards/cards.yaml": [("    count: 6", "    count: six"),
                                                   ("    value: 2", "    vaule: 2")]})
    messages = [d.message for d in build_folder(folder).diags.errors]
    assert messages == ['`count` must be a whole number, got text "six"', "unknown key `vaule` in a card"]


@pytest.mark.parametrize("text, where, message, hint", [
    ("a: {P1.column[red]: 2}\n", "1:14", "invalid YAML: this `{…}` mapping cannot be read past here "
     "(expected ',' or '}', but got '[')", 'e.g. {"P1.column[red]": 2}'),
    ("a: [x, token[P2]]\n", "1:13", "invalid YAML: this `[…]` list cannot be read past here "
     "(expected ',' or ']', but got '[')", 'e.g. ["token[P2]"]'),
])
def test_brackets_inside_a_flow_collection_say_to_quote(text, where, message, hint):
    from cardc.load.diagnostics import CardcError
    from cardc.load.yamlsrc import parse_yaml
    with pytest.raises(CardcError) as exc:
        parse_yaml(text, "f.yaml")
    d = exc.value.diagnostics[0]
    assert (f"{d.loc.line}:{d.loc.col}", d.message) == (where, message)
    assert hint in d.hint


def test_a_zone_limit_must_be_a_number_param(game_copy):
    folder = game_copy(edits={"game.yaml": [("  hand_limit: 3", "  hand_limit: three")]})
    errors = build_folder(folder).diags.errors
    assert (errors[0].loc.line, errors[0].message) == (
        17, "zone limit `hand_limit` must be a whole number, but that param is text")
    assert "`>` compares numbers, but this is text" in [e.message for e in errors]   # rules.yaml's use


def test_replay_of_a_game_outside_content_mentions_bundle(tmp_path, capsys):
    from cardc.cli import main
    record = tmp_path / "r.json"
    record.write_text('{"format": 1, "game": "expedition", "bundle": "%s", "players": 2, "seed": 1, '
                      '"agents": ["random"], "actions": []}' % ("0" * 64))
    assert main(["replay", str(record)]) == 2
    err = capsys.readouterr().err
    assert "no game `expedition`" in err and f"`cardc replay {record} --bundle path/to/game`" in err


# ---------------------------------------------------------------- designer commands

def test_cardc_invariants_passes_and_reports_a_broken_one_with_a_replay(tmp_path, capsys, game_copy):
    from cardc.cli import main
    assert main(["invariants", str(EXPEDITION), "--games", "5"]) == 0
    assert "expedition: 5 games (2 players, seeds 1-5): 1 invariant and every card in one place held" \
        in capsys.readouterr().out
    folder = game_copy(EXPEDITION, edits={"game.yaml": [("count(p.hand) <= hand_size", "count(draw) > 12")]})
    replay = tmp_path / "broken.json"
    assert main(["invariants", str(folder), "--games", "5", "--replay", str(replay)]) == 1
    out = capsys.readouterr().out
    assert "expedition: game 1 (seed 1, 2 players) broke an invariant after 4 decisions:" in out
    assert "game.yaml:50:13: invariant broken: no hand holds more than 5 cards" in out
    assert f"what each seat saw: cardc view {replay} --seat 1 --at 4 --bundle {folder}" in out
    assert main(["view", str(replay), "--bundle", str(folder), "--seat", "P2", "--at", "4"]) == 0
    view = capsys.readouterr().out
    assert view.startswith("P2's view after 4 of 4 decisions\nTurn 3 (round 2), P1 to play")
    assert "draw (12): 12 hidden" in view and "hand of P1 (5): 5 hidden" in view
    assert "hand of P2 (5): Blue 7, Red 8, Blue 1, Red 1, Blue 4" in view


def test_cardc_view_shows_only_what_the_seat_sees(tmp_path, capsys):
    from cardc.cli import main
    log = tmp_path / "g.json"
    assert main(["play", str(EXPEDITION), "--players", "2", "--seed", "3", "--quiet", "--log", str(log)]) == 0
    capsys.readouterr()
    assert main(["view", str(log), "--bundle", str(EXPEDITION), "--seat", "1", "--at", "0"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "P1's view after 0 of 52 decisions"
    mine = next(l for l in lines if l.startswith("  hand of P1"))
    theirs = next(l for l in lines if l.startswith("  hand of P2"))
    assert "hidden" not in mine and theirs == "  hand of P2 (5): 5 hidden"
    assert "P1 decides: Play or discard a card" in out
    assert main(["view", str(log), "--bundle", str(EXPEDITION), "--seat", "3"]) == 2
    assert "--seat 3: a seat from 1 to 2 (or P1 to P2)" in capsys.readouterr().err


# ---------------------------------------------------------------- the default rulebook

@pytest.mark.parametrize("game", ["unicorn", "startup", "ipo", str(EXPEDITION)])
def test_the_default_rulebook_is_made_of_the_content(game):
    from cardc.project import load_bundle
    from cardc.render.rulebook import render_markdown
    bundle = {**load_bundle(game), "rulebook": None}
    text = render_markdown(bundle)
    assert text.startswith(f"# {bundle['name']}\n")
    for heading in ("## Components", "### Where the cards go", "## Setup", "## A turn", "## The end",
                    "## The cards"):
        assert f"\n{heading}\n" in text, heading
    for card in bundle["cards"]:
        assert f"| {card['name']} |" in text.replace("\\|", "|"), card["id"]
    for zone, words in bundle["docs"]["zones"].items():
        assert words in text
    assert bundle["docs"]["flow"]["turn"].strip().splitlines()[0] in text


def test_the_default_rulebook_prints(tmp_path):
    from cardc.cli import main
    assert main(["rulebook", str(EXPEDITION), "--out", str(tmp_path)]) == 0
    pdf = tmp_path / "rulebook.pdf"
    from pypdf import PdfReader
    text = "".join(page.extract_text() for page in PdfReader(pdf).pages)
    assert "Expedition" in text and "Green 8" in text and "one per colour" in text


# ---------------------------------------------------------------- lowest score wins

def test_lowest_score_wins_in_winners_places_and_the_bots(tmp_path, capsys, game_copy):
    from cardc.engine import Game
    from cardc.testing.scenario import run_scenarios
    from cardc.sim.run import _places
    folder = game_copy(edits={"game.yaml": [("score: worth(p)\neval: worth(p)\n",
                                             "score: {expr: worth(p), wins: lowest}\n")]})
    bundle = build_folder(folder).bundle
    assert bundle["score_wins"] == "lowest"
    assert bundle["code"]["eval"] == ["neg", bundle["code"]["score"]]    # greedy lowers its score
    assert Game(bundle).score_sign == -1
    case = tmp_path / "low.yaml"
    case.write_text(f"""game: {folder}
players: 3
start:
  zones:
    P1.bank: [ruby]
    P2.bank: [pearl]
    P3.bank: [ruby]
steps:
  - run: end game
expect:
  winner: P2
  values:
    worth(P2): 2
""")
    assert run_scenarios([case]) == 0, capsys.readouterr().out
    # places: winners first, then the better (here: lower) scores; ties share
    assert _places([-3, -2, -3], [1]) == [2, 1, 2]
    assert "score_wins" not in build_folder(EXPEDITION).bundle     # a highest-wins game keeps its bundle


# ---------------------------------------------------------------- counter visibility

def test_secret_counters_stay_secret_in_observations_views_and_bot_guesses(game_copy):
    import random
    from cardc.engine import Game
    from cardc.render.terminal import observation_text
    folder = game_copy(edits={"game.yaml": [
        ("  player: {plays: 0}", "  player:\n    plays: 0\n    chips: {start: 5, visibility: owner}\n"
         "  game:\n    pot: {start: 1, visibility: hidden}"),
        ("    me.plays = 1\n", "    me.plays = 1\n    me.chips += 1\n    game.pot += 2\n")]})
    bundle = build_folder(folder).bundle
    assert bundle["counters"]["player"]["chips"]["visibility"] == "owner"
    assert "visibility" not in bundle["counters"]["player"]["plays"]       # public: the bundle as before
    game = Game(bundle)
    st = game.new_state(2, seed=1)
    assert st.player_counters["chips"] == [6, 5] and st.game_counters["pot"] == 3
    mine, theirs = st.observation(0), st.observation(1)
    assert mine["counters"]["chips"] == [6, {"hidden": True}]
    assert theirs["counters"]["chips"] == [{"hidden": True}, 5]
    assert mine["game"]["pot"] == {"hidden": True} and mine["counters"]["plays"] == [1, 0]
    assert "chips: P1 6, P2 ?" in observation_text(mine, game, st)
    guess = st.determinized(1, random.Random(0))
    assert guess.player_counters["chips"] == [5, 5] and guess.game_counters["pot"] == 1      # imagined at their start values
    assert st.player_counters["chips"] == [6, 5]                                   # the real game is untouched


def test_a_game_counter_cannot_be_owned(game_copy):
    folder = game_copy(edits={"game.yaml": [("  player: {plays: 0}", "  player: {plays: 0}\n  game:\n"
                                             "    pot: {start: 0, visibility: owner}")]})
    errors = build_folder(folder).diags.errors
    assert [e.message for e in errors] == ["game counter `pot` has no owner: make it `public` or `hidden`, "
                                           "or a player counter"]


CIRCLE = Path(__file__).parent / "fixtures" / "games" / "circle"


@pytest.mark.parametrize("old, new, message", [
    ("{name: hand, counter: hand}", "{name: hand, counter: hnad}",
     "`hnad` must be a number counter of the game (declare it under `counters: game:`)"),
    ("    - {name: pass}", "    - {name: pass}\n    - {name: lap}",
     "only one level can be the pass round the table (a level without `counter`)"),
])
def test_levels_are_checked(game_copy, old, new, message):
    errors = build_folder(game_copy(CIRCLE, edits={"game.yaml": [(old, new)]})).diags.errors
    assert message in [e.message for e in errors]


def test_a_game_without_levels_logs_rounds_as_before(mini_game):
    st = mini_game.new_state(2, seed=1, log=True)
    assert st.log[0] == "== Turn 1 (round 1): P1 =="
    assert st.observation(0)["levels"] == [["round", 1]]


def test_cardc_new_refuses_an_id_another_folder_already_uses(tmp_path):
    from cardc.commands.new import NewGameError, new_game
    made = new_game("space", tmp_path)
    made.folder.rename(made.folder.parent / "old_space")      # the folder renamed, its id kept
    with pytest.raises(NewGameError, match=r"old_space already holds a game with the id `space`"):
        new_game("space", tmp_path)


def test_set_changes_a_text_param(tmp_path):
    built = build_folder(EXPEDITION, overrides={"params.first_colour": "blue"})
    assert built.bundle["params"]["first_colour"] == "blue"
    wrong = build_folder(EXPEDITION, overrides={"params.first_colour": "purple"})
    assert "`purple` is not a colour (the colours are red, blue, green)" in [d.message for d in wrong.diags.errors]


def test_the_terminal_game_leaves_out_the_rules_bookkeeping_counters():
    """Counters the content marks `bookkeeping: true` (unicorn's `plays`) are
    the rules' machinery: the terminal view leaves them out, as the browser
    table does, and keeps the others (`partner`)."""
    from cardc.engine import Game
    from cardc.project import load_bundle
    from cardc.render.terminal import observation_text
    game = Game(load_bundle("unicorn"))
    assert game.counters["player"]["plays"].get("bookkeeping")
    st = game.new_state(3, seed=1)
    text = observation_text(st.observation(0), game, st)
    assert "  partner: " in text
    assert "  plays: " not in text and "declined" not in text
