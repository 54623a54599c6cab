"""Located error messages, the way a designer reads them.

Every stage of cardc reports problems as `Diagnostic`s that point at a file,
line and column of the designer's own source. `render` prints one the way
compilers do, with the source line and a caret under the offending text:

    content/unicorn/cards/tactics.yaml:12:5: error: unknown key `vaule`
       12 |     vaule: 10
          |     ^^^^^
    hint: did you mean `value`?

Stages collect into a `Diagnostics` so one run reports every mistake; a stage
that cannot go on raises `CardcError` carrying what it found.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Severity = Literal["error", "warning"]

# The line breaks YAML (and pyyaml's marks) count; str.splitlines counts more
# (form feeds, vertical tabs...), which would shift line numbers.
LINE_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")

_TOKEN = re.compile(r"\w+")


def split_lines(text: str) -> list[str]:
    """Split text into lines exactly where a YAML parser counts lines."""
    return LINE_BREAK.split(text)


def display_path(path: str | os.PathLike) -> str:
    """The path as a designer would type it: relative to the working
    directory when the file is under it, else as given."""
    absolute = os.path.abspath(path)
    cwd = os.getcwd()
    if absolute.startswith(cwd.rstrip(os.sep) + os.sep):
        return Path(os.path.relpath(absolute, cwd)).as_posix()
    return str(path)


@dataclass(frozen=True)
class Loc:
    """A place in a source file. `line` and `col` are 1-based and count
    characters; `end_col` (exclusive) marks the end of a span on the same
    line. A `line` of 0 means the file as a whole."""

    file: str
    line: int
    col: int
    end_col: int | None = None

    def __str__(self) -> str:
        if self.line <= 0:
            return self.file
        return f"{self.file}:{self.line}:{self.col}"


@dataclass
class Diagnostic:
    """One problem found in the designer's source."""

    loc: Loc | None
    severity: Severity
    message: str
    hint: str | None = None

    def header(self) -> str:
        where = f"{self.loc}: " if self.loc else ""
        return f"{where}{self.severity}: {self.message}"


def _sort_key(diag: Diagnostic) -> tuple:
    if diag.loc is None:
        return (1, "", 0, 0)
    return (0, diag.loc.file, diag.loc.line, diag.loc.col)


class Diagnostics:
    """Collects the diagnostics of a run, so every mistake is reported at
    once instead of one per run."""

    def __init__(self, items: Iterable[Diagnostic] = ()) -> None:
        self.items: list[Diagnostic] = list(items)

    def add(self, diag: Diagnostic) -> Diagnostic:
        self.items.append(diag)
        return diag

    def extend(self, diags: Iterable[Diagnostic]) -> None:
        self.items.extend(diags)

    def error(self, loc: Loc | None, message: str, hint: str | None = None) -> Diagnostic:
        return self.add(Diagnostic(loc, "error", message, hint))

    def warning(self, loc: Loc | None, message: str, hint: str | None = None) -> Diagnostic:
        return self.add(Diagnostic(loc, "warning", message, hint))

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "warning"]

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.items)

    def sorted(self) -> list[Diagnostic]:
        """By file, line and column; diagnostics without a place come last."""
        return sorted(self.items, key=_sort_key)

    def render(self, cache: SourceCache | None = None) -> str:
        """Every diagnostic rendered, in source order, separated by blank lines."""
        cache = cache or SourceCache()
        return "\n\n".join(
            render(d, cache.lines(d.loc.file) if d.loc else None) for d in self.sorted()
        )

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


class CardcError(Exception):
    """Raised when a stage cannot go on; carries the diagnostics it found."""

    def __init__(self, diagnostics: Diagnostic | Iterable[Diagnostic]) -> None:
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: list[Diagnostic] = list(diagnostics)
        super().__init__("\n".join(d.header() for d in self.diagnostics))


def render(diag: Diagnostic, source: str | Sequence[str] | None = None) -> str:
    """Render a diagnostic with its source line and a caret under the span.

    `source` is the file's text or its lines; without it (or when the line
    is out of range) only the header and hint are printed.
    """
    out = [diag.header()]
    lines = split_lines(source) if isinstance(source, str) else source
    loc = diag.loc
    if loc and lines is not None and 1 <= loc.line <= len(lines):
        text = lines[loc.line - 1]
        gutter = f"{loc.line:>5}"
        out.append(f"{gutter} | {text}")
        out.append(f"{'':>{len(gutter)}} | {_caret(text, loc)}")
    if diag.hint:
        out.append(f"hint: {diag.hint}")
    return "\n".join(out)


def _caret(text: str, loc: Loc) -> str:
    start = max(loc.col, 1) - 1
    if loc.end_col is not None and loc.end_col > loc.col:
        width = loc.end_col - loc.col
    else:
        token = _TOKEN.match(text, start)
        width = len(token.group()) if token else 1
    # Keep tabs so the caret lines up with the source line in a terminal.
    pad = "".join(c if c == "\t" else " " for c in text[:start])
    pad += " " * (start - len(pad))
    return pad + "^" * width


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A hint naming the closest candidate to a misspelt name, if any."""
    close = difflib.get_close_matches(str(name), sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else None


class SourceCache:
    """Maps a diagnostic's file to its lines, read once, for rendering."""

    def __init__(self) -> None:
        self._lines: dict[str, list[str] | None] = {}

    def add(self, file: str, text: str) -> None:
        self._lines[file] = split_lines(text)

    def lines(self, file: str) -> list[str] | None:
        if file.endswith(".xlsx"):  # a workbook is zipped XML: no line of it to show
            return None
        if file not in self._lines:
            try:
                text = Path(file).read_text(encoding="utf-8", errors="replace")
            except OSError:
                self._lines[file] = None
            else:
                self.add(file, text)
        return self._lines[file]
