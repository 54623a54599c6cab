"""Card pictures for the browser, drawn by the print renderer itself.

A picture is `cards.draw_front` on a PDF page of the card's size,
rasterised with pypdfium2 (`render.tts.rasterise`, the same path as
`cardc export`), so the screen never shows a card the printer would not.

Pictures are cached by what they are drawn from (the face, its deck and the
game's params), not by the bundle: after an edit to one card only that card
is drawn again, and its URL changes (`key`), so the browser fetches it anew
while every other picture stays in its cache.  pdfium is not thread-safe,
so one lock serialises drawing.
"""
from __future__ import annotations

import hashlib
import io
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cardc.render.cards import Face, prepare
from cardc.render.fonts import load_fonts
from cardc.render.layout import Layout
from cardc.render.pipeline import build_faces
from cardc.render.tts import rasterise

CACHE_SIZE = 600


@dataclass(frozen=True)
class Picture:
    """What one card looks like: its face and the key its picture is cached by."""
    face: Face
    key: str


def pictures_of(bundle: Mapping[str, Any], layout: Layout) -> dict[str, Picture]:
    """Every card definition of the bundle, by card id, with its picture key."""
    params = bundle.get("params") or {}
    faces = build_faces(bundle, layout)
    return {cid: Picture(face, _key(face, layout, params)) for cid, face in faces.items()}


def _key(face: Face, layout: Layout, params) -> str:
    text = repr((face, layout.icons, sorted(params.items(), key=str)))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class PictureCache:
    """PNG bytes by picture key.  `warm` draws a game's missing pictures in
    small batches (one PDF per batch, as export does) right after a build, so
    the gallery rarely waits; `png` draws a missing one on request."""

    BATCH = 8

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._png: OrderedDict[str, bytes] = OrderedDict()
        self.stopping = threading.Event()     # set when the server stops: warming ends early

    def png(self, bundle: Mapping[str, Any], layout: Layout, picture: Picture) -> bytes:
        with self._lock:
            if picture.key not in self._png:
                self._draw(bundle, layout, [picture])
            self._png.move_to_end(picture.key)
            return self._png[picture.key]

    def warm(self, bundle: Mapping[str, Any], layout: Layout, pictures) -> None:
        missing = [p for p in pictures if p.key not in self._png]
        for start in range(0, len(missing), self.BATCH):
            if self.stopping.is_set():
                return
            with self._lock:
                self._draw(bundle, layout, [p for p in missing[start:start + self.BATCH]
                                    if p.key not in self._png])

    def _draw(self, bundle, layout, pictures) -> None:
        if not pictures:
            return
        fonts = load_fonts()
        params = bundle.get("params") or {}
        prepared = [prepare(p.face, layout, fonts, params) for p in pictures]
        images, _ = rasterise(prepared, {}, fonts)
        for p in pictures:
            out = io.BytesIO()
            images[p.face.card_id].save(out, format="PNG", compress_level=1)
            self._png[p.key] = out.getvalue()
        while len(self._png) > CACHE_SIZE:
            self._png.popitem(last=False)
