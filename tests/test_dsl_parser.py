"""The effect language's parser: what it accepts, where it reports errors,
and that no text makes it crash."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from cardc.dsl import nodes as n
from cardc.dsl.parser import DslError, parse_block, parse_expr


def test_statements_parse_into_typed_nodes():
    block = parse_block(
        'let v = choose p in rivals(me) where count(p.hand) > 0 by me prompt "Target"\n'
        "me.money += 3\n"
        "move top(draw) to me.hand bottom\n"
        "if v != none and not me.plays > 0:\n"
        "  log \"{me} robs {v}\"\n"
        "else: return\n")
    assert [type(s) for s in block] == [n.Let, n.Assign, n.Move, n.If]
    choose = block[0].value
    assert isinstance(choose, n.Choose) and choose.var == "p" and choose.prompt.parts == ["Target"]
    assert block[2].place == "bottom"
    log = block[3].branches[0][1][0]
    assert isinstance(log.message.parts[0], n.Name) and log.message.parts[1] == " robs "


def test_menu_with_generated_options_and_reasons():
    block = parse_block(
        "choose by me prompt \"Card play\":\n"
        "  for c in me.hand:\n"
        "    option \"Bank {c.name}\":\n"
        "      move c to me.bank\n"
        "    option \"Play {c.name}\" if playable(c) else \"no legal target\":\n"
        "      resolve c\n"
        "  option \"End turn\":\n"
        "    return\n")
    menu = block[0]
    assert isinstance(menu, n.Menu)
    loop, end = menu.items
    assert isinstance(loop, n.MenuFor) and isinstance(end, n.MenuOption)
    assert loop.items[1].reason.parts == ["no legal target"]


def test_precedence_and_comprehension():
    e = parse_expr("max(0, a + sum([c.value for c in p.bank if c.value > 0]) - 75 * count(p.crises))")
    assert isinstance(e, n.Call) and e.name == "max"
    minus = e.args[1]
    assert minus.op == "-" and minus.right.op == "*"
    comp = minus.left.right.args[0]
    assert isinstance(comp, n.ListComp) and comp.var == "c" and comp.cond is not None


def test_window_and_keyword_names_as_functions():
    block = parse_block("let w = window attack for [t, t.partner] with attacker=me, card=c\n"
                        "let x = top(draw)\n")
    assert isinstance(block[0].value, n.Window) and set(block[0].value.fields) == {"attacker", "card"}
    assert isinstance(block[1].value, n.Call) and block[1].value.name == "top"


@pytest.mark.parametrize("text, offset, message", [
    ("let x = \n", 7, "unexpected end of line"),
    ("move x\n", 6, "unexpected end of line; expected `to`"),
    ("let = 3\n", 4, "unexpected `=`"),
    ("x = $\n", 4, "unexpected character `$`"),
    ('log "a {b"\n', 7, "`{` without a closing `}` in a string"),
    ("if x:\n    a()\n  b()\n", 16, "inconsistent indentation"),
    ("foo(1,\n", 6, "the text ends too early"),
])
def test_syntax_errors_carry_offsets(text, offset, message):
    with pytest.raises(DslError) as err:
        parse_block(text)
    assert err.value.offset == offset
    assert err.value.message.startswith(message)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(list("abc xyz()[]{}.,:=+-*/<>!\"#\n  _019") +
                                ["let ", "if ", "for ", "in ", "move ", "to ", "choose ",
                                 "option ", "window ", "else", "not ", "and "]),
                max_size=40).map("".join))
def test_parser_never_crashes(text):
    """Any text either parses or raises a located DslError, never anything else."""
    try:
        parse_block(text)
    except DslError as exc:
        assert 0 <= exc.offset <= len(text) + 1


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(max_size=40))
def test_expression_parser_never_crashes_on_any_unicode(text):
    try:
        parse_expr(text)
    except DslError as exc:
        assert 0 <= exc.offset <= len(text) + 1
