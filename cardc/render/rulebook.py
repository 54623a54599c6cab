"""`cardc rulebook`: the game's rulebook, from its bundle, as Markdown and PDF.

The rulebook is a jinja2 template, `content/<game>/rulebook.md.j2`, carried
in the bundle (`bundle["rulebook"]`). It is rendered over the bundle, so
every number it prints is the number the engine uses, and its component
lists, quantity tables and glossary are loops over the bundle's cards and
kinds. The Markdown it renders to is written as `rulebook.md` (tidied: one
line per paragraph, at most one blank line in a row); the same Markdown is set
as a paginated PDF, `rulebook.pdf`, with ReportLab platypus.

The template
------------
Rendered in jinja2's sandbox (ImmutableSandboxedEnvironment: no attribute
tricks, no mutating the bundle) with StrictUndefined: a misspelt name is an
error naming the template file and line, with a "did you mean", never a
silent blank. `trim_blocks`/`lstrip_blocks` are on, so `{% for %}` lines
leave no blank lines behind. The context is the whole bundle (`name`,
`params`, `cards`, `kinds`, `players`, `grid`, `zones`, ...; `bundle` is the
bundle itself) plus these helpers:

  cards_of_kind(k, ...)  card definitions of those kinds, in bundle order
  card(id)               one card definition
  copies(c)              physical copies of a card (or id) in the box; a
                         per-player card counts once per seat up to players.max
  quantity(c)            "5" or "3 per player"
  total(k, ...)          physical cards of those kinds in the box (all: total())
  total_in(zone)         physical cards that start in a zone
  kind_label(k)          the kind's printed label
  kind_quantity(k, ...)  "98", "3 per player" or "58 + 10 per player"
  glossary(terms)        (term, text) pairs, alphabetical: every kind's label
                         and description, with the template's own `terms`
  reactions_to(c, w)     the cards whose reaction (to window w, or any) names
                         card c in its compiled condition: who can answer c
  rule(fn, args...)      a function of the game's rules.yaml, evaluated by the
                         engine (before setup) on numbers, truth values or
                         strings: rule("share_price", 5), so a table of
                         prices is the rule itself, not a copy of it

and filters: `money` (6000 -> "$6,000"; `money("M")` -> "$1,000M"),
`millions` ("$1,000M"), `number` ("6,000"), `signed` ("+2"), `words`
(3 -> "three", up to twenty), `ordinal` ("4th"), `plural(n, "card")`
("1 card", "3 cards"), `join_and` ("a, b and c"), `cell` (escapes `|` for
a table cell).

The Markdown subset
-------------------
Parsed with markdown-it-py (CommonMark + pipe tables). The first `#` heading
is the title: it and the text before the next heading make the title page.
`##` headings are chapters and `###` sections: both go into the table of
contents and the PDF outline; `####` is a run-in heading. Paragraphs,
**bold**, *italic*, `code`, bullet and numbered lists (nested), pipe tables
(with their column alignment), block quotes (set as a tinted box, for
clarifications), `---` rules, and `<!-- pagebreak -->` are supported; any
other raw HTML or an image is an error. The PDF ends with a card gallery
drawn with the print renderer's own card faces (cards.py).

Everything is rendered in memory, then written with write_atomic; ReportLab's
invariant mode makes the same bundle give the same bytes.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any
from xml.sax.saxutils import escape

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode
from reportlab.lib.colors import HexColor
from reportlab.lib.enums import TA_CENTER, TA_LEFT, TA_RIGHT
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.platypus import (
    BaseDocTemplate,
    CondPageBreak,
    Flowable,
    Frame,
    KeepTogether,
    NextPageTemplate,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)
from reportlab.platypus.flowables import HRFlowable
from reportlab.platypus.tableofcontents import TableOfContents

from cardc.load import sandbox
from cardc.load.diagnostics import did_you_mean

from .atomic import write_atomic
from .cards import Prepared, draw_front, prepare, tint
from .errors import RenderError
from .fonts import Fonts, load_fonts
from .layout import load_layout
from .sheets import PAPERS

FORMATS = ("pdf", "md", "both")
INK = "#1f1f1f"
MUTED = "#6b6b6b"
DEFAULT_ACCENT = "#2f3e4e"
MARGIN = 20 * mm
PAGEBREAK = "<!-- pagebreak -->"
GALLERY_TILES = 12  # tiles shown in the card gallery
EXAMPLE = re.compile(r"<!--\s*example:\s*([^\s#]+)#(\d+)\s*-->")  # FILE#N: a scenario replayed (board_picture.py)
SETUP_PICTURE = "<!-- setup picture -->"  # the zones after setup, drawn from the engine (setup_picture.py)
HEADING_ROOM = 90  # points a heading needs below it on the page, else it starts the next one
# the rulebook of a game without rulebook.md.j2 (and the one `cardc new` starts with)
DEFAULT_TEMPLATE = Path(__file__).with_name("default_rulebook.md.j2")


class RulebookError(RenderError):
    """A rulebook template that cannot be rendered, with where it went wrong."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None) -> None:
        self.file, self.line, self.detail = file, line, message
        where = f"{file}:{line}: " if file and line else (f"{file}: " if file else "")
        super().__init__(f"{where}error: {message}")


class _HelperError(Exception):
    """A helper called from the template with a bad argument (becomes a RulebookError)."""


# ------------------------------------------------------------------ the template

def template_name(bundle: Mapping[str, Any]) -> str:
    """The template's path as the designer knows it: next to the game's card
    files (so a game built from a temporary folder names that folder)."""
    for card in bundle.get("cards") or []:
        source = str(card.get("source") or "").rsplit(":", 1)[0]
        path = PurePosixPath(source.replace("\\", "/"))
        if path.parent.name == "cards":
            return str(path.parent.parent / "rulebook.md.j2")
    return f"content/{bundle.get('game', '?')}/rulebook.md.j2"


_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
          "fifteen sixteen seventeen eighteen nineteen twenty").split()


def _number(n: Any) -> str:
    return f"{n:,}" if isinstance(n, int) else str(n)


def _money(n: Any, unit: str = "") -> str:
    if not isinstance(n, (int, float)):
        raise _HelperError(f"money: {n!r} is not a number")
    sign = "-" if n < 0 else ""
    amount = f"{abs(n):,}" if isinstance(n, int) or float(n).is_integer() else f"{abs(n):,.2f}"
    return f"{sign}${amount.removesuffix('.0')}{unit}"


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else f"-{abs(n)}"


def _words(n: Any) -> str:
    return _WORDS[n] if isinstance(n, int) and 0 <= n < len(_WORDS) else _number(n)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{_number(n)} {one if n == 1 else (many or one + 's')}"


def _join_and(items: Iterable[Any], last: str = "and") -> str:
    words = [str(i) for i in items]
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + f" {last} " + words[-1]


def _cell(text: Any) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _mentions(ir: Any, literal: str) -> bool:
    """Whether a compiled expression compares against the string `literal`."""
    if isinstance(ir, list):
        if len(ir) == 2 and ir[0] == "lit":
            return ir[1] == literal
        return any(_mentions(part, literal) for part in ir)
    return False


def _context(bundle: Mapping[str, Any]) -> dict[str, Any]:
    """The bundle plus the helpers a rulebook template may call."""
    cards = list(bundle.get("cards") or [])
    by_id = {c["id"]: c for c in cards}
    kinds = bundle.get("kinds") or {}
    seats = int((bundle.get("players") or {}).get("max", 1))
    counts: dict[str, int] = {}
    if bundle.get("instances"):
        for inst in bundle["instances"]:
            counts[inst["card"]] = counts.get(inst["card"], 0) + 1
    else:
        counts = {c["id"]: int(c.get("count", 1)) * (seats if c.get("per_player") else 1) for c in cards}

    def check_kind(kind: str) -> str:
        if kind not in kinds:
            hint = did_you_mean(kind, kinds)
            raise _HelperError(f"no card kind `{kind}` in {bundle.get('game')}" + (f"; {hint}" if hint else ""))
        return kind

    def card(card_id: str) -> Mapping[str, Any]:
        if card_id not in by_id:
            hint = did_you_mean(card_id, by_id)
            raise _HelperError(f"no card `{card_id}` in {bundle.get('game')}" + (f"; {hint}" if hint else ""))
        return by_id[card_id]

    def _id(c: Any) -> str:
        return card(c)["id"] if isinstance(c, str) else c["id"]

    def cards_of_kind(*wanted: str) -> list[Mapping[str, Any]]:
        wanted_set = {check_kind(k) for k in wanted}
        return [c for c in cards if c["kind"] in wanted_set]

    def copies(c: Any) -> int:
        return counts.get(_id(c), 0)

    def quantity(c: Any) -> str:
        c = card(c) if isinstance(c, str) else c
        return f"{c['count']} per player" if c.get("per_player") else str(c["count"])

    def total(*wanted: str) -> int:
        chosen = cards_of_kind(*wanted) if wanted else cards
        return sum(copies(c) for c in chosen)

    def total_in(zone: str) -> int:
        zones = [z["id"] for z in bundle.get("zones") or []]
        if zones and zone not in zones:
            hint = did_you_mean(zone, zones)
            raise _HelperError(f"no zone `{zone}` in {bundle.get('game')}" + (f"; {hint}" if hint else ""))
        return sum(copies(c) for c in cards if c.get("starts_in") == zone)

    def kind_label(kind: str) -> str:
        return kinds[check_kind(kind)].get("label") or kind.replace("_", " ").title()

    def kind_quantity(*wanted: str) -> str:
        chosen = cards_of_kind(*wanted) if wanted else cards
        shared = sum(copies(c) for c in chosen if not c.get("per_player"))
        seat = sum(int(c.get("count", 1)) for c in chosen if c.get("per_player"))
        parts = ([_number(shared)] if shared or not seat else []) + ([f"{seat} per player"] if seat else [])
        return " + ".join(parts)

    def glossary(terms: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
        entries = {}
        for kind, info in kinds.items():
            if info.get("description"):
                entries[kind_label(kind)] = f"{info['description']} ({kind_quantity(kind)} in the box.)"
        for term, text in (terms or {}).items():
            entries[str(term)] = str(text)
        return sorted(entries.items(), key=lambda item: item[0].casefold())

    def reactions_to(c: Any, window: str | None = None) -> list[Mapping[str, Any]]:
        target = _id(c)
        if window is not None and bundle.get("windows") is not None and window not in bundle["windows"]:
            hint = did_you_mean(window, bundle["windows"])
            raise _HelperError(f"no reaction window `{window}` in {bundle.get('game')}" + (f"; {hint}" if hint else ""))
        return [r for r in cards if r.get("reaction")
                and (window is None or r["reaction"].get("to") == window)
                and _mentions(r["reaction"].get("if"), target)]

    engine: list[Any] = []  # (game, state), built on the first rule() call

    def rule(fn_name: str, *args: Any) -> Any:
        signatures = (bundle.get("signatures") or {}).get("functions") or {}
        if fn_name not in signatures:
            hint = did_you_mean(fn_name, signatures)
            raise _HelperError(f"rule(): no function `{fn_name}` in {bundle.get('game')}'s rules"
                               + (f"; {hint}" if hint else ""))
        params = dict((p, t) for p, t in signatures[fn_name]["params"])   # [[name, type], ...] in order
        if len(args) != len(params):
            raise _HelperError(f"rule(): `{fn_name}` takes {len(params)} argument(s) "
                               f"({', '.join(params)}), not {len(args)}")
        kinds_ok = {"int": int, "bool": bool, "str": str}
        for (param, kind), value in zip(params.items(), args, strict=False):
            if kind not in kinds_ok or not isinstance(value, kinds_ok[kind]):
                raise _HelperError(f"rule(): `{fn_name}`'s `{param}` is a {kind}; a rulebook can pass "
                                   f"only numbers, truth values and strings, not {value!r}")
        if not engine:
            from cardc.engine import Game
            from cardc.engine.state import State
            game = Game(dict(bundle))
            engine.append((game, State.initial(game, int((bundle.get("players") or {}).get("min", 1)), run=False)))
        game, state = engine[0]
        return game.functions[fn_name](state, dict(zip(params, args, strict=False)))

    def printed_components() -> list[Mapping[str, Any]]:
        """What `cardc print` makes: name, quantity, what it is, file."""
        from .layout import load_layout
        from .pipeline import component_list
        return [vars(c) for c in component_list(bundle, load_layout(bundle))]

    def also_need() -> list[str]:
        """What players need that is not printed (the layout's `also_need`)."""
        return [str(x) for x in (bundle.get("layout") or {}).get("also_need") or []]

    def example_turn(turn: int = 3, seed: int = 1, players: int | None = None) -> list[str]:
        """One turn of a recorded game (bots, fixed seed), as its log lines."""
        from .setup_picture import example_turn as record
        return record(bundle, int(turn), int(seed), players)

    return {**bundle, "bundle": bundle, "cards_of_kind": cards_of_kind, "card": card, "copies": copies,
            "printed_components": printed_components, "also_need": also_need, "example_turn": example_turn,
            "quantity": quantity, "total": total, "total_in": total_in, "kind_label": kind_label,
            "kind_quantity": kind_quantity, "glossary": glossary, "reactions_to": reactions_to, "rule": rule}


def _environment() -> sandbox.ContentEnvironment:
    env = sandbox.environment(trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.add_filters(money=_money, millions=lambda n: _money(n, "M"), number=_number, signed=_signed,
                    words=_words, ordinal=_ordinal, plural=_plural, join_and=_join_and, cell=_cell)
    return env


def _hint(message: str, context: Mapping[str, Any]) -> str:
    """A "did you mean" for jinja's undefined-name messages."""
    match = re.search(r"'([^']+)' is undefined", message)
    names: Iterable[str] = context
    if not match:
        match = re.search(r"has no attribute '([^']+)'", message)
        params = context.get("params") or {}
        fields = {k for c in context.get("cards") or [] for k in list(c) + list(c.get("fields") or {})}
        names = [*params, *fields, *context]
    hint = did_you_mean(match.group(1), names) if match else None
    return f"{message}; {hint}" if hint else message


def render_markdown(bundle: Mapping[str, Any]) -> str:
    """The rulebook template rendered over the bundle: the rulebook's Markdown."""
    name = template_name(bundle)
    source = bundle.get("rulebook")
    if not source:     # no template of the game's own: the one made of its content
        name = str(DEFAULT_TEMPLATE)
        source = DEFAULT_TEMPLATE.read_text(encoding="utf-8")
    context = _context(bundle)
    try:    # the template's file name goes into its frames: that is how an error finds its line
        text = sandbox.render_text(_environment(), source, context, name)
    except sandbox.TemplateProblem as exc:
        raise RulebookError(_hint(exc.message, context), name, exc.line) from None
    return _reflow(_tidy(text))


def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


def _reflow(text: str) -> str:
    """Each paragraph on one line. A template wraps its prose at its own
    width, and values of other lengths make the rendered lines ragged; joining
    the lines of a paragraph changes nothing in its meaning (a line break in a
    paragraph is a space) and can never start a new block."""
    lines = text.split("\n")
    depth = 0
    for token in _markdown().parse(text):
        if token.type == "blockquote_open":
            depth += 1
        elif token.type == "blockquote_close":
            depth -= 1
        elif token.type == "paragraph_open" and token.map and token.map[1] - token.map[0] > 1:
            start, end = token.map
            if any(lines[i].endswith("\\") for i in range(start, end - 1)):
                continue  # a hard line break stays
            strip = re.compile(r"^\s*" + r"(?:>\s?)?\s*" * depth)
            joined = lines[start] + "".join(" " + strip.sub("", lines[i], count=1) for i in range(start + 1, end))
            lines[start:end] = [joined] + [None] * (end - start - 1)  # type: ignore[list-item]
    return "\n".join(line for line in lines if line is not None)


def _tidy(text: str) -> str:
    """No trailing spaces, at most one blank line in a row, one final newline."""
    lines = [line.rstrip() for line in text.splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ Markdown -> flowables

@dataclass(frozen=True)
class Styles:
    body: ParagraphStyle
    title: ParagraphStyle
    tagline: ParagraphStyle
    h2: ParagraphStyle
    h3: ParagraphStyle
    h4: ParagraphStyle
    cell: ParagraphStyle
    head: ParagraphStyle
    small: ParagraphStyle
    toc: tuple[ParagraphStyle, ...]
    accent: str


def _styles(fonts: Fonts, accent: str) -> Styles:
    regular, bold = fonts.name("regular"), fonts.name("bold")
    body = ParagraphStyle("body", fontName=regular, bulletFontName=regular, fontSize=10, leading=13.6,
                          textColor=HexColor(INK), spaceAfter=5)
    # No keepWithNext (it glues a heading to a whole table and can strand it):
    # every heading is preceded by a CondPageBreak that keeps room for a few lines.
    heading = dict(fontName=bold, textColor=HexColor(accent))
    return Styles(
        body=body,
        title=ParagraphStyle("title", fontName=bold, bulletFontName=regular, fontSize=40, leading=46,
                             alignment=TA_CENTER, textColor=HexColor(accent), spaceAfter=10),
        tagline=ParagraphStyle("tagline", parent=body, fontName=fonts.name("italic"), fontSize=13, leading=18,
                               alignment=TA_CENTER, textColor=HexColor(INK), spaceAfter=8),
        h2=ParagraphStyle("h2", fontSize=18, leading=22, spaceBefore=14, spaceAfter=7, **heading),
        h3=ParagraphStyle("h3", fontSize=13, leading=16, spaceBefore=10, spaceAfter=4, **heading),
        h4=ParagraphStyle("h4", parent=body, fontName=fonts.name("bolditalic"), spaceBefore=4, spaceAfter=2),
        cell=ParagraphStyle("cell", parent=body, fontSize=8.5, leading=10.5, spaceAfter=0),
        head=ParagraphStyle("head", parent=body, fontName=bold, fontSize=8.5, leading=10.5, spaceAfter=0),
        small=ParagraphStyle("small", parent=body, fontSize=8, leading=10, textColor=HexColor(MUTED),
                             alignment=TA_CENTER),
        toc=(ParagraphStyle("toc0", fontName=bold, bulletFontName=regular, fontSize=11, leading=15, leftIndent=0,
                            firstLineIndent=0, spaceBefore=5, textColor=HexColor(INK)),
             ParagraphStyle("toc1", fontName=regular, bulletFontName=regular, fontSize=9.5, leading=12.5, leftIndent=14,
                            firstLineIndent=0, textColor=HexColor(INK))),
        accent=accent,
    )


def _table_font(fonts: Fonts) -> tuple:
    """A platypus Table sets its cells' font even when they hold flowables; the
    default is Helvetica, which would then sit unembedded in the PDF."""
    return ("FONT", (0, 0), (-1, -1), fonts.name("regular"))


class Heading(Paragraph):
    """A heading paragraph that the document enters in the TOC and outline."""

    def __init__(self, text: str, style: ParagraphStyle, level: int, plain: str, key: str) -> None:
        super().__init__(text, style)
        self.toc_level, self.toc_text, self.toc_key = level, plain, key


class CardFace(Flowable):
    """A card face from the print renderer, scaled, with its quantity below."""

    CAPTION = 9.0  # points

    def __init__(self, card: Prepared, fonts: Fonts, scale: float, caption: str) -> None:
        super().__init__()
        self.card, self.fonts, self.scale, self.caption = card, fonts, scale, caption
        self.width = card.face.deck.width * mm * scale
        self.height = card.face.deck.height * mm * scale + self.CAPTION

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        return self.width, self.height

    def draw(self) -> None:
        canvas = self.canv
        canvas.saveState()
        canvas.translate(0, self.CAPTION)
        canvas.scale(self.scale, self.scale)
        draw_front(canvas, self.card, self.fonts, 0, 0)
        canvas.restoreState()
        canvas.setStrokeColor(HexColor("#b0b0b0"))
        canvas.setLineWidth(0.3)
        canvas.rect(0, self.CAPTION, self.width, self.height - self.CAPTION, stroke=1, fill=0)
        canvas.setFont(self.fonts.name("regular"), 7)
        canvas.setFillColor(HexColor(MUTED))
        canvas.drawCentredString(self.width / 2, 2, self.caption)


class _Converter:
    """Markdown (as a markdown-it syntax tree) to platypus flowables."""

    def __init__(self, fonts: Fonts, styles: Styles, width: float, template: str) -> None:
        self.fonts, self.styles, self.width, self.template = fonts, styles, width, template
        self.keys = 0
        # the game's bundle: the setup picture and the worked examples are drawn from it
        self.bundle: Mapping[str, Any] | None = None

    def where(self, line: int | None) -> str:
        """A place in the rendered Markdown, for glyph errors."""
        return f"rulebook.md:{line} (rendered from {self.template})" if line else f"rulebook.md ({self.template})"

    def error(self, message: str, line: int | None) -> RulebookError:
        return RulebookError(f"{message} (in the Markdown rendered from {self.template})", "rulebook.md", line)

    # -- inline
    def inline(self, node: SyntaxTreeNode, face: str = "regular") -> tuple[str, str]:
        """(ReportLab paragraph markup, plain text) of an inline node's children."""
        markup, plain = [], []
        line = (node.map[0] + 1) if node.map else None

        def check(text: str, current: str) -> None:
            self.fonts.check(text, current, self.where(line))

        def walk(children: Sequence[SyntaxTreeNode], current: str) -> None:
            for child in children:
                kind = child.type
                if kind == "text":
                    check(child.content, current)
                    markup.append(escape(child.content))
                    plain.append(child.content)
                elif kind in ("softbreak",):
                    markup.append(" ")
                    plain.append(" ")
                elif kind == "hardbreak":
                    markup.append("<br/>")
                    plain.append(" ")
                elif kind == "strong":
                    nxt = {"regular": "bold", "italic": "bolditalic"}.get(current, current)
                    markup.append("<b>")
                    walk(child.children, nxt)
                    markup.append("</b>")
                elif kind == "em":
                    nxt = {"regular": "italic", "bold": "bolditalic"}.get(current, current)
                    markup.append("<i>")
                    walk(child.children, nxt)
                    markup.append("</i>")
                elif kind == "code_inline":
                    check(child.content, current)
                    markup.append(f'<font color="{self.styles.accent}">{escape(child.content)}</font>')
                    plain.append(child.content)
                elif kind == "link":
                    markup.append("<u>")
                    walk(child.children, current)
                    markup.append("</u>")
                elif kind == "html_inline":
                    raise self.error(f"raw HTML {child.content!r} is not supported in a rulebook", line)
                elif kind == "image":
                    raise self.error("images are not supported in a rulebook", line)
                else:
                    walk(child.children, current)

        walk(node.children, face)
        return "".join(markup), "".join(plain)

    def _inline_of(self, node: SyntaxTreeNode, face: str = "regular") -> tuple[str, str]:
        inline = next((c for c in node.children if c.type == "inline"), None)
        return self.inline(inline, face) if inline is not None else ("", "")

    # -- blocks
    def blocks(self, nodes: Sequence[SyntaxTreeNode], indent: float = 0) -> list[Flowable]:
        out: list[Flowable] = []
        for node in nodes:
            out += self.block(node, indent)
        return out

    def block(self, node: SyntaxTreeNode, indent: float = 0) -> list[Flowable]:
        kind = node.type
        line = (node.map[0] + 1) if node.map else None
        if kind == "heading":
            return [CondPageBreak(HEADING_ROOM), self.heading(node)]
        if kind == "paragraph":
            markup, _ = self._inline_of(node)
            return [Paragraph(markup, self._indented(self.styles.body, indent))]
        if kind in ("bullet_list", "ordered_list"):
            return self.list_block(node, indent)
        if kind == "table":
            return [self.table(node)]
        if kind == "blockquote":
            return [self.quote(node, indent)]
        if kind == "hr":
            return [HRFlowable(width="100%", thickness=0.6, color=HexColor(tint(self.styles.accent, 0.5)),
                               spaceBefore=4, spaceAfter=8)]
        if kind in ("code_block", "fence"):
            text = node.content.rstrip("\n")
            self.fonts.check(text, "regular", self.where(line))
            markup = "<br/>".join(escape(t) for t in text.split("\n"))
            return [Paragraph(f'<font color="{self.styles.accent}">{markup}</font>',
                              self._indented(self.styles.body, indent + 12))]
        if kind == "html_block":
            content = node.content.strip()
            if content == PAGEBREAK:
                return [PageBreak()]
            if content == SETUP_PICTURE and self.bundle is not None:
                from .setup_picture import SetupPicture, pile_pictures, setup_piles
                piles, players = setup_piles(self.bundle)
                faces, backs = pile_pictures(self.bundle, piles, self.fonts)
                return [Spacer(1, 4), SetupPicture(piles, players, self.fonts, self.width, faces, backs),
                        Spacer(1, 6)]
            example = EXAMPLE.fullmatch(content)
            if example and getattr(self, "bundle", None) is not None:
                return self.example(example.group(1), int(example.group(2)), line)
            if content.startswith("<!--") and content.endswith("-->"):
                return []
            raise self.error(f"raw HTML {content[:40]!r} is not supported in a rulebook (only {PAGEBREAK})", line)
        raise self.error(f"Markdown element `{kind}` is not supported in a rulebook", line)

    def example(self, file: str, number: int, line: int | None) -> list[Flowable]:
        """A worked example: scenario `number` of `file` replayed, its board
        before and after, or for a game without a board the zones it changed
        (board_picture.py)."""
        from .board_picture import BoardPicture, ZonesPicture, marker_colours, replay_example
        from .layout import load_layout
        from .setup_picture import pile_pictures

        bundle = self.bundle
        if bundle is None:
            raise self.error("a worked example is drawn from the game's bundle, and there is none here", line)
        try:
            shown = replay_example(bundle, file, number)
        except RenderError as exc:
            raise self.error(str(exc), line) from None
        if bundle.get("grid"):
            colours = marker_colours(bundle, load_layout(bundle))
            picture: Flowable = BoardPicture(shown, bundle["grid"], self.fonts, self.width, colours)
        else:
            piles = [p for change in shown.zones for p in (change.before, change.after) if p is not None]
            faces, backs = pile_pictures(bundle, piles, self.fonts)
            picture = ZonesPicture(shown, self.fonts, self.width, faces, backs)
        return [Spacer(1, 4), picture, Spacer(1, 6)]

    def _indented(self, style: ParagraphStyle, indent: float) -> ParagraphStyle:
        if not indent:
            return style
        return ParagraphStyle(f"{style.name}+{indent:g}", parent=style, leftIndent=style.leftIndent + indent)

    def heading(self, node: SyntaxTreeNode) -> Flowable:
        level = int(node.tag[1])
        face = "bolditalic" if level >= 4 else "bold"
        markup, plain = self._inline_of(node, face)
        if level <= 2:
            style, toc = self.styles.h2, 0
        elif level == 3:
            style, toc = self.styles.h3, 1
        else:
            return Paragraph(markup, self.styles.h4)
        self.keys += 1
        return Heading(markup, style, toc, " ".join(plain.split()), f"h{self.keys}")

    def list_block(self, node: SyntaxTreeNode, indent: float) -> list[Flowable]:
        ordered = node.type == "ordered_list"
        start = int(node.attrs.get("start", 1)) if ordered else 1
        step = 14.0
        out: list[Flowable] = []
        for number, item in enumerate(node.children, start):
            bullet = f"{number}." if ordered else "•"
            first = True
            for child in item.children:
                if child.type == "paragraph" and first:
                    markup, _ = self._inline_of(child)
                    style = ParagraphStyle(f"li{indent:g}", parent=self.styles.body, leftIndent=indent + step,
                                           bulletIndent=indent + 2, spaceAfter=2.5)
                    out.append(Paragraph(markup, style, bulletText=bullet))
                    first = False
                else:
                    out += self.block(child, indent + step)
        if out:
            out.append(Spacer(1, 3))
        return out

    def quote(self, node: SyntaxTreeNode, indent: float) -> Flowable:
        inner = self.blocks(node.children)
        accent = self.styles.accent
        table = Table([[inner]], colWidths=[self.width - indent - 4])
        table.setStyle(TableStyle([
            _table_font(self.fonts),
            ("BACKGROUND", (0, 0), (-1, -1), HexColor(tint(accent, 0.9))),
            ("LINEBEFORE", (0, 0), (0, -1), 2.2, HexColor(accent)),
            ("LEFTPADDING", (0, 0), (-1, -1), 9), ("RIGHTPADDING", (0, 0), (-1, -1), 8),
            ("TOPPADDING", (0, 0), (-1, -1), 5), ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
        ]))
        table.hAlign = "LEFT"
        table.spaceBefore, table.spaceAfter = 2, 7
        return table

    def table(self, node: SyntaxTreeNode) -> Flowable:
        rows: list[list[tuple[str, str, str]]] = []  # (markup, plain, align) per cell
        header_rows = 0
        for section in node.children:
            for tr in section.children:
                row = []
                for cell in tr.children:
                    align = re.search(r"text-align:(\w+)", str(cell.attrs.get("style", "")))
                    face = "bold" if cell.type == "th" else "regular"
                    inline = next((c for c in cell.children if c.type == "inline"), None)
                    markup, plain = self.inline(inline, face) if inline is not None else ("", "")
                    row.append((markup, plain, align.group(1) if align else "left"))
                rows.append(row)
                header_rows += section.type == "thead"
        columns = max(len(r) for r in rows)
        widths = self._column_widths(rows, columns, header_rows)
        alignments = {"left": TA_LEFT, "center": TA_CENTER, "right": TA_RIGHT}
        data = []
        for r, row in enumerate(rows):
            cells = []
            for markup, _, side in row + [("", "", "left")] * (columns - len(row)):
                base = self.styles.head if r < header_rows else self.styles.cell
                style = ParagraphStyle(f"{base.name}-{side}", parent=base, alignment=alignments.get(side, TA_LEFT))
                cells.append(Paragraph(markup, style))
            data.append(cells)
        accent = self.styles.accent
        commands = [
            _table_font(self.fonts),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("LINEBELOW", (0, 0), (-1, -1), 0.3, HexColor("#d8d8d8")),
            ("LEFTPADDING", (0, 0), (-1, -1), 4), ("RIGHTPADDING", (0, 0), (-1, -1), 4),
            ("TOPPADDING", (0, 0), (-1, -1), 2.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
        ]
        if header_rows:
            commands += [("BACKGROUND", (0, 0), (-1, header_rows - 1), HexColor(tint(accent, 0.8))),
                         ("LINEBELOW", (0, header_rows - 1), (-1, header_rows - 1), 0.8, HexColor(accent))]
        for r in range(header_rows + 1, len(rows), 2):
            commands.append(("BACKGROUND", (0, r), (-1, r), HexColor("#f6f5f1")))
        table = Table(data, colWidths=widths, repeatRows=header_rows, style=TableStyle(commands))
        table.hAlign = "LEFT"
        table.spaceBefore, table.spaceAfter = 3, 9
        return table

    def _column_widths(self, rows: list[list[tuple[str, str, str]]], columns: int, header_rows: int) -> list[float]:
        """Natural widths when they fit; else every column gets its longest
        word and the rest of the page goes where the text is longest."""
        pad = 8.5
        size = self.styles.cell.fontSize
        least, natural = [0.0] * columns, [0.0] * columns
        for r, row in enumerate(rows):
            for c, (markup, plain, _) in enumerate(row):
                face = "bold" if r < header_rows or "<b>" in markup else "regular"  # measure the wider face
                words = plain.split() or [""]
                least[c] = max(least[c], max(self.fonts.width(w, face, size) for w in words) + pad)
                natural[c] = max(natural[c], self.fonts.width(plain, face, size) + pad)
        if sum(natural) <= self.width:
            return natural
        if sum(least) >= self.width:
            scale = self.width / sum(least)
            return [w * scale for w in least]
        # Short columns get all they want, smallest need first; the long
        # (text) columns share what is left in proportion to their need.
        widths, spare = list(least), self.width - sum(least)
        need = [n - m for n, m in zip(natural, least, strict=False)]
        order = sorted(range(columns), key=lambda c: need[c])
        for i, c in enumerate(order):
            left = order[i:]
            if need[c] * len(left) > spare:
                total = sum(need[k] for k in left)
                for k in left:
                    widths[k] += spare * need[k] / total
                break
            widths[c] += need[c]
            spare -= need[c]
        return widths


# ------------------------------------------------------------------ the PDF

class _Doc(BaseDocTemplate):
    """Title page, contents, body; headings feed the TOC and the outline."""

    def __init__(self, buffer: io.BytesIO, page: tuple[float, float], fonts: Fonts, styles: Styles,
                 title: str, footer: str, **kwargs: Any) -> None:
        super().__init__(buffer, pagesize=page, leftMargin=MARGIN, rightMargin=MARGIN, topMargin=MARGIN,
                         bottomMargin=MARGIN, title=title, creator="cardc", invariant=1, pageCompression=1,
                         initialFontName=fonts.name("regular"), **kwargs)
        self.fonts, self.styles, self.footer = fonts, styles, footer
        frame = Frame(self.leftMargin, self.bottomMargin, self.width, self.height, id="body",
                      leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0)
        self.addPageTemplates([PageTemplate("title", [frame]),
                               PageTemplate("body", [frame], onPage=self._decorate)])

    def _decorate(self, canvas, doc) -> None:
        width, height = self.pagesize
        canvas.saveState()
        canvas.setFillColor(HexColor(MUTED))
        canvas.setFont(self.fonts.name("regular"), 8)
        canvas.drawString(MARGIN, height - MARGIN + 8, self.footer)
        canvas.setStrokeColor(HexColor(tint(self.styles.accent, 0.6)))
        canvas.setLineWidth(0.5)
        canvas.line(MARGIN, height - MARGIN + 4, width - MARGIN, height - MARGIN + 4)
        canvas.setFont(self.fonts.name("regular"), 9)
        canvas.drawCentredString(width / 2, MARGIN - 22, str(canvas.getPageNumber()))
        canvas.restoreState()

    def afterFlowable(self, flowable: Flowable) -> None:
        if isinstance(flowable, Heading):
            canvas = self.canv
            canvas.bookmarkPage(flowable.toc_key)
            canvas.addOutlineEntry(flowable.toc_text, flowable.toc_key, flowable.toc_level, closed=True)
            self.notify("TOCEntry", (flowable.toc_level, escape(flowable.toc_text), self.page, flowable.toc_key))


def _register_family(fonts: Fonts) -> None:
    """So that <b> and <i> in a paragraph pick the embedded faces."""
    pdfmetrics.registerFontFamily(fonts.name("regular"), normal=fonts.name("regular"), bold=fonts.name("bold"),
                                  italic=fonts.name("italic"), boldItalic=fonts.name("bolditalic"))


def _accent(bundle: Mapping[str, Any]) -> str:
    layout = bundle.get("layout") or {}
    colour = ((layout.get("card") or {}).get("back") or {}).get("colour")
    return colour if isinstance(colour, str) and re.fullmatch(r"#[0-9a-fA-F]{6}", colour) else DEFAULT_ACCENT


def _gallery(bundle: Mapping[str, Any], fonts: Fonts, styles: Styles, width: float, key: int) -> list[Flowable]:
    """The "Card gallery" chapter: every card definition drawn as printed, deck by deck."""
    from .pipeline import build_faces  # the print renderer's faces, exactly as printed

    layout = load_layout(bundle)
    faces = build_faces(bundle, layout)
    counts: dict[str, int] = {}
    for inst in bundle.get("instances") or []:
        counts[inst["card"]] = counts.get(inst["card"], 0) + 1
    params = bundle.get("params") or {}
    by_deck: dict[str, list] = {}
    for card in bundle.get("cards") or []:
        face = faces[card["id"]]
        by_deck.setdefault(face.deck.id, []).append((card, face))
    out: list[Flowable] = [PageBreak(), Heading("Card gallery", styles.h2, 0, "Card gallery", f"h{key}"),
                           Paragraph("Every card as it prints, with the number of copies in the box.", styles.body)]
    gap = 3 * mm
    for index, deck in enumerate(layout.decks):
        entries = by_deck.get(deck.id)
        if not entries:
            continue
        target = 13 * mm if deck.style == "tile" else 40 * mm  # drawn width of one face
        scale = min(1.0, target / (deck.width * mm))
        cols = max(1, int((width + gap) // (deck.width * mm * scale + gap)))
        cells = []
        shown = entries
        if deck.style == "tile" and len(entries) > GALLERY_TILES:  # 108 board tiles differ only by their space
            shown = entries[:GALLERY_TILES]
        for card, face in shown:
            n = counts.get(card["id"], int(card.get("count", 1)))
            caption = f"×{card['count']} per player" if card.get("per_player") else f"×{n}"
            cells.append(CardFace(prepare(face, layout, fonts, params), fonts, scale, caption))
        rows = [cells[i:i + cols] + [""] * (cols - len(cells[i:i + cols])) for i in range(0, len(cells), cols)]
        cell_w = deck.width * mm * scale + gap
        table = Table(rows, colWidths=[cell_w] * cols, hAlign="LEFT",
                      style=TableStyle([_table_font(fonts), ("LEFTPADDING", (0, 0), (-1, -1), 0),
                                        ("RIGHTPADDING", (0, 0), (-1, -1), 0),
                                        ("TOPPADDING", (0, 0), (-1, -1), 0), ("BOTTOMPADDING", (0, 0), (-1, -1), gap),
                                        ("VALIGN", (0, 0), (-1, -1), "TOP")]))
        title = f"{deck.title} ({sum(counts.get(c['id'], 0) for c, _ in entries)})"
        row_height = deck.height * mm * scale + CardFace.CAPTION + gap
        out += [CondPageBreak(row_height + HEADING_ROOM),  # the deck's heading never sits alone
                Heading(escape(title), styles.h3, 1, title, f"h{key}-{index}"), table]
        if len(shown) < len(entries):
            out.append(Paragraph(f"The first {len(shown)} of {len(entries)}: the others differ only in the "
                                 f"space printed on them.", styles.body))
    return out


def _title_page(blocks: list[SyntaxTreeNode], conv: _Converter, bundle: Mapping[str, Any],
                styles: Styles, page_height: float) -> tuple[list[Flowable], list[SyntaxTreeNode]]:
    """The first `#` heading and what follows it up to the next heading."""
    if not blocks or blocks[0].type != "heading" or blocks[0].tag != "h1":
        title = escape(str(bundle.get("name") or bundle.get("game") or "Rulebook"))
        intro: list[SyntaxTreeNode] = []
        rest = blocks
    else:
        title, _ = conv._inline_of(blocks[0], "bold")
        end = next((i for i, b in enumerate(blocks[1:], 1) if b.type == "heading"), len(blocks))
        intro, rest = blocks[1:end], blocks[end:]
    kicker = ParagraphStyle("kicker", parent=styles.small, fontName=conv.fonts.name("bold"), fontSize=10,
                            leading=14, textColor=HexColor(styles.accent))
    flow: list[Flowable] = [Spacer(1, page_height * 0.2), Paragraph("R U L E B O O K", kicker), Spacer(1, 6),
                            Paragraph(title, styles.title),
                            HRFlowable(width="40%", thickness=1.2, color=HexColor(styles.accent),
                                       spaceBefore=6, spaceAfter=16)]
    for node in intro:
        if node.type == "paragraph":
            markup, _ = conv._inline_of(node, "italic")
            flow.append(Paragraph(markup, styles.tagline))
        else:
            flow += conv.block(node)
    players = bundle.get("players") or {}
    if players:
        count = f"{players.get('min')}–{players.get('max')}" if players.get("min") != players.get("max") \
            else str(players.get("min"))
        box = (bundle.get("layout") or {}).get("box") or {}
        facts = [f"{count} players"] + [str(box[k]) if k == "time" else f"ages {box[k]}"
                                        for k in ("time", "age") if box.get(k)]
        players_style = ParagraphStyle("players", parent=styles.tagline, fontName=conv.fonts.name("bold"))
        flow += [Spacer(1, 10), Paragraph(escape(" · ".join(facts)), players_style)]
    stamp = f"Rulebook · generated by cardc from bundle {str(bundle.get('source_hash', ''))[:12]}"
    flow += [Spacer(1, page_height * 0.2), Paragraph(escape(stamp), styles.small)]
    return [KeepTogether(flow)], rest


def render_pdf(bundle: Mapping[str, Any], markdown: str | None = None, paper: str = "a4",
               gallery: bool = True) -> bytes:
    """The rulebook PDF: title page, contents, the rules, the card gallery."""
    if paper not in PAPERS:
        raise RenderError(f"--paper must be one of {', '.join(PAPERS)}, not {paper!r}")
    markdown = render_markdown(bundle) if markdown is None else markdown
    fonts = load_fonts()
    _register_family(fonts)
    styles = _styles(fonts, _accent(bundle))
    page = (PAPERS[paper][0] * mm, PAPERS[paper][1] * mm)
    width = page[0] - 2 * MARGIN
    conv = _Converter(fonts, styles, width, template_name(bundle))
    conv.bundle = bundle  # for the setup picture
    tree = SyntaxTreeNode(_markdown().parse(markdown))
    title_flow, rest = _title_page(list(tree.children), conv, bundle, styles, page[1] - 2 * MARGIN)
    toc = TableOfContents(levelStyles=list(styles.toc), dotsMinLevel=0)
    toc.tableStyle = TableStyle([_table_font(fonts), ("VALIGN", (0, 0), (-1, -1), "TOP"),
                                 ("LEFTPADDING", (0, 0), (-1, -1), 0), ("RIGHTPADDING", (0, 0), (-1, -1), 0)])
    story: list[Flowable] = [*title_flow, NextPageTemplate("body"), PageBreak(),
                             Paragraph("Contents", styles.h2), toc, PageBreak(), *conv.blocks(rest)]
    if gallery:
        story += _gallery(bundle, fonts, styles, width, conv.keys + 1)
    name = str(bundle.get("name") or bundle.get("game") or "")
    buffer = io.BytesIO()
    doc = _Doc(buffer, page, fonts, styles, f"{name}: rulebook", f"{name} · Rulebook")
    doc.multiBuild(story, maxPasses=6)
    return buffer.getvalue()


# ------------------------------------------------------------------ files

@dataclass(frozen=True)
class RulebookFiles:
    markdown: str
    pdf: bytes | None


def render_rulebook(bundle: Mapping[str, Any], fmt: str = "both", paper: str = "a4") -> RulebookFiles:
    """Render in memory: the Markdown always (the PDF is set from it), the PDF unless fmt is "md"."""
    if fmt not in FORMATS:
        raise RenderError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    markdown = render_markdown(bundle)
    pdf = render_pdf(bundle, markdown, paper) if fmt in ("pdf", "both") else None
    return RulebookFiles(markdown, pdf)


def write_rulebook(bundle: Mapping[str, Any], out_dir: str | Path, fmt: str = "both", paper: str = "a4") -> list[Path]:
    """Render, then write rulebook.md and/or rulebook.pdf atomically into out_dir."""
    files = render_rulebook(bundle, fmt, paper)
    out = Path(out_dir)
    paths = []
    if fmt in ("md", "both"):
        paths.append(write_atomic(out / "rulebook.md", files.markdown))
    if files.pdf is not None:
        paths.append(write_atomic(out / "rulebook.pdf", files.pdf))
    return paths
