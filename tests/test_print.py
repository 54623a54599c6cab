"""`cardc print` and `cardc export --tts`: layout, imposition, text, files.

The bundles are fixtures (tests/fixtures/print/bundles.py) that follow the
bundle contract with each game's real kinds, params and layout.yaml. PDFs
are read back with pypdf: page sizes, page boxes, text and where it sits.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import re
import sys
import time
from collections import Counter
from pathlib import Path

import jsonschema
import pytest
import yaml
from PIL import Image
from pypdf import PdfReader

from cardc.render import PrintOptions, RenderError, export_tts, print_game, render_game, write_atomic
from cardc.render.cli import add_print_arguments, parse_bleed, parse_offset, run_print
from cardc.render.components import plan_board
from cardc.render.fonts import GlyphError, load_fonts
from cardc.render.layout import load_layout
from cardc.render.sheets import MARGIN, PAPERS, Rect, back_rect, draw_crop_marks, offset_label, plan_grid
from cardc.render.text import TextFitError
from cardc.render.tts import MAX_COLS, MAX_PX, MAX_ROWS

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "print"))
import bundles  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
PT = 72 / 25.4  # points per mm
GAMES = {"unicorn": bundles.unicorn, "startup": bundles.startup, "ipo": bundles.ipo}


def pdf(data: bytes) -> PdfReader:
    return PdfReader(io.BytesIO(data))


def squash(text: str) -> str:
    """Text without whitespace, so wrapped lines compare with the source."""
    return "".join(text.split())


def text_runs(page) -> list[tuple[str, float, float]]:
    """(text, x mm, y mm) of every string drawn on a page."""
    runs = []

    def visit(text, cm, tm, font, size):
        if text.strip():
            x = cm[0] * tm[4] + cm[2] * tm[5] + cm[4]
            y = cm[1] * tm[4] + cm[3] * tm[5] + cm[5]
            runs.append((text.strip(), x / PT, y / PT))

    page.extract_text(visitor_text=visit)
    return runs


@pytest.fixture(scope="module")
def unicorn_default():
    return render_game(bundles.unicorn(), PrintOptions())


# ---------------------------------------------------------------- layouts


def test_layout_schema_is_valid_and_every_layout_file_follows_it():
    schema = json.loads((REPO / "grammar" / "layout.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    files = [REPO / "print" / "defaults.yaml"] + [REPO / "content" / g / "layout.yaml" for g in GAMES]
    for path in files:
        text = path.read_text()
        assert text.startswith("# yaml-language-server: $schema="), path
        errors = list(validator.iter_errors(yaml.safe_load(text)))
        assert not errors, f"{path}: {errors[0].message}"


def test_layout_rejects_unknown_keys_with_the_path():
    bundle = bundles.unicorn()
    bundle["layout"]["card"]["colour"] = "#ffffff"
    with pytest.raises(RenderError, match="content/unicorn/layout.yaml: layout card"):
        load_layout(bundle)


def test_deck_boxes_scale_with_a_new_card_size():
    bundle = bundles.unicorn()
    bundle["layout"]["decks"][1]["size"] = {"width": 44, "height": 63}
    layout = load_layout(bundle)
    poker, mini = layout.deck_of("employee"), layout.deck_of("startup")
    assert (mini.width, mini.height) == (44, 63)
    assert mini.boxes["text"].w == pytest.approx(poker.boxes["text"].w * 44 / 63)
    assert mini.boxes["text"].h == pytest.approx(poker.boxes["text"].h * 63 / 88)


# ---------------------------------------------------------------- imposition


@pytest.mark.parametrize("paper", ["a4", "letter", "common"])
def test_poker_cards_are_3x3_real_size_centred_inside_the_quarter_inch(paper):
    grid = plan_grid(PAPERS[paper], 63, 88)
    page_w, page_h = PAPERS[paper]
    assert (grid.cols, grid.rows) == (3, 3)
    for slot in grid.slots:
        assert slot.w == pytest.approx(63, abs=0.1) and slot.h == pytest.approx(88, abs=0.1)
        assert slot.x >= MARGIN and slot.y >= MARGIN
        assert slot.right <= page_w - MARGIN and slot.top <= page_h - MARGIN
    box = grid.bbox
    assert box.x == pytest.approx(page_w - box.right) and box.y == pytest.approx(page_h - box.top)
    # reading order: the first slot is top-left
    assert grid.slots[0].x == pytest.approx(box.x) and grid.slots[0].top == pytest.approx(box.top)


@pytest.mark.parametrize("paper,size", [("a4", (595.28, 841.89)), ("letter", (612, 792)),
                                        ("common", (595.28, 791.99))])
def test_pdf_page_sizes(paper, size):
    rendered = render_game(bundles.startup(), PrintOptions(paper=paper))
    for page in pdf(rendered.files["cards.pdf"]).pages:
        assert float(page.mediabox.width) == pytest.approx(size[0], abs=0.05)
        assert float(page.mediabox.height) == pytest.approx(size[1], abs=0.05)


def test_page_counts_nine_a_page_doubled_for_duplex(unicorn_default):
    # Decks of one size share sheets (each card keeps its deck's back), so
    # only the last sheet of the game can be partly empty.
    bundle = bundles.unicorn()
    fronts = [p for p in unicorn_default.placements["cards.pdf"] if p.side == "front"]
    sheets = math.ceil(len(fronts) / 9)
    assert len(pdf(unicorn_default.files["cards.pdf"]).pages) == 2 * sheets
    single = render_game(bundle, PrintOptions(backs="none"))
    assert len(pdf(single.files["cards.pdf"]).pages) == sheets
    separate = render_game(bundle, PrintOptions(backs="separate"))
    assert len(pdf(separate.files["cards.pdf"]).pages) == sheets
    assert len(pdf(separate.files["cards-backs.pdf"]).pages) == sheets


def test_one_face_per_physical_card_including_per_player_copies():
    bundle = bundles.startup()
    rendered = render_game(bundle, PrintOptions())
    fronts = Counter(p.card_id for p in rendered.placements["cards.pdf"] if p.side == "front")
    assert fronts["intern"] == 5  # per_player, 1 copy, up to 5 players
    assert fronts["backend_dev"] == 3
    assert fronts.pop("aid_1") == 5  # the player aid, once per seat
    assert sum(fronts.values()) == len(bundle["instances"])


def test_every_card_name_and_text_is_on_its_page_inside_its_slot(unicorn_default):
    bundle = bundles.unicorn()
    cards = {c["id"]: c for c in bundle["cards"]}
    reader = pdf(unicorn_default.files["cards.pdf"])
    fronts = [p for p in unicorn_default.placements["cards.pdf"] if p.side == "front" and p.card_id in cards]
    assert len(fronts) == len(bundle["instances"])  # and the player aids besides
    for placement in fronts:
        page = reader.pages[placement.page]
        card = cards[placement.card_id]
        assert squash(card["text"]) in squash(page.extract_text())
        r = placement.rect
        names = [(x, y) for text, x, y in text_runs(page) if text == card["name"]]
        assert any(r.x < x < r.right and r.y < y < r.top for x, y in names), (card["id"], r, names)


@pytest.mark.parametrize("flip", ["long-edge", "short-edge"])
def test_each_back_lands_behind_its_front(flip):
    bundle = bundles.unicorn()
    bundle["layout"].pop("aids")  # so that the last sheet is a partial one
    rendered = render_game(bundle, PrintOptions(backs=flip))
    reader = pdf(rendered.files["cards.pdf"])
    placements = rendered.placements["cards.pdf"]
    page_w, page_h = PAPERS["a4"]
    fronts = [p for p in placements if p.side == "front"]
    backs = [p for p in placements if p.side == "back"]
    assert len(backs) == len(fronts)
    for front, back in zip(fronts, backs):
        assert back.page == front.page + 1 and back.card_id == front.card_id
        if flip == "long-edge":  # columns mirrored, rows kept
            assert back.rect.x == pytest.approx(page_w - front.rect.right)
            assert back.rect.y == pytest.approx(front.rect.y)
        else:  # rows mirrored, columns kept
            assert back.rect.x == pytest.approx(front.rect.x)
            assert back.rect.y == pytest.approx(page_h - front.rect.top)
    # The PDF agrees: on the last (partial) sheet, back titles sit exactly behind the fronts.
    last_front = max(p.page for p in fronts)
    front_centres = [(p.rect.x + p.rect.w / 2, p.rect.y + p.rect.h / 2) for p in fronts if p.page == last_front]
    titles = [(x, y) for text, x, y in text_runs(reader.pages[last_front + 1]) if text in ("UNICORN", "Reference")]
    assert len(front_centres) < 9 and titles
    for x, y in titles:
        # turn the back page over: each title must sit over a front slot in use
        fx = page_w - x if flip == "long-edge" else x
        fy = y if flip == "long-edge" else page_h - y
        assert any(abs(fx - cx) < 63 / 2 and abs(fy - cy) < 88 / 2 for cx, cy in front_centres), (x, y)


def test_offset_shifts_every_back():
    plain = render_game(bundles.startup(), PrintOptions())
    shifted = render_game(bundles.startup(), PrintOptions(offset=(1.5, -0.5)))
    a = [p for p in plain.placements["cards.pdf"] if p.side == "back"]
    b = [p for p in shifted.placements["cards.pdf"] if p.side == "back"]
    for p, q in zip(a, b):
        assert q.rect.x == pytest.approx(p.rect.x + 1.5) and q.rect.y == pytest.approx(p.rect.y - 0.5)


def filled_rects(page) -> list[Rect]:
    """Every filled rectangle a page's content stream draws, in mm (page
    coordinates: the card sheets draw without transforms)."""
    from pypdf.generic import ContentStream

    rects, pending = [], []
    for operands, op in ContentStream(page.get_contents(), page.pdf).operations:
        if op == b"re":
            x, y, w, h = (float(v) / PT for v in operands)
            pending.append(Rect(min(x, x + w), min(y, y + h), abs(w), abs(h)))
        elif op in (b"f", b"F", b"f*", b"B", b"b"):
            rects += pending
            pending = []
        elif op in (b"S", b"n", b"s"):
            pending = []
    return rects


def overlap(a: Rect, b: Rect) -> float:
    return max(0.0, min(a.right, b.right) - max(a.x, b.x)) * max(0.0, min(a.top, b.top) - max(a.y, b.y))


def check_full_bleed(rendered, paper: str, bleed: float, per_sheet: int) -> None:
    """Every card's background read back from cards.pdf is its trim plus
    `bleed` on all four sides, no two backgrounds overlap, and every trim
    keeps the room crop marks need."""
    reader = pdf(rendered.files["cards.pdf"])
    by_page: dict[int, list] = {}
    for placement in rendered.placements["cards.pdf"]:
        by_page.setdefault(placement.page, []).append(placement)
    page_w, page_h = PAPERS[paper]
    assert max(len(p) for p in by_page.values()) == per_sheet
    for index, placements in by_page.items():
        rects = filled_rects(reader.pages[index])
        backgrounds = []
        for placement in placements:
            want = placement.rect.grown(bleed)
            match = [r for r in rects if all(abs(getattr(r, k) - getattr(want, k)) < 0.01 for k in "xywh")]
            assert match, (index, placement.card_id, want)
            backgrounds.append(want)
            trim = placement.rect
            assert MARGIN - 0.01 <= trim.x and trim.right <= page_w - MARGIN + 0.01
            assert MARGIN - 0.01 <= trim.y and trim.top <= page_h - MARGIN + 0.01
        for i, a in enumerate(backgrounds):
            for b in backgrounds[i + 1:]:
                assert overlap(a, b) < 1e-6, (index, a, b)


@pytest.mark.parametrize("paper,asked,per_sheet", [("a4", 3, 6), ("a4", 3.175, 4), ("letter", 3, 4),
                                                   ("common", 3, 4), ("a4", 1, 9)])
def test_every_card_keeps_the_bleed_asked_for_read_back_from_the_pdf(paper, asked, per_sheet):
    # issue 42: --bleed 3 gave 2 mm on A4 and 0.5 mm on letter. Now the bleed
    # asked for is the bleed printed; --fit bleed takes fewer cards a sheet.
    rendered = render_game(bundles.unicorn(), PrintOptions(paper=paper, bleed=asked, fit="bleed"))
    if per_sheet < 9:
        assert len(rendered.notes) == 1 and f"printing {rendered.notes[0].split('printing ')[1]}"
        assert "--fit cards keeps 3 x 3" in rendered.notes[0]
    else:
        assert not rendered.notes
    check_full_bleed(rendered, paper, asked, per_sheet)


@pytest.mark.parametrize("paper,message", [
    ("a4", "--bleed 3: a 3 mm bleed leaves room for 2 x 3 cards of 63 x 88 mm on a4, not 3 x 3 (the gutters take "
           "twice the bleed and crop marks stay 5 mm inside the paper); pass --fit bleed to print 2 x 3 a sheet "
           "with the full bleed, or --fit cards to keep 3 x 3 with a 1 mm bleed"),
    ("letter", "--bleed 3: a 3 mm bleed leaves room for 2 x 2 cards of 63 x 88 mm on letter, not 3 x 3 (the "
               "gutters take twice the bleed and crop marks stay 5 mm inside the paper); pass --fit bleed to print "
               "2 x 2 a sheet with the full bleed, or --fit cards to keep 3 x 3 with no bleed"),
])
def test_a_bleed_that_costs_cards_is_refused_unless_fit_says_what_to_keep(paper, message, tmp_path, capsys):
    parser = argparse.ArgumentParser()
    add_print_arguments(parser)
    args = parser.parse_args(["unicorn", "--paper", paper, "--bleed", "3", "--out", str(tmp_path)])
    assert run_print(args, bundles.unicorn()) == 1
    assert capsys.readouterr().err == f"error: {message}\n"
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("paper,kept", [("a4", 1.0), ("letter", 0.0)])
def test_fit_cards_keeps_nine_a_sheet_with_the_largest_bleed_and_says_so(paper, kept):
    rendered = render_game(bundles.unicorn(), PrintOptions(paper=paper, bleed=3, fit="cards"))
    with_kept = f"with a {kept:g} mm bleed" if kept else "with no bleed"
    assert rendered.notes == [f"a 3 mm bleed does not fit 3 x 3 cards of 63 x 88 mm on {paper}; printing "
                              f"{with_kept}, as --fit cards asks (--fit bleed keeps 3 mm with "
                              f"{'2 x 3' if paper == 'a4' else '2 x 2'} a sheet)"]
    check_full_bleed(rendered, paper, kept, 9)


def ink_bounds(data: bytes, pages) -> list[tuple[int, str, tuple[float, float, float, float]]]:
    """(page, kind, (left, bottom, right, top) mm) of every object drawn on
    the given pages, read back with pdfium (line widths included)."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    kinds = {raw.FPDF_PAGEOBJ_PATH: "path", raw.FPDF_PAGEOBJ_TEXT: "text", raw.FPDF_PAGEOBJ_IMAGE: "image",
             raw.FPDF_PAGEOBJ_FORM: "form"}
    out = []
    document = pdfium.PdfDocument(data)
    for index in pages:
        for obj in document[index].get_objects(max_depth=1):
            out.append((index, kinds.get(obj.type, "other"), tuple(v / PT for v in obj.get_bounds())))
    return out


@pytest.mark.parametrize("paper,bleed,fit", [("a4", 3, "bleed"), ("letter", 3, "bleed"), ("common", 3, "bleed"),
                                             ("a4", 3, "cards"), ("letter", 3.175, "bleed"), ("a4", 0, None),
                                             ("letter", 0, None)])
def test_every_crop_mark_and_card_on_a_front_sheet_is_5_mm_inside_the_paper(paper, bleed, fit):
    # issue 42: with --bleed 3 the marks started 0.5-3.5 mm from the edge,
    # where desktop printers do not print. Read back from the PDF with pdfium.
    rendered = render_game(bundles.unicorn(), PrintOptions(paper=paper, bleed=bleed, fit=fit))
    fronts = sorted({p.page for p in rendered.placements["cards.pdf"] if p.side == "front"})
    page_w, page_h = PAPERS[paper]
    objects = ink_bounds(rendered.files["cards.pdf"], fronts)
    for page, kind, (left, bottom, right, top) in objects:
        assert min(left, bottom, page_w - right, page_h - top) >= 5.0, (page, kind, left, bottom, right, top)
    first = [p.rect for p in rendered.placements["cards.pdf"] if p.page == fronts[0] and p.side == "front"]
    cards = [r.grown(max(bleed, 0.01)) for r in first]
    marks = [b for page, kind, b in objects if page == fronts[0] and kind == "path"
             and min(b[2] - b[0], b[3] - b[1]) < 0.5  # a line, not a card's shape
             and not any(c.x <= b[0] and b[2] <= c.right and c.y <= b[1] and b[3] <= c.top for c in cards)]
    cols = len({round(r.x, 3) for r in first})
    rows = len({round(r.y, 3) for r in first})
    cut_lines = (2 * cols if bleed else cols + 1) + (2 * rows if bleed else rows + 1)
    assert len(marks) == 2 * cut_lines  # a mark at both ends of every cut line


@pytest.mark.parametrize("bleed,fit", [(1, None), (3, "bleed")])
def test_bleed_sets_trim_and_bleed_boxes(bleed, fit):
    rendered = render_game(bundles.unicorn(), PrintOptions(bleed=bleed, fit=fit))
    grid = plan_grid(PAPERS["a4"], 63, 88, bleed=bleed)
    page = pdf(rendered.files["cards.pdf"]).pages[0]
    trim = [float(v) / PT for v in page.trimbox]
    box = [float(v) / PT for v in page.bleedbox]
    assert grid.gap == 2 * bleed
    assert trim == pytest.approx([grid.bbox.x, grid.bbox.y, grid.bbox.right, grid.bbox.top], abs=0.01)
    assert box == pytest.approx([grid.bbox.x - bleed, grid.bbox.y - bleed, grid.bbox.right + bleed,
                                 grid.bbox.top + bleed], abs=0.01)


def test_crop_marks_only_where_cards_are():
    grid = plan_grid(PAPERS["a4"], 63, 88)
    canvas = _Lines()
    draw_crop_marks(canvas, grid, 0, grid.slots[:1])  # one card, top left
    slot = grid.slots[0]
    for x1, y1, x2, y2 in canvas.lines:
        if x1 == x2:  # a vertical mark continues a vertical cut line of that card
            assert min(abs(x1 - slot.x), abs(x1 - slot.right)) < 1e-6
            assert min(y1, y2) >= slot.top or max(y1, y2) <= slot.y
        else:
            assert min(abs(y1 - slot.y), abs(y1 - slot.top)) < 1e-6


class _Lines:
    """A stand-in canvas that records the lines drawn on it."""

    def __init__(self):
        self.lines = []

    def line(self, x1, y1, x2, y2):
        self.lines.append((x1 / PT, y1 / PT, x2 / PT, y2 / PT))

    def setStrokeColor(self, colour):
        pass

    def setLineWidth(self, width):
        pass


@pytest.mark.parametrize("paper,bleed", [("a4", 0), ("letter", 3), ("common", 3.175)])
def test_crop_marks_stay_in_the_margin_outside_the_bleed(paper, bleed):
    grid = plan_grid(PAPERS[paper], 63, 88, bleed=bleed)
    canvas = _Lines()
    draw_crop_marks(canvas, grid, bleed)
    assert len(canvas.lines) >= 16
    outer = grid.bbox.grown(bleed)
    page_w, page_h = PAPERS[paper]
    for x1, y1, x2, y2 in canvas.lines:
        assert math.hypot(x2 - x1, y2 - y1) >= 1.0
        for x, y in ((x1, y1), (x2, y2)):
            assert 5 <= x <= page_w - 5 and 5 <= y <= page_h - 5
            inside = outer.x < x < outer.right and outer.y < y < outer.top
            assert not inside, (x, y)


# ---------------------------------------------------------------- text and fonts


def text_sizes(page) -> list[tuple[str, float]]:
    """(text, size in points as printed) of every string on a page."""
    out = []

    def visit(text, cm, tm, font, size):
        if text.strip():
            scale = math.hypot(tm[0], tm[1]) * math.hypot(cm[0], cm[1])
            out.append((text.strip(), size * scale))

    page.extract_text(visitor_text=visit)
    return out


@pytest.mark.parametrize("game", sorted(GAMES))
def test_no_text_anywhere_is_smaller_than_6_pt(game):
    rendered = render_game(GAMES[game](), PrintOptions())
    proof = render_game(GAMES[game](), PrintOptions(proof=True))  # the review sheet prints faces at full size
    seen = 0
    for name, data in {**rendered.files, **proof.files}.items():
        for index, page in enumerate(pdf(data).pages):
            for text, size in text_sizes(page):
                seen += 1
                assert size >= 6 - 1e-6, (name, index, text, size)
    assert seen > 100


def test_footer_has_version_build_stamp_and_card_number():
    # issue 42: every build printed the same "v0.3"; the build id follows the content
    bundle = bundles.unicorn()
    bundle["source_hash"] = "1f2e3d" + "0" * 58
    rendered = render_game(bundle, PrintOptions())
    reader = pdf(rendered.files["cards.pdf"])
    runs = [t for page in reader.pages for t, x, y in text_runs(page)]
    total = sum(1 for p in rendered.placements["cards.pdf"] if p.side == "front" and p.card_id in
                {c["id"] for c in bundle["cards"] if c["kind"] not in ("startup", "reference")})
    assert f"Unicorn v0.3 #1f2e3d · 1/{total}" in runs and f"Unicorn v0.3 #1f2e3d · {total}/{total}" in runs
    # an errata sheet keeps the numbers of the full set
    errata = render_game(bundle, PrintOptions(cards=("cto",)))
    numbers = [t for page in pdf(errata.files["errata.pdf"]).pages for t, x, y in text_runs(page) if "v0.3" in t]
    assert numbers and set(numbers) <= set(runs)
    # changed content, another build id; --stamp names the build instead
    bundle["source_hash"] = "abcdef" + "0" * 58
    runs = [t for page in pdf(render_game(bundle, PrintOptions()).files["cards.pdf"]).pages[:1]
            for t, x, y in text_runs(page)]
    assert "Unicorn v0.3 #abcdef · 1/" + str(total) in runs
    dated = render_game(bundle, PrintOptions(stamp="2026-12-05"))
    runs = [t for page in pdf(dated.files["cards.pdf"]).pages[:1] for t, x, y in text_runs(page)]
    assert f"Unicorn v0.3 2026-12-05 · 1/{total}" in runs


@pytest.mark.parametrize("stamp", ["", "x" * 25, "two\nlines"])
def test_a_stamp_that_cannot_print_on_one_footer_line_is_an_error(stamp):
    with pytest.raises(RenderError, match=r"^--stamp must be 1 to 24 printable characters \(a date, a build name\), "
                                          r"not "):
        render_game(bundles.unicorn(), PrintOptions(stamp=stamp))


def ink_share(data: bytes, index: int, rects) -> float:
    """The share of the given card areas of a page (mm rects) that is not
    paper white, rendered with pdfium at 50 dpi: what a printer spends toner on."""
    import pypdfium2 as pdfium

    image = pdfium.PdfDocument(data)[index].render(scale=50 / 72).to_pil().convert("L")
    px = 50 / 25.4
    inked = total = 0
    for r in rects:
        box = (round(r.x * px), round(image.height - r.top * px), round(r.right * px), round(image.height - r.y * px))
        counts = image.crop(box).histogram()  # pixels by grey level
        inked += sum(counts[:235])
        total += sum(counts)
    return inked / total


def test_low_ink_prints_white_cards_and_plain_backs():
    # issue 42: --low-ink still printed full colour bands and hatched backs
    full = render_game(bundles.unicorn(), PrintOptions())
    low = render_game(bundles.unicorn(), PrintOptions(low_ink=True))
    for rendered, front_most, back_most in ((full, 1.0, 1.0), (low, 0.12, 0.12)):
        placements = rendered.placements["cards.pdf"]
        fronts = [p.rect for p in placements if p.page == 0]
        backs = [p.rect for p in placements if p.page == 1]
        data = rendered.files["cards.pdf"]
        front, back = ink_share(data, 0, fronts), ink_share(data, 1, backs)
        assert front <= front_most and back <= back_most, (front, back)
        if rendered is full:
            assert front > 0.3 and back > 0.9, (front, back)


def test_fonts_are_embedded_truetype_subsets(unicorn_default):
    data = unicorn_default.files["cards.pdf"]
    assert b"/FontFile2" in data
    fonts = set()
    for page in pdf(data).pages[:2]:
        for font in page["/Resources"]["/Font"].values():
            fonts.add(str(font.get_object()["/BaseFont"]))
    assert fonts and all("+" in name for name in fonts)  # SUBSET+Family: subset, not the whole face


def test_over_long_text_is_an_error_naming_card_and_box():
    bundle = bundles.unicorn()
    bundle["cards"][0]["text"] = "Far too much text for one card. " * 60
    with pytest.raises(TextFitError, match=r"card cto \(CTO\), box text"):
        render_game(bundle, PrintOptions())
    bundle = bundles.unicorn()
    bundle["cards"][0]["name"] = "An Extraordinarily Long Employee Name That Never Fits"
    with pytest.raises(TextFitError, match="box name"):
        render_game(bundle, PrintOptions())


def test_text_shrinks_before_it_fails():
    bundle = bundles.unicorn()
    bundle["cards"][0]["text"] = "A long rule that needs a smaller size to fit in the box. " * 9
    rendered = render_game(bundle, PrintOptions(cards=("cto",)))
    sizes = set()
    pdf(rendered.files["errata.pdf"]).pages[0].extract_text(
        visitor_text=lambda t, cm, tm, font, size: sizes.add(round(size * tm[0], 2)) if "smaller" in t else None)
    assert sizes and max(sizes) < 10 and min(sizes) >= 6


def test_a_missing_glyph_is_an_error_not_a_box():
    bundle = bundles.unicorn()
    bundle["cards"][1]["flavour"] = "Ten years from a product \U0001F984"
    with pytest.raises(GlyphError, match=r"chief_scientist.*box flavour.*U\+1F984"):
        render_game(bundle, PrintOptions())
    fonts = load_fonts()
    for char in "$×–—→←•":
        fonts.check(char, "regular", "the glyphs the games use")


def test_inline_icons_replace_their_token():
    bundle = bundles.startup()
    bundle["layout"]["icons"]["money"] = {"label": "$", "colour": "#2e7d32"}
    bundle["cards"][2]["text"] = "Gain 2 :money: now."
    rendered = render_game(bundle, PrintOptions(cards=("backend_dev",)))
    text = pdf(rendered.files["errata.pdf"]).pages[0].extract_text()
    assert ":money:" not in text and "Gain 2" in text and "now." in text


def test_corner_shows_the_value_and_is_left_off_without_it():
    rendered = render_game(bundles.unicorn(), PrintOptions(cards=("cto", "reference")))
    reader = pdf(rendered.files["errata.pdf"])
    by_card = {p.card_id: p.page for p in rendered.placements["errata.pdf"] if p.side == "front"}
    corner = re.compile(r"^\$\d+M$")
    cto_page = [t for t, x, y in text_runs(reader.pages[by_card["cto"]])]
    ref = next(p.rect for p in rendered.placements["errata.pdf"] if p.side == "front" and p.card_id == "reference")
    reference_page = [t for t, x, y in text_runs(reader.pages[by_card["reference"]])
                      if ref.x < x < ref.right and ref.y < y < ref.top]
    assert cto_page.count("$100M") == 3  # three copies, the reference on the same sheet shows none
    assert "Reference" in reference_page and not any(corner.match(t) for t in reference_page)


# ---------------------------------------------------------------- selections


def test_errata_prints_only_the_chosen_cards():
    rendered = render_game(bundles.unicorn(), PrintOptions(cards=("poach",)))
    assert set(rendered.files) == {"errata.pdf"}
    fronts = [p for p in rendered.placements["errata.pdf"] if p.side == "front"]
    assert [p.card_id for p in fronts] == ["poach"] * 5
    with pytest.raises(RenderError, match="no card `poahc`.*poach"):
        render_game(bundles.unicorn(), PrintOptions(cards=("poahc",)))


def test_proof_has_one_face_per_definition():
    bundle = bundles.unicorn()
    rendered = render_game(bundle, PrintOptions(proof=True))
    assert set(rendered.files) == {"proof.pdf"}
    reader = pdf(rendered.files["proof.pdf"])
    assert len(reader.pages) == math.ceil(len(bundle["cards"]) / 9)
    text = squash("".join(page.extract_text() for page in reader.pages))
    for card in bundle["cards"]:
        assert squash(card["name"]) in text and f"{card['id']}·×{card['count']}" in text


# ---------------------------------------------------------------- components


def test_ipo_components_tiles_board_trackers():
    bundle = bundles.ipo()
    rendered = render_game(bundle, PrintOptions(paper="letter"))
    assert {"cards.pdf", "components.pdf", "guide.pdf"} <= set(rendered.files)
    tiles = [p for p in rendered.placements["components.pdf"] if p.card_id.startswith("tile_")]
    assert len(tiles) == 108 and all(p.rect.w == pytest.approx(19) for p in tiles)
    text = squash("".join(p.extract_text() for p in pdf(rendered.files["components.pdf"]).pages))
    assert "IPO:board" in text and "Sharesleftinthebank" in text and "Foundertracks" in text
    assert "25" in text and "L9" in text


@pytest.mark.parametrize("paper", ["a4", "letter", "common"])
def test_board_fits_one_page_at_21mm_and_splits_when_larger(paper):
    assert len(plan_board(12, 9, 21, PAPERS[paper])) == 1
    pieces = plan_board(12, 9, 30, PAPERS[paper])
    assert len(pieces) > 1
    covered = Counter((c, r) for p in pieces for c in p.columns for r in p.rows)
    assert len(covered) == 108 and set(covered.values()) == {1}


def test_split_board_pages_carry_join_notes():
    bundle = bundles.ipo()
    bundle["layout"]["board"] = {"cell": 30}
    rendered = render_game(bundle, PrintOptions())
    text = "".join(p.extract_text() for p in pdf(rendered.files["components.pdf"]).pages)
    assert "part 2 of" in text and "join part" in text


def test_tracker_with_an_unknown_param_is_an_error():
    bundle = bundles.ipo()
    del bundle["params"]["track_spaces"]
    with pytest.raises(RenderError, match="tracker founder: spaces `track_spaces`"):
        render_game(bundle, PrintOptions())


@pytest.mark.parametrize("flip", ["long-edge", "short-edge"])
def test_the_calibration_reading_cancels_the_printer_shift(flip):
    grid = plan_grid(PAPERS["a4"], 63, 88)
    cx, cy = grid.page_w / 2, grid.page_h / 2
    for current in [(0.0, 0.0), (1.0, -2.0)]:
        for shift in [(2.0, -1.5), (-3.0, 0.5)]:
            # The back's centre lines, drawn with the current offset, printed shifted...
            drawn = back_rect(grid, Rect(cx, cy, 0, 0), flip, current)
            printed = Rect(drawn.x + shift[0], drawn.y + shift[1], 0, 0)
            seen = back_rect(grid, printed, flip)  # ...show through the front here (the flip is its own inverse)
            reading = (offset_label(grid, flip, current, seen.x - cx, 0),
                       offset_label(grid, flip, current, seen.y - cy, 1))
            # Printing with the reading puts the lines at the centre.
            fixed = back_rect(grid, Rect(cx, cy, 0, 0), flip, reading)
            landed = back_rect(grid, Rect(fixed.x + shift[0], fixed.y + shift[1], 0, 0), flip)
            assert (landed.x, landed.y) == pytest.approx((cx, cy))


def test_guide_has_calibration_pages_with_the_offset():
    rendered = render_game(bundles.unicorn(), PrintOptions(offset=(0.5, -1)))
    reader = pdf(rendered.files["guide.pdf"])
    text = "".join(p.extract_text() for p in reader.pages)
    assert "Calibration: front" in text and "Calibration: back" in text and "0.5,-1" in text
    assert "Draw pile" in text and "Startup cards" in text


# ---------------------------------------------------------------- files


def test_print_game_writes_files_and_a_failure_leaves_old_files_untouched(tmp_path):
    paths = print_game(bundles.unicorn(), tmp_path, PrintOptions())
    assert {p.name for p in paths} == {"cards.pdf", "guide.pdf"}
    before = (tmp_path / "cards.pdf").read_bytes()
    assert before.startswith(b"%PDF") and before.rstrip().endswith(b"%%EOF")
    bundle = bundles.unicorn()
    bundle["cards"][-1]["text"] = "x" * 5000
    with pytest.raises(RenderError):
        print_game(bundle, tmp_path, PrintOptions())
    assert (tmp_path / "cards.pdf").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cards.pdf", "guide.pdf"]


def test_write_atomic_never_leaves_a_partial_file(tmp_path):
    target = tmp_path / "out.bin"
    write_atomic(target, b"old")

    def half_then_fail(path):
        path.write_bytes(b"half")
        raise OSError("disk full")

    with pytest.raises(OSError):
        write_atomic(target, half_then_fail)
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["out.bin"]
    write_atomic(target, "new")
    assert target.read_text() == "new"


def test_rendering_is_deterministic():
    a = render_game(bundles.startup(), PrintOptions())
    b = render_game(bundles.startup(), PrintOptions())
    assert a.files == b.files


# ---------------------------------------------------------------- cli


def test_cli_arguments_and_run(tmp_path, capsys):
    assert parse_bleed("3") == 3 and parse_bleed("1/8in") == pytest.approx(3.175)
    assert parse_bleed("1/8") == pytest.approx(3.175) and parse_bleed("0") == 0
    assert parse_offset("0.5,-1") == (0.5, -1)
    with pytest.raises(argparse.ArgumentTypeError):
        parse_offset("1")
    for wild in ("1e9,0", "nan,0", "0,-inf", "25,0"):  # issue 11: a clear error, not a shifted PDF
        with pytest.raises(argparse.ArgumentTypeError, match="between -20 and 20 mm"):
            parse_offset(wild)
    with pytest.raises(RenderError, match="--offset"):
        render_game(bundles.startup(), PrintOptions(offset=(1e9, 0)))
    parser = argparse.ArgumentParser()
    add_print_arguments(parser)
    args = parser.parse_args(["startup", "--paper", "letter", "--bleed", "1/8in", "--fit", "bleed",
                              "--backs", "short-edge", "--offset", "1,0", "--out", str(tmp_path)])
    assert run_print(args, bundles.startup()) == 0
    assert (tmp_path / "cards.pdf").exists()
    bad = parser.parse_args(["startup", "--cards", "nobody", "--out", str(tmp_path)])
    from cardc.project import UsageError       # a usage error: the command line exits 2
    with pytest.raises(UsageError, match="no card `nobody`"):
        run_print(bad, bundles.startup())


# ---------------------------------------------------------------- tts


def test_tts_export_sheets_backs_and_web_images(tmp_path):
    bundle = bundles.ipo()
    paths = export_tts(bundle, tmp_path)
    manifest = json.loads((tmp_path / "tts" / "manifest.json").read_text())
    assert manifest["sheets"]
    for sheet in manifest["sheets"]:
        image = Image.open(tmp_path / "tts" / sheet["face"])
        assert image.mode == "RGB" and max(image.size) <= MAX_PX
        assert sheet["columns"] <= MAX_COLS and sheet["rows"] <= MAX_ROWS
        assert len(sheet["cards"]) < sheet["columns"] * sheet["rows"]
        back = Image.open(tmp_path / "tts" / sheet["back"])
        w, h = back.size
        hidden = image.crop((image.width - w, image.height - h, image.width, image.height))
        assert hidden.tobytes() == back.tobytes()  # bottom-right slot is the hidden card
    counted = Counter()
    for sheet in manifest["sheets"]:
        for entry in sheet["cards"]:
            counted[entry["id"]] += entry["count"]
    aids = {i: n for i, n in counted.items() if i.startswith("aid_")}
    assert aids and all(n == bundle["players"]["max"] for n in aids.values())
    layout = load_layout(bundle)
    kinds = {c["id"]: c["kind"] for c in bundle["cards"]}
    pieces = Counter(i["card"] for i in bundle["instances"] if layout.deck_of(kinds[i["card"]]).style == "tile")
    assert pieces  # ipo's tiles and land options: pieces, not cards on a sheet
    assert counted - Counter(aids) == Counter(i["card"] for i in bundle["instances"]) - pieces
    web = {p.stem for p in (tmp_path / "web").iterdir()}
    assert web == {c["id"] for c in bundle["cards"]} | set(aids)
    assert all(p.exists() for p in paths)


@pytest.mark.parametrize("game", list(GAMES))
def test_the_real_bundle_prints_when_it_has_been_built(game, tmp_path):
    """Once generated/<game>.json is committed, the real content must print too."""
    path = REPO / "generated" / f"{game}.json"
    if not path.exists():
        pytest.skip(f"{path.name} not built yet")
    bundle = json.loads(path.read_text())
    names = {p.name for p in print_game(bundle, tmp_path, PrintOptions())}
    assert {"cards.pdf", "guide.pdf"} <= names
    reader = pdf((tmp_path / "cards.pdf").read_bytes())
    text = squash("".join(page.extract_text() for page in reader.pages))
    for card in bundle["cards"]:
        if layout_style(bundle, card["kind"]) == "card":
            assert squash(card["name"]) in text, card["id"]


def layout_style(bundle: dict, kind: str) -> str:
    return load_layout(bundle).deck_of(kind).style


# ---------------------------------------------------------------- frames: contrast, one size per deck


def real_bundle(game):
    path = REPO / "generated" / f"{game}.json"
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("game", ["unicorn", "startup", "ipo"])
def test_every_text_colour_reaches_4_5_to_1_on_its_background(game):
    from cardc.render.cards import INK, MUTED, PANEL, contrast_ratio
    from cardc.render.pipeline import build_faces

    bundle = real_bundle(game)
    layout = load_layout(bundle)
    notes: list[str] = []
    faces = build_faces(bundle, layout, notes)
    assert not notes, notes  # the shipped colours are right as written, not patched at print time
    for face in faces.values():
        if face.deck.style == "tile":
            continue
        ratio = contrast_ratio(face.colour, face.deck.title_ink)
        assert ratio >= 4.5, (face.card_id, face.colour, face.deck.title_ink, round(ratio, 2))
    inks = {face.deck.title_ink for face in faces.values() if face.deck.style != "tile"}
    assert len(inks) == 1  # one title ink for the game
    for ink, background in ((INK, PANEL), (MUTED, PANEL), (INK, "#ffffff")):
        assert contrast_ratio(ink, background) >= 4.5
    for deck in layout.decks:
        from cardc.render.cards import back_ink
        assert contrast_ratio(back_ink(deck), deck.back.colour) >= 4.5, deck.id


def test_a_colour_too_light_for_white_titles_is_darkened_and_reported():
    bundle = bundles.unicorn()
    bundle["layout"].pop("colours", None)
    rendered = render_game(bundle, PrintOptions(cards=("series_a",)))
    assert any("funding" in note and "4.5:1" in note for note in rendered.notes), rendered.notes


@pytest.mark.parametrize("game", ["unicorn", "startup", "ipo"])
def test_one_title_and_badge_size_per_deck(game):
    from cardc.render.cards import prepare_all
    from cardc.render.pipeline import build_faces

    bundle = real_bundle(game)
    layout = load_layout(bundle)
    prepared = prepare_all(build_faces(bundle, layout), layout, load_fonts(), bundle["params"])
    for box in ("name", "corner", "type"):
        sizes: dict[str, set] = {}
        for card in prepared.values():
            if box in card.fitted:
                sizes.setdefault(card.face.deck.id, set()).add(card.fitted[box].size)
        assert all(len(v) == 1 for v in sizes.values()), (box, sizes)


def test_a_title_without_a_badge_takes_the_badge_width():
    from cardc.render.cards import prepare_all
    from cardc.render.pipeline import build_faces

    bundle = real_bundle("unicorn")
    layout = load_layout(bundle)
    prepared = prepare_all(build_faces(bundle, layout), layout, load_fonts(), bundle["params"])
    assert prepared["reference"].boxes["name"].w > prepared["poach"].boxes["name"].w + 10


# ---------------------------------------------------------------- Tabletop Simulator saved object


def tts_cards(objects):
    """Every physical card in a saved object's decks (and loose cards)."""
    for obj in objects:
        if obj["Name"] == "Deck":
            yield from obj["ContainedObjects"]
        elif obj["Name"] == "Card":
            yield obj


@pytest.fixture(scope="module")
def unicorn_tts(tmp_path_factory):
    out = tmp_path_factory.mktemp("tts")
    export_tts(real_bundle("unicorn"), out)
    return out, json.loads((out / "tts" / "unicorn.json").read_text())


def test_tts_saved_object_holds_every_physical_card_of_unicorn(unicorn_tts):
    out, saved = unicorn_tts
    bundle = real_bundle("unicorn")
    objects = saved["ObjectStates"]
    aids = [o for o in objects if o.get("Nickname") == "Player aids"]
    assert len(aids) == 1 and len(aids[0]["ContainedObjects"]) == 5  # printed aids, one per seat
    cards = [c for c in tts_cards(o for o in objects if o not in aids)]
    assert len(cards) == 118 == len(bundle["instances"])
    names = {c["id"]: c["name"] for c in bundle["cards"]}
    assert Counter(c["Nickname"] for c in cards) == Counter(names[i["card"]] for i in bundle["instances"])
    decks = [o for o in objects if o["Name"] == "Deck"]
    assert sorted(len(d["ContainedObjects"]) for d in decks) == [5, 5, 15, 98]  # one TTS deck per physical deck
    for deck in decks:
        assert deck["DeckIDs"] == [c["CardID"] for c in deck["ContainedObjects"]]
        for card in deck["ContainedObjects"]:
            key = str(card["CardID"] // 100)
            custom = deck["CustomDeck"][key]
            assert card["CustomDeck"][key] == custom
            assert card["CardID"] % 100 < custom["NumWidth"] * custom["NumHeight"] - 1  # never the hidden slot
            for field in ("FaceURL", "BackURL"):
                path = Path(custom[field].removeprefix("file://"))
                assert path.exists(), custom[field]
            assert custom["BackIsHidden"] is True


def test_tts_card_ids_point_at_the_right_face(unicorn_tts):
    out, saved = unicorn_tts
    manifest = json.loads((out / "tts" / "manifest.json").read_text())
    by_face = {s["face"]: [c["id"] for c in s["cards"]] for s in manifest["sheets"]}
    names = {c["id"]: c["name"] for c in real_bundle("unicorn")["cards"]}
    for deck in (o for o in saved["ObjectStates"] if o["Name"] == "Deck" and o["Nickname"] != "Player aids"):
        for card in deck["ContainedObjects"]:
            custom = deck["CustomDeck"][str(card["CardID"] // 100)]
            face = Path(custom["FaceURL"]).name
            assert names[by_face[face][card["CardID"] % 100]] == card["Nickname"]


def small_ipo():
    """ipo with four of its tiles, so a high-resolution export stays quick."""
    bundle = bundles.ipo()
    keep = {c["id"] for c in bundle["cards"] if c["kind"] != "tile"} | {
        c["id"] for c in [c for c in bundle["cards"] if c["kind"] == "tile"][:4]}
    bundle["cards"] = [c for c in bundle["cards"] if c["id"] in keep]
    bundle["instances"] = [i for i in bundle["instances"] if i["card"] in keep]
    return bundle


def test_tts_exports_the_ipo_board_and_trackers_and_a_higher_resolution(tmp_path):
    export_tts(small_ipo(), tmp_path, card_px=700, url_base="https://example.invalid/ipo")
    saved = json.loads((tmp_path / "tts" / "ipo.json").read_text())
    tiles = [o for o in saved["ObjectStates"] if o["Name"] == "Custom_Tile"]
    assert any("Board" in o["Nickname"] for o in tiles) and any("Tracker" in o["Nickname"] for o in tiles)
    assert all(o["CustomImage"]["ImageURL"].startswith("https://example.invalid/ipo/") for o in tiles)
    aid_cards = sum(len(o["ContainedObjects"]) for o in saved["ObjectStates"] if o.get("Nickname") == "Player aids")
    in_bags = sum(len(o["ContainedObjects"]) for o in saved["ObjectStates"]
                  if o["Name"] == "Bag" and o["Nickname"] in ("Property tiles", "Land option markers"))
    assert len(list(tts_cards(saved["ObjectStates"]))) + in_bags == len(small_ipo()["instances"]) + aid_cards
    for bag in (o for o in saved["ObjectStates"] if o["Name"] == "Bag"):
        assert all(t["CustomImage"]["ImageURL"].startswith("https://example.invalid/ipo/")
                   for t in bag["ContainedObjects"])
    manifest = json.loads((tmp_path / "tts" / "manifest.json").read_text())
    company = next(s for s in manifest["sheets"] if s["deck"] == "companies")
    image = Image.open(tmp_path / "tts" / company["face"])
    assert image.width == 700 * company["columns"] and max(image.size) <= MAX_PX
    with pytest.raises(RenderError, match="--card-px"):
        export_tts(small_ipo(), tmp_path, card_px=5000)


def test_tts_tiles_markers_and_money_are_pieces_in_bags_not_stretched_cards(tmp_path):
    # issue 42: ipo's square tiles and markers were exported as cards, and
    # money, company markers and player tokens were missing
    bundle = small_ipo()
    export_tts(bundle, tmp_path)
    saved = json.loads((tmp_path / "tts" / "ipo.json").read_text())
    bags = {o["Nickname"]: o["ContainedObjects"] for o in saved["ObjectStates"] if o["Name"] == "Bag"}
    layout = load_layout(bundle)
    wanted = Counter()
    for sheet in layout.tokens:
        faces = sheet.faces or [None]
        copies = sum(f.count for f in sheet.faces) if sheet.faces else sheet.count * sum(
            1 for c in bundle["cards"] if c["kind"] == sheet.kind)
        wanted[sheet.title] = copies * (bundle["players"]["max"] if sheet.per_player else 1)
    assert {title: len(bags[title]) for title in wanted} == dict(wanted)
    assert Counter(t["Nickname"] for t in bags["Money"]) == {f.label: f.count for f in layout.tokens[1].faces}
    assert len(bags["Property tiles"]) == 4
    for title, pieces in bags.items():
        for piece in pieces:
            assert piece["Name"] == "Custom_Tile" and piece["CustomImage"]["CustomTile"]["Stretch"] is False
            image = Image.open(piece["CustomImage"]["ImageURL"].removeprefix("file://"))
            deck = next(d for d in [*layout.decks, *layout.extra_decks.values()] if d.title == title)
            assert image.width / image.height == pytest.approx(deck.width / deck.height, rel=0.02)  # its own shape


def test_tts_descriptions_are_bbcode_not_markdown(tmp_path):
    export_tts(small_ipo(), tmp_path)
    saved = json.loads((tmp_path / "tts" / "ipo.json").read_text())
    aid = next(o for o in saved["ObjectStates"] if o.get("Nickname") == "Player aids")["ContainedObjects"][0]
    assert "[b]" in aid["Description"] and "**" not in aid["Description"]
    from cardc.render.text import to_bbcode
    icons = load_layout(bundles.unicorn()).icons
    assert to_bbcode("**Your turn** gain :value: now\n**open", icons) == "[b]Your turn[/b] gain value now\n[b]open[/b]"
    assert to_bbcode("a [url=x]b[/url]", {}) == "a (url=x)b(/url)"
