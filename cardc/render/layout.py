"""A game's print layout: print/defaults.yaml with the game's layout.yaml over it.

The bundle carries the designer's layout.yaml as data (`bundle["layout"]`);
this module merges it over the shared defaults, checks it against
grammar/layout.schema.json, and resolves it into frozen dataclasses so the
drawing code never looks up a missing key. Boxes are millimetres from the
top-left of the trim; a box a deck does not set is scaled from the size it
was drawn for, so a mini-card deck needs only `size`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import jsonschema
import yaml

from cardc.load.diagnostics import did_you_mean
from cardc.load.paths import GRAMMAR, PRINT

from .errors import RenderError
from .sizes import resolve_size

BOX_NAMES = ("name", "corner", "type", "panel", "text", "flavour", "footer", "art")
TEXT_BOXES = ("name", "corner", "type", "text", "flavour", "footer")


@dataclass(frozen=True)
class Box:
    """A rectangle on a card, mm from the top-left corner of the trim."""

    x: float
    y: float
    w: float
    h: float

    def scaled(self, sx: float, sy: float) -> Box:
        return Box(self.x * sx, self.y * sy, self.w * sx, self.h * sy)


@dataclass(frozen=True)
class TextStyle:
    face: str = "regular"
    size: float = 9.0
    min: float = 6.0
    align: str = "left"
    lines: int | None = None


@dataclass(frozen=True)
class Back:
    title: str
    subtitle: str
    colour: str
    image: str | None = None  # drawn over the whole back instead of the title design


@dataclass(frozen=True)
class ColourBy:
    """Header colours keyed by a printed field (startup's departments, ipo's industries)."""

    field: str
    colours: Mapping[str, str]


@dataclass(frozen=True)
class Deck:
    """Cards printed together: one size, one frame, one back."""

    id: str
    title: str
    kinds: tuple[str, ...]
    style: str  # "card" or "tile"
    width: float
    height: float
    gap: float
    boxes: Mapping[str, Box]
    styles: Mapping[str, TextStyle]
    corner: str | None
    type_line: str | None
    footer: str | None
    back: Back
    title_ink: str = "#ffffff"  # one ink for every title and type line of the deck
    colour_by: ColourBy | None = None


@dataclass(frozen=True)
class Icon:
    """An inline symbol: a disc of `colour` holding a vector `shape` (see
    icons.py) or a one- or two-letter `label`; `words` are the words of card
    text it is printed in front of, so content text stays plain words."""

    colour: str
    label: str = ""
    shape: str | None = None
    words: tuple[str, ...] = ()


@dataclass(frozen=True)
class Board:
    cell: float
    colour: str
    line_colour: str


@dataclass(frozen=True)
class Aid:
    """A player aid card: printed once per seat with the cards."""

    title: str
    text: str  # a template over params
    colour: str | None = None


@dataclass(frozen=True)
class TokenFace:
    label: str
    count: int = 1
    colour: str | None = None


@dataclass(frozen=True)
class TokenSheet:
    """Small pieces cut from paper: listed faces, or one per card of a kind."""

    id: str
    title: str
    width: float = 16.0
    height: float = 16.0
    kind: str | None = None
    label: str = ""
    count: int = 1
    per_player: bool = False
    faces: tuple[TokenFace, ...] = ()


@dataclass(frozen=True)
class Tracker:
    id: str
    title: str
    rows: str | int | tuple[str, ...]  # a kind id, "players", a number or param of blank rows, or labels
    spaces: int | str  # a count, or a param name
    first: int = 1
    labels: Mapping[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Layout:
    title: str
    version: str  # "v0.3" from layout.yaml's `version:`, or "" when it names none
    build: str  # "#" + the first 6 hex digits of the bundle's source hash, or `cardc print --stamp`
    decks: tuple[Deck, ...]
    icons: Mapping[str, Icon]
    board: Board
    trackers: tuple[Tracker, ...]
    colours: Mapping[str, str] = field(default_factory=dict)  # kind id -> print colour
    aids: tuple[Aid, ...] = ()
    tokens: tuple[TokenSheet, ...] = ()
    also_need: tuple[str, ...] = ()  # what players need that is not printed
    hand_out: tuple[str, ...] = ()  # kinds each player takes one of at setup (the setup picture shows it)
    extra_decks: Mapping[str, Deck] = field(default_factory=dict)  # "aids", and one per token sheet
    labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # enumeration -> member -> label

    @property
    def stamp(self) -> str:
        """What every footer prints to tell printings apart: the designer's
        version and the build ("v0.3 #1f2e3d"). The build follows the
        content, not the clock, so the same bundle prints the same bytes."""
        return " ".join(part for part in (self.version, self.build) if part)

    def deck_of(self, kind: str) -> Deck:
        """The deck a kind prints in; the last deck is the catch-all."""
        for deck in self.decks:
            if kind in deck.kinds:
                return deck
        return self.decks[-1]


@lru_cache(maxsize=1)
def _schema() -> dict:
    return json.loads((GRAMMAR / "layout.schema.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _defaults() -> dict:
    return yaml.safe_load((PRINT / "defaults.yaml").read_text(encoding="utf-8"))


def _check(data: dict, where: str) -> None:
    errors = sorted(jsonschema.Draft202012Validator(_schema()).iter_errors(data), key=lambda e: list(e.path))
    if errors:
        first = errors[0]
        path = "/".join(str(p) for p in first.path) or "(top)"
        raise RenderError(f"{where}: layout {path}: {first.message}")


def _frame_levels(*levels: Mapping[str, Any]) -> dict[str, Any]:
    """Merge frame dicts (defaults, game card, deck) into one deck's settings.

    Scalars: the last level wins. `styles` and `back` merge per key. Boxes
    are taken from the last level that sets them and scaled from the card
    size in force at that level to the final size."""
    merged: dict[str, Any] = {"styles": {}, "back": {}}
    size: dict[str, float] | None = None
    boxes: dict[str, tuple[dict, dict[str, float] | None]] = {}  # name -> (box, size it was drawn for)
    for level in levels:
        size = resolve_size(level["size"]) if "size" in level else size
        for name, box in (level.get("boxes") or {}).items():
            boxes[name] = (box, size)
        for name, style in (level.get("styles") or {}).items():
            merged["styles"][name] = {**merged["styles"].get(name, {}), **style}
        merged["back"].update(level.get("back") or {})
        for key in ("gap", "corner", "type_line", "footer", "id", "title", "kinds", "style", "title_ink", "colour_by"):
            if key in level:
                merged[key] = level[key]
    merged["size"] = size
    # the defaults give a size first (print/defaults.yaml); a box drawn for
    # no size is drawn for the final one
    merged["boxes"] = {
        name: Box(**box).scaled(size["width"] / drawn["width"], size["height"] / drawn["height"])
        if size is not None and drawn is not None else Box(**box)
        for name, (box, drawn) in boxes.items()
    }
    return merged


def _deck(settings: dict, title: str) -> Deck:
    back = settings["back"]
    return Deck(
        id=settings.get("id", "cards"),
        title=settings.get("title", settings.get("id", "Cards").replace("_", " ").title()),
        kinds=tuple(settings.get("kinds", ())),
        style=settings.get("style", "card"),
        width=float(settings["size"]["width"]),
        height=float(settings["size"]["height"]),
        gap=float(settings.get("gap", 0)),
        boxes=settings["boxes"],
        styles={name: TextStyle(**settings["styles"].get(name, {})) for name in TEXT_BOXES},
        corner=settings.get("corner"),
        type_line=settings.get("type_line"),
        footer=settings.get("footer"),
        back=Back(back.get("title") or title, back.get("subtitle", ""), back.get("colour", "#2f3e4e"),
                  back.get("image")),
        title_ink=settings.get("title_ink") or "#ffffff",
        colour_by=ColourBy(**settings["colour_by"]) if settings.get("colour_by") else None,
    )


def load_layout(bundle: Mapping[str, Any]) -> Layout:
    """Resolve the bundle's layout over print/defaults.yaml."""
    defaults = _defaults()
    game = bundle.get("layout") or {}
    _check(defaults, "print/defaults.yaml")
    _check(game, f"content/{bundle.get('game', '?')}/layout.yaml")
    title = game.get("title") or bundle.get("name") or bundle.get("game", "")
    base = [defaults["card"], game.get("card") or {}]
    decks = [_deck(_frame_levels(*base, entry), title) for entry in game.get("decks") or []]
    kinds = bundle.get("kinds") or {}
    for deck in decks:
        for kind in deck.kinds:
            if kinds and kind not in kinds:
                hint = did_you_mean(kind, kinds)
                raise RenderError(f"content/{bundle.get('game', '?')}/layout.yaml: deck `{deck.id}` lists kind "
                                  f"`{kind}`, which the game does not define" + (f"; {hint}" if hint else ""))
    ids = [deck.id for deck in decks]
    if len(set(ids)) != len(ids):
        raise RenderError(f"layout: deck ids repeat: {ids}")
    decks.append(_deck(_frame_levels(*base, {"id": "cards", "title": "Cards"}), title))
    board = {**defaults.get("board", {}), **(game.get("board") or {})}
    icons = {**defaults.get("icons", {}), **(game.get("icons") or {})}
    trackers = [
        Tracker(**{**t, "labels": {int(k): v for k, v in (t.get("labels") or {}).items()},
                   "rows": tuple(t["rows"]) if isinstance(t["rows"], list) else t["rows"]})
        for t in (game.get("trackers") or defaults.get("trackers") or [])
    ]
    tokens = []
    for t in game.get("tokens") or []:
        size = t.get("size") or {}
        tokens.append(TokenSheet(
            id=t["id"], title=t["title"], width=float(size.get("width", 16)), height=float(size.get("height", 16)),
            kind=t.get("kind"), label=t.get("label", ""), count=int(t.get("count", 1)),
            per_player=bool(t.get("per_player")), faces=tuple(TokenFace(**f) for f in t.get("faces") or ())))
    extra = {}
    if game.get("aids"):
        extra["aids"] = _deck(_frame_levels(*base, {
            "id": "aids", "title": "Player aids", "corner": None, "type_line": None,
            "styles": {"text": {"size": 8.5, "min": 6}}, "back": {"subtitle": "Player aid"}}), title)
    for t in tokens:
        extra[t.id] = _deck(_frame_levels(*base, {"id": t.id, "title": t.title, "style": "tile",
                                                  "size": {"width": t.width, "height": t.height},
                                                  "styles": {"name": {"size": 12, "min": 6, "lines": 2}}}), title)
    version = str(game.get("version") or "").strip()
    return Layout(
        title=title,
        version=f"v{version.removeprefix('v')}" if version else "",
        build="#" + str(bundle.get("source_hash") or "")[:6],
        labels=dict(bundle.get("labels") or {}),
        decks=tuple(decks),
        icons={name: Icon(**{**icon, "words": tuple(icon.get("words") or ())}) for name, icon in icons.items()},
        colours=dict(game.get("colours") or {}),
        aids=tuple(Aid(**a) for a in game.get("aids") or ()),
        tokens=tuple(tokens),
        also_need=tuple(game.get("also_need") or ()),
        hand_out=tuple(game.get("hand_out") or ()),
        extra_decks=extra,
        board=Board(**board),
        trackers=tuple(trackers),
    )
