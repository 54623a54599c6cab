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
    bundle = copy.deepcopy(atelier)
    bundle["instances"] = [{"card": "the_kiln"}] * 5 + [{"card": "chisel"}] * 10
    rendered = render_game(bundle, PrintOptions(backs="none"))
    fronts = rendered.placements["cards.pdf"]
    sheets: dict[int, list] = {}
    for placement in fronts:
        sheets.setdefault(placement.page, []).append(placement)
    shapes = []
    for page, placements in sorted(sheets.items()):
        cols = len({round(p.rect.x, 3) for p in placements})
        rows = len({round(p.rect.y, 3) for p in placements})
        shapes.append((placements[0].card_id, len(placements), cols, rows))
    assert shapes == [("the_kiln", 4, 2, 2), ("the_kiln", 1, 1, 1), ("chisel", 9, 3, 3), ("chisel", 1, 1, 1)]


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


# ---------------------------------------------------------------- cards from a spreadsheet


def card_data(bundle: dict) -> list[tuple]:
    """What a sheet carries of each card, in bundle order."""
    return [(c["id"], c["name"], c["kind"], c["count"], c["per_player"], c["starts_in"], c["fields"],
             c["text"], c["flavour"], c["note"]) for c in bundle["cards"]]


def test_cards_from_a_csv_file_are_cards_like_yaml_ones(atelier):
    by_id = {c["id"]: c for c in atelier["cards"]}
    hammer, brush = by_id["hammer"], by_id["brush"]
    assert (hammer["count"], hammer["fields"], hammer["text"]) == (2, {"value": 2}, "Strike twice, measure once.")
    assert brush["text"] == 'Paint with "care".\nThen wait.' and brush["flavour"] == "Sable hair."
    assert hammer["source"].endswith("atelier/cards/tools.csv:2") and brush["source"].endswith("tools.csv:3")
    rendered = render_game(atelier, PrintOptions())
    assert sum(1 for p in rendered.placements["cards.pdf"] if p.card_id == "hammer" and p.side == "front") == 2


HEADER = "id,name,kind,count,value,starts_in,text\n"


@pytest.mark.parametrize("sheet,line,col,message,hint", [
    (HEADER + "hammer,Hammer,tool,five,2,deck,Strike.\n", 2, 20,
     '`count` must be a whole number, got text "five"', None),
    ("id,name,kind,count,vaule,starts_in,text\nhammer,Hammer,tool,1,2,deck,Strike.\n", 1, 20,
     "unknown key `vaule` in a card", "did you mean `value`?"),
    (HEADER + "hammer,Hammer,tool,1,2,deck,Strike.,extra\n", 2, 37,
     "this row has 8 cells but the header names 7 columns",
     "give every extra cell a column name in the first row, or remove it"),
    (HEADER + 'hammer,Hammer,tool,1,2,deck,"Two\nlines",x\n', 3, 8,
     "this row has 8 cells but the header names 7 columns",
     "give every extra cell a column name in the first row, or remove it"),
    ("id,name,kind,,value\nhammer,Hammer,tool,3,2\n", 2, 20, "a cell under a column with no name in the first row",
     "name the column (id, name, kind, count, text, ...) or empty the cell"),
    ("\n", 1, 1, "no header row: the first row names the columns (id, name, kind, ...)",
     "add a first row such as `id,name,kind,count,text`"),
    (HEADER + "hammer,Hammer,tol,1,2,deck,Strike.\n", 2, 15, None, None),
])
def test_a_mistake_in_a_csv_card_file_is_reported_at_its_row_and_column(tmp_path, sheet, line, col, message, hint):
    folder = copy_game(tmp_path)
    (folder / "cards" / "tools.csv").write_text(sheet)
    built = build_folder(folder)
    assert built.bundle is None
    errors = [e for e in built.diags.errors if str(e.loc.file).endswith("tools.csv")]
    assert len(errors) == 1, [str(e.header()) for e in built.diags.errors]
    [error] = errors
    assert (error.loc.line, error.loc.col) == (line, col)
    if message is not None:
        assert (error.message, error.hint) == (message, hint)
    else:  # the compiler's own check of a kind, at the cell
        assert "`tol`" in error.message and error.hint == "did you mean `tool`?"


def test_cards_format_csv_round_trips_through_a_card_file(atelier, tmp_path, capsys):
    from cardc.cli import main

    assert main(["cards", str(ATELIER), "--format", "csv"]) == 0
    sheet = capsys.readouterr().out
    folder = copy_game(tmp_path)
    for old in (folder / "cards").iterdir():
        old.unlink()
    (folder / "cards" / "all.csv").write_text(sheet)
    built = build_folder(folder)
    assert built.bundle is not None, [d.header() for d in built.diags]
    assert card_data(built.bundle) == card_data(atelier)
    assert main(["cards", str(folder), "--format", "csv"]) == 0
    assert capsys.readouterr().out == sheet


# ---------------------------------------------------------------- card art


def pixel(data: bytes, page: int, x_mm: float, y_mm: float) -> tuple[int, int, int]:
    """The colour printed at (x, y) mm from the page's bottom-left, rendered
    with pdfium at 100 dpi."""
    import pypdfium2 as pdfium

    image = pdfium.PdfDocument(data)[page].render(scale=100 / 72).to_pil().convert("RGB")
    px = 100 / 25.4
    return image.getpixel((round(x_mm * px), round(image.height - y_mm * px)))


def near(colour: tuple[int, int, int], hex_colour: str, tolerance: int = 12) -> bool:
    want = tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return all(abs(a - b) <= tolerance for a, b in zip(colour, want))


def art_centre(placement, deck_box) -> tuple[float, float]:
    """The centre of a card's art box on the page, in mm (boxes are from the card's top-left)."""
    x, y, w, h = deck_box
    return placement.rect.x + x + w / 2, placement.rect.top - y - h / 2


@pytest.fixture(scope="module")
def atelier_print(atelier):
    return render_game(atelier, PrintOptions(), art_root=ATELIER)


def test_png_and_svg_art_fill_the_art_box_and_a_missing_file_prints_a_placeholder(atelier_print):
    data = atelier_print.files["cards.pdf"]
    fronts = {p.card_id: p for p in atelier_print.placements["cards.pdf"] if p.side == "front"}
    oracle_art, tool_art = (5, 28, 60, 42), (5, 21, 53, 30)
    kiln = art_centre(fronts["the_kiln"], oracle_art)
    assert near(pixel(data, fronts["the_kiln"].page, *kiln), "#6b2d0f")  # the PNG's dark oval
    loom = fronts["the_loom"]
    assert near(pixel(data, loom.page, loom.rect.x + 5 + 0.5, loom.rect.top - 28 - 0.5), "#e8dcc8")  # SVG ground
    x, y = art_centre(loom, oracle_art)
    assert near(pixel(data, loom.page, x, y), "#c0392b")  # the SVG's red weft across its middle, as vectors
    chisel = fronts["chisel"]
    x, y = art_centre(chisel, tool_art)
    assert near(pixel(data, chisel.page, x - 20, y + 1), "#e4e1da")  # the placeholder's pale box
    text = PdfReader(io.BytesIO(data)).pages[chisel.page].extract_text()
    assert "art: art/chisel.png" in text
    hammer = fronts["hammer"]  # no image: the deck's colour shows through its empty art box
    x, y = art_centre(hammer, tool_art)
    assert near(pixel(data, hammer.page, x, y), "#2f6f5c")


def test_a_deck_back_image_and_one_cards_own_back_are_printed_behind_their_cards(atelier_print):
    data = atelier_print.files["cards.pdf"]
    backs = {p.card_id: p for p in atelier_print.placements["cards.pdf"] if p.side == "back"}
    kiln, brush, hammer = backs["the_kiln"], backs["brush"], backs["hammer"]
    assert near(pixel(data, kiln.page, kiln.rect.x + 35, kiln.rect.y + 60), "#d4af37")  # the oracle SVG's gold eye
    assert near(pixel(data, brush.page, brush.rect.x + 31.5, brush.rect.y + 44), "#3d5a80")  # the brush's own PNG
    assert near(pixel(data, hammer.page, hammer.rect.x + 31.5, hammer.rect.y + 44), "#2a2a2a", 30)  # deck design


def test_printing_with_art_is_deterministic(atelier):
    once = render_game(atelier, PrintOptions(), art_root=ATELIER).files
    again = render_game(atelier, PrintOptions(), art_root=ATELIER).files
    assert once == again


def card_file_warnings(folder: Path) -> list[tuple[str, int, int, str, str | None]]:
    built = build_folder(folder)
    return [(Path(d.loc.file).name, d.loc.line, d.loc.col, d.message, d.hint) for d in built.diags.warnings
            if "/cards/" in d.loc.file and "schema" not in d.message]


def test_check_warns_of_a_missing_image_and_of_an_image_its_deck_has_no_box_for(tmp_path):
    folder = copy_game(tmp_path)
    layout = folder / "layout.yaml"
    layout.write_text(layout.read_text().replace("      art:     {x: 5,   y: 21,  w: 53,   h: 30}\n", ""))
    [missing, no_box] = card_file_warnings(folder)
    assert missing[:4] == ("tools.yaml", 8, 12, "image `art/chisel.png` is not in the game folder: a placeholder is "
                                                "printed in its place")
    assert missing[4].startswith("add the file, or fix the path (relative to ")
    assert missing[4].endswith("content/atelier/)")
    assert no_box == ("tools.yaml", 8, 12, "card `chisel` has an image but deck `tools` has no `art` box in "
                                           "layout.yaml: the image is not printed",
                      "add `art: {x: ..., y: ..., w: ..., h: ...}` under the deck's `boxes` (or `card:`)")


@pytest.mark.parametrize("path", ["../outside.png", "/etc/passwd.png", "art/../../x.png", "art/kiln.gif"])
def test_an_image_path_outside_the_game_folder_or_not_an_image_is_refused(tmp_path, path):
    folder = copy_game(tmp_path)
    cards = folder / "cards" / "omens.yaml"
    cards.write_text(cards.read_text().replace("image: art/kiln.png", f"image: {path}"))
    built = build_folder(folder)
    assert built.bundle is None
    [error] = built.diags.errors
    assert (Path(error.loc.file).name, error.loc.line, error.loc.col) == ("omens.yaml", 7, 12)
    assert error.message == ("`image` must be a .png, .jpg or .svg file inside the game folder, as a relative path "
                             f"such as art/kiln.png, got text {path!r}".replace("'", '"'))


def test_an_image_linked_from_outside_the_game_folder_is_refused(tmp_path):
    folder = copy_game(tmp_path)
    secret = tmp_path / "secret.png"
    secret.write_bytes((ATELIER / "art" / "kiln.png").read_bytes())
    (folder / "art" / "kiln.png").unlink()
    (folder / "art" / "kiln.png").symlink_to(secret)
    built = build_folder(folder)
    assert built.bundle is None
    assert [e.message for e in built.diags.errors] == ["`art/kiln.png` links to a file outside the game folder"]
    # and the printer never reads it either, whatever the bundle says
    from cardc.render.art import ArtFolder
    assert ArtFolder(folder).load("art/kiln.png") is None


def test_new_art_gives_a_new_build_id(tmp_path):
    folder = copy_game(tmp_path)
    before = build_folder(folder).bundle["source_hash"]
    (folder / "art" / "kiln.png").write_bytes((ATELIER / "art" / "brush-back.png").read_bytes())
    assert build_folder(folder).bundle["source_hash"] != before


def test_an_image_file_that_is_not_an_image_is_an_error_naming_it(atelier, tmp_path, capsys):
    folder = copy_game(tmp_path)
    (folder / "art" / "kiln.png").write_bytes(b"not a png at all")
    from cardc.render import RenderError
    with pytest.raises(RenderError, match=r"^image art/kiln.png: cannot be read as PNG \("):
        render_game(atelier, PrintOptions(), art_root=folder)


def write_workbook(path: Path, rows: list[list]) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    for row in rows:
        book.active.append(row)
    book.save(path)


def test_cards_from_an_xlsx_workbook_are_the_same_cards_as_from_csv(atelier, tmp_path):
    folder = copy_game(tmp_path)
    (folder / "cards" / "tools.csv").unlink()
    write_workbook(folder / "cards" / "tools.xlsx", [
        ["id", "name", "kind", "count", "value", "starts_in", "text", "flavour", "back_image"],
        ["hammer", "Hammer", "tool", 2, 2, "deck", "Strike twice, measure once.", None, None],
        ["brush", "Fine Brush", "tool", 1.0, 1, "deck", 'Paint with "care".\nThen wait.', "Sable hair.",
         "art/brush-back.png"],
    ])
    built = build_folder(folder)
    assert built.bundle is not None, [d.header() for d in built.diags]
    assert card_data(built.bundle) == card_data(atelier)
    assert [c["source"].rsplit("/", 1)[1] for c in built.bundle["cards"] if c["kind"] == "tool"][:2] == [
        "tools.xlsx:2", "tools.xlsx:3"]


def test_a_mistake_in_an_xlsx_card_file_is_reported_at_its_row_and_column(tmp_path):
    folder = copy_game(tmp_path)
    (folder / "cards" / "tools.csv").unlink()
    write_workbook(folder / "cards" / "tools.xlsx", [["id", "name", "kind", "count", "value", "starts_in", "text"],
                                                     ["hammer", "Hammer", "tool", "five", 2, "deck", "Strike."]])
    [error] = [e for e in build_folder(folder).diags.errors]
    assert (Path(error.loc.file).name, error.loc.line, error.loc.col) == ("tools.xlsx", 2, 4)
    assert error.message == '`count` must be a whole number, got text "five"'
    (folder / "cards" / "tools.xlsx").write_bytes(b"not a workbook")
    [error] = [e for e in build_folder(folder).diags.errors]
    assert error.message == "not an .xlsx workbook cardc can read (BadZipFile)"
    assert error.hint == "save the sheet as Excel Workbook (.xlsx) or as CSV"
