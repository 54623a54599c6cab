"""Renderers: the bundle as print-and-play PDFs and Tabletop Simulator sheets.

Everything here reads the compiled bundle only (generated/<game>.json), never
the YAML sources. Entry points:

  print_game(bundle, out_dir, PrintOptions(...)) -> [paths]   # cardc print
  export_tts(bundle, out_dir) -> [paths]                      # cardc export --tts

Module map: layout (layout.yaml over print/defaults.yaml), fonts (embedded
TrueType faces, glyph checks), text (fit text to a box), cards (one face),
sheets (imposition, crop marks, duplex, calibration, proof), components
(board, trackers), guide (cutting guide), pipeline (which files, written
atomically via atomic.write_atomic), tts (raster export), cli (arguments).
"""

from importlib import import_module
from typing import Any

# Lazy: `cardc check` imports render.layout_check without loading ReportLab.
_EXPORTS = {"write_atomic": "atomic", "RenderError": "errors", "PrintOptions": "pipeline",
            "print_game": "pipeline", "render_game": "pipeline", "export_tts": "tts"}

__all__ = ["PrintOptions", "RenderError", "export_tts", "print_game", "render_game", "write_atomic"]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
