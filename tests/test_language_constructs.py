"""Constructs the designers' new games needed (issue 41), each generic, each
played here on a copy of a small game, with the mistakes a designer can
make with it reported at their place."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardc.engine import Game
from cardc.project import build_folder

DRAW_PROC = """  draw:
    params: {p: player, n: int}"""

RETURNING = """  take_top:
    params: {p: player}
    returns: card
    do: |
      if count(draw) == 0:
        return none
      let c = top(draw)
      move c to p.hand
      return c
  depth:
    params: {n: int}
    returns: int
    do: |
      if n == 0:
        return 0
      let below = depth(n - 1)
      return below + 1
""" + DRAW_PROC


def _built(folder):
    built = build_folder(folder)
    assert built.bundle is not None, built.diags.render()
    return built.bundle


def _errors(folder):
    built = build_folder(folder)
    assert built.bundle is None
    return [(d.loc.line, d.loc.col, d.message, d.hint) for d in built.diags.sorted() if d.severity == "error"]


def _play(bundle, players=2, seed=1, choose=None):
    """Play to the end, first legal action (or `choose(labels)`) each time; the log."""
    st = Game(bundle).new_state(players, seed=seed, log=True)
    while not st.is_terminal():
        labels = [st.action_to_string(a) for a in st.legal_actions()]
        st.apply(choose(labels) if choose else 0)
    return st


# ---------------------------------------------------------------- procedures that return a value

def test_a_procedure_gives_back_a_value_with_return(game_copy):
    folder = game_copy(edits={
        "rules.yaml": [(DRAW_PROC, RETURNING)],
        "game.yaml": [("    draw(me, 1)\n", "    let got = take_top(me)\n    let d = depth(3)\n"
                                            "    log \"{me} takes {got} at depth {d}\"\n")]})
    bundle = _built(folder)
    st = _play(bundle)
    lines = [line for line in st.log if " takes " in line]
    assert lines and all(line.endswith(" at depth 3") for line in lines)
    assert any(line.endswith("takes none at depth 3") for line in lines) or st.turn < 60
    assert bundle["counters"]["game"]["$result_take_top"] == {"type": "card", "start": None,
                                                              "per_player": False, "visibility": "hidden"}


@pytest.mark.parametrize("rules, game, where, message, hint", [
    ([(DRAW_PROC, RETURNING.replace("      return c\n", "      return c.value\n"))], [],
     ("rules.yaml", 16), "the value returned must be a card, but this is a number", None),
    ([(DRAW_PROC, RETURNING.replace("        return 0\n", "        return\n"))], [],
     ("rules.yaml", 22), "procedure `depth` gives back a number: `return VALUE`", None),
    ([(DRAW_PROC, RETURNING)], [("    draw(me, 1)\n", "    let x = draw(me, 1)\n")],
     ("game.yaml", 29), "procedure `draw` gives back no value",
     "declare `returns: TYPE` for it in rules.yaml and end it with `return VALUE`, or call it on a "
     "line of its own"),
    ([(DRAW_PROC, RETURNING)], [("if worth(me) >= win_at:", "if depth(2) >= win_at:")],
     ("game.yaml", 43), "`depth` is a procedure: take its value on a line of its own, "
                        "`let x = depth(…)`, then use `x`", None),
    ([("          return\n", "          return 1\n")], [],
     ("rules.yaml", 13), "procedure `draw` gives back no value", "declare `returns: TYPE` for `draw` in rules.yaml"),
    ([], [("      end game winners [me]\n", "      return 1\n")],
     ("game.yaml", 44), "only a procedure gives back a value with `return`",
     "compute values with a function, or move this into a procedure with `returns: TYPE` in rules.yaml"),
])
def test_mistakes_with_returned_values_are_located(game_copy, rules, game, where, message, hint):
    folder = game_copy(edits={"rules.yaml": rules, "game.yaml": game})
    errors = _errors(folder)
    assert any((line, msg, h) == (where[1], message, hint) for line, _, msg, h in errors), errors


# ---------------------------------------------------------------- counters typed by a named list

EXPEDITION = Path(__file__).parent / "fixtures" / "games" / "expedition"
LED = "counters:\n  game: {{led: {{type: colour{start}}}}}\nkinds:\n"
END = "    if count(draw) == 0:\n      end game"


def _led(game_copy, start="", turn=""):
    return game_copy(EXPEDITION, edits={"game.yaml": [("kinds:\n", LED.format(start=start)),
                                                      (END, turn + END)]})


def test_a_counter_typed_by_a_named_list_holds_its_members(game_copy):
    bundle = _built(_led(game_copy, turn="    game.led = top(me.hand).colour if count(me.hand) > 0 else none\n"
                                          "    log \"led {game.led}\"\n"))
    assert bundle["counters"]["game"]["led"] == {"type": "enum:colour", "start": None, "per_player": False}
    st = _play(bundle)
    assert {line.split("led ")[1] for line in st.log if line.startswith("led ")} <= {"red", "blue", "green", "none"}


@pytest.mark.parametrize("start, turn, line, message, hint", [
    (", start: purple", "", 17, "counter `led` must start as one of colour: red, blue, green (or leave "
                                "`start` out: none)", None),
    ("", '    game.led = "gren"\n', 47, "`gren` is not a colour (the colours are red, blue, green)",
     "did you mean `green`?"),
    ("", "    game.led = 3\n", 47, "this counter holds a `colour`, not a number", None),
    ("", '    if game.led == "bleu":\n      pass\n', 47, "`bleu` is not a colour (the colours are red, blue, "
                                                     "green)", "did you mean `blue`?"),
])
def test_a_named_list_counter_is_checked_like_a_card_field(game_copy, start, turn, line, message, hint):
    errors = _errors(_led(game_copy, start, turn))
    assert [(ln, msg, h) for ln, _, msg, h in errors] == [(line, message, hint)]


# ---------------------------------------------------------------- display labels of a named list's members

def test_members_with_labels_show_as_their_labels_in_logs_and_options(game_copy):
    folder = game_copy(EXPEDITION, edits={"game.yaml": [
        ("colour: [red, blue, green]", 'colour: {red: "♥ Red", blue: "♠ Blue", green: "♣ Green"}'),
        ("          move c to me.column[c.colour]\n",
         "          move c to me.column[c.colour]\n          log \"{me} plays on {c.colour}\"\n"),
        ("          move c to discard[c.colour]\n",
         "          move c to discard[c.colour]\n          log \"{me} discards on {c.colour}\"\n")]})
    bundle = _built(folder)
    assert bundle["enums"] == {"colour": ["red", "blue", "green"]}       # the members stay the members
    assert bundle["labels"] == {"colour": {"red": "♥ Red", "blue": "♠ Blue", "green": "♣ Green"}}
    st = Game(bundle).new_state(2, seed=3, log=True)
    labels = []
    while not st.is_terminal() and len(labels) < 400:
        options = [st.action_to_string(a) for a in st.legal_actions()]
        labels += options
        st.apply(next((i for i, o in enumerate(options) if o.startswith(("Take", "Discard"))), 0))
    assert any(line.endswith(("discards on ♥ Red", "discards on ♠ Blue", "discards on ♣ Green"))
               for line in st.log)
    taken = {label for label in labels if label.startswith("Take from the ")}
    assert taken and taken <= {f"Take from the {c} discard" for c in ("♥ Red", "♠ Blue", "♣ Green")}
    assert not any(" red " in line or " blue " in line for line in st.log)


# ---------------------------------------------------------------- else inside menus

PASS = '        option "Pass":\n          me.plays = 0\n'
BRANCHES = ('        if count(me.hand) >= 3:\n          option "Pass with a full hand":\n            me.plays = 0\n'
            '        elif count(me.hand) == 2:\n          option "Pass with two":\n            me.plays = 0\n'
            '        else:\n          option "Pass":\n            me.plays = 0\n')


def test_a_menu_offers_the_options_of_the_first_branch_that_holds(game_copy):
    bundle = _built(game_copy(edits={"game.yaml": [(PASS, BRANCHES)]}))
    st = Game(bundle).new_state(2, seed=1, log=True)
    want = {0: "Pass", 1: "Pass", 2: "Pass with two"}
    seen = set()
    while not st.is_terminal():
        labels = [st.action_to_string(a) for a in st.legal_actions()]
        passes = [label for label in labels if label.startswith("Pass")]
        if st.pending.prompt == "Play a card":
            hand = sum(label.startswith("Bank ") for label in labels)
            assert passes == [want.get(hand, "Pass with a full hand")], (hand, labels)
            seen.add(passes[0])
            # bank on odd turns, pass on even ones, so that the hand grows and shrinks
            st.apply(labels.index(passes[0]) if st.turn % 2 == 0 or hand == 0 else 0)
        else:
            st.apply(0)
    assert seen == {"Pass with a full hand", "Pass with two", "Pass"}, seen


def test_else_in_a_menu_must_follow_an_if(game_copy):
    errors = _errors(game_copy(edits={"game.yaml": [(PASS, '        else:\n          option "Pass":\n'
                                                           '            me.plays = 0\n')]}))
    assert errors == [(41, 9, "unexpected `else`; expected `for`, `if`, `option`, end of block", None)]


# ---------------------------------------------------------------- params per player count

PER_COUNT = [("  win_at: 12", '  win_at: {"2": 12, "3": 10}'),
             ("constraints:\n", "constraints:\n  - expect: win_at == (12 if game.player_count == 2 else 10)\n"
                                "    message: win_at by player count\n")]


def test_a_param_per_player_count_takes_the_value_of_the_game_being_played(game_copy):
    bundle = _built(game_copy(edits={"game.yaml": PER_COUNT}))      # its constraint holds for 2 and 3
    assert bundle["params"]["win_at"] == {"2": 12, "3": 10}
    wrong = game_copy(edits={"game.yaml": [PER_COUNT[0], (PER_COUNT[1][0], PER_COUNT[1][1].replace(
        "(12 if game.player_count == 2 else 10)", "12"))]})
    messages = [d.message for d in build_folder(wrong).diags.errors]
    assert messages == ["constraint not met: win_at by player count (with 3 players): it is 10, not 12"]


@pytest.mark.parametrize("table, message, hint", [
    ('{"2": 12}', "param `win_at` gives a value per player count, but none for 3 players",
     "give one for every count from 2 to 3"),
    ('{"2": 12, "3": 10, "5": 8}', "param `win_at` gives a value for 5 players, but the game is for 2 to 3",
     "leave those counts out"),
    ('{"2": 12, "3": many}', "param `win_at` must be a number, true/false, text, or a list of one of them "
                         "(all items of one type)", None),
])
def test_a_per_count_param_must_cover_the_counts_the_game_allows(game_copy, table, message, hint):
    errors = _errors(game_copy(edits={"game.yaml": [("  win_at: 12", f"  win_at: {table}")]}))
    assert (message, hint) in [(msg, h) for _, _, msg, h in errors], errors


def test_a_zone_limit_cannot_vary_with_the_player_count(game_copy):
    errors = _errors(game_copy(edits={"game.yaml": [("  hand_limit: 3", '  hand_limit: {"2": 3, "3": 4}')]}))
    assert ("zone limit `hand_limit` gives a value per player count; a zone's limit is one number",
            "use a param that is one number") in [(msg, h) for _, _, msg, h in errors], errors


# ---------------------------------------------------------------- a zone family as a whole

WHOLE = ("invariants:\n", "invariants:\n"
         "  - expect: all([count(p.column) == count(p.column[red]) + count(p.column[blue]) + "
         "count(p.column[green]) for p in players])\n    message: a player's columns, all at once\n"
         "  - expect: count(discard) == sum([count(discard[col]) for col in colour])\n"
         "    message: the discard piles, all at once\n"
         "  - expect: all([all([c.colour == \"red\" for c in p.column if c in p.column[red]]) "
         "for p in players])\n"
         "    message: a family's cards keep their zones\n")


def test_a_zone_family_without_a_member_is_all_its_cards_where_a_list_is_read(game_copy):
    folder = game_copy(EXPEDITION, edits={"game.yaml": [WHOLE]})
    bundle = _built(folder)
    st = Game(bundle).new_state(2, seed=2, log=True)
    checks = st.game.invariants
    grew = set()
    while not st.is_terminal():
        labels = [st.action_to_string(a) for a in st.legal_actions()]
        st.apply(next((i for i, o in enumerate(labels) if o.startswith(("Play", "Discard"))), 0))
        for check, message, _ in checks:
            assert check(st, {}), message
        names = [st.game.slot_name(st, s) for s in range(len(st.zones))]
        grew |= {n.split("[")[0].split(" ")[-1] for s, n in enumerate(names)
                 if "[" in n and len(st.zones[s]) > 0}
    assert {"discard", "column"} <= {g.split(".")[-1] for g in grew}, grew


def test_a_zone_family_still_needs_its_member_as_a_destination(game_copy):
    errors = _errors(game_copy(EXPEDITION, edits={"game.yaml": [
        ("move c to discard[c.colour]", "move c to discard")]}))
    assert [m for _, _, m, _ in errors] == ["`discard` is a family of zones, one per colour; say which, "
                                            "e.g. `discard[red]` or `discard[c.colour]`"]


# ---------------------------------------------------------------- anyone may answer: ask a list of players

CHALLENGE = ('      let victim = choose p in rivals(me) where count(p.bank) > 0 prompt "Rob whom?"\n',
             '      let challenger = ask rivals(me) "Challenge {me}\'s theft?"\n'
             '      if challenger != none:\n        log "{challenger} challenges {me}"\n        return\n'
             '      let victim = choose p in rivals(me) where count(p.bank) > 0 prompt "Rob whom?"\n')


def _first_theft(bundle, answers):
    """Play to the first theft, answering its challenge questions with `answers` in turn;
    (who was asked, in order, the thief, the log)."""
    st = Game(bundle).new_state(3, seed=1, log=True)
    asked, thief = [], None
    while not st.is_terminal():
        labels = [st.action_to_string(a) for a in st.legal_actions()]
        if (st.pending.prompt or "").startswith("Challenge"):
            thief = st.turn_player
            asked.append(st.player_name(st.pending.player))
            st.apply(labels.index(answers[len(asked) - 1]))
            if len(asked) == len(answers):
                break
            continue
        st.apply(next((i for i, label in enumerate(labels) if label.startswith("Play Thief")), 0))
    return asked, thief, st


def test_any_listed_player_may_answer_and_the_first_yes_settles_it(game_copy):
    bundle = _built(game_copy(edits={"cards/cards.yaml": [CHALLENGE]}))
    asked, thief, st = _first_theft(bundle, ["No", "Yes"])
    rivals = [st.player_name((thief + k) % 3) for k in (1, 2)]
    assert asked == rivals                       # in the list's order, each until one says yes
    while st.pending is not None and not (st.pending.prompt or "").startswith(("Play", "Rob")):
        st.apply(0)
    assert f"{rivals[1]} challenges {st.player_name(thief)}" in st.log
    assert not any(line.startswith(f"{rivals[0]} challenges") for line in st.log)


def test_nobody_answering_gives_none(game_copy):
    bundle = _built(game_copy(edits={"cards/cards.yaml": [CHALLENGE]}))
    asked, thief, st = _first_theft(bundle, ["No", "No"])
    assert len(asked) == 2 and st.pending.prompt in ("Rob whom?", "Take which gem?")
    assert not any(" challenges " in line for line in st.log)


def test_asking_something_that_is_no_player_is_an_error(game_copy):
    errors = _errors(game_copy(edits={"cards/cards.yaml": [(CHALLENGE[0], CHALLENGE[1].replace(
        "ask rivals(me)", "ask me.bank"))]}))
    assert errors[0][2] == ("who is asked must be a player (a yes/no question) or a list of players "
                            "(the first to say yes), not a zone")


def test_set_changes_one_player_counts_value_of_a_per_count_param(game_copy, capsys):
    from cardc.cli import main
    folder = game_copy(edits={"game.yaml": [PER_COUNT[0]]})
    assert main(["play", str(folder), "--seed", "1", "--quiet", "--set", "params.win_at.3=8"]) == 0
    assert main(["play", str(folder), "--seed", "1", "--set", "params.win_at=8"]) == 2
    assert "`params.win_at` gives a value per player count: set one count's, e.g. `params.win_at.2=12`" \
        in capsys.readouterr().err


def test_card_text_prints_a_members_label(game_copy):
    folder = game_copy(EXPEDITION, edits={
        "game.yaml": [("colour: [red, blue, green]", 'colour: {red: "♥ Red", blue: "♠ Blue", green: "♣ Green"}')],
        "cards/numbers.yaml": [("in your {{ colour }} column", "in your {{ labels.colour[colour] }} column")]})
    texts = {c["id"]: c["text"] for c in _built(folder)["cards"]}
    assert texts["red_3"] == "Worth 3 in your ♥ Red column." and texts["green_8"].endswith("♣ Green column.")


def test_the_rulebook_sees_the_labels(game_copy):
    from cardc.render.rulebook import render_markdown
    folder = game_copy(edits={"game.yaml": [("kinds:\n", 'enums:\n  suit: {hearts: "♥ Hearts", spades: "♠ Spades"}\n'
                                                          "kinds:\n")],
                              "rulebook.md.j2": [("# {{ name }}\n", "# {{ name }}\n\nSuits: {{ labels.suit.values() "
                                                                    "| join(', ') }}.\n")]})
    assert "\nSuits: ♥ Hearts, ♠ Spades.\n" in render_markdown(_built(folder))


def test_a_scenario_sets_and_checks_a_named_list_counter_by_its_member(game_copy, tmp_path, capsys):
    from cardc.testing.scenario import run_scenarios
    folder = _led(game_copy)
    path = tmp_path / "led.yaml"
    path.write_text(f"game: {folder}\nplayers: 2\ntitle: the led colour\n"
                    "start:\n  turn: P1\n  zones:\n    P1.hand: [red_3]\n    P2.hand: [blue_1]\n"
                    "  counters:\n    game.led: blue\n"
                    "expect:\n  values:\n    game.led: blue\n    game.led == \"blue\": true\n")
    assert run_scenarios([path]) == 0, capsys.readouterr().out


def test_a_layout_template_prints_a_members_label(game_copy, tmp_path):
    from pypdf import PdfReader
    from cardc.cli import main
    folder = game_copy(edits={
        "game.yaml": [("kinds:\n", 'enums:\n  suit: {hearts: "Hearts", spades: "Spades"}\nkinds:\n'),
                      ("card_fields:\n  value: int\n", "card_fields:\n  value: int\n  suit: suit\n")],
        "cards/cards.yaml": [("    count: 6\n", "    count: 6\n    suit: hearts\n")],
        "layout.yaml": [('corner: "{{ value }}"', "corner: \"{{ labels.suit[suit] if suit else value }}\"")]})
    assert main(["print", str(folder), "--cards", "ruby", "--out", str(tmp_path)]) == 0
    text = "".join(page.extract_text() for page in PdfReader(tmp_path / "errata.pdf").pages)
    assert "Hearts" in text and "hearts" not in text
