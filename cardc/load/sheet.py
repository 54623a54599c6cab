"""Cards from a spreadsheet: content/<game>/cards/*.csv or *.xlsx.

A designer edits quantities and text in a spreadsheet, saved as CSV beside
the YAML card files. The first row names the columns with the same keys a
card has in YAML (id, name, kind, count, text, flavour, a field of
`card_fields`...); every further row is one card. The file becomes the same
located data a YAML card file gives, `{"cards": [...]}`, so the cards
schema, the key check and the compiler treat it exactly as YAML, and every
problem points at file:row:column (the row's line in the file, the column
where its cell starts).

Cells are text; a cell becomes a whole number where the key is one
(`count`, an `int` field) and true/false where it is a boolean
(`per_player`, a `bool` field) and the text says so; otherwise it stays
text, so the schema names it ("`count` must be a whole number, got text
"five""). An empty cell is no key at all: the card takes its default.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping
from typing import Any, TextIO

from cardc.load.diagnostics import Diagnostics, Loc
from cardc.load.yamlsrc import LocDict, LocList, LocStr

INTEGER_KEYS = {"count"}
BOOLEAN_KEYS = {"per_player"}
TRUE, FALSE = {"true", "yes"}, {"false", "no"}
WHOLE = re.compile(r"[+-]?\d+")


def cell_starts(record: str) -> list[tuple[int, int]]:
    """(line offset, column) where each cell of one CSV record starts, the
    line counted from the record's first line, the column 1-based and past
    an opening quote: csv reads the values, this only finds where they are."""
    starts: list[tuple[int, int]] = []
    line, col, quoted, at_start = 0, 1, False, True
    for char in record:
        if at_start:
            starts.append((line, col + (1 if char == '"' else 0)))
            at_start = False
        if char == '"':
            quoted = not quoted  # a doubled "" inside a quoted cell toggles twice
        elif char == "," and not quoted:
            at_start = True
        elif char == "\n":
            line, col = line + 1, 0
        col += 1
    if at_start:  # the record ends with a comma: one more, empty, cell
        starts.append((line, col))
    return starts


def _typed(key: str, text: Any, field_types: Mapping[str, Any]) -> Any:
    """The value a cell stands for: a whole number or a boolean where its key
    is one and the text reads as one, else the text itself. (A workbook's
    cells come typed already: they are kept as they are.)"""
    if not isinstance(text, str):
        return text
    kind = field_types.get(key)
    if (key in INTEGER_KEYS or kind == "int") and WHOLE.fullmatch(text.strip()):
        return int(text.strip())
    if key in BOOLEAN_KEYS or kind == "bool":
        word = text.strip().lower()
        if word in TRUE | FALSE:
            return word in TRUE
    return text


Row = tuple[int, list[tuple[Any, Loc]]]  # a row's first line, and each cell's value and place


def _document(rows: Iterable[Row], file: str, field_types: Mapping[str, Any], diags: Diagnostics) -> LocDict | None:
    """Located card data from a sheet's rows (the first non-blank one names
    the columns), for CSV and XLSX alike."""
    document = LocDict()
    document.loc = Loc(file, 1, 1)
    cards = LocList()
    cards.loc = Loc(file, 1, 1)
    document["cards"] = cards
    document.key_locs["cards"] = document.value_locs["cards"] = cards.loc
    header: list[str] | None = None
    header_locs: list[Loc] = []
    for first, row in rows:
        if not any(_filled(value) for value, _ in row):
            continue  # a blank row between cards
        if header is None:
            header = [str(value if value is not None else "").strip() for value, _ in row]
            header_locs = [place for _, place in row]
            continue
        extra = [place for (value, place) in row[len(header):] if _filled(value)]
        if extra:
            diags.error(extra[0], f"this row has {len(row)} cells but the header names {len(header)} columns",
                        "give every extra cell a column name in the first row, or remove it")
            return None
        card = LocDict()
        card.loc = Loc(file, first, 1)
        for index, (value, place) in enumerate(row):
            key = header[index] if index < len(header) else ""
            if not _filled(value):
                continue
            if not key:
                diags.error(place, "a cell under a column with no name in the first row",
                            "name the column (id, name, kind, count, text, ...) or empty the cell")
                continue
            card[key] = _typed(key, value, field_types)
            if isinstance(card[key], str):
                card[key] = LocStr(card[key], place)
            card.key_locs[key] = header_locs[index]
            card.value_locs[key] = place
        cards.append(card)
        cards.item_locs.append(card.loc)
    if header is None:
        diags.error(Loc(file, 1, 1), "no header row: the first row names the columns (id, name, kind, ...)",
                    "add a first row such as `id,name,kind,count,text`")
        return None
    return document


def _filled(value: Any) -> bool:
    return value is not None and (not isinstance(value, str) or bool(value.strip()))


def read_card_sheet(text: str, file: str, field_types: Mapping[str, Any], diags: Diagnostics) -> LocDict | None:
    """A CSV card file as located card data, or None (with an error) when it
    has no header row or a row with more cells than the header."""
    lines = text.split("\n")
    reader = csv.reader(io.StringIO(text, newline=""))

    def rows() -> Iterable[Row]:
        start = 1  # line of the record about to be read
        for row in reader:
            end = reader.line_num
            record = "\n".join(lines[start - 1:end])
            places = [Loc(file, start + ln, col) for ln, col in cell_starts(record)]
            yield start, list(zip(row, places, strict=False))
            start = end + 1

    try:
        return _document(rows(), file, field_types, diags)
    except csv.Error as exc:
        diags.error(Loc(file, reader.line_num, 1), f"not a CSV file cardc can read: {exc}",
                    "save the sheet as CSV (comma separated, UTF-8)")
        return None


MAX_WORKBOOK = 5_000_000  # bytes: a card list, not a database (and no zip bomb)


def read_card_workbook(data: bytes, file: str, field_types: Mapping[str, Any],
                       diags: Diagnostics) -> LocDict | None:
    """The first sheet of an .xlsx card file as located card data: the same
    rules as CSV, each problem at file:row:column (the spreadsheet's row and
    column numbers). openpyxl reads it with defusedxml guarding the XML."""
    import openpyxl

    if len(data) > MAX_WORKBOOK:
        diags.error(Loc(file, 0, 0), f"a card workbook of {len(data):,} bytes is larger than cardc reads "
                                     f"({MAX_WORKBOOK:,})", "keep only the card list in it, or save it as CSV")
        return None
    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds for a file that is not a workbook
        diags.error(Loc(file, 0, 0), f"not an .xlsx workbook cardc can read ({type(exc).__name__})",
                    "save the sheet as Excel Workbook (.xlsx) or as CSV")
        return None
    sheet = book.worksheets[0]

    def rows() -> Iterable[Row]:
        for number, row in enumerate(sheet.iter_rows(values_only=True), 1):
            yield number, [(_cell_value(v), Loc(file, number, col)) for col, v in enumerate(row, 1)]

    try:
        return _document(rows(), file, field_types, diags)
    finally:
        book.close()


def _cell_value(value: Any) -> Any:
    """A workbook cell as the text or number a card key takes: whole floats
    (a spreadsheet's 3.0) as ints, dates and other values as their text."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


RULE_KEYS = ("requires", "effect", "reaction", "hooks", "modifiers")  # compiled in a bundle: not sheet data


def write_card_sheet(cards: Iterable[Mapping[str, Any]], fields: list[str], out: TextIO) -> list[str]:
    """Write bundle cards as a CSV card file that reads back as the same
    cards (`cardc cards GAME --format csv`): the columns are card keys, the
    text is the source template. Returns the ids of cards with rules, which
    a sheet cannot carry (a bundle holds them compiled)."""
    columns = ["id", "name", "kind", "count", "per_player", "starts_in", *fields, "text", "flavour", "note"]
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    with_rules = []
    for card in cards:
        values = {**{k: v for k, v in (card.get("fields") or {}).items()}, **card,
                  "text": card.get("text_template", card.get("text"))}
        writer.writerow([_cell(column, values.get(column)) for column in columns])
        if any(card.get(key) for key in RULE_KEYS):
            with_rules.append(card["id"])
    return with_rules


def _cell(column: str, value: Any) -> str:
    """A value as a cell: empty for no value (and for per_player: false, the default)."""
    if value is None or (column == "per_player" and value is False):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
