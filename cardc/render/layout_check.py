"""What the layout schema cannot see: names in layout.yaml that must match the game.

`cardc check` (through the compiler) runs this over the located YAML of
content/<game>/layout.yaml, so a misspelt kind in a deck (`kinds:
[refrence]`), a kind printed in two decks, a tracker over a kind or param
that does not exist, or a box outside its card is an error at file:line:col
with a "did you mean" — never cards silently printed in the wrong deck.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cardc.load.diagnostics import Diagnostics, did_you_mean

from .sizes import SIZES, resolve_size

ROWS_PLAYERS = "players"


def _loc(node: Any, key: str | int | None = None) -> Any:
    """The location of `node[key]` (value), else of `node`, when the YAML reader recorded one."""
    if key is not None:
        if isinstance(key, int) and hasattr(node, "item_loc"):
            return node.item_loc(key)
        if hasattr(node, "value_loc"):
            return node.value_loc(key)
    return getattr(node, "loc", None)


def check_layout(layout: Mapping[str, Any] | None, kinds: Mapping[str, Any], params: Mapping[str, Any],
                 diags: Diagnostics) -> None:
    """Report every name in the layout that the game does not define."""
    if not layout:
        return
    placed: dict[str, str] = {}
    default_size = _size((layout.get("card") or {}).get("size")) or {"width": 63, "height": 88}
    for index, deck in enumerate(layout.get("decks") or []):
        if not isinstance(deck, Mapping):
            continue
        deck_id = deck.get("id", f"#{index + 1}")
        deck_kinds = deck.get("kinds") or []
        for k, kind in enumerate(deck_kinds):
            where = _loc(deck_kinds, k)
            if kind not in kinds:
                diags.error(where, f"layout deck `{deck_id}` lists kind `{kind}`, which the game does not define "
                                   f"(its kinds: {', '.join(sorted(kinds))})",
                            did_you_mean(str(kind), kinds) or "use a kind id from `kinds:` in game.yaml")
            elif kind in placed:
                diags.error(where, f"kind `{kind}` is in two layout decks, `{placed[kind]}` and `{deck_id}`",
                            "a kind prints in one deck: remove it from one of them")
            else:
                placed[kind] = deck_id
        _check_boxes(deck, _size(deck.get("size")) or default_size, f"layout deck `{deck_id}`", diags)
    _check_boxes(layout.get("card") or {}, default_size, "layout `card`", diags)
    for tracker in layout.get("trackers") or []:
        if not isinstance(tracker, Mapping):
            continue
        rows, spaces = tracker.get("rows"), tracker.get("spaces")
        if isinstance(rows, str) and rows != ROWS_PLAYERS and rows not in kinds and rows not in params:
            diags.error(_loc(tracker, "rows"), f"tracker `{tracker.get('id')}`: rows `{rows}` is neither "
                                               f"`players`, a kind nor a param of the game",
                        did_you_mean(rows, [*kinds, *params, ROWS_PLAYERS]))
        if isinstance(spaces, str) and spaces not in params:
            diags.error(_loc(tracker, "spaces"), f"tracker `{tracker.get('id')}`: spaces `{spaces}` is not a "
                                                 f"param of the game", did_you_mean(spaces, params))
        elif isinstance(spaces, str) and not isinstance(params[spaces], int):
            diags.error(_loc(tracker, "spaces"), f"tracker `{tracker.get('id')}`: param `{spaces}` is "
                                                 f"{params[spaces]!r}, not a whole number of spaces")
    hand_out = layout.get("hand_out") or []
    for index, kind in enumerate(hand_out):
        if kind not in kinds:
            diags.error(_loc(hand_out, index), f"hand_out lists kind `{kind}`, which the game does not define",
                        did_you_mean(str(kind), kinds) or "use a kind id from `kinds:` in game.yaml")
    for token in layout.get("tokens") or []:
        if isinstance(token, Mapping) and isinstance(token.get("kind"), str) and token["kind"] not in kinds:
            diags.error(_loc(token, "kind"), f"token sheet `{token.get('id')}`: kind `{token['kind']}` is not a "
                                             f"kind of the game", did_you_mean(token["kind"], kinds))


def _size(size: Any) -> Mapping[str, Any] | None:
    """A deck's size as {width, height}: a name resolved, a mapping as is."""
    if isinstance(size, str):
        return resolve_size(size) if size in SIZES else None
    return size if isinstance(size, Mapping) else None


def _check_boxes(frame: Mapping[str, Any], size: Mapping[str, Any], what: str, diags: Diagnostics) -> None:
    """Every box a frame sets lies on the card it is drawn for."""
    boxes = frame.get("boxes") or {}
    width, height = size.get("width", 63), size.get("height", 88)
    for name, box in boxes.items():
        if not isinstance(box, Mapping):
            continue
        right = box.get("x", 0) + box.get("w", 0)
        bottom = box.get("y", 0) + box.get("h", 0)
        if right > width + 1e-6 or bottom > height + 1e-6:
            diags.error(_loc(boxes, name), f"{what}: box `{name}` reaches {right:g} x {bottom:g} mm, outside "
                                           f"the {width:g} x {height:g} mm card",
                        "keep x + w within the width and y + h within the height")


def check_art_boxes(layout: Mapping[str, Any] | None, card_files: list, diags: Diagnostics) -> None:
    """Warn at a card's `image` when its deck has no `art` box to print it
    in (the image would silently not print)."""
    layout = layout or {}
    decks = [d for d in layout.get("decks") or [] if isinstance(d, Mapping)]
    card_has_art = "art" in ((layout.get("card") or {}).get("boxes") or {})
    for _, data in card_files:
        defaults = data.get("defaults") or {}
        for card in data.get("cards") or []:
            if not isinstance(card, Mapping):
                continue
            holder = card if "image" in card else defaults
            if "image" not in holder:
                continue
            kind = card.get("kind", defaults.get("kind"))
            deck = next((d for d in decks if kind in (d.get("kinds") or [])), decks[-1] if decks else None)
            if card_has_art or (deck is not None and "art" in (deck.get("boxes") or {})):
                continue
            where = f"deck `{deck.get('id')}`" if deck is not None else "the card frame"
            diags.warning(_loc(holder, "image"), f"card `{card.get('id')}` has an image but {where} has no `art` "
                                                 f"box in layout.yaml: the image is not printed",
                          "add `art: {x: ..., y: ..., w: ..., h: ...}` under the deck's `boxes` (or `card:`)")
