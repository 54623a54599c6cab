"""The rulebook's setup picture and example turn, taken from the engine.

Both come from running the bundle, never from a drawing or a transcript
kept by hand: the picture is the zones after the game's own setup (what
lies where, how many cards, face up or down), and the example turn is one
turn of a recorded game (fixed seed, bots), so a change to setup or to the
rules changes them too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from reportlab.lib.colors import HexColor
from reportlab.lib.units import mm
from reportlab.platypus import Flowable

from .cards import INK, shade, tint
from .fonts import Fonts

PILE_W, PILE_H = 13.0, 18.0  # mm: one pile drawn as a small card
CELL_W, CELL_H = 27.0, 33.0  # mm: a pile with its label
MAX_LINES = 18  # an example turn longer than this is cut


@dataclass(frozen=True)
class Pile:
    label: str
    count: int
    face_up: bool
    colour: str
    shared: bool
    unit: str = "card"  # "card", or "piece" for tiles and markers


def _label(zone_id: str) -> str:
    return zone_id.replace("_", " ").capitalize()


def setup_piles(bundle: Mapping[str, Any], players: int | None = None) -> tuple[list[Pile], int]:
    """The zones holding cards once setup has run (shared ones, then the
    first player's), and the player count used."""
    from cardc.engine import Game

    from .layout import load_layout

    game = Game(dict(bundle))
    n = players or int((bundle.get("players") or {}).get("min", 1))
    state = game.new_state(n, seed=1)
    layout = load_layout(bundle)
    kinds = bundle.get("kinds") or {}
    piles = []
    for slot, cards in enumerate(state.zones):
        if not cards:
            continue
        decl = game.slot_decl(state, slot)
        owner = game.slot_owner(state, slot)
        if owner not in (None, 0):
            continue
        top = game.cards[game.card_def[cards[-1]]]
        deck = layout.deck_of(top["kind"])
        face_up = decl.get("visibility") == "public"
        colour = (kinds.get(top["kind"]) or {}).get("colour") or "#607d8b" if face_up else deck.back.colour
        piles.append(Pile(_label(decl["id"]), len(cards), face_up, colour, owner is None,
                          "piece" if deck.style == "tile" else "card"))
    return piles, n


class SetupPicture(Flowable):
    """Shared zones across the top ("the table"), the first player's below."""

    def __init__(self, piles: Sequence[Pile], players: int, fonts: Fonts, width: float) -> None:
        super().__init__()
        self.piles, self.players, self.fonts, self.avail = list(piles), players, fonts, width
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
        for title, group in zip(titles, self._groups()):
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
                self._pile(x + (CELL_W - PILE_W) / 2 * mm, top - PILE_H * mm - 1 * mm, pile)
                canvas.setFillColor(HexColor(INK))
                canvas.setFont(self.fonts.name("regular"), 7)
                canvas.drawCentredString(x + CELL_W / 2 * mm, top - (PILE_H + 7) * mm, pile.label)
                canvas.setFont(self.fonts.name("italic"), 6.5)
                state = "face up" if pile.face_up else "face down"
                canvas.drawCentredString(x + CELL_W / 2 * mm, top - (PILE_H + 10.5) * mm,
                                         f"{pile.count} {pile.unit}{'s' if pile.count != 1 else ''}, {state}")
            y -= -(-len(group) // self.per_row) * CELL_H * mm

    def _pile(self, x: float, y: float, pile: Pile) -> None:
        canvas = self.canv
        layers = min(4, pile.count)
        for k in reversed(range(layers)):
            dx = dy = k * 0.8 * mm
            canvas.setFillColor(HexColor(tint(pile.colour, 0.5) if pile.face_up else pile.colour))
            canvas.setStrokeColor(HexColor(shade(pile.colour, 0.3)))
            canvas.setLineWidth(0.5)
            canvas.roundRect(x + dx, y - dy, PILE_W * mm, PILE_H * mm, 1.2 * mm, stroke=1, fill=1)


def example_turn(bundle: Mapping[str, Any], turn: int = 3, seed: int = 1, players: int | None = None,
                 agents: str = "greedy") -> list[str]:
    """The log of one turn of a recorded game: `players` (default the
    fewest) bots, `seed`, cut at MAX_LINES lines."""
    from cardc.engine import Game
    from cardc.play import Logger, make_agent

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
