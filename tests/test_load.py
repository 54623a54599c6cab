"""The loading stage: located YAML, diagnostics rendering, schemas and
whole game folders (the bad inputs are in test_badinput_load.py)."""

from __future__ import annotations

import shutil

import copy
import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardc.load.diagnostics import (
    CardcError,
    Diagnostic,
    Diagnostics,
    Loc,
    SourceCache,
    did_you_mean,
    display_path,
    render,
)
from cardc.load.game import load_game
from cardc.load.schema import load_schema
from cardc.load.yamlsrc import LocDict, LocList, LocStr, parse_yaml
from cardc.load.paths import GRAMMAR

# --------------------------------------------------------------------------
# Diagnostics


def test_render_matches_the_documented_format():
    source = "cards:\n" + "\n" * 10 + "    vaule: 10\n"
    diag = Diagnostic(
        Loc("content/unicorn/cards/tactics.yaml", 12, 5, 10),
        "error",
        "unknown key `vaule`",
        "did you mean `value`?",
    )
    assert render(diag, source) == (
        "content/unicorn/cards/tactics.yaml:12:5: error: unknown key `vaule`\n"
        "   12 |     vaule: 10\n"
        "      |     ^^^^^\n"
        "hint: did you mean `value`?"
    )


def test_render_caret_without_end_col_underlines_the_token():
    lines = ["x: [poach, steal]"]
    diag = Diagnostic(Loc("f.yaml", 1, 5), "warning", "odd")
    assert render(diag, lines).splitlines()[2] == "      |     ^^^^^"
    diag = Diagnostic(Loc("f.yaml", 1, 4), "warning", "odd")
    assert render(diag, lines).splitlines()[2] == "      |    ^"


def test_render_keeps_tabs_so_the_caret_lines_up():
    diag = Diagnostic(Loc("f.yaml", 1, 3, 4), "error", "bad")
    assert render(diag, "\t\tx").splitlines()[2] == "      | \t\t^"


def test_render_without_source_or_place():
    assert render(Diagnostic(None, "error", "no game here")) == "error: no game here"
    diag = Diagnostic(Loc("game.yaml", 0, 0), "error", "missing", "add it")
    assert render(diag, "a: 1") == "game.yaml: error: missing\nhint: add it"
    diag = Diagnostic(Loc("f.yaml", 9, 1), "error", "past the end")
    assert render(diag, "a: 1") == "f.yaml:9:1: error: past the end"


def test_did_you_mean():
    assert did_you_mean("vaule", ["value", "name", "kind"]) == "did you mean `value`?"
    assert did_you_mean("zzz", ["value", "name"]) is None


def test_diagnostics_collect_and_sort():
    diags = Diagnostics()
    diags.error(Loc("b.yaml", 1, 1), "b")
    diags.warning(Loc("a.yaml", 9, 1), "a9")
    diags.error(None, "nowhere")
    diags.error(Loc("a.yaml", 2, 7), "a2")
    assert [d.message for d in diags.sorted()] == ["a2", "a9", "b", "nowhere"]
    assert diags.has_errors and len(diags.errors) == 3 and len(diags.warnings) == 1
    assert not Diagnostics([Diagnostic(None, "warning", "w")]).has_errors


def test_cardc_error_carries_its_diagnostics():
    diag = Diagnostic(Loc("f.yaml", 1, 1), "error", "file is empty")
    error = CardcError(diag)
    assert error.diagnostics == [diag]
    assert str(error) == "f.yaml:1:1: error: file is empty"


def test_display_path_is_relative_to_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert display_path(tmp_path / "content" / "g.yaml") == "content/g.yaml"
    assert display_path("/elsewhere/g.yaml") == "/elsewhere/g.yaml"


def test_source_cache_reads_files_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("f.yaml").write_text("a: 1\nb: 2\n")
    cache = SourceCache()
    assert cache.lines("f.yaml")[1] == "b: 2"
    Path("f.yaml").write_text("changed\n")
    assert cache.lines("f.yaml")[1] == "b: 2"
    assert cache.lines("missing.yaml") is None


# --------------------------------------------------------------------------
# Located YAML


def test_mappings_lists_and_scalars_keep_their_places():
    data = parse_yaml("game:\n  zones:\n    - draw\n    - {id: hand}\n  limit: 7\n", "f.yaml")
    game = data["game"]
    assert isinstance(data, LocDict) and isinstance(game["zones"], LocList)
    assert game.key_locs["limit"] == Loc("f.yaml", 5, 3, 8)
    assert game.value_locs["limit"] == Loc("f.yaml", 5, 10, 11)
    assert game["limit"] == 7 and type(game["limit"]) is int
    zones = game["zones"]
    assert zones.loc == Loc("f.yaml", 3, 5) and zones.item_locs[1].line == 4
    assert zones[0].loc == Loc("f.yaml", 3, 7, 11) and zones[0].style is None
    assert zones[1].loc == Loc("f.yaml", 4, 7, 17)


def test_scalars_follow_the_core_schema():
    data = parse_yaml("a: 1\nb: 2.5\nc: true\nd: ~\ne: 2024-01-01\nf: '7'\ng: =\n", "f.yaml")
    assert data == {"a": 1, "b": 2.5, "c": True, "d": None, "e": "2024-01-01", "f": "7", "g": "="}
    assert isinstance(data["e"], LocStr) and data["f"].style == "'"


def test_merge_keys_fill_in_without_overriding():
    data = parse_yaml("base: &b {kind: attack, count: 2}\ncard:\n  <<: *b\n  count: 5\n", "f.yaml")
    assert data["card"] == {"kind": "attack", "count": 5}
    assert data["card"].key_locs["kind"].line == 1
    assert data["card"].key_locs["count"].line == 4


def test_aliases_are_copies_not_shared_objects():
    data = parse_yaml("a: &x [1, 2]\nb: *x\n", "f.yaml")
    assert data["a"] == data["b"] and data["a"] is not data["b"]
    assert data.value_locs["b"] == Loc("f.yaml", 2, 4, 6)


def test_located_values_survive_deepcopy():
    data = parse_yaml("a:\n  b: [text]\n", "f.yaml")
    clone = copy.deepcopy(data)
    assert clone == data
    assert clone["a"].key_locs == data["a"].key_locs
    assert clone["a"]["b"][0].loc == Loc("f.yaml", 2, 7, 11)
    assert json.loads(json.dumps(data)) == {"a": {"b": ["text"]}}


def char_at(text: str, line: int, col: int) -> str:
    return text.split("\n")[line - 1][col - 1]


def assert_maps_exactly(text: str, value: LocStr) -> None:
    """Every character of the value sits at its position in the file."""
    for offset, ch in enumerate(value):
        if ch != "\n":
            assert char_at(text, *value.position(offset)) == ch, (offset, ch)


def test_position_in_plain_and_quoted_strings():
    text = "a: plain words\nb: 'it''s'\nc: \"tab\\there \\u00e9!\"\n"
    data = parse_yaml(text, "f.yaml")
    assert data["a"].position(0) == (1, 4) and data["a"].position(6) == (1, 10)
    assert_maps_exactly(text, data["a"])
    assert data["b"] == "it's" and data["b"].position(3) == (2, 9)
    assert data["c"] == "tab\there é!"
    assert [data["c"].position(i) for i in (0, 3, 4, 9, 10)] == [(3, 5), (3, 8), (3, 10), (3, 15), (3, 21)]
    assert data["a"].position(len(data["a"])) == (1, 15)  # just past the end


@pytest.mark.parametrize("header", ["|", "|-", "|+", "|2", "|-2", "|+1"])
def test_position_in_literal_blocks(header):
    indent = {"|2": 2, "|-2": 2, "|+1": 1}.get(header, 4)
    body = ["move top(draw) to me.hand", "", "if count(me.hand) > 7:", "  discard_down(me)"]
    block = "\n".join((" " * (4 + indent) if header[-1].isdigit() else " " * 8) + line if line else "" for line in body)
    text = f"cards:\n  - id: x\n    effect: {header}\n{block}\n\nnext: 1\n"
    value = parse_yaml(text, "f.yaml")["cards"][0]["effect"]
    assert value.style == "|"
    assert_maps_exactly(text, value)
    assert value.position(value.index("if")) == (6, 5 + (indent if header[-1].isdigit() else 4))


def test_position_in_a_literal_block_with_leading_blank_lines_and_deeper_lines():
    text = "flow:\n  turn: |\n\n      shuffle draw\n        deeper\n"
    value = parse_yaml(text, "f.yaml")["flow"]["turn"]
    assert value == "\nshuffle draw\n  deeper\n"
    assert_maps_exactly(text, value)
    assert value.position(1) == (4, 7)
    assert value.span(1, 8) == Loc("f.yaml", 4, 7, 14)


def test_position_in_folded_and_wrapped_strings_is_best_effort():
    text = "text: >\n  one two\n  three\nplain: first line\n  second line\n"
    data = parse_yaml(text, "f.yaml")
    assert data["text"] == "one two three\n"
    assert data["text"].position(0) == (2, 3)
    assert data["text"].position(data["text"].index("three")) == (3, 3)
    assert data["plain"].position(data["plain"].index("second")) == (5, 3)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(
    lines=st.lists(
        st.text(alphabet="abc xyz()=+:#'\"", min_size=0, max_size=12).map(str.rstrip),
        min_size=1,
        max_size=6,
    ),
    indent=st.integers(min_value=1, max_value=6),
)
def test_literal_block_positions_are_exact_for_any_content(lines, indent):
    lines = [line.lstrip() for line in lines]
    if not any(lines):
        lines[0] = "x"
    pad = " " * (2 + indent)
    text = "root:\n  key: |\n" + "\n".join(pad + line if line else "" for line in lines) + "\n"
    value = parse_yaml(text, "f.yaml")["root"]["key"]
    assert_maps_exactly(text, value)


# --------------------------------------------------------------------------
# Schemas


@pytest.mark.parametrize("name", ["game", "rules", "cards"])
def test_schemas_are_valid_and_describe_every_property(name):
    """Editors show these descriptions to designers as they type."""
    schema = load_schema(name).schema  # load_schema checks the schema itself
    assert schema["$id"].endswith(f"{name}.schema.json") and schema["title"]

    def described(sub: dict) -> bool:
        while "description" not in sub:
            if "$ref" not in sub:
                return False
            target = schema
            for part in sub["$ref"].removeprefix("#/").split("/"):
                target = target[part]
            sub = target
        return True

    def walk(node, path: str) -> None:
        if isinstance(node, dict):
            for key, sub in node.get("properties", {}).items():
                assert described(sub), f"{path}.{key} has no description"
            for key, value in node.items():
                walk(value, f"{path}.{key}")
        elif isinstance(node, list):
            for value in node:
                walk(value, path)

    walk(schema, name)


# --------------------------------------------------------------------------
# Game folders

GAME = """\
# yaml-language-server: $schema=../../grammar/game.schema.json
id: mini
name: Mini
players: {min: 2, max: 4}
params: {hand_limit: 5}
kinds:
  attack: {label: Attack, colour: "#b3403a"}
card_fields: {value: int}
zones:
  - {id: draw, owner: shared, visibility: hidden}
  - {id: hand, owner: player, visibility: owner, limit: hand_limit, overflow: discard_down}
flow:
  turn: |
    move top(draw) to me.hand
score: count(p.hand)
"""

RULES = """\
# yaml-language-server: $schema=../../grammar/rules.schema.json
procs:
  discard_down:
    params: {p: player}
    do: |
      move top(p.hand) to draw
"""

CARDS = """\
# yaml-language-server: $schema=../../../grammar/cards.schema.json
defaults: {kind: attack, starts_in: draw}
cards:
  - id: poach
    name: Poach
    count: 3
    value: 10
    effect: |
      move top(draw) to me.hand
"""


def make_game(root: Path, files: dict[str, str]) -> Path:
    folder = root / "mini"
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def mini(tmp_path, monkeypatch) -> Path:
    """content/mini of a project whose grammar/ holds the schemas its
    `$schema` comments name (run from content/)."""
    shutil.copytree(Path(__file__).parent.parent / "grammar", tmp_path / "grammar")
    (tmp_path / "cardc.toml").write_text('[project]\nschemas = "grammar"\n')
    tmp_path = tmp_path / "content"
    folder = make_game(
        tmp_path,
        {
            "game.yaml": GAME,
            "rules.yaml": RULES,
            "cards/b/late.yaml": CARDS.replace("poach", "steal").replace("../../../", "../../../../"),
            "cards/attacks.yaml": CARDS,
            "rulebook.md.j2": "# {{ name }}\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    return folder


def test_load_game(mini):
    diags = Diagnostics()
    source = load_game(Path("mini"), diags)
    assert source is not None, diags.render()
    assert diags.items == []
    assert source.id == "mini" and source.root == Path("mini")
    assert source.game["players"] == {"min": 2, "max": 4}
    assert source.rules["procs"]["discard_down"]["params"] == {"p": "player"}
    assert [p.as_posix() for p, _ in source.card_files] == ["mini/cards/attacks.yaml", "mini/cards/b/late.yaml"]
    assert source.card_files[0][1]["cards"][0].value_loc("value") == Loc("mini/cards/attacks.yaml", 7, 12, 14)
    assert source.layout is None and source.rulebook == "# {{ name }}\n"
    assert [p.relative_to(source.root).as_posix() for p in source.files] == [
        "cards/attacks.yaml", "cards/b/late.yaml", "game.yaml", "rulebook.md.j2", "rules.yaml",
    ]


def test_source_hash_is_stable_and_follows_every_byte(mini):
    first = load_game(Path("mini"), Diagnostics()).source_hash()
    assert load_game(mini, Diagnostics()).source_hash() == first  # any spelling of the folder
    (mini / "rulebook.md.j2").write_text("# {{ name }}!\n")
    assert load_game(Path("mini"), Diagnostics()).source_hash() != first


def test_warnings_do_not_stop_loading(mini):
    (mini / "rules.yaml").write_text(RULES.split("\n", 1)[1])
    (mini / "cards" / "old.yml").write_text(CARDS)
    (mini / "cards" / "attacks.yaml").write_text(
        CARDS.replace("cards.schema.json", "game.schema.json")
    )
    diags = Diagnostics()
    assert load_game(Path("mini"), diags) is not None
    schema_path = "../../grammar/rules.schema.json"      # the project's schemas, from mini/
    assert [(str(d.loc), d.message) for d in diags.sorted()] == [
        ("mini/cards/attacks.yaml:1:33",
         "this file is checked against cards.schema.json, but its first line names another schema"),
        ("mini/cards/old.yml", "not read: card files must end in .yaml"),
        ("mini/rules.yaml:1:1",
         "the first line should name the schema: "
         f"`# yaml-language-server: $schema={schema_path}`"),
    ]
    assert all(d.severity == "warning" for d in diags)


def test_game_id_should_match_its_folder(mini):
    (mini / "game.yaml").write_text(GAME.replace("id: mini", "id: maxi"))
    diags = Diagnostics()
    assert load_game(Path("mini"), diags) is not None
    [warning] = diags.warnings
    assert str(warning.loc) == "mini/game.yaml:2:5"
    assert warning.message == "game id `maxi` differs from its folder name `mini`"


def test_symlinks_inside_the_folder_are_fine(mini):
    (mini / "cards" / "alias.yaml").symlink_to(mini / "cards" / "b" / "late.yaml")
    diags = Diagnostics()
    source = load_game(Path("mini"), diags)
    assert source is not None and not diags.has_errors
    assert len(source.card_files) == 3


def test_not_a_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    diags = Diagnostics()
    assert load_game(Path("nowhere"), diags) is None
    assert [(str(d.loc), d.message) for d in diags] == [("nowhere", "no game folder here")]


def test_the_grammar_folder_is_found_from_the_package():
    assert (GRAMMAR / "game.schema.json").is_file()
