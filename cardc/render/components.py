"""Components that are not cards: the board and the trackers.

Both are drawn from bundle data, never from game-specific code: the board
from `bundle["grid"]` (columns x rows of named cells, A1..L9), trackers from
the layout's `trackers` (rows from the cards of a kind or from the seats,
space counts from params). Tiles are cards of a `style: tile` deck and are
imposed like any other deck (see pipeline.py).

A board larger than the printable area is split at cell boundaries into
as few pieces as possible; each join carries alignment ticks that continue
the grid lines into the margin, labelled, so the pieces line up.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reportlab.lib.colors import HexColor
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from .cards import INK, tint
from .errors import RenderError
from .fonts import Fonts
from .layout import Board, Tracker
from .sheets import MARGIN, Rect, draw_label, start_page

HEADER = 12.0  # mm above a tracker for its title
TITLE = 7.0  # mm above the board for its title
JOIN_ROOM = 10.0  # mm beside a board join for its ticks and note
EPS = 1e-6
MIN_PT = 6.0  # nothing printed is smaller


@dataclass(frozen=True)
class BoardPiece:
    """One page of the board: a block of columns and rows."""

    landscape: bool
    columns: tuple[int, ...]  # column indexes
    rows: tuple[int, ...]  # row indexes
    gx: int  # position among the pieces, left to right
    gy: int  # and top to bottom
    nx: int
    ny: int

    @property
    def index(self) -> int:
        return self.gy * self.nx + self.gx

    @property
    def total(self) -> int:
        return self.nx * self.ny


def cell_names(grid: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """Column labels and row labels of the bundle's grid."""
    columns = list(grid["columns"])
    rows = grid["rows"]
    row_labels = [str(r) for r in range(1, rows + 1)] if isinstance(rows, int) else [str(r) for r in rows]
    return columns, row_labels


def _split(n: int, parts: int) -> list[range]:
    """n items into `parts` runs as even as possible."""
    size, extra = divmod(n, parts)
    runs, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        runs.append(range(start, end))
        start = end
    return runs


def plan_board(n_cols: int, n_rows: int, cell: float, paper: tuple[float, float]) -> list[BoardPiece]:
    """The fewest pages that hold the board at its real cell size: one page
    if it fits (either orientation), else pieces that leave room beside
    each join for its ticks and note."""
    for join_room in (0.0, JOIN_ROOM):
        options = []
        for landscape in (True, False):
            w, h = (paper[1], paper[0]) if landscape else paper
            fit_cols = int((w - 2 * MARGIN - 2 * join_room + EPS) // cell)
            fit_rows = int((h - 2 * MARGIN - TITLE - 2 * join_room + EPS) // cell)
            if fit_cols >= 1 and fit_rows >= 1:
                nx, ny = math.ceil(n_cols / fit_cols), math.ceil(n_rows / fit_rows)
                options.append((nx * ny, not landscape, landscape, nx, ny))
        if options and (min(options)[0] == 1 or join_room):
            _, _, landscape, nx, ny = min(options)
            return [BoardPiece(landscape, tuple(cols), tuple(rows), gx, gy, nx, ny)
                    for gy, rows in enumerate(_split(n_rows, ny))
                    for gx, cols in enumerate(_split(n_cols, nx))]
    raise RenderError(f"a board cell of {cell:g} mm does not fit on the page")


def board_pages(canvas: Canvas, fonts: Fonts, grid: Mapping[str, Any], board: Board,
                paper: tuple[float, float], title: str) -> list[Rect]:
    """Draw the board; returns each page's board area (mm) for tests."""
    columns, rows = cell_names(grid)
    pieces = plan_board(len(columns), len(rows), board.cell, paper)
    areas = []
    for piece in pieces:
        w, h = (paper[1], paper[0]) if piece.landscape else paper
        cell = board.cell
        bw, bh = len(piece.columns) * cell, len(piece.rows) * cell
        x0, y0 = (w - bw) / 2, (h - TITLE - bh) / 2
        area = Rect(x0, y0, bw, bh)
        start_page(canvas, (w, h), area)
        part = f", part {piece.index + 1} of {piece.total}" if piece.total > 1 else ""
        draw_label(canvas, fonts, x0, area.top + 2.5, f"{title}: board{part}", 11, "bold")
        canvas.setStrokeColor(HexColor(board.line_colour))
        canvas.setLineWidth(0.6)
        label_size = cell * 0.42
        for j, col in enumerate(piece.columns):
            for i, row in enumerate(piece.rows):
                x, y = x0 + j * cell, area.top - (i + 1) * cell
                canvas.setFillColor(HexColor(board.colour))
                canvas.rect(x * mm, y * mm, cell * mm, cell * mm, stroke=1, fill=1)
                name = f"{columns[col]}{rows[row]}"
                fonts.check(name, "bold", f"board cell {name}")
                canvas.setFillColor(HexColor(board.line_colour))
                canvas.setFont(fonts.name("bold"), label_size)
                canvas.drawCentredString((x + cell / 2) * mm, (y + cell / 2) * mm - label_size * 0.35, name)
        canvas.setLineWidth(1.5)
        canvas.rect(x0 * mm, y0 * mm, bw * mm, bh * mm, stroke=1, fill=0)
        _join_marks(canvas, fonts, piece, pieces, area, cell, columns, rows)
        canvas.showPage()
        areas.append(area)
    return areas


def _join_marks(canvas: Canvas, fonts: Fonts, piece: BoardPiece, pieces: Sequence[BoardPiece], area: Rect,
                cell: float, columns: list[str], rows: list[str]) -> None:
    """Ticks continuing the grid lines past every edge that joins another
    piece, and a note naming that piece, so pieces butt together exactly."""
    def neighbour(dc: int, dr: int) -> BoardPiece | None:
        gx, gy = piece.gx + dc, piece.gy + dr
        return pieces[gy * piece.nx + gx] if 0 <= gx < piece.nx and 0 <= gy < piece.ny else None

    canvas.setStrokeColor(HexColor(INK))
    canvas.setLineWidth(0.4)
    canvas.setFont(fonts.name("regular"), 6)
    canvas.setFillColor(HexColor(INK))
    for dc, edge_x in ((1, area.right), (-1, area.x)):
        other = neighbour(dc, 0)
        if other is None:
            continue
        for i in range(len(piece.rows) + 1):
            y = area.top - i * cell
            canvas.line(edge_x * mm, y * mm, (edge_x + dc * 5) * mm, y * mm)
        canvas.saveState()
        canvas.translate((edge_x + dc * 7) * mm, (area.y + area.h / 2) * mm)
        canvas.rotate(90 if dc > 0 else -90)
        column = columns[other.columns[0] if dc > 0 else other.columns[-1]]
        canvas.drawCentredString(0, 0, f"cut here; join part {other.index + 1} (column {column})")
        canvas.restoreState()
    for dr, edge_y in ((1, area.y), (-1, area.top)):
        other = neighbour(0, dr)
        if other is None:
            continue
        for j in range(len(piece.columns) + 1):
            x = area.x + j * cell
            canvas.line(x * mm, edge_y * mm, x * mm, (edge_y - dr * 5) * mm)
        canvas.drawCentredString((area.x + area.w / 2) * mm, (edge_y - dr * 8) * mm,
                                 f"cut here; join part {other.index + 1} "
                                 f"(row {rows[other.rows[0] if dr > 0 else other.rows[-1]]})")


@dataclass(frozen=True)
class TrackRow:
    label: str
    colour: str


SEAT_COLOURS = ("#c62828", "#1565c0", "#2e7d32", "#6a1b9a", "#e65100", "#37474f", "#00838f", "#ad1457")


def seat_colour(seat: int) -> str:
    """The colour of seat `seat` (1-based) on tokens and trackers."""
    return SEAT_COLOURS[(seat - 1) % len(SEAT_COLOURS)]


def tracker_rows(tracker: Tracker, bundle: Mapping[str, Any]) -> list[TrackRow]:
    """One row per card of the tracker's kind, per seat, per label, or a
    number of blank rows (sized to what a game uses, e.g. the companies in play)."""
    params = bundle.get("params") or {}
    if tracker.rows == "players":
        count = int((bundle.get("players") or {}).get("max", 1))
        return [TrackRow(f"Player {i}", seat_colour(i)) for i in range(1, count + 1)]
    if isinstance(tracker.rows, tuple):
        return [TrackRow(label, "#9e9e9e") for label in tracker.rows]
    if isinstance(tracker.rows, int) or (tracker.rows in params and isinstance(params[tracker.rows], int)):
        count = tracker.rows if isinstance(tracker.rows, int) else params[tracker.rows]
        return [TrackRow("", "#9e9e9e") for _ in range(min(int(count), 60))]
    kinds = bundle.get("kinds") or {}
    if tracker.rows not in kinds:
        raise RenderError(f"tracker {tracker.id}: rows `{tracker.rows}` is neither `players`, a kind nor a "
                          "param of the game")
    colour = kinds[tracker.rows].get("colour", "#9e9e9e")
    rows = [TrackRow(card["name"], card.get("fields", {}).get("colour") or colour)
            for card in bundle.get("cards", []) if card.get("kind") == tracker.rows]
    if not rows:
        raise RenderError(f"tracker {tracker.id}: the game has no cards of kind `{tracker.rows}`")
    return rows


def tracker_spaces(tracker: Tracker, params: Mapping[str, Any]) -> int:
    if isinstance(tracker.spaces, int):
        return tracker.spaces
    if tracker.spaces not in params:
        raise RenderError(f"tracker {tracker.id}: spaces `{tracker.spaces}` is not a param of the game")
    return int(params[tracker.spaces])


def tracker_pages(canvas: Canvas, fonts: Fonts, trackers: Sequence[Tracker], bundle: Mapping[str, Any],
                  paper: tuple[float, float], title: str) -> int:
    """The trackers one below another, as many to a page as fit (landscape
    when any is long): a name column, then numbered spaces. Returns pages."""
    if not trackers:
        return 0
    params = bundle.get("params") or {}
    landscape = any(tracker_spaces(t, params) > 14 for t in trackers)
    w, h = (paper[1], paper[0]) if landscape else paper
    name_w = 42.0
    pages = 0
    y = None  # the top of the free space on the current page, or None before the first page
    for tracker in trackers:
        rows = tracker_rows(tracker, bundle)
        spaces = tracker_spaces(tracker, params)
        space = min(14.0, (w - 2 * MARGIN - name_w) / spaces)
        row_h = max(7.0, min(space, 12.0))
        per_page = max(1, int((h - 2 * MARGIN - HEADER) // row_h))
        for first in range(0, len(rows), per_page):
            chunk = rows[first:first + per_page]
            needed = HEADER + len(chunk) * row_h
            if y is None or y - needed < MARGIN:
                if y is not None:
                    canvas.showPage()
                start_page(canvas, (w, h))
                pages += 1
                y = h - MARGIN
            draw_label(canvas, fonts, MARGIN, y - 7, f"{title}: {tracker.title}", 12, "bold")
            top = y - HEADER
            for i, row in enumerate(chunk):
                _track_row(canvas, fonts, tracker, row, top - (i + 1) * row_h, row_h, name_w, space, spaces)
            y = top - len(chunk) * row_h - 6
    canvas.showPage()
    return pages


def _track_row(canvas: Canvas, fonts: Fonts, tracker: Tracker, row: TrackRow, y: float, row_h: float,
               name_w: float, space: float, spaces: int) -> None:
    canvas.setFillColor(HexColor(tint(row.colour, 0.55)))
    canvas.setStrokeColor(HexColor(row.colour))
    canvas.setLineWidth(0.6)
    canvas.rect(MARGIN * mm, y * mm, name_w * mm, row_h * mm, stroke=1, fill=1)
    fonts.check(row.label or "x", "bold", f"tracker {tracker.id}, row {row.label}")
    size = min(9.0, row_h * 1.6)
    while size > MIN_PT and fonts.width(row.label, "bold", size) > (name_w - 3) * mm:
        size -= 0.25
    canvas.setFillColor(HexColor(INK))
    canvas.setFont(fonts.name("bold"), size)
    canvas.drawString((MARGIN + 1.5) * mm, (y + row_h / 2) * mm - size * 0.35, row.label)
    for k in range(spaces):
        number = tracker.first + k
        x = MARGIN + name_w + k * space
        canvas.setFillColor(HexColor("#ffffff"))
        canvas.rect(x * mm, y * mm, space * mm, row_h * mm, stroke=1, fill=1)
        label = tracker.labels.get(number, str(number))
        fonts.check(label, "regular", f"tracker {tracker.id}")
        lsize = min(8.0, space * 1.4)
        while lsize > MIN_PT and fonts.width(label, "regular", lsize) > (space - 0.6) * mm:
            lsize -= 0.25
        canvas.setFillColor(HexColor("#757575"))
        canvas.setFont(fonts.name("regular"), lsize)
        canvas.drawCentredString((x + space / 2) * mm, (y + row_h / 2) * mm - lsize * 0.35, label)
