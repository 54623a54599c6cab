"""The board a seat sees in the browser, drawn from the game's grid.

Everything comes from the seat's observation and the content's `display`
block, never from a game's own nouns:

* a visible card with a printed `cell` on the board zone is drawn in its
  cell, labelled by `display.label`;
* `display.group` names the card a board card belongs to (ipo: a tile's
  company): a group's cells share a shade, and `display.legend` lists each
  group under the board (ipo: its size, price, whether it is public, safe);
* a visible card of the `display.markers` zone (ipo: placed land options)
  is a marker at the cell its card counter of type `cell` names, with its
  owner;
* when the seat's decision is a choice of cells or of cards with a cell,
  a cell that exactly one action names is a button that takes it.

`display.group` and `display.legend` are evaluated on the true state, like
`display.label`: the content must make them read only what is public.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from cardc.render.terminal import board_cards, value_text

#: shades for groups (serve.css .group-0 ...); more groups than this reuse them
SHADES = 10


@dataclass
class Cell:
    label: str = ""                 # display.label of the card built here
    title: str = ""                 # what the cell shows, in words (tooltip and screen readers)
    group: int | None = None        # shade, an index into Board.groups
    markers: list[str] = field(default_factory=list)
    action: int | None = None       # the decision's action that names this cell


@dataclass
class Group:
    name: str
    card: str                       # its card id (the card's page)
    shade: int
    cells: int
    values: list[str]               # one per legend column


@dataclass
class Board:
    zone: str | None                # the zone drawn here (left out of the zone list)
    columns: list[str]
    rows: list[int]
    cells: dict[str, Cell]
    legend: list[str]               # the legend's column titles
    groups: list[Group]


def board_of(st, obs: dict, seat: int, choices: dict) -> Board | None:
    """The board of the seat's observation, or None for a game without a grid.
    `choices` maps a cell to the one action of the seat's decision naming it."""
    g = st.game
    if not g.grid_cells:
        return None
    display = g.bundle.get("display") or {}
    cells = {name: Cell(title=name) for name in g.grid_cells}
    groups: dict[int, Group] = {}
    legend = list(g.display_legend)
    for name, card in board_cards(obs, g).items():
        cell = cells[name]
        this = {"this": card["iid"]}
        cell.label = str(g.display_label(st, this))[:3] if g.display_label else "#"
        cell.title = f"{name}: {card['name']}"
        owner = g.display_group(st, this) if g.display_group else None
        if owner is not None and owner is not False:
            if owner not in groups:
                values = [value_text(f(st, {"this": owner}), None, g) for f in g.display_legend.values()]
                groups[owner] = Group(g.card_name[owner], g.card_field["id"][owner],
                                      len(groups) % SHADES, 0, values)
            groups[owner].cells += 1
            cell.group = groups[owner].shade
            cell.title += f" ({groups[owner].name})"
    for name, text in _markers(obs, g):
        cells[name].markers.append(text)
        cells[name].title += f"; {text}"
    for name, action in choices.items():
        if name in cells:
            cells[name].action = action
    rows = max(g.grid_row_of.values())
    return Board(display.get("board"), list(g.grid_columns), list(range(1, rows + 1)), cells, legend,
                 sorted(groups.values(), key=lambda x: (-x.cells, x.name)))


def _markers(obs: dict, g):
    """(cell, "Land Option, P2") of each visible card of the `display.markers`
    zone whose cell-typed card counter is set."""
    kinds = {k for k, c in g.counters["card"].items() if c["type"] == "cell"}
    markers = (g.bundle.get("display") or {}).get("markers")
    for key, zone in obs["zones"].items():
        zid, _, owner = key.partition("@")
        if zid != markers:
            continue
        for card in zone["cards"]:
            for name, value in ((card or {}).get("counters") or {}).items():
                if name in kinds and value in g.grid_row_of:
                    yield value, card["name"] + (f", P{int(owner) + 1}" if owner else "")


def _is_card(g, value, label: str) -> bool:
    """Whether a decision's value is a card: a whole number that is a card
    instance, whose option reads as that card's name (a player or a number
    of the same value reads otherwise)."""
    return (isinstance(value, int) and not isinstance(value, bool)
            and 0 <= value < len(g.instances) and label == g.card_name[value])


def cell_choices(st, values: list, labels: list[str]) -> dict[str, int]:
    """{cell: action} for a decision among cells, or cards with a printed
    cell: only the cells exactly one action names."""
    g = st.game
    printed = g.card_field.get("cell")
    named: dict[str, list[int]] = {}
    for action, (value, label) in enumerate(zip(values, labels, strict=False)):
        cell = None
        if isinstance(value, str) and value in g.grid_row_of:
            cell = value
        elif printed and _is_card(g, value, label):
            cell = printed[value]
        if cell:
            named.setdefault(cell, []).append(action)
    return {cell: actions[0] for cell, actions in named.items() if len(actions) == 1}


def card_choices(st, values: list, labels: list[str]) -> dict[int, int]:
    """{card instance: action} for a decision among cards: the cards exactly
    one action names."""
    named: dict[int, list[int]] = {}
    for action, (value, label) in enumerate(zip(values, labels, strict=False)):
        if _is_card(st.game, value, label):
            named.setdefault(value, []).append(action)
    return {card: actions[0] for card, actions in named.items() if len(actions) == 1}
