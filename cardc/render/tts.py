"""`cardc export --tts`: a Tabletop Simulator saved object, its sheets, web images.

The pictures come from the print renderer itself: every card face is drawn
by cards.draw_front onto a PDF page of exactly the card's size, and that
PDF is rasterised with pypdfium2, so a screen never shows a card the
printer would not. Per deck, faces go on sheets of at most 10 x 7 slots
(TTS's limit) and 4096 px a side, RGB; the bottom-right slot holds the
hidden-card image (the back), as TTS expects. `--card-px` sets a card's
width in pixels (default 409, the largest a full 10 x 7 sheet allows);
larger cards get sheets with fewer columns.

The saved object (`tts/<game>.json`, load it from TTS's Saved Objects
folder) holds one TTS deck per physical deck of the layout, with one
contained card per physical copy (a 98-card draw pile is 98 cards, even if
it has 35 different faces), each with its DeckID, nickname and text (in
the BBCode TTS shows, not the cards' **markup**), plus the board and the
trackers as custom tiles. Pieces that are not cards (a deck of style tile,
such as ipo's square property tiles, and every token sheet: company
markers, money, per-player tokens in seat colours) are Custom_Tiles of
their own shape, in one Bag per kind, so TTS never stretches them to a
card. Image URLs are file:// paths of the written sheets, or `--url-base`
+ the file name once uploaded.

Files (in out_dir, normally generated/<game>/):
  tts/<game>.json      the saved object: ObjectStates with decks, board, trackers
  tts/<deck>-<n>.png   sheet n of a deck
  tts/<deck>-back.png  the deck's back
  tts/board-<n>.png, tts/tracker-<n>.png   the ipo-style components
  tts/manifest.json    per sheet: columns, rows, and the card in each slot
  tts/token-<id>.png   each token face (markers, money, player tokens)
  web/<card id>.png    one image per card definition
"""

from __future__ import annotations

import dataclasses
import functools
import io
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from .atomic import write_atomic
from .cards import Prepared, draw_back, draw_front, prepare_all, prepare_back
from .components import board_pages, tracker_pages
from .errors import OptionError
from .fonts import Fonts, load_fonts
from .layout import Deck, load_layout
from .pipeline import aid_faces, art_folder, build_faces, grid_tiles, instance_ids, token_faces
from .sheets import PAPERS
from .text import to_bbcode

MAX_COLS, MAX_ROWS, MAX_PX = 10, 7, 4096
DEFAULT_PX = 409  # a card's width when a full 10 x 7 sheet must stay within 4096 px
MIN_PX, MAX_CARD_PX = 100, 2048


@dataclass(frozen=True)
class Sheet:
    deck: str
    index: int
    cols: int
    rows: int
    card_ids: tuple[str, ...]


def card_pixels(deck: Deck, width: int | None = None) -> tuple[int, int]:
    """One card's size in pixels: `width` wide, or by default the largest
    that lets a full 10 x 7 sheet stay within 4096 px."""
    if width is None:
        width = min(MAX_PX // MAX_COLS, int(MAX_PX // MAX_ROWS * deck.width / deck.height))
    return width, round(width * deck.height / deck.width)


def grid_limits(size: tuple[int, int]) -> tuple[int, int]:
    """Columns and rows a sheet may have for cards of `size` px."""
    return max(1, min(MAX_COLS, MAX_PX // size[0])), max(1, min(MAX_ROWS, MAX_PX // size[1]))


def plan_sheets(deck: Deck, card_ids: Sequence[str], size: tuple[int, int] | None = None) -> list[Sheet]:
    """Split a deck's cards over sheets, leaving each sheet's last slot for the back."""
    max_cols, max_rows = grid_limits(size or card_pixels(deck))
    per_sheet = max(1, max_cols * max_rows - 1)
    sheets = []
    for index, start in enumerate(range(0, len(card_ids), per_sheet)):
        chunk = tuple(card_ids[start:start + per_sheet])
        cols = min(max_cols, len(chunk) + 1)
        rows = math.ceil((len(chunk) + 1) / cols)
        sheets.append(Sheet(deck.id, index + 1, cols, rows, chunk))
    return sheets


def rasterise(cards: Sequence[Prepared], backs: Mapping[str, Any], fonts: Fonts,
              width: int | None = None) -> tuple[dict[str, Image.Image], dict[str, Image.Image]]:
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
    fronts: dict = {}
    back_images: dict = {}
    for index, (side, key, deck) in enumerate(pages):
        size = card_pixels(deck, width)
        image = document[index].render(scale=size[0] / (deck.width * mm)).to_pil().convert("RGB")
        if image.size != size:
            image = image.resize(size, Image.Resampling.LANCZOS)
        (fronts if side == "front" else back_images)[key] = image
    document.close()
    return fronts, back_images


def _transform(x: float, z: float, face_down: bool = True, scale: float = 1.0) -> dict[str, float]:
    return {"posX": x, "posY": 1.0, "posZ": z, "rotX": 0.0, "rotY": 180.0, "rotZ": 180.0 if face_down else 0.0,
            "scaleX": scale, "scaleY": 1.0, "scaleZ": scale}


def _custom_deck(url: str, back_url: str, sheet: Sheet) -> dict[str, Any]:
    return {"FaceURL": url, "BackURL": back_url, "NumWidth": sheet.cols, "NumHeight": sheet.rows,
            "BackIsHidden": True, "UniqueBack": False, "Type": 0}


def tts_decks(groups: Mapping[str, Sequence[str]], sheets: Mapping[str, Sequence[Sheet]],
              faces: Mapping[str, Any], titles: Mapping[str, str], url: Any,
              icons: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """One TTS object per physical deck: a Deck holding every copy (a Card
    when the deck is one card). `groups` lists each deck's physical cards
    (ids, repeated per copy); `url(name)` makes an image URL."""
    objects = []
    key = 0
    for position, (deck_id, copies) in enumerate(groups.items()):
        custom, slot_of = {}, {}
        for sheet in sheets[deck_id]:
            key += 1
            custom[str(key)] = _custom_deck(url(f"{deck_id}-{sheet.index}.png"), url(f"{deck_id}-back.png"), sheet)
            for slot, card_id in enumerate(sheet.card_ids):
                slot_of[card_id] = (key, key * 100 + slot)
        cards = []
        for card_id in copies:
            deck_key, card_key = slot_of[card_id]
            face = faces[card_id]
            cards.append({"Name": "Card", "Nickname": face.name, "Description": to_bbcode(face.text, icons or {}),
                          "CardID": card_key, "CustomDeck": {str(deck_key): custom[str(deck_key)]},
                          "Transform": _transform(position * 3.0, 0.0)})
        if len(cards) == 1:
            objects.append(cards[0])
            continue
        objects.append({"Name": "Deck", "Nickname": titles[deck_id], "Transform": _transform(position * 3.0, 0.0),
                        "DeckIDs": [c["CardID"] for c in cards], "CustomDeck": custom, "ContainedObjects": cards})
    return objects


def tile_bag(title: str, entries: Sequence[tuple[Any, str, int]], index: int) -> dict[str, Any]:
    """A Bag of Custom_Tile pieces, `copies` of each face: tiles, markers and
    money keep their own shape (a card would stretch them to 2.5 x 3.5), and
    each tile's scale is its printed width (TTS: about 1 unit an inch, a
    tile of scale 1 two units wide)."""
    pieces = []
    for face, image_url, copies in entries:
        scale = face.deck.width / 25.4 / 2
        for _ in range(copies):
            pieces.append({"Name": "Custom_Tile", "Nickname": face.name,
                           "Transform": _transform(0.0, 0.0, face_down=False, scale=scale),
                           "CustomImage": {"ImageURL": image_url, "ImageSecondaryURL": "", "WidthScale": 0.0,
                                           "CustomTile": {"Type": 0, "Thickness": 0.1, "Stackable": True,
                                                          "Stretch": False}}})
    return {"Name": "Bag", "Nickname": title, "Transform": _transform(-6.0 - 3.0 * index, -6.0, face_down=False),
            "ContainedObjects": pieces}


def component_images(bundle: Mapping[str, Any], layout: Any, fonts: Fonts, dpi: int = 150) -> dict[str, Image.Image]:
    """The board (cropped to its squares) and each tracker page, as images."""
    import pypdfium2 as pdfium

    buffer = io.BytesIO()
    canvas = Canvas(buffer, invariant=1, initialFontName=fonts.name("regular"))
    areas = board_pages(canvas, fonts, bundle["grid"], layout.board, PAPERS["a4"], layout.title) \
        if bundle.get("grid") else []
    trackers = tracker_pages(canvas, fonts, layout.trackers, bundle, PAPERS["a4"], layout.title)
    if not areas and not trackers:
        return {}
    canvas.save()
    document = pdfium.PdfDocument(buffer.getvalue())
    images = {}
    scale = dpi / 72
    for index in range(len(document)):
        page = document[index]
        image = page.render(scale=scale).to_pil().convert("RGB")
        if index < len(areas):
            area, h = areas[index], page.get_height()
            px = scale * mm
            box = (round(area.x * px), round(h * scale - area.top * px),
                   round(area.right * px), round(h * scale - area.y * px))
            images[f"board-{index + 1}.png"] = image.crop(box)
        else:
            images[f"tracker-{index - len(areas) + 1}.png"] = image
    document.close()
    return images


def export_tts(bundle: Mapping[str, Any], out_dir: Path, card_px: int | None = None,
               url_base: str | None = None, art_root: Path | None = None) -> list[Path]:
    """Write the TTS saved object, sheets, backs, manifest and web images; returns the paths."""
    if card_px is not None and not MIN_PX <= card_px <= MAX_CARD_PX:
        raise OptionError(f"--card-px must be between {MIN_PX} and {MAX_CARD_PX}, not {card_px}")
    fonts = load_fonts()
    layout = load_layout(bundle)
    params = bundle.get("params") or {}
    faces = build_faces(bundle, layout)
    physical = instance_ids(bundle)
    aids = aid_faces(bundle, layout)  # the printed player aids, one of each per seat, as their own deck
    faces.update({face.card_id: face for face in aids})
    seats = int((bundle.get("players") or {}).get("max", 1))
    physical += [face.card_id for face in aids for _ in range(seats)]
    if bundle.get("grid") and not any(f.deck.style == "tile" for f in faces.values()):
        tiles = grid_tiles(bundle, layout)
        faces.update({f.card_id: f for f in tiles})
        physical += [f.card_id for f in tiles]
    art = art_folder(bundle, art_root)
    prepared = {card_id: dataclasses.replace(card, art=art.load(card.face.image))
                for card_id, card in prepare_all(faces, layout, fonts, params).items()}
    decks: dict[str, list[str]] = {}
    for card_id, card in prepared.items():
        decks.setdefault(card.face.deck.id, []).append(card_id)
    backs = {deck_id: dataclasses.replace(prepare_back(deck, fonts), image=deck.back.image,
                                          art=art.load(deck.back.image))
             for deck_id, deck in ((d, prepared[ids[0]].face.deck) for d, ids in decks.items())}
    fronts, back_images = rasterise(list(prepared.values()), backs, fonts, card_px)

    pieces = token_faces(bundle, layout)  # company markers, money, player tokens: square or oblong pieces
    token_prepared = [prepare_all({face.card_id: face}, layout, fonts, params)[face.card_id] for face, _ in pieces]
    token_images = rasterise(token_prepared, {}, fonts)[0] if token_prepared else {}
    tile_ids = {card_id for card_id in decks if prepared[decks[card_id][0]].face.deck.style == "tile"}
    counts: dict[str, int] = {}
    for card_id in physical:
        counts[card_id] = counts.get(card_id, 0) + 1
    out = Path(out_dir)
    images: dict[Path, Image.Image] = {}
    manifest: list[dict[str, Any]] = []
    sheets: dict[str, list[Sheet]] = {}
    for deck_id, ids in decks.items():
        deck = prepared[ids[0]].face.deck
        if deck_id in tile_ids:  # a tile is not a card: a Custom_Tile each (tiles_in_bags), no sheet
            continue
        w, h = card_pixels(deck, card_px)
        images[out / "tts" / f"{deck_id}-back.png"] = back_images[deck_id]
        sheets[deck_id] = plan_sheets(deck, ids, (w, h))
        for sheet in sheets[deck_id]:
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
    for (face, _), image in zip(pieces, token_images.values(), strict=False):
        images[out / "tts" / f"token-{face.card_id}.png"] = image
    components = component_images(bundle, layout, fonts)
    for name, image in components.items():
        images[out / "tts" / name] = image

    def url(name: str) -> str:
        if url_base:
            return url_base.rstrip("/") + "/" + name
        return (out / "tts" / name).resolve().as_uri()

    def url_web(card_id: str) -> str:
        if url_base:
            return url_base.rstrip("/") + f"/web/{card_id}.png"
        return (out / "web" / f"{card_id}.png").resolve().as_uri()

    groups: dict[str, list[str]] = {deck_id: [] for deck_id in decks}
    for card_id in physical:
        groups[faces[card_id].deck.id].append(card_id)
    titles = {deck.id: deck.title for deck in [*layout.decks, *layout.extra_decks.values()]}
    objects = tts_decks({d: c for d, c in groups.items() if c and d not in tile_ids}, sheets, faces, titles, url,
                        layout.icons)
    bags: dict[str, list[tuple[Any, str, int]]] = {}  # bag title -> (face, image name, copies)
    for deck_id in tile_ids:
        for card_id in decks[deck_id]:
            bags.setdefault(titles[deck_id], []).append((faces[card_id], url_web(card_id), counts.get(card_id, 0)))
    for face, count in pieces:
        bags.setdefault(face.deck.title, []).append((face, url(f"token-{face.card_id}.png"), count))
    for index, (title, entries) in enumerate(bags.items()):
        objects.append(tile_bag(title, entries, index))
    for index, (name, image) in enumerate(sorted(components.items())):
        width_in = image.width / 150  # inches at 150 dpi: TTS scale 1 is about 1 inch a unit... close enough to read
        objects.append({"Name": "Custom_Tile", "Nickname": name.removesuffix(".png").replace("-", " ").title(),
                        "Transform": _transform(0.0, -12.0 - index * 12.0, face_down=False, scale=width_in / 2),
                        "CustomImage": {"ImageURL": url(name), "ImageSecondaryURL": "", "WidthScale": 0.0,
                                        "CustomTile": {"Type": 0, "Thickness": 0.1, "Stackable": False,
                                                       "Stretch": True}}})
    saved = {"SaveName": f"{layout.title} (cardc)", "GameMode": layout.title, "Date": "", "Table": "",
             "Sky": "", "Note": f"Exported by cardc from {bundle.get('game')} {layout.stamp}", "Rules": "",
             "XmlUI": "", "LuaScript": "", "LuaScriptState": "", "ObjectStates": objects, "TabStates": {},
             "VersionNumber": ""}

    written = [write_atomic(path, functools.partial(_save_png, image)) for path, image in images.items()]
    written.append(write_atomic(out / "tts" / "manifest.json", json.dumps({"sheets": manifest}, indent=1) + "\n"))
    written.append(write_atomic(out / "tts" / f"{bundle.get('game', 'game')}.json", json.dumps(saved, indent=1) + "\n"))
    return written


def _save_png(image: Image.Image, path) -> None:
    """Write `image` as a PNG to `path` (what write_atomic calls with its temporary file)."""
    image.save(path, format="PNG")
