"""Find games and build them: the glue between the CLI and the stages.

A game is named by its id (a folder under the project's `content/`) or by a
path to any folder laid out like `content/<game>/`; a bundle file
(`generated/<game>.json`) names a game too. Which project a name belongs to
(and so where its outputs go) is decided in `cardc/load/paths.py`.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from cardc.compiler.build import compile_game
from cardc.load.diagnostics import Diagnostics, display_path
from cardc.load.game import load_game
from cardc.load.paths import Project, find_project, project_of


class UsageError(Exception):
    """The command line names something that does not exist."""


NO_PROJECT = ("no cardc project here: no cardc.toml or content/ folder in {cwd} or above; "
              "run `cardc new NAME` to start one, or name a game folder")


def current_project() -> Project:
    """The project of the working directory, or a UsageError saying how to make one."""
    project = find_project()
    if project is None:
        raise UsageError(NO_PROJECT.format(cwd=os.getcwd()))
    return project


def game_folders(names, project: Project | None = None) -> list[Path]:
    """The game folders that `names` stand for (all of the project's games
    if none). A name is a folder (as typed, or from the project root) or a
    game id of the project's content/."""
    if not names:
        project = project or current_project()
        games = project.games()
        if not games:
            raise UsageError(f"no games in {display_path(project.content)}: "
                             "run `cardc new NAME` to start one")
        return games
    project = project or find_project()
    out = []
    for name in names:
        path = Path(name)
        if (path / "game.yaml").is_file():
            out.append(path)
        elif project and not path.is_absolute() and (project.root / path / "game.yaml").is_file():
            out.append(project.root / path)
        elif project and (project.content / name / "game.yaml").is_file():
            out.append(project.content / name)
        else:
            known = [p.name for p in project.games()] if project else []
            where = f"one of {display_path(project.content)}: " + (", ".join(known) or "(none)") \
                if project else "a game of a project (none here)"
            raise UsageError(f"no game `{name}`: not a folder with a game.yaml, nor {where}")
    return out


def project_for(name: str) -> Project:
    """The project a game name belongs to: a bundle file's or a game
    folder's own project, else (for a game id) the working directory's."""
    path = Path(name)
    if path.suffix == ".json" and path.is_file():
        return find_project(path.parent) or current_project()
    folder = game_folders([name])[0]
    return project_of(folder)


def generated_dir(name: str) -> Path:
    """Where the outputs of the game named `name` go: its project's generated/."""
    return project_for(name).generated


@dataclass
class Built:
    folder: Path
    bundle: dict | None
    diags: Diagnostics


def build_folder(folder: Path, overrides=None) -> Built:
    """Load and compile one game folder.  `overrides` ({"params.x": 3, ...})
    change numbers of the content for this run only, without touching files.

    Files are named relative to the game's project inside the bundle (the
    same bytes from any working directory) and as the designer types them
    in the diagnostics."""
    project = project_of(folder)
    diags = Diagnostics()
    source = load_game(folder, diags, project)
    bundle = None
    if source is not None:
        if overrides:
            from cardc.project.overrides import apply_overrides
            apply_overrides(source, overrides, diags)
        if not diags.has_errors:
            bundle = compile_checked(source, diags)
        if bundle is not None and overrides:
            # a variant is another game: its hash must differ from the original's
            import hashlib
            text = json.dumps(sorted((str(k), str(v)) for k, v in dict(overrides).items()))
            bundle["source_hash"] = hashlib.sha256(
                (bundle["source_hash"] + text).encode()).hexdigest()
    return Built(folder, bundle, _for_people(diags, project, project.name(folder)))


def compile_checked(source, diags: Diagnostics) -> dict | None:
    """The bundle of a loaded game, or None: compiled, with the checks that
    take a later stage run on it too (the compiler calls them, and imports
    neither): the layout's names against the game's kinds and params (the
    renderer's vocabulary), and the game's `constraints:` on the states it
    starts from (the engine)."""
    return compile_game(source, diags, checks=(_check_layout, _check_constraints))


def _check_layout(source, decls, bundle, diags) -> None:
    from cardc.render.layout_check import check_art_boxes, check_layout
    check_layout(source.layout, decls.kinds, decls.params, diags)
    check_art_boxes(source.layout, source.card_files, diags)


def _check_constraints(source, decls, bundle, diags) -> None:
    from cardc.engine.constraints import check_start
    check_start(bundle, diags)


def _for_people(diags: Diagnostics, project: Project, prefix: str) -> Diagnostics:
    """One report per place and message (a bad default repeats on every
    card), each of the game's files named as the designer types it: the
    stages name them from the project root, as the bundle does."""
    shown = display_path(project.root / prefix)
    named = re.compile(rf"(?<![\w/.]){re.escape(prefix)}(?=/|:|$)")

    def person(text):
        return named.sub(lambda m: shown, text) if text else text

    seen, out = set(), Diagnostics()
    for d in diags:
        if d.loc is not None:
            d = dataclasses.replace(d, loc=dataclasses.replace(d.loc, file=person(d.loc.file)),
                                    message=person(d.message), hint=person(d.hint))
        key = (d.loc, d.severity, d.message)
        if key not in seen:
            seen.add(key)
            out.add(d)
    return out


def bundle_bytes(bundle: dict) -> bytes:
    """The canonical serialisation: sorted keys, so the same sources give the same bytes."""
    return (json.dumps(bundle, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def bundle_path(folder: Path, game_id: str) -> Path:
    """generated/<game>.json of the game folder's project."""
    return project_of(folder).generated / f"{game_id}.json"


def built_from(bundle: dict) -> str | None:
    """The game folder a bundle was compiled from, relative to its project
    (the folder of the game.yaml its code names)."""
    for code in (bundle.get("code") or {}).values():
        file = code.get("file") if isinstance(code, dict) else None
        if isinstance(file, str) and (file == "game.yaml" or file.endswith("/game.yaml")):
            return file.rpartition("/")[0] or "."
    return None


def load_bundle(name: str, project: Project | None = None) -> dict:
    """The bundle of a game (by id, folder or bundle file), compiled from
    its sources; a game id is looked up in `project` (default: the working
    directory's)."""
    path = Path(name)
    if path.suffix == ".json" and path.exists():
        from cardc.ir.schema import BundleInvalid, read_bundle
        try:
            return read_bundle(path)    # untrusted: checked before anything is built from it
        except BundleInvalid as exc:
            raise UsageError(f"refusing the bundle {exc}") from None
    folder = game_folders([name], project)[0]
    built = build_folder(folder)
    if built.bundle is None:
        raise UsageError(f"`{name}` has content errors; run `cardc check {name}`")
    return built.bundle
