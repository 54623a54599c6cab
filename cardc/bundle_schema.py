"""Validate a bundle against grammar/bundle.schema.json before it is written,
so that nothing downstream ever reads a malformed bundle."""
from __future__ import annotations

import functools
import json

from jsonschema import Draft202012Validator

from cardc.paths import GRAMMAR


@functools.cache
def _validator():
    return Draft202012Validator(json.loads((GRAMMAR / "bundle.schema.json").read_text()))


class BundleInvalid(Exception):
    pass


def validate_bundle(bundle: dict) -> None:
    errors = sorted(_validator().iter_errors(bundle), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        where = "/".join(str(p) for p in e.absolute_path)
        raise BundleInvalid(f"internal error: the compiled bundle is invalid at `{where}`: {e.message}")
