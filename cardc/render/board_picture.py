"""Worked examples for a rulebook: a scenario replayed, its board drawn
before and after.

A rulebook template places `<!-- example: FILE#N -->`, naming a scenario
file of the game (in the project's scenarios folder, scenarios/<game>/FILE)
and which of its scenarios (1-based). The scenario is run by the same
Runner as `cardc scenario`, its `expect`s checked, so an example that no
longer holds after a content change is an error naming it, never a wrong
picture. The picture is the board of the engine state at the start and at
the end: every card that has a `cell`, labelled by the game's own
`display.label` (as `cardc play` draws it), cells changed by the steps
outlined, the steps and the scenario's title as its caption. Nothing here
knows a game: what a label means is the content's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reportlab.lib.colors import HexColor
from reportlab.lib.units import mm
from reportlab.platypus import Flowable

from .cards import INK
from .errors import RenderError
from .fonts import Fonts

PALETTE = ("#2f5d8a", "#8a3b2f", "#3f7a4a", "#7a4f8a", "#9a6a1f", "#2f7a7a", "#8a2f5d", "#5d6a2f")
LONE = "#d9cfb8"  # a card on the board that its label leaves ungrouped
MAX_CELL = 6.5  # mm


@dataclass(frozen=True)
class BoardShot:
    """What lies on each cell: (label, kind) by cell name of the cards on
    the board, and the kind of each marker a card's `cell` counter places
    on a cell (a land option's claim)."""

    cells: Mapping[str, tuple[str, str]]
    markers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ZoneChange:
    """One zone the steps changed: its pile before and after (None: empty)."""

    label: str
    before: Any  # setup_picture.Pile | None
    after: Any


@dataclass(frozen=True)
class Example:
    title: str
    note: str
    steps: tuple[str, ...]
    before: BoardShot
    after: BoardShot
    zones: tuple[ZoneChange, ...] = ()


def zone_changes(game: Any, before: Any, after: Any, layout: Any) -> tuple[ZoneChange, ...]:
    """The zones whose cards the steps changed, shared ones first, each as
    a pile before and after; a player's zone is named after its seat."""
    from .setup_picture import pile_of

    out = []
    for slot in range(len(after.zones)):
        if list(before.zones[slot]) == list(after.zones[slot]):
            continue
        owner = game.slot_owner(after, slot)
        label = game.slot_decl(after, slot)["id"].replace("_", " ").capitalize()
        label = label if owner is None else f"{after.player_name(owner)} {label.lower()}"
        out.append((owner is not None, slot, ZoneChange(label, pile_of(game, before, slot, layout),
                                                         pile_of(game, after, slot, layout))))
    return tuple(change for _, _, change in sorted(out, key=lambda t: t[:2]))


def board_shot(game: Any, state: Any) -> BoardShot:
    """Every card with a cell in the game's board zone (`display.board`, as
    `cardc play` draws it; else any zone), with its display label."""
    display = game.bundle.get("display") or {}
    cell_of = game.card_field.get("cell") or {}
    label = game.display_label if display.get("label") else None
    cells = {}
    for slot, cards in enumerate(state.zones):
        if display.get("board") and game.slot_decl(state, slot)["id"] != display["board"]:
            continue
        for iid in cards:
            cell = cell_of[iid] if iid < len(cell_of) else None
            if not cell:
                continue
            text = str(label(state, {"this": iid})) if label else ""
            cells[str(cell)] = (text, game.cards[game.card_def[iid]]["kind"])
    markers = {}
    for name, decl in game.counters["card"].items():
        if decl.get("type") != "cell":
            continue
        for iid, value in enumerate(state.card_counters.get(name) or []):
            if value is not None:
                cell = value if isinstance(value, str) else game.grid_cells[value]
                markers[str(cell)] = game.cards[game.card_def[iid]]["kind"]
    return BoardShot(cells, markers)


def scenario_path(bundle: Mapping[str, Any], file: str) -> Path:
    """scenarios/<game>/FILE of the working directory's project."""
    from cardc.load.paths import find_project

    project = find_project()
    if project is None:
        raise RenderError(f"example {file}: no cardc project here to find the scenario in")
    folder = (project.scenarios / str(bundle.get("game"))).resolve()
    path = (folder / file).resolve()
    if not path.is_relative_to(folder) or not path.is_file():
        raise RenderError(f"example {file}: no scenario file {file} in {folder}")
    return path


def replay_example(bundle: Mapping[str, Any], file: str, number: int) -> Example:
    """Run scenario `number` of `file` and keep the board before and after."""
    from cardc.engine import Game
    from cardc.testing.scenario import Runner, ScenarioError, load_scenarios

    path = scenario_path(bundle, file)
    specs = list(load_scenarios(path))
    if not 1 <= number <= len(specs):
        raise RenderError(f"example {file} {number}: the file has {len(specs)} scenarios")
    spec = specs[number - 1]
    if spec.get("cards"):
        raise RenderError(f"example {file} {number}: a scenario with cards of its own cannot illustrate the game")
    from .layout import load_layout

    game = Game(dict(bundle))
    try:
        runner = Runner(game, dict(bundle), spec, str(path))
        state = runner.begin()
        start = state.clone()
        before = board_shot(game, state)
        failures = runner.steps(state, spec.get("steps") or [], spec, "steps")
        failures = failures or runner.check(state, spec.get("expect") or {}, "at the end")
    except ScenarioError as exc:
        raise RenderError(f"example {file} {number}: {exc}") from None
    if failures:
        raise RenderError(f"example {file} {number} no longer replays: {failures[0]}")
    return Example(str(spec.get("title", "")), str(spec.get("note", "") or ""), tuple(runner.trail), before,
                   board_shot(game, state), zone_changes(game, start, state, load_layout(bundle)))


class BoardPicture(Flowable):
    """Two boards side by side, before and after, with the steps under them."""

    def __init__(self, example: Example, grid: Mapping[str, Any], fonts: Fonts, width: float,
                 colours: Mapping[str, str]) -> None:
        super().__init__()
        from .components import cell_names

        self.example, self.fonts, self.avail = example, fonts, width
        self.columns, self.rows = cell_names(dict(grid))  # names: ["A", ...], ["1", ...]
        self.colours = colours  # kind -> colour, for cards that are not tiles (markers)
        self.cell = min(MAX_CELL * mm, (width - 12 * mm) / 2 / len(self.columns))
        self.board_w = self.cell * len(self.columns)
        self.board_h = self.cell * len(self.rows)
        labels = [v[0] for shot in (example.before, example.after) for v in shot.cells.values()]
        groups = sorted({t for t in labels if t and len(t) > 1})
        self.group_colour = {t: PALETTE[i % len(PALETTE)] for i, t in enumerate(groups)}
        self.height = self.board_h + 33 * mm

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        return self.avail, self.height

    def draw(self) -> None:
        canvas = self.canv
        top = self.height - 5 * mm
        for index, (title, shot) in enumerate((("Before", self.example.before), ("After", self.example.after))):
            x = index * (self.board_w + 12 * mm)
            canvas.setFillColor(HexColor(INK))
            canvas.setFont(self.fonts.name("bold"), 8)
            canvas.drawString(x, top + 4 * mm, title)
            before, after = self.example.before, self.example.after
            changed = {c for c in after.cells.keys() | before.cells.keys() if after.cells.get(c) != before.cells.get(c)}
            changed |= {c for c in after.markers.keys() | before.markers.keys()
                        if after.markers.get(c) != before.markers.get(c)}
            self._board(x, top - self.board_h, shot, changed if index else set())
        canvas.setFillColor(HexColor(INK))
        canvas.setFont(self.fonts.name("regular"), 8)
        steps = " · ".join(self.example.steps) or "(the start position)"
        y = top - self.board_h - 5 * mm
        for line in _lines(self.fonts, f"Steps: {steps}", self.avail, 8, "regular")[:2]:
            canvas.drawString(0, y, line)
            y -= 3.6 * mm
        canvas.setFont(self.fonts.name("italic"), 8)
        for line in _lines(self.fonts, self.example.title + (f" {self.example.note}" if self.example.note else ""),
                                self.avail, 8, "italic")[:3]:
            canvas.drawString(0, y, line)
            y -= 3.6 * mm

    def _board(self, x: float, y: float, shot: BoardShot, changed: set[str]) -> None:
        canvas = self.canv
        c = self.cell
        canvas.setLineWidth(0.3)
        canvas.setStrokeColor(HexColor("#b8b0a0"))
        canvas.setFillColor(HexColor("#f3efe6"))
        canvas.rect(x, y, self.board_w, self.board_h, stroke=1, fill=1)
        for i in range(1, len(self.columns)):
            canvas.line(x + i * c, y, x + i * c, y + self.board_h)
        for j in range(1, len(self.rows)):
            canvas.line(x, y + j * c, x + self.board_w, y + j * c)
        canvas.setFont(self.fonts.name("regular"), 6)
        canvas.setFillColor(HexColor("#8a8170"))
        for i, column in enumerate(self.columns):  # column letters above, row numbers left
            canvas.drawCentredString(x + (i + 0.5) * c, y + self.board_h + 0.6 * mm, str(column))
        for j, row in enumerate(self.rows):
            canvas.drawRightString(x - 0.6 * mm, y + self.board_h - (j + 0.5) * c - 2, str(row))
        for cell, (label, _) in shot.cells.items():
            place = self._place(x, y, cell)
            if place is None:
                continue
            canvas.setFillColor(HexColor(self.group_colour.get(label, LONE)))
            canvas.rect(place[0] + 0.3, place[1] + 0.3, c - 0.6, c - 0.6, stroke=0, fill=1)
            if label in self.group_colour:
                canvas.setFillColor(HexColor("#ffffff"))
                canvas.setFont(self.fonts.name("bold"), 6)
                canvas.drawCentredString(place[0] + c / 2, place[1] + c / 2 - 2, label[:4])
        for cell, kind in shot.markers.items():
            place = self._place(x, y, cell)
            if place is not None:
                canvas.setFillColor(HexColor(self.colours.get(kind, "#607d8b")))
                canvas.setStrokeColor(HexColor("#ffffff"))
                canvas.circle(place[0] + c / 2, place[1] + c / 2, c * 0.3, stroke=1, fill=1)
        canvas.setStrokeColor(HexColor(INK))
        canvas.setLineWidth(1.2)
        for cell in changed:
            place = self._place(x, y, cell)
            if place is not None:
                canvas.rect(place[0] + 0.6, place[1] + 0.6, c - 1.2, c - 1.2, stroke=1, fill=0)
        canvas.setLineWidth(0.3)

    def _place(self, x: float, y: float, cell: str) -> tuple[float, float] | None:
        """The bottom-left corner of a cell on the board drawn at (x, y), or None off the grid."""
        col, row = cell.rstrip("0123456789"), cell[len(cell.rstrip("0123456789")):]
        if col not in self.columns or row not in self.rows:
            return None
        return x + self.columns.index(col) * self.cell, y + self.board_h - (self.rows.index(row) + 1) * self.cell


def marker_colours(bundle: Mapping[str, Any], layout: Any) -> dict[str, str]:
    """Each kind's colour, for the round markers on a board."""
    kinds = bundle.get("kinds") or {}
    return {kind: (info or {}).get("colour") or "#607d8b" for kind, info in kinds.items()}


ZONE_ROW = 34.0  # mm: one changed zone, its piles and counts
MAX_ZONES = 6  # rows drawn; more are named in the caption


class ZonesPicture(Flowable):
    """A game without a board: each zone the steps changed, its pile before
    and after, drawn with the cards' own faces and backs."""

    def __init__(self, example: Example, fonts: Fonts, width: float, faces: Mapping[str, Any],
                 backs: Mapping[str, Any]) -> None:
        super().__init__()
        self.example, self.fonts, self.avail, self.faces, self.backs = example, fonts, width, faces, backs
        self.rows = list(example.zones[:MAX_ZONES])
        self.height = len(self.rows) * ZONE_ROW * mm + 22 * mm

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        return self.avail, self.height

    def draw(self) -> None:
        from .setup_picture import PILE_H, draw_pile

        canvas = self.canv
        y = self.height - 5 * mm
        canvas.setFillColor(HexColor(INK))
        canvas.setFont(self.fonts.name("bold"), 8)
        canvas.drawString(45 * mm, y, "Before")
        canvas.drawString(95 * mm, y, "After")
        for change in self.rows:
            y -= ZONE_ROW * mm
            canvas.setFillColor(HexColor(INK))
            canvas.setFont(self.fonts.name("bold"), 8)
            canvas.drawString(0, y + PILE_H / 2 * mm, change.label)
            for centre, pile in ((55, change.before), (105, change.after)):
                canvas.setFillColor(HexColor(INK))
                canvas.setFont(self.fonts.name("italic"), 7)
                if pile is None:
                    canvas.drawCentredString(centre * mm, y + PILE_H / 2 * mm, "empty")
                    continue
                draw_pile(canvas, centre * mm, y + 4 * mm, pile, self.faces, self.backs, self.fonts)
                canvas.setFillColor(HexColor(INK))
                canvas.setFont(self.fonts.name("italic"), 7)
                state = "face up" if pile.face_up else "face down"
                canvas.drawCentredString(centre * mm, y, f"{pile.count} {pile.unit}{'s' if pile.count != 1 else ''}, "
                                                         f"{state}")
            canvas.setFont(self.fonts.name("bold"), 12)
            canvas.drawCentredString(80 * mm, y + PILE_H / 2 * mm, "→")
        canvas.setFont(self.fonts.name("regular"), 8)
        y -= 6 * mm
        hidden = len(self.example.zones) - len(self.rows)
        steps = " · ".join(self.example.steps) + (f" ({hidden} more zones changed)" if hidden > 0 else "")
        for line in _lines(self.fonts, f"Steps: {steps}", self.avail, 8, "regular")[:2]:
            canvas.drawString(0, y, line)
            y -= 3.6 * mm
        canvas.setFont(self.fonts.name("italic"), 8)
        for line in _lines(self.fonts, self.example.title, self.avail, 8, "italic")[:2]:
            canvas.drawString(0, y, line)
            y -= 3.6 * mm


def _lines(fonts: Fonts, text: str, width: float, size: float, face: str) -> list[str]:
    """`text` broken into lines of at most `width` points."""
    fonts.check(text, face, "a rulebook example")
    lines, line = [], ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if line and fonts.width(trial, face, size) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return lines + ([line] if line else [])
