"""`cardc new`: a new game folder that checks and plays straight away."""
from __future__ import annotations

import random

import pytest

from cardc.engine import Game
from cardc.new import NewGameError, new_game
from cardc.project import build_folder


def test_new_game_checks_and_plays(tmp_path):
    folder = new_game("space_race", into=tmp_path, title="Space Race")
    built = build_folder(folder)
    assert built.bundle is not None, built.diags.render()
    assert not built.diags.warnings, "the schema comments point at grammar/ from the new place"
    assert built.bundle["game"] == "space_race" and built.bundle["name"] == "Space Race"
    st = Game(built.bundle).new_state(2, seed=1)
    rnd = random.Random(1)
    while not st.is_terminal():
        st.apply(rnd.randrange(len(st.legal_actions())))


def test_new_game_refuses_bad_names_and_existing_folders(tmp_path):
    with pytest.raises(NewGameError, match="lower_snake_case"):
        new_game("Space Race", into=tmp_path)
    new_game("space", into=tmp_path)
    with pytest.raises(NewGameError, match="already exists"):
        new_game("space", into=tmp_path)
