"""Card faces: what one card shows, fitted, then drawn at a position.

A `Face` is one card definition as the printer sees it (bundle card + its
deck's frame). `prepare` does all the text fitting up front, once per card
definition, so that an over-long text or a missing glyph fails the build
before a single page is written, and so that 40 copies of a card cost one
fit. `draw_front` / `draw_back` then only paint.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

from reportlab.lib.colors import HexColor, white
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from cardc import sandbox

from .errors import RenderError
from .fonts import Fonts
from .layout import Box, Deck, Layout, TextStyle
from .text import Fitted, check_glyphs, draw, fit

INK = "#1f1f1f"
MUTED = "#6b6b6b"
PANEL = "#fbfaf6"


@dataclass(frozen=True)
class Sides:
    """Bleed on each side of a card, mm: how far its background runs past the trim."""

    left: float = 0.0
    bottom: float = 0.0
    right: float = 0.0
    top: float = 0.0


@dataclass(frozen=True)
class Face:
    """One card definition, as printed."""

    card_id: str
    name: str
    kind: str
    kind_label: str
    colour: str
    text: str
    flavour: str
    fields: Mapping[str, Any]
    deck: Deck


@dataclass(frozen=True)
class Prepared:
    """A face with every text element fitted to its box."""

    face: Face
    boxes: Mapping[str, Box]
    fitted: Mapping[str, Fitted]


_JINJA = sandbox.environment()


@lru_cache(maxsize=256)
def _template(source: str):
    return sandbox.compile_template(_JINJA, source)


def render_template(source: str | None, context: Mapping[str, Any]) -> str:
    """The element's text, or "" when the card lacks a field it uses."""
    if not source:
        return ""
    try:
        return " ".join(sandbox.render(_template(source), context).split())
    except sandbox.TemplateProblem as exc:
        if exc.undefined:
            return ""
        raise RenderError(f"layout template {source!r}: {exc}") from None


def contrast(colour: str) -> str:
    """Ink that reads on a background of `colour`."""
    c = HexColor(colour)
    luminance = 0.2126 * c.red + 0.7152 * c.green + 0.0722 * c.blue
    return "#ffffff" if luminance < 0.6 else INK


def tint(colour: str, amount: float) -> str:
    """`colour` mixed with white; amount 0 is the colour, 1 is white."""
    c = HexColor(colour)
    parts = (c.red, c.green, c.blue)
    return "#" + "".join(f"{round(255 * (v + (1 - v) * amount)):02x}" for v in parts)


def _context(face: Face, layout: Layout, params: Mapping[str, Any],
             number: int | None = None, total: int | None = None) -> dict[str, Any]:
    fields = {k: v for k, v in face.fields.items() if v is not None}
    return {**fields, "name": face.name, "id": face.card_id, "kind": face.kind_label,
            "kind_id": face.kind, "game": layout.title, "params": params, "stamp": layout.stamp,
            "number": number, "total": total}


def numbered(card: Prepared, layout: Layout, fonts: Fonts, params: Mapping[str, Any],
             number: int, total: int) -> Prepared:
    """The card with its footer for copy `number` of `total` in its deck
    ("Unicorn v0.3 · 12/98"), so old and new printouts and errata sheets
    can be told apart and sorted."""
    face = card.face
    text = render_template(face.deck.footer, _context(face, layout, params, number, total))
    if not text or "footer" not in card.boxes:
        return card
    fitted = _fit(text, card.boxes["footer"], face.deck.styles["footer"], layout, fonts,
                  f"card {face.card_id} ({face.name}), box footer")
    return dataclasses.replace(card, fitted={**card.fitted, "footer": fitted})


def _fit(text: str, box: Box, style: TextStyle, layout: Layout, fonts: Fonts, where: str) -> Fitted:
    return fit(text, box.w, box.h, style, layout.icons, fonts, where)


def prepare(face: Face, layout: Layout, fonts: Fonts, params: Mapping[str, Any]) -> Prepared:
    """Fit every element of a face; raises RenderError naming card and box."""
    deck = face.deck
    where = f"card {face.card_id} ({face.name})"
    if deck.style == "tile":
        box = Box(deck.width * 0.1, deck.height * 0.1, deck.width * 0.8, deck.height * 0.8)
        style = dataclasses.replace(deck.styles["name"], align="center")
        fitted = _fit(face.name, box, style, layout, fonts, f"{where}, box name")
        return Prepared(face, {"name": box}, {"name": fitted})
    context = _context(face, layout, params)
    texts = {
        "name": face.name,
        "corner": render_template(deck.corner, context),
        "type": render_template(deck.type_line, context),
        "text": face.text.strip(),
        "flavour": face.flavour.strip(),
        "footer": render_template(deck.footer, context),
    }
    boxes = dict(deck.boxes)
    if not texts["flavour"] and "flavour" in boxes:
        text, flavour = boxes["text"], boxes["flavour"]
        boxes["text"] = Box(text.x, text.y, text.w, flavour.y + flavour.h - text.y)
    if texts["corner"]:
        badge = boxes["corner"]
        inner = min(badge.w, badge.h) * 0.74  # the square inside the round badge
        boxes["corner"] = Box(badge.x + (badge.w - inner) / 2, badge.y + (badge.h - inner) / 2, inner, inner)
    fitted = {
        name: _fit(value, boxes[name], deck.styles[name], layout, fonts, f"{where}, box {name}")
        for name, value in texts.items()
        if value and name in boxes
    }
    return Prepared(face, boxes, fitted)


def _rect(x: float, y: float, deck: Deck, box: Box) -> tuple[float, float, float, float]:
    """A card box in page points (bottom-left origin)."""
    return x + box.x * mm, y + (deck.height - box.y - box.h) * mm, box.w * mm, box.h * mm


def _background(canvas: Canvas, x: float, y: float, deck: Deck, bleed: Sides, colour: str) -> None:
    canvas.setFillColor(HexColor(colour))
    canvas.rect(x - bleed.left * mm, y - bleed.bottom * mm,
                (deck.width + bleed.left + bleed.right) * mm,
                (deck.height + bleed.bottom + bleed.top) * mm, stroke=0, fill=1)


def draw_front(canvas: Canvas, card: Prepared, fonts: Fonts, x: float, y: float, bleed: Sides = Sides()) -> None:
    """Paint a prepared face with its trim's bottom-left corner at (x, y) points."""
    face, deck = card.face, card.face.deck
    if deck.style == "tile":
        _background(canvas, x, y, deck, bleed, tint(face.colour, 0.65))
        canvas.setStrokeColor(HexColor(face.colour))
        canvas.setLineWidth(0.8)
        inset = 0.8 * mm
        canvas.rect(x + inset, y + inset, deck.width * mm - 2 * inset, deck.height * mm - 2 * inset, stroke=1, fill=0)
        _draw_box(canvas, card, "name", fonts, x, y, INK, "middle")
        return
    _background(canvas, x, y, deck, bleed, face.colour)
    ink_on_colour = contrast(face.colour)
    if "panel" in card.boxes:
        px, py, pw, ph = _rect(x, y, deck, card.boxes["panel"])
        canvas.setFillColor(HexColor(PANEL))
        canvas.roundRect(px, py, pw, ph, 2 * mm, stroke=0, fill=1)
    if "corner" in card.fitted:
        badge = deck.boxes["corner"]
        bx, by, bw, bh = _rect(x, y, deck, badge)
        canvas.setFillColor(white)
        canvas.setStrokeColor(HexColor(INK))
        canvas.setLineWidth(0.6)
        canvas.circle(bx + bw / 2, by + bh / 2, min(bw, bh) / 2, stroke=1, fill=1)
        _draw_box(canvas, card, "corner", fonts, x, y, INK, "middle")
    _draw_box(canvas, card, "name", fonts, x, y, ink_on_colour, "middle")
    _draw_box(canvas, card, "type", fonts, x, y, ink_on_colour, "middle")
    _draw_box(canvas, card, "text", fonts, x, y, INK, "top")
    if "flavour" in card.fitted:
        fx, fy, fw, fh = _rect(x, y, deck, card.boxes["flavour"])
        canvas.setStrokeColor(HexColor(tint(face.colour, 0.4)))
        canvas.setLineWidth(0.5)
        canvas.line(fx + fw * 0.3, fy + fh + 0.8 * mm, fx + fw * 0.7, fy + fh + 0.8 * mm)
        _draw_box(canvas, card, "flavour", fonts, x, y, MUTED, "top")
    _draw_box(canvas, card, "footer", fonts, x, y, MUTED, "middle")


def _draw_box(canvas: Canvas, card: Prepared, name: str, fonts: Fonts, x: float, y: float,
              colour: str, valign: str) -> None:
    fitted = card.fitted.get(name)
    if fitted is None:
        return
    deck = card.face.deck
    style = deck.styles[name] if deck.style != "tile" else dataclasses.replace(deck.styles[name], align="center")
    bx, by, bw, bh = _rect(x, y, deck, card.boxes[name])
    draw(canvas, fitted, style, fonts, bx, by, bw, bh, colour, valign)


@dataclass(frozen=True)
class PreparedBack:
    deck: Deck
    title: Fitted
    subtitle: Fitted | None
    title_box: Box
    subtitle_box: Box


def prepare_back(deck: Deck, fonts: Fonts) -> PreparedBack:
    """Fit the deck's back design (title and subtitle) to the card."""
    where = f"deck {deck.id}, back"
    w, h = deck.width, deck.height
    title_box = Box(w * 0.12, h * 0.3, w * 0.76, h * 0.28)
    subtitle_box = Box(w * 0.12, h * 0.6, w * 0.76, h * 0.12)
    title_style = TextStyle(face="bold", size=min(26.0, h * 0.45), min=4, align="center", lines=2)
    sub_style = TextStyle(face="italic", size=9, min=4, align="center", lines=2)
    check_glyphs(deck.back.title, "bold", {}, fonts, where)
    title = fit(deck.back.title, title_box.w, title_box.h, title_style, {}, fonts, f"{where} title")
    subtitle = None
    if deck.back.subtitle and deck.style != "tile":  # a tile's back has room for the title only
        subtitle = fit(deck.back.subtitle, subtitle_box.w, subtitle_box.h, sub_style, {}, fonts, f"{where} subtitle")
    return PreparedBack(deck, title, subtitle, title_box, subtitle_box)


def draw_back(canvas: Canvas, back: PreparedBack, fonts: Fonts, x: float, y: float, bleed: Sides = Sides()) -> None:
    """Paint the deck's back with its trim's bottom-left corner at (x, y) points."""
    deck = back.deck
    _background(canvas, x, y, deck, bleed, deck.back.colour)
    ink = contrast(deck.back.colour)
    inset = min(deck.width, deck.height) * 0.06 * mm
    canvas.setStrokeColor(HexColor(ink))
    canvas.setLineWidth(0.7)
    canvas.roundRect(x + inset, y + inset, deck.width * mm - 2 * inset, deck.height * mm - 2 * inset,
                     inset * 0.6, stroke=1, fill=0)
    style = TextStyle(face="bold", align="center")
    bx, by, bw, bh = _rect(x, y, deck, back.title_box)
    draw(canvas, back.title, style, fonts, bx, by, bw, bh, ink, "middle")
    if back.subtitle:
        bx, by, bw, bh = _rect(x, y, deck, back.subtitle_box)
        draw(canvas, back.subtitle, TextStyle(face="italic", align="center"), fonts, bx, by, bw, bh, ink, "top")
