"""The bad-input corpus of the loading stage: every file in tests/badinput/
is a mistake a designer (or an attacker) can make, and each must be reported
at an exact place in plain words, never as a traceback.

Files named game_*, cards_* or rules_* parse as YAML and are then checked
against that schema; the others fail while being read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cardc.load.diagnostics import CardcError, Diagnostic, Diagnostics, Loc
from cardc.load import yamlsrc
from cardc.load.game import load_game
from cardc.load.schema import validate
from cardc.load.yamlsrc import load_yaml

BADINPUT = Path(__file__).parent / "badinput"

LOWER_SNAKE = "lower_snake_case: a lowercase letter, then lowercase letters, digits or _"

# file -> (line:col of the first diagnostic, its message, its hint or None to skip)
CASES = {
    "syntax_colon.yaml": (
        "2:12",
        "invalid YAML: unexpected `:` (mapping values are not allowed here)",
        "text that contains `: ` must be put in quotes",
    ),
    "syntax_missing_colon.yaml": (
        "2:1",
        "invalid YAML: expected `key: value` here (could not find expected ':')",
        None,
    ),
    "syntax_unclosed_quote.yaml": (
        "2:7",
        "invalid YAML: this quoted text is never closed (found unexpected end of stream)",
        "add the closing quote",
    ),
    "syntax_bad_indent.yaml": (
        "4:4",
        "invalid YAML: this line is not lined up with the lines above it "
        "(expected <block end>, but found '<block mapping start>')",
        None,
    ),
    "two_documents.yaml": (
        "3:1",
        "invalid YAML: a cardc file holds one YAML document (but found another document)",
        None,
    ),
    "undefined_alias.yaml": (
        "1:11",
        "invalid YAML: this `*alias` names no `&anchor` defined above it "
        "(found undefined alias 'common')",
        None,
    ),
    "tab_indent.yaml": ("3:1", "tab character in indentation; YAML needs spaces", None),
    "duplicate_key.yaml": ("4:1", "duplicate key `name` (first at line 2)", None),
    "empty.yaml": ("1:1", "file is empty", None),
    "only_comments.yaml": ("1:1", "file is empty", None),
    "binary.yaml": ("1:1", "not a text file (not UTF-8)", None),
    "latin1.yaml": ("1:8", "not a text file (not UTF-8)", None),
    "control_char.yaml": ("2:9", "character U+0007 is not allowed in YAML", None),
    "billion_laughs.yaml": ("6:8", "too many YAML aliases (alias bomb?)", None),
    "too_many_aliases.yaml": ("103:5", "too many YAML aliases (alias bomb?)", None),
    "recursive_alias.yaml": ("3:5", "recursive YAML alias `*loop` (it contains itself)", None),
    "deeply_nested.yaml": ("1:1", "YAML nested too deeply", None),
    "python_tag.yaml": ("2:7", "unknown YAML tag `!!python/object/apply:os.system`", None),
    "include_tag.yaml": ("2:8", "unknown YAML tag `!include`", None),
    "set_tag.yaml": ("1:8", "unknown YAML tag `!!set`", None),
    "int_key.yaml": ("3:3", "a key must be text; `1` reads as a number", 'put it in quotes: "1"'),
    "bool_key.yaml": ("3:3", "a key must be text; `on` reads as true/false", 'put it in quotes: "on"'),
    "game_unknown_key.yaml": ("3:1", "unknown key `plyers` in game.yaml", "did you mean `players`?"),
    "game_missing_flow.yaml": ("1:1", "missing required key `flow` in game.yaml", None),
    "game_bad_enum.yaml": (
        "11:43",
        '`visibility` must be one of public, owner, hidden, got text "secret"',
        None,
    ),
    "game_bad_id.yaml": ("1:5", f'`id` must be {LOWER_SNAKE}, got text "Unicorn"', None),
    "game_bad_param_name.yaml": ("13:3", f"key `Win-At` in `params` must be {LOWER_SNAKE}", None),
    "game_counter_type.yaml": (
        "13:12",
        '`money` must be a whole number, true/false or a mapping (key: value), got text "ten"',
        None,
    ),
    "game_bookkeeping_type.yaml": (
        "13:37", '`bookkeeping` must be true/false, got text "sometimes"', None),
    "game_players_type.yaml": (
        "3:10",
        '`players` must be a mapping (key: value), got text "3-5"',
        None,
    ),
    "game_unquoted_colour.yaml": ("12:12", "`colour` must be text, got nothing", None),
    "game_no_zones.yaml": ("6:8", "`zones` needs at least 1 item", None),
    "cards_unknown_key.yaml": ("6:28", "unknown key `iff` in a reaction", "did you mean `if`?"),
    "cards_wrong_type.yaml": ("5:12", '`count` must be a whole number, got text "five"', None),
    "cards_bad_id.yaml": ("4:9", f'`id` must be {LOWER_SNAKE}, got text "Steal_It"', None),
    "cards_missing_name.yaml": ("2:5", "missing required key `name` in a card", None),
    "cards_bad_field_name.yaml": (
        "4:5",
        f"key `Value` in item 1 of `cards` must be {LOWER_SNAKE}",
        None,
    ),
    "rules_missing_expr.yaml": ("3:5", "missing required key `expr` in a function", None),
}


def first_diagnostic(name: str) -> Diagnostic:
    """Load a corpus file (and check it against its schema, if it names one)
    and return the first diagnostic in source order."""
    diags = Diagnostics()
    try:
        data = load_yaml(Path(name))
    except CardcError as exc:
        diags.extend(exc.diagnostics)
    else:
        schema = name.split("_")[0]
        assert schema in ("game", "cards", "rules"), f"{name} loaded without an error"
        validate(data, schema, diags, name)
    assert diags.has_errors, f"{name}: no error reported"
    return diags.sorted()[0]


def test_the_corpus_is_complete():
    on_disk = {p.name for p in BADINPUT.glob("*.yaml")}
    assert on_disk == set(CASES)
    assert len(CASES) >= 22


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_is_reported_at_its_place(name, monkeypatch):
    monkeypatch.chdir(BADINPUT)
    where, message, hint = CASES[name]
    diag = first_diagnostic(name)
    assert diag.severity == "error"
    assert str(diag.loc) == f"{name}:{where}"
    assert diag.message == message
    if hint is not None:
        assert diag.hint == hint


def test_billion_laughs_is_refused_before_anything_is_built(monkeypatch):
    """The alias check counts each node once (sizes are memoised), so the
    refusal costs time in proportion to the file; building, the only step
    that expands aliases, must never start."""

    def must_not_build(self, node):
        raise AssertionError("an alias bomb reached the builder")

    monkeypatch.setattr(yamlsrc._Builder, "build", must_not_build)
    monkeypatch.chdir(BADINPUT)
    with pytest.raises(CardcError) as caught:
        load_yaml(Path("billion_laughs.yaml"))
    assert caught.value.diagnostics[0].message == "too many YAML aliases (alias bomb?)"


def test_every_bad_key_of_a_file_is_reported_in_one_run(monkeypatch):
    monkeypatch.chdir(BADINPUT)
    diags = Diagnostics()
    data = yamlsrc.parse_yaml(
        "id: x\nname: X\nplyers: {min: 3, mix: 5}\nkinds: {a: {label: A, color: red}}\n"
        "zones: [{id: d, owner: shared, visibility: hidden}]\nflow: {turn: x}\n",
        "g.yaml",
    )
    validate(data, "game", diags)
    assert [(str(d.loc), d.message, d.hint) for d in diags.sorted()] == [
        ("g.yaml:1:1", "missing required key `players` in game.yaml",
         "is `plyers` a misspelling of `players`?"),
        ("g.yaml:3:1", "unknown key `plyers` in game.yaml", "did you mean `players`?"),
        ("g.yaml:4:23", "unknown key `color` in a kind", "did you mean `colour`?"),
    ]
    data = yamlsrc.parse_yaml("id: x\nname: X\n", "h.yaml")
    diags = Diagnostics()
    validate(data, "game", diags)
    missing = sorted(d.message.split("`")[1] for d in diags)
    assert missing == ["flow", "kinds", "players", "zones"]


# --------------------------------------------------------------------------
# Whole game folders

GAME = """\
# yaml-language-server: $schema=../../grammar/game.schema.json
id: mini
name: Mini
players: {min: 2, max: 4}
kinds:
  attack: {label: Attack, colour: "#b3403a"}
card_fields:
  value: int
zones:
  - {id: draw, owner: shared, visibility: hidden}
flow:
  turn: |
    move top(draw) to discard
"""

CARDS = """\
# yaml-language-server: $schema=../../../grammar/cards.schema.json
defaults: {kind: attack}
cards:
  - id: poach
    name: Poach
    value: 10
"""


def make_game(root: Path, files: dict[str, str | bytes]) -> Path:
    folder = root / "mini"
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    return folder


def load_errors(folder: Path) -> list[tuple[str, str]]:
    diags = Diagnostics()
    assert load_game(folder, diags) is None
    return [(str(d.loc), d.message) for d in diags.sorted() if d.severity == "error"]


def test_symlink_escaping_the_folder_is_refused(tmp_path, monkeypatch):
    secret = tmp_path / "secret.yaml"
    secret.write_text("cards: []\n")
    folder = make_game(tmp_path, {"game.yaml": GAME, "cards/base.yaml": CARDS})
    (folder / "cards" / "evil.yaml").symlink_to(secret)
    monkeypatch.chdir(folder)
    assert load_errors(Path(".")) == [
        ("cards/evil.yaml", "`cards/evil.yaml` links to a file outside the game folder"),
    ]


def test_symlinked_folder_escaping_is_refused(tmp_path, monkeypatch):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "x.yaml").write_text(CARDS)
    folder = make_game(tmp_path, {"game.yaml": GAME})
    (folder / "cards").mkdir()
    (folder / "cards" / "more").symlink_to(outside)
    monkeypatch.chdir(folder)
    assert load_errors(Path(".")) == [
        ("cards/more", "`cards/more` links to a file outside the game folder"),
    ]


def test_missing_game_yaml(tmp_path, monkeypatch):
    folder = make_game(tmp_path, {"cards/base.yaml": CARDS})
    monkeypatch.chdir(folder)
    assert load_errors(Path(".")) == [
        ("game.yaml", "missing game.yaml: every game folder needs one"),
    ]


def test_undeclared_card_field_is_an_unknown_key(tmp_path, monkeypatch):
    cards = CARDS.replace("value: 10", "vaule: 10")
    folder = make_game(tmp_path, {"game.yaml": GAME, "cards/tactics.yaml": cards})
    monkeypatch.chdir(folder)
    diags = Diagnostics()
    assert load_game(Path("."), diags) is None
    [diag] = diags.errors
    assert str(diag.loc) == "cards/tactics.yaml:6:5"
    assert diag.message == "unknown key `vaule` in a card"
    assert diag.hint == "did you mean `value`?"


def test_card_without_a_kind(tmp_path, monkeypatch):
    cards = CARDS.replace("defaults: {kind: attack}\n", "")
    folder = make_game(tmp_path, {"game.yaml": GAME, "cards/base.yaml": cards})
    monkeypatch.chdir(folder)
    assert load_errors(Path(".")) == [
        ("cards/base.yaml:3:5", "missing required key `kind` in a card"),
    ]


def test_errors_of_every_file_in_one_run(tmp_path, monkeypatch):
    folder = make_game(
        tmp_path,
        {
            "game.yaml": GAME.replace("name: Mini", "nmae: Mini"),
            "rules.yaml": "procs:\n  draw:\n    do: x\n    do: y\n",
            "cards/a.yaml": CARDS.replace("name: Poach", "name: Poach\n    count: -1"),
            "cards/b.yaml": b"\xff\xfe",
            "rulebook.md.j2": b"# Rules\n\x00",
        },
    )
    monkeypatch.chdir(folder)
    assert load_errors(Path(".")) == [
        ("cards/a.yaml:6:12", "`count` must be at least 0, got the number -1"),
        ("cards/b.yaml:1:1", "not a text file (not UTF-8)"),
        ("game.yaml:2:1", "missing required key `name` in game.yaml"),
        ("game.yaml:3:1", "unknown key `nmae` in game.yaml"),
        ("rulebook.md.j2:2:1", "not a text file (not UTF-8)"),
        ("rules.yaml:4:5", "duplicate key `do` (first at line 3)"),
    ]
