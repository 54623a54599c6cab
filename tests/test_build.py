"""`cardc build`: deterministic bytes, a bundle that validates against its
schema, atomic writes, and `build --check` catching stale bundles."""
from __future__ import annotations

import json

import pytest

from cardc.ir.schema import validate_bundle
from cardc.cli import main
from cardc.project import build_folder, bundle_bytes

from conftest import MINI


def test_build_twice_gives_identical_bytes():
    a = bundle_bytes(build_folder(MINI).bundle)
    b = bundle_bytes(build_folder(MINI).bundle)
    assert a == b


def test_bundle_validates_and_expands_quantities():
    bundle = build_folder(MINI).bundle
    validate_bundle(bundle)
    assert bundle["format"] == 1 and len(bundle["source_hash"]) == 64
    counts = {c["id"]: c["count"] for c in bundle["cards"]}
    ids = [i["card"] for i in bundle["instances"]]
    assert {cid: ids.count(cid) for cid in counts} == counts
    assert bundle["cards"][0]["text"] == "Worth 3 banked."       # the template, rendered
    assert bundle["code"]["proc:draw"]["ops"], "effects are stored compiled"


def test_source_edit_changes_the_hash(game_copy):
    folder = game_copy(edits={"cards/cards.yaml": [("Take a banked gem", "Take one banked gem")]})
    assert build_folder(folder).bundle["source_hash"] != build_folder(MINI).bundle["source_hash"]


@pytest.fixture
def generated(tmp_path):
    """Where a game copied into tmp_path is built: the folder holding a lone
    game folder is its project."""
    return tmp_path / "generated"


def test_build_check_fails_after_an_edit_and_passes_after_a_rebuild(game_copy, generated, capsys):
    folder = game_copy()
    assert main(["build", str(folder)]) == 0
    assert (generated / "mini.json").exists()
    assert main(["build", "--check", str(folder)]) == 0
    text = (folder / "cards/cards.yaml").read_text().replace("count: 6", "count: 6\n    flavour: Red.")
    (folder / "cards/cards.yaml").write_text(text)
    assert main(["build", "--check", str(folder)]) == 1
    assert "mini: " in capsys.readouterr().out
    assert main(["build", str(folder)]) == 0
    assert main(["build", "--check", str(folder)]) == 0


def test_failed_build_keeps_the_old_bundle(game_copy, generated):
    folder = game_copy()
    assert main(["build", str(folder)]) == 0
    old = (generated / "mini.json").read_bytes()
    text = (folder / "rules.yaml").read_text().replace("move top(draw) to p.hand", "move top(draw) p.hand")
    (folder / "rules.yaml").write_text(text)
    assert main(["build", str(folder)]) == 1
    assert (generated / "mini.json").read_bytes() == old
    assert [p.name for p in generated.iterdir()] == ["mini.json"], "no temp file left behind"


def test_check_exit_codes(game_copy, capsys):
    assert main(["check", str(MINI)]) == 0
    bad = game_copy(edits={"rules.yaml": [("move top(draw) to p.hand", "move top(draw) p.hand")]})
    assert main(["check", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "rules.yaml:14:24: error: unexpected `p`" in err
    assert main(["check", "no_such_game"]) == 2


def test_cards_command_formats(capsys):
    assert main(["cards", str(MINI), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == ["ruby", "pearl", "thief", "guard"]
    assert main(["cards", str(MINI), "--format", "csv", "--kind", "gem"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("id,name,kind,count,per_player,starts_in,") and len(lines) == 3


@pytest.mark.parametrize("game", ["unicorn", "startup", "ipo"])
def test_committed_bundles_are_up_to_date(game, capsys):
    """generated/<game>.json is committed so a content change shows its compiled
    diff; it must be what the sources compile to (run `cardc build`)."""
    assert main(["build", "--check", game]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("where", ["content", "/"])
def test_build_check_gives_the_same_answer_from_any_folder(where, monkeypatch, capsys):
    from conftest import CONTENT, REPO
    monkeypatch.chdir(REPO / where)
    assert main(["build", "--check", str(CONTENT / "unicorn")]) == 0
    assert "is up to date" in capsys.readouterr().out
