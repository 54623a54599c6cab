"""Cards from a spreadsheet: content/<game>/cards/*.csv.

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
from typing import Any, Iterable, Mapping, TextIO

from cardc.diagnostics import Diagnostics, Loc
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


def _typed(key: str, text: str, field_types: Mapping[str, Any]) -> Any:
    """The value a cell stands for: a whole number or a boolean where its key
    is one and the text reads as one, else the text itself."""
    kind = field_types.get(key)
    if (key in INTEGER_KEYS or kind == "int") and WHOLE.fullmatch(text.strip()):
        return int(text.strip())
    if key in BOOLEAN_KEYS or kind == "bool":
        word = text.strip().lower()
        if word in TRUE | FALSE:
            return word in TRUE
    return text


def read_card_sheet(text: str, file: str, field_types: Mapping[str, Any], diags: Diagnostics) -> LocDict | None:
    """A CSV card file as located card data, or None (with an error) when it
    has no header row or a row with more cells than the header."""
    lines = text.split("\n")
    reader = csv.reader(io.StringIO(text, newline=""))
    document = LocDict()
    document.loc = Loc(file, 1, 1)
    cards = LocList()
    cards.loc = Loc(file, 1, 1)
    document["cards"] = cards
    document.key_locs["cards"] = document.value_locs["cards"] = cards.loc
    header: list[str] | None = None
    header_locs: list[Loc] = []
    start = 1  # line of the record about to be read
    try:
        for row in reader:
            end = reader.line_num
            record = "\n".join(lines[start - 1:end])
            places = [Loc(file, start + ln, col) for ln, col in cell_starts(record)]
            first, start = start, end + 1
            if not any(cell.strip() for cell in row):
                continue  # a blank line between cards
            if header is None:
                header = [cell.strip() for cell in row]
                header_locs = places
                continue
            if len(row) > len(header):
                diags.error(places[len(header)], f"this row has {len(row)} cells but the header names "
                                                 f"{len(header)} columns",
                            "give every extra cell a column name in the first row, or remove it")
                return None
            card = LocDict()
            card.loc = Loc(file, first, 1)
            for index, cell in enumerate(row):
                key = header[index]
                if not cell.strip():
                    continue
                if not key:
                    diags.error(places[index], "a cell under a column with no name in the first row",
                                "name the column (id, name, kind, count, text, ...) or empty the cell")
                    continue
                card[key] = _typed(key, cell, field_types)
                if isinstance(card[key], str):
                    card[key] = LocStr(cell, places[index])
                card.key_locs[key] = header_locs[index]
                card.value_locs[key] = places[index]
            cards.append(card)
            cards.item_locs.append(card.loc)
    except csv.Error as exc:
        diags.error(Loc(file, reader.line_num, 1), f"not a CSV file cardc can read: {exc}",
                    "save the sheet as CSV (comma separated, UTF-8)")
        return None
    if header is None:
        diags.error(Loc(file, 1, 1), "no header row: the first row names the columns (id, name, kind, ...)",
                    "add a first row such as `id,name,kind,count,text`")
        return None
    return document


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
