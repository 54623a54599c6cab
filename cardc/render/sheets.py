"""Imposition: where cards sit on a sheet, front and back.

Cards print at real size in a centred grid (3 x 3 poker cards on A4, Letter
or their common area) at least 1/4 in from every page edge, where home
printers cannot print. Crop marks extend the cut lines into the margin only,
starting past the bleed, so a cut never shows a mark, and ending 5 mm short
of the paper edge, where desktop printers do not print: the grid keeps room
for a mark of at least MIN_MARK between the bleed and that 5 mm, so a bleed
costs margin, and sometimes cards a sheet (see fit_grid).

Duplex: the back of the card in slot (row, col) must land behind its front
once the sheet is turned over. Turning a portrait sheet on its long edge
mirrors it left-right (columns reverse); on its short edge, top-bottom (rows
reverse). `--offset` then shifts every back-page drawing to compensate for
a printer whose second side lands off, in the back page's own coordinates;
the calibration page measures that shift.

All geometry here is millimetres with the origin at the page's bottom-left,
as in PDF; drawing converts to points.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reportlab.lib.colors import HexColor, black
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from .cards import Prepared, PreparedBack, Sides, draw_back, draw_front
from .errors import RenderError
from .fonts import Fonts

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4), "common": (210.0, 279.4)}
MARGIN = 6.35  # 1/4 in: nothing of a card closer to the page edge
MARK_GAP = 1.0  # between the bleed edge and the start of a crop mark
MARK_LENGTH = 5.0
MARK_SAFE = 5.0  # no crop mark closer than this to the paper edge (desktop printers leave it blank)
MARK_END = MARK_SAFE + 0.25  # where a mark's line stops, so its ink (line width, cap) stays inside MARK_SAFE
MIN_MARK = 1.5  # the shortest crop mark the grid leaves room for
EPS = 1e-6


@dataclass(frozen=True)
class Rect:
    """mm, bottom-left origin."""

    x: float
    y: float
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def top(self) -> float:
        return self.y + self.h

    def points(self) -> list[float]:
        """[x0, y0, x1, y1] in points, as PDF page boxes want."""
        return [self.x * mm, self.y * mm, self.right * mm, self.top * mm]

    def grown(self, d: float) -> Rect:
        return Rect(self.x - d, self.y - d, self.w + 2 * d, self.h + 2 * d)


@dataclass(frozen=True)
class Grid:
    """The card slots of one sheet, in reading order (top row first).

    `bleed` is how far every card's background runs past its own trim on all
    four sides; the gutter between neighbours is at least twice that, so no
    card's bleed ever reaches another card."""

    page_w: float
    page_h: float
    cols: int
    rows: int
    gap: float
    slots: tuple[Rect, ...]
    bbox: Rect  # the trim of the whole grid
    bleed: float = 0.0

    @property
    def per_page(self) -> int:
        return len(self.slots)


@dataclass(frozen=True)
class Placement:
    """Where one card went: for tests, the TTS exporter and the cutting guide."""

    page: int  # 0-based index in its PDF
    rect: Rect
    card_id: str
    side: str  # "front" or "back"


def _count(room: float, size: float, gap: float) -> int:
    return int((room + gap + EPS) // (size + gap))


def edge_room(bleed: float) -> float:
    """The least distance from a trim line to the paper edge: the 1/4 in
    margin, or the bleed, the gap before a crop mark, the shortest mark and
    the 5 mm desktop printers leave blank, whichever is more."""
    return max(MARGIN, bleed + MARK_GAP + MIN_MARK + MARK_SAFE)


def plan_grid(paper: tuple[float, float], card_w: float, card_h: float, gap: float = 0.0,
              bleed: float = 0.0, cols: int | None = None, rows: int | None = None) -> Grid:
    """As many cards as fit (or `cols` x `rows`) with every trim at least
    edge_room(bleed) from the paper edge, centred; a bleed widens the gutters
    to twice the bleed, so no card's bleed reaches its neighbour."""
    page_w, page_h = paper
    gap = max(gap, 2 * bleed)
    edge = edge_room(bleed)
    fit_cols = _count(page_w - 2 * edge, card_w, gap)
    fit_rows = _count(page_h - 2 * edge, card_h, gap)
    cols = fit_cols if cols is None else min(cols, fit_cols)
    rows = fit_rows if rows is None else min(rows, fit_rows)
    if cols < 1 or rows < 1:
        raise RenderError(f"a {card_w:g} x {card_h:g} mm card does not fit on a {page_w:g} x {page_h:g} mm page")
    grid_w = cols * card_w + (cols - 1) * gap
    grid_h = rows * card_h + (rows - 1) * gap
    x0, y0 = (page_w - grid_w) / 2, (page_h - grid_h) / 2
    slots = tuple(
        Rect(x0 + c * (card_w + gap), y0 + grid_h - (r + 1) * card_h - r * gap, card_w, card_h)
        for r in range(rows) for c in range(cols)
    )
    return Grid(page_w, page_h, cols, rows, gap, slots, Rect(x0, y0, grid_w, grid_h), bleed)


def largest_bleed(paper: tuple[float, float], card_w: float, card_h: float, gap: float, per_page: int,
                  below: float) -> float:
    """The largest bleed under `below`, in steps of 0.25 mm, that still puts
    `per_page` cards on a sheet (0 when none does)."""
    step = math.floor(below * 4 - EPS)
    while step > 0 and plan_grid(paper, card_w, card_h, gap, step / 4).per_page < per_page:
        step -= 1
    return max(step, 0) / 4


FITS = ("cards", "bleed")


@dataclass(frozen=True)
class Fit:
    """The grid a deck prints on, and what had to give to get there."""

    grid: Grid
    note: str | None = None


def fit_grid(paper_name: str, card_w: float, card_h: float, gap: float, bleed: float,
             keep: str | None = None) -> Fit:
    """The sheet for `bleed`. When the full bleed costs cards a sheet, a
    printer must choose: keep="bleed" keeps the bleed with fewer cards a
    sheet, keep="cards" keeps the count with the largest bleed that fits,
    and no choice (None) is an error that offers both, so a bleed is never
    quietly smaller than asked."""
    paper = PAPERS[paper_name]
    full = plan_grid(paper, card_w, card_h, gap)
    if bleed <= 0:
        return Fit(full)
    wanted = plan_grid(paper, card_w, card_h, gap, bleed)
    if wanted.per_page >= full.per_page:
        return Fit(wanted)
    fitting = largest_bleed(paper, card_w, card_h, gap, full.per_page, bleed)
    size = f"{card_w:g} x {card_h:g} mm"
    with_fitting = f"with a {fitting:g} mm bleed" if fitting else "with no bleed"
    if keep == "bleed":
        return Fit(wanted, f"a {bleed:g} mm bleed fits {wanted.cols} x {wanted.rows} cards of {size} on {paper_name}, "
                           f"not {full.cols} x {full.rows}; printing {wanted.cols} x {wanted.rows} a sheet "
                           f"(--fit cards keeps {full.cols} x {full.rows} {with_fitting})")
    if keep == "cards":
        grid = plan_grid(paper, card_w, card_h, gap, fitting)
        return Fit(grid, f"a {bleed:g} mm bleed does not fit {full.cols} x {full.rows} cards of {size} on "
                         f"{paper_name}; printing {with_fitting}, as --fit cards asks "
                         f"(--fit bleed keeps {bleed:g} mm with {wanted.cols} x {wanted.rows} a sheet)")
    raise RenderError(
        f"--bleed {bleed:g}: a {bleed:g} mm bleed leaves room for {wanted.cols} x {wanted.rows} cards of {size} "
        f"on {paper_name}, not {full.cols} x {full.rows} (the gutters take twice the bleed and crop marks stay "
        f"{MARK_SAFE:g} mm inside the paper); pass --fit bleed to print {wanted.cols} x {wanted.rows} a sheet "
        f"with the full bleed, or --fit cards to keep {full.cols} x {full.rows} {with_fitting}")


def back_rect(grid: Grid, front: Rect, flip: str, offset: tuple[float, float] = (0.0, 0.0)) -> Rect:
    """Where the back of the card at `front` goes on the back page.

    long-edge: mirrored left-right; short-edge: mirrored top-bottom. The
    offset is then added (mm, in back-page coordinates)."""
    x, y = front.x, front.y
    if flip == "short-edge":
        y = grid.page_h - front.y - front.h
    else:  # long-edge, and separate sheets fed back through the printer the same way
        x = grid.page_w - front.x - front.w
    return Rect(x + offset[0], y + offset[1], front.w, front.h)


def front_of_back(grid: Grid, back: Rect, flip: str, offset: tuple[float, float] = (0.0, 0.0)) -> Rect:
    """The inverse of back_rect: the front position a back page's rect lands behind."""
    unshifted = Rect(back.x - offset[0], back.y - offset[1], back.w, back.h)
    return back_rect(grid, unshifted, flip)


def bleed_sides(bleed: float) -> Sides:
    """Every card runs its background `bleed` past its trim on all four sides."""
    return Sides(bleed, bleed, bleed, bleed)


def start_page(canvas: Canvas, size: tuple[float, float], trim: Rect | None = None, bleed: float = 0.0) -> None:
    """Set the size and PDF page boxes of the page about to be drawn.

    TrimBox is the finished area (the grid of cards), BleedBox the trim
    plus the bleed, clipped to the page."""
    canvas.setPageSize((size[0] * mm, size[1] * mm))
    if trim is None:
        canvas.setTrimBox(None)
        canvas.setBleedBox(None)
        return
    grown = trim.grown(bleed)
    x0, y0 = max(grown.x, 0.0), max(grown.y, 0.0)
    x1, y1 = min(grown.right, size[0]), min(grown.top, size[1])
    canvas.setTrimBox(trim.points())
    canvas.setBleedBox(Rect(x0, y0, x1 - x0, y1 - y0).points())


def draw_crop_marks(canvas: Canvas, grid: Grid, bleed: float, used: Sequence[Rect] | None = None) -> None:
    """Short lines continuing every cut line of the cards on the sheet
    (`used`, default every slot), in the margin outside the bleed and at
    least MARK_SAFE from the paper edge."""
    slots = list(used if used is not None else grid.slots)
    if not slots:
        return
    box = Rect(min(s.x for s in slots), min(s.y for s in slots), 0, 0)
    box = Rect(box.x, box.y, max(s.right for s in slots) - box.x, max(s.top for s in slots) - box.y)
    xs = sorted({round(v, 4) for s in slots for v in (s.x, s.right)})
    ys = sorted({round(v, 4) for s in slots for v in (s.y, s.top)})
    canvas.setStrokeColor(black)
    canvas.setLineWidth(0.3)
    start = bleed + MARK_GAP

    def mark(inner: float, length: float, limit: float, fixed: float, vertical: bool) -> None:
        """From `inner` outwards (`length` signed), stopping at `limit`."""
        outer = max(inner + length, limit) if length < 0 else min(inner + length, limit)
        drawn = abs(outer - inner) if (outer - inner) * length > 0 else 0.0
        if drawn < 1.0:  # no room left for a visible mark
            return
        if vertical:
            canvas.line(fixed * mm, inner * mm, fixed * mm, outer * mm)
        else:
            canvas.line(inner * mm, fixed * mm, outer * mm, fixed * mm)

    for x in xs:
        mark(box.y - start, -MARK_LENGTH, MARK_END, x, True)
        mark(box.top + start, MARK_LENGTH, grid.page_h - MARK_END, x, True)
    for y in ys:
        mark(box.x - start, -MARK_LENGTH, MARK_END, y, False)
        mark(box.right + start, MARK_LENGTH, grid.page_w - MARK_END, y, False)


def impose(fronts: Canvas, backs: Canvas | None, cards: Sequence[Prepared],
           back: Callable[[Prepared], PreparedBack] | None,
           grid: Grid, fonts: Fonts, flip: str, offset: tuple[float, float]) -> list[Placement]:
    """Draw cards onto sheets: a front page per `grid.per_page` cards, each
    followed by its back page (duplex: `backs` is `fronts`), or matched by
    one in a separate PDF (`backs` is another canvas), or none. Cards of
    several decks of one size share sheets; `back` gives each card's back
    (its deck's, or its own)."""
    placements: list[Placement] = []
    bleed = grid.bleed
    sides = bleed_sides(bleed)
    for start in range(0, len(cards), grid.per_page):
        chunk = cards[start:start + grid.per_page]
        used = grid.slots[:len(chunk)]
        start_page(fronts, (grid.page_w, grid.page_h), grid.bbox, bleed)
        page = fronts.getPageNumber() - 1
        for card, rect in zip(chunk, used, strict=False):
            draw_front(fronts, card, fonts, rect.x * mm, rect.y * mm, sides)
            placements.append(Placement(page, rect, card.face.card_id, "front"))
        draw_crop_marks(fronts, grid, bleed, used)
        fronts.showPage()
        if backs is None or back is None:
            continue
        back_bbox = back_rect(grid, grid.bbox, flip, offset)
        start_page(backs, (grid.page_w, grid.page_h), back_bbox, bleed)
        page = backs.getPageNumber() - 1
        for card, rect in zip(chunk, used, strict=False):
            target = back_rect(grid, rect, flip, offset)
            draw_back(backs, back(card), fonts, target.x * mm, target.y * mm, sides)
            placements.append(Placement(page, target, card.face.card_id, "back"))
        backs.showPage()
    return placements


def draw_label(canvas: Canvas, fonts: Fonts, x: float, y: float, text: str, size: float = 9,
               face: str = "regular", colour: str = "#1f1f1f") -> None:
    """A line of page text at (x, y) mm; characters are checked against the font."""
    fonts.check(text, face, "page text")
    canvas.setFillColor(HexColor(colour))
    canvas.setFont(fonts.name(face), size)
    canvas.drawString(x * mm, y * mm, text)


def offset_label(grid: Grid, flip: str, offset: tuple[float, float], t: float, axis: int) -> float:
    """The --offset (X for axis 0, Y for axis 1) to read at the calibration
    tick t mm from the front's centre.

    The back's centre line is drawn at mirror(centre) + offset; a printer
    shift d moves it, and it shows through at centre + R(offset + d), where
    R is the mirror's sign along that axis. Seen at centre + t, the shift is
    d = R(t) - offset, and the offset that cancels it is offset - R(t)."""
    centre = (grid.page_w / 2, grid.page_h / 2)
    point = Rect(centre[0] + t, centre[1], 0, 0) if axis == 0 else Rect(centre[0], centre[1] + t, 0, 0)
    mirrored = back_rect(grid, point, flip)
    r_t = (mirrored.x if axis == 0 else mirrored.y) - centre[axis]
    return offset[axis] - r_t


def calibration_pages(canvas: Canvas, fonts: Fonts, paper: tuple[float, float], flip: str,
                      offset: tuple[float, float]) -> None:
    """A front page with two mm scales and a back page with two long lines.

    Printed duplex with the same settings as the cards, the back's vertical
    line should cross the front's horizontal scale at 0, and its horizontal
    line the vertical scale. Held against a light, the numbers where they
    cross are the --offset X,Y to pass: each label is computed through the
    same back_rect mapping the cards use, current offset included."""
    w, h = paper
    cx, cy = w / 2, h / 2
    grid = Grid(w, h, 1, 1, 0, (), Rect(0, 0, w, h))
    start_page(canvas, paper)
    draw_label(canvas, fonts, 20, h - 25, "Calibration: front", 16, "bold")
    lines = [
        f"Print this sheet double-sided, flipping on the {flip.replace('-', ' ')}, like the cards.",
        "Hold it against a light. Read the number where the back's vertical line crosses",
        "scale X and where its horizontal line crosses scale Y, and print the cards with",
        "cardc print GAME --offset X,Y (mm). At the right offset both lines cross 0.",
        f"This sheet was printed with --offset {offset[0]:g},{offset[1]:g}.",
    ]
    for i, line in enumerate(lines):
        draw_label(canvas, fonts, 20, h - 35 - 6 * i, line, 10)
    sx, sy = (cx, cy + 45), (cx - 45, cy)  # where scale X and scale Y sit
    canvas.setStrokeColor(black)
    canvas.setLineWidth(0.3)
    canvas.setFillColor(black)
    canvas.setFont(fonts.name("regular"), 7)
    for axis in (0, 1):
        base = offset_label(grid, flip, offset, 0, axis)
        slope = offset_label(grid, flip, offset, 1, axis) - base
        for value in range(-15, 16):  # one tick per whole-mm offset
            t = (value - base) / slope
            tick = 4.0 if value % 5 == 0 else 2.0
            text = f"{value:+d}" if value else "0"
            if axis == 0:
                canvas.line((sx[0] + t) * mm, sx[1] * mm, (sx[0] + t) * mm, (sx[1] + tick) * mm)
                if value % 5 == 0:
                    canvas.drawCentredString((sx[0] + t) * mm, (sx[1] - 3.5) * mm, text)
            else:
                canvas.line((sy[0] - tick) * mm, (sy[1] + t) * mm, sy[0] * mm, (sy[1] + t) * mm)
                if value % 5 == 0:
                    canvas.drawRightString((sy[0] - 5) * mm, (sy[1] + t - 0.8) * mm, text)
    canvas.line((sx[0] - 16 - abs(offset[0])) * mm, sx[1] * mm, (sx[0] + 16 + abs(offset[0])) * mm, sx[1] * mm)
    canvas.line(sy[0] * mm, (sy[1] - 16 - abs(offset[1])) * mm, sy[0] * mm, (sy[1] + 16 + abs(offset[1])) * mm)
    draw_label(canvas, fonts, sx[0] - 2, sx[1] + 7, "X", 10, "bold")
    draw_label(canvas, fonts, sy[0] - 12, sy[1] + 18, "Y", 10, "bold")
    canvas.showPage()
    start_page(canvas, paper)
    draw_label(canvas, fonts, 20, h - 25, "Calibration: back", 16, "bold")
    centre = back_rect(grid, Rect(cx, cy, 0, 0), flip, offset)
    canvas.setStrokeColor(HexColor("#c62828"))
    canvas.setLineWidth(0.5)
    canvas.line(centre.x * mm, (centre.y - 80) * mm, centre.x * mm, (centre.y + 80) * mm)
    canvas.line((centre.x - 80) * mm, centre.y * mm, (centre.x + 80) * mm, centre.y * mm)
    canvas.showPage()


def proof_pages(canvas: Canvas, cards: Sequence[Prepared], fonts: Fonts, paper: tuple[float, float],
                title: str, caption: Callable[[Prepared], str]) -> int:
    """A contact sheet, 3 x 3 faces a page with a caption under each, for
    reviewing text; returns the number of pages."""
    w, h = paper
    # A review sheet, not a cutting sheet: a 4 mm margin and a short header
    # leave room for 3 x 3 faces at full size, so no text is under 6 pt.
    margin, cols, rows, header, caption_h = 4.0, 3, 3, 8.0, 4.0
    cell_w = (w - 2 * margin) / cols
    cell_h = (h - 2 * margin - header) / rows
    pages = math.ceil(len(cards) / (cols * rows))
    for page in range(pages):
        start_page(canvas, paper)
        draw_label(canvas, fonts, margin, h - margin - 5, f"{title}: proof, page {page + 1} of {pages}", 10, "bold")
        for i, card in enumerate(cards[page * cols * rows:(page + 1) * cols * rows]):
            r, c = divmod(i, cols)
            deck = card.face.deck
            scale = min(1.0, (cell_w - 1) / deck.width, (cell_h - caption_h - 1) / deck.height)
            cw = deck.width * scale
            x = margin + c * cell_w + (cell_w - cw) / 2
            y = h - margin - header - (r + 1) * cell_h + caption_h
            canvas.saveState()
            canvas.translate(x * mm, y * mm)
            canvas.scale(scale, scale)
            draw_front(canvas, card, fonts, 0, 0)
            canvas.restoreState()
            canvas.setFont(fonts.name("regular"), 7)
            canvas.setFillColor(black)
            canvas.drawCentredString((x + cw / 2) * mm, (y - 3) * mm, caption(card))
        canvas.showPage()
    return pages
