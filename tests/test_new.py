"""`cardc new`: a new game (and, outside a project, a new project) that
checks, plays and passes its scenario straight away."""
from __future__ import annotations

import json
import random

import pytest

from cardc.cli import main
from cardc.engine import Game
from cardc.commands.new import NewGameError, new_game
from cardc.project import build_folder


def test_new_game_checks_and_plays(tmp_path):
    made = new_game("space_race", where=tmp_path, title="Space Race")
    assert made.made_project and (tmp_path / "cardc.toml").is_file()
    assert made.folder == tmp_path / "content" / "space_race"
    built = build_folder(made.folder)
    assert built.bundle is not None, built.diags.render()
    assert not built.diags.warnings, "the schema comments point at the project's schemas/"
    assert (tmp_path / "schemas" / "game.schema.json").is_file()
    assert built.bundle["game"] == "space_race" and built.bundle["name"] == "Space Race"
    st = Game(built.bundle).new_state(2, seed=1)
    rnd = random.Random(1)
    while not st.is_terminal():
        st.apply(rnd.randrange(len(st.legal_actions())))


def test_a_second_game_joins_the_project(tmp_path, monkeypatch):
    new_game("first", where=tmp_path)
    (tmp_path / "content" / "first" / "cards").mkdir(exist_ok=True)
    made = new_game("second", where=tmp_path / "content" / "first" / "cards")
    assert not made.made_project and made.folder == tmp_path / "content" / "second"
    monkeypatch.chdir(tmp_path / "content")
    assert main(["check"]) == 0


def test_new_game_refuses_bad_names_and_existing_folders(tmp_path):
    with pytest.raises(NewGameError, match="lower_snake_case"):
        new_game("Space Race", where=tmp_path)
    new_game("space", where=tmp_path)
    with pytest.raises(NewGameError, match="already exists"):
        new_game("space", where=tmp_path)


def test_a_schema_comment_that_points_nowhere_is_a_warning(tmp_path, monkeypatch, capsys):
    made = new_game("space", where=tmp_path)
    (tmp_path / "schemas" / "rules.schema.json").unlink()
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 0
    err = capsys.readouterr().err
    assert "content/space/rules.yaml:1:" in err and "the schema this line names is not there" in err
    assert "cardc schemas" in err
    assert main(["schemas"]) == 0
    assert not build_folder(made.folder).diags.warnings


def test_the_bundle_is_the_same_from_any_working_directory(tmp_path, monkeypatch):
    made = new_game("space", where=tmp_path)
    outputs = []
    for cwd in (tmp_path, tmp_path / "content", made.folder / "cards", tmp_path.parent):
        monkeypatch.chdir(cwd)
        assert main(["build", str(made.folder)]) == 0
        outputs.append((tmp_path / "generated" / "space.json").read_bytes())
    assert len(set(outputs)) == 1
    sources = {c["source"].rpartition(":")[0] for c in json.loads(outputs[0])["cards"]}
    assert sources == {"content/space/cards/cards.yaml"}


def test_a_copy_elsewhere_builds_into_its_own_project(tmp_path, monkeypatch):
    import shutil
    a = new_game("space", where=tmp_path / "a")
    shutil.copytree(a.folder, tmp_path / "b" / "content" / "space")
    monkeypatch.chdir(tmp_path / "a")
    assert main(["build", "space"]) == 0
    before = (tmp_path / "a" / "generated" / "space.json").read_bytes()
    assert main(["build", str(tmp_path / "b" / "content" / "space")]) == 0
    assert (tmp_path / "b" / "generated" / "space.json").read_bytes() == before
    assert (tmp_path / "a" / "generated" / "space.json").read_bytes() == before


def test_a_second_folder_with_the_same_id_does_not_overwrite_the_bundle(tmp_path, monkeypatch, capsys):
    import shutil
    a = new_game("space", where=tmp_path)
    shutil.copytree(a.folder, tmp_path / "drafts" / "space")
    monkeypatch.chdir(tmp_path)
    assert main(["build", "space"]) == 0
    assert main(["build", "drafts/space"]) == 2
    assert "another game folder" in capsys.readouterr().err


def test_a_new_games_scenarios_run_by_its_name(tmp_path, monkeypatch, capsys):
    """`cardc scenario NAME` runs the game's scenarios (scenarios/NAME), as
    `cardc check NAME` checks it; a name that is neither a file nor a game's
    scenarios still says which file it could not read."""
    new_game("space_race", where=tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["scenario", "space_race"]) == 0
    assert "1 passed, 0 failed" in capsys.readouterr().out
    assert main(["scenario", "nothing_here"]) == 3          # a file that cannot be read (issue 41)
    assert "nothing_here: No such file or directory" in capsys.readouterr().err
