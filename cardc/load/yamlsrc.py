"""YAML loading that remembers where every value came from.

cardc reports mistakes at the designer's `file:line:col`, including mistakes
found much later (a misspelt name deep inside an effect), so loading keeps a
location on every node:

- mappings load as `LocDict` (with `.loc`, `.key_locs[k]`, `.value_locs[k]`),
- sequences as `LocList` (with `.loc`, `.item_locs[i]`),
- strings as `LocStr` (with `.loc`, `.style` and `.position(offset)`, which
  maps a character of the string back to the file, so the effect language's
  errors land inside a `|` block exactly),
- numbers, booleans and null stay plain; their places are in the parent's
  `value_locs` / `item_locs`; keys are plain `str`, placed by `key_locs`.

Only plain data is accepted (pyyaml's safe loader, core-schema tags only),
and hostile files fail fast and located: tabs used as indentation, duplicate
keys, non-text keys, unknown tags and alias bombs. Every failure raises
`CardcError`; no pyyaml traceback reaches a designer.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from cardc.load.diagnostics import (
    LINE_BREAK,
    CardcError,
    Diagnostic,
    Loc,
    display_path,
    split_lines,
)

MAX_ALIASES = 100  # alias uses (`*name`) in one file
MAX_EXPANSION = 10_000  # nodes one alias may stand for
MAX_TOTAL_EXPANSION = 100_000  # nodes all aliases of a file may stand for

_CORE = "tag:yaml.org,2002:"
STR, INT, FLOAT, BOOL, NULL = (_CORE + t for t in ("str", "int", "float", "bool", "null"))
SEQ, MAP, MERGE = _CORE + "seq", _CORE + "map", _CORE + "merge"
# Plain scalars that pyyaml resolves to these tags keep their text: a date is
# just text to cardc, and `=` is a YAML 1.1 oddity.
TEXT_TAGS = {STR, _CORE + "timestamp", _CORE + "value"}


# --------------------------------------------------------------------------
# Located values


class LocDict(dict):
    """A YAML mapping that knows where it, its keys and its values are."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.loc: Loc | None = None
        self.key_locs: dict[str, Loc] = {}
        self.value_locs: dict[str, Loc] = {}

    def key_loc(self, key: str) -> Loc | None:
        """Where `key` is written, else where the mapping is."""
        return self.key_locs.get(key, self.loc)

    def value_loc(self, key: str) -> Loc | None:
        """Where the value of `key` is written, else where the mapping is."""
        return self.value_locs.get(key, self.loc)


class LocList(list):
    """A YAML sequence that knows where it and each item are."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.loc: Loc | None = None
        self.item_locs: list[Loc] = []

    def item_loc(self, index: int) -> Loc | None:
        """Where item `index` is written, else where the list is."""
        if 0 <= index < len(self.item_locs):
            return self.item_locs[index]
        return self.loc


@dataclass
class _Source:
    """The text of one file, shared by its strings to map offsets back."""

    file: str
    text: str
    lines: list[str] = field(init=False)
    starts: list[int] = field(init=False)  # index of each line's first char

    def __post_init__(self) -> None:
        self.lines = split_lines(self.text)
        self.starts = [0] + [m.end() for m in LINE_BREAK.finditer(self.text)]

    def position(self, index: int) -> tuple[int, int]:
        """1-based (line, col) of a character index into the text."""
        line = bisect.bisect_right(self.starts, index) - 1
        return line + 1, index - self.starts[line] + 1


class LocStr(str):
    """A YAML string that can map any of its characters back to the file.

    `.style` is how it was written: None (plain), `'`, `"`, `|` or `>`.
    `position(offset)` is exact for single-line plain and quoted strings and
    for literal blocks (`|`, `|-`, `|+`, `|2`), and best effort for folded
    blocks and strings that wrap over several lines.
    """

    loc: Loc | None
    style: str | None
    _source: _Source | None
    _start: int                     # the character span of the node in the text
    _end: int
    _map: list[int] | None

    def __new__(cls, value: str, loc: Loc | None = None, style: str | None = None) -> LocStr:
        self = super().__new__(cls, value)
        self.loc = loc
        self.style = style
        self._source = None
        self._start = self._end = 0
        self._map = None
        return self

    # A LocStr is immutable like any str: copies may share it.
    def __copy__(self) -> LocStr:
        return self

    def __deepcopy__(self, memo: dict) -> LocStr:
        return self

    def position(self, offset: int) -> tuple[int, int]:
        """The 1-based (line, col) in the file of character `offset` of this
        string; `offset == len(self)` is just past the last character."""
        if self.loc is None:
            return 0, 0
        offset = max(0, min(offset, len(self)))
        if offset == len(self) and offset > 0:
            line, col = self.position(offset - 1)
            return line, col + 1
        if self._source is None:
            return self.loc.line, self.loc.col + offset
        if self.style == "|":
            return self._literal_position(offset)
        if self._map is None:
            self._map = self._align()
        if not self._map:
            return self.loc.line, self.loc.col
        return self._source.position(self._map[offset])

    def span(self, start: int, end: int | None = None) -> Loc | None:
        """A `Loc` for characters `start:end` of this string, underlining
        them when they sit on one line of the file."""
        if self.loc is None:
            return None
        line, col = self.position(start)
        end_col = None
        if end is not None and end > start:
            end_line, last = self.position(end - 1)
            if end_line == line:
                end_col = last + 1
        return Loc(self.loc.file, line, col, end_col)

    def _literal_position(self, offset: int) -> tuple[int, int]:
        # A literal block keeps the file's lines one for one, less the block's
        # indentation; the indentation is whatever the first non-empty line
        # has beyond its text, which covers |-, |+ and |2 without parsing
        # the header or knowing the parent's indentation.
        assert self._source is not None and self.loc is not None
        first = self.loc.line  # 1-based line of the `|`; content starts below
        raw_lines = self._source.lines
        indent = 0
        for i, text in enumerate(self.split("\n")):
            if text and first + i < len(raw_lines):
                indent = len(raw_lines[first + i]) - len(text)
                break
        line_index = self.count("\n", 0, offset)
        col = offset - (self.rfind("\n", 0, offset) + 1)
        return first + 1 + line_index, indent + 1 + col

    def _align(self) -> list[int]:
        # Walk the value and the raw text side by side: each character of the
        # value is the next matching raw character, where escapes and doubled
        # quotes stand for one character and a line break folds to a space.
        assert self._source is not None
        text, j, end = self._source.text, self._start, self._end
        if self.style in ("'", '"'):
            j, end = j + 1, end - 1
        elif self.style == ">":
            line, _ = self._source.position(j)
            j = self._source.starts[line] if line < len(self._source.starts) else end
        positions = []
        for ch in self:
            while j < end:
                c = text[j]
                if c == ch or (self.style == '"' and c == "\\"):
                    break
                if ch == " " and LINE_BREAK.match(c):
                    break
                j += 1
            positions.append(min(j, max(end - 1, self._start)))
            j += _raw_width(text, j, self.style)
        return positions


def _raw_width(text: str, j: int, style: str | None) -> int:
    """How many raw characters stand for one character of the value at j."""
    if style == '"' and text[j : j + 1] == "\\":
        return {"x": 4, "u": 6, "U": 10}.get(text[j + 1 : j + 2], 2)
    if style == "'" and text.startswith("''", j):
        return 2
    return 1


# --------------------------------------------------------------------------
# Loading


def load_yaml(path: Path, file: str | None = None) -> Any:
    """Load one YAML file into located values; raises `CardcError`.

    `file` is the name diagnostics use (default: the path relative to the
    working directory).
    """
    file = file or display_path(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise CardcError(Diagnostic(Loc(file, 0, 0), "error", f"cannot read file: {exc.strerror}")) from None
    return parse_yaml(decode_text(data, file), file)


def decode_text(data: bytes, file: str) -> str:
    """The UTF-8 text of a source file; binary files are refused where their
    first non-text byte is."""
    bad = data.find(b"\0")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = exc.start if bad < 0 else min(bad, exc.start)
    if bad >= 0:
        before = data[:bad]
        line = before.count(b"\n") + 1
        col = len(before[before.rfind(b"\n") + 1 :].decode("utf-8", "replace")) + 1
        raise CardcError(Diagnostic(Loc(file, line, col), "error", "not a text file (not UTF-8)"))
    return text.removeprefix("\ufeff")


def parse_yaml(text: str, file: str) -> Any:
    """Parse YAML text (one document) into located values; raises `CardcError`."""
    if not text.strip():
        raise CardcError(Diagnostic(Loc(file, 1, 1), "error", "file is empty"))
    source = _Source(file, text)
    loader = None
    try:
        loader = _Loader(text)  # checks for unprintable characters at once
        node = loader.get_single_node()
        if node is None:
            raise CardcError(Diagnostic(Loc(file, 1, 1), "error", "file is empty"))
        builder = _Builder(loader, source)
        builder.check_aliases(node)
        value = builder.build(node)
    except yaml.reader.ReaderError as exc:
        line, col = source.position(exc.position)
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        raise CardcError(
            Diagnostic(
                Loc(file, line, col),
                "error",
                f"character U+{code:04X} is not allowed in YAML",
                "remove it; control characters cannot appear in a text file",
            )
        ) from None
    except yaml.MarkedYAMLError as exc:
        raise CardcError(_syntax_error(exc, source)) from None
    except RecursionError:
        raise CardcError(Diagnostic(Loc(file, 1, 1), "error", "YAML nested too deeply")) from None
    finally:
        if loader is not None:
            loader.dispose()
    if builder.problems:
        raise CardcError(builder.problems)
    return value


class _Loader(yaml.SafeLoader):
    """pyyaml's safe loader, composing aliases as `_Alias` stand-ins so their
    own locations survive (pyyaml returns the anchored node itself)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            target = super().compose_node(parent, index)
            return _Alias(target, event.anchor, event.start_mark, event.end_mark)
        return super().compose_node(parent, index)


@dataclass
class _Alias:
    """`*name` in the file: the node it refers to, and where it is written."""

    target: yaml.Node
    anchor: str
    start_mark: yaml.Mark
    end_mark: yaml.Mark


def _show_tag(tag: str) -> str:
    return "!!" + tag[len(_CORE) :] if tag.startswith(_CORE) else tag


class _Builder:
    """Turns the composed node graph into located values, collecting the
    problems it can step past (bad keys, unknown tags) and raising at once on
    those it cannot (alias bombs)."""

    def __init__(self, loader: _Loader, source: _Source) -> None:
        self.loader = loader
        self.source = source
        self.problems: list[Diagnostic] = []

    def loc(self, node: Any) -> Loc:
        start, end = node.start_mark, node.end_mark
        end_col = end.column + 1 if end.line == start.line and end.column > start.column else None
        return Loc(self.source.file, start.line + 1, start.column + 1, end_col)

    def error(self, node: Any, message: str, hint: str | None = None) -> None:
        self.problems.append(Diagnostic(self.loc(node), "error", message, hint))

    # -- alias bombs -------------------------------------------------------

    def check_aliases(self, root: yaml.Node) -> None:
        """Refuse a file whose aliases would expand into a huge or endless
        tree, before building anything: sizes are counted once per node, so
        this takes time in proportion to the file, not to its expansion."""
        sizes: dict[int, int] = {}
        uses = total = 0

        def size(node: Any, alias: _Alias) -> int:
            if isinstance(node, _Alias):
                return size(node.target, alias)
            key = id(node)
            if key not in sizes:
                sizes[key] = -1  # being counted: meeting it again is a cycle
                children: list = []
                if isinstance(node, yaml.SequenceNode):
                    children = node.value
                elif isinstance(node, yaml.MappingNode):
                    children = [n for pair in node.value for n in pair]
                count = 1
                for child in children:
                    count += size(child, alias)
                    if count > MAX_EXPANSION:
                        break
                sizes[key] = count
            if sizes[key] < 0:
                self.fatal(
                    alias,
                    f"recursive YAML alias `*{alias.anchor}` (it contains itself)",
                    "an alias cannot stand for a value that contains it",
                )
            return sizes[key]

        stack = [root]
        while stack:
            node = stack.pop()
            if isinstance(node, _Alias):
                uses += 1
                expanded = size(node.target, node)
                total += expanded
                if uses > MAX_ALIASES or expanded > MAX_EXPANSION or total > MAX_TOTAL_EXPANSION:
                    self.fatal(
                        node,
                        "too many YAML aliases (alias bomb?)",
                        f"a file may use at most {MAX_ALIASES} aliases, each standing for "
                        f"at most {MAX_EXPANSION:,} values",
                    )
            elif isinstance(node, yaml.SequenceNode):
                stack.extend(reversed(node.value))
            elif isinstance(node, yaml.MappingNode):
                stack.extend(n for pair in reversed(node.value) for n in reversed(pair))

    def fatal(self, node: Any, message: str, hint: str) -> None:
        raise CardcError(Diagnostic(self.loc(node), "error", message, hint))

    # -- values ------------------------------------------------------------

    def build(self, node: Any) -> Any:
        if isinstance(node, _Alias):
            # A fresh copy per use: no two places share one mutable value.
            return self.build(node.target)
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node)
        if isinstance(node, yaml.SequenceNode):
            if node.tag != SEQ:
                return self.unknown_tag(node)
            items = LocList(self.build(item) for item in node.value)
            items.loc = self.loc(node)
            items.item_locs = [self.loc(item) for item in node.value]
            return items
        if node.tag != MAP:
            return self.unknown_tag(node)
        return self.mapping(node)

    def scalar(self, node: yaml.ScalarNode) -> Any:
        if node.tag in TEXT_TAGS:
            text = LocStr(node.value, self.loc(node), node.style)
            text._source = self.source
            text._start, text._end = node.start_mark.index, node.end_mark.index
            return text
        constructors = {
            INT: self.loader.construct_yaml_int,
            FLOAT: self.loader.construct_yaml_float,
            BOOL: self.loader.construct_yaml_bool,
            NULL: self.loader.construct_yaml_null,
        }
        if node.tag not in constructors:
            return self.unknown_tag(node)
        try:
            return constructors[node.tag](node)
        except (ValueError, KeyError, TypeError):
            self.error(node, f"`{node.value}` cannot be read as {_show_tag(node.tag)}")
            return None

    def unknown_tag(self, node: yaml.Node) -> None:
        self.error(
            node,
            f"unknown YAML tag `{_show_tag(node.tag)}`",
            "cardc files hold plain data only: text, numbers, true/false, lists and mappings",
        )
        return None

    def mapping(self, node: yaml.MappingNode) -> LocDict:
        result = LocDict()
        result.loc = self.loc(node)
        first_line: dict[str, int] = {}
        merged: list[LocDict] = []
        for key_node, value_node in node.value:
            target = key_node.target if isinstance(key_node, _Alias) else key_node
            if isinstance(target, yaml.ScalarNode) and target.tag == MERGE:
                merged.extend(self.merge_sources(value_node))
                continue
            key = self.key(key_node, target)
            if key is None:
                continue
            if key in first_line:
                self.error(key_node, f"duplicate key `{key}` (first at line {first_line[key]})")
                continue
            first_line[key] = key_node.start_mark.line + 1
            result[key] = self.build(value_node)
            result.key_locs[key] = self.loc(key_node)
            result.value_locs[key] = self.loc(value_node)
        # `<<: *defaults` fills in keys the mapping does not set itself;
        # among several merged mappings the first one wins.
        for source in merged:
            for key, value in source.items():
                if key not in result:
                    result[key] = value
                    result.key_locs[key] = source.key_locs[key]
                    result.value_locs[key] = source.value_locs[key]
        return result

    def key(self, key_node: Any, target: Any) -> str | None:
        if isinstance(target, yaml.ScalarNode) and target.tag in TEXT_TAGS:
            return target.value
        if isinstance(target, yaml.ScalarNode):
            kind = {INT: "a number", FLOAT: "a number", BOOL: "true/false", NULL: "empty"}
            if target.tag in kind:
                shown = target.value or "(nothing)"
                self.error(
                    key_node,
                    f"a key must be text; `{shown}` reads as {kind[target.tag]}",
                    f'put it in quotes: "{target.value}"',
                )
                return None
            self.unknown_tag(target)
            return None
        self.error(key_node, "a key must be text, not a list or a mapping")
        return None

    def merge_sources(self, node: Any) -> list[LocDict]:
        target = node.target if isinstance(node, _Alias) else node
        items = target.value if isinstance(target, yaml.SequenceNode) else [node]
        sources = []
        for item in items:
            value = self.build(item)
            if isinstance(value, LocDict):
                sources.append(value)
            else:
                self.error(item, "`<<` merges a mapping (or a list of mappings) into this one")
        return sources


# --------------------------------------------------------------------------
# Syntax errors in plain words

# (text in pyyaml's problem or context, plain explanation, hint, point at the
# context mark: where the unfinished thing started, rather than where the
# parser gave up on it)
_PLAIN = [
    (
        "expected ',' or '}'",
        "this `{…}` mapping cannot be read past here",
        "inside `{…}` and `[…]`, quote a key or value that contains `#`, `[`, `]`, `{`, `}`, `,` or `: ` "
        "(an unquoted `#` starts a comment that cuts the line), e.g. {\"P1.column[red]\": 2}; "
        "or write the mapping one key per line",
        False,
    ),
    (
        "expected ',' or ']'",
        "this `[…]` list cannot be read past here",
        "inside `{…}` and `[…]`, quote an item that contains `#`, `[`, `]`, `{`, `}`, `,` or `: ` "
        "(an unquoted `#` starts a comment that cuts the line), e.g. [\"token[P2]\"]; "
        "or write the list one `- item` per line",
        False,
    ),
    (
        "mapping values are not allowed",
        "unexpected `:`",
        "text that contains `: ` must be put in quotes",
        False,
    ),
    (
        "could not find expected ':'",
        "expected `key: value` here",
        "is the `:` after the key missing?",
        True,
    ),
    (
        "while scanning a quoted scalar",
        "this quoted text is never closed",
        "add the closing quote",
        True,
    ),
    (
        "found unexpected end of stream",
        "the file ends inside brackets or a quote",
        "is a closing bracket or quote missing?",
        False,
    ),
    (
        "expected <block end>",
        "this line is not lined up with the lines above it",
        "check the indentation: keys of one mapping start in the same column",
        False,
    ),
    (
        "did not find expected key",
        "this line is not lined up with the lines above it",
        "check the indentation: keys of one mapping start in the same column",
        False,
    ),
    (
        "did not find expected '-' indicator",
        "a list item is not lined up with the items above it",
        "items of one list start with `- ` in the same column",
        False,
    ),
    (
        "found undefined alias",
        "this `*alias` names no `&anchor` defined above it",
        None,
        False,
    ),
    (
        "found duplicate anchor",
        "this `&anchor` is already defined above",
        "anchor names must be unique in a file",
        False,
    ),
    (
        "expected a single document",
        "a cardc file holds one YAML document",
        "remove the `---` line that starts a second one",
        False,
    ),
    (
        "that cannot start any token",
        "this character cannot start a value",
        "put text that starts with `@`, `%` or a backtick in quotes",
        False,
    ),
]


def _syntax_error(exc: yaml.MarkedYAMLError, source: _Source) -> Diagnostic:
    problem = exc.problem or exc.context or "unreadable YAML"
    words = f"{exc.problem or ''} {exc.context or ''}"
    mark = exc.problem_mark or exc.context_mark
    plain = hint = None
    for needle, plain_words, plain_hint, at_context in _PLAIN:
        if needle in words:
            plain, hint = plain_words, plain_hint
            if at_context and exc.context_mark is not None:
                mark = exc.context_mark
            break
    line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    loc = Loc(source.file, line, col)
    text = source.lines[line - 1] if line <= len(source.lines) else ""
    if "'\\t'" in problem and not text[: col - 1].strip():
        return Diagnostic(
            loc,
            "error",
            "tab character in indentation; YAML needs spaces",
            "indent with spaces (set your editor to insert spaces for Tab)",
        )
    unclosed = _unclosed_bracket(exc, words)
    if unclosed is not None:
        return Diagnostic(Loc(source.file, exc.context_mark.line + 1, exc.context_mark.column + 1), "error",
                          f"invalid YAML: this `{unclosed[0]}` is never closed: the "
                          f"{'list' if unclosed[0] == '[' else 'mapping'} runs on to line {line}, "
                          "which cannot be part of it", f"close it with `{unclosed[1]}` after its last item")
    if "mapping values are not allowed" in words:
        over = _indented_too_far(source.lines, line)
        if over is not None:
            return Diagnostic(Loc(source.file, line, over[0] + 1), "error",
                              "invalid YAML: this line is indented more than the line above it, so YAML "
                              "reads it as more text of that line's value",
                              f"line `{over[1]}` up with the keys above it (column {over[2] + 1})")
    if plain is None:
        return Diagnostic(loc, "error", f"invalid YAML: {problem}", exc.context)
    return Diagnostic(loc, "error", f"invalid YAML: {plain} ({problem})", hint)


def _unclosed_bracket(exc, words: str):
    """("[", "]") when a `[` (or `{`) opened on an earlier line is what the
    parser gave up on at a `key:` of a later line: the bracket was never
    closed, and the place to show is the bracket, not the line after it."""
    for opening, closing in (("[", "]"), ("{", "}")):
        if f"expected ',' or '{closing}'" in words and exc.context_mark is not None \
                and exc.problem_mark is not None and exc.problem_mark.line > exc.context_mark.line \
                and "got ':'" in words:
            return opening, closing
    return None


_KEY_LINE = re.compile(r"^( *)(?:- )?([A-Za-z_][\w.\[\]-]*):(?: |$)")


def _indented_too_far(lines: list, line: int):
    """(its indent, its key, the indent of the key above) when line `line`
    is a `key: value` indented past the `key: value` line above it: one extra
    space, which YAML reads as the value above going on, and then trips on
    the `:`.  None for any other line."""
    this = _KEY_LINE.match(lines[line - 1]) if line <= len(lines) else None
    above = next((lines[n] for n in range(line - 2, -1, -1)
                  if lines[n].strip() and not lines[n].lstrip().startswith("#")), None)
    if this is None or above is None:
        return None
    prev = re.match(r"^( *)(?:- )?[^\s:#][^:#]*: +\S", above)   # a key with a value after it
    if prev is None or len(this.group(1)) <= len(prev.group(1)):
        return None
    return len(this.group(1)), this.group(2), len(prev.group(1))


def folded_surprises(value: Any):
    """(Loc, message, hint) for each line of a `>` block that is indented
    more than the block's first line: YAML then keeps the line breaks around
    it instead of folding it into the paragraph, which a designer rarely means."""
    if isinstance(value, dict):
        for v in value.values():
            yield from folded_surprises(v)
    elif isinstance(value, list):
        for v in value:
            yield from folded_surprises(v)
    elif isinstance(value, LocStr) and value.style == ">" and value._source is not None:
        src = value._source
        first_line, _ = src.position(value._start)
        last_line, _ = src.position(max(value._start, value._end - 1))
        base = None
        for n in range(first_line + 1, last_line + 1):
            line = src.lines[n - 1] if n <= len(src.lines) else ""
            if not line.strip():
                continue
            indent = len(line) - len(line.lstrip(" "))
            if base is None:
                base = indent
            elif indent > base:
                yield (Loc(src.file, n, indent + 1),
                       "this line is indented more than the first line of its `>` block, so YAML "
                       "keeps it on a line of its own (with line breaks around it) instead of "
                       "folding it into the paragraph",
                       "indent it like the lines above; or use `|` if every line break is meant")
                return
