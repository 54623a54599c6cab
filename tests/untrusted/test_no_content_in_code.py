"""No string from content or a bundle is ever part of generated source, not
even a comment or a string literal (the untrusted-input issue, third round;
the engine-core issue's "no content string can ever be code").

The engine compiles a bundle to Python source (cardc/engine/pygen.py,
blocks.py).  A block's ops are marked `# op N kind` only; where op N was
written lives in a side table (`Code.where`).  A text is written as the name
of a constant (`_s3`, `PyGen.lit`) that `lower` replaces by the text on the
syntax tree.  These tests check that by construction: the shipped games'
generated source has no string literal at all and only the generator's own
comments, and a marker planted in any string of a bundle, or in a content
file's name, appears nowhere in generated source.
"""
from __future__ import annotations

import copy
import io
import re
import tokenize

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cardc.ir.schema import BundleInvalid, check_bundle
from cardc.engine import Game
from cardc.engine.blocks import OPS
from cardc.engine.errors import BadBundle
from cardc.project import build_folder, load_bundle
from tests.conftest import MINI

MARK = "ZQXPWN"
# each would run code if it reached the source as text: in a comment (a line
# break starts a statement), in a string literal (a quote ends it), or as a name
PAYLOADS = [
    f"x\nopen('{MARK}', 'w')  #",
    f"x\n    raise SystemExit('{MARK}')\n#",
    f"{MARK}' + open('{MARK}', 'w') + '",
    f'{MARK}" + open("{MARK}", "w") + "',
    f"{MARK}\u2028open('{MARK}')",
    f"{MARK}\\\nopen('{MARK}')",
    f"{MARK}}}{{open('{MARK}')}}",
]

GENERATOR_COMMENTS = {
    "# a block", "# a block, run without a frame: it cannot stop",
    "# a block, started without a frame: it makes one where it stops",
    "# a function", "# a modifier", "# a modifier, by the cards in force that have it",
    "# an argument that is a list: not kept, computed",
}
_OP_COMMENT = re.compile(r"# op [0-9]+ (?:%s|if|\(a straight loop\))" % "|".join(sorted(OPS)))


def comments(game):
    for _, source in game.pygen.sources:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                yield tok.string


def marked(game) -> list[str]:
    """Generated lines where MARK stands (none: a text is never in the source)."""
    return [line for _, source in game.pygen.sources for line in source.splitlines() if MARK in line]


def string_literals(game):
    for _, source in game.pygen.sources:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.STRING:
                yield tok.string


@pytest.mark.parametrize("name", ["unicorn", "startup", "ipo"])
def test_every_comment_in_generated_code_is_the_generators_own(name):
    game = Game(load_bundle(name))
    found = set(comments(game))
    assert found, "the generated code has its `# op N` marks"
    strange = sorted(c for c in found if c not in GENERATOR_COMMENTS and not _OP_COMMENT.fullmatch(c))
    assert strange == []


@pytest.mark.parametrize("name", ["unicorn", "startup", "ipo"])
def test_generated_source_has_no_string_literal(name):
    """Every text (a counter's name, a log line, the engine's own messages)
    is a constant put on the syntax tree, so none is in the source."""
    game = Game(load_bundle(name))
    assert list(string_literals(game)) == []
    assert game.pygen.text_values, "its texts are constants"
    source = "".join(s for _, s in game.pygen.sources)
    assert sorted(game.pygen.text_values)[0] in source


# ------------------------------------------------------------------ bundles

@pytest.fixture(scope="module")
def mini_bundle():
    return build_folder(MINI).bundle


def _string_paths(node, path=()):
    if isinstance(node, str):
        yield path
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from _string_paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _string_paths(v, path + (i,))


MINI_PATHS = list(_string_paths(build_folder(MINI).bundle))


def _planted(bundle, path, payload):
    b = copy.deepcopy(bundle)
    holder = b
    for p in path[:-1]:
        holder = holder[p]
    holder[path[-1]] = payload
    return b


def load_planted(bundle, path, payload, tmp_path):
    """Check and load a bundle with `payload` at `path`, as `play x.json`
    does; None when it is refused with a message naming the field."""
    b = _planted(bundle, path, payload)
    try:
        check_bundle(b, "x.json")
    except BundleInvalid as exc:
        assert str(exc).startswith("x.json: `") and "\n" not in str(exc).split(":", 2)[1][:80]
        return None
    try:
        game = Game(b)
    except BadBundle as exc:            # what the schema cannot see, refused while building
        assert str(exc)
        return None
    return game


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.sampled_from(MINI_PATHS), payload=st.sampled_from(PAYLOADS))
@example(where=("code", "proc:draw", "label"), payload=PAYLOADS[0])
@example(where=("code", "proc:draw", "file"), payload=PAYLOADS[1])
@example(where=("cards", 0, "name"), payload=PAYLOADS[0])
def test_a_string_planted_anywhere_in_a_bundle_never_becomes_code(mini_bundle, where, payload, tmp_path,
                                                                 monkeypatch):
    monkeypatch.chdir(tmp_path)
    game = load_planted(mini_bundle, where, payload, tmp_path)
    if game is not None:
        assert marked(game) == []
        state = game.new_state(2, seed=1)
        for _ in range(40):                 # and playing it runs nothing planted
            if state.is_terminal():
                break
            state.apply(0)
    assert not (tmp_path / MARK).exists()


@pytest.mark.slow
@pytest.mark.parametrize("payload", PAYLOADS)
def test_every_string_of_a_bundle_with_every_payload(mini_bundle, payload, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for where in MINI_PATHS:
        game = load_planted(mini_bundle, where, payload, tmp_path)
        if game is not None:
            assert marked(game) == [], where
    assert not (tmp_path / MARK).exists()


def test_a_block_label_or_file_with_a_line_break_is_refused_naming_the_field(mini_bundle):
    for key in ("label", "file"):
        b = _planted(mini_bundle, ("code", "proc:draw", key), PAYLOADS[0])
        with pytest.raises(BundleInvalid) as info:
            check_bundle(b, "x.json")
        assert str(info.value) == (f"x.json: `code.proc:draw.{key}`: {PAYLOADS[0]!r} holds a line break, a "
                                   "control character or a backslash; labels and file names in a bundle are one "
                                   "line of plain text")


def test_a_name_with_a_trailing_line_break_is_not_a_name(mini_bundle):
    """A schema's `$` is the end of the text (Python's `$` matches before a final line break)."""
    b = copy.deepcopy(mini_bundle)
    b["zones"][0]["id"] += "\n"
    with pytest.raises(BundleInvalid) as info:
        check_bundle(b, "x.json")
    assert str(info.value).startswith("x.json: `zones[0].id`: ")


# ------------------------------------------------------------------ content file names

@pytest.mark.parametrize("name, what", [
    ("gems\nimport os.yaml", "a line break"),
    ("gems\rx.yaml", "a carriage return"),
    ("gems\\x.yaml", "a backslash (a path separator on Windows)"),
    ("gems\x1bx.yaml", "the control character U+001B"),
    ("gems\u2028x.yaml", "a line separator"),
])
def test_a_card_file_name_that_could_break_a_line_is_a_located_error(game_copy, name, what, capsys):
    from cardc.cli import main
    folder = game_copy()
    (folder / "cards" / name).write_text((folder / "cards" / "cards.yaml").read_text())
    assert main(["check", str(folder)]) == 1
    err = capsys.readouterr().err
    assert f"cards: error: the file name {name!r} holds {what}; it was not read" in err
    assert "Traceback" not in err


def test_a_game_folder_named_with_a_line_break_is_a_located_error(tmp_path, capsys):
    from cardc.cli import main
    from tests.conftest import copy_game
    folder = copy_game(MINI, tmp_path / "mini\nimport os")
    assert main(["check", str(folder)]) == 1
    err = capsys.readouterr().err
    assert "error: the folder name 'mini\\nimport os' holds a line break; it was not read" in err


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.text(st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)),
                    min_size=1, max_size=12))
def test_random_card_file_names_build_or_fail_located(game_copy, name):
    """The card file renamed to any name a file system allows: the game builds (the name stays data)
    or `check` says which name it refused; nothing of it becomes code."""
    folder = game_copy()
    path = folder / "cards" / f"{name}.yaml"
    try:
        (folder / "cards" / "cards.yaml").rename(path)
    except (OSError, ValueError):
        return                                  # a name this file system refuses (too long)
    built = build_folder(folder)
    plain = not any(ch in name for ch in "\\\u2028\u2029") and all(ord(ch) >= 32 and not 127 <= ord(ch) < 160
                                                                   for ch in name)
    if built.bundle is None:
        errors = [d for d in built.diags.errors]
        assert not plain, [d.message for d in errors]     # only a name with a line breaker fails
        assert errors and all(d.loc is not None and "\n" not in d.message for d in errors)
        return
    assert plain
    game = Game(built.bundle)
    assert not any(name in c for c in comments(game) if len(name) > 3)
