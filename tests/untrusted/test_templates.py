"""Content templates run in cardc's one sandbox (cardc/load/sandbox.py): no code
execution, no mutation of what they are given, and a budget of work, size
and depth; every failure a TemplateProblem with its line, and at build time
a located diagnostic."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardc.load import sandbox as sb

PARAMS = {"win_at": 1000}

# name, template, the start of the expected message (None: renders)
CASES = [
    ("attribute escape", "{{ cycler.__init__.__globals__.os.popen('id').read() }}",
     "not allowed in a content template: access to attribute '__init__'"),
    ("mutating params", "{{ params.update(win_at=60) }}",
     "not allowed in a content template: access to attribute 'update' of 'dict' object is unsafe"),
    ("nested range loops", "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
     "the template does too much work"),
    ("huge range", "{% for i in range(10**9) %}{% endfor %}", "range() of 1,000,000,000 items"),
    ("string times a huge number", "{{ 'x' * 300000000 }}", "the template builds a string of over 1,000,000"),
    ("recursive macro", "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", "macros call each other over 40 deep"),
    ("recursive loop", "{% for x in [1] recursive %}{{ loop([1]) }}{% endfor %}", "macros call each other"),
    ("include itself", "{% include 'rulebook.md.j2' %}", "`{% include %}` is not available"),
    ("import", "{% import 'x' as y %}", "`{% import %}` is not available"),
    ("doubling by concatenation", "{% set s = 'xx' %}" + "{% set s = s ~ s %}" * 40 + "{{ s }}",
     "the template builds a string of over"),
    ("huge power", "{{ 2 ** 100000000 }}", "the template computes a number of over 4,096 bits"),
    ("squaring forty times", "{% set x = 3 %}" + "{% set x = x * x %}" * 40 + "{{ x }}",
     "the template computes a number of over"),
    ("ljust", "{{ 'x'.ljust(1000000000) }}", "the number 1000000000 is too large here"),
    ("center filter", "{{ 'x'|center(1000000000) }}", "the number 1000000000 is too large here"),
    ("percent formatting", "{{ '%1000000000d' % 1 }}", "`%` string formatting is not available"),
    ("format method", "{{ '{:>1000000000}'.format(1) }}", "`.format()` is not available"),
    ("huge join", "{{ range(50000)|list|join('x' * 100000) }}", "this join would build a string"),
    ("huge join of a range", "{{ range(100000)|join('x' * 100000) }}", "this join would build a string"),
    ("huge join method", "{{ ('x' * 100000).join(range(100000)) }}", "this join would build a string"),
    ("huge join of a lazy map", "{{ range(1000)|map('center', 2)|join('-' * 999999) }}",
     "this join would build a string"),
    ("huge join method of a lazy map", "{{ ('-' * 999999).join(range(1000)|map('center', 2)) }}",
     "this join would build a string"),
    ("a list shared with itself", "{% set x = [1] %}" + "{% set x = [x, x] %}" * 40 + "{{ x }}",
     "the template builds a value of over 1,000,000 parts"),
    ("a list shared with itself, as a string", "{% set x = [1] %}" + "{% set x = [x, x] %}" * 40 + "{{ x|string }}",
     "the template builds a value of over 1,000,000 parts"),
    ("a list shared with itself, concatenated", "{% set x = [1] %}" + "{% set x = [x, x] %}" * 40 + "{{ x ~ '' }}",
     "the template builds a value of over 1,000,000 parts"),
    ("a repeated list", "{{ [[0] * 1000] * 1000 }}", "repeating a list with `*` is not available"),
    ("astronomic range", "{% for i in range(10**100) %}{% endfor %}", "range() of over 100,000 items"),
    ("huge replace", "{{ ('x' * 100000)|replace('x', 'y' * 1000) }}", "this replace would build a string"),
    ("lipsum", "{{ lipsum(100000000) }}", "'lipsum' is undefined"),
    ("set block output", "{% set b %}{% for i in range(100000) %}{{ 'x' * 100000 }}{% endfor %}{% endset %}",
     "the template writes over 4,000,000 characters"),
    ("literal text in a long loop", "{% for i in range(100000) %}" + "y" * 100000 + "{% endfor %}",
     "the template writes over 4,000,000 characters"),
    ("deep brackets", "{{ " + "(" * 5000 + "1" + ")" * 5000 + " }}", "the template nests too deeply"),
    ("undefined", "line one\n{{ nope }}", "'nope' is undefined"),
    ("a megabyte string per item of a map", '{{ range(100000)|map("string")|map("center", 999999)|list }}',
     "the template makes over 16,000,000 characters of text and lists in all"),
    ("a megabyte string per item, joined", '{{ range(100000)|map("string")|map("center", 999999)|join }}',
     "the template makes over 16,000,000 characters of text and lists in all"),
    ("a megabyte string per loop turn", "{% for i in range(100000) %}{% set y = ('x' * 999999) ~ i %}{% endfor %}",
     "the template makes over 16,000,000 characters of text and lists in all"),
    ("a megabyte method result per item", "{% for i in range(100000) %}{% set y = 'x'.ljust(999999) %}{% endfor %}",
     "the template makes over 16,000,000 characters of text and lists in all"),
    ("plain loop", "{% for i in range(3) %}{{ i }}{% endfor %} of {{ params.win_at }}", None),
]


@pytest.mark.parametrize("name, source, message", CASES, ids=[c[0] for c in CASES])
def test_content_template_is_sandboxed_and_budgeted(name, source, message):
    env = sb.environment()
    if message is None:
        assert sb.render_text(env, source, {"params": PARAMS}) == "012 of 1000"
        return
    with pytest.raises(sb.TemplateProblem) as info:
        sb.render_text(env, source, {"params": PARAMS, "cycler": object})
    assert str(info.value).startswith(message), str(info.value)
    assert info.value.line is not None


def test_a_problem_names_its_line():
    with pytest.raises(sb.TemplateProblem) as info:
        sb.render_text(sb.environment(), "one\ntwo\n{{ 'x' * 10**9 }}\n", {}, name="rulebook.md.j2")
    assert info.value.line == 3


def test_params_stay_what_the_bundle_says():
    params = {"win_at": 1000}
    with pytest.raises(sb.TemplateProblem):
        sb.render_text(sb.environment(), "{{ params.update(win_at=60) }}", {"params": params})
    with pytest.raises(sb.TemplateProblem):
        sb.render_text(sb.environment(), "{{ params.__setitem__('win_at', 60) }}", {"params": params})
    assert params == {"win_at": 1000}


def test_card_text_template_error_is_located(built_error):
    built, error = built_error({"cards/cards.yaml": [("text: Worth {{ value }} banked.",
                                                      "text: Worth {{ 'x' * 10**9 }} banked.")]})
    assert built.bundle is None
    assert error == ("cards/cards.yaml:9:11 card text template of `ruby`: the template builds a string "
                     "of over 1,000,000 characters")


def test_card_text_cannot_change_the_rules(built_error):
    built, error = built_error({"cards/cards.yaml": [("text: Worth {{ value }} banked.",
                                                      "text: Worth {{ params.update(win_at=60) }} banked.")]})
    assert error.startswith("cards/cards.yaml:9:11 card text template of `ruby`: not allowed in a content "
                            "template: access to attribute 'update'")


def test_a_multi_line_card_text_points_at_its_line(built_error):
    built, error = built_error({"cards/cards.yaml": [("text: Worth {{ value }} banked.",
                                                      "text: |\n      Worth {{ value }}\n      banked {{ nope }}.")]})
    assert error == "cards/cards.yaml:11:7 card text template of `ruby`: 'nope' is undefined"


LAYOUT = """title: Mini
decks:
  - id: gems
    kinds: [gem]
    corner: "{corner}"
"""


@pytest.mark.parametrize("corner, message", [
    ("{{ cycler.__init__.__globals__.os.popen('id').read() }}",
     "layout.yaml:5:14 layout `corner` template (card `ruby`): not allowed in a content template: "
     "access to attribute '__init__' of 'type' object is unsafe."),
    ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
     "layout.yaml:5:14 layout `corner` template (card `ruby`): the template does too much work (over "
     "1,000,000 steps): a loop too long, or loops nested too deep"),
    ("{{ value", "layout.yaml:5:14 layout `corner` template: unexpected end of template, expected 'end of print statement'."),
])
def test_layout_templates_are_checked_at_build(built_error, corner, message):
    built, error = built_error({}, {"layout.yaml": LAYOUT.replace("{corner}", corner.replace('"', '\\"'))})
    assert built.bundle is None
    assert error == message


def test_a_layout_template_using_a_field_some_cards_lack_is_fine(built_error):
    built, error = built_error({}, {"layout.yaml": LAYOUT.replace("{corner}", "{{ nothing_here }}")})
    assert error is None and built.bundle is not None


def test_rulebook_template_syntax_is_checked_at_build(built_error):
    built, error = built_error({}, {"rulebook.md.j2": "# Mini\n\n{% include 'rulebook.md.j2' %}\n"})
    assert error == "rulebook.md.j2:3:1 rulebook template: `{% include %}` is not available in content " \
                    "templates: write the text here"


def test_check_renders_the_rulebook_template(game_copy, capsys):
    from cardc.cli import main
    folder = game_copy()
    (folder / "rulebook.md.j2").write_text("# Mini\n\nWin at {{ params.win_at }}.\n"
                                           "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}\n")
    assert main(["check", str(folder)]) == 1
    err = capsys.readouterr().err
    assert "mini/rulebook.md.j2:4:1: error: rulebook template: macros call each other over 40 deep" in err


def test_rulebook_render_is_budgeted(mini_bundle_with):
    from cardc.render.rulebook import RulebookError, render_markdown
    bundle = mini_bundle_with("# Mini\n\n{% macro f() %}{{ f() }}{% endmacro %}\n{{ f() }}\n")
    with pytest.raises(RulebookError) as info:
        render_markdown(bundle)
    assert "macros call each other over 40 deep" in str(info.value)
    assert "rulebook.md.j2:3:" in str(info.value)  # the line of the macro body


@pytest.fixture
def mini_bundle_with():
    from tests.conftest import MINI
    from cardc.project import build_folder

    def make(rulebook):
        bundle = dict(build_folder(MINI).bundle)
        bundle["rulebook"] = rulebook
        return bundle
    return make


MEMORY_CASES = [c for c in CASES if c[2] and c[2].startswith("the template makes over")]


@pytest.mark.parametrize("name, source, message", MEMORY_CASES, ids=[c[0] for c in MEMORY_CASES])
def test_what_a_template_makes_is_bounded_in_memory(name, source, message):
    """Refused after making MAX_BUILT characters: Python's peak allocation
    during the render (tracemalloc, not time) stays far under 1 GB."""
    import tracemalloc
    tracemalloc.start()
    try:
        with pytest.raises(sb.TemplateProblem):
            sb.render_text(sb.environment(), source, {})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * sb.MAX_BUILT + 50_000_000 < 1_000_000_000


def test_a_card_text_that_makes_too_much_is_a_located_error(built_error):
    built, error = built_error({"cards/cards.yaml": [
        ("text: Worth {{ value }} banked.",
         "text: Worth {{ range(100000)|map('string')|map('center', 999999)|list|length }} banked.")]})
    assert built.bundle is None
    assert error == ("cards/cards.yaml:9:11 card text template of `ruby`: the template makes over 16,000,000 "
                     "characters of text and lists in all: a long loop or map that builds large strings?")


# ------------------------------------------------------------------ fuzz: random filter chains

_WORDS = st.sampled_from(["'ab'", "'x y\\nz'", "[1, 2, 3]", "range(1000)", "range(100000)", "'-' * 999999",
                          "params", "params.win_at", "999999", "10**6", "'%s'"])
_NUMBERS = st.sampled_from(["2", "100", "999999", "10**9", "-1", "0"])
_FILTERS = st.one_of(
    st.sampled_from(["list", "string", "join", "upper", "reverse", "sort", "unique", "first", "last", "length",
                     "sum", "tojson", "trim", "title", "wordcount", "pprint", "escape", "striptags",
                     "map('string')", "map('upper')", "select", "reject", "batch(3)|list", "slice(3)|list",
                     "dictsort", "items"]),
    _NUMBERS.map(lambda n: f"map('center', {n})"),
    _NUMBERS.map(lambda n: f"center({n})"),
    _NUMBERS.map(lambda n: f"indent({n}, true)"),
    _NUMBERS.map(lambda n: f"truncate({n})"),
    _NUMBERS.map(lambda n: f"wordwrap({n})"),
    _NUMBERS.map(lambda n: f"batch({n})"),
    _NUMBERS.map(lambda n: f"join('-' * {n})"),
    _NUMBERS.map(lambda n: f"replace('a', 'b' * {n})"),
    _NUMBERS.map(lambda n: f"map('replace', '1', 'x' * {n})"),
)


@settings(max_examples=100, deadline=None)
@given(start=_WORDS, chain=st.lists(_FILTERS, min_size=1, max_size=6), loop=st.booleans())
def test_random_filter_chains_render_or_fail_within_their_budgets(start, chain, loop):
    """Any chain of filters, in a loop or not: it renders, or it fails with a
    TemplateProblem naming its line, having made at most MAX_BUILT (plus the
    one value refused) and allocated far under 1 GB."""
    import tracemalloc
    expr = "(" + start + ")|" + "|".join(chain)
    source = ("line one\n{% for i in range(300) %}{% set y = " + expr + " %}{% endfor %}" if loop
              else "line one\n{{ " + expr + " }}")
    tracemalloc.start()
    try:
        try:
            sb.render_text(sb.environment(), source, {"params": PARAMS})
        except sb.TemplateProblem as exc:
            assert exc.line in (None, 1, 2)
            assert str(exc)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * sb.MAX_BUILT + 4 * sb.MAX_STRING + 50_000_000
