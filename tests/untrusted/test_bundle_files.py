"""A bundle read from a file is refused, naming the file and the field,
when it is not what `cardc build` writes; nothing in it runs first."""
from __future__ import annotations

import copy
import json

import pytest

from cardc.ir.schema import BundleInvalid, check_bundle, read_bundle
from cardc.cli import main
from cardc.project import build_folder
from tests.conftest import MINI


@pytest.fixture(scope="module")
def bundle():
    return build_folder(MINI).bundle


def _first(tree, kind):
    """The path of the first list node of `kind` in `tree`."""
    stack = [((), tree)]
    while stack:
        path, node = stack.pop(0)
        if isinstance(node, list) and node[:1] == [kind]:
            return path
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        stack.extend((path + (k,), v) for k, v in items)
    raise AssertionError(kind)


def _mutate(bundle, kind, change):
    b = copy.deepcopy(bundle)
    b["code"]["score"] = ["bin", "+", b["code"]["score"], ["lit", 0]]    # the mini game has no `bin`
    path = _first(b["code"], kind)
    holder = b["code"]
    for p in path[:-1]:
        holder = holder[p]
    holder[path[-1]] = change(holder[path[-1]])
    return b


PAYLOAD = "__import__('pathlib').Path('PWNED').touch() or 0"

CASES = [  # name, node kind, change, expected message (after the file name)
    ("operator of bin", "bin", lambda n: ["bin", f"- ({PAYLOAD}) -", *n[2:]], "is not one of ['+', '-', '*', '/', '%']"),
    ("operator of cmp", "cmp", lambda n: ["cmp", f"== ({PAYLOAD}) ==", *n[2:]], "is not one of ['==', '!=', '<',"),
    ("jump target as code", "jump", lambda n: ["jump", f"0 if {PAYLOAD} else 0"], "is not of type 'integer'"),
    ("jump target out of range", "jump", lambda n: ["jump", 9999], "jumps to op 9999, outside its block"),
    ("unknown op", "shuffle", lambda n: ["exec", *n[1:]], "'exec' is not one of"),
    ("a name as code", "var", lambda n: ["var", f"x) or ({PAYLOAD}"], "does not match"),
    ("an unknown builtin", "call", lambda n: ["call", "eval", *n[2:]], "'eval' is not one of"),
    ("an undeclared zone", "zone", lambda n: ["zone", "nowhere"], "names the shared zone `nowhere`, which the bundle does not declare"),
    ("an undeclared procedure", "call", lambda n: n, None),
]


@pytest.mark.parametrize("name, kind, change, message", [c for c in CASES if c[3]], ids=[c[0] for c in CASES if c[3]])
def test_a_tampered_bundle_is_refused_naming_the_field(bundle, name, kind, change, message):
    with pytest.raises(BundleInvalid) as info:
        check_bundle(_mutate(bundle, kind, change), "x.json")
    text = str(info.value)
    assert text.startswith("x.json: `code."), text
    assert message in text, text


def test_play_refuses_a_tampered_bundle_file(bundle, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(_mutate(bundle, "bin", lambda n: ["bin", f"- ({PAYLOAD}) -", *n[2:]])))
    assert main(["play", str(path), "--players", "2", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cardc: refusing the bundle {path}: `code.") and "is not one of" in err
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize("content, message", [
    (b"\x89PNG\r\n\x1a\n\x00\x00", "not a bundle (not UTF-8 text: a binary file?)"),
    (b'{"format": 1, "game": ', "not valid JSON"),
    (b"[1, 2]", "not a bundle (a JSON object written by `cardc build`)"),
    (b'{"format": 99}', "`format` is 99; this cardc reads bundle format 1"),
    (b"[" * 100000 + b"]" * 100000, "not a bundle (JSON nested too deep)"),
])
def test_a_bundle_file_that_is_no_bundle(tmp_path, content, message):
    path = tmp_path / "b.json"
    path.write_bytes(content)
    with pytest.raises(BundleInvalid) as info:
        read_bundle(path)
    assert str(info.value).startswith(str(path)) and message in str(info.value)


def test_the_shipped_bundles_pass():
    from tests.conftest import REPO
    for name in ("unicorn", "startup", "ipo"):
        read_bundle(REPO / "generated" / f"{name}.json")


def test_the_schema_knows_every_builtin():
    """The schema's closed set of builtins is the engine's: a builtin added to
    one and not the other fails here, not in a designer's hands."""
    from cardc.ir.schema import _validator
    from cardc.engine.builtins import IMPL
    names = _validator().schema["$defs"]["expr_call"]["prefixItems"][1]["enum"]
    assert sorted(names) == sorted(IMPL)
