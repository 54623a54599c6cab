"""`cardc new NAME`: start a game from a small working one.

The new folder `content/NAME/` is a copy of the test game
(`tests/fixtures/games/mini`: a draw pile, hands, a bank, a theft and a
guard that answers it), renamed, with its schema comments pointing at
`grammar/` from its new place, so it checks, plays and prints at once.
"""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from cardc.paths import CONTENT, GRAMMAR, REPO

TEMPLATE = REPO / "tests" / "fixtures" / "games" / "mini"
_SCHEMA = re.compile(r"^(# yaml-language-server: \$schema=)\S*?(\w+\.schema\.json)", re.M)


class NewGameError(Exception):
    pass


def new_game(name: str, into: Path = CONTENT, title: str | None = None) -> Path:
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise NewGameError(f"`{name}` is not a game id: use lower_snake_case, e.g. `space_race`")
    dest = into / name
    if dest.exists():
        raise NewGameError(f"{dest} already exists")
    for other in sorted(into.glob("*/game.yaml")) if into.is_dir() else []:
        # another folder whose game has this id would be built to the same bundle
        if re.search(rf"^id:\s*['\"]?{name}['\"]?\s*(#.*)?$", other.read_text(errors="replace"), re.M):
            raise NewGameError(f"{other.parent} already holds a game with the id `{name}`: "
                               "choose another id, or rename that game")
    tmp = into / f".{name}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(TEMPLATE, tmp)
    for path in tmp.rglob("*.yaml"):
        text = path.read_text()
        rel = os.path.relpath(GRAMMAR, (dest / path.relative_to(tmp)).parent)
        text = _SCHEMA.sub(lambda m: f"{m.group(1)}{rel}/{m.group(2)}", text)
        if path.name == "game.yaml":
            text = re.sub(r"^id: \w+$", f"id: {name}", text, count=1, flags=re.M)
            text = re.sub(r"^name: .*$", f"name: {title or name.replace('_', ' ').title()}",
                          text, count=1, flags=re.M)
        path.write_text(text)
    tmp.rename(dest)            # the new game appears whole or not at all
    return dest
