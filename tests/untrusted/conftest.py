"""Helpers for the untrusted-input corpus: a mutated copy of the mini game,
built, with its first error as `file:line:col message`."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardc.project import build_folder


def first_error(folder: Path):
    built = build_folder(folder)
    errors = [d for d in built.diags.sorted() if d.severity == "error"]
    if not errors:
        return built, None
    d = errors[0]
    rel = Path(d.loc.file).resolve().relative_to(folder.resolve()) if Path(d.loc.file).is_absolute() or \
        Path(d.loc.file).exists() else Path(d.loc.file)
    return built, f"{rel}:{d.loc.line}:{d.loc.col} {d.message}"


@pytest.fixture
def built_error(game_copy):
    """built_error({file: [(old, new)]}) -> (built, "file:line:col message" or None)."""
    def run(edits, extra_files=None):
        folder = game_copy(edits=edits)
        for rel, text in (extra_files or {}).items():
            (folder / rel).write_text(text)
        return first_error(folder)
    return run
