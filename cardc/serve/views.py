"""What the card pages show, worked out from the last good bundle.

Plain data for the templates (which escape everything): the gallery's
groups, one card's details (its fields, its source lines with file:line,
its compiled form, the rulebook paragraphs naming it) and the rulebook as
HTML.  Source files are read only when they lie inside the project.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from markdown_it import MarkdownIt

#: a line longer than this in a source listing is cut (a listing is for reading)
LINE_LIMIT = 400
SOURCE_LINES = 80
_LIST_ITEM = re.compile(r"([-*+]|\d+[.)]) ")


@dataclass
class CardItem:
    id: str
    name: str
    kind: str
    kind_label: str
    quantity: str
    copies: int
    text: str
    picture: str
    size: tuple[int, int] = (630, 880)      # the picture's proportions (the deck's mm x 10)


@dataclass
class Group:
    deck: str
    kind: str
    cards: list[CardItem] = field(default_factory=list)

    @property
    def copies(self) -> int:
        return sum(c.copies for c in self.cards)


def quantity(card: dict, players_max: int) -> tuple[str, int]:
    """("3", 3) or ("1 per player", copies at the most players)."""
    if card.get("per_player"):
        return f"{card['count']} per player", card["count"] * players_max
    return str(card["count"]), card["count"]


def gallery_groups(view) -> list[Group]:
    """The cards grouped by deck (layout order) and kind (declaration order)."""
    bundle, layout = view.bundle, view.layout
    kinds = bundle.get("kinds") or {}
    order = {k: i for i, k in enumerate(kinds)}
    top = bundle["players"]["max"]
    groups: dict[tuple[str, str], Group] = {}
    deck_rank = {d.id: i for i, d in enumerate(layout.decks)}
    for card in bundle["cards"]:
        deck = layout.deck_of(card["kind"])
        key = (deck.id, card["kind"])
        if key not in groups:
            label = (kinds.get(card["kind"]) or {}).get("label") or card["kind"]
            groups[key] = Group(deck.title, label)
        text, copies = quantity(card, top)
        picture = view.pictures.get(card["id"])
        groups[key].cards.append(CardItem(
            card["id"], card["name"], card["kind"], groups[key].kind, text, copies,
            card.get("text") or "",
            f"/g/{view.name}/pic/{card['id']}.png?v={picture.key}" if picture else "",
            (round(deck.width * 10), round(deck.height * 10))))
    return [groups[k] for k in sorted(groups, key=lambda k: (deck_rank[k[0]], order.get(k[1], 99), k[1]))]


@dataclass(frozen=True)
class Thumb:
    """A card's picture on the table: its URL, and its proportions so the
    page keeps the card's place while the picture loads."""
    url: str
    width: int
    height: int


def table_pictures(view) -> dict[str, Thumb]:
    """Every card's picture by card id, for the table's pages."""
    if view.bundle is None:
        return {}
    kinds = {c["id"]: c["kind"] for c in view.bundle["cards"]}
    out = {}
    for cid, picture in view.pictures.items():
        deck = view.layout.deck_of(kinds.get(cid, ""))
        out[cid] = Thumb(f"/g/{view.name}/pic/{cid}.png?v={picture.key}",
                         round(deck.width * 10), round(deck.height * 10))
    return out


# ---------------------------------------------------------------- one card

@dataclass
class Listing:
    """Lines of a source file, numbered, with an editor link."""
    where: str
    link: str
    lines: list[tuple[int, str, bool]]      # (number, text, part of an effect)


@dataclass
class CardDetails:
    item: CardItem
    fields: list[tuple[str, object]]
    listing: Listing | None
    source: str
    compiled: dict
    mentions: list[str]                     # rulebook paragraphs as HTML
    note: str


def card_details(bench, view, card_id: str) -> CardDetails | None:
    bundle = view.bundle
    if bundle is None:
        return None
    card = next((c for c in bundle["cards"] if c["id"] == card_id), None)
    if card is None:
        return None
    item = next(c for g in gallery_groups(view) for c in g.cards if c.id == card_id)
    fields = [("id", card["id"]), ("kind", card["kind"]), ("quantity", item.quantity),
              ("starts in", card.get("starts_in"))]
    fields += [(k, v) for k, v in sorted((card.get("fields") or {}).items()) if v is not None]
    if card.get("flavour"):
        fields.append(("flavour", card["flavour"]))
    compiled = {k: v for k, v in card.items() if k not in ("note", "text_template")}
    return CardDetails(item, fields, listing(bench.root, card), card.get("source") or "",
                       compiled, mentions(bundle, card["name"]), card.get("note") or "")


def _effect_lines(card: dict) -> set[int]:
    lines = set()
    for key in ("effect", "reaction"):
        code = card.get(key)
        if isinstance(code, dict):
            lines |= {ln for ln, _ in code.get("src") or [] if ln}
    return lines


def listing(root: Path, card: dict) -> Listing | None:
    """The card's entry in its source file: from its `- id:` line down to
    the next entry at the same depth; None if the file is outside the project."""
    where = card.get("source") or ""
    file, _, line = where.rpartition(":")
    if not file or not line.isdigit():
        return None
    path = Path(file).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        return None
    text = path.read_text(encoding="utf-8", errors="replace").splitlines()
    first = int(line) - 1
    if not 0 <= first < len(text):
        return None
    indent = len(text[first]) - len(text[first].lstrip(" -"))
    dash = len(text[first]) - len(text[first].lstrip())
    end = first + 1
    while end < len(text) and end - first < SOURCE_LINES:
        s = text[end]
        depth = len(s) - len(s.lstrip())
        if s.strip() and (depth < indent and (depth <= dash)):
            break
        end += 1
    while end > first + 1 and not text[end - 1].strip():
        end -= 1
    effect = _effect_lines(card)
    lines = [(n + 1, text[n][:LINE_LIMIT], n + 1 in effect) for n in range(first, end)]
    return Listing(where, f"vscode://file{quote(str(path))}:{line}", lines)


# ---------------------------------------------------------------- rulebook

def _markdown() -> MarkdownIt:
    # html off: any raw HTML in the template's output is shown as text
    return MarkdownIt("commonmark", {"html": False}).enable("table")


def markdown_html(text: str) -> str:
    """Markdown as HTML with no style attributes (the page's CSP allows none):
    a table column's alignment becomes a class."""
    md = _markdown()
    tokens = md.parse(text)
    for token in tokens:
        style = token.attrs.pop("style", None) if token.attrs else None
        if style and token.type in ("th_open", "td_open"):
            token.attrSet("class", "align-" + str(style).rpartition(":")[2].strip())
    return md.renderer.render(tokens, md.options, {})


_RULEBOOKS: dict[str, tuple[str, str | None]] = {}


def rulebook_markdown(bundle: dict) -> tuple[str, str | None]:
    """(the rulebook's Markdown, None) or ("", the error), once per bundle."""
    from cardc.render.rulebook import PAGEBREAK, RenderError, render_markdown
    key = bundle["source_hash"]
    if key not in _RULEBOOKS:
        try:
            _RULEBOOKS[key] = (render_markdown(bundle).replace(PAGEBREAK, ""), None)
        except RenderError as exc:
            _RULEBOOKS[key] = ("", str(exc))
        while len(_RULEBOOKS) > 8:
            _RULEBOOKS.pop(next(iter(_RULEBOOKS)))
    return _RULEBOOKS[key]


def rulebook_html(bundle: dict) -> tuple[str, str | None]:
    text, error = rulebook_markdown(bundle)
    return (markdown_html(text) if text else ""), error


def mentions(bundle: dict, name: str) -> list[str]:
    """The rulebook's paragraphs (and list items, table rows) that name the
    card, each as HTML, under the heading it sits in."""
    text, error = rulebook_markdown(bundle)
    if not text:
        return []
    pattern = re.compile(r"(?<!\w)" + re.escape(name) + r"(?!\w)", re.IGNORECASE)
    out, heading = [], ""
    for block in re.split(r"\n\s*\n", text):
        stripped = block.strip()
        if stripped.startswith("#"):
            heading = stripped.splitlines()[0].lstrip("#").strip()
            stripped = "\n".join(stripped.splitlines()[1:]).strip()
        if stripped and pattern.search(stripped):
            if stripped.startswith("|"):           # a table: the matching rows only
                rows = stripped.splitlines()
                stripped = "\n".join(rows[:2] + [r for r in rows[2:] if pattern.search(r)])
            elif _LIST_ITEM.match(stripped):         # a list: the matching items only
                items = re.split(r"\n(?=[-*+] |\d+[.)] )", stripped)
                stripped = "\n".join(i for i in items if pattern.search(i))
            md = (f"*{heading}*\n\n" if heading else "") + stripped
            out.append(markdown_html(md))
        if len(out) >= 12:
            break
    return out
