"""The types the checker knows, as plain strings.

Scalars: int, bool, str, player, card, zone, cell, none, any, game.
Compound: `list:T`, `event:TAG` (the event of a reaction window),
`enum:NAME` (text that is one of a declared enumeration's members; it fits
where text is wanted and text fits it, so only literals are checked),
`perplayer:T` (a card counter held per player, indexed by a player),
`enum:card_id` (CARD_ID: a card's id, text that is one of the game's card
ids: a literal compared with it or given where it is wanted is checked
against the game's cards, as an enumeration's members are), and
`enum:card_kind` (CARD_KIND, likewise for the game's kinds),
`fn:NAME` (a function passed by name, e.g. to sort_by).
"""
from __future__ import annotations

INT, BOOL, STR, PLAYER, CARD, ZONE, CELL, NONE, ANY, GAME = (
    "int", "bool", "str", "player", "card", "zone", "cell", "none", "any", "game")

CARD_ID = "enum:card_id"       # names no enumeration may take (see RESERVED_ENUMS)
CARD_KIND = "enum:card_kind"
RESERVED_ENUMS = {CARD_ID[5:], CARD_KIND[5:]}

NULLABLE = {PLAYER, CARD, CELL, STR, ANY}
DECLARABLE = {"int": INT, "bool": BOOL, "str": STR, "player": PLAYER, "card": CARD,
              "zone": ZONE, "cell": CELL, "list[card]": "list:card",
              "list[player]": "list:player", "list[int]": "list:int",
              "list[cell]": "list:cell", "list[str]": "list:str", "list[bool]": "list:bool",
              "list[zone]": "list:zone"}


def list_of(t: str) -> str:
    return "list:" + t


def is_list(t: str) -> bool:
    return t.startswith("list:") or t == ZONE or t == ANY


def elem(t: str) -> str:
    if t == ZONE:
        return CARD
    if t.startswith("list:"):
        return t[5:]
    return ANY


def is_event(t: str) -> bool:
    return t.startswith("event:")


def is_enum(t: str) -> bool:
    return t.startswith("enum:")


def is_text(t: str) -> bool:
    """Text of any kind: plain text or an enumeration's member."""
    return t == STR or is_enum(t)


def fits(actual: str, wanted: str) -> bool:
    """Can a value of type `actual` be used where `wanted` is expected?"""
    if actual == wanted or ANY in (actual, wanted):
        return True
    if (is_enum(actual) and wanted == STR) or (actual == STR and is_enum(wanted)):
        return True
    if actual == NONE:
        return wanted in NULLABLE or wanted.startswith("event:") or wanted.startswith("list:")
    if wanted == "event" and actual.startswith("event:"):
        return True
    if actual == ZONE and wanted == "list:card":
        return True
    if actual.startswith("list:") and wanted.startswith("list:"):
        return fits(elem(actual), elem(wanted))
    return False


def join(a: str, b: str) -> str:
    """The type of `x if c else y`, or of a list literal's items."""
    if a == b:
        return a
    if a == NONE:
        return b
    if b == NONE:
        return a
    if ANY in (a, b):
        return ANY
    if (is_enum(a) or a == STR) and (is_enum(b) or b == STR):
        return STR
    if {a, b} == {ZONE, "list:card"}:
        return "list:card"
    if a.startswith("list:") and b.startswith("list:"):
        return list_of(join(elem(a), elem(b)))
    return ""


def plain(t: str) -> str:
    """A type in designer's words for error messages."""
    words = {INT: "a number", BOOL: "true/false", STR: "text", PLAYER: "a player",
             CARD: "a card", ZONE: "a zone", CELL: "a cell", NONE: "none",
             GAME: "the game", ANY: "anything"}
    if t in words:
        return words[t]
    if t in (CARD_ID, CARD_KIND):
        return "a " + t[5:].replace("_", " ")
    if t.startswith("list:"):
        return "a list of " + plain(elem(t)).removeprefix("a ").removeprefix("an ").strip("`") + "s"
    if t.startswith("event:"):
        return f"a `{t[6:]}` window event"
    if is_enum(t):
        return f"a `{t[5:]}`"
    if t.startswith("perplayer:"):
        return "a value per player (index it with a player)"
    if t.startswith("fn:"):
        return f"the function `{t[3:]}`"
    return t


def declarable(enums) -> dict:
    """The type names a declaration may use: the built-in ones, and each
    enumeration of the game by its name (and as a list of it)."""
    out = dict(DECLARABLE)
    for name in enums:
        out[name] = "enum:" + name
        out[f"list[{name}]"] = "list:enum:" + name
    return out
