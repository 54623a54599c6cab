"""`--set PATH=VALUE`: change one number of a game's content for one run.

A designer asks "what if the PR penalty were 100?" without editing a file:

    params.pr_penalty=100        a named number in game.yaml
    cards.poach.count=3          a field of one card, found by id in any card file
    cards.cto.value=120          (a value the card takes from its file's `defaults`
                                 is set on that card alone)
    timing.seconds_per_action=4  any other number in game.yaml, by key; list
    zones.hand.limit=5           items by their `id` (or index)
    rules.<...>                  a number in rules.yaml

Only numbers can be set, and only where a number is (or, for a card, may
be) written: anything else is reported as a diagnostic with a did-you-mean.
The change is made on the loaded source, before compiling, so everything
that derives from the number (effects, card text, the rulebook) follows it.
"""
from __future__ import annotations

import math

from cardc.load.diagnostics import Diagnostics, Loc, did_you_mean
from cardc.load.schema import validate

#: keys every card may carry that hold a number
CARD_NUMBERS = {"count"}


def parse_sets(items) -> dict[str, str]:
    """["params.x=3", ...] -> {"params.x": "3"}; a malformed item raises ValueError."""
    out = {}
    for item in items or ():
        path, sep, value = item.partition("=")
        if not sep or not path.strip() or not value.strip():
            raise ValueError(f"`--set {item}`: write PATH=VALUE, e.g. params.win_at=15")
        out[path.strip()] = value.strip()
    return out


def apply_overrides(source, overrides: dict, diags: Diagnostics) -> None:
    """Set each PATH to its VALUE in `source` (a cardc.load.game.GameSource),
    reporting paths that name no number, values that are not numbers, and
    values the grammar does not allow (e.g. a negative count)."""
    for path, raw in overrides.items():
        where = Loc(f"--set {path}={raw}", 0, 0)
        before = len(diags.errors)
        _apply(source, str(path), raw, diags, where)
        if len(diags.errors) == before:
            _revalidate(source, diags, where)


def _apply(source, path: str, raw, diags: Diagnostics, where: Loc) -> None:
    params = source.game.get("params") or {}
    name = path.split(".", 1)[1] if path.startswith("params.") else None
    if name in params and isinstance(params[name], str) and not isinstance(raw, (int, float)):
        params[name] = str(raw)         # a text param takes text (the compiler checks its uses)
        return
    value = _number(raw)
    if value is None:
        diags.error(where, f"`{raw}` is not a number")
        return
    parts = path.split(".")
    if any(not p for p in parts):
        diags.error(where, f"`{path}` is not a path: write dotted names, e.g. params.win_at")
        return
    if parts[0] == "cards":
        target = _card_target(source, parts[1:], path, diags, where)
    elif parts[0] == "rules":
        target = _walk(source.rules or {}, parts[1:], path, diags, where, source.game)
    else:
        target = _walk(source.game, parts, path, diags, where, source.game)
    if target is None:
        return
    holder, key, current, whole = target
    if whole or isinstance(current, int):
        if value != int(value):
            diags.error(where, f"`{path}` is a whole number, not {raw}")
            return
        value = int(value)
    holder[key] = value


def _number(raw):
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return raw
    text = str(raw).strip()
    for kind in (int, float):
        try:
            value = kind(text)
        except ValueError:
            continue
        # 1e999 is inf and nan is no number: neither is a value content can hold
        return value if math.isfinite(value) else None
    return None


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _walk(node, parts, path, diags, where, game):
    """Follow `parts` through dicts (by key) and lists (by item id or index);
    (holder, key, current value, whole?) of a number, or None after reporting."""
    holder: list | dict
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        so_far = ".".join(parts[:depth]) or "the top level"
        if isinstance(node, list):
            index = _list_index(node, part)
            if index is None:
                ids = [str(x.get("id")) for x in node if isinstance(x, dict) and "id" in x]
                diags.error(where, f"no item `{part}` in `{so_far}`", did_you_mean(part, ids))
                return None
            holder, key = node, index
        elif isinstance(node, dict):
            if part not in node:
                candidates = [k for k, v in node.items() if not last or _is_number(v)]
                diags.error(where, f"`{path}`: no `{part}` in `{so_far}`",
                            did_you_mean(part, map(str, candidates)))
                return None
            holder, key = node, part
        else:
            diags.error(where, f"`{path}`: `{so_far}` is a value, it has no `{part}`")
            return None
        node = holder[key]
    if isinstance(node, dict) and node and all(str(k).isdigit() for k in node):
        count = next(iter(node))
        diags.error(where, f"`{path}` gives a value per player count: set one count's, "
                    f"e.g. `{path}.{count}={node[count]}`")
        return None
    if not _is_number(node):
        params = game.get("params") or {}
        hint = f"it names a param: set `params.{node}` instead" if isinstance(node, str) \
            and node in params else None
        diags.error(where, f"`{path}` is {node!r}, not a number: only numbers can be set", hint)
        return None
    return holder, key, node, False


def _list_index(items: list, part: str):
    for i, item in enumerate(items):
        if isinstance(item, dict) and str(item.get("id")) == part:
            return i
    if part.isdigit() and int(part) < len(items):
        return int(part)
    return None


def _card_target(source, parts, path, diags, where):
    """A card by id across every card file; a number it has, inherits from
    its file's `defaults`, or may have (`count`, an int card field)."""
    if len(parts) != 2:
        diags.error(where, f"`{path}`: a card path is cards.<card id>.<field>, e.g. cards.poach.count")
        return None
    card_id, key = parts
    ids = []
    for _, doc in source.card_files:
        defaults = doc.get("defaults") or {}
        for card in doc.get("cards") or []:
            ids.append(str(card.get("id")))
            if str(card.get("id")) != card_id:
                continue
            int_fields = {k for k, t in (source.game.get("card_fields") or {}).items() if t == "int"}
            if key in card:
                current = card[key]
            elif key in defaults:
                current = defaults[key]
            elif key in CARD_NUMBERS:
                current = 1
            elif key in int_fields:
                current = None
            else:
                numbers = CARD_NUMBERS | int_fields | {k for k, v in card.items() if _is_number(v)}
                diags.error(where, f"`{path}`: card `{card_id}` has no number `{key}`",
                            did_you_mean(key, numbers))
                return None
            whole = key in CARD_NUMBERS or key in int_fields
            if current is not None and not _is_number(current):
                diags.error(where, f"`{path}` is {current!r}, not a number: only numbers can be set")
                return None
            return card, key, current, whole
    diags.error(where, f"`{path}`: no card `{card_id}`", did_you_mean(card_id, ids))
    return None


def _revalidate(source, diags: Diagnostics, where: Loc) -> None:
    """Check the changed source against the grammar again: a value the
    schema forbids (a count below 0, a time of 0) is reported at the --set."""
    found = Diagnostics()
    validate(source.game, "game", found)
    for _, doc in source.card_files:
        validate(doc, "cards", found)
    if source.rules is not None:
        validate(source.rules, "rules", found)
    for d in found.errors:
        diags.error(where, f"after this change: {d.message}", d.hint)
