"""`cardc export GAME --for SHOP` (issue 42): card files a print shop takes.

Every export is read back by `check_export` (pixel size, dpi, bleed, page
boxes); these tests run it on the shipped games, show that it fails on
files that are wrong, and read the files back themselves as well.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from PIL import Image
from pypdf import PdfReader

from cardc.render import RenderError
from cardc.render.cli import add_export_arguments, run_export
from cardc.render.printshop import SHOPS, check_export, export_for_shop

REPO = Path(__file__).resolve().parent.parent
ATELIER = Path(__file__).parent / "fixtures" / "games" / "atelier"
PT = 72 / 25.4


def shipped(game: str) -> dict:
    return json.loads((REPO / "generated" / f"{game}.json").read_text())


def quantities(root: Path) -> dict[str, int]:
    """card id -> count over every deck's quantities.csv."""
    out: dict[str, int] = {}
    for path in root.rglob("*quantities.csv"):
        for row in csv.DictReader(path.read_text().splitlines()):
            out[row["card"]] = out.get(row["card"], 0) + int(row["count"])
    return out


def physical_cards(bundle: dict) -> int:
    """The game's physical cards (tiles and tokens are not cards), and one player aid of each per seat."""
    from cardc.render.layout import load_layout
    layout = load_layout(bundle)
    cards = sum(1 for inst in bundle["instances"] if layout.deck_of(
        next(c["kind"] for c in bundle["cards"] if c["id"] == inst["card"])).style != "tile")
    return cards + len(layout.aids) * bundle["players"]["max"]


FAST = [("unicorn", "thegamecrafter"), ("unicorn", "pdf"), ("startup", "pdf"), ("ipo", "pdf")]
SLOW = [(g, s) for g in ("unicorn", "startup", "ipo") for s in ("thegamecrafter", "makeplayingcards")
        if (g, s) not in FAST]


@pytest.mark.parametrize("game,shop", FAST + [pytest.param(g, s, marks=pytest.mark.slow) for g, s in SLOW])
def test_the_export_of_each_shipped_game_passes_the_shop_check(game, shop, tmp_path):
    bundle = shipped(game)
    paths = export_for_shop(bundle, shop, tmp_path)
    root = tmp_path / shop
    assert check_export(root, shop) == []
    assert sum(quantities(root).values()) == physical_cards(bundle)
    assert (root / "README.txt") in paths and "How to upload:" in (root / "README.txt").read_text()
    if SHOPS[shop].images:
        want = {"thegamecrafter": (825, 1125), "makeplayingcards": (822, 1122)}[shop]
        pngs = sorted(root.rglob("*.png"))
        assert len(pngs) == len(quantities(root)) + len({p.parent for p in pngs})  # a face each, a back a deck
        for png in pngs:
            with Image.open(png) as image:
                assert image.size == want and round(image.info["dpi"][0]) == 300, png
    else:
        for path in root.glob("*.pdf"):
            for page in PdfReader(path).pages:
                media = [float(v) / PT for v in page.mediabox]
                trim = [float(v) / PT for v in page.trimbox]
                assert media[2] - media[0] == pytest.approx(2.5 * 25.4 + 2 * 3.175, abs=0.01)
                assert trim == pytest.approx([3.175, 3.175, 2.5 * 25.4 + 3.175, 3.5 * 25.4 + 3.175], abs=0.01)
                assert [float(v) for v in page.bleedbox] == pytest.approx([float(v) for v in page.mediabox])


def test_a_tarot_deck_with_art_exports_at_the_shops_tarot_size(tmp_path):
    from cardc.project import build_folder

    bundle = build_folder(ATELIER).bundle
    notes: list[str] = []
    export_for_shop(bundle, "thegamecrafter", tmp_path, art_root=ATELIER, notes=notes)
    # the test art is small on purpose: the export says so, with the size it needs
    assert notes == ["card the_kiln: its art art/kiln.png (240 x 190 px) prints at 102 dpi; The Game Crafter prints "
                     "at 300: use an image of at least 708 x 499 px"]
    root = tmp_path / "thegamecrafter"
    assert check_export(root, "thegamecrafter") == []
    with Image.open(root / "oracle" / "the_kiln.png") as kiln:
        assert kiln.size == (900, 1500)  # 2.75 x 4.75 in and 1/8 in bleed, at 300 dpi
        # the PNG art in its box: 5 mm + 30 mm across, 28 + 21 mm down the 70 x 120 mm card, on the shop's trim
        sx, sy = 2.75 * 300 / 70, 4.75 * 300 / 120
        assert kiln.convert("RGB").getpixel((round(37.5 + 35 * sx), round(37.5 + 49 * sy))) == pytest.approx(
            (0x6b, 0x2d, 0x0f), abs=12)
    with Image.open(root / "tools" / "brush-back.png") as back:  # one card's own back, beside its deck's
        assert back.size == (825, 1125)
    assert (root / "tools" / "back.png").exists()
    rows = list(csv.DictReader((root / "tools" / "quantities.csv").read_text().splitlines()))
    assert {r["card"]: (r["count"], r["back"]) for r in rows} == {
        "hammer": ("2", "back.png"), "brush": ("1", "brush-back.png"), "chisel": ("2", "back.png")}


def write_png(path: Path, size: tuple[int, int], dpi: int = 300, bleed_white: bool = False) -> None:
    image = Image.new("RGB", size, "#2c2350")
    if bleed_white:
        image.paste((255, 255, 255), (0, 0, 36, size[1]))
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, dpi=(dpi, dpi))


def test_the_check_fails_on_a_wrong_size_a_wrong_dpi_a_blank_bleed_and_wrong_boxes(tmp_path):
    root = tmp_path / "makeplayingcards"
    write_png(root / "d" / "good.png", (822, 1122))
    write_png(root / "d" / "small.png", (750, 1050))
    write_png(root / "d" / "screen.png", (822, 1122), dpi=72)
    write_png(root / "d" / "white.png", (822, 1122), bleed_white=True)
    from reportlab.pdfgen.canvas import Canvas
    canvas = Canvas(str(root / "d.pdf"), pagesize=(200, 280))
    canvas.setTrimBox([0, 0, 200, 280])
    canvas.showPage()
    canvas.save()
    assert check_export(root, "makeplayingcards") == [
        "d/screen.png: 72 x 72 dpi, not 300",
        "d/small.png: 750 x 1050 px is no MakePlayingCards card size",
        "d/white.png: the left bleed is blank paper where the card is not: the background must run into the bleed",
        "d.pdf page 1: TrimBox [0.0, 0.0, 200.0, 280.0] is not the page less a 0.12 in bleed",
    ]


def test_text_in_the_shops_safe_zone_is_refused_naming_card_and_box(tmp_path):
    bundle = shipped("unicorn")
    bundle["layout"]["card"].setdefault("boxes", {})["name"] = {"x": 1, "y": 4, "w": 41, "h": 9}
    with pytest.raises(RenderError, match=r"^text or art in The Game Crafter's safe zone: card strategic_alliance: "
                                          r"box name comes 1.0 mm from the cut; The Game Crafter keeps 3.2 mm "
                                          r"clear; .*; move the boxes inward in layout.yaml$"):
        export_for_shop(bundle, "thegamecrafter", tmp_path)
    assert not (tmp_path / "thegamecrafter").exists()


def test_a_card_size_the_shop_does_not_make_is_an_error_listing_what_it_makes(tmp_path):
    bundle = shipped("unicorn")
    bundle["layout"]["decks"][0]["size"] = {"width": 75, "height": 100}
    with pytest.raises(RenderError, match=r"^deck draw: The Game Crafter makes no 75 x 100 mm card \(it makes poker "
                                          r"2.5 x 3.5 in, bridge 2.25 x 3.5 in, tarot 2.75 x 4.75 in, mini 1.75 x "
                                          r"2.5 in, square 2.5 x 2.5 in\); give the deck one of these sizes"):
        export_for_shop(bundle, "thegamecrafter", tmp_path)


def test_cmyk_pdf_writes_every_vector_colour_as_cmyk(tmp_path):
    from pypdf.generic import ContentStream

    export_for_shop(shipped("unicorn"), "pdf", tmp_path, cmyk=True)
    reader = PdfReader(tmp_path / "pdf" / "draw.pdf")
    ops = {op for page in reader.pages[:4] for _, op in ContentStream(page.get_contents(), reader).operations}
    assert {b"k", b"K"} & ops and not {b"rg", b"RG"} & ops
    assert check_export(tmp_path / "pdf", "pdf") == []


def test_export_command_for_a_shop(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    add_export_arguments(parser)
    args = parser.parse_args(["unicorn", "--for", "pdf", "--out", str(tmp_path)])
    assert run_export(args, shipped("unicorn")) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"9 files in {tmp_path / 'pdf'}, checked: pixel size, dpi, bleed and trim boxes")
    args = parser.parse_args(["unicorn", "--for", "thegamecrafter", "--cmyk", "--out", str(tmp_path)])
    assert run_export(args, shipped("unicorn")) == 1
    assert capsys.readouterr().err == ("error: --cmyk is for --for pdf: The Game Crafter takes RGB images and "
                                       "converts them itself\n")
