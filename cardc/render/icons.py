"""A small vector icon set, drawn with ReportLab paths.

Every icon is a white pictogram on a coloured disc, so it prints sharp at any
size, needs no font and reads in greyscale: the shape, not the colour, tells
widgets from hype. A game picks a shape and a colour per icon in layout.yaml
(`icons: {widgets: {shape: gear, colour: "#2f5fa7", words: [Widget, Widgets]}}`).

Each drawing function paints in a unit box: the disc's centre is (0, 0) and
its radius 1; the caller has translated and scaled the canvas.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from reportlab.pdfgen.canvas import Canvas

Drawer = Callable[[Canvas], None]


def _poly(canvas: Canvas, points: list[tuple[float, float]], stroke: bool = False) -> None:
    path = canvas.beginPath()
    path.moveTo(*points[0])
    for point in points[1:]:
        path.lineTo(*point)
    path.close()
    canvas.drawPath(path, stroke=1 if stroke else 0, fill=0 if stroke else 1)


def _star(points: int, outer: float, inner: float, turn: float = 90) -> list[tuple[float, float]]:
    out = []
    for i in range(points * 2):
        r = outer if i % 2 == 0 else inner
        a = math.radians(turn + i * 180 / points)
        out.append((r * math.cos(a), r * math.sin(a)))
    return out


def coin(c: Canvas) -> None:
    c.saveState()
    c.setLineWidth(0.16)
    c.circle(0, 0, 0.55, stroke=1, fill=0)
    c.restoreState()
    c.rect(-0.09, -0.32, 0.18, 0.64, stroke=0, fill=1)


def gear(c: Canvas) -> None:
    teeth = []
    for i in range(16):
        r = 0.72 if i % 2 == 0 else 0.52
        for da in (-8, 8):
            a = math.radians(i * 22.5 + da)
            teeth.append((r * math.cos(a), r * math.sin(a)))
    path = c.beginPath()
    path.moveTo(*teeth[0])
    for p in teeth[1:]:
        path.lineTo(*p)
    path.close()
    path.circle(0, 0, 0.22)
    c.drawPath(path, stroke=0, fill=1, fillMode=0)


def megaphone(c: Canvas) -> None:
    _poly(c, [(-0.6, -0.18), (-0.6, 0.18), (0.35, 0.55), (0.35, -0.55)])
    c.rect(-0.72, -0.16, 0.14, 0.32, stroke=0, fill=1)
    _poly(c, [(-0.45, -0.2), (-0.2, -0.2), (-0.1, -0.6), (-0.32, -0.6)])
    c.rect(0.45, -0.08, 0.22, 0.16, stroke=0, fill=1)


def chart(c: Canvas) -> None:
    for i, h in enumerate((0.45, 0.8, 1.15)):
        c.rect(-0.6 + i * 0.42, -0.55, 0.3, h, stroke=0, fill=1)


def heart(c: Canvas) -> None:
    path = c.beginPath()
    path.moveTo(0, -0.6)
    path.curveTo(-0.35, -0.3, -0.72, -0.05, -0.62, 0.28)
    path.curveTo(-0.52, 0.62, -0.12, 0.66, 0, 0.32)
    path.curveTo(0.12, 0.66, 0.52, 0.62, 0.62, 0.28)
    path.curveTo(0.72, -0.05, 0.35, -0.3, 0, -0.6)
    path.close()
    c.drawPath(path, stroke=0, fill=1)


def star(c: Canvas) -> None:
    _poly(c, _star(5, 0.72, 0.3))


def play(c: Canvas) -> None:
    _poly(c, [(-0.35, -0.55), (-0.35, 0.55), (0.6, 0)])


def person(c: Canvas) -> None:
    c.circle(0, 0.3, 0.25, stroke=0, fill=1)
    path = c.beginPath()
    path.moveTo(-0.55, -0.6)
    path.curveTo(-0.55, 0.05, 0.55, 0.05, 0.55, -0.6)
    path.close()
    c.drawPath(path, stroke=0, fill=1)


def card(c: Canvas) -> None:
    c.saveState()
    c.rotate(-12)
    c.roundRect(-0.36, -0.55, 0.72, 1.1, 0.1, stroke=0, fill=1)
    c.restoreState()


def bolt(c: Canvas) -> None:
    _poly(c, [(0.15, 0.72), (-0.45, -0.05), (-0.05, -0.05), (-0.2, -0.72), (0.45, 0.1), (0.05, 0.1)])


def shield(c: Canvas) -> None:
    path = c.beginPath()
    path.moveTo(0, 0.66)
    path.lineTo(0.55, 0.45)
    path.curveTo(0.55, -0.1, 0.35, -0.45, 0, -0.7)
    path.curveTo(-0.35, -0.45, -0.55, -0.1, -0.55, 0.45)
    path.close()
    c.drawPath(path, stroke=0, fill=1)


def link(c: Canvas) -> None:
    c.saveState()
    c.setLineWidth(0.16)
    c.circle(-0.22, 0, 0.32, stroke=1, fill=0)
    c.circle(0.22, 0, 0.32, stroke=1, fill=0)
    c.restoreState()


def arrow(c: Canvas) -> None:
    _poly(c, [(0, 0.7), (0.52, 0.1), (0.18, 0.1), (0.18, -0.62), (-0.18, -0.62), (-0.18, 0.1), (-0.52, 0.1)])


def diamond(c: Canvas) -> None:
    _poly(c, [(0, 0.72), (0.5, 0), (0, -0.72), (-0.5, 0)])


def crown(c: Canvas) -> None:
    _poly(c, [(-0.6, -0.45), (-0.6, 0.4), (-0.3, 0.05), (0, 0.55), (0.3, 0.05), (0.6, 0.4), (0.6, -0.45)])


def flag(c: Canvas) -> None:
    c.rect(-0.5, -0.68, 0.12, 1.36, stroke=0, fill=1)
    _poly(c, [(-0.38, 0.68), (0.6, 0.4), (-0.38, 0.05)])


def book(c: Canvas) -> None:
    _poly(c, [(-0.65, -0.45), (-0.65, 0.5), (-0.05, 0.4), (-0.05, -0.55)])
    _poly(c, [(0.65, -0.45), (0.65, 0.5), (0.05, 0.4), (0.05, -0.55)])


def building(c: Canvas) -> None:
    _poly(c, [(-0.55, -0.62), (-0.55, 0.15), (0, 0.66), (0.55, 0.15), (0.55, -0.62), (0.15, -0.62),
              (0.15, -0.2), (-0.15, -0.2), (-0.15, -0.62)])


def cube(c: Canvas) -> None:
    _poly(c, [(0, 0.65), (0.58, 0.33), (0, 0.0), (-0.58, 0.33)])
    _poly(c, [(-0.58, 0.22), (-0.05, -0.08), (-0.05, -0.7), (-0.58, -0.38)])
    _poly(c, [(0.58, 0.22), (0.05, -0.08), (0.05, -0.7), (0.58, -0.38)])


def flask(c: Canvas) -> None:
    _poly(c, [(-0.15, 0.68), (0.15, 0.68), (0.15, 0.15), (0.55, -0.6), (-0.55, -0.6), (-0.15, 0.15)])


def leaf(c: Canvas) -> None:
    path = c.beginPath()
    path.moveTo(-0.55, -0.55)
    path.curveTo(-0.6, 0.3, 0.0, 0.65, 0.62, 0.62)
    path.curveTo(0.6, 0.0, 0.3, -0.6, -0.55, -0.55)
    path.close()
    c.drawPath(path, stroke=0, fill=1)


def chip(c: Canvas) -> None:
    c.rect(-0.4, -0.4, 0.8, 0.8, stroke=0, fill=1)
    for i in (-0.25, 0.0, 0.25):
        c.rect(i - 0.05, 0.4, 0.1, 0.25, stroke=0, fill=1)
        c.rect(i - 0.05, -0.65, 0.1, 0.25, stroke=0, fill=1)
        c.rect(0.4, i - 0.05, 0.25, 0.1, stroke=0, fill=1)
        c.rect(-0.65, i - 0.05, 0.25, 0.1, stroke=0, fill=1)


def truck(c: Canvas) -> None:
    c.rect(-0.7, -0.3, 0.8, 0.65, stroke=0, fill=1)
    _poly(c, [(0.15, -0.3), (0.15, 0.2), (0.45, 0.2), (0.7, -0.05), (0.7, -0.3)])
    c.circle(-0.4, -0.42, 0.16, stroke=0, fill=1)
    c.circle(0.42, -0.42, 0.16, stroke=0, fill=1)


def bowl(c: Canvas) -> None:
    path = c.beginPath()
    path.moveTo(-0.68, 0.0)
    path.lineTo(0.68, 0.0)
    path.curveTo(0.68, -0.5, 0.3, -0.65, 0, -0.65)
    path.curveTo(-0.3, -0.65, -0.68, -0.5, -0.68, 0.0)
    path.close()
    c.drawPath(path, stroke=0, fill=1)
    for x in (-0.25, 0.05, 0.35):
        c.rect(x - 0.05, 0.12, 0.1, 0.45, stroke=0, fill=1)


def wrench(c: Canvas) -> None:
    c.saveState()
    c.rotate(45)
    c.rect(-0.12, -0.7, 0.24, 1.0, stroke=0, fill=1)
    c.circle(0, 0.42, 0.3, stroke=0, fill=1)
    c.restoreState()


def clock(c: Canvas) -> None:
    c.saveState()
    c.setLineWidth(0.14)
    c.circle(0, 0, 0.6, stroke=1, fill=0)
    c.line(0, 0, 0, 0.42)
    c.line(0, 0, 0.3, -0.1)
    c.restoreState()


def plus(c: Canvas) -> None:
    c.rect(-0.16, -0.6, 0.32, 1.2, stroke=0, fill=1)
    c.rect(-0.6, -0.16, 1.2, 0.32, stroke=0, fill=1)


def eye(c: Canvas) -> None:
    path = c.beginPath()
    path.moveTo(-0.72, 0)
    path.curveTo(-0.3, 0.55, 0.3, 0.55, 0.72, 0)
    path.curveTo(0.3, -0.55, -0.3, -0.55, -0.72, 0)
    path.close()
    path.circle(0, 0, 0.2)
    c.drawPath(path, stroke=0, fill=1, fillMode=0)


SHAPES: dict[str, Drawer] = {f.__name__: f for f in (
    coin, gear, megaphone, chart, heart, star, play, person, card, bolt, shield, link, arrow, diamond,
    crown, flag, book, building, cube, flask, leaf, chip, truck, bowl, wrench, clock, plus, eye)}


def draw_icon(canvas: Canvas, shape: str, colour, cx: float, cy: float, radius: float) -> None:
    """A disc of `colour` at (cx, cy) points with the white `shape` on it."""
    canvas.saveState()
    canvas.setFillColor(colour)
    canvas.circle(cx, cy, radius, stroke=0, fill=1)
    canvas.translate(cx, cy)
    canvas.scale(radius, radius)
    canvas.setFillColorRGB(1, 1, 1)
    canvas.setStrokeColorRGB(1, 1, 1)
    SHAPES[shape](canvas)
    canvas.restoreState()
