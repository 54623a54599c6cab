"""Card generators: one card entry that stands for a family of cards.

    - generate: {colour: colour, number: {from: 2, to: 10}}
      id: "{{ colour }}_{{ number }}"
      name: "{{ colour | title }} {{ number }}"
      colour: "{{ colour }}"
      value: "{{ number }}"

is the 27 cards red_2 … green_10, in that order (the first key varies
slowest).  Every string key of the entry except the effect code and `text`
is a jinja2 template over the generated values; `text` is a card template
anyway, and sees them beside the card's fields.  A value that is exactly one
`{{ name }}` keeps its type, so `value: "{{ number }}"` is the number 2, not
the text "2"; except in the keys that are always text (TEXT_KEYS): a name
`"{{ number }}"` is the text "2".  Each generated card keeps the entry's file locations, so an
error in one points at the entry.  The expansion is deterministic and
bounded (MAX_GENERATED cards per entry).
"""
from __future__ import annotations

import itertools
import re

from cardc.load import sandbox

MAX_GENERATED = 10_000
# keys that are code (their `{…}` is the effect language's), or templated later
NOT_TEMPLATED = {"generate", "text", "requires", "effect", "reaction", "hooks", "modifiers"}
# keys whose value is text whatever it is generated from (a card named "{{ number }}")
TEXT_KEYS = {"id", "name", "kind", "flavour", "note", "starts_in"}
_ONE_NAME = re.compile(r"^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$")


def _values(spec, enums):
    """The values one generator key runs over, or an error message."""
    if isinstance(spec, list):
        return list(spec), None
    if isinstance(spec, dict):
        start, stop, step = spec.get("from"), spec.get("to"), spec.get("step", 1)
        if not (isinstance(start, int) and isinstance(stop, int) and isinstance(step, int)) \
                or any(isinstance(x, bool) for x in (start, stop, step)) or step < 1:
            return None, "a range is `{from: A, to: B}` with whole numbers (and an optional `step` of 1 or more)"
        if (stop - start) // step + 1 > MAX_GENERATED:
            return None, f"a range of more than {MAX_GENERATED} values"
        return list(range(start, stop + 1, step)), None
    if isinstance(spec, str) and spec in enums:
        return list(enums[spec]), None
    return None, f"`{spec}` is neither a list, a range `{{from: …, to: …}}` nor an enumeration"


def expand_entry(raw, enums, env, error):
    """The card entries an entry stands for: itself, or its generated family.
    `env` is the compiler's sandboxed jinja2 environment for content
    templates; `error(container, key, message)` reports a problem at its place."""
    spec = raw.get("generate")
    if spec is None:
        return [raw]
    names, lists = [], []
    for key, value in spec.items():
        values, problem = _values(value, enums)
        if problem:
            error(spec, key, f"generator `{key}`: {problem}")
            return []
        names.append(key)
        lists.append(values)
    total = 1
    for values in lists:
        total *= len(values)
    if total > MAX_GENERATED:
        error(raw, "generate", f"this generator makes {total} cards; at most {MAX_GENERATED} are allowed")
        return []
    out = []
    for combo in itertools.product(*lists):
        context = dict(zip(names, combo, strict=False))
        card = type(raw)()
        for attr in ("loc", "key_locs", "value_locs"):
            if hasattr(raw, attr):
                setattr(card, attr, getattr(raw, attr))
        for key, value in raw.items():
            if key == "generate":
                continue
            if key in NOT_TEMPLATED or not isinstance(value, str):
                card[key] = value
                continue
            one = _ONE_NAME.match(value)
            if one and one.group(1) in context:
                value = context[one.group(1)]
                card[key] = str(value) if key in TEXT_KEYS and not isinstance(value, str) else value
                continue
            try:
                card[key] = sandbox.render_text(env, value, context)
            except sandbox.TemplateProblem as exc:   # it carries no YAML position: point at the key
                error(raw, key, f"template of `{key}`: {exc}")
                return []
        card.generated = context       # the text template sees these too
        out.append(card)
    return out
