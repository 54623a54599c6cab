"""JSON Schema checks that speak to designers.

The content files are checked against `grammar/<name>.schema.json` (Draft
2020-12), the same schemas editors use for completion. jsonschema's own
messages talk about instances and properties and point nowhere; here every
error becomes a `Diagnostic` at the YAML node that caused it, in plain words:

    unknown key `vaule` in a card          (at the key, with did-you-mean)
    missing required key `name` in a card  (at the mapping)
    `count` must be a whole number, got text "five"

Schemas may carry two annotations of ours: `x-noun` names what an object is
("a card") and `x-message` says what a `pattern` wants.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match

from cardc.load.diagnostics import Diagnostic, Diagnostics, Loc, did_you_mean
from cardc.load.paths import GRAMMAR
from cardc.load.yamlsrc import LocDict, LocList

TYPE_WORDS = {
    "integer": "a whole number",
    "number": "a number",
    "string": "text",
    "boolean": "true/false",
    "object": "a mapping (key: value)",
    "array": "a list",
    "null": "nothing",
}


def _whole_number(checker, instance) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


# A schema's `$` means the end of the text, as in JSON Schema's ECMA-262
# regexes; Python's `$` also matches before a final line break, which would let
# `"draw\n"` pass as a plain name. Each `$` that ends a pattern or one of its
# alternatives becomes `\Z`.
_END = re.compile(r"(?<!\\)\$(?=$|\||\))")


@cache
def _ecma_pattern(pattern: str) -> re.Pattern:
    return re.compile(_END.sub(r"\\Z", pattern))


def _pattern(validator, pattern, instance, schema):
    if validator.is_type(instance, "string") and not _ecma_pattern(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


# JSON Schema counts 2.0 as an integer; content does not (`plays_per_turn: 2.0`
# would print as "Card play 1 of 2.0"), nor does a bundle or a replay.
StrictValidator = validators.extend(
    Draft202012Validator,
    validators={"pattern": _pattern},
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _whole_number))


@cache
def load_schema(schema_name: str) -> Draft202012Validator:
    """The validator for `grammar/<schema_name>.schema.json`."""
    path = GRAMMAR / f"{schema_name}.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return StrictValidator(schema)


def validate(data: Any, schema_name: str, diags: Diagnostics, file: str | None = None) -> bool:
    """Check loaded data against a grammar schema, adding one diagnostic per
    problem to `diags`; True when the data is valid. `file` places problems
    when the data carries no locations."""
    validator = load_schema(schema_name)
    checker = _Translator(validator, data, file)
    seen: set[tuple] = set()
    found = False
    for error in validator.iter_errors(data):
        for diag in checker.translate(error):
            key = (diag.loc, diag.message)
            if key not in seen:
                seen.add(key)
                diags.add(diag)
                found = True
    return not found


class _Translator:
    """Turns jsonschema errors into located, plain-words diagnostics."""

    def __init__(self, validator: Draft202012Validator, data: Any, file: str | None) -> None:
        self.validator = validator
        self.root_schema = validator.schema
        self.data = data
        self.file = file

    # -- where -------------------------------------------------------------

    def locate(self, path: Iterable) -> tuple[Any, Loc | None]:
        """The node at `path` in the data and where it is written."""
        node = self.data
        loc = getattr(node, "loc", None) or (Loc(self.file, 1, 1) if self.file else None)
        for step in path:
            if isinstance(node, LocDict) and step in node:
                loc = node.value_locs.get(step, loc)
            elif isinstance(node, LocList) and isinstance(step, int) and step < len(node):
                loc = node.item_locs[step] if step < len(node.item_locs) else loc
            try:
                node = node[step]
            except (KeyError, IndexError, TypeError):
                break
        return node, loc

    def noun(self, error: ValidationError) -> str:
        """What the object in error is, for "unknown key `x` in a card"."""
        noun = error.schema.get("x-noun") if isinstance(error.schema, dict) else None
        if noun:
            return noun
        return self.name(error.absolute_path) if error.absolute_path else "this file"

    @staticmethod
    def name(path: Iterable) -> str:
        """A designer's name for the value at `path`: `count`, item 2 of `zones`."""
        steps = list(path)
        if not steps:
            return "this file"
        last = steps[-1]
        if isinstance(last, int):
            owner = f" of `{steps[-2]}`" if len(steps) > 1 and isinstance(steps[-2], str) else ""
            return f"item {last + 1}{owner}"
        return f"`{last}`"

    # -- what --------------------------------------------------------------

    def translate(self, error: ValidationError) -> list[Diagnostic]:
        if error.validator in ("anyOf", "oneOf") and error.context:
            return self.alternatives(error)
        if "propertyNames" in error.absolute_schema_path:
            return [self.bad_key(error)]
        handler = getattr(self, f"on_{error.validator}", None)
        if handler is not None:
            return handler(error)
        node, loc = self.locate(error.absolute_path)
        return [Diagnostic(loc, "error", f"{self.name(error.absolute_path)}: {error.message}")]

    def alternatives(self, error: ValidationError) -> list[Diagnostic]:
        """anyOf/oneOf: report the branch that fits the value's type, or, if
        none does, one message listing the types that would fit."""
        branches = [self.resolve(b) for b in error.validator_value]
        fitting = [i for i, b in enumerate(branches) if self.fits_type(b, error.instance)]
        if not fitting:
            types = [t for b in branches for t in _types(b)]
            _, loc = self.locate(error.absolute_path)
            wanted = _or_list(dict.fromkeys(TYPE_WORDS.get(t, t) for t in types))
            message = f"{self.name(error.absolute_path)} must be {wanted}, got {describe(error.instance)}"
            return [Diagnostic(loc, "error", message)]
        if len(fitting) == 1:
            chosen = [e for e in error.context if e.relative_schema_path[0] == fitting[0]]
        else:
            chosen = [best_match(error.context)]
        return [diag for sub in chosen for diag in self.translate(sub)]

    def resolve(self, schema: Any) -> Any:
        """Follow local `$ref`s (`#/$defs/name`) to the schema they name."""
        while isinstance(schema, dict) and "$ref" in schema and schema["$ref"].startswith("#/"):
            target = self.root_schema
            for part in schema["$ref"][2:].split("/"):
                target = target[part]
            schema = target
        return schema

    def fits_type(self, schema: Any, instance: Any) -> bool:
        types = _types(schema)
        return not types or any(self.validator.is_type(instance, t) for t in types)

    def bad_key(self, error: ValidationError) -> Diagnostic:
        owner, loc = self.locate(error.absolute_path)
        key = error.instance
        if isinstance(owner, LocDict):
            loc = owner.key_locs.get(key, loc)
        where = f" in {self.name(error.absolute_path)}" if error.absolute_path else ""
        wants = error.schema.get("x-message") or error.message
        return Diagnostic(loc, "error", f"key `{key}`{where} must be {wants}")

    def on_additionalProperties(self, error: ValidationError) -> list[Diagnostic]:
        obj, loc = self.locate(error.absolute_path)
        allowed = list(error.schema.get("properties", {}))
        patterns = list(error.schema.get("patternProperties", {}))
        extras = [
            k for k in error.instance
            if k not in allowed and not any(re.search(p, k) for p in patterns)
        ]
        diags = []
        for key in extras:
            where = obj.key_locs.get(key, loc) if isinstance(obj, LocDict) else loc
            hint = did_you_mean(key, allowed) or (
                f"allowed keys: {', '.join(allowed)}" if allowed else None
            )
            diags.append(Diagnostic(where, "error", f"unknown key `{key}` in {self.noun(error)}", hint))
        return diags

    def on_required(self, error: ValidationError) -> list[Diagnostic]:
        _, loc = self.locate(error.absolute_path)
        properties = error.schema.get("properties", {})
        diags = []
        for key in error.validator_value:
            if key in error.instance:
                continue
            about = self.resolve(properties.get(key, {}))
            description = properties.get(key, {}).get("description") or about.get("description")
            hint = f"`{key}`: {description}" if description else None
            strays = [k for k in error.instance if k not in properties]
            misspelt = difflib.get_close_matches(key, strays, n=1, cutoff=0.6)
            if misspelt:
                hint = f"is `{misspelt[0]}` a misspelling of `{key}`?"
            message = f"missing required key `{key}` in {self.noun(error)}"
            diags.append(Diagnostic(loc, "error", message, hint))
        return diags

    def on_type(self, error: ValidationError) -> list[Diagnostic]:
        _, loc = self.locate(error.absolute_path)
        types = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        wanted = _or_list(TYPE_WORDS.get(t, str(t)) for t in types)
        message = f"{self.name(error.absolute_path)} must be {wanted}, got {describe(error.instance)}"
        hint = None
        if "string" in types and isinstance(error.instance, (bool, int, float)):
            hint = "put it in quotes to make it text"
        elif error.instance is None:
            hint = "nothing is written here; note that `#` starts a comment, so quote text with a #"
        return [Diagnostic(loc, "error", message, hint)]

    def on_enum(self, error: ValidationError) -> list[Diagnostic]:
        _, loc = self.locate(error.absolute_path)
        options = [str(v) for v in error.validator_value]
        message = (
            f"{self.name(error.absolute_path)} must be one of {', '.join(options)}, "
            f"got {describe(error.instance)}"
        )
        return [Diagnostic(loc, "error", message, did_you_mean(str(error.instance), options))]

    def on_const(self, error: ValidationError) -> list[Diagnostic]:
        _, loc = self.locate(error.absolute_path)
        message = f"{self.name(error.absolute_path)} must be {error.validator_value!r}"
        return [Diagnostic(loc, "error", message)]

    def on_pattern(self, error: ValidationError) -> list[Diagnostic]:
        _, loc = self.locate(error.absolute_path)
        wants = error.schema.get("x-message") or error.schema.get("description") or (
            f"text matching {error.validator_value}"
        )
        message = f"{self.name(error.absolute_path)} must be {wants}, got {describe(error.instance)}"
        return [Diagnostic(loc, "error", message)]

    def bound(self, error: ValidationError, words: str) -> list[Diagnostic]:
        _, loc = self.locate(error.absolute_path)
        message = (f"{self.name(error.absolute_path)} must be {words} {error.validator_value}, "
                   f"got {describe(error.instance)}")
        return [Diagnostic(loc, "error", message)]

    def on_minimum(self, error: ValidationError) -> list[Diagnostic]:
        return self.bound(error, "at least")

    def on_maximum(self, error: ValidationError) -> list[Diagnostic]:
        return self.bound(error, "at most")

    def on_exclusiveMinimum(self, error: ValidationError) -> list[Diagnostic]:
        return self.bound(error, "more than")

    def on_exclusiveMaximum(self, error: ValidationError) -> list[Diagnostic]:
        return self.bound(error, "less than")

    def on_minLength(self, error: ValidationError) -> list[Diagnostic]:
        _, loc = self.locate(error.absolute_path)
        return [Diagnostic(loc, "error", f"{self.name(error.absolute_path)} must not be empty")]

    def on_minItems(self, error: ValidationError) -> list[Diagnostic]:
        _, loc = self.locate(error.absolute_path)
        n = error.validator_value
        message = f"{self.name(error.absolute_path)} needs at least {n} item{'s' if n != 1 else ''}"
        return [Diagnostic(loc, "error", message)]

    def on_minProperties(self, error: ValidationError) -> list[Diagnostic]:
        _, loc = self.locate(error.absolute_path)
        n = error.validator_value
        message = f"{self.name(error.absolute_path)} needs at least {n} entr{'ies' if n != 1 else 'y'}"
        return [Diagnostic(loc, "error", message)]


def _types(schema: Any) -> list[str]:
    if not isinstance(schema, dict) or "type" not in schema:
        return []
    types = schema["type"]
    return types if isinstance(types, list) else [types]


def _or_list(words: Iterable[str]) -> str:
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


def describe(value: Any) -> str:
    """A value as a designer would name it: text "five", the number 5."""
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if value is None:
        return "nothing"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f'text "{shown}"' if "\n" not in shown else "a block of text"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__
