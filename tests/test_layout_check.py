"""Layout mistakes are located errors from `cardc check`, never silently
dropped cards: a misspelt kind, a kind in two decks, an unreadable font size,
a tracker over a name the game lacks, a box outside its card."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cardc.project import build_folder

CONTENT = Path(__file__).resolve().parent.parent / "content"


def check_with(tmp_path, game, old, new):
    folder = tmp_path / game
    shutil.copytree(CONTENT / game, folder)
    layout = folder / "layout.yaml"
    text = layout.read_text(encoding="utf-8")
    assert old in text
    layout.write_text(text.replace(old, new, 1), encoding="utf-8")
    built = build_folder(folder)
    assert built.bundle is None
    return [(str(d.loc), d.message, d.hint) for d in built.diags.errors]


def test_a_misspelt_kind_in_a_deck_is_located_with_did_you_mean(tmp_path):
    errors = check_with(tmp_path, "unicorn", "kinds: [reference]", "kinds: [refrence]")
    (loc, message, hint), = errors
    lines = (CONTENT / "unicorn" / "layout.yaml").read_text(encoding="utf-8").splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "kinds: [reference]" in text)
    assert loc.endswith(f"layout.yaml:{line}:13")
    assert "`refrence`" in message and "reference" in message
    assert hint == "did you mean `reference`?"


def test_a_kind_in_two_decks_is_an_error(tmp_path):
    errors = check_with(tmp_path, "unicorn", "kinds: [reference]", "kinds: [reference, startup]")
    assert any("two layout decks" in m and "`startup`" in m for _, m, _ in errors), errors


@pytest.mark.parametrize("size", ["0.0001", "5.9", "500"])
def test_font_sizes_outside_6_to_72_pt_are_refused(tmp_path, size):
    errors = check_with(tmp_path, "unicorn", "text: {size: 8.5, min: 6}", f"text: {{size: {size}, min: 6}}")
    assert errors and all("layout.yaml:" in loc for loc, _, _ in errors)
    assert any("size" in loc or "size" in m or "6" in m for loc, m, _ in errors), errors


def test_a_tracker_over_an_unknown_param_or_kind_is_located(tmp_path):
    errors = check_with(tmp_path, "ipo", "spaces: track_spaces", "spaces: track_spaaces")
    assert any("track_spaaces" in m and h == "did you mean `track_spaces`?" for _, m, h in errors), errors


def test_a_box_outside_the_card_is_an_error(tmp_path):
    errors = check_with(tmp_path, "ipo", "size: {width: 19, height: 19}\n    styles:\n      name: {size: 16, min: 8}",
                        "size: {width: 19, height: 19}\n    boxes:\n      name: {x: 2, y: 2, w: 40, h: 5}\n"
                        "    styles:\n      name: {size: 16, min: 8}")
    assert any("outside the 19 x 19 mm card" in m for _, m, _ in errors), errors
