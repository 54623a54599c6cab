"""Set a string in a box: wrap it, shrink it until it fits, or refuse.

Card text is short, so this is a small greedy line breaker rather than
ReportLab's Paragraph: it measures exactly what it draws, knows inline icons
(`:name:` in the text becomes a coloured disc), and `**bold**` spans. Text
starts at the style's size and steps down to its minimum; if it still does
not fit, the error names the card and the box. Nothing is ever clipped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from reportlab.lib.colors import HexColor, white
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from .errors import RenderError
from .fonts import Fonts
from .icons import draw_icon
from .layout import Icon, TextStyle

LEADING = 1.2  # line height as a multiple of the font size
PARAGRAPH_GAP = 0.35  # extra space between paragraphs, in font sizes
STEP = 0.25  # points between the sizes tried
ICON_WIDTH = 1.05  # an icon's advance as a multiple of the font size

_TOKEN = re.compile(r"(\*\*|:[a-z0-9_]+:)")
_BOLDER = {"regular": "bold", "italic": "bolditalic", "bold": "bold", "bolditalic": "bolditalic"}


class TextFitError(RenderError):
    """Text that does not fit its box even at the smallest allowed size."""


@dataclass(frozen=True)
class Run:
    """Part of a word set in one face, or an inline icon."""

    text: str
    face: str
    icon: Icon | None = None

    def width(self, fonts: Fonts, size: float) -> float:
        return size * ICON_WIDTH if self.icon else fonts.width(self.text, self.face, size)


Word = tuple[Run, ...]


@dataclass(frozen=True)
class Fitted:
    """Text broken into lines at the size that fits."""

    size: float
    paragraphs: tuple[tuple[tuple[Word, ...], ...], ...]  # paragraphs of lines of words

    @property
    def line_count(self) -> int:
        return sum(len(p) for p in self.paragraphs)

    def height(self) -> float:
        """Height of the block in points."""
        gaps = max(0, len(self.paragraphs) - 1) * PARAGRAPH_GAP
        return self.size * (LEADING * self.line_count + gaps)


_WORD = re.compile(r"^[(\"'“]*([A-Za-z][A-Za-z'-]*)")


def _word_icons(icons: Mapping[str, Icon]) -> dict[str, Icon]:
    return {word: icon for icon in icons.values() for word in icon.words}


def parse(text: str, face: str, icons: Mapping[str, Icon]) -> list[list[Word]]:
    """Paragraphs (split at line breaks) of words made of runs. An icon
    listing a word in its `words` is set in front of that word."""
    by_word = _word_icons(icons)
    paragraphs = []
    for line in text.split("\n"):
        words: list[Word] = []
        current: list[Run] = []
        bold = False
        for token in _TOKEN.split(line):
            if token == "**":
                bold = not bold
            elif token[1:-1] in icons and token.startswith(":") and len(token) > 2:
                current.append(Run(token, face, icons[token[1:-1]]))
            else:
                for i, part in enumerate(token.split(" ")):
                    if i and current:
                        words.append(tuple(current))
                        current = []
                    if part:
                        match = _WORD.match(part) if by_word else None
                        if match and match.group(1) in by_word and not (current and current[-1].icon):
                            if current:
                                words.append(tuple(current))
                            words.append((Run(part, face, by_word[match.group(1)]),))
                            current = []
                        current.append(Run(part, _BOLDER[face] if bold else face))
        if current:
            words.append(tuple(current))
        paragraphs.append(words)
    return paragraphs


def _word_width(word: Word, fonts: Fonts, size: float) -> float:
    return sum(run.width(fonts, size) for run in word)


def _wrap(words: list[Word], fonts: Fonts, face: str, size: float, width: float) -> list[tuple[Word, ...]] | None:
    """Greedy line breaking; None when a single word is wider than the box."""
    space = fonts.width(" ", face, size)
    lines: list[tuple[Word, ...]] = []
    line: list[Word] = []
    used = 0.0
    for word in words:
        w = _word_width(word, fonts, size)
        if w > width:
            return None
        if line and used + space + w > width:
            lines.append(tuple(line))
            line, used = [], 0.0
        used += (space if line else 0.0) + w
        line.append(word)
    lines.append(tuple(line))
    return lines


def check_glyphs(text: str, face: str, icons: Mapping[str, Icon], fonts: Fonts, where: str) -> None:
    """Every character must exist in the face that draws it."""
    for paragraph in parse(text, face, icons):
        for word in paragraph:
            for run in word:
                if run.icon:
                    if not run.icon.shape:
                        fonts.check(run.icon.label or "?", "bold", where)
                else:
                    fonts.check(run.text, run.face, where)


def fit(text: str, width_mm: float, height_mm: float, style: TextStyle, icons: Mapping[str, Icon],
        fonts: Fonts, where: str) -> Fitted:
    """The largest size (style.size down to style.min) at which text fits."""
    check_glyphs(text, style.face, icons, fonts, where)
    paragraphs = parse(text, style.face, icons)
    width, height = width_mm * mm, height_mm * mm
    size = style.size
    while size >= style.min - 1e-9:
        lines = [_wrap(p, fonts, style.face, size, width) for p in paragraphs]
        wrapped = [ls for ls in lines if ls is not None]
        if len(wrapped) == len(lines):
            fitted = Fitted(size, tuple(tuple(ls) for ls in wrapped))
            limit_ok = style.lines is None or fitted.line_count <= style.lines
            if limit_ok and fitted.height() <= height + 1e-6:
                return fitted
        size = round(size - STEP, 4)
    raise TextFitError(
        f"{where}: text does not fit its box ({width_mm:.1f} x {height_mm:.1f} mm"
        f"{', ' + str(style.lines) + ' line(s)' if style.lines else ''}) even at the minimum "
        f"{style.min:g} pt; shorten it or lower that box's `min` in layout.yaml: {text!r}"
    )


def _line_width(line: tuple[Word, ...], fonts: Fonts, face: str, size: float) -> float:
    space = fonts.width(" ", face, size)
    return sum(_word_width(w, fonts, size) for w in line) + space * max(0, len(line) - 1)


def _chunks(line: tuple[Word, ...]) -> list[Run]:
    """Merge a line into as few runs as possible (spaces included), so the
    PDF holds whole phrases: copy-paste and text search then work."""
    out: list[Run] = []
    for i, word in enumerate(line):
        for j, run in enumerate(word):
            text = (" " if i and j == 0 else "") + (run.text if not run.icon else "")
            if run.icon:
                if text:
                    out.append(Run(text, run.face))
                out.append(run)
            elif out and not out[-1].icon and out[-1].face == run.face:
                out[-1] = Run(out[-1].text + text, run.face)
            else:
                out.append(Run(text, run.face))
    return out


def draw(canvas: Canvas, fitted: Fitted, style: TextStyle, fonts: Fonts, x: float, y: float,
         w: float, h: float, colour: str, valign: str = "top") -> None:
    """Draw fitted text in the box whose bottom-left is (x, y), in points."""
    size = fitted.size
    block = fitted.height()
    top = y + h if valign == "top" else y + (h + block) / 2
    baseline = top - size * (LEADING - 0.25)  # a line's descent sits in its bottom quarter
    canvas.setFillColor(HexColor(colour))
    for p_index, paragraph in enumerate(fitted.paragraphs):
        if p_index:
            baseline -= PARAGRAPH_GAP * size
        for line in paragraph:
            lw = _line_width(line, fonts, style.face, size)
            cx = x + {"left": 0.0, "center": (w - lw) / 2, "right": w - lw}[style.align]
            for run in _chunks(line):
                if run.icon:
                    _draw_icon(canvas, run.icon, fonts, cx, baseline, size)
                    canvas.setFillColor(HexColor(colour))
                else:
                    canvas.setFont(fonts.name(run.face), size)
                    canvas.drawString(cx, baseline, run.text)
                cx += run.width(fonts, size)
            baseline -= LEADING * size


def _draw_icon(canvas: Canvas, icon: Icon, fonts: Fonts, x: float, baseline: float, size: float) -> None:
    radius = size * 0.48
    cx, cy = x + size * ICON_WIDTH / 2, baseline + size * 0.32
    if icon.shape:
        draw_icon(canvas, icon.shape, HexColor(icon.colour), cx, cy, radius)
        return
    canvas.setFillColor(HexColor(icon.colour))
    canvas.circle(cx, cy, radius, stroke=0, fill=1)
    label_size = max(6.0, size * (0.7 if len(icon.label) == 1 else 0.5))  # nothing printed under 6 pt
    canvas.setFillColor(white)
    canvas.setFont(fonts.name("bold"), label_size)
    canvas.drawCentredString(cx, cy - label_size * 0.35, icon.label)


def text_span(fitted: Fitted, style: TextStyle, fonts: Fonts, w: float) -> tuple[float, float]:
    """Where the set lines' ink starts and ends across a box `w` points wide
    (points from the box's left), as `draw` places them: the print-shop
    safe-zone check measures the text, not the box it may fill."""
    spans = []
    for paragraph in fitted.paragraphs:
        for line in paragraph:
            lw = _line_width(line, fonts, style.face, fitted.size)
            left = {"left": 0.0, "center": (w - lw) / 2, "right": w - lw}[style.align]
            spans.append((left, left + lw))
    return (min(a for a, _ in spans), max(b for _, b in spans)) if spans else (0.0, 0.0)


def to_bbcode(text: str, icons: Mapping[str, Icon]) -> str:
    """Card text in the BBCode Tabletop Simulator shows in a description:
    the markup `parse` reads (`**bold**`, `:icon:`) as [b]...[/b] and the
    icon's name, since TTS prints Markdown as it is typed."""
    out = []
    for line in text.split("\n"):
        bold = False
        parts = []
        for token in _TOKEN.split(line):
            if token == "**":
                parts.append("[/b]" if bold else "[b]")
                bold = not bold
            elif token.startswith(":") and token[1:-1] in icons and len(token) > 2:
                parts.append(token[1:-1].replace("_", " "))
            else:
                parts.append(token.replace("[", "(").replace("]", ")"))  # no stray tags from content
        if bold:
            parts.append("[/b]")
        out.append("".join(parts))
    return "\n".join(out)
