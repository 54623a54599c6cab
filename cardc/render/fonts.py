"""The typefaces cards are set in, embedded and checked glyph by glyph.

Cards must print the same on every machine, so the faces are TrueType files
that the project installs itself (the PyPI package `font-source-sans-pro`,
a dependency of cardc), embedded in every PDF. ReportLab subsets a TrueType
face to the glyphs a document uses, so a PDF carries only what it prints.
Where that package is missing, the system's DejaVu Sans is used if present.

A character the face does not have would print as an empty box; here it is
a build error instead, naming the card, the box and the character.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

from .errors import RenderError

FACES = ("regular", "bold", "italic", "bolditalic")

# Candidate families, best first: (where, file name per face).
_SOURCE_SANS = {
    "regular": "SourceSansPro-Regular.ttf",
    "bold": "SourceSansPro-Bold.ttf",
    "italic": "SourceSansPro-It.ttf",
    "bolditalic": "SourceSansPro-BoldIt.ttf",
}
_DEJAVU = {
    "regular": "DejaVuSans.ttf",
    "bold": "DejaVuSans-Bold.ttf",
    "italic": "DejaVuSans-Oblique.ttf",
    "bolditalic": "DejaVuSans-BoldOblique.ttf",
}
SYSTEM_DEJAVU = Path("/usr/share/fonts/truetype/dejavu")


class GlyphError(RenderError):
    """A character the font cannot draw."""


def _package_dir(name: str) -> Path | None:
    """The folder of an installed package, found without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def find_family() -> tuple[str, dict[str, Path]]:
    """(family name, face -> TTF path) of the first family installed."""
    candidates: list[tuple[str, Path | None, dict[str, str]]] = [
        ("Source Sans Pro", (_package_dir("font_source_sans_pro") or Path("/nonexistent")) / "files", _SOURCE_SANS),
        ("DejaVu Sans", SYSTEM_DEJAVU, _DEJAVU),
    ]
    for family, folder, files in candidates:
        if folder is None:      # not installed here
            continue
        paths = {face: folder / name for face, name in files.items()}
        if all(path.is_file() for path in paths.values()):
            return family, paths
    raise RenderError(
        "no card font found: install the project (pip install -e .), which brings "
        "the `font-source-sans-pro` package, or the system's DejaVu fonts"
    )


@dataclass(frozen=True)
class Fonts:
    """The registered faces: ReportLab font names and each face's character map."""

    family: str
    names: dict[str, str]  # face -> ReportLab font name
    cmaps: dict[str, frozenset[int]]  # face -> code points the face draws

    def name(self, face: str) -> str:
        return self.names[face]

    def width(self, text: str, face: str, size: float) -> float:
        """Width of `text` in points."""
        return pdfmetrics.stringWidth(text, self.names[face], size)

    def ascent(self, face: str, size: float) -> float:
        return pdfmetrics.getAscent(self.names[face], size)

    def check(self, text: str, face: str, where: str) -> None:
        """Raise GlyphError for the first character of `text` the face lacks.

        Line breaks are layout, not glyphs, so they are not checked."""
        cmap = self.cmaps[face]
        for char in text:
            if char in "\n\r\t" or ord(char) in cmap:
                continue
            raise GlyphError(
                f"{where}: character {char!r} (U+{ord(char):04X}) is not in the font "
                f"{self.family} ({face}); use another character or an icon"
            )


_LOADED: Fonts | None = None


def load_fonts() -> Fonts:
    """Register the card faces with ReportLab once per process and return them."""
    global _LOADED
    if _LOADED is None:
        family, paths = find_family()
        names, cmaps = {}, {}
        for face, path in paths.items():
            name = f"cardc-{face}"
            font = TTFont(name, str(path))
            pdfmetrics.registerFont(font)
            names[face] = name
            cmaps[face] = frozenset(font.face.charToGlyph)
        _LOADED = Fonts(family, names, cmaps)
    return _LOADED
