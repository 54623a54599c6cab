"""The rulebook's setup picture and example turn, taken from the engine.

Both come from running the bundle, never from a drawing or a transcript
kept by hand: the picture is the zones once setup is over, its own
decisions taken (what lies where, how many cards, face up or down, each
pile drawn as its top card or its back as they print), and the example turn is one
turn of a recorded game (fixed seed, bots), so a change to setup or to the
rules changes them too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reportlab.lib.colors import HexColor
from reportlab.lib.units import mm
from reportlab.platypus import Flowable

from .cards import INK, shade, tint
from .fonts import Fonts

PILE_H = 24.0  # mm: one pile drawn as its top card (or its back), this tall
CELL_W, CELL_H = 27.0, 37.0  # mm: a pile with its label
MAX_LINES = 18  # an example turn longer than this is cut
SETUP_STEPS = 2000  # setup decisions a bot may take before the first turn (a bound, not a target)


@dataclass(frozen=True)
class Pile:
    label: str
    count: int
    face_up: bool
    colour: str
    shared: bool
    unit: str = "card"  # "card", or "piece" for tiles and markers
    card_id: str | None = None  # the top card: its face is drawn when the pile is face up
    deck_id: str | None = None  # its deck: the back drawn when face down


def _label(zone_id: str) -> str:
    return zone_id.replace("_", " ").capitalize()


def after_setup(bundle: Mapping[str, Any], players: int, seed: int = 1) -> Any:
    """The engine's state once setup is over: setup's own decisions (a
    startup chosen from a deal) taken by seeded random bots, up to the first
    decision of the first turn."""
    from cardc.engine import Game
    from cardc.sim.play import make_agent

    game = Game(dict(bundle))
    state = game.new_state(players, seed=seed)
    bots = [make_agent("random", seed * 1000 + i) for i in range(players)]
    steps = 0
    while state.turn < 1 and not state.is_terminal() and steps < SETUP_STEPS:
        player = state.current_player()
        state.apply(bots[player].act(state, player))
        steps += 1
    return game, state


def pile_of(game: Any, state: Any, slot: int, layout: Any) -> Pile | None:
    """One zone of a state as a pile (None when empty): its top card, how
    many, face up when the zone is public."""
    cards = state.zones[slot]
    if not cards:
        return None
    decl = game.slot_decl(state, slot)
    owner = game.slot_owner(state, slot)
    top = game.cards[game.card_def[cards[-1]]]
    deck = layout.deck_of(top["kind"])
    face_up = decl.get("visibility") == "public"
    colour = (game.bundle.get("kinds", {}).get(top["kind"]) or {}).get("colour") or "#607d8b" if face_up \
        else deck.back.colour
    return Pile(_label(decl["id"]), len(cards), face_up, colour, owner is None,
                "piece" if deck.style == "tile" else "card", top["id"], deck.id)


def setup_piles(bundle: Mapping[str, Any], players: int | None = None) -> tuple[list[Pile], int]:
    """The zones holding cards once setup is over (shared ones, then the
    first seat's), and the player count used. Kinds the layout hands out
    (`hand_out`) are shown one in front of each player, as the rules say."""
    from .layout import load_layout

    n = players or int((bundle.get("players") or {}).get("min", 1))
    game, state = after_setup(bundle, n)
    layout = load_layout(bundle)
    piles, handed = [], []
    for slot in range(len(state.zones)):
        owner = game.slot_owner(state, slot)
        pile = pile_of(game, state, slot, layout) if owner in (None, 0) else None
        if pile is None:
            continue
        top_kind = game.cards[game.card_def[state.zones[slot][-1]]]["kind"]
        if owner is None and top_kind in layout.hand_out and pile.count >= n:
            handed.append(dataclasses.replace(pile, count=1, shared=False, face_up=True))
            pile = dataclasses.replace(pile, count=pile.count - n, label=f"{pile.label} (the rest, in the box)")
            if not pile.count:
                continue
        piles.append(pile)
    return piles + handed, n


def pile_pictures(bundle: Mapping[str, Any], piles: Sequence[Pile], fonts: Fonts) -> tuple[dict, dict]:
    """The print renderer's face of each pile's top card and back of each
    pile's deck, so the picture shows the cards as they print."""
    from .cards import prepare_all, prepare_back
    from .layout import load_layout
    from .pipeline import build_faces

    layout = load_layout(bundle)
    faces = build_faces(bundle, layout)
    wanted = {p.card_id: faces[p.card_id] for p in piles if p.face_up and p.card_id in faces}
    prepared = prepare_all(wanted, layout, fonts, bundle.get("params") or {})
    decks = {faces[p.card_id].deck.id: faces[p.card_id].deck for p in piles if p.card_id in faces}
    backs = {deck_id: prepare_back(deck, fonts) for deck_id, deck in decks.items()}
    return prepared, backs


class SetupPicture(Flowable):
    """Shared zones across the top ("the table"), the first seat's below,
    each pile drawn as its top card's face or its deck's back."""

    def __init__(self, piles: Sequence[Pile], players: int, fonts: Fonts, width: float,
                 faces: Mapping[str, Any] | None = None, backs: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        self.piles, self.players, self.fonts, self.avail = list(piles), players, fonts, width
        self.faces, self.backs = dict(faces or {}), dict(backs or {})
        self.per_row = max(1, int(width // (CELL_W * mm)))
        rows = sum(-(-len(g) // self.per_row) for g in self._groups() if g)
        self.height = rows * CELL_H * mm + len([g for g in self._groups() if g]) * 7 * mm

    def _groups(self) -> list[list[Pile]]:
        return [[p for p in self.piles if p.shared], [p for p in self.piles if not p.shared]]

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        return self.avail, self.height

    def draw(self) -> None:
        canvas = self.canv
        y = self.height
        titles = ("On the table", f"In front of each player ({self.players} players: P1 shown)")
        for title, group in zip(titles, self._groups(), strict=False):
            if not group:
                continue
            y -= 5 * mm
            canvas.setFillColor(HexColor(INK))
            canvas.setFont(self.fonts.name("bold"), 9)
            canvas.drawString(0, y, title)
            y -= 2 * mm
            for i, pile in enumerate(group):
                col, row = i % self.per_row, i // self.per_row
                x = col * CELL_W * mm
                top = y - row * CELL_H * mm
                self._pile(x + CELL_W / 2 * mm, top - PILE_H * mm - 1 * mm, pile)
                canvas.setFillColor(HexColor(INK))
                canvas.setFont(self.fonts.name("regular"), 7)
                canvas.drawCentredString(x + CELL_W / 2 * mm, top - (PILE_H + 5.5) * mm, pile.label)
                canvas.setFont(self.fonts.name("italic"), 6.5)
                state = "face up" if pile.face_up else "face down"
                canvas.drawCentredString(x + CELL_W / 2 * mm, top - (PILE_H + 9) * mm,
                                         f"{pile.count} {pile.unit}{'s' if pile.count != 1 else ''}, {state}")
            y -= -(-len(group) // self.per_row) * CELL_H * mm

    def _pile(self, centre: float, y: float, pile: Pile) -> None:
        draw_pile(self.canv, centre, y, pile, self.faces, self.backs, self.fonts)


def draw_pile(canvas: Any, centre: float, y: float, pile: Pile, faces: Mapping[str, Any],
              backs: Mapping[str, Any], fonts: Fonts) -> None:
    """A stack, PILE_H tall, centred at `centre`: the edges of the cards
    below, then the top card's face or its deck's back as they print."""
    from .cards import draw_back, draw_front

    face = faces.get(pile.card_id) if pile.face_up and pile.card_id is not None else None
    back = backs.get(pile.deck_id or "")
    deck = face.face.deck if face is not None else back.deck if back is not None else None
    if deck is None:  # nothing to draw it with: a plain block in its colour
        w = PILE_H * 0.72
        canvas.setFillColor(HexColor(pile.colour))
        canvas.roundRect(centre - w / 2 * mm, y, w * mm, PILE_H * mm, 1.2 * mm, stroke=0, fill=1)
        return
    scale = min(PILE_H / deck.height, (CELL_W - 4) / deck.width)
    w, h = deck.width * scale, deck.height * scale
    x = centre - w / 2 * mm
    for k in reversed(range(1, min(4, pile.count))):  # the cards under the top one
        canvas.setFillColor(HexColor(tint(pile.colour, 0.3)))
        canvas.setStrokeColor(HexColor(shade(pile.colour, 0.3)))
        canvas.setLineWidth(0.4)
        canvas.roundRect(x + k * 0.7 * mm, y - k * 0.7 * mm, w * mm, h * mm, 1 * mm, stroke=1, fill=1)
    canvas.saveState()
    canvas.translate(x, y)
    canvas.scale(scale, scale)
    if face is not None:
        draw_front(canvas, face, fonts, 0, 0)
    elif back is not None:
        draw_back(canvas, back, fonts, 0, 0)
    canvas.restoreState()
    canvas.setStrokeColor(HexColor("#9a9a9a"))
    canvas.setLineWidth(0.3)
    canvas.rect(x, y, w * mm, h * mm, stroke=1, fill=0)


def example_turn(bundle: Mapping[str, Any], turn: int = 3, seed: int = 1, players: int | None = None,
                 agents: str = "greedy") -> list[str]:
    """The log of one turn of a recorded game: `players` (default the
    fewest) bots, `seed`, cut at MAX_LINES lines."""
    from cardc.engine import Game
    from cardc.sim.play import Logger, make_agent

    game = Game(dict(bundle))
    n = players or int((bundle.get("players") or {}).get("min", 1))
    state = game.new_state(n, seed=seed, log=True)
    bots = [make_agent(agents, seed * 1000 + i) for i in range(n)]
    logger = Logger(state)
    steps = 0
    while not state.is_terminal() and state.turn <= turn and steps < 5000:
        logger.flush()
        choice = bots[state.current_player()].act(state, state.current_player())
        logger.decision(choice)
        state.apply(choice)
        steps += 1
    logger.flush()
    lines, inside = [], False
    for line in logger.lines:
        if line.startswith("== Turn "):
            inside = line.startswith(f"== Turn {turn} ") or line.rstrip() == f"== Turn {turn}" or \
                line.startswith(f"== Turn {turn}:") or line.startswith(f"== Turn {turn},")
            if inside:
                lines.append(line.strip("= ").strip())
            continue
        if inside and not line.lstrip().startswith("scores:"):
            lines.append(line.strip())
    if len(lines) > MAX_LINES:
        lines = lines[:MAX_LINES] + [f"… ({len(lines) - MAX_LINES} more lines)"]
    return lines
