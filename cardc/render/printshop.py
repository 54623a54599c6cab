"""`cardc export GAME --for SHOP`: card files a print shop accepts.

Home sheets (`cardc print`) put nine cards on a page with crop marks; a
print shop wants one image (or one PDF page) per card face, at its own
product size, with 1/8 in of bleed all round, and the text inside its safe
zone. Each shop below is a table of what it asks for; one renderer serves
all:

- thegamecrafter, makeplayingcards: a PNG per card face and per back at
  300 dpi and the shop's pixel size (poker: 825 x 1125 and 822 x 1122), and
  quantities.csv listing how many of each to order;
- pdf: one PDF a deck, a page per card face then its back, each page the
  trim plus 1/8 in bleed with TrimBox and BleedBox set (what printers who
  take PDFs check); `--cmyk` writes its vector colours as DeviceCMYK.

The card is drawn exactly as on the home sheets, scaled from the deck's
trim to the product's (63 x 88 mm poker is printed on a 2.5 x 3.5 in card,
0.8 % larger) and with the card's own bleed. PNGs are rasterised from that
PDF with pdfium, so what the shop prints is what `cardc print` shows.

`check_export` reads every file back (pixel size, dpi, bleed, page boxes):
the export runs it before it reports success, and the tests run it on
every shipped game.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportlab.lib.colors import CMYKColor, Color, rgb2cmyk, toColor
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from .art import ArtFolder
from .atomic import write_atomic
from .cards import Prepared, PreparedBack, Sides, draw_back, draw_front, prepare_all
from .errors import RenderError
from .fonts import Fonts, load_fonts
from .layout import TEXT_BOXES, Deck, load_layout
from .sizes import size_name
from .text import text_span

DPI = 300
INCH = 25.4


@dataclass(frozen=True)
class Shop:
    """What one print shop asks for: its card products (trim in inches by
    our size names), its bleed in pixels at 300 dpi, and its safe zone."""

    id: str
    title: str
    products: Mapping[str, tuple[float, float]]
    bleed_px: float
    safe_in: float  # text and art stay this far inside the trim
    images: bool  # PNGs (True) or one PDF a deck (False)
    upload: tuple[str, ...]  # how to upload, for README.txt and docs/print.md


PRODUCTS_IN = {"poker": (2.5, 3.5), "bridge": (2.25, 3.5), "tarot": (2.75, 4.75), "mini": (1.75, 2.5),
               "square": (2.5, 2.5)}

SHOPS: dict[str, Shop] = {
    "thegamecrafter": Shop(
        "thegamecrafter", "The Game Crafter", PRODUCTS_IN, bleed_px=37.5, safe_in=0.125, images=True,
        upload=("Make a game, add a deck of the product named in quantities.csv (Poker Deck for poker cards).",
                "Upload the folder's PNGs as the deck's faces (Add Cards > Upload many) and back.png as its back.",
                "Set each card's quantity from quantities.csv; check the proof in the shop's previewer.")),
    "makeplayingcards": Shop(
        "makeplayingcards", "MakePlayingCards", PRODUCTS_IN, bleed_px=36, safe_in=0.125, images=True,
        upload=("Choose the card product named in quantities.csv (Poker Size for poker cards), 'Custom' decks.",
                "Upload the faces (Different images) and back.png as the same back for all.",
                "Repeat a face as many times as quantities.csv says; the shop trims the 36 px bleed.")),
    "pdf": Shop(
        "pdf", "a press-ready PDF", PRODUCTS_IN, bleed_px=37.5, safe_in=0.125, images=False,
        upload=("One PDF a deck: each page is one card face followed by its back, trim plus 1/8 in bleed.",
                "TrimBox marks the cut and BleedBox the bleed: send it to a printer who takes PDFs,",
                "with quantities.csv; --cmyk writes its colours as CMYK (images stay RGB).")),
}


@dataclass(frozen=True)
class Product:
    """One deck's card as the shop makes it."""

    name: str
    trim_mm: tuple[float, float]
    bleed_mm: float
    px: tuple[int, int]  # with bleed, at 300 dpi


def product_for(shop: Shop, deck: Deck) -> Product:
    """The shop's product for the deck's size: the one its size name names,
    else one within 2 mm each way; else an error listing what it makes."""
    name = size_name(deck.width, deck.height)
    if name not in shop.products:
        name = next((n for n, (w, h) in shop.products.items()
                     if abs(w * INCH - deck.width) <= 2 and abs(h * INCH - deck.height) <= 2), None)
    if name is None:
        sizes = ", ".join(f"{n} {w:g} x {h:g} in" for n, (w, h) in shop.products.items())
        raise RenderError(f"deck {deck.id}: {shop.title} makes no {deck.width:g} x {deck.height:g} mm card "
                          f"(it makes {sizes}); give the deck one of these sizes in layout.yaml")
    w_in, h_in = shop.products[name]
    bleed = shop.bleed_px / DPI * INCH
    px = (round(w_in * DPI + 2 * shop.bleed_px), round(h_in * DPI + 2 * shop.bleed_px))
    return Product(name, (w_in * INCH, h_in * INCH), bleed, px)


def safe_zone_problems(card: Prepared, product: Product, shop: Shop, fonts: Fonts) -> list[str]:
    """Each text or art box of a card that reaches into the shop's safe zone
    (measured on the product's trim, after scaling)."""
    deck = card.face.deck
    sx, sy = product.trim_mm[0] / deck.width, product.trim_mm[1] / deck.height
    safe = shop.safe_in * INCH
    used = [name for name in TEXT_BOXES if name in card.fitted]
    if card.face.image and "art" in card.boxes:
        used.append("art")
    problems = []
    for name in used:
        box = card.boxes[name]
        left, right = box.x, box.x + box.w
        if name in card.fitted:  # text: where its lines are set, not the whole box it may fill
            start, end = text_span(card.fitted[name], deck.styles[name], fonts, box.w * mm)  # cards, never tiles
            left, right = box.x + start / mm, box.x + end / mm
        edge = min(left * sx, box.y * sy, (deck.width - right) * sx, (deck.height - box.y - box.h) * sy)
        if edge < safe - 1e-6:
            problems.append(f"card {card.face.card_id}: box {name} comes {edge:.1f} mm from the cut; "
                            f"{shop.title} keeps {safe:.1f} mm clear")
    return problems


def art_resolution_note(card: Prepared, product: Product, shop: Shop) -> str | None:
    """A note when a card's raster art is drawn at under 300 dpi on the
    product (it fills its box, so the image's short side sets the scale)."""
    art, deck = card.art, card.face.deck
    if art is None or art.raster is None or "art" not in card.boxes:
        return None
    box = card.boxes["art"]
    w_in = box.w * product.trim_mm[0] / deck.width / INCH
    h_in = box.h * product.trim_mm[1] / deck.height / INCH
    dpi = min(art.width / w_in, art.height / h_in)
    if dpi >= DPI - 0.5:
        return None
    return (f"card {card.face.card_id}: its art {card.face.image} ({art.width:g} x {art.height:g} px) prints at "
            f"{dpi:.0f} dpi; {shop.title} prints at {DPI}: use an image of at least "
            f"{math.ceil(w_in * DPI)} x {math.ceil(h_in * DPI)} px")


def to_cmyk(colour: Any) -> CMYKColor:
    """ReportLab's enforceColorSpace hook: every vector colour as DeviceCMYK
    (a naive conversion: no ICC profile; greys go to the black plate only)."""
    c = toColor(colour)
    if isinstance(c, CMYKColor):
        return c
    if isinstance(c, Color) and c.red == c.green == c.blue:
        return CMYKColor(0, 0, 0, 1 - c.red, alpha=c.alpha)
    return CMYKColor(*rgb2cmyk(c.red, c.green, c.blue), alpha=c.alpha)


def card_pdf(draw: Callable[[Canvas], None], product: Product, deck: Deck, cmyk: bool = False,
             canvas: Canvas | None = None) -> Canvas:
    """One page of trim plus bleed, with TrimBox and BleedBox, the card
    drawn scaled from the deck's trim to the product's by `draw(canvas)`
    (which draws at the origin with the given bleed)."""
    w, h = product.trim_mm
    b = product.bleed_mm
    if canvas is None:
        canvas = Canvas(io.BytesIO(), invariant=1, pageCompression=1,
                        enforceColorSpace=to_cmyk if cmyk else None)
    canvas.setPageSize(((w + 2 * b) * mm, (h + 2 * b) * mm))
    canvas.setTrimBox([b * mm, b * mm, (w + b) * mm, (h + b) * mm])
    canvas.setBleedBox([0, 0, (w + 2 * b) * mm, (h + 2 * b) * mm])
    canvas.saveState()
    canvas.translate(b * mm, b * mm)
    canvas.scale(w / deck.width, h / deck.height)
    draw(canvas)
    canvas.restoreState()
    canvas.showPage()
    return canvas


def _png(draw: Callable[[Canvas], None], product: Product, deck: Deck) -> bytes:
    """The card as a 300 dpi PNG of exactly the product's pixel size."""
    import pypdfium2 as pdfium

    buffer = io.BytesIO()
    canvas = Canvas(buffer, invariant=1, pageCompression=1)
    card_pdf(draw, product, deck, canvas=canvas)
    canvas.save()
    image = pdfium.PdfDocument(buffer.getvalue())[0].render(scale=DPI / 72).to_pil().convert("RGB")
    if image.width < product.px[0] or image.height < product.px[1]:
        raise RenderError(f"rasterising gave {image.width} x {image.height} px, not {product.px[0]} x "
                          f"{product.px[1]}")
    image = image.crop((0, 0, *product.px))  # pdfium may round a fractional point up by one pixel of bleed
    out = io.BytesIO()
    image.save(out, format="PNG", dpi=(DPI, DPI), optimize=False)
    return out.getvalue()


def _sides(product: Product, deck: Deck) -> Sides:
    """The product's bleed in the deck's own millimetres (before scaling)."""
    bx = product.bleed_mm * deck.width / product.trim_mm[0]
    by = product.bleed_mm * deck.height / product.trim_mm[1]
    return Sides(bx, by, bx, by)


def export_for_shop(bundle: Mapping[str, Any], shop_id: str, out_dir: Path, cmyk: bool = False,
                    art_root: Path | None = None, notes: list[str] | None = None) -> list[Path]:
    """Write the game's card decks for `shop_id` under out_dir/<shop>/ and
    check what was written; returns the paths, and adds to `notes` what the
    printer should know (art under 300 dpi). Tiles, tokens and boards are
    not cards a card printer makes: they stay in `cardc print`."""
    from .pipeline import aid_faces, art_folder, build_faces, instance_ids

    if shop_id not in SHOPS:
        raise RenderError(f"--for must be one of {', '.join(SHOPS)}, not {shop_id!r}")
    shop = SHOPS[shop_id]
    if cmyk and shop.images:
        raise RenderError(f"--cmyk is for --for pdf: {shop.title} takes RGB images and converts them itself")
    fonts = load_fonts()
    layout = load_layout(bundle)
    art = art_folder(bundle, art_root)
    faces = build_faces(bundle, layout)
    aids = aid_faces(bundle, layout)
    faces.update({face.card_id: face for face in aids})
    seats = int((bundle.get("players") or {}).get("max", 1))
    physical = instance_ids(bundle) + [face.card_id for face in aids for _ in range(seats)]
    prepared = {k: dataclasses.replace(v, art=art.load(v.face.image))
                for k, v in prepare_all(faces, layout, fonts, bundle.get("params") or {}).items()
                if v.face.deck.style != "tile"}
    counts: dict[str, int] = {}
    for card_id in physical:
        if card_id in prepared:
            counts[card_id] = counts.get(card_id, 0) + 1
    decks: dict[str, list[Prepared]] = {}
    for card_id in counts:
        decks.setdefault(prepared[card_id].face.deck.id, []).append(prepared[card_id])
    files: dict[str, bytes] = {}
    problems: list[str] = []
    for cards in decks.values():
        deck = cards[0].face.deck
        product = product_for(shop, deck)
        for card in cards:
            problems += safe_zone_problems(card, product, shop, fonts)
            note = art_resolution_note(card, product, shop)
            if note and notes is not None:
                notes.append(note)
        files.update(_deck_files(shop, product, deck, cards, counts, fonts, art, cmyk))
    if problems:
        shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
        raise RenderError(f"text or art in {shop.title}'s safe zone: {shown}; move the boxes inward in layout.yaml")
    files["README.txt"] = _readme(shop, bundle, decks, counts).encode("utf-8")
    root = Path(out_dir) / shop.id
    paths = [write_atomic(root / name, data) for name, data in files.items()]
    report = check_export(root, shop)
    if report:
        raise RenderError(f"the files written do not pass the {shop.title} check: " + "; ".join(report[:5]))
    return paths


def _deck_files(shop: Shop, product: Product, deck: Deck, cards: Sequence[Prepared], counts: Mapping[str, int],
                fonts: Fonts, art: ArtFolder, cmyk: bool) -> dict[str, bytes]:
    """The files of one deck: PNGs or a PDF, and quantities.csv."""
    from .pipeline import backs_of

    sides = _sides(product, deck)
    back_of = backs_of(cards, fonts, False, art)
    rows = [["file", "card", "count", "product", "back"]]
    out: dict[str, bytes] = {}
    back_names: dict[int, str] = {}

    def back_name(back: PreparedBack, card: Prepared) -> str:
        if id(back) not in back_names:
            back_names[id(back)] = "back.png" if not card.face.back_image else f"{card.face.card_id}-back.png"
        return back_names[id(back)]

    def front(card: Prepared) -> Callable[[Canvas], None]:
        return lambda canvas: draw_front(canvas, card, fonts, 0, 0, sides)

    def back_drawing(back: PreparedBack) -> Callable[[Canvas], None]:
        return lambda canvas: draw_back(canvas, back, fonts, 0, 0, sides)

    if shop.images:
        for card in cards:
            back = back_of(card)
            name = back_name(back, card)
            if f"{deck.id}/{name}" not in out:
                out[f"{deck.id}/{name}"] = _png(back_drawing(back), product, deck)
            out[f"{deck.id}/{card.face.card_id}.png"] = _png(front(card), product, deck)
            rows.append([f"{card.face.card_id}.png", card.face.card_id, str(counts[card.face.card_id]),
                         product.name, name])
    else:
        buffer = io.BytesIO()
        canvas = Canvas(buffer, invariant=1, pageCompression=1, enforceColorSpace=to_cmyk if cmyk else None)
        canvas.setTitle(f"{deck.title}: {shop.title}")
        canvas.setCreator("cardc")
        for index, card in enumerate(cards):
            card_pdf(front(card), product, deck, canvas=canvas)
            card_pdf(back_drawing(back_of(card)), product, deck, canvas=canvas)
            rows.append([f"{deck.id}.pdf", card.face.card_id, str(counts[card.face.card_id]), product.name,
                         f"page {2 * index + 2}"])
        canvas.save()
        out[f"{deck.id}.pdf"] = buffer.getvalue()
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows)
    out[f"{deck.id}/quantities.csv" if shop.images else f"{deck.id}-quantities.csv"] = text.getvalue().encode()
    return out


def _readme(shop: Shop, bundle: Mapping[str, Any], decks: Mapping[str, Sequence[Prepared]],
            counts: Mapping[str, int]) -> str:
    lines = [f"{bundle.get('name', bundle.get('game'))} for {shop.title}, made by cardc.", ""]
    for deck_id, cards in decks.items():
        product = product_for(shop, cards[0].face.deck)
        total = sum(counts[c.face.card_id] for c in cards)
        what = f"{product.px[0]} x {product.px[1]} px at {DPI} dpi" if shop.images else "trim plus 1/8 in bleed"
        lines.append(f"- {deck_id}: {len(cards)} different cards, {total} in all, {product.name} "
                     f"({product.trim_mm[0] / INCH:g} x {product.trim_mm[1] / INCH:g} in), {what}")
    lines += ["", "How to upload:"] + [f"{i}. {step}" for i, step in enumerate(shop.upload, 1)]
    return "\n".join(lines) + "\n"


def _blank(strip: Any) -> float:
    """The share of a greyscale strip that is paper white."""
    counts = strip.histogram()
    return sum(counts[250:]) / max(1, sum(counts))


def check_export(root: Path, shop: Shop | str) -> list[str]:
    """Read back every file of an export: each PNG at its product's pixel
    size and 300 dpi with its background run into the bleed; each PDF page's
    TrimBox inset from its MediaBox by the bleed, BleedBox the whole page.
    Returns the problems found (none: the export passes)."""
    from PIL import Image
    from pypdf import PdfReader

    shop = SHOPS[shop] if isinstance(shop, str) else shop
    problems: list[str] = []
    sizes = {(round(w * DPI + 2 * shop.bleed_px), round(h * DPI + 2 * shop.bleed_px))
             for w, h in shop.products.values()}
    bleed_px = round(shop.bleed_px)
    for path in sorted(root.rglob("*.png")):
        name = path.relative_to(root).as_posix()
        with Image.open(path) as image:
            dpi = tuple(round(float(v)) for v in image.info.get("dpi", (0, 0)))
            if image.size not in sizes:
                problems.append(f"{name}: {image.size[0]} x {image.size[1]} px is no {shop.title} card size")
            if dpi != (DPI, DPI):
                problems.append(f"{name}: {dpi[0]} x {dpi[1]} dpi, not {DPI}")
            grey = image.convert("L")
            w, h = grey.size
            b = bleed_px
            strips = {  # each edge: (the bleed strip, the strip just inside the cut)
                "left": ((0, b, b - 1, h - b), (b + 1, b, 2 * b, h - b)),
                "right": ((w - b + 1, b, w, h - b), (w - 2 * b, b, w - b - 1, h - b)),
                "top": ((b, 0, w - b, b - 1), (b, b + 1, w - b, 2 * b)),
                "bottom": ((b, h - b + 1, w - b, h), (b, h - 2 * b, w - b, h - b - 1)),
            }
            for edge, (outer, inner) in strips.items():
                if _blank(grey.crop(outer)) > _blank(grey.crop(inner)) + 0.05:
                    problems.append(f"{name}: the {edge} bleed is blank paper where the card is not: "
                                    f"the background must run into the bleed")
    for path in sorted(root.rglob("*.pdf")):
        name = path.relative_to(root).as_posix()
        for number, page in enumerate(PdfReader(path).pages, 1):
            media = [float(v) for v in page.mediabox]
            trim = [float(v) for v in page.trimbox]
            bleed = [float(v) for v in page.bleedbox]
            inset = shop.bleed_px / DPI * 72
            want = [media[0] + inset, media[1] + inset, media[2] - inset, media[3] - inset]
            if any(abs(a - b) > 0.05 for a, b in zip(trim, want, strict=False)):
                problems.append(f"{name} page {number}: TrimBox {trim} is not the page less a "
                                f"{shop.bleed_px / DPI:g} in bleed")
            if any(abs(a - b) > 0.05 for a, b in zip(bleed, media, strict=False)):
                problems.append(f"{name} page {number}: BleedBox {bleed} is not the whole page")
    if not any(root.rglob("*.png")) and not any(root.rglob("*.pdf")):
        problems.append(f"{root}: no card files")
    return problems
