"""Print formats beyond poker cards (issue 42): named and custom card sizes
per deck, cards from a spreadsheet, card art.

The test game is tests/fixtures/games/atelier: a tarot-sized oracle deck
beside poker-sized tool cards. PDFs are read back with pypdf.
"""

from __future__ import annotations

import copy
import io
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader

from cardc.project import build_folder
from cardc.render import PrintOptions, render_game
from cardc.render.sizes import SIZES

ATELIER = Path(__file__).parent / "fixtures" / "games" / "atelier"
PT = 72 / 25.4


@pytest.fixture(scope="module")
def atelier() -> dict:
    built = build_folder(ATELIER)
    assert built.bundle is not None, built.diags
    return built.bundle


def copy_game(tmp_path: Path, name: str = "atelier") -> Path:
    """A writable copy of the test game, in a project of its own."""
    folder = tmp_path / "content" / name
    shutil.copytree(ATELIER, folder)
    (tmp_path / "cardc.toml").write_text("")
    return folder


def messages(built) -> list[str]:
    return [str(d) for d in built.diags.errors]


def filled_rects(page) -> list[tuple[float, float, float, float]]:
    """(x, y, w, h) mm of every filled rectangle a page draws."""
    from pypdf.generic import ContentStream

    rects, pending = [], []
    for operands, op in ContentStream(page.get_contents(), page.pdf).operations:
        if op == b"re":
            x, y, w, h = (float(v) / PT for v in operands)
            pending.append((x, y, w, h))
        elif op in (b"f", b"F", b"f*", b"B", b"b"):
            rects += pending
            pending = []
        elif op in (b"S", b"n", b"s"):
            pending = []
    return rects


# ---------------------------------------------------------------- sizes


@pytest.mark.parametrize("name", sorted(SIZES))
def test_a_named_size_gives_the_deck_its_trim_read_back_from_the_pdf(atelier, name):
    bundle = copy.deepcopy(atelier)
    bundle["layout"]["decks"][0]["size"] = name
    rendered = render_game(bundle, PrintOptions())
    width, height = SIZES[name]
    reader = PdfReader(io.BytesIO(rendered.files["cards.pdf"]))
    oracle = [p for p in rendered.placements["cards.pdf"] if p.card_id in ("the_kiln", "the_loom")]
    assert len(oracle) == 4  # two cards, front and back
    for placement in oracle:
        assert (placement.rect.w, placement.rect.h) == pytest.approx((width, height))
        rect = placement.rect
        assert any(abs(x - rect.x) < 0.01 and abs(y - rect.y) < 0.01 and abs(w - width) < 0.01
                   and abs(h - height) < 0.01 for x, y, w, h in filled_rects(reader.pages[placement.page]))
    # the poker-sized tools never share a sheet with another size
    pages = {p.page for p in oracle}
    tools = {p.page for p in rendered.placements["cards.pdf"] if p.card_id == "chisel"}
    assert name == "poker" or not pages & tools


def test_tarot_cards_print_two_by_two_on_a4_and_the_poker_deck_three_by_three(atelier):
    rendered = render_game(atelier, PrintOptions())
    fronts = [p for p in rendered.placements["cards.pdf"] if p.side == "front"]
    tarot = [p.rect for p in fronts if p.card_id.startswith("the_")]
    assert {(r.w, r.h) for r in tarot} == {(70.0, 120.0)}
    assert [p.card_id for p in fronts] == ["the_kiln", "the_loom", "chisel", "chisel"]


def test_a_custom_size_is_any_width_and_height(atelier):
    bundle = copy.deepcopy(atelier)
    bundle["layout"]["decks"][1]["size"] = {"width": 50, "height": 75}
    rendered = render_game(bundle, PrintOptions())
    chisels = [p.rect for p in rendered.placements["cards.pdf"] if p.card_id == "chisel"]
    assert {(r.w, r.h) for r in chisels} == {(50.0, 75.0)}


def test_a_misspelt_size_name_is_an_error_at_its_place_with_a_suggestion(tmp_path):
    folder = copy_game(tmp_path)
    layout = folder / "layout.yaml"
    layout.write_text(layout.read_text().replace("size: tarot", "size: taro"))
    built = build_folder(folder)
    assert built.bundle is None
    [error] = built.diags.errors
    assert str(error.loc.file).endswith("content/atelier/layout.yaml") and (error.loc.line, error.loc.col) == (11, 11)
    assert error.message == '`size` must be one of poker, bridge, tarot, mini, square, got text "taro"'
    assert error.hint == "did you mean `tarot`?"
