"""`cardc new NAME` and `cardc schemas`: start a game, and a project for it.

The template (`cardc/template/`, package data) is itself a small project: one
working game, `content/mini/` (a draw pile, hands, a bank, a theft and a
guard that answers it, with a layout and a rulebook template), and its
rules scenarios in `scenarios/mini/`. `cardc new NAME` copies that game in as
`content/NAME/` of the project around the working directory, or, outside
any project, makes the working directory one (`cardc.toml`, `schemas/`).
Every copied file's `$schema` comment is rewritten to point at the
project's schemas, so editor completion works at once.
"""
from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from cardc.load.paths import GRAMMAR, MARKER, TEMPLATE, Project, find_project, open_project

TEMPLATE_GAME = "mini"
_SCHEMA = re.compile(r"^(# yaml-language-server: \$schema=)\S*?(\w+\.schema\.json)", re.M)


class NewGameError(Exception):
    pass


@dataclass
class NewGame:
    project: Project
    folder: Path
    scenarios: Path
    made_project: bool


def new_game(name: str, where: Path | None = None, title: str | None = None) -> NewGame:
    """Add the game `name` to the project around `where` (default: the
    working directory), making `where` a project if it is in none."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise NewGameError(f"`{name}` is not a game id: use lower_snake_case, e.g. `space_race`")
    where = Path(where if where is not None else os.getcwd())
    found = find_project(where)
    made = found is None
    project = open_project(where) if found is None else found
    dest = project.content / name
    if dest.exists():
        raise NewGameError(f"{dest} already exists")
    for other in sorted(project.content.glob("*/game.yaml")) if project.content.is_dir() else []:
        # another folder whose game has this id would be built to the same bundle
        if re.search(rf"^id:\s*['\"]?{name}['\"]?\s*(#.*)?$", other.read_text(errors="replace"), re.M):
            raise NewGameError(f"{other.parent} already holds a game with the id `{name}`: "
                               "choose another id, or rename that game")
    scenarios = project.scenarios / name
    from cardc.render.atomic import write_atomic
    with resources.as_file(TEMPLATE) as template:
        if made:
            write_atomic(project.root / MARKER, (template / MARKER).read_bytes())
        if not _has_schemas(project):
            write_schemas(project)
        _copy(template / "content" / TEMPLATE_GAME, dest, project, name, title)
        if not scenarios.exists():
            _copy(template / "scenarios" / TEMPLATE_GAME, scenarios, project, name, title)
    return NewGame(project, dest, scenarios, made)


def _copy(source: Path, dest: Path, project: Project, name: str, title: str | None) -> None:
    """Copy a template folder to `dest`, renamed to the game `name`; the new
    folder appears whole or not at all."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.parent / f".{dest.name}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(source, tmp)
    shown = title or name.replace("_", " ").title()
    for path in sorted(tmp.rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        rel = os.path.relpath(project.schemas, (dest / path.relative_to(tmp)).parent)
        # re.sub calls the lambda at once, in this turn of the loop
        text = _SCHEMA.sub(lambda m: f"{m.group(1)}{Path(rel).as_posix()}/{m.group(2)}", text)  # noqa: B023
        if path.name == "game.yaml":
            text = re.sub(r"^id: \w+$", f"id: {name}", text, count=1, flags=re.M)
            text = re.sub(r"^name: .*$", lambda m: f"name: {_yaml_text(shown)}", text, count=1, flags=re.M)
        if path.name == "layout.yaml":      # the title on the cards, the guide and the backs
            text = re.sub(r"^title: .*$", lambda m: f"title: {_yaml_text(shown)}", text, count=1, flags=re.M)
            text = re.sub(r"back: \{title: [^,]*,", lambda m: f"back: {{title: {_yaml_text(shown.upper())},",
                          text, count=1)
        text = re.sub(rf"^game: {TEMPLATE_GAME}$", f"game: {name}", text, flags=re.M)
        path.write_text(text, encoding="utf-8")
    tmp.rename(dest)


def _yaml_text(text: str) -> str:
    """`text` as a YAML string whatever it holds (a colon, a quote): a JSON
    string is a YAML double-quoted scalar."""
    return json.dumps(text, ensure_ascii=False)


def _schema_files() -> list:
    return sorted((f for f in GRAMMAR.iterdir() if f.name.endswith(".schema.json")),
                  key=lambda f: f.name)


def _has_schemas(project: Project) -> bool:
    return all((project.schemas / f.name).is_file() for f in _schema_files())


def is_the_grammar(folder: Path) -> bool:
    """True for the package's own grammar/ (the repository's project)."""
    with resources.as_file(GRAMMAR) as grammar:
        return folder.resolve() == Path(grammar).resolve()


def write_schemas(project: Project) -> list[Path]:
    """Write this cardc's JSON Schemas into the project's schemas folder
    (for editors); the repository's own grammar/ is left alone."""
    from cardc.render.atomic import write_atomic
    if is_the_grammar(project.schemas):
        return []
    written = []
    for f in _schema_files():
        written.append(write_atomic(project.schemas / f.name, f.read_bytes()))
    return written
