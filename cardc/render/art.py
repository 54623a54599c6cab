"""Card art: PNG, JPEG and SVG images from the game folder, drawn on cards.

A card names its image (`image: art/kiln.png`, relative to the game folder)
and its deck's layout places it (`boxes: {art: ...}`); a deck's back or one
card's back may be an image too. Images are content, so untrusted:

- only files inside the game folder are read (the path is resolved, links
  included, and must stay under it; `cardc check` refuses the rest first);
- SVG is parsed without entities or network and its own references are
  confined to the same folder (svglib's external_reference_root), then drawn
  as vectors, so SVG art stays sharp at any print size;
- a file that is missing prints a placeholder with its name (and `cardc
  check` warns), so a prototype prints before its art is drawn.

PNG and JPEG go through ReportLab's ImageReader (Pillow); SVG through
svglib. An image fills its box and is cropped to it, keeping its shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportlab.lib.colors import HexColor
from reportlab.lib.units import mm
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen.canvas import Canvas

from .errors import RenderError

PLACEHOLDER_FILL = "#e4e1da"
PLACEHOLDER_INK = "#8a8478"


@dataclass(frozen=True)
class Art:
    """One image, loaded: `raster` (an ImageReader) or `vector` (a ReportLab
    Drawing), with its own width and height in any unit (only the ratio counts)."""

    name: str
    width: float
    height: float
    raster: Any = None
    vector: Any = None


class ArtFolder:
    """The images of one game, read from its folder once each."""

    def __init__(self, root: Path | None) -> None:
        self.root = Path(root).resolve() if root is not None else None
        self._loaded: dict[str, Art | None] = {}

    def load(self, name: str | None) -> Art | None:
        """The image `name` (relative to the game folder), or None when it is
        not there (a placeholder is drawn). A file that is there but is not
        an image it can read is an error naming it."""
        if not name:
            return None
        if name not in self._loaded:
            self._loaded[name] = self._read(name)
        return self._loaded[name]

    def _read(self, name: str) -> Art | None:
        if self.root is None:
            return None
        path = (self.root / name).resolve()
        if not path.is_relative_to(self.root) or not path.is_file():
            return None
        try:
            if path.suffix.lower() == ".svg":
                return _svg(path, name, self.root)
            reader = ImageReader(str(path))
            width, height = reader.getSize()
            return Art(name, float(width), float(height), raster=reader)
        except RenderError:
            raise
        except Exception as exc:  # Pillow and lxml raise many kinds for a broken file
            raise RenderError(f"image {name}: cannot be read as {path.suffix.lstrip('.').upper()} "
                              f"({type(exc).__name__}: {exc}); save it again as PNG, JPEG or SVG") from None


def _svg(path: Path, name: str, root: Path) -> Art:
    """An SVG file as a Drawing: parsed without entities or network, its own
    references confined to the game folder."""
    from lxml import etree
    from svglib.svglib import SvgRenderer

    parser = etree.XMLParser(resolve_entities=False, no_network=True, remove_comments=True, huge_tree=False)
    svg = etree.parse(str(path), parser=parser).getroot()
    drawing = SvgRenderer(str(path), external_reference_root=str(root)).render(svg)
    if not drawing.width or not drawing.height:
        raise RenderError(f"image {name}: an SVG without a size; give its <svg> a width and height or a viewBox")
    return Art(name, float(drawing.width), float(drawing.height), vector=drawing)


def draw_art(canvas: Canvas, art: Art | None, name: str, x: float, y: float, w: float, h: float,
             font: str) -> None:
    """Fill the box (points, bottom-left at x, y) with the image, cropped to
    the box and centred, or with a placeholder naming the missing file in
    `font` (a registered font name)."""
    canvas.saveState()
    clip = canvas.beginPath()
    clip.rect(x, y, w, h)
    canvas.clipPath(clip, stroke=0, fill=0)
    if art is None:
        _placeholder(canvas, name, x, y, w, h, font)
    else:
        scale = max(w / art.width, h / art.height)  # cover the box
        dw, dh = art.width * scale, art.height * scale
        dx, dy = x + (w - dw) / 2, y + (h - dh) / 2
        if art.raster is not None:
            canvas.drawImage(art.raster, dx, dy, dw, dh, mask="auto")
        else:
            from reportlab.graphics import renderPDF

            canvas.translate(dx, dy)
            canvas.scale(scale, scale)
            renderPDF.draw(art.vector, canvas, 0, 0)
    canvas.restoreState()


def _placeholder(canvas: Canvas, name: str, x: float, y: float, w: float, h: float, font: str) -> None:
    """A pale box crossed corner to corner, with the file name on a white
    strip: the art to come."""
    canvas.setFillColor(HexColor(PLACEHOLDER_FILL))
    canvas.rect(x, y, w, h, stroke=0, fill=1)
    canvas.setStrokeColor(HexColor(PLACEHOLDER_INK))
    canvas.setLineWidth(0.5)
    canvas.line(x, y, x + w, y + h)
    canvas.line(x, y + h, x + w, y)
    label = "".join(c if c.isascii() and c.isprintable() else "?" for c in f"art: {name}")
    size = 7.0
    width = canvas.stringWidth(label, font, size)
    if width > w - 2 * mm:  # shrink to the box, never under 6 pt; the clip cuts what is left
        size = max(6.0, size * (w - 2 * mm) / width)
        width = canvas.stringWidth(label, font, size)
    canvas.setFillColor(HexColor("#ffffff"))
    canvas.rect(x + (w - width) / 2 - 1, y + h / 2 - size * 0.45, width + 2, size * 1.3, stroke=0, fill=1)
    canvas.setFillColor(HexColor(PLACEHOLDER_INK))
    canvas.setFont(font, size)
    canvas.drawCentredString(x + w / 2, y + h / 2 - size * 0.1, label)
