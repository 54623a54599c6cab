"""The IR's node kinds are declared once (cardc/ir/nodes.py): the bundle
schema's shape of every op and expression is made from them, and every op
and expression of the shipped bundles reads into a typed node and back."""
from __future__ import annotations

import json

import pytest

from cardc.ir import jsonform, nodes
from cardc.ir.schema import schema_defs
from cardc.load.paths import GRAMMAR
from cardc.project import load_bundle


def _blocks(bundle):
    code = bundle["code"]
    for key, value in code.items():
        if isinstance(value, dict) and "ops" in value:
            yield key, value
    for card in bundle["cards"]:
        for key in ("effect",):
            if card.get(key):
                yield f"{card['id']}:{key}", card[key]
        if (card.get("reaction") or {}).get("effect"):
            yield f"{card['id']}:reaction", card["reaction"]["effect"]
        for event, block in card["hooks"].items():
            yield f"{card['id']}:hook:{event}", block


def _exprs(bundle):
    for key, value in bundle["code"].items():
        if isinstance(value, dict) and "expr" in value:
            yield key, value["expr"]
    for card in bundle["cards"]:
        for m, e in card["modifiers"].items():
            yield f"{card['id']}:{m}", e


@pytest.mark.parametrize("name", ["unicorn", "startup", "ipo"])
def test_every_op_and_expression_of_a_shipped_bundle_reads_into_typed_nodes_and_back(name):
    bundle = load_bundle(name)
    ops = 0
    for key, block in _blocks(bundle):
        for op in block["ops"]:
            node = nodes.parse(op, op=True)
            assert node.op and node.kind == op[0]
            assert nodes.dump(node) == op, key
            ops += 1
    for key, e in _exprs(bundle):
        assert nodes.dump(nodes.parse(e)) == e, key
    assert ops > 150


def test_a_node_names_its_fields():
    node = nodes.parse(["choose", "victim", ["players"], "p", None, ["var", "me"], False, None, "player"], op=True)
    assert (node.var, node.cvar, node.optional, node.type) == ("victim", "p", False, "player")
    assert node.items == nodes.EXPRS_["players"].cls() and node.player.name == "me"


def _without_descriptions(x):
    if isinstance(x, dict):
        return {k: _without_descriptions(v) for k, v in x.items() if k != "description"}
    if isinstance(x, list):
        return [_without_descriptions(v) for v in x]
    return x


def test_the_bundle_schema_file_says_what_the_declarations_say():
    """grammar/bundle.schema.json is read by people; the validator uses the
    shapes made from the declarations. They must agree (the file is made
    anew by `python -m cardc.ir.schema --write`)."""
    from cardc.ir.schema import bundle_schema
    from cardc.ir.builtins import CALLABLE
    on_disk = json.loads((GRAMMAR / "bundle.schema.json").read_text())["$defs"]
    made = bundle_schema()["$defs"]
    for key in schema_defs(CALLABLE):
        old = dict(on_disk[key])
        if key == "expr_call":        # the file lists no builtins: they are filled in from the registry
            old["prefixItems"] = [*old["prefixItems"][:1], {"enum": sorted(CALLABLE)}, *old["prefixItems"][2:]]
        assert _without_descriptions(old) == _without_descriptions(made[key]), key


def test_walk_visits_every_node_in_order():
    e = nodes.parse(["bin", "+", ["pctr", "money", ["var", "me"]], ["call", "abs", [["lit", -3]], {}]])
    assert [n.kind for n in nodes.walk(e)] == ["bin", "pctr", "var", "call", "lit"]
    menu = nodes.parse(["menu", ["var", "me"], None, [["for", "c", ["pzone", "hand", ["var", "me"]], [
        ["opt", ["str", ["Play ", ["fmt", ["field", "name", ["var", "c"]], "str"]]], None, None, 3]]]], 9], op=True)
    assert [n.kind for n in nodes.walk(menu)] == ["menu", "var", "pzone", "var", "str", "field", "var"]


def test_the_generator_runs_every_kind_declared_and_no_other():
    """Each declared op has its writer in BlockGen (`_<kind>`), each declared
    expression its writer in PyGen (`e_<kind>`)."""
    from cardc.engine.blocks import OPS, BlockGen
    from cardc.engine.pygen import PyGen
    assert OPS == set(nodes.OPS)
    assert all(callable(getattr(BlockGen, "_" + k, None)) for k in nodes.OPS)
    assert {k[2:] for k in dir(PyGen) if k.startswith("e_")} == set(nodes.EXPRS_)


def test_the_json_walk_visits_what_the_typed_walk_visits():
    """The engine walks the bundle's lists as they are; by the same
    declarations, so in the same order, on every shipped block and function."""
    for name in ("unicorn", "startup", "ipo"):
        bundle = load_bundle(name)
        for key, block in _blocks(bundle):
            for op in block["ops"]:
                assert [e[0] for e in jsonform.json_walk(op, op=True)] == \
                    [n.kind for n in nodes.walk(nodes.parse(op, op=True))], key
        for key, e in _exprs(bundle):
            assert [x[0] for x in jsonform.json_walk(e)] == [n.kind for n in nodes.walk(nodes.parse(e))], key


# a literal list of two words that looks like a read: an enumeration
# `flavour: [var, p]` is the literal ["lit", ["var", "p"]]
ENUM = ["lit", ["var", "p"]]


def test_a_literal_is_a_value_never_an_expression_to_walk():
    e = ["call", "index_of", [ENUM, ["var", "p"]], {}]
    assert [x[0] for x in jsonform.json_walk(e)] == ["call", "lit", "var"]
    assert nodes.dump(nodes.transform(nodes.parse(e), lambda x: nodes.Lit(1) if x == nodes.Var("p") else x)) == \
        ["call", "index_of", [ENUM, ["lit", 1]], {}]


def test_substituting_replaces_a_parameter_and_leaves_a_literal_alone():
    """nodes.substitute writes a small function's body in place (PyGen.e_fn)
    and fixes a modifier's argument (specialize.py); a literal that reads
    like the parameter keeps its value."""
    from cardc.engine.pygen import _reads_var
    body = ["if", ["cmp", "==", ["var", "p"], ["lit", 2]], ENUM, ["list", [["var", "p"]]]]
    gold = ["pctr", "gold", ["var", "me"]]
    assert nodes.dump(nodes.substitute(nodes.parse(body), {"p": nodes.parse(gold)})) == \
        ["if", ["cmp", "==", gold, ["lit", 2]], ENUM, ["list", [gold]]]
    assert not _reads_var(nodes.parse(["call", "index_of", [ENUM, ["var", "c"]], {}]), "p")
    assert _reads_var(nodes.parse(["call", "index_of", [ENUM, ["var", "p"]], {}]), "p")


@pytest.mark.parametrize("name", ["unicorn", "startup", "ipo"])
def test_a_bundle_code_parsed_is_what_its_json_walk_visits(name):
    code = load_bundle(name)["code"]
    assert [n.kind for root in nodes.code_nodes(code) for n in nodes.walk(root)] == \
        [e[0] for e in jsonform.code_expressions(code)]

def test_every_expression_of_a_bundle_code_is_walked():
    code = load_bundle("unicorn")["code"]
    kinds = {e[0] for e in jsonform.code_expressions(code)}
    assert {"fn", "call", "comp", "cmp"} <= kinds       # bodies, ops, eval, constraints
    fns = {e[1] for e in jsonform.code_expressions(code) if e[0] == "fn"}
    assert "valuation" in fns                           # from `score` and the invariants


def test_every_expression_of_a_compiled_card_is_walked():
    """Every block and test a card holds, as the compiler's unused-rule
    warnings need them: effect, reaction, hooks, modifiers, requires."""
    card = {"effect": {"ops": [["call", "gain", [["var", "me"]]]]},
            "reaction": {"to": "attack", "if": ["fn", "blocks", [["var", "me"]]],
                         "effect": {"ops": [["log", ["fn", "told", []]]]}},
            "hooks": {"end_of_turn": {"ops": [["call", "tidy", []]]}},
            "modifiers": {"cost": ["fn", "discount", [["var", "value"]]]},
            "requires": ["fn", "ready", [["var", "me"]]]}
    named = [e[1] for e in jsonform.card_expressions(card) if e[0] in ("call", "fn")]
    assert named == ["gain", "blocks", "told", "tidy", "discount", "ready"]


def test_the_analyses_read_a_literal_as_a_value():
    """A literal that reads like an expression (an enumeration's members
    `[var, p]`, `[zone, deck]`, `[fn, f]`) is read by no analysis: not as a
    local the compiler's inlining must keep (`_free_vars`), a part a cached
    function depends on (`expr_deps`), or a use of a function (the unused
    warnings)."""
    from cardc.compiler.build import _referenced
    from cardc.compiler.exprs import _free_vars
    from cardc.engine.deps import expr_deps
    e = ["call", "index_of", [ENUM, ["var", "c"]], {}]
    assert _free_vars(e) == {"c"}
    assert _free_vars(["comp", ["var", "p"], "p", ["players"], ENUM]) == set()
    out: set = set()
    expr_deps(nodes.parse(["if", ["lit", ["zone", "deck"]], ["gctr", "round"], ["lit", ["call", "roll"]]]), {}, {}, out)
    assert out == {"g:round"}
    procs: set = set()
    fns: set = set()
    _referenced(jsonform.json_walk(["list", [["lit", ["fn", "f"]], ["fn", "g", []]]]), procs, fns)
    assert fns == {"g"}
