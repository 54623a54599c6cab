"""Where cardc finds things: its own data, and the designer's project.

cardc's own files (the grammar and its JSON Schemas, the print defaults, the
template of `cardc new`) are package data, read with importlib.resources, so
an installed cardc works without the repository. The repository's `grammar/`
and `print/` folders are that data: pyproject.toml installs them as the
packages `cardc.grammar` and `cardc.print`, one copy of each file.

The designer's files are a *project*: a folder with a `cardc.toml` (written
by `cardc new`), or failing that a folder holding `content/`. Games live in
`content/<game>/`, and every output (bundles, PDFs, reports, holes) goes to
the project's `generated/`, never into the install. cardc finds the project
from the working directory upward, as git does; a game folder named on the
command line belongs to the project that contains it. The repository is a
project too (its own cardc.toml), which holds the shipped games.
"""
from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

GRAMMAR = resources.files("cardc.grammar")
PRINT = resources.files("cardc.print")
TEMPLATE = resources.files("cardc") / "template"

MARKER = "cardc.toml"


class ProjectError(Exception):
    """A cardc.toml that cannot be read."""


@dataclass(frozen=True)
class Project:
    """A designer's folder: content/ in, generated/ out.

    `schemas` is the folder the `# yaml-language-server: $schema=` comments
    of its files point at (`schemas = "…"` in cardc.toml; default `schemas/`,
    written by `cardc new` and `cardc schemas`); `scenarios` the folder where
    `cardc new` puts a game's rules scenarios (default `scenarios/`).
    """

    root: Path
    schemas: Path
    scenarios: Path

    @property
    def content(self) -> Path:
        return self.root / "content"

    @property
    def generated(self) -> Path:
        return self.root / "generated"

    def games(self) -> list[Path]:
        """Every game folder of content/, in name order."""
        if not self.content.is_dir():
            return []
        return sorted(p for p in self.content.iterdir() if (p / "game.yaml").is_file())

    def name(self, path: Path) -> str:
        """A file's name as written into bundles: relative to the project
        root, with forward slashes, so a bundle is the same bytes whatever
        the working directory."""
        return Path(os.path.relpath(os.path.abspath(path), self.root)).as_posix()


def open_project(root: Path) -> Project:
    """The project whose root is `root` (its cardc.toml read if present)."""
    root = Path(os.path.abspath(root))
    settings: dict = {}
    marker = root / MARKER
    if marker.is_file():
        try:
            settings = tomllib.loads(marker.read_text(encoding="utf-8")).get("project") or {}
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ProjectError(f"{marker}: not a valid cardc.toml: {exc}") from None
    folders = {}
    for key in ("schemas", "scenarios"):
        folders[key] = settings.get(key, key)
        if not isinstance(folders[key], str):
            raise ProjectError(f"{marker}: `{key}` must be a folder name, e.g. \"{key}\"")
    return Project(root, root / folders["schemas"], root / folders["scenarios"])


def is_project_root(folder: Path) -> bool:
    """Does `folder` hold a project (a cardc.toml, or a content/ folder)?"""
    return (folder / MARKER).is_file() or (folder / "content").is_dir()


def find_project(start: Path | None = None) -> Project | None:
    """The project containing `start` (default: the working directory):
    the nearest folder at or above it with a cardc.toml or a content/."""
    here = Path(os.path.abspath(start if start is not None else os.getcwd()))
    for folder in (here, *here.parents):
        if is_project_root(folder):
            return open_project(folder)
    return None


def project_of(game_folder: Path) -> Project:
    """The project a game folder belongs to: the nearest one above it, or,
    for a lone game folder outside any project, the folder that holds it."""
    folder = Path(os.path.abspath(game_folder))
    return find_project(folder.parent) or open_project(folder.parent)
