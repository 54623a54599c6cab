"""Bundles are checked twice: the compiler's output before it is written
(`validate_bundle`: an invalid bundle there is cardc's own bug), and any
bundle read from a file (`read_bundle`: `play x.json`, `replay --bundle`,
the bundles `simulate` saves beside rule holes), which is untrusted input.

A bundle from a file must pass grammar/bundle.schema.json, which is strict:
every op, expression node, operator, builtin and set operator is from a
closed set, names are plain identifiers, and code blocks carry no unknown
keys. Then `semantic_problems` checks what a schema cannot: jump targets
inside their block, and every zone, counter, function, procedure, event,
window, kind and card a bundle names declared in it. Only then does the
engine build anything from it, so a tampered bundle is refused with the file
and the field, before any of it runs.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from cardc.ir import nodes
from cardc.ir.jsonform import expr_fields, list_fields, pc_fields
from cardc.ir.nodes import BOOL, BUILTIN, EXPR, EXPRS, KWEXPRS, LIT, MENU, NAME, OPT_EXPR, PC, TEXT, TYPE, Kind
from cardc.load.paths import GRAMMAR


def bundle_schema() -> dict:
    """grammar/bundle.schema.json with the shape of every op and expression
    made from their declarations (cardc/ir/nodes.py) and the builtins a
    bundle may call from theirs (cardc/ir/builtins.py): the file on disk is
    that, written out (`python -m cardc.ir.schema --write`, checked by
    tests/test_ir.py), and these are the declarations it is made of."""
    from cardc.ir.builtins import CALLABLE
    schema = json.loads((GRAMMAR / "bundle.schema.json").read_text())
    schema["$defs"].update(schema_defs(CALLABLE))
    return schema


# ---------------------------------------------------------------- the shapes of the kinds
# made from the declarations of cardc/ir/nodes.py: the closed set of kinds
# and each one's fields are written nowhere else

_REF = {EXPR: {"$ref": "#/$defs/expr"}, NAME: {"$ref": "#/$defs/name"}, PC: {"$ref": "#/$defs/pc"},
        TYPE: {"$ref": "#/$defs/type"}, BOOL: {"type": "boolean"}}
_PLAIN = ["integer", "string", "boolean", "null"]
_LIT = {"anyOf": [{"type": _PLAIN}, {
    "type": "array", "maxItems": 100000,
    "description": "A constant list: a list param, an enumeration's members, a table of the game's cards.",
    "items": {"anyOf": [{"type": _PLAIN}, {"type": "array", "maxItems": 16, "items": {"type": _PLAIN}}]}}]}


def _field_schema(what, callable_names) -> dict:
    if what in _REF:
        return _REF[what]
    if what == OPT_EXPR:
        return {"anyOf": [_REF[EXPR], {"type": "null"}]}
    if what == EXPRS:
        return {"type": "array", "items": _REF[EXPR]}
    if what == KWEXPRS:
        return {"type": "object", "propertyNames": _REF[NAME], "additionalProperties": _REF[EXPR]}
    if what == LIT:
        return _LIT
    if what == TEXT:
        return {"type": "array", "items": {"anyOf": [{"type": "string"}, {
            "type": "array", "prefixItems": [{"const": "fmt"}, _REF[EXPR], _REF[TYPE]],
            "minItems": 3, "maxItems": 3}]}}
    if what == MENU:
        return {"type": "array", "items": {"$ref": "#/$defs/menu_item"}}
    if what == BUILTIN:
        return {"enum": sorted(callable_names)}
    if isinstance(what, tuple) and what[0] == "enum":
        return {"enum": list(what[1])}
    raise ValueError(f"unknown field kind {what!r}")


def _kind_schema(kind: Kind, callable_names) -> dict:
    items = [{"const": kind.name}] + [_field_schema(what, callable_names) for _, what in kind.fields]
    return {"type": "array", "description": kind.doc, "prefixItems": items,
            "minItems": len(items), "maxItems": len(items)}


def _tree(names: list, prefix: str) -> dict:
    """Which shape a list must fit, by its first item: a binary tree of
    if/then/else on the kind, so a validator tests a few sets of names
    rather than every kind in turn."""
    if len(names) == 1:
        return {"$ref": f"#/$defs/{prefix}_{names[0]}"}
    half = len(names) // 2
    return {"if": {"prefixItems": [{"enum": names[:half]}]},
            "then": _tree(names[:half], prefix), "else": _tree(names[half:], prefix)}


def schema_defs(callable_names) -> dict:
    """The bundle schema's definitions of every op and expression: `op`,
    `expr` (the closed set of kinds, then the kind's own shape), `op_<kind>`,
    `expr_<kind>` and `menu_item`."""
    out: dict[str, Any] = {}
    for group, prefix in ((True, "op"), (False, "expr")):
        kinds = nodes.OPS if group else nodes.EXPRS_
        names = sorted(kinds)
        out[prefix] = {"type": "array", "minItems": 1,
                       "prefixItems": [{"enum": names, "description": f"the {prefix} kind: one of a closed set"}],
                       "description": f"One {prefix}: its first item names its kind, from a closed set; the rest "
                                      f"must fit that kind's shape (`{prefix}_<kind>`, cardc/ir/nodes.py).",
                       **_tree(names, prefix)}
        for name in names:
            out[f"{prefix}_{name}"] = _kind_schema(kinds[name], callable_names)
    out["menu_item"] = {"anyOf": [
        {"type": "array", "prefixItems": [{"const": "opt"}, _REF[EXPR], _field_schema(OPT_EXPR, ()),
                                          _field_schema(OPT_EXPR, ()), _REF[PC]], "minItems": 5, "maxItems": 5},
        {"type": "array", "prefixItems": [{"const": "for"}, _REF[NAME], _REF[EXPR],
                                          {"type": "array", "items": {"$ref": "#/$defs/menu_item"}}],
         "minItems": 4, "maxItems": 4},
        {"type": "array", "prefixItems": [{"const": "if"}, _REF[EXPR],
                                          {"type": "array", "items": {"$ref": "#/$defs/menu_item"}}],
         "minItems": 3, "maxItems": 3}]}
    return out


@functools.cache
def _validator():
    from cardc.load.schema import StrictValidator
    return StrictValidator(bundle_schema())


class BundleInvalid(Exception):
    pass


def _where(path) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


def validate_bundle(bundle: dict) -> None:
    errors = sorted(_validator().iter_errors(bundle), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        e = errors[0]
        raise BundleInvalid(f"internal error: the compiled bundle is invalid at `{_where(e.absolute_path)}`: "
                            f"{e.message}")


def read_json_file(path: str | Path, what: str, error: type[Exception]):
    """The JSON value in a file a person hands cardc (a bundle, a replay):
    any file, binary, cut short or nested too deep, raises `error` with one
    line naming it, never a traceback.  A file that cannot be read at all
    raises the OSError itself: the command line names it and exits 3."""
    name = str(path)
    raw = Path(path).read_bytes()
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise error(f"{name}: not a {what} (not UTF-8 text: a binary file?)") from None
    except json.JSONDecodeError as exc:
        raise error(f"{name}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise error(f"{name}: not a {what} (JSON nested too deep)") from None


def read_bundle(path: str | Path) -> dict:
    """A bundle file, refused (BundleInvalid naming the file and the field)
    unless it is a well-formed bundle."""
    bundle = read_json_file(path, "bundle", BundleInvalid)
    check_bundle(bundle, str(path))
    return bundle


def check_bundle(bundle, name: str = "the bundle") -> None:
    """Schema, then meaning; raises BundleInvalid on the first problem."""
    if not isinstance(bundle, dict):
        raise BundleInvalid(f"{name}: not a bundle (a JSON object written by `cardc build`)")
    if bundle.get("format") != 1:
        raise BundleInvalid(f"{name}: `format` is {bundle.get('format')!r}; this cardc reads bundle format 1 "
                            "(rebuild it with `cardc build`)")
    try:   # the deepest error names the field itself (`ops[11][0]`, not `ops[11]`)
        error = max(_validator().iter_errors(bundle), key=lambda e: len(e.absolute_path), default=None)
    except RecursionError:
        raise BundleInvalid(f"{name}: expressions nested too deep to be a compiled bundle") from None
    if error is not None:
        message = error.message
        if error.validator == "not" and isinstance(error.instance, str):   # line_text, file_name
            message = (f"{error.instance[:80]!r} holds a line break, a control character or a backslash; "
                       "labels and file names in a bundle are one line of plain text")
        raise BundleInvalid(f"{name}: `{_where(error.absolute_path)}`: {message[:300]}")
    problems = semantic_problems(bundle)
    if problems:
        where, message = problems[0]
        raise BundleInvalid(f"{name}: `{where}`: {message}")


# ---------------------------------------------------------------- meaning

# which items of each op and expression node are expressions, jumps, lists
# of expressions: from their declarations (cardc/ir/nodes.py)
_OP_EXPRS = {k: list(expr_fields(k)) for k in nodes.OPS if expr_fields(k)}
_OP_JUMPS = {k: pc_fields(k)[0] for k in nodes.OPS if pc_fields(k)}
_EXPR_KIDS = {k: list(expr_fields(k, op=False)) for k in nodes.EXPRS_ if expr_fields(k, op=False)}
_EXPR_LISTS = {k: list_fields(k, op=False)[0] for k in nodes.EXPRS_ if list_fields(k, op=False)}


class _Checker:
    def __init__(self, bundle: dict):
        b = bundle
        self.zones = {z["id"]: z for z in b["zones"]}
        self.counters = b["counters"]
        self.code = b["code"]
        self.events, self.windows = b["events"], b["windows"]
        self.fields = set(b["card_fields"]) | {"id", "name", "kind", "text"}
        self.problems: list[tuple[str, str]] = []

    def bad(self, path, message):
        self.problems.append((_where(path), message))

    def known(self, path, name, table, what):
        if name not in table:
            self.bad(path, f"names {what} `{name}`, which the bundle does not declare")

    def expr(self, e, path):
        stack = [(e, path)]
        while stack:                       # a loop, not recursion: any depth
            e, path = stack.pop()
            if not isinstance(e, list) or not e:
                continue
            kind = e[0]
            if kind == "zone":
                self.known(path, e[1], {z for z, d in self.zones.items() if d["owner"] == "shared"}, "the shared zone")
            elif kind == "pzone":
                self.known(path, e[1], {z for z, d in self.zones.items() if d["owner"] == "player"}, "the player zone")
            elif kind == "gctr":
                self.known(path, e[1], self.counters.get("game", {}), "the game counter")
            elif kind == "pctr":
                self.known(path, e[1], self.counters.get("player", {}), "the player counter")
            elif kind in ("cctr", "cpp"):
                self.known(path, e[1], self.counters.get("card", {}), "the card counter")
            elif kind == "field":
                self.known(path, e[1], self.fields, "the card field")
            elif kind == "fn":
                self.known(path, e[1], {k[3:] for k in self.code if k.startswith("fn:")}, "the function")
            for i in _EXPR_KIDS.get(kind, ()):
                stack.append((e[i], path + [i]))
            if kind in _EXPR_LISTS:
                stack.extend((x, path + [_EXPR_LISTS[kind], j]) for j, x in enumerate(e[_EXPR_LISTS[kind]]))
            if kind == "call":
                stack.extend((x, path + [3, k]) for k, x in e[3].items())
            if kind == "str":
                stack.extend((p[1], path + [1, j, 1]) for j, p in enumerate(e[1]) if isinstance(p, list))

    def block(self, code, path):
        ops = code["ops"]
        if len(code["src"]) != len(ops):
            self.bad(path + ["src"], f"has {len(code['src'])} places for {len(ops)} ops")
        for pc, op in enumerate(ops):
            where = path + ["ops", pc]
            kind = op[0]
            if kind in _OP_JUMPS and not 0 <= op[_OP_JUMPS[kind]] <= len(ops):
                self.bad(where + [_OP_JUMPS[kind]], f"jumps to op {op[_OP_JUMPS[kind]]}, outside its block "
                         f"of {len(ops)} ops")
            for i in _OP_EXPRS.get(kind, ()):
                self.expr(op[i], where + [i])
            if kind == "call":
                self.known(where + [1], op[1], {k[5:] for k in self.code if k.startswith("proc:")}, "the procedure")
                for j, a in enumerate(op[2]):
                    self.expr(a, where + [2, j])
            elif kind in ("trigger", "window"):
                table = self.events if kind == "trigger" else self.windows
                self.known(where + [1 if kind == "trigger" else 2], op[1 if kind == "trigger" else 2], table,
                           "the event" if kind == "trigger" else "the window")
                for k, v in op[2 if kind == "trigger" else 4].items():
                    self.expr(v, where + [k])
            elif kind == "menu":
                self.menu(op[3], where + [3], len(ops))

    def menu(self, items, path, size):
        for j, item in enumerate(items):
            if item[0] == "opt":
                if not 0 <= item[4] <= size:
                    self.bad(path + [j, 4], f"jumps to op {item[4]}, outside its block of {size} ops")
                for i in (1, 2, 3):
                    self.expr(item[i], path + [j, i])
            elif item[0] == "for":
                self.expr(item[2], path + [j, 2])
                self.menu(item[3], path + [j, 3], size)
            elif item[0] == "if":
                self.expr(item[1], path + [j, 1])
                self.menu(item[2], path + [j, 2], size)


def semantic_problems(bundle: dict) -> list[tuple[str, str]]:
    """What a schema cannot say: (where, problem) pairs, empty for a sound bundle."""
    c = _Checker(bundle)
    kinds = bundle["kinds"]
    for name, value in bundle["code"].items():
        if isinstance(value, dict) and "ops" in value:
            c.block(value, ["code", name])
        elif isinstance(value, dict):
            c.expr(value.get("expr"), ["code", name, "expr"])
        elif name in ("constraints", "invariants"):
            for i, check in enumerate(value):
                c.expr(check.get("expect"), ["code", name, i, "expect"])
        else:
            c.expr(value, ["code", name])
    card_ids = set()
    for i, card in enumerate(bundle["cards"]):
        path = ["cards", i]
        card_ids.add(card["id"])
        c.known(path + ["kind"], card["kind"], kinds, "the card kind")
        c.known(path + ["starts_in"], card["starts_in"], c.zones, "the zone")
        c.expr(card.get("requires"), path + ["requires"])
        if card.get("effect"):
            c.block(card["effect"], path + ["effect"])
        for event, code in card["hooks"].items():
            c.known(path + ["hooks", event], event, c.events, "the event")
            c.block(code, path + ["hooks", event])
        for mod, e in card["modifiers"].items():
            c.known(path + ["modifiers", mod], mod, bundle["modifiers"], "the modifier")
            c.expr(e, path + ["modifiers", mod])
        reaction = card.get("reaction")
        if reaction:
            c.known(path + ["reaction", "to"], reaction["to"], c.windows, "the window")
            c.expr(reaction.get("if"), path + ["reaction", "if"])
            if reaction.get("effect"):
                c.block(reaction["effect"], path + ["reaction", "effect"])
    for i, zone in enumerate(bundle["zones"]):
        if zone.get("overflow") is not None:
            c.known(["zones", i, "overflow"], zone["overflow"], {k[5:] for k in c.code if k.startswith("proc:")},
                    "the procedure")
    top = bundle["players"]["max"]
    for i, inst in enumerate(bundle["instances"]):
        if inst["iid"] != i:
            c.bad(["instances", i, "iid"], f"is {inst['iid']}; instance {i} must have iid {i}")
        c.known(["instances", i, "card"], inst["card"], card_ids, "the card")
        if inst["seat"] is not None and inst["seat"] >= top:
            c.bad(["instances", i, "seat"], f"is {inst['seat']}, but the game has at most {top} players")
    if bundle["players"]["min"] > top:
        c.bad(["players", "min"], "is more than players.max")
    return c.problems


if __name__ == "__main__":      # python -m cardc.ir.schema --write: the file made anew
    import sys
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m cardc.ir.schema --write")
    text = json.dumps(bundle_schema(), indent=1, ensure_ascii=False) + "\n"
    Path(str(GRAMMAR / "bundle.schema.json")).write_text(text)
