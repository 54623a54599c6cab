"""`cardc export --tts`: Tabletop Simulator deck sheets and web images.

The pictures come from the print renderer itself: every card face is drawn
by cards.draw_front onto a PDF page of exactly the card's size, and that
PDF is rasterised with pypdfium2, so a screen never shows a card the
printer would not. Per deck, faces go on sheets of at most 10 x 7 slots
(TTS's limit), at most 4096 px a side, RGB; the bottom-right slot holds
the hidden-card image (the back), as TTS expects. Copies share a slot: the
manifest says how many of each to put in the TTS deck.

Files (in out_dir, normally generated/<game>/):
  tts/<deck>-<n>.png   sheet n of a deck
  tts/<deck>-back.png  the deck's back
  tts/manifest.json    per sheet: columns, rows, and the card in each slot
  web/<card id>.png    one image per card definition
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from PIL import Image
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from .atomic import write_atomic
from .cards import Prepared, draw_back, draw_front, prepare, prepare_back
from .fonts import Fonts, load_fonts
from .layout import Deck, load_layout
from .pipeline import build_faces, grid_tiles, instance_ids

MAX_COLS, MAX_ROWS, MAX_PX = 10, 7, 4096


@dataclass(frozen=True)
class Sheet:
    deck: str
    index: int
    cols: int
    rows: int
    card_ids: tuple[str, ...]


def card_pixels(deck: Deck) -> tuple[int, int]:
    """One card's size in pixels: the largest that lets a full 10 x 7 sheet stay within 4096 px."""
    width = min(MAX_PX // MAX_COLS, int(MAX_PX // MAX_ROWS * deck.width / deck.height))
    return width, round(width * deck.height / deck.width)


def plan_sheets(deck: Deck, card_ids: Sequence[str]) -> list[Sheet]:
    """Split a deck's cards over sheets, leaving each sheet's last slot for the back."""
    per_sheet = MAX_COLS * MAX_ROWS - 1
    sheets = []
    for index, start in enumerate(range(0, len(card_ids), per_sheet)):
        chunk = tuple(card_ids[start:start + per_sheet])
        cols = min(MAX_COLS, len(chunk) + 1)
        rows = math.ceil((len(chunk) + 1) / cols)
        sheets.append(Sheet(deck.id, index + 1, cols, rows, chunk))
    return sheets


def rasterise(cards: Sequence[Prepared], backs: Mapping[str, Any], fonts: Fonts) -> tuple[dict[str, Image.Image], dict[str, Image.Image]]:
    """Card images by card id and back images by deck id, via one PDF with a page per picture."""
    import pypdfium2 as pdfium  # only export needs a rasteriser; `cardc print` works without it

    buffer = io.BytesIO()
    canvas = Canvas(buffer, invariant=1, initialFontName=fonts.name("regular"))
    pages: list[tuple[str, str, Deck]] = []
    for card in cards:
        deck = card.face.deck
        canvas.setPageSize((deck.width * mm, deck.height * mm))
        draw_front(canvas, card, fonts, 0, 0)
        canvas.showPage()
        pages.append(("front", card.face.card_id, deck))
    for deck_id, back in backs.items():
        canvas.setPageSize((back.deck.width * mm, back.deck.height * mm))
        draw_back(canvas, back, fonts, 0, 0)
        canvas.showPage()
        pages.append(("back", deck_id, back.deck))
    canvas.save()
    document = pdfium.PdfDocument(buffer.getvalue())
    fronts, back_images = {}, {}
    for index, (side, key, deck) in enumerate(pages):
        size = card_pixels(deck)
        image = document[index].render(scale=size[0] / (deck.width * mm)).to_pil().convert("RGB")
        if image.size != size:
            image = image.resize(size, Image.LANCZOS)
        (fronts if side == "front" else back_images)[key] = image
    document.close()
    return fronts, back_images


def export_tts(bundle: Mapping[str, Any], out_dir: Path) -> list[Path]:
    """Write the TTS sheets, backs, manifest and web images; returns the paths."""
    fonts = load_fonts()
    layout = load_layout(bundle)
    params = bundle.get("params") or {}
    faces = build_faces(bundle, layout)
    if bundle.get("grid") and not any(f.deck.style == "tile" for f in faces.values()):
        faces.update({f.card_id: f for f in grid_tiles(bundle, layout)})
    prepared = {card_id: prepare(face, layout, fonts, params) for card_id, face in faces.items()}
    decks: dict[str, list[str]] = {}
    for card_id, card in prepared.items():
        decks.setdefault(card.face.deck.id, []).append(card_id)
    backs = {deck_id: prepare_back(prepared[ids[0]].face.deck, fonts) for deck_id, ids in decks.items()}
    fronts, back_images = rasterise(list(prepared.values()), backs, fonts)

    counts: dict[str, int] = {}
    for card_id in instance_ids(bundle):
        counts[card_id] = counts.get(card_id, 0) + 1
    out = Path(out_dir)
    images: dict[Path, Image.Image] = {}
    manifest: list[dict[str, Any]] = []
    for deck_id, ids in decks.items():
        deck = prepared[ids[0]].face.deck
        w, h = card_pixels(deck)
        images[out / "tts" / f"{deck_id}-back.png"] = back_images[deck_id]
        for sheet in plan_sheets(deck, ids):
            image = Image.new("RGB", (sheet.cols * w, sheet.rows * h), "white")
            for slot, card_id in enumerate(sheet.card_ids):
                row, col = divmod(slot, sheet.cols)
                image.paste(fronts[card_id], (col * w, row * h))
            image.paste(back_images[deck_id], ((sheet.cols - 1) * w, (sheet.rows - 1) * h))  # hidden card
            name = f"{deck_id}-{sheet.index}.png"
            images[out / "tts" / name] = image
            manifest.append({"deck": deck_id, "face": name, "back": f"{deck_id}-back.png",
                             "columns": sheet.cols, "rows": sheet.rows,
                             "cards": [{"id": i, "count": counts.get(i, 1)} for i in sheet.card_ids]})
    for card_id, image in fronts.items():
        images[out / "web" / f"{card_id}.png"] = image

    written = [write_atomic(path, lambda tmp, im=image: im.save(tmp, format="PNG")) for path, image in images.items()]
    written.append(write_atomic(out / "tts" / "manifest.json", json.dumps({"sheets": manifest}, indent=1) + "\n"))
    return written
