"""`--set PATH=VALUE`: an override changes the number it names (and what
the rules derive from it) and nothing else; a path that names no number is
a diagnostic with a did-you-mean; the files on disk are never touched."""
from __future__ import annotations

import pytest

from cardc.load.diagnostics import Diagnostics
from cardc.load.game import load_game
from cardc.project.overrides import apply_overrides, parse_sets
from cardc.project import build_folder
from conftest import MINI


def bundle(folder=MINI, **overrides):
    built = build_folder(folder, overrides={k.replace("__", "."): v for k, v in overrides.items()})
    assert built.bundle is not None, built.diags.render()
    return built.bundle


def changes(a, b, path=""):
    """Every leaf that differs between two bundles: {path: (old, new)}, apart
    from the source hash, which a variant must change (checked on its own)."""
    if path == "" and isinstance(a, dict):
        assert a["source_hash"] != b["source_hash"] or a == b, "a variant needs its own hash"
        a, b = {**a, "source_hash": None}, {**b, "source_hash": None}
    if isinstance(a, dict) and isinstance(b, dict):
        out = {}
        for k in sorted(set(a) | set(b)):
            out.update(changes(a.get(k), b.get(k), f"{path}.{k}"))
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = {}
        for i, (x, y) in enumerate(zip(a, b)):
            out.update(changes(x, y, f"{path}[{i}]"))
        return out
    return {} if a == b else {path: (a, b)}


def card_index(b, cid):
    return next(i for i, c in enumerate(b["cards"]) if c["id"] == cid)


def test_a_param_changes_itself_and_the_code_that_uses_it():
    base = bundle()
    diff = changes(base, bundle(params__win_at="20"))
    assert diff.pop(".params.win_at") == (12, 20)
    assert diff, "the turn's win check uses win_at"
    assert all(path.startswith(".code.") and old == 12 and new == 20 for path, (old, new) in diff.items())


def test_a_card_field_changes_that_card_and_its_text_only():
    base = bundle()
    i = card_index(base, "ruby")
    diff = changes(base, bundle(cards__ruby__value="4"))
    assert diff == {f".cards[{i}].fields.value": (3, 4),
                    f".cards[{i}].text": ("Worth 3 banked.", "Worth 4 banked.")}


def test_a_value_from_defaults_is_set_on_that_card_alone(game_copy):
    folder = game_copy(edits={"cards/cards.yaml": [
        ("defaults: {starts_in: draw}", "defaults: {starts_in: draw, value: 2}"),
        ("    count: 4\n    value: 2\n", "    count: 4\n")]})           # pearl now takes its value from defaults
    base = bundle(folder)
    i = card_index(base, "pearl")
    assert base["cards"][i]["fields"]["value"] == 2
    diff = changes(base, bundle(folder, cards__pearl__value="5"))
    assert diff == {f".cards[{i}].fields.value": (2, 5),
                    f".cards[{i}].text": ("Worth 2 banked.", "Worth 5 banked.")}


def test_a_count_changes_the_copies(game_copy):
    folder = game_copy(edits={"game.yaml": [("count(draw) == 14", "count(draw) >= 14")]})
    base, more = bundle(folder), bundle(folder, cards__guard__count="4")
    assert sum(x["card"] == "guard" for x in more["instances"]) == 4
    assert len(more["instances"]) == len(base["instances"]) + 2


def test_other_numbers_of_game_yaml_by_key_and_list_id():
    assert changes(bundle(), bundle(flow__max_turns="30")) == {".max_turns": (60, 30)}
    assert bundle(players__max="4")["players"] == {"min": 2, "max": 4}


def test_files_are_not_touched():
    before = {p: p.read_bytes() for p in MINI.rglob("*.yaml")}
    bundle(params__win_at="20", cards__ruby__value="4")
    assert before == {p: p.read_bytes() for p in MINI.rglob("*.yaml")}
    assert bundle()["params"]["win_at"] == 12


@pytest.mark.parametrize("path, value, message, hint", [
    ("params.win_att", "3", "no `win_att` in `params`", "did you mean `win_at`?"),
    ("cards.rubby.value", "3", "no card `rubby`", "did you mean `ruby`?"),
    ("cards.ruby.vaule", "3", "card `ruby` has no number `vaule`", "did you mean `value`?"),
    ("zones.hnad.limit", "3", "no item `hnad`", "did you mean `hand`?"),
    ("zones.hand.limit", "3", "not a number", "set `params.hand_limit` instead"),
    ("params.win_at", "lots", "`lots` is not a number", None),
    ("params.win_at", "2.5", "is a whole number", None),
    ("cards.ruby", "3", "cards.<card id>.<field>", None),
    ("cards.ruby.count", "-1", "at least 0", None),
])
def test_bad_overrides_are_diagnostics(path, value, message, hint):
    diags = Diagnostics()
    source = load_game(MINI, diags)
    apply_overrides(source, {path: value}, diags)
    errors = diags.errors
    assert len(errors) == 1, diags.render()
    assert message in errors[0].message and str(errors[0].loc) == f"--set {path}={value}"
    if hint:
        assert hint in (errors[0].hint or "")
    assert build_folder(MINI, overrides={path: value}).bundle is None


def test_parse_sets():
    assert parse_sets(["params.a=1", " cards.x.count = 3 "]) == {"params.a": "1", "cards.x.count": "3"}
    for bad in (["params.a"], ["=3"], ["params.a="]):
        with pytest.raises(ValueError):
            parse_sets(bad)
