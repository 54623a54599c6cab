"""Plain-text views for the terminal: a seat's observation, and a grid board."""
from __future__ import annotations


def observation_text(obs: dict, game, state=None, scores=None) -> str:
    """The seat's observation as lines: the turn, the scores as a headline
    (when given: the seat may know them), the counters (less those the
    content marks `bookkeeping: true`, the rules' own machinery, as the
    browser table leaves them out), the zones, the board."""
    levels = ", ".join(f"{name} {value}" for name, value in obs.get("levels") or [["round", obs["round"]]])
    lines = [f"Turn {obs['turn']} ({levels}), P{obs['turn_player'] + 1} to play"
             + (f", phase {obs['phase']}" if obs.get("phase") else "")]
    if scores:
        lines.append("  SCORES  " + ", ".join(f"P{i + 1} {s}" for i, s in enumerate(scores)))
    types = {scope: {k: c["type"] for k, c in game.counters[scope].items() if not c.get("bookkeeping")}
             for scope in ("game", "player")}
    shown_game = {k: v for k, v in obs["game"].items() if k in types["game"]}
    if shown_game:
        lines.append("  game: " + ", ".join(f"{k} {value_text(v, types['game'][k], game)}"
                                            for k, v in shown_game.items()))
    for name, values in obs["counters"].items():
        if name not in types["player"]:
            continue
        typ = types["player"][name]
        lines.append(f"  {name}: " + ", ".join(f"P{i + 1} {value_text(v, typ, game)}"
                                               for i, v in enumerate(values)))
    for key, zone in obs["zones"].items():
        if not zone["count"]:
            continue
        cards = zone["cards"]
        shown = [c["name"] + (" [+" + ", ".join(a["name"] for a in c.get("attached", []) if a) + "]"
                              if c.get("attached") else "") + card_counters_text(c, game)
                 for c in cards if c]
        hidden = sum(1 for c in cards if c is None)
        text = ", ".join(shown)
        if hidden:
            text += (", " if text else "") + f"{hidden} hidden"
        name = key.replace("@", " of P")
        if "@" in key:
            owner, _, _ = key.partition("@")
            name = f"{owner} of P{int(key.split('@')[1]) + 1}"
        lines.append(f"  {name} ({zone['count']}): {text}")
    if game.grid_cells:
        lines.append(board_text(obs, game, state))
    return "\n".join(lines)


def card_counters_text(card: dict, game) -> str:
    """` (tokens P1 2, placed P2 1)`: a card's counters as the observation shows them."""
    counters = card.get("counters")
    if not counters:
        return ""
    types = {k: c["type"] for k, c in game.counters["card"].items()}
    parts = []
    for name, v in counters.items():
        if isinstance(v, list):
            parts.append(name + " " + ", ".join(f"P{q + 1} {value_text(x, types.get(name), game)}"
                                                for q, x in enumerate(v) if x != game.counters["card"][name]["start"]))
        else:
            parts.append(f"{name} {value_text(v, types.get(name), game)}")
    return " (" + "; ".join(parts) + ")"


def value_text(v, typ=None, game=None):
    """A counter's value as a player reads it: P2 for a player, a card's name,
    ? for a value the player may not see."""
    if isinstance(v, dict) and v.get("hidden"):
        return "?"
    if v is None:
        return "-"
    if v is True or v is False:
        return "yes" if v else "no"
    if typ == "player":
        return f"P{v + 1}"
    if typ == "card" and game is not None:
        return game.card_name[v]
    return str(v)


def board_cards(obs: dict, game) -> dict:
    """{cell: card view} of each visible card that has a `cell` on the board
    (the `display.board` zone, else every shared zone)."""
    cells: dict = {}
    cell_field = game.card_field.get("cell")
    if cell_field is None:
        return cells
    display = game.bundle.get("display") or {}
    for key, zone in obs["zones"].items():
        if "@" in key or (display.get("board") and key != display["board"]):
            continue
        for c in zone["cards"]:
            if c and cell_field[c["iid"]]:
                cells[cell_field[c["iid"]]] = c
    return cells


def board_cells(obs: dict, game, state=None) -> dict:
    """{cell: label} of each visible card that has a `cell` on the board,
    labelled by the game's `display.label` expression (default `#`)."""
    label = game.display_label if state is not None else None
    return {cell: (str(label(state, {"this": c["iid"]}))[:3] if label else "#") or "#"
            for cell, c in board_cards(obs, game).items()}


def board_text(obs: dict, game, state=None) -> str:
    """The grid with each visible card that has a `cell` drawn at its cell."""
    if game.card_field.get("cell") is None:
        return ""
    cells = board_cells(obs, game, state)
    cols = game.grid_columns
    rows = max(int(c[len(c.rstrip('0123456789')):]) for c in game.grid_cells)
    width = max([2] + [len(v) for v in cells.values()])
    out = ["    " + " ".join(f"{c:>{width}}" for c in cols)]
    for r in range(1, rows + 1):
        out.append(f"{r:>3} " + " ".join(f"{cells.get(f'{c}{r}', '.'):>{width}}" for c in cols))
    return "\n".join(out)


def console(**kwargs):
    """A rich Console for cardc's terminal output.  Text from content (a
    game's, card's or agent's name, a card's text) is printed as written:
    never read as rich markup (`[/x]` would end in rich's MarkupError) nor as
    an emoji code (`:100:`).  cardc's own styling is given by `style=` or a
    `rich.text.Text`, not by markup in a string."""
    from rich.console import Console
    return Console(markup=False, emoji=False, **kwargs)
