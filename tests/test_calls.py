"""The content's one call graph (cardc/ir/calls.py): which calls are made on
every path (the compiler's check of calls that never end follows those),
and which functions are random or recursive (the engine's caching and step
budget follow those)."""
from __future__ import annotations

from cardc.ir.calls import block_calls, call_graph, expr_calls, impure_functions, recursive_functions
from cardc.load.diagnostics import Loc


def fn(name, *args):
    return ["fn", name, list(args)]


def targets(calls, always=None):
    return [c.target for c in calls if always is None or c.always == always]


def test_a_call_under_a_condition_is_not_made_on_every_path():
    body = ["if", fn("test"), fn("then"), fn("otherwise")]
    assert targets(expr_calls(body), always=True) == ["fn:test"]
    assert sorted(targets(expr_calls(body), always=False)) == ["fn:otherwise", "fn:then"]


def test_only_the_first_operand_of_and_is_always_evaluated():
    body = ["and", [fn("first"), fn("second")]]
    assert targets(expr_calls(body), always=True) == ["fn:first"]
    assert targets(expr_calls(body), always=False) == ["fn:second"]


def test_a_comprehension_always_reads_its_list_not_its_item_or_test():
    body = ["comp", fn("item"), "x", fn("items"), fn("test")]
    assert targets(expr_calls(body), always=True) == ["fn:items"]


def test_a_literal_that_looks_like_a_call_is_data():
    assert expr_calls(["lit", ["fn", "f", []]]) == []
    assert impure_functions({"fn:f": {"expr": ["lit", ["call", "shuffled_order", [], {}]]}}) == set()


def test_a_block_always_makes_the_calls_before_its_first_branch_following_jumps():
    code = {"file": "rules.yaml", "src": [[1, 1], [2, 1], [3, 1], [4, 1], [5, 1]],
            "ops": [["jump", 2], ["call", "skipped", []], ["trigger", "scored", {}],
                    ["jf", ["lit", True], 5], ["call", "maybe", []]]}
    calls = block_calls(code)
    assert [(c.target, c.always) for c in calls] == [
        ("event:scored", True), ("proc:skipped", False), ("proc:maybe", False)]
    assert calls[0].loc == Loc("rules.yaml", 3, 1)


def test_an_event_always_runs_every_hook_of_it():
    hook = {"file": "rules.yaml", "src": [], "ops": []}
    card_hook = {"file": "cards.yaml", "src": [], "ops": []}
    graph = call_graph({"hook:scored": hook}, [{"id": "bonus", "hooks": {"scored": card_hook}}])
    assert [(c.target, c.always) for c in graph["event:scored"]] == [
        ("hook:scored", True), ("card:bonus:scored", True)]


def test_a_function_that_calls_a_random_one_even_in_an_argument_is_random_too():
    code = {"fn:draw": {"expr": ["call", "count", [["call", "shuffled_order", [["players"]], {}]], {}]},
            "fn:uses_draw": {"expr": ["if", ["lit", True], ["lit", 0], fn("draw")]},
            "fn:plain": {"expr": ["lit", 1]}}
    assert impure_functions(code) == {"draw", "uses_draw"}


def test_functions_that_call_each_other_under_a_condition_are_recursive():
    code = {"fn:even": {"expr": ["if", ["var", "n"], fn("odd", ["var", "n"]), ["lit", True]]},
            "fn:odd": {"expr": ["if", ["var", "n"], fn("even", ["var", "n"]), ["lit", False]]},
            "fn:caller": {"expr": fn("even", ["lit", 3])}}
    assert recursive_functions(code) == {"even", "odd"}
