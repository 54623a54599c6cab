"""`cardc print`: from a bundle to the PDFs in generated/<game>/.

Everything is rendered in memory first and written only when every page
succeeded, each file atomically: a card that fails (text too long, a glyph
the font lacks) leaves the previous PDFs exactly as they were.

Files written (in `out_dir`, normally generated/<game>/):
  cards.pdf             card fronts, each sheet followed by its backs (duplex)
  cards-backs.pdf       the backs alone, with --backs separate
  components.pdf        tile sheets, the board, trackers (single-sided)
  guide.pdf             the cutting guide and the duplex calibration page
  errata.pdf            only this (and errata-backs.pdf), with --cards ID,...
  proof.pdf             only this, with --proof: one face per card definition
"""

from __future__ import annotations

import dataclasses
import io
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reportlab.pdfgen.canvas import Canvas

from cardc.load.diagnostics import did_you_mean

from .art import ArtFolder
from .atomic import write_atomic
from .cards import (
    Face,
    Prepared,
    PreparedBack,
    contrast_ratio,
    numbered,
    prepare,
    prepare_all,
    prepare_back,
    readable,
    render_strict,
    render_template,
)
from .components import board_pages, cell_names, tracker_pages
from .errors import OptionError
from .fonts import Fonts, load_fonts
from .guide import guide_pages
from .layout import Deck, Layout, load_layout
from .sheets import FITS, PAPERS, Placement, calibration_pages, fit_grid, impose, proof_pages

BACKS = ("long-edge", "short-edge", "separate", "none")
MAX_OFFSET = 20.0  # mm: a back shifted further than this is a printer fault, not an offset
MAX_BLEED = 3.175  # 1/8 in
MAX_STAMP = 24  # characters of --stamp: it shares the footer line with the game's name and the card number
DEFAULT_COLOUR = "#607d8b"

DeckGroup = tuple[Deck, list[Prepared]]


@dataclass(frozen=True)
class PrintOptions:
    paper: str = "a4"  # a4 | letter | common
    bleed: float = 0.0  # mm, 0 to 1/8 in
    backs: str = "long-edge"  # long-edge | short-edge | separate | none
    offset: tuple[float, float] = (0.0, 0.0)  # mm added to everything on back pages
    cards: tuple[str, ...] = ()  # only these card ids (an errata sheet)
    proof: bool = False  # one face per card definition, for reviewing text
    low_ink: bool = False  # white cards and backs: the colour only in titles and thin rules
    fit: str | None = None  # when the bleed costs cards a sheet: keep "cards" (smaller bleed), "bleed", or refuse
    stamp: str | None = None  # the build in every footer instead of the content hash (a date, "proof 2")

    def check(self) -> None:
        if self.paper not in PAPERS:
            raise OptionError(f"--paper must be one of {', '.join(PAPERS)}, not {self.paper!r}")
        if self.backs not in BACKS:
            raise OptionError(f"--backs must be one of {', '.join(BACKS)}, not {self.backs!r}")
        if not 0 <= self.bleed <= MAX_BLEED + 1e-9:
            raise OptionError(f"--bleed must be between 0 and 3.175 mm (1/8 in), not {self.bleed:g}")
        if self.stamp is not None and not (0 < len(self.stamp) <= MAX_STAMP and self.stamp.isprintable()):
            raise OptionError(f"--stamp must be 1 to {MAX_STAMP} printable characters (a date, a build "
                              f"name), not {self.stamp!r}")
        if self.fit is not None and self.fit not in FITS:
            raise OptionError(f"--fit must be one of {', '.join(FITS)}, not {self.fit!r}")
        if not all(math.isfinite(v) and abs(v) <= MAX_OFFSET for v in self.offset):
            raise OptionError(f"--offset must be X,Y with each between -{MAX_OFFSET:g} and {MAX_OFFSET:g} mm "
                              f"(the calibration page measures -15 to 15), not {self.offset[0]:g},{self.offset[1]:g}")

    @property
    def flip(self) -> str:
        """The edge backs are mirrored for; separate backs are fed back like long-edge duplex."""
        return "long-edge" if self.backs in ("separate", "none") else self.backs


@dataclass
class Rendered:
    """PDF bytes by file name, and where every card landed (for tests and export)."""

    files: dict[str, bytes] = field(default_factory=dict)
    placements: dict[str, list[Placement]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # what the printer should know (a smaller bleed...)
    components: list = field(default_factory=list)  # Component per printed thing, for the rulebook and tests


class Pdf:
    """A ReportLab canvas drawing into memory."""

    def __init__(self, title: str, fonts: Fonts) -> None:
        self.buffer = io.BytesIO()
        # invariant=1: no timestamps or random ids, so the same bundle gives the same bytes.
        # The initial font is ours, else every page would reference an unembedded Helvetica.
        self.canvas = Canvas(self.buffer, pageCompression=1, invariant=1, initialFontName=fonts.name("regular"))
        self.canvas.setTitle(title)
        self.canvas.setCreator("cardc")

    def finish(self) -> bytes:
        self.canvas.save()
        return self.buffer.getvalue()


def card_colour(card: Mapping[str, Any], kinds: Mapping[str, Any], layout: Layout, deck: Deck,
                notes: list[str] | None = None) -> str:
    """The colour a card's header prints in: by field value (departments,
    industries) if its deck says so, else the layout's or the game's colour
    for its kind; made readable under the deck's title ink (4.5:1)."""
    kind = card["kind"]
    colour = layout.colours.get(kind) or (kinds.get(kind) or {}).get("colour") or DEFAULT_COLOUR
    if deck.colour_by:
        value = (card.get("fields") or {}).get(deck.colour_by.field)
        colour = deck.colour_by.colours.get(str(value), colour)
    if deck.style == "tile":
        return colour
    fixed = readable(colour, deck.title_ink)
    if fixed != colour and notes is not None:
        note = (f"colour {colour} of {kind} gives {contrast_ratio(colour, deck.title_ink):.1f}:1 under the "
                f"{deck.title_ink} titles; printing {fixed} (4.5:1); set `colours:` in layout.yaml to choose")
        if note not in notes:
            notes.append(note)
    return fixed


def build_faces(bundle: Mapping[str, Any], layout: Layout, notes: list[str] | None = None) -> dict[str, Face]:
    """Every card definition of the bundle as a Face, by card id."""
    kinds = bundle.get("kinds") or {}
    faces = {}
    for card in bundle.get("cards", []):
        kind = kinds.get(card["kind"], {})
        deck = layout.deck_of(card["kind"])
        faces[card["id"]] = Face(
            card_id=card["id"],
            name=card.get("name") or card["id"],
            kind=card["kind"],
            kind_label=kind.get("label") or card["kind"].replace("_", " ").title(),
            colour=card_colour(card, kinds, layout, deck, notes),
            text=card.get("text") or "",
            flavour=card.get("flavour") or "",
            fields=card.get("fields") or {},
            deck=deck,
            image=card.get("image"),
            back_image=card.get("back_image"),
        )
    return faces


def aid_faces(bundle: Mapping[str, Any], layout: Layout) -> list[Face]:
    """The layout's player aids, one Face each (printed once per seat)."""
    if not layout.aids:
        return []
    deck = layout.extra_decks["aids"]
    params = bundle.get("params") or {}
    context = {**params, "params": params, "players": bundle.get("players") or {}, "game": layout.title}
    faces = []
    for index, aid in enumerate(layout.aids):
        where = f"content/{bundle.get('game', '?')}/layout.yaml: aid {aid.title!r}"
        faces.append(Face(f"aid_{index + 1}", aid.title, "aid", "Player aid",
                          readable(aid.colour or deck.back.colour, deck.title_ink),
                          render_strict(aid.text, context, where), "", {}, deck))
    return faces


def token_faces(bundle: Mapping[str, Any], layout: Layout) -> list[tuple[Face, int]]:
    """(face, copies) of every token sheet: listed faces, one per card of a
    kind (company markers), each per seat in the seat colours if asked."""
    from .components import seat_colour

    out: list[tuple[Face, int]] = []
    kinds = bundle.get("kinds") or {}
    seats = int((bundle.get("players") or {}).get("max", 1))
    for sheet in layout.tokens:
        deck = layout.extra_decks[sheet.id]
        base: list[tuple[str, str, int]] = []  # label, colour, count
        if sheet.kind:
            for card in bundle.get("cards") or []:
                if card["kind"] == sheet.kind:
                    context = {**(card.get("fields") or {}), "name": card.get("name", card["id"]), "id": card["id"]}
                    colour = card_colour(card, kinds, layout, layout.deck_of(card["kind"]))
                    base.append((render_template(sheet.label or "{{ name }}", context), colour, sheet.count))
        for face in sheet.faces:
            base.append((face.label, face.colour or "#9e9e9e", face.count))
        if not base:
            base.append((sheet.label, "#9e9e9e", sheet.count))
        for seat in range(1, seats + 1) if sheet.per_player else [None]:
            for index, (label, colour, count) in enumerate(base):
                text = label.replace("{seat}", str(seat)) if seat else label
                card_id = f"{sheet.id}_{index + 1}" + (f"_p{seat}" if seat else "")
                out.append((Face(card_id, text or " ", sheet.id, sheet.title, seat_colour(seat) if seat else colour,
                                 "", "", {}, deck), count))
    return out


def instance_ids(bundle: Mapping[str, Any]) -> list[str]:
    """The card id of every physical card, in bundle order (shared cards and
    per-player cards for the most players, as the bundle expands them)."""
    if bundle.get("instances"):
        return [inst["card"] for inst in bundle["instances"]]
    seats = int((bundle.get("players") or {}).get("max", 1))
    return [card["id"] for card in bundle.get("cards", [])
            for _ in range(int(card.get("count", 1)) * (seats if card.get("per_player") else 1))]


def grid_tiles(bundle: Mapping[str, Any], layout: Layout) -> list[Face]:
    """One tile per board cell, for a game with a grid but no tile cards."""
    columns, rows = cell_names(bundle["grid"])
    deck = next((d for d in layout.decks if d.style == "tile"), None)
    if deck is None:
        side = max(layout.board.cell - 2, 10)
        deck = dataclasses.replace(layout.decks[-1], id="tiles", title="Tiles", style="tile", width=side, height=side)
    return [Face(f"{c}{r}", f"{c}{r}", "tile", "Tile", "#c8b99a", "", "", {}, deck) for c in columns for r in rows]


def select_ids(physical: Sequence[str], faces: Mapping[str, Face], wanted: Sequence[str], game: str = "") -> list[str]:
    """Card ids of the physical cards to print: all, or those of `wanted`."""
    for card_id in wanted:
        if card_id not in faces:
            hint = did_you_mean(card_id, faces)
            raise OptionError(f"--cards: no card `{card_id}` in {game}" + (f"; {hint}" if hint else ""))
    return [i for i in physical if i in set(wanted)] if wanted else list(physical)


def group_by_deck(ids: Sequence[str], prepared: Mapping[str, Prepared], layout: Layout,
                  numbers: Sequence[tuple[int, int]] | None = None, fonts: Fonts | None = None,
                  params: Mapping[str, Any] | None = None) -> list[DeckGroup]:
    """Cards grouped by deck in layout order (then aids), keeping bundle
    order within a deck; with `numbers` ((n, of) per id), each copy carries
    its number in its footer."""
    groups: dict[str, list[Prepared]] = {d.id: [] for d in layout.decks}
    for index, card_id in enumerate(ids):
        card = prepared[card_id]
        if numbers is not None and fonts is not None:
            card = numbered(card, layout, fonts, params or {}, *numbers[index])
        groups.setdefault(card.face.deck.id, []).append(card)
    return [(cards[0].face.deck, cards) for cards in groups.values() if cards]


def card_numbers(physical: Sequence[str], faces: Mapping[str, Face], ids: Sequence[str]) -> list[tuple[int, int]]:
    """(number, of) for each of `ids`: its place among every physical card
    of its deck, so an errata sheet prints the same numbers as the full set."""
    totals = Counter(faces[i].deck.id for i in physical)
    seen: Counter = Counter()
    by_copy: dict[tuple[str, int], tuple[int, int]] = {}
    copies: Counter = Counter()
    for card_id in physical:
        deck = faces[card_id].deck.id
        seen[deck] += 1
        by_copy[(card_id, copies[card_id])] = (seen[deck], totals[deck])
        copies[card_id] += 1
    used: Counter = Counter()
    out = []
    for card_id in ids:
        out.append(by_copy.get((card_id, used[card_id]), (0, totals[faces[card_id].deck.id])))
        used[card_id] += 1
    return out


@dataclass(frozen=True)
class Component:
    """One thing `cardc print` makes, as the rulebook's component list names it."""

    name: str
    quantity: int
    what: str
    file: str  # the PDF it is printed in


def component_list(bundle: Mapping[str, Any], layout: Layout) -> list[Component]:
    """Everything the print files hold, deck by deck, then the other pieces."""
    faces = build_faces(bundle, layout)
    seats = int((bundle.get("players") or {}).get("max", 1))
    counts = Counter(faces[i].deck.id for i in instance_ids(bundle))
    out = []
    for deck in layout.decks:
        if counts.get(deck.id):
            file = "components.pdf" if deck.style == "tile" else "cards.pdf"
            kinds = ", ".join((bundle["kinds"].get(k) or {}).get("label", k)
                              for k in deck.kinds if k in bundle["kinds"])
            out.append(Component(deck.title, counts[deck.id], kinds, file))
    if layout.aids:
        out.append(Component("Player aids", len(layout.aids) * seats,
                             "one of each per player: " + ", ".join(a.title for a in layout.aids), "cards.pdf"))
    for title, (entries, copies) in _token_groups(bundle, layout).items():
        out.append(Component(title, copies, f"{len(entries)} different, to cut out", "components.pdf"))
    if bundle.get("grid"):
        columns, rows = cell_names(bundle["grid"])
        out.append(Component("Board", 1, f"{len(columns)} x {len(rows)} spaces", "components.pdf"))
    for tracker in layout.trackers:
        out.append(Component(tracker.title, 1, "a track to mark with a cube or coin", "components.pdf"))
    return out


def _token_groups(bundle: Mapping[str, Any], layout: Layout) -> dict[str, tuple[list[tuple[Face, int]], int]]:
    """Token sheet title -> ((face, copies) per face, total pieces)."""
    titles = {sheet.id: sheet.title for sheet in layout.tokens}
    groups: dict[str, tuple[list[tuple[Face, int]], int]] = {}
    for face, count in token_faces(bundle, layout):
        entries, total = groups.get(titles[face.kind], ([], 0))
        groups[titles[face.kind]] = (entries + [(face, count)], total + count)
    return groups


def streams(groups: Sequence[DeckGroup]) -> list[list[Prepared]]:
    """Decks of one card size print on shared sheets, one after another, so
    a small deck never leaves a sheet almost empty; each card keeps its own back."""
    out: dict[tuple[float, float, float], list[Prepared]] = {}
    for deck, cards in groups:
        out.setdefault((deck.width, deck.height, deck.gap), []).extend(cards)
    return list(out.values())


def backs_of(cards: Sequence[Prepared], fonts: Fonts, low_ink: bool,
             art: ArtFolder) -> Callable[[Prepared], PreparedBack]:
    """The back of each card: its deck's design or image, or the card's own
    `back_image`; each prepared once."""
    made: dict[tuple[str, str | None], PreparedBack] = {}
    for card in cards:
        deck = card.face.deck
        image = card.face.back_image or deck.back.image
        key = (deck.id, image)
        if key not in made:
            made[key] = dataclasses.replace(prepare_back(deck, fonts), low_ink=low_ink, image=image,
                                            art=art.load(image))
    return lambda card: made[(card.face.deck.id, card.face.back_image or card.face.deck.back.image)]


def _impose_groups(groups: Sequence[DeckGroup], fronts: Pdf, backs: Pdf | None, fonts: Fonts,
                   options: PrintOptions, rendered: Rendered, art: ArtFolder) -> list[Placement]:
    placements: list[Placement] = []
    for cards in streams(groups):
        deck = cards[0].face.deck
        bleed = 0.0 if deck.style == "tile" else options.bleed  # tiles and tokens: pale, single-sided, no bleed
        fitted = fit_grid(options.paper, deck.width, deck.height, deck.gap, bleed, options.fit)
        if fitted.note and fitted.note not in rendered.notes:
            rendered.notes.append(fitted.note)
        placements += impose(fronts.canvas, backs.canvas if backs else None, cards,
                             backs_of(cards, fonts, options.low_ink, art) if backs else None,
                             fitted.grid, fonts, options.flip, options.offset)
    return placements


def _sheets(name: str, title: str, options: PrintOptions, fonts: Fonts) -> tuple[Pdf, Pdf | None]:
    """The fronts PDF and where backs go: the same PDF (duplex), their own, or nowhere."""
    fronts = Pdf(f"{title}: {name}", fonts)
    backs = {"none": None, "separate": Pdf(f"{title}: {name} backs", fonts)}.get(options.backs, fronts)
    return fronts, backs


def _write_sheets(name: str, fronts: Pdf, backs: Pdf | None, placements: list[Placement], rendered: Rendered) -> None:
    rendered.files[f"{name}.pdf"] = fronts.finish()
    if backs is not None and backs is not fronts:
        rendered.files[f"{name}-backs.pdf"] = backs.finish()
        rendered.placements[f"{name}-backs.pdf"] = [p for p in placements if p.side == "back"]
        placements = [p for p in placements if p.side == "front"]
    rendered.placements[f"{name}.pdf"] = placements


def art_folder(bundle: Mapping[str, Any], root: Path | None = None) -> ArtFolder:
    """Where the game's images are: `root`, else the folder the bundle was
    built from in the working directory's project (none found: every image
    prints as a placeholder)."""
    if root is None:
        from cardc.load.paths import find_project
        from cardc.project import built_from

        project, folder = find_project(), built_from(dict(bundle))
        root = project.root / folder if project is not None and folder is not None else None
    return ArtFolder(root)


def render_game(bundle: Mapping[str, Any], options: PrintOptions, art_root: Path | None = None) -> Rendered:
    """Render every file of `cardc print` into memory; images are read
    from `art_root` (default: see art_folder)."""
    options.check()
    art = art_folder(bundle, art_root)
    fonts = load_fonts()
    layout = load_layout(bundle)
    if options.stamp:
        layout = dataclasses.replace(layout, build=options.stamp)
    params = bundle.get("params") or {}
    rendered = Rendered()
    faces = build_faces(bundle, layout, rendered.notes)
    aids = aid_faces(bundle, layout)
    faces.update({face.card_id: face for face in aids})
    seats = int((bundle.get("players") or {}).get("max", 1))
    physical = instance_ids(bundle) + [face.card_id for face in aids for _ in range(seats)]
    ids = select_ids(physical, faces, options.cards, str(bundle.get("game", "")))
    prepared = prepare_all(faces, layout, fonts, params)  # every face: one title size per deck
    prepared = {k: dataclasses.replace(v, low_ink=options.low_ink, art=art.load(v.face.image))
                for k, v in prepared.items()}
    title = layout.title
    if options.proof:
        pdf = Pdf(f"{title}: proof", fonts)
        counts = Counter(physical)
        faces_to_review = [p for p in prepared.values() if p.face.deck.style != "tile"  # tiles only say a cell
                           and (not options.cards or p.face.card_id in options.cards)]
        proof_pages(pdf.canvas, faces_to_review, fonts, PAPERS[options.paper], title,
                    lambda p: f"{p.face.card_id} · ×{counts.get(p.face.card_id, 0)} · {p.face.deck.id}")
        rendered.files["proof.pdf"] = pdf.finish()
        return rendered
    groups = group_by_deck(ids, prepared, layout, card_numbers(physical, faces, ids), fonts, params)
    if options.cards:
        fronts, backs = _sheets("errata", title, options, fonts)
        _write_sheets("errata", fronts, backs,
                      _impose_groups(groups, fronts, backs, fonts, options, rendered, art), rendered)
        return rendered
    card_groups = [g for g in groups if g[0].style != "tile"]
    tile_groups = [g for g in groups if g[0].style == "tile"]
    if not tile_groups and bundle.get("grid"):
        tiles = [prepare(face, layout, fonts, params) for face in grid_tiles(bundle, layout)]
        tile_groups = [(tiles[0].face.deck, tiles)]
    for entries, _ in _token_groups(bundle, layout).values():
        pieces = [piece for face, count in entries for piece in [prepare(face, layout, fonts, params)] * count]
        tile_groups.append((pieces[0].face.deck, pieces))
    if card_groups:
        fronts, backs = _sheets("cards", title, options, fonts)
        _write_sheets("cards", fronts, backs,
                      _impose_groups(card_groups, fronts, backs, fonts, options, rendered, art), rendered)
    rendered.components = component_list(bundle, layout)
    if tile_groups or bundle.get("grid") or layout.trackers:
        # Single-sided: a tile's back is the blank paper, the same on every tile.
        sheet = Pdf(f"{title}: components", fonts)
        placements = _impose_groups(tile_groups, sheet, None, fonts, options, rendered, art)
        if bundle.get("grid"):
            board_pages(sheet.canvas, fonts, bundle["grid"], layout.board, PAPERS[options.paper], title)
        tracker_pages(sheet.canvas, fonts, layout.trackers, bundle, PAPERS[options.paper], title)
        _write_sheets("components", sheet, None, placements, rendered)
    guide = Pdf(f"{title}: cutting guide", fonts)
    guide_pages(guide.canvas, fonts, card_groups + tile_groups, options, title, layout.also_need)
    if options.backs != "none":
        calibration_pages(guide.canvas, fonts, PAPERS[options.paper], options.flip, options.offset)
    rendered.files["guide.pdf"] = guide.finish()
    return rendered


def print_game(bundle: Mapping[str, Any], out_dir: Path, options: PrintOptions) -> list[Path]:
    """Render the game's print files and write them atomically into out_dir
    (normally generated/<game>/). Returns the paths written."""
    rendered = render_game(bundle, options)
    return [write_atomic(Path(out_dir) / name, data) for name, data in rendered.files.items()]
