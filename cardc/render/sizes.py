"""Named card sizes, so a deck can say `size: tarot` instead of measuring.

The names are the ones print shops and sleeve makers use; each is the trim
in millimetres, portrait. A deck may still give `{width, height}` for any
other (custom) size. One table, read by the layout loader, `cardc check`
and the print-shop export.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SIZES: dict[str, tuple[float, float]] = {
    "poker": (63.0, 88.0),
    "bridge": (57.0, 89.0),
    "tarot": (70.0, 120.0),
    "mini": (44.0, 63.0),
    "square": (63.5, 63.5),  # 2.5 in, as print shops make them
}


def resolve_size(size: str | Mapping[str, Any]) -> dict[str, float]:
    """{"width", "height"} in mm of a size name or a {width, height} mapping
    (the layout schema has already refused any other name)."""
    if isinstance(size, str):
        width, height = SIZES[size]
        return {"width": width, "height": height}
    return {"width": size["width"], "height": size["height"]}


def size_name(width: float, height: float) -> str | None:
    """The name of a trim size, if it has one."""
    return next((name for name, wh in SIZES.items() if wh == (width, height)), None)
