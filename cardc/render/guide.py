"""The cutting guide: how to print, turn and cut what `cardc print` made.

One page per game: the print settings to use, then each deck's sheet as a
small diagram (page outline, card slots, how many sheets), so whoever cuts
knows the grid before picking up the knife.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from reportlab.lib.colors import HexColor
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from .fonts import Fonts
from .layout import TextStyle
from .sheets import MARGIN, PAPERS, draw_label, fit_grid, start_page
from .text import draw, fit

if TYPE_CHECKING:
    from .pipeline import DeckGroup, PrintOptions

SCALE = 0.22  # diagram size relative to the real sheet
PRINTING = {
    "long-edge": "Print cards.pdf double-sided, flipping on the long edge.",
    "short-edge": "Print cards.pdf double-sided, flipping on the short edge.",
    "separate": "Print cards.pdf, put the sheets back in the tray turned over on the long edge, "
                "then print cards-backs.pdf on their reverse.",
    "none": "Print cards.pdf single-sided (no backs).",
}


def _steps(options: PrintOptions) -> list[str]:
    steps = [
        "Print at actual size (100%), never 'fit to page': cards are real size.",
        PRINTING[options.backs],
    ]
    if options.backs != "none":
        steps.append("First print the calibration sheet (next pages) the same way; it tells the --offset "
                     "for a printer whose backs land shifted.")
    steps += [
        "Cut along the crop marks in the margins: the long lines across the sheet first, then the short ones.",
        "Decks of one card size follow each other on shared sheets; each card is backed by its own deck's back. "
        "Neighbouring cards share a cut line, so one cut frees two edges." if options.bleed == 0 else
        f"Every card's background runs {options.bleed:g} mm past its own cut lines (bleed), with a gutter "
        "between cards: cut each card on its own lines, so a cut a little off shows its colour, not white.",
        "components.pdf is single-sided: tile sheets cut like cards; a board in parts is trimmed along "
        "'cut here' and butted to the next part so the ticks meet.",
    ]
    return steps


def guide_pages(canvas: Canvas, fonts: Fonts, groups: Sequence[DeckGroup], options: PrintOptions, title: str,
                also_need: Sequence[str] = ()) -> None:
    w, h = PAPERS[options.paper]
    start_page(canvas, (w, h))
    draw_label(canvas, fonts, MARGIN + 8, h - MARGIN - 12, f"{title}: printing and cutting", 16, "bold")
    settings = (f"paper {options.paper} · bleed {options.bleed:g} mm · backs {options.backs} · "
                f"offset {options.offset[0]:g},{options.offset[1]:g} mm")
    draw_label(canvas, fonts, MARGIN + 8, h - MARGIN - 19, settings, 9, colour="#6b6b6b")
    y = h - MARGIN - 30
    width = w - 2 * MARGIN - 16
    style = TextStyle(size=8.5, min=8.5)
    for i, step in enumerate(_steps(options), 1):
        fitted = fit(f"{i}. {step}", width, 100, style, {}, fonts, "cutting guide")
        height = fitted.height() / mm
        draw(canvas, fitted, style, fonts, (MARGIN + 8) * mm, (y - height) * mm, width * mm, height * mm, "#1f1f1f")
        y -= height + 1.5
    if also_need:
        y -= 2
        draw_label(canvas, fonts, MARGIN + 8, y - 4, "You will also need", 10, "bold")
        y -= 7
        for thing in also_need:
            fitted = fit(f"• {thing}", width, 100, style, {}, fonts, "cutting guide")
            height = fitted.height() / mm
            draw(canvas, fitted, style, fonts, (MARGIN + 8) * mm, (y - height) * mm, width * mm, height * mm, "#1f1f1f")
            y -= height + 1
    y -= 4
    dw, dh = w * SCALE, h * SCALE
    per_row = max(1, int((w - 2 * MARGIN - 8) // (dw + 8)))
    for index, (deck, cards) in enumerate(groups):
        col = index % per_row
        if col == 0 and index:
            y -= dh + 16
        if y - dh - 12 < MARGIN:
            canvas.showPage()
            start_page(canvas, (w, h))
            y = h - MARGIN - 12
        x = MARGIN + 8 + col * (dw + 8)
        bleed = 0.0 if deck.style == "tile" else options.bleed
        grid = fit_grid(options.paper, deck.width, deck.height, deck.gap, bleed, options.fit).grid
        draw_label(canvas, fonts, x, y - 4, deck.title, 9, "bold")
        unit = "pieces" if deck.style == "tile" else "cards"
        draw_label(canvas, fonts, x, y - 8.5,
                   f"{len(cards)} {unit} · {deck.width:g}x{deck.height:g} mm · {grid.cols}x{grid.rows} a sheet", 6)
        top = y - 11
        canvas.setStrokeColor(HexColor("#6b6b6b"))
        canvas.setLineWidth(0.5)
        canvas.rect(x * mm, (top - dh) * mm, dw * mm, dh * mm, stroke=1, fill=0)
        canvas.setFillColor(HexColor(cards[0].face.colour))
        canvas.setStrokeColor(HexColor("#ffffff"))
        for slot in grid.slots:
            canvas.rect((x + slot.x * SCALE) * mm, (top - dh + slot.y * SCALE) * mm,
                        slot.w * SCALE * mm, slot.h * SCALE * mm, stroke=1, fill=1)
    canvas.showPage()
