"""Untrusted content at run time: bounded work, a closed code generator,
seeds, and simulation evaluating what play evaluates (issue 11, engine side).
Each runaway case ends in an EngineFault located at its statement."""
from __future__ import annotations

import copy
import random
import re

import pytest

from cardc.engine import BadBundle, EngineFault, Game
from cardc.project import build_folder

TURN = "    draw(me, 1)\n"
LOC = re.compile(r"[\w.]+\.yaml:\d+:\d+")


def at_line(text, file, line):
    """Is the fault located at `file`:`line` (any column)?"""
    return re.search(rf"{re.escape(file)}:{line}:\d+", text) is not None


def game_with(game_copy, turn_extra="", rules_extra="", limits="limits: {steps: 20000, depth: 50}\n"):
    edits = {"game.yaml": [(TURN, TURN + turn_extra), ("players: {min: 2, max: 3}\n",
                                                       "players: {min: 2, max: 3}\n" + limits)]}
    if rules_extra:
        edits["rules.yaml"] = [("procs:\n", rules_extra + "procs:\n")]
    built = build_folder(game_copy(edits=edits))
    assert built.bundle, built.diags.render()
    return Game(built.bundle)


def fault_of(game):
    with pytest.raises(EngineFault) as err:
        st = game.new_state(2, seed=1)
        rnd = random.Random(1)
        for _ in range(200):
            st.apply(rnd.randrange(len(st.legal_actions())))
    return str(err.value)


def test_a_loop_that_runs_too_long_stops_at_the_step_budget(game_copy):
    game = game_with(game_copy, "    repeat count(draw) * 1000000000:\n      me.plays = 1\n")
    text = fault_of(game)
    assert at_line(text, "game.yaml", 31) and "more than 20,000 steps" in text and "limits: steps" in text


def test_procedures_calling_each_other_stop_at_the_depth_limit(game_copy):
    spin = "  spin:\n    params: {p: player}\n    do: |\n      if count(draw) >= 0:\n        spin(p)\n"
    built = build_folder(game_copy(edits={
        "game.yaml": [(TURN, TURN + "    spin(me)\n"),
                      ("players: {min: 2, max: 3}\n", "players: {min: 2, max: 3}\nlimits: {depth: 50}\n")],
        "rules.yaml": [("procs:\n", "procs:\n" + spin)]}))
    assert built.bundle, built.diags.render()
    text = fault_of(Game(built.bundle))
    assert "more than 50 deep" in text and "in procedure `spin`" in text and LOC.search(text)


def test_numbers_that_grow_without_end_stop_at_the_digits_limit(game_copy):
    game = game_with(game_copy, "    me.plays = 2\n    repeat 20:\n      me.plays = me.plays * me.plays\n")
    text = fault_of(game)
    assert "more than 30 digits" in text and at_line(text, "game.yaml", 33)


def test_a_product_growing_through_calls_stops_at_the_digits_limit(game_copy):
    """Nothing is kept between the steps of `grow(n * n)` or `spin(p * p)`,
    so the checks where numbers are kept never ran: the number squared its
    digits at each call and the game hung.  The product is checked where it
    is made (pygen.digits_guard)."""
    built = build_folder(game_copy(edits={
        "game.yaml": [(TURN, TURN + "    me.plays = grow(2)\n")],
        "rules.yaml": [("functions:\n", "functions:\n  grow:\n    params: {n: int}\n    returns: int\n"
                                        "    expr: grow(n * n) if n >= 0 else 0\n")]}))
    assert built.bundle, built.diags.render()
    text = fault_of(Game(built.bundle))
    assert "more than 30 digits" in text and at_line(text, "game.yaml", 30)
    spin = "  spin:\n    params: {p: int}\n    do: |\n      if p >= 0:\n        spin(p * p)\n"
    built = build_folder(game_copy(edits={
        "game.yaml": [(TURN, TURN + "    spin(2)\n")],
        "rules.yaml": [("procs:\n", "procs:\n" + spin)]}))
    assert built.bundle, built.diags.render()
    text = fault_of(Game(built.bundle))
    assert "more than 30 digits" in text and "in procedure `spin`" in text and LOC.search(text)


def test_a_counter_added_to_past_the_digits_limit_is_a_located_fault(game_copy):
    """`x += 1` with a literal is checked by its range alone (blocks.py):
    one more than the largest number allowed still stops, at that line."""
    game = game_with(game_copy, "    me.plays = 999999999999999999999999999999\n    me.plays += 1\n")
    text = fault_of(game)
    assert "more than 30 digits" in text and at_line(text, "game.yaml", 32)
    game = game_with(game_copy, "    me.plays = -999999999999999999999999999999\n    me.plays -= 2\n")
    assert "more than 30 digits" in fault_of(game)


def test_a_function_that_needs_its_own_value_is_a_located_fault(game_copy):
    built = build_folder(game_copy(edits={
        "game.yaml": [(TURN, TURN + "    me.plays = deep(1)\n")],
        "rules.yaml": [("functions:\n", "functions:\n  deep:\n    params: {n: int}\n    returns: int\n"
                                        "    expr: deep(n + 1) if n >= 0 else 0\n")]}))
    assert built.bundle, built.diags.render()
    text = fault_of(Game(built.bundle))
    assert at_line(text, "game.yaml", 30) and ("steps" in text or "too deeply" in text)


def test_budgets_are_raisable_only_up_to_their_ceiling(game_copy, mini_game):
    built = build_folder(game_copy(edits={"game.yaml": [
        ("players: {min: 2, max: 3}\n", "players: {min: 2, max: 3}\nlimits: {steps: 99999999999}\n")]}))
    assert built.bundle is None and "limits" in built.diags.render()
    bundle = copy.deepcopy(mini_game.bundle)
    bundle["limits"] = {"depth": 10 ** 9}
    with pytest.raises(BadBundle, match="limits.depth"):
        Game(bundle)


def _first_bin(ir):
    if isinstance(ir, list):
        if len(ir) == 4 and ir[0] == "cmp":
            return ir
        for part in ir:
            found = _first_bin(part)
            if found:
                return found
    elif isinstance(ir, dict):
        for part in ir.values():
            found = _first_bin(part)
            if found:
                return found
    return None


@pytest.mark.parametrize("field, bad", [
    ("operator", "- (__import__('os').system('echo pwned') or 0) -"),
    ("op", "__import__"),
    ("jump", 10 ** 6),
])
def test_a_tampered_bundle_is_refused_before_anything_runs(mini_game, field, bad):
    bundle = copy.deepcopy(mini_game.bundle)
    if field == "operator":
        _first_bin(bundle["code"])[1] = bad
        match = "unknown comparison"
    else:
        ops = bundle["code"]["proc:draw"]["ops"]
        if field == "op":
            ops[0] = [bad]
            match = "unknown op"
        else:
            jump = next(o for o in ops if o[0] == "jf")
            jump[2] = bad
            match = r"code\['proc:draw'\].ops\[\d+\]\[2\]: jump target"
    with pytest.raises(BadBundle, match=match):
        Game(bundle)


def test_generated_code_runs_without_the_builtins_it_does_not_need(mini_game):
    builtins = mini_game.pygen.ns["__builtins__"]
    for name in ("__import__", "open", "eval", "exec", "getattr", "setattr", "compile", "globals"):
        assert name not in builtins


def test_long_flat_chains_never_reach_pythons_parser_limits(mini_game):
    total = ["lit", 1]
    for _ in range(2999):
        total = ["bin", "+", total, ["lit", 1]]
    either = ["or", [["cmp", "==", ["lit", k], ["lit", -1]] for k in range(3000)]]
    assert mini_game.pygen.build(total)(None, {}) == 3000
    assert mini_game.pygen.build(either)(None, {}) is False


def test_seeds_outside_0_to_2_64_are_refused(mini_game):
    mini_game.new_state(2, seed=2 ** 64 - 1)
    for bad in (-1, 2 ** 64, 1.5, "3"):
        with pytest.raises(ValueError, match="seed"):
            mini_game.new_state(2, seed=bad)


def test_simulate_evaluates_the_log_text_play_evaluates(game_copy):
    """`log "ratio {10 / me.plays}"` faults in play (me.plays is 0 after the
    turn's plays); simulate must report the same fault, not a win."""
    from cardc.sim.run import Plan, play_game
    built = build_folder(game_copy(edits={"game.yaml": [
        ("    if worth(me) >= win_at:\n", '    log "ratio {10 / me.plays}"\n    if worth(me) >= win_at:\n')]}))
    game = Game(built.bundle)
    text = fault_of(game)
    assert "division by zero" in text
    rec = play_game(game, Plan(players=(2,), agents=("random",)), 0)
    assert rec.ending == "fault" and "division by zero" in rec.fault
    assert LOC.search(text).group(0) == LOC.search(rec.fault).group(0)


def test_a_bot_meets_the_fault_of_a_menu_label_a_person_would_read(game_copy):
    """An option's label that cannot be built (here a division by zero) is a
    fault for a bot too, which never reads labels: it is found where the menu
    finds the option, at the menu's line, for random agents and simulate."""
    from cardc.sim.run import Plan, play_game
    built = build_folder(game_copy(edits={"game.yaml": [
        ('option "Bank {c.name}":', 'option "Bank {c.name} ({10 / (me.plays - 1)})":')]}))
    assert built.bundle, built.diags.render()
    game = Game(built.bundle)
    text = fault_of(game)
    assert "division by zero" in text and "game.yaml:32:" in text      # the menu
    rec = play_game(game, Plan(players=(2,), agents=("random",)), 0)
    assert rec.ending == "fault" and "division by zero" in rec.fault
    assert LOC.search(text).group(0) == LOC.search(rec.fault).group(0)
