"""Find games and build them: the glue between the CLI and the stages.

A game is named by its id (a folder under `content/`) or by a path to any
folder laid out like `content/<game>/`.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from cardc.compiler.build import compile_game
from cardc.diagnostics import Diagnostics
from cardc.load.game import load_game
from cardc.paths import CONTENT, GENERATED, REPO


class UsageError(Exception):
    """The command line names something that does not exist."""


def game_folders(names) -> list[Path]:
    if not names:
        if not CONTENT.is_dir():
            raise UsageError(f"no content folder at {CONTENT}")
        return sorted(p for p in CONTENT.iterdir() if (p / "game.yaml").exists())
    out = []
    for name in names:
        path = Path(name)
        if (path / "game.yaml").exists():
            out.append(path)
        elif not path.is_absolute() and (REPO / path / "game.yaml").exists():
            out.append(REPO / path)
        elif (CONTENT / name / "game.yaml").exists():
            out.append(CONTENT / name)
        else:
            known = sorted(p.name for p in CONTENT.iterdir() if (p / "game.yaml").exists()) \
                if CONTENT.is_dir() else []
            raise UsageError(f"no game `{name}`: not a folder with a game.yaml, nor one of: "
                             + ", ".join(known))
    return out


@dataclass
class Built:
    folder: Path
    bundle: dict | None
    diags: Diagnostics


def build_folder(folder: Path, overrides=None) -> Built:
    """Load and compile one game folder.  `overrides` ({"params.x": 3, ...})
    change numbers of the content for this run only, without touching files."""
    diags = Diagnostics()
    source = load_game(folder, diags)
    bundle = None
    if source is not None:
        if overrides:
            from cardc.overrides import apply_overrides
            apply_overrides(source, overrides, diags)
        if not diags.has_errors:
            bundle = compile_game(source, diags)
        if bundle is not None and overrides:
            # a variant is another game: its hash must differ from the original's
            import hashlib
            text = json.dumps(sorted((str(k), str(v)) for k, v in dict(overrides).items()))
            bundle["source_hash"] = hashlib.sha256(
                (bundle["source_hash"] + text).encode()).hexdigest()
    return Built(folder, bundle, _dedupe(diags))


def _dedupe(diags: Diagnostics) -> Diagnostics:
    """One report per place and message (a bad default repeats on every card)."""
    seen, out = set(), Diagnostics()
    for d in diags:
        key = (d.loc, d.severity, d.message)
        if key not in seen:
            seen.add(key)
            out.add(d)
    return out


def bundle_bytes(bundle: dict) -> bytes:
    """The canonical serialisation: sorted keys, so the same sources give the same bytes."""
    return (json.dumps(bundle, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def bundle_path(game_id: str) -> Path:
    return GENERATED / f"{game_id}.json"


def load_bundle(name: str) -> dict:
    """The committed bundle of a game (by id or path), building it if missing."""
    path = Path(name)
    if path.suffix == ".json" and path.exists():
        from cardc.bundle_schema import BundleInvalid, read_bundle
        try:
            return read_bundle(path)    # untrusted: checked before anything is built from it
        except BundleInvalid as exc:
            raise UsageError(f"refusing the bundle {exc}") from None
    folder = game_folders([name])[0]
    built = build_folder(folder)
    if built.bundle is None:
        raise UsageError(f"`{name}` has content errors; run `cardc check {name}`")
    return built.bundle
