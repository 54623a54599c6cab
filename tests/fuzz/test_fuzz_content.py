"""Content mutations: YAML structure, effect text and template text put into
the mini game. Each either builds or reports errors that all carry a
file:line:col, and nothing raises."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from cardc.project import build_folder
from tests.conftest import MINI
from tests.fuzz.conftest import DEEP_EXAMPLES, EXAMPLES

FILES = ["game.yaml", "rules.yaml", "cards/cards.yaml"]


def _copy(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("fuzz") / "mini"
    shutil.copytree(MINI, dest)
    return dest


def _assert_built_or_located(folder: Path):
    built = build_folder(folder)
    errors = built.diags.errors
    if built.bundle is None:
        assert errors, "no bundle and no error"
    for d in errors:
        assert d.loc is not None and d.loc.file and d.loc.line >= 0, d
        assert d.message and "Traceback" not in d.message


# ---------------------------------------------------------------- YAML structure

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12), st.floats(allow_nan=True),
                    st.text(max_size=20), st.sampled_from(["draw", "hand", "me", "{{ value }}", "p.bank",
                                                          "gem", "3.0", "1e999", "nan", "-1"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.text(max_size=8), inner, max_size=3)),
                      max_leaves=6)


def _paths(node, path=()):
    """Every (path) to a value in a loaded YAML document."""
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, path + (i,))


@st.composite
def yaml_mutation(draw):
    rel = draw(st.sampled_from(FILES))
    doc = yaml.safe_load((MINI / rel).read_text())
    paths = [p for p in _paths(doc) if p]
    path = draw(st.sampled_from(paths))
    action = draw(st.sampled_from(["replace", "delete", "add"]))
    holder = doc
    for p in path[:-1]:
        holder = holder[p]
    if action == "replace":
        holder[path[-1]] = draw(values)
    elif action == "delete":
        del holder[path[-1]]
    elif isinstance(holder, dict):
        holder[draw(st.text(min_size=1, max_size=10))] = draw(values)
    else:
        holder.append(draw(values))
    return rel, yaml.safe_dump(doc, allow_unicode=True, sort_keys=False)


def _yaml_case(tmp_path_factory, mutation):
    rel, text = mutation
    folder = _copy(tmp_path_factory)
    (folder / rel).write_text(text)
    _assert_built_or_located(folder)


@settings(max_examples=EXAMPLES)
@given(mutation=yaml_mutation())
def test_yaml_structure_mutations(tmp_path_factory, mutation):
    _yaml_case(tmp_path_factory, mutation)


@pytest.mark.slow
@settings(max_examples=DEEP_EXAMPLES)
@given(mutation=yaml_mutation())
def test_yaml_structure_mutations_deep(tmp_path_factory, mutation):
    _yaml_case(tmp_path_factory, mutation)


# ---------------------------------------------------------------- effect text

NAMES = ["p", "c", "me", "draw", "discard", "p.bank", "p.hand", "c.value", "hand_limit", "win_at",
         "worth(p)", "count(p.bank)", "players", "rivals(p)", "none", "true", "false"]
atoms = st.one_of(st.sampled_from(NAMES), st.integers(-10**30, 10**30).map(str),
                  st.text(alphabet="abc {}\"\\", max_size=8).map(lambda s: '"' + s + '"'))


def _combine(inner):
    return st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "%", "==", "!=", "<", ">=", "and", "or", "in"]),
                  inner).map(" ".join),
        inner.map(lambda e: f"({e})"), inner.map(lambda e: f"not {e}"), inner.map(lambda e: f"-{e}"),
        st.tuples(st.sampled_from(["count", "sum", "max", "min", "any", "all", "top", "shuffled_order",
                                   "abs", "worth", "nope"]), st.lists(inner, max_size=3))
        .map(lambda t: f"{t[0]}({', '.join(t[1])})"),
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.tuples(inner, inner).map(lambda t: f"[{t[0]} for c in p.bank if {t[1]}]"),
        st.tuples(inner, inner, inner).map(lambda t: f"{t[0]} if {t[1]} else {t[2]}"),
        st.integers(1, 400).map(lambda n: "(" * n + "1" + ")" * n),
        st.integers(1, 4000).map(lambda n: "not " * n + "true"),
        st.integers(1, 400).map(lambda n: " + ".join(["1"] * n)),
    )


expressions = st.recursive(atoms, _combine, max_leaves=12)
token_soup = st.lists(st.sampled_from(NAMES + ["(", ")", "[", "]", ",", ":", "+", "if", "else", "for", "in",
                                               "let", "move", "to", "\n", "  ", "\t", "#", "\"", "{", "}"]),
                      max_size=30).map(" ".join)


def _effect_case(tmp_path_factory, text):
    folder = _copy(tmp_path_factory)
    path = folder / "rules.yaml"
    source = path.read_text()
    path.write_text(source.replace("expr: sum([c.value for c in p.bank])", "expr: " + yaml.safe_dump(text).strip()
                                   .removesuffix("...").strip(), 1))
    _assert_built_or_located(folder)


@settings(max_examples=EXAMPLES)
@given(text=st.one_of(expressions, token_soup))
def test_generated_effect_text(tmp_path_factory, text):
    _effect_case(tmp_path_factory, text)


@pytest.mark.slow
@settings(max_examples=DEEP_EXAMPLES)
@given(text=st.one_of(expressions, token_soup))
def test_generated_effect_text_deep(tmp_path_factory, text):
    _effect_case(tmp_path_factory, text)


# ---------------------------------------------------------------- template text

FRAGMENTS = ["{{ value }}", "{{ params.win_at }}", "{{ 'x' * 10**7 }}", "{% for i in range(100000) %}",
             "{% endfor %}", "{% if value %}", "{% endif %}", "{{ name|upper }}", "{{ card.__class__ }}",
             "{{ params.update(win_at=1) }}", "{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}",
             "{{ 2 ** 10**6 }}", "{{ range(10**6)|join(',') }}", "{% include 'x' %}", "{{ lipsum() }}",
             "{{ nope }}", "{{", "}}", "{%", "%}", "plain text", "\n", "{{ (((1))) }}", "{{ 'a'|center(10**8) }}"]
templates = st.lists(st.sampled_from(FRAGMENTS), max_size=8).map("".join)


def _template_case(tmp_path_factory, template):
    folder = _copy(tmp_path_factory)
    path = folder / "cards" / "cards.yaml"
    path.write_text(path.read_text().replace("text: Worth {{ value }} banked.",
                                             "text: " + yaml.safe_dump(template).strip().removesuffix("...").strip(), 1))
    _assert_built_or_located(folder)


@settings(max_examples=EXAMPLES)
@given(template=templates)
def test_generated_card_text_templates(tmp_path_factory, template):
    _template_case(tmp_path_factory, template)


@pytest.mark.slow
@settings(max_examples=DEEP_EXAMPLES)
@given(template=templates)
def test_generated_card_text_templates_deep(tmp_path_factory, template):
    _template_case(tmp_path_factory, template)
