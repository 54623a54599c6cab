"""Loading a game's folder: every source file, checked, in one pass.

`load_game` reads `content/<game>/` (game.yaml, rules.yaml, cards/**/*.yaml, *.csv and *.xlsx,
layout.yaml, rulebook.md.j2), checks each file against its schema and reports
every problem of every file in one run. It returns a `GameSource` only when
nothing was wrong, so later stages can trust its shape and never re-check it.

Files are confined to the game folder: a symlink that leads outside it is
refused, so building a game never reads (or prints) files it does not own.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from cardc.load.diagnostics import CardcError, Diagnostics, Loc, did_you_mean, display_path
from cardc.load.paths import GRAMMAR, Project, project_of
from cardc.load.schema import load_schema, validate
from cardc.load.sheet import read_card_sheet, read_card_workbook
from cardc.load.yamlsrc import LocDict, decode_text, folded_surprises, parse_yaml

SCHEMA_COMMENT = "# yaml-language-server: $schema="
_SCHEMA_COMMENT_RE = re.compile(r"#\s*yaml-language-server:\s*\$schema=(\S+)")


@dataclass
class GameSource:
    """Every source file of one game, loaded with locations and valid
    against its schema."""

    root: Path
    id: str
    game: LocDict
    rules: LocDict | None
    card_files: list[tuple[Path, LocDict]]
    layout: LocDict | None
    rulebook: str | None
    files: list[Path]
    contents: dict[Path, bytes] = field(default_factory=dict, repr=False, compare=False)

    def source_hash(self) -> str:
        """sha256 over each file's path (relative to the game folder) and
        bytes, in path order: the same sources give the same hash anywhere."""
        digest = hashlib.sha256()
        for path in sorted(self.files, key=lambda p: p.relative_to(self.root).as_posix()):
            data = self.contents.get(path)
            if data is None:
                data = path.read_bytes()
            name = path.relative_to(self.root).as_posix().encode("utf-8")
            digest.update(b"%d:%s\0%d:" % (len(name), name, len(data)))
            digest.update(data)
        return digest.hexdigest()


def load_game(folder: Path, diags: Diagnostics, project: Project | None = None) -> GameSource | None:
    """Load and check every source file of the game in `folder`.

    Problems go to `diags`; returns None if any file had an error. Files are
    named as the designer types them (relative to the working directory),
    or, given the `project`, relative to its root: what the bundle stores,
    so that it does not depend on where cardc was run.
    """
    root = Path(folder)
    errors_before = len(diags.errors)
    reader = _FolderReader(root, diags, project)
    if not root.is_dir():
        diags.error(Loc(reader.display(""), 0, 0), "no game folder here")
        return None
    if not reader.plain_name(display_path(root.parent) if project is None else project.name(root.parent),
                             root.name, "folder", is_display=True):
        return None
    game = reader.yaml_file("game.yaml", "game", required=True)
    rules = reader.yaml_file("rules.yaml", "rules")
    card_files: list = []
    invalid_cards: list = []
    field_types: dict = dict((game.get("card_fields") if game else None) or {})
    for rel in reader.card_paths():
        if rel.endswith((".csv", ".xlsx")):
            data = reader.sheet_file(rel, field_types, keep_invalid=invalid_cards)
        else:
            data = reader.yaml_file(rel, "cards", keep_invalid=invalid_cards)
        if data is not None:
            card_files.append((root / rel, data))
    layout_schema = "layout" if (GRAMMAR / "layout.schema.json").is_file() else None
    layout = reader.yaml_file("layout.yaml", layout_schema)
    for holder, key in _image_refs(card_files, layout):
        reader.image_file(str(holder[key]), holder.value_loc(key))
    rulebook = reader.text_file("rulebook.md.j2")

    if game is not None:
        if game["id"] != root.resolve().name:
            diags.warning(
                game.value_loc("id"),
                f"game id `{game['id']}` differs from its folder name `{root.resolve().name}`",
                "name the folder after the id: cardc finds games by folder",
            )
        # a card file that broke its schema is still checked for misspelt keys,
        # so one mistake does not hide the others of the same file
        for data in [d for _, d in card_files] + invalid_cards:
            _check_card_keys(data, game.get("card_fields") or {}, diags)

    if len(diags.errors) > errors_before or game is None:
        return None
    return GameSource(
        root=root,
        id=str(game["id"]),
        game=game,
        rules=rules,
        card_files=card_files,
        layout=layout,
        rulebook=rulebook,
        files=sorted(reader.contents, key=lambda p: p.relative_to(root).as_posix()),
        contents=reader.contents,
    )


# characters a content file's name may not hold (beside other control characters)
_NAME_BREAKERS = frozenset("\\\u2028\u2029")
_CHAR_NAMES = {"\n": "a line break", "\r": "a carriage return", "\x00": "a NUL byte",
               "\\": "a backslash (a path separator on Windows)", "\t": "a tab",
               "\u2028": "a line separator", "\u2029": "a paragraph separator"}


class _FolderReader:
    """Reads files of one game folder, refusing any that lead outside it,
    and keeps their bytes so the source hash is of exactly what was read."""

    def __init__(self, root: Path, diags: Diagnostics, project: Project | None = None) -> None:
        self.root = root
        self.real_root = root.resolve()
        self.diags = diags
        self.contents: dict[Path, bytes] = {}
        self.project = project
        self.schemas = (project or project_of(root)).schemas

    def display(self, rel: str) -> str:
        path = self.root / rel if rel else self.root
        return self.project.name(path) if self.project else display_path(path)

    def escapes(self, path: Path) -> bool:
        return not path.resolve().is_relative_to(self.real_root)

    def read(self, rel: str, required: bool = False) -> bytes | None:
        path = self.root / rel
        if not path.exists() and not path.is_symlink():
            if required:
                self.diags.error(
                    Loc(self.display(rel), 0, 0),
                    f"missing {rel}: every game folder needs one",
                )
            return None
        if self.escapes(path):
            self.refuse(rel)
            return None
        try:
            data = path.read_bytes()
        except OSError as exc:
            self.diags.error(Loc(self.display(rel), 0, 0), f"cannot read file: {exc.strerror}")
            return None
        self.contents[path] = data
        return data

    def refuse(self, rel: str) -> None:
        self.diags.error(
            Loc(self.display(rel), 0, 0),
            f"`{rel}` links to a file outside the game folder",
            "a game may only use files inside its own folder; copy the file in instead",
        )

    def text_file(self, rel: str) -> str | None:
        data = self.read(rel)
        if data is None:
            return None
        try:
            return decode_text(data, self.display(rel))
        except CardcError as exc:
            self.diags.extend(exc.diagnostics)
            return None

    def yaml_file(self, rel: str, schema: str | None, required: bool = False,
                  keep_invalid: list | None = None) -> LocDict | None:
        """Parse and schema-check one YAML file; None if it had any error
        (a file that parsed but broke its schema goes to `keep_invalid`)."""
        data = self.read(rel, required)
        if data is None:
            return None
        file = self.display(rel)
        try:
            text = decode_text(data, file)
            value = parse_yaml(text, file)
        except CardcError as exc:
            self.diags.extend(exc.diagnostics)
            return None
        for loc, message, hint in folded_surprises(value):
            self.diags.warning(loc, message, hint)
        if schema is None:
            return value if isinstance(value, LocDict) else None
        self.check_schema_comment(rel, text, schema)
        if not validate(value, schema, self.diags, file):
            if keep_invalid is not None and isinstance(value, LocDict):
                keep_invalid.append(value)
            return None
        return value

    def image_file(self, rel: str, loc: Loc | None) -> None:
        """Read an image a card or layout names, so it is part of the source
        hash (new art, a new build id) and confined to the game folder. A
        missing one is a warning: the card prints a placeholder until it is drawn."""
        path = self.root / rel
        if path in self.contents:
            return
        if not path.is_file() and not path.is_symlink():
            self.diags.warning(loc, f"image `{rel}` is not in the game folder: a placeholder is printed "
                                    f"in its place", f"add the file, or fix the path (relative to {self.display('')}/)")
            return
        self.read(rel)

    def sheet_file(self, rel: str, field_types: dict, keep_invalid: list | None = None) -> LocDict | None:
        """Read and schema-check a CSV or XLSX card file (cardc/load/sheet.py):
        the same checks as a YAML card file, at file:row:column."""
        data = self.read(rel)
        if data is None:
            return None
        file = self.display(rel)
        try:
            if rel.endswith(".xlsx"):
                value = read_card_workbook(data, file, field_types, self.diags)
            else:
                value = read_card_sheet(decode_text(data, file), file, field_types, self.diags)
        except CardcError as exc:
            self.diags.extend(exc.diagnostics)
            return None
        if value is None:
            return None
        if not validate(value, "cards", self.diags, file):
            if keep_invalid is not None:
                keep_invalid.append(value)
            return None
        return value

    def check_schema_comment(self, rel: str, text: str, schema: str) -> None:
        """Editors check a file as it is typed only if its first line names
        its schema; warn when it does not, names another one, or names a
        file that is not there (the project's schemas were never written)."""
        expected = f"{schema}.schema.json"
        folder = (self.root / rel).parent
        relative = Path(os.path.relpath(self.schemas / expected, folder)).as_posix()
        first = text.split("\n", 1)[0].strip()
        match = _SCHEMA_COMMENT_RE.match(first)
        if match is None:
            self.diags.warning(
                Loc(self.display(rel), 1, 1),
                f"the first line should name the schema: `{SCHEMA_COMMENT}{relative}`",
                "with it, editors complete keys and show what each one means",
            )
        elif not match.group(1).endswith(expected):
            start = match.start(1) + 1
            self.diags.warning(
                Loc(self.display(rel), 1, start, start + len(match.group(1))),
                f"this file is checked against {expected}, but its first line names another schema",
                f"use `{SCHEMA_COMMENT}{relative}`",
            )
        elif "://" not in match.group(1) and not (folder / match.group(1)).is_file():
            start = match.start(1) + 1
            self.diags.warning(
                Loc(self.display(rel), 1, start, start + len(match.group(1))),
                f"the schema this line names is not there: {match.group(1)}",
                f"run `cardc schemas` to write them into {display_path(self.schemas)}/, "
                f"then use `{SCHEMA_COMMENT}{relative}`",
            )

    def plain_name(self, folder: str, name: str, what: str, is_display: bool = False) -> bool:
        """Whether a file or folder name under cards/ can be read: a name that
        holds a line break, another control character or a backslash (a path
        separator elsewhere) is refused, located at its folder, and not read.
        Such a name would break every message and file list that shows it."""
        bad = next((ch for ch in name if ch in _NAME_BREAKERS or ord(ch) < 32 or 127 <= ord(ch) < 160), None)
        if bad is None:
            return True
        self.diags.error(
            Loc(folder if is_display else self.display(folder), 0, 0),
            f"the {what} name {name!r} holds {_CHAR_NAMES.get(bad, f'the control character U+{ord(bad):04X}')}; "
            f"it was not read",
            f"rename the {what}: names of content files may not hold line breaks, control characters "
            "or a backslash",
        )
        return False

    def card_paths(self) -> list[str]:
        """Relative paths of cards/**/*.yaml, *.csv and *.xlsx in sorted order. Symlinked
        folders are not followed; links leading outside are refused."""
        cards = self.root / "cards"
        if not cards.exists() and not cards.is_symlink():
            return []
        if self.escapes(cards):
            self.refuse("cards")
            return []
        found = []
        for dirpath, dirnames, filenames in os.walk(cards):
            here = Path(dirpath).relative_to(self.root)
            for name in sorted(dirnames):
                rel = (here / name).as_posix()
                if (self.root / rel).is_symlink():
                    if self.escapes(self.root / rel):
                        self.refuse(rel)
                    else:
                        self.diags.warning(
                            Loc(self.display(rel), 0, 0),
                            "linked folder not read: card folders are not followed through links",
                        )
            dirnames[:] = sorted(d for d in dirnames if not (Path(dirpath) / d).is_symlink()
                                 and self.plain_name(here.as_posix(), d, "folder"))
            for name in filenames:
                rel = (here / name).as_posix()
                if not self.plain_name(here.as_posix(), name, "file"):
                    continue
                if name.endswith((".yaml", ".csv", ".xlsx")):
                    found.append(rel)
                elif name.endswith(".yml"):
                    self.diags.warning(
                        Loc(self.display(rel), 0, 0),
                        "not read: card files must end in .yaml",
                    )
        return sorted(found)


def _image_refs(card_files: list, layout: LocDict | None) -> list[tuple[LocDict, str]]:
    """(mapping, key) of every image path the cards and the layout name."""
    holders: list[LocDict] = []
    for _, data in card_files:
        holders += [data.get("defaults") or LocDict()] + list(data.get("cards") or [])
    if isinstance(layout, LocDict):
        frames = [layout.get("card") or LocDict()] + list(layout.get("decks") or [])
        holders += [back for frame in frames if isinstance(back := frame.get("back"), LocDict)]
    return [(h, key) for h in holders if isinstance(h, LocDict) for key in ("image", "back_image") if key in h]


def _check_card_keys(data: LocDict, card_fields: dict, diags: Diagnostics) -> None:
    """The schema lets a card carry any lower_snake_case key, because printed
    fields are declared per game; here each such key is checked against the
    game's `card_fields`, so a misspelt `efect` or `vaule` is caught at its
    key rather than printed on the card. A card also needs a `kind`, set on
    it or in the file's `defaults`."""
    card_schema = load_schema("cards").schema["$defs"]
    fixed = list(card_schema["card"]["properties"])
    fixed_defaults = list(card_schema["defaults"]["properties"])
    fields = list(card_fields)
    defaults = data.get("defaults") or LocDict()
    if not isinstance(defaults, LocDict) or not isinstance(data.get("cards"), list):
        return                      # the schema has said what is wrong with its shape

    def check(entry: LocDict, allowed: list[str], noun: str) -> None:
        for key in entry:
            if key in allowed or key in fields:
                continue
            hint = did_you_mean(key, allowed + fields) or (
                f"to print `{key}` on cards, declare it in game.yaml's card_fields"
            )
            diags.error(entry.key_loc(key), f"unknown key `{key}` in {noun}", hint)

    check(defaults, fixed_defaults, "the card defaults")
    for card in data["cards"]:
        if not isinstance(card, LocDict):
            continue
        check(card, fixed, "a card")
        if "kind" not in card and "kind" not in defaults:
            diags.error(
                card.loc,
                "missing required key `kind` in a card",
                "set `kind` on the card, or for every card of the file in `defaults`",
            )
