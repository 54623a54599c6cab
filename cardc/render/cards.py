"""Card faces: what one card shows, fitted, then drawn at a position.

A `Face` is one card definition as the printer sees it (bundle card + its
deck's frame). `prepare` does all the text fitting up front, once per card
definition, so that an over-long text or a missing glyph fails the build
before a single page is written, and so that 40 copies of a card cost one
fit. `draw_front` / `draw_back` then only paint.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from reportlab.lib.colors import HexColor, white
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from cardc.load import sandbox

from .art import Art, draw_art
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
    image: str | None = None  # art in the deck's `art` box, relative to the game folder
    back_image: str | None = None  # this card's own back, instead of its deck's


@dataclass(frozen=True)
class Prepared:
    """A face with every text element fitted to its box."""

    face: Face
    boxes: Mapping[str, Box]
    fitted: Mapping[str, Fitted]
    low_ink: bool = False  # white card, the colour only in the title and a thin rule
    art: Art | None = None  # the face's image, loaded (None: a placeholder where it names one)


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


def render_strict(source: str, context: Mapping[str, Any], where: str) -> str:
    """A template that must render in full (an aid's text): a name it lacks is an error."""
    try:
        return sandbox.render(_template(source), context).strip()
    except sandbox.TemplateProblem as exc:
        raise RenderError(f"{where}: {exc}") from None


def contrast(colour: str) -> str:
    """Ink that reads on a background of `colour`."""
    return "#ffffff" if contrast_ratio(colour, "#ffffff") >= contrast_ratio(colour, INK) else INK


def _luminance(colour: str) -> float:
    """WCAG 2 relative luminance."""
    c = HexColor(colour)
    parts = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in (c.red, c.green, c.blue)]
    return 0.2126 * parts[0] + 0.7152 * parts[1] + 0.0722 * parts[2]


def contrast_ratio(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two colours (1 to 21); text needs 4.5."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


MIN_CONTRAST = 4.5


def readable(colour: str, ink: str, ratio: float = MIN_CONTRAST) -> str:
    """`colour`, darkened (for a light ink) or lightened (for a dark one) just
    enough that `ink` on it reaches `ratio`; unchanged when it already does."""
    if contrast_ratio(colour, ink) >= ratio:
        return colour
    c = HexColor(colour)
    rgb = (c.red, c.green, c.blue)
    towards_white = _luminance(ink) < 0.5
    for step in range(1, 101):
        t = step / 100
        mixed = tuple(v + (1 - v) * t if towards_white else v * (1 - t) for v in rgb)
        candidate = "#" + "".join(f"{round(255 * v):02x}" for v in mixed)
        if contrast_ratio(candidate, ink) >= ratio:
            return candidate
    return "#000000" if towards_white is False else "#ffffff"


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
            "number": number, "total": total, "labels": layout.labels}


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


def _fit(text: str, box: Box, style: TextStyle, layout: Layout, fonts: Fonts, where: str,
         words: bool = False) -> Fitted:
    """Fit one element; icons by `words` only in rules text, never in a title."""
    icons = layout.icons if words else {k: dataclasses.replace(v, words=()) for k, v in layout.icons.items()}
    return fit(text, box.w, box.h, style, icons, fonts, where)


TITLE_BOXES = ("name", "corner", "type")  # one size for the whole deck


def prepare_all(faces: Mapping[str, Face], layout: Layout, fonts: Fonts,
                params: Mapping[str, Any]) -> dict[str, Prepared]:
    """Prepare every face with one title, badge and type-line size per deck:
    the largest at which every card of the deck fits, so titles do not
    shrink card by card."""
    first = {card_id: prepare(face, layout, fonts, params) for card_id, face in faces.items()}
    sizes: dict[tuple[str, str], float] = {}
    for card in first.values():
        for box in TITLE_BOXES:
            if box in card.fitted:
                key = (card.face.deck.id, box)
                sizes[key] = min(sizes.get(key, 1e9), card.fitted[box].size)
    return {card_id: prepare(face, layout, fonts, params,
                             {box: size for (deck, box), size in sizes.items() if deck == face.deck.id})
            for card_id, face in faces.items()}


def prepare(face: Face, layout: Layout, fonts: Fonts, params: Mapping[str, Any],
            sizes: Mapping[str, float] | None = None) -> Prepared:
    """Fit every element of a face; raises RenderError naming card and box.
    `sizes` fixes the size of some boxes (the deck's title size)."""
    deck = face.deck
    where = f"card {face.card_id} ({face.name})"
    if deck.style == "tile":
        box = Box(deck.width * 0.1, deck.height * 0.1, deck.width * 0.8, deck.height * 0.8)
        style = dataclasses.replace(deck.styles["name"], align="center")
        name_fitted = _fit(face.name, box, style, layout, fonts, f"{where}, box name")
        return Prepared(face, {"name": box}, {"name": name_fitted})
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
    elif "corner" in boxes and "name" in boxes:  # no badge: the title takes its width
        name, badge = boxes["name"], boxes["corner"]
        boxes["name"] = Box(name.x, name.y, max(name.w, badge.x + badge.w - name.x), name.h)
    styles = {name: dataclasses.replace(style, size=sizes[name], min=min(style.min, sizes[name]))
              if sizes and name in sizes else style for name, style in deck.styles.items()}
    fitted = {
        name: _fit(value, boxes[name], styles[name], layout, fonts, f"{where}, box {name}", words=name == "text")
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
    ink_on_colour = deck.title_ink
    if card.low_ink:
        # To save toner: a white card, the colour only in the title's ink and
        # a thin rule under the header, kept 4 mm inside the trim.
        _background(canvas, x, y, deck, bleed, "#ffffff")
        ink_on_colour = readable(face.colour, "#ffffff")
        band = card.boxes["panel"].y - 1.0 if "panel" in card.boxes else deck.height * 0.24
        canvas.setStrokeColor(HexColor(ink_on_colour))
        canvas.setLineWidth(1.2)
        canvas.line(x + 4 * mm, y + (deck.height - band) * mm, x + (deck.width - 4) * mm, y + (deck.height - band) * mm)
    else:
        _background(canvas, x, y, deck, bleed, face.colour)
    if "panel" in card.boxes:
        px, py, pw, ph = _rect(x, y, deck, card.boxes["panel"])
        canvas.setFillColor(HexColor("#ffffff" if card.low_ink else PANEL))
        if card.low_ink:
            canvas.setStrokeColor(HexColor(tint(face.colour, 0.5)))
            canvas.setLineWidth(0.5)
        canvas.roundRect(px, py, pw, ph, 2 * mm, stroke=1 if card.low_ink else 0, fill=1)
    if face.image and "art" in card.boxes:
        draw_art(canvas, card.art, face.image, *_rect(x, y, deck, card.boxes["art"]), fonts.name("regular"))
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


def shade(colour: str, amount: float) -> str:
    """`colour` mixed with black; amount 0 is the colour, 1 is black."""
    c = HexColor(colour)
    return "#" + "".join(f"{round(255 * v * (1 - amount)):02x}" for v in (c.red, c.green, c.blue))


def back_ink(deck: Deck) -> str:
    """The ink of the back's lettering, on its central panel."""
    return contrast(shade(deck.back.colour, 0.3))


@dataclass(frozen=True)
class PreparedBack:
    """A deck's back, fitted. The design is the same turned 180 degrees
    (short-edge duplex and a card picked up either way up show the same
    back) and has no thin line near the trim, so a back printed a little
    off-centre still looks centred: a lattice over the whole card and bleed,
    a panel in the middle with the title once each way up."""

    deck: Deck
    title: Fitted
    subtitle: Fitted | None
    title_box: Box  # the upper half's title; the lower half is this turned 180 degrees
    subtitle_box: Box
    low_ink: bool = False
    image: str | None = None  # an image over the whole back, bleed included, instead of the design
    art: Art | None = None  # that image, loaded (None: a placeholder)


def prepare_back(deck: Deck, fonts: Fonts) -> PreparedBack:
    """Fit the deck's back design (title and subtitle) to the card."""
    where = f"deck {deck.id}, back"
    w, h = deck.width, deck.height
    panel = _back_panel(deck)
    small = deck.style == "tile" or w < 30  # a tile's back: the title once, in the panel
    title_box = (Box(panel.x + 0.5, panel.y + 0.5, panel.w - 1, panel.h - 1) if small else
                 Box(panel.x + 2, panel.y + 2, panel.w - 4, panel.h / 2 - 2 - (panel.h * 0.16)))
    subtitle_box = Box(panel.x + 2, title_box.y + title_box.h, panel.w - 4, panel.h * 0.16)
    title_style = TextStyle(face="bold", size=14.0 if small else max(6.0, min(22.0, h * 0.3)), min=6, align="center",
                            lines=2 if small else 1)
    sub_style = TextStyle(face="italic", size=8, min=6, align="center", lines=1)
    check_glyphs(deck.back.title, "bold", {}, fonts, where)
    title = fit(deck.back.title, title_box.w, title_box.h, title_style, {}, fonts, f"{where} title")
    subtitle = None
    if deck.back.subtitle and not small:
        subtitle = fit(deck.back.subtitle, subtitle_box.w, subtitle_box.h, sub_style, {}, fonts, f"{where} subtitle")
    return PreparedBack(deck, title, subtitle, title_box, subtitle_box)


def _back_panel(deck: Deck) -> Box:
    """The central panel of a back, in card mm from the top-left: centred, so
    symmetric under a half turn, and well inside the trim."""
    w, h = deck.width, deck.height
    pw, ph = w * 0.78, min(h * 0.42, w * 0.78)
    return Box((w - pw) / 2, (h - ph) / 2, pw, ph)


def _lattice(canvas: Canvas, x: float, y: float, deck: Deck, bleed: Sides, colour: str) -> None:
    """Diagonal lines both ways, centred on the card, over the trim and bleed."""
    w, h = deck.width * mm, deck.height * mm
    cx, cy = x + w / 2, y + h / 2
    step = 5 * mm
    canvas.saveState()
    clip = canvas.beginPath()
    clip.rect(x - bleed.left * mm, y - bleed.bottom * mm, w + (bleed.left + bleed.right) * mm,
              h + (bleed.top + bleed.bottom) * mm)
    canvas.clipPath(clip, stroke=0, fill=0)
    canvas.setStrokeColor(HexColor(colour))
    canvas.setLineWidth(0.9)
    reach = (w + h) / 2 + 10 * mm
    n = int(reach // step) + 2
    for i in range(-n, n + 1):
        d = i * step
        canvas.line(cx + d - reach, cy - reach, cx + d + reach, cy + reach)
        canvas.line(cx + d - reach, cy + reach, cx + d + reach, cy - reach)
    canvas.restoreState()


def draw_back(canvas: Canvas, back: PreparedBack, fonts: Fonts, x: float, y: float, bleed: Sides = Sides()) -> None:
    """Paint the deck's back with its trim's bottom-left corner at (x, y) points."""
    deck = back.deck
    colour = deck.back.colour
    if back.image and not back.low_ink:
        _background(canvas, x, y, deck, bleed, colour)
        draw_art(canvas, back.art, back.image, x - bleed.left * mm, y - bleed.bottom * mm,
                 (deck.width + bleed.left + bleed.right) * mm, (deck.height + bleed.bottom + bleed.top) * mm,
                 fonts.name("regular"))
        return
    if back.low_ink:  # white, no lattice: the outlined panel and its title are the whole back
        _background(canvas, x, y, deck, bleed, "#ffffff")
        panel_fill, ink = "#ffffff", readable(colour, "#ffffff")
    else:
        _background(canvas, x, y, deck, bleed, colour)
        _lattice(canvas, x, y, deck, bleed, tint(colour, 0.12))
        panel_fill, ink = shade(colour, 0.3), back_ink(deck)
    panel = _back_panel(deck)
    px, py, pw, ph = _rect(x, y, deck, panel)
    canvas.setFillColor(HexColor(panel_fill))
    canvas.setStrokeColor(HexColor(ink if back.low_ink else panel_fill))
    canvas.setLineWidth(1.2)
    canvas.roundRect(px, py, pw, ph, min(pw, ph) * 0.18, stroke=1, fill=1)
    small = back.subtitle_box.h <= 0 or back.title_box.h > panel.h / 2
    if not small:
        canvas.setStrokeColor(HexColor(ink))
        canvas.setLineWidth(0.6)
        canvas.line(px + pw * 0.3, py + ph / 2, px + pw * 0.7, py + ph / 2)
    for turned in ((False,) if small else (False, True)):  # the lower half is the upper half turned about the centre
        canvas.saveState()
        if turned:
            canvas.translate(x + deck.width * mm / 2, y + deck.height * mm / 2)
            canvas.rotate(180)
            canvas.translate(-(x + deck.width * mm / 2), -(y + deck.height * mm / 2))
        bx, by, bw, bh = _rect(x, y, deck, back.title_box)
        draw(canvas, back.title, TextStyle(face="bold", align="center"), fonts, bx, by, bw, bh, ink, "middle")
        if back.subtitle:
            bx, by, bw, bh = _rect(x, y, deck, back.subtitle_box)
            draw(canvas, back.subtitle, TextStyle(face="italic", align="center"), fonts, bx, by, bw, bh, ink, "middle")
        canvas.restoreState()
