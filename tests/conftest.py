"""Shared fixtures: a small test game (mini, the template of `cardc new`:
cardc/template/content/mini) and a way to make a mutated copy of any game
folder in a temporary directory."""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CONTENT = REPO / "content"
FIXTURES = Path(__file__).parent / "fixtures"
TEMPLATE = REPO / "cardc" / "template"
MINI = TEMPLATE / "content" / "mini"
SCHEMA = re.compile(r"^(# yaml-language-server: \$schema=)\S*?(\w+\.schema\.json)", re.M)


def copy_game(src: Path, dest: Path) -> Path:
    """A copy of a game folder whose `$schema` comments still find grammar/
    (so the copy checks without warnings)."""
    shutil.copytree(src, dest)
    for path in dest.rglob("*.yaml"):
        rel = Path(os.path.relpath(REPO / "grammar", path.parent)).as_posix()
        path.write_text(SCHEMA.sub(rf"\g<1>{rel}/\g<2>", path.read_text()))
    return dest


@pytest.fixture
def game_copy(tmp_path):
    """copy(src, edits) -> folder: a copy of a game folder named after its id,
    with `edits` = {relative file: [(old, new), ...]} applied (each `old` must occur)."""
    made = []

    def copy(src=MINI, edits=None):
        # a second copy goes in a folder of its own, under the same name
        where = tmp_path if not made else tmp_path / f"copy{len(made)}"
        made.append(src)
        dest = copy_game(src, where / Path(src).name)
        for rel, changes in (edits or {}).items():
            path = dest / rel
            text = path.read_text()
            for old, new in changes:
                assert old in text, f"{old!r} not in {rel}"
                text = text.replace(old, new, 1)
            path.write_text(text)
        return dest
    return copy


@pytest.fixture(scope="session")
def mini_game():
    from cardc.engine import Game
    from cardc.project import build_folder
    built = build_folder(MINI)
    assert built.bundle, built.diags.render()
    return Game(built.bundle)
