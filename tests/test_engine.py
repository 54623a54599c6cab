"""The generic engine on the small test game: determinism, cloning, saving
mid-effect, hidden information, illegal input and located faults."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from cardc.engine import CorruptState, EngineFault, Game, IllegalAction, State
from cardc.project import build_folder, load_bundle


def play_out(st, seed):
    rnd = random.Random(seed)
    while not st.is_terminal():
        st.apply(rnd.randrange(len(st.legal_actions())))
    return st


def test_same_seed_and_actions_same_game(mini_game):
    a = play_out(mini_game.new_state(3, seed=5, log=True), 1)
    b = play_out(mini_game.new_state(3, seed=5, log=True), 1)
    assert a.to_json() == b.to_json()
    c = play_out(mini_game.new_state(3, seed=6, log=True), 1)
    assert c.to_json() != a.to_json()


def test_clone_is_independent(mini_game):
    st = mini_game.new_state(2, seed=1)
    copy = st.clone()
    before = json.dumps(copy.to_json(), sort_keys=True)
    play_out(st, 3)
    assert json.dumps(copy.to_json(), sort_keys=True) == before
    play_out(copy, 3)
    assert copy.to_json()["history"] == st.to_json()["history"]


def test_save_and_resume_at_every_decision_gives_the_same_game(mini_game):
    reference = play_out(mini_game.new_state(2, seed=9, log=True), 4)
    rnd = random.Random(4)
    st = mini_game.new_state(2, seed=9, log=True)
    while not st.is_terminal():
        saved = json.loads(json.dumps(st.to_json()))       # through real JSON text
        st = State.from_json(mini_game, saved)
        st.apply(rnd.randrange(len(st.legal_actions())))
    assert st.to_json() == reference.to_json()


def _at_window(mini_game):
    """A state where P2 is asked whether to answer a theft with a Guard."""
    for seed in range(200):
        st = mini_game.new_state(2, seed=seed)
        rnd = random.Random(seed)
        for _ in range(400):
            if st.is_terminal():
                break
            if st.pending.kind == "window":
                return st
            st.apply(rnd.randrange(len(st.legal_actions())))
    pytest.fail("no reaction window reached")


def test_save_inside_a_reaction_window(mini_game):
    st = _at_window(mini_game)
    assert len(st.legal_actions()) == len(st.action_labels()) == st.num_actions()
    assert st.action_to_string(st.legal_actions()[-1]) == "Pass"
    resumed = State.from_json(mini_game, json.loads(json.dumps(st.to_json())))
    assert resumed.legal_actions() == st.legal_actions()        # a resumed game keeps its keys
    st.apply(0)
    resumed.apply(0)
    assert st.to_json() == resumed.to_json()


def test_illegal_action_leaves_state_unchanged(mini_game):
    st = mini_game.new_state(2, seed=2)
    before = st.to_json()
    for bad in (-1, len(st.legal_actions()), "0", None, True):
        with pytest.raises(IllegalAction):
            st.apply(bad)
    assert st.to_json() == before


def test_an_action_that_is_an_int_of_another_type_is_taken(mini_game):
    """`apply` checks a plain int in one test; a number of an int type (an
    IntEnum a front end uses, say) is still taken, and a bool still refused."""
    class Number(int):
        pass
    st, same = mini_game.new_state(2, seed=2), mini_game.new_state(2, seed=2)
    st.apply(Number(0))
    same.apply(0)
    assert st.to_json() == same.to_json()
    with pytest.raises(IllegalAction, match="not one of"):
        st.apply(False)


def test_observation_hides_rival_hands(mini_game):
    st = mini_game.new_state(2, seed=3)
    obs = st.observation(0)
    own, rival = obs["zones"]["hand@0"], obs["zones"]["hand@1"]
    assert all(c is not None for c in own["cards"])
    assert rival["count"] == len(st.zones[mini_game.slot(st, "hand", 1)]) > 0
    assert all(c is None for c in rival["cards"])
    assert all(c is None for c in obs["zones"]["draw"]["cards"])
    assert "rng" not in json.dumps(obs)


def test_hand_limit_overflow_asks_the_owner_at_once(mini_game, game_copy):
    built = build_folder(game_copy(edits={"game.yaml": [("      draw(p, 2)", "      draw(p, 4)")]}))
    game = Game(built.bundle)
    st = game.new_state(2, seed=1)
    assert st.pending.prompt == "Discard down to 3" and st.pending.player == 0


def test_corrupt_or_foreign_saves_are_refused(mini_game):
    st = mini_game.new_state(2, seed=1)
    data = st.to_json()
    with pytest.raises(CorruptState):
        State.from_json(mini_game, {**data, "zones": data["zones"][:-1]})
    with pytest.raises(CorruptState):
        State.from_json(mini_game, {**data, "stack": [["proc:nope", 0, {}]]})
    twice = json.loads(json.dumps(data))
    twice["zones"][0].append(twice["zones"][0][0])
    with pytest.raises(CorruptState):
        State.from_json(mini_game, twice)
    # every counter the game declares is in a save (generated code reads
    # the counter lists up front), and no other
    missing = json.loads(json.dumps(data))
    missing["pc"].pop(sorted(missing["pc"])[0])
    with pytest.raises(CorruptState, match="saved player counters do not match"):
        State.from_json(mini_game, missing)
    extra = json.loads(json.dumps(data))
    extra["g"]["nope"] = 1
    with pytest.raises(CorruptState, match="saved game counters do not match"):
        State.from_json(mini_game, extra)
    with pytest.raises(CorruptState, match="unknown stage 'lunch'"):
        State.from_json(mini_game, {**data, "stage": "lunch"})
    from cardc.engine import BundleMismatch
    with pytest.raises(BundleMismatch):
        State.from_json(mini_game, {**data, "bundle": "0" * 64})


def test_engine_fault_names_the_card_and_the_source_line(game_copy):
    folder = game_copy(edits={"cards/cards.yaml": [
        ("      if not w.cancelled:", '      assert count(me.hand) > 99, "boom"\n      if not w.cancelled:')]})
    game = Game(build_folder(folder).bundle)
    with pytest.raises(EngineFault) as err:
        for seed in range(200):
            play_out(game.new_state(2, seed=seed), seed)
    text = str(err.value)
    assert "cards/cards.yaml:27:7" in text
    assert "Thief (thief) effect" in text and "assertion failed: boom" in text


def test_a_loop_that_runs_straight_through_counts_and_fails_where_its_op_is(game_copy):
    """A loop whose body cannot stop runs as one Python loop (blocks.py,
    `_emit_loop`): its variable is bound at each turn, its body's fault names
    the body's line, and the loop still counts one step a turn."""
    folder = game_copy(edits={"game.yaml": [
        ("    me.plays = 1\n",
         "    me.plays = 1\n"
         "    for c in me.hand:\n"
         "      me.plays += 1\n"
         "      assert me.plays < 4, \"a third card in hand\"\n"
         "    me.plays = 1\n")]})
    game = Game(build_folder(folder).bundle)
    assert "a straight loop" in "".join(src for _, src in game.pygen.sources)
    with pytest.raises(EngineFault) as err:
        for seed in range(50):
            play_out(game.new_state(2, seed=seed), seed)
    text = str(err.value)
    assert "game.yaml:33:7" in text and "assertion failed: a third card in hand" in text


def _loop_with_ifs(game_copy, check):
    """The mini game with a loop whose body has an `if … else` and an `if`,
    and `check` last in the `else` part."""
    folder = game_copy(edits={"game.yaml": [
        ("    me.plays = 1\n",
         "    me.plays = 1\n"
         "    for c in me.hand:\n"
         "      if c.kind == \"gem\":\n"
         "        log \"{me} counts {c.name}\"\n"
         "        if c.value > 2:\n"
         "          me.plays += 1\n"
         "      else:\n"
         "        log \"{me} holds {c.name}\"\n"
         f"        {check}\n"
         "    me.plays = 1\n")]})
    return Game(build_folder(folder).bundle)


def test_a_loop_with_ifs_in_it_runs_as_the_op_by_op_loop_does(game_copy, monkeypatch):
    """A loop whose body has `if … else` in it, and no op that can stop,
    runs as one Python loop with Python `if`s (blocks.py, `_plain`): the
    same games, move by move and line of log by line, as the same loop run
    op by op; a fault in its `else` part names that part's line."""
    from cardc.engine.blocks import BlockGen
    fast = _loop_with_ifs(game_copy, "let x = 0")
    assert "a straight loop" in "".join(src for _, src in fast.pygen.sources)
    monkeypatch.setattr(BlockGen, "_straight_loop", lambda self, ops, i: None)
    slow = Game(fast.bundle)
    assert "a straight loop" not in "".join(src for _, src in slow.pygen.sources)
    for seed in range(30):
        a, b = fast.new_state(2, seed=seed), slow.new_state(2, seed=seed)
        a.log, b.log = [], []
        play_out(a, seed)
        play_out(b, seed)
        assert a.history == b.history and a.log == b.log and a.winners == b.winners
        assert any("counts" in line for line in a.log) and any("holds" in line for line in a.log)
    monkeypatch.undo()
    failing = _loop_with_ifs(game_copy, 'assert c.kind == "gem", "a card that is no gem"')
    with pytest.raises(EngineFault) as err:
        for seed in range(50):
            play_out(failing.new_state(2, seed=seed), seed)
    text = str(err.value)
    assert "game.yaml:38:9" in text and "assertion failed: a card that is no gem" in text, text


@pytest.mark.parametrize("name", ["unicorn", "startup", "ipo"])
def test_the_shipped_games_play_the_same_with_their_loops_run_op_by_op(name, monkeypatch):
    """Every loop written as a Python loop (`for` and `repeat`, with `if`,
    `else` and `return` in them), every run of straight code with `if`s
    written as one case with Python `if`s, and every jump to a jump taken
    at once to where the last one goes, plays as the op-by-op code: the same
    games and the same log, line by line, in random games of each shipped
    game."""
    from cardc.engine.blocks import BlockGen
    from cardc.project import load_bundle

    def one_jump(self, target, i):
        back = ["st.budget -= 1", "if st.budget < 0: raise EngineFault(_game.over_steps)"]
        return back + [f"pc = {target}", "continue"] if target <= i else [f"pc = {target}"]
    bundle = load_bundle(name)
    fast = Game(bundle)
    monkeypatch.setattr(BlockGen, "_straight_loop", lambda self, ops, i: None)
    monkeypatch.setattr(BlockGen, "_region", lambda self, ops, a, later: None)
    monkeypatch.setattr(BlockGen, "_goto", one_jump)
    slow = Game(bundle)
    monkeypatch.undo()
    for seed in range(4):
        a, b = fast.new_state(4, seed=seed), slow.new_state(4, seed=seed)
        a.log, b.log = [], []
        rnd = random.Random(seed)
        while not a.is_terminal():
            action = rnd.randrange(len(a.legal_actions()))
            a.apply(action)
            b.apply(action)
        assert b.is_terminal() and a.log == b.log and a.winners == b.winners
    source = "".join(src for _, src in fast.pygen.sources)
    op_by_op = "".join(src for _, src in slow.pygen.sources)
    assert "(a straight loop)" in source and "(a straight loop)" not in op_by_op
    assert source.count(" if\n") > op_by_op.count(" if\n")      # `# file:line:col if` comments


def test_a_procedure_that_cannot_stop_runs_at_once_and_fails_where_its_op_is(game_copy):
    """A call to a procedure with no decision in it (nor in what it calls)
    runs inside the caller's function, without a trip through the run loop
    (blocks.py, `BlockGen.plan`); a fault in it, two calls down, still names
    its own line and procedure, not the caller's call."""
    folder = game_copy(edits={
        "rules.yaml": [("procs:\n",
                        "procs:\n"
                        "  audit:\n"
                        "    params: {p: player}\n"
                        "    do: |\n"
                        "      let w = worth(p)\n"
                        "      audit_bank(p, w)\n"
                        "  audit_bank:\n"
                        "    params: {p: player, w: int}\n"
                        "    do: |\n"
                        "      assert w < 3, \"a bank worth 3\"\n")],
        "game.yaml": [("    draw(me, 1)\n", "    draw(me, 1)\n    audit(me)\n")]})
    game = Game(build_folder(folder).bundle)
    assert {"proc:audit", "proc:audit_bank"} <= game.direct_procs
    assert "proc:draw" not in game.direct_procs      # it moves into a hand with a limit
    with pytest.raises(EngineFault) as err:
        for seed in range(50):
            play_out(game.new_state(2, seed=seed), seed)
    text = str(err.value)
    assert "rules.yaml:16:7 in procedure `audit_bank`" in text, text
    assert "assertion failed: a bank worth 3" in text


def test_a_function_entered_once_loses_only_the_tests_that_always_hold():
    """A procedure without a frame (or a start without one) is entered at
    its first case and, with no jump back, never comes round its chain
    again: that case's test goes, and so do the end's test and the
    assignments of `pc` when they all go to the end.  Line for line (faults
    are placed by line); a body that jumps back is left as it is."""
    from cardc.engine.blocks import entered_once
    straight = ["    while True:", "        if pc == 0:", "            x = 1", "            pc = 2",
                "        if pc == 2:", "            return True", "        raise _bad_pc('p', pc)"]
    out = entered_once(straight)
    assert len(out) == len(straight)
    assert [x.strip() for x in out] == ["while True:", "if True:", "x = 1", "pass", "if True:",
                                        "return True", "raise _bad_pc('p', pc)"]
    branching = straight[:3] + ["            pc = 2 if x else 4", "        if pc == 2:",
                                "            return True", "        if pc == 4:", "            return 0",
                                "        raise _bad_pc('p', pc)"]
    out = entered_once(branching)
    assert out[1].strip() == "if True:" and out[3:] == branching[3:]
    looping = straight[:3] + ["            pc = 0", "            continue"] + straight[4:]
    assert entered_once(looping) == looping
    # a chain of cases, each ending by going on to the next (or returning)
    chain = ["    while True:", "        if pc == 0:", "            x = 1", "            pc = 2",
             "        if pc == 2:", "            # a comment", "            for y in x:",
             "                f(y)", "            pc = 5", "        if pc == 5:",
             "            return True", "        raise _bad_pc('p', pc)"]
    out = entered_once(chain)
    assert len(out) == len(chain)
    assert [x.strip() for x in out] == ["while True:", "if True:", "x = 1", "pass", "if True:",
                                        "# a comment", "for y in x:", "f(y)", "pass", "if True:",
                                        "return True", "raise _bad_pc('p', pc)"]
    # a case entered another way, or ending another way, keeps every test
    nested = chain[:7] + ["                pc = 5"] + chain[8:]
    assert entered_once(nested)[4:] == nested[4:]
    skips = chain[:3] + ["            pc = 5"] + chain[4:]
    assert entered_once(skips)[4:] == skips[4:]
    open_end = chain[:8] + ["            f(x)"] + chain[9:]
    assert entered_once(open_end)[4:] == open_end[4:]


def test_a_card_effect_that_cannot_stop_runs_at_once_and_names_the_card(game_copy):
    """`resolve` runs an effect with no decision in it at once, in the
    resolving function (blocks.py, `_resolve`); its fault still names the
    card, the effect and the effect's own line."""
    folder = game_copy(edits={"cards/cards.yaml": [(
        '      let victim = choose p in rivals(me) where count(p.bank) > 0 prompt "Rob whom?"\n'
        '      let prize = choose c in victim.bank prompt "Take which gem?"\n'
        '      let w = window steal for victim with thief=me, victim=victim, prize=prize\n'
        '      if not w.cancelled:\n'
        '        move prize to me.bank\n',
        '      let n = count(me.bank)\n'
        '      assert n > 99, "boom"\n')]})
    game = Game(build_folder(folder).bundle)
    assert game.codes["card:thief:effect"].direct
    with pytest.raises(EngineFault) as err:
        for seed in range(200):
            play_out(game.new_state(2, seed=seed), seed)
    text = str(err.value)
    assert "cards/cards.yaml:25:7" in text and "Thief (thief) effect" in text, text
    assert "assertion failed: boom" in text


def test_cards_are_never_created_or_lost(mini_game):
    for seed in range(30):
        st = mini_game.new_state(3, seed=seed)
        rnd = random.Random(seed)
        while not st.is_terminal():
            st.apply(rnd.randrange(len(st.legal_actions())))
            placed = sorted(c for z in st.zones for c in z) + sorted(
                c for cards in st.under.values() for c in cards)
            assert sorted(placed) == list(range(len(mini_game.instances)))


def test_window_enter_and_exit_hooks_run_around_the_answers(game_copy):
    folder = game_copy(edits={
        "game.yaml": [("windows:\n", "events:\n  window_open: {tag: str}\n  window_close: {tag: str}\nwindows:\n")],
        "rules.yaml": [("functions:\n", "hooks:\n  window_open: |\n    log \"open {tag}\"\n"
                                       "  window_close: |\n    log \"close {tag}\"\nfunctions:\n")],
    })
    built = build_folder(folder)
    assert built.bundle, built.diags.render()
    game = Game(built.bundle)
    for seed in range(300):
        st = game.new_state(2, seed=seed, log=True)
        rnd = random.Random(seed)
        while not st.is_terminal():
            st.apply(rnd.randrange(len(st.legal_actions())))
        lines = [l for l in st.log if l.startswith(("open", "close"))]
        if lines:
            assert lines[:2] == ["open steal", "close steal"]
            assert len(lines) % 2 == 0
            return
    pytest.fail("no window opened")


def test_engine_says_why_an_action_is_not_legal(mini_game):
    st = mini_game.new_state(2, seed=1)
    me = st.current_player()
    first = st.action_to_string(st.legal_actions()[0])
    assert "not P2's" in st.explain(1 - me, first) or "not P1's" in st.explain(1 - me, first)
    assert st.explain(me, first) == ""
    hand = [c for c in st.zones[mini_game.slot(st, "hand", me)]]
    thieves = [c for c in hand if mini_game.card_field["id"][c] == "thief"]
    if thieves:
        assert st.explain(me, "Play Thief") == "nothing to steal"
    assert "is not an action now" in st.explain(me, "Fly to the moon")


def test_game_end_hooks_run_before_the_game_is_over(game_copy):
    folder = game_copy(edits={
        "game.yaml": [("windows:\n", "events:\n  game_end: {}\nwindows:\n")],
        "rules.yaml": [("functions:\n", "hooks:\n  game_end: |\n    for p in players:\n"
                                       "      log \"final {p}: {worth(p)}\"\nfunctions:\n")],
    })
    game = Game(build_folder(folder).bundle)
    st = play_out(game.new_state(2, seed=3, log=True), 3)
    finals = [l for l in st.log if l.startswith("final")]
    assert st.is_terminal() and st.winners and not st.capped
    assert finals == [f"final P{p + 1}: {s}" for p, s in enumerate(st.scores())]


def test_a_determinized_copy_keeps_what_a_seat_sees_and_shuffles_the_rest(mini_game):
    st = mini_game.new_state(3, seed=4)
    seat = st.current_player()
    d = st.determinized(seat, random.Random(1))
    assert d.observation(seat)["zones"] == st.observation(seat)["zones"]    # the seat sees the same
    assert [len(z) for z in d.zones] == [len(z) for z in st.zones]
    assert sorted(c for z in d.zones for c in z) == sorted(c for z in st.zones for c in z)
    assert d.zones != st.zones, "hidden cards were shuffled"
    assert all(d.loc[c] == slot for slot, z in enumerate(d.zones) for c in z)


def test_guesses_of_one_state_share_their_plan_and_a_moved_state_gets_a_new_one(mini_game):
    """What a guess shuffles is worked out once per state and seat (a search
    guesses hundreds of times at one decision); after the state moves on, a
    guess follows the new state, not the plan kept from before."""
    st = mini_game.new_state(3, seed=4)
    seat = st.current_player()
    first = [st.determinized(seat, random.Random(k)).zones for k in range(3)]
    assert len({repr(z) for z in first}) == 3, "each guess is a shuffle of its own"
    while st.current_player() != seat or st.decisions == 0:
        st.apply(0)
    after = st.determinized(seat, random.Random(0))
    assert after.observation(seat)["zones"] == st.observation(seat)["zones"]
    assert [len(z) for z in after.zones] == [len(z) for z in st.zones]
    assert all(after.loc[c] == slot for slot, z in enumerate(after.zones) for c in z)


def test_a_look_ahead_cannot_learn_an_unseen_card(mini_game):
    """Two games that look the same to a seat (two unseen cards swapped, another
    real future in the generator) give that seat the same imagined copy, and
    the copy does not draw the real future."""
    a = mini_game.new_state(3, seed=4)
    seat = a.current_player()
    b = a.clone()
    rival_hand = mini_game.slot(b, "hand", (seat + 1) % 3)
    deck = mini_game.slot(b, "draw")
    x, y = b.zones[deck][0], b.zones[rival_hand][0]
    b.zones[deck][0], b.zones[rival_hand][0] = y, x
    b.loc[x], b.loc[y] = rival_hand, deck
    b.rng ^= 12345
    da, db = a.determinized(seat, random.Random(7)), b.determinized(seat, random.Random(7))
    assert da.zones == db.zones and da.rng == db.rng
    assert da.rng not in (a.rng, b.rng)
    for d in (da, db):
        d.apply(0)
    assert da.zones == db.zones


# a `draw` whose guard is gone: drawing from an empty pile moves none (now rules.yaml:12:9)
_UNGUARDED = {"rules.yaml": [("        if count(draw) == 0:\n          return\n", "")]}
_WHERE = "rules.yaml:12:9 in procedure `draw`"


def test_fault_names_the_failing_statement_in_play(game_copy):
    game = Game(build_folder(game_copy(edits=_UNGUARDED)).bundle)
    with pytest.raises(EngineFault) as err:
        for seed in range(50):
            play_out(game.new_state(2, seed=seed), seed)
    assert _WHERE in str(err.value) and "`move` of none" in str(err.value)


def test_fault_names_the_failing_statement_in_a_scenario(game_copy, tmp_path):
    from cardc.testing.scenario import run_file
    folder = game_copy(edits=_UNGUARDED)
    path = tmp_path / "draw.yaml"
    path.write_text(f"game: {folder}\ntitle: draw from nothing\nplayers: 2\n"
                    "start:\n  turn: P1\n  empty: {draw: discard}\n  zones: {P1.hand: [pearl]}\n"
                    "steps:\n  - P1: Pass\n")
    failures = [f for r in run_file(path, {}) for f in r.failures]
    assert any(_WHERE in f for f in failures), failures


def test_fault_names_the_failing_statement_in_simulate(game_copy):
    from cardc.sim.run import Plan, play_game
    game = Game(build_folder(game_copy(edits=_UNGUARDED)).bundle)
    faults = [play_game(game, Plan(players=(2,), agents=("random",)), i).fault for i in range(50)]
    assert any(f and _WHERE in f for f in faults), faults[:3]


def test_observations_show_the_counters_on_the_cards_a_seat_sees():
    """Card counters are public: a card in view shows the ones not at their
    start value (startup's client tokens, by player), and a text view says them."""
    from cardc.agents import make_agent
    from cardc.agents.view import SeatView
    game = Game.load(Path(__file__).parent.parent / "generated" / "startup.json")
    st = game.new_state(2, seed=1)
    agents = [make_agent("random", 1), make_agent("random", 2)]
    pool = game.slot(st, "client_pool", None)
    while not st.terminal and not any(st.card_counters["tokens"][c * 2:c * 2 + 2] != [0, 0] for c in st.zones[pool]):
        st.apply(agents[st.pending.player].act(SeatView(st, st.pending.player)))
    obs = st.observation(0)
    shown = {c["iid"]: c.get("counters") for c in obs["zones"]["client_pool"]["cards"]}
    for c in st.zones[pool]:
        want = {k: st.card_counters[k][c * 2:c * 2 + 2] for k in ("tokens", "placed")}
        assert shown[c] == ({k: v for k, v in want.items() if v != [0, 0]} or None)
    assert "tokens P" in SeatView(st, 0).text()
    hidden = [c for z in obs["zones"].values() for c in z["cards"] if c is None]
    assert hidden          # cards out of sight show nothing, counters included


def test_a_prompt_made_of_expressions_is_built_when_read_while_pending(game_copy):
    """A bot never reads prompts, so text that cannot fail is made only when
    someone asks, from the state as it is at the decision."""
    folder = game_copy(edits={"game.yaml": [('prompt "Play a card"', 'prompt "{me} plays a card"')]})
    game = Game(build_folder(folder).bundle)
    st = game.new_state(2, seed=1)
    while st.pending.kind != "menu":
        st.apply(0)
    who = st.player_name(st.pending.player)
    twin, later = st.clone(), st.clone()
    assert twin.pending.prompt == st.pending.prompt == f"{who} plays a card"
    d = twin.pending
    twin.apply(0)
    assert d.prompt == f"{who} plays a card"          # read once, kept
    d = later.pending
    later.apply(0)
    with pytest.raises(RuntimeError, match="while it is pending"):
        d.prompt


def test_a_shuffle_draws_exactly_as_below_does():
    """The shuffle loop has the generator written in; it must draw the same
    numbers as `below`, or every saved game and replay would change."""
    from cardc.engine import rng
    r = random.Random(5)
    for _ in range(500):
        n, s0 = r.randrange(0, 60), r.getrandbits(64)
        xs, ys = list(range(n)), list(range(n))
        s = s0
        for i in range(n - 1, 0, -1):
            s, j = rng.below(s, i + 1)
            xs[i], xs[j] = xs[j], xs[i]
        assert rng.shuffle(s0, ys) == s and ys == xs


@pytest.mark.parametrize("name", ["unicorn", "startup", "ipo"])
def test_moving_a_whole_zone_at_once_is_moving_its_cards_one_by_one(name):
    """`move zone to other` is done in one step; it must leave the state as
    moving each card in turn would: zones, places, reveals, versions, counts."""
    from cardc.project import load_bundle
    game = Game(load_bundle(name))
    r = random.Random(7)
    checked = 0
    for seed in range(6):
        st = game.new_state(4, seed=seed)
        for _ in range(r.randrange(20, 120)):
            if st.is_terminal():
                break
            st.apply(r.randrange(len(st.legal_actions())))
        st.start_tracking()
        slots = range(len(st.zones))
        for _ in range(40):
            src, dest = r.choice(slots), r.choice(slots)
            place = r.choice(["top", "bottom"])
            a, b = st.clone(), st.clone()
            a.track, b.track = {"enter": {}}, {"enter": {}}
            a.move_zone(src, dest, place)
            for c in list(b.zones[src]):
                b.move(c, dest, place)
            assert a.zones == b.zones and a.loc == b.loc and a.revealed == b.revealed
            assert a.part_versions == b.part_versions and a.track == b.track and a.host == b.host and a.under == b.under
            checked += bool(st.zones[src])
    assert checked > 50


@pytest.mark.parametrize("where", ["label", "reason"])
def test_a_menu_text_that_fails_fails_for_a_bot_too(game_copy, where):
    """A label or a reason that cannot be written (here: a division by zero)
    fails the game where a person reading the menu would see it fail, even
    when only a bot plays and no text is ever read (engine/total.py): the
    parts that could fail are evaluated when the menu is asked."""
    text = '"Bank {c.name}"' if where == "label" else '"nothing to steal"'
    broken = text[:-1] + ' ({c.value / (me.plays - 1)})"'
    folder = game_copy(edits={"game.yaml": [(text, broken)]})
    game = Game(build_folder(folder).bundle)
    with pytest.raises(EngineFault, match="division by zero"):
        for seed in range(20):
            play_out(game.new_state(2, seed=seed), seed)


def test_a_clone_and_its_original_attach_and_detach_on_their_own():
    """A clone shares the lists of attached cards with its original (they
    are replaced, never changed in place), so an attach or a detach in one
    never shows in the other."""
    from cardc.project import load_bundle
    game = Game(load_bundle("unicorn"))
    st = game.new_state(3, seed=0)
    a, b, c = st.zones[game.slot(st, "draw", None)][:3]
    st.attach(b, a)
    copy = st.clone()
    copy.attach(c, a)
    assert st.under[a] == [b] and copy.under[a] == [b, c]
    st.detach(b)
    assert a not in st.under and copy.under[a] == [b, c]
    copy.detach(c)
    assert copy.under[a] == [b] and copy.host == {b: a} and st.host == {}


def test_a_fault_in_a_procedure_that_cannot_stop_names_its_own_statement(game_copy):
    """A procedure that can never stop runs without a frame (blocks.py,
    BlockGen._frameless): a fault in it still names its own statement and
    the procedure, not the line that called it."""
    folder = game_copy(edits={
        "rules.yaml": [("procs:\n", "procs:\n  recycle:\n    params: {p: player}\n    do: |\n"
                                    "      move top(discard) to draw\n")],
        "game.yaml": [("    me.plays = 1\n", "    me.plays = 1\n    recycle(me)\n")]})
    game = Game(build_folder(folder).bundle)
    assert "proc:recycle" in game.direct_procs
    with pytest.raises(EngineFault) as err:
        play_out(game.new_state(2, seed=0), 0)
    assert "rules.yaml:11:7 in procedure `recycle`" in str(err.value), str(err.value)
    assert "`move` of none" in str(err.value)


@pytest.mark.parametrize("name", ["unicorn", "startup", "ipo"])
def test_procedures_started_without_a_frame_leave_the_state_framed_calls_leave(name, monkeypatch):
    """A procedure that may stop but cannot reach itself is started without
    a frame and makes one only where it stops (blocks.py, BlockGen._start);
    its callers started the same way put theirs beneath it.  After every
    decision of random games of each shipped game, the saved state (the
    stack of frames, their places and locals, the pending decision) is the
    one that calls with a frame each would give."""
    from cardc.engine.blocks import BlockGen
    bundle = load_bundle(name)
    started = Game(bundle)
    plan = BlockGen.plan

    def framed_only(self, specs, codes):
        out = plan(self, specs, codes)
        self.started = frozenset()
        return out
    monkeypatch.setattr(BlockGen, "plan", framed_only)
    framed = Game(bundle)
    monkeypatch.undo()
    assert started.started_procs and not framed.started_procs
    deep = 0
    for seed in range(3):
        a, b = started.new_state(4, seed=seed), framed.new_state(4, seed=seed)
        rnd = random.Random(seed)
        while not a.is_terminal():
            assert a.to_json() == b.to_json()
            deep = max(deep, sum(f.code.name in started.started_procs for f in a.stack))
            action = rnd.randrange(len(a.legal_actions()))
            a.apply(action)
            b.apply(action)
        assert b.is_terminal() and a.to_json() == b.to_json()
    assert deep >= 1        # some decision was asked inside a procedure started so


def test_a_fault_in_a_procedure_started_without_a_frame_names_its_statement(game_copy):
    """A fault in a procedure started without a frame (BlockGen._start)
    names its own statement; one in a framed procedure it called, after it
    made its frame, names that procedure's statement, not the call."""
    procs = ("procs:\n"
             "  countdown:\n    params: {n: int}\n    do: |\n"
             "      if n > 0:\n        countdown(n - 1)\n      else:\n"
             "        move top(discard) to draw\n"
             "  opening:\n    params: {p: player}\n    do: |\n"
             "      countdown(2)\n"
             "      let c = choose c in p.hand by p prompt \"Keep which?\"\n"
             "  risky:\n    params: {p: player}\n    do: |\n"
             "      move top(discard) to draw\n"
             "      let c = choose c in p.hand by p prompt \"Keep which?\"\n")
    for call, where, proc in (("opening(me)", "rules.yaml:14:9", "countdown"),
                              ("risky(me)", "rules.yaml:23:7", "risky")):
        folder = game_copy(edits={"rules.yaml": [("procs:\n", procs)],
                                  "game.yaml": [("    draw(me, 1)\n", f"    {call}\n    draw(me, 1)\n")]})
        game = Game(build_folder(folder).bundle)
        assert {"proc:opening", "proc:risky"} <= game.started_procs
        assert "proc:countdown" not in game.started_procs       # it can reach itself
        with pytest.raises(EngineFault) as err:
            play_out(game.new_state(2, seed=0), 0)
        assert f"{where} in procedure `{proc}`" in str(err.value), str(err.value)
        assert "`move` of none" in str(err.value)


def test_a_procedure_whose_lines_need_a_frame_is_run_with_one(mini_game):
    """The frameless form falls back to pushing a frame where a line of the
    block reads it (none does today: `plan` admits no op that stops); the
    block then runs on top of the stack, as a framed call would."""
    from cardc.engine.blocks import BlockGen
    seen = []

    class Block:
        label, file, params = "procedure `x`", "rules.yaml", ["p"]

        def run(self, st, fr):
            seen.append((fr.env, st.stack[-1] is fr))
            st.stack.pop()
            return True

    block = Block()
    lines = ["def _x(st, fr):", "    # x", "    env = fr.env", "    pc = fr.pc", "    fr.pc = 1"]
    run = BlockGen(mini_game, mini_game.pygen)._frameless(block, lines)
    st = mini_game.new_state(2, seed=0)
    depth = len(st.stack)
    run(st, 0, 1)              # its parameter, then the caller's `me`
    assert seen == [({"p": 0, "me": 1}, True)] and len(st.stack) == depth


def test_a_procedure_that_cannot_stop_keeps_its_locals_in_python_locals():
    """`lower.localize`, on the syntax tree: in the frameless form,
    `env['x']` (read, written, added to, deleted) and `env.get('x')` become
    Python locals and the parameters `(st, *locals)`, each line where it
    was; a string that only looks like one is left alone.  Where `env` is
    used any other way, or a name is read that is neither a parameter nor
    written in the block, it gives False and the dict form stays."""
    import ast

    from cardc.engine.blocks import _local_name
    from cardc.engine.lower import localize

    def run(body, params):
        tree = ast.parse("def f(st, env):\n" + "\n".join(body))
        return localize(tree.body[0], params, _local_name), tree

    done, tree = run(["    _k0 = env['p']",
                      "    env['$1'] = [env.get('me'), 0]",
                      "    env['$1'] += 1",
                      "    st.log.append('env[\\'p\\'] is ' + str(env['u']))",
                      "    env['u'] = 3",
                      "    del env['$1']"], ["p", "me"])
    want = ast.parse("def f(st, _lv_p, _lv_me):\n"
                     "    _k0 = _lv_p\n"
                     "    _lt_1 = [_lv_me, 0]\n"
                     "    _lt_1 += 1\n"
                     "    st.log.append('env[\\'p\\'] is ' + str(_lv_u))\n"
                     "    _lv_u = 3\n"
                     "    del _lt_1\n")
    assert done and ast.dump(tree) == ast.dump(want)
    assert [n.lineno for n in tree.body[0].body] == [2, 3, 4, 5, 6, 7]       # a fault keeps its line
    for body in (["    f(st, env)"], ["    _k0 = env['q']"], ["    _k0 = env[name]"],
                 ["    env['1'] = 2", "    _k0 = env['1']"]):                # '1': not a compiler name
        done, tree = run(body, ["p"])
        assert not done and tree.body[0].args.args[1].arg == "env"


def test_connected_gives_the_cards_joined_to_the_start_in_the_order_given():
    """`connected(cards, start)`: the cards of `cards` reached from `start`'s
    cell through orthogonal neighbours holding one of them, in the order of
    `cards`, the start first if it is not among them."""
    from cardc.engine.builtins import IMPL
    game = Game(load_bundle("ipo"))
    st = game.new_state(2, seed=0)
    cells = game.card_field["cell"]
    tile = {cells[c]: c for c in range(len(cells)) if cells[c]}
    connected = IMPL["connected"]
    group = [tile[x] for x in ("C1", "A1", "B1", "B2", "E1", "B4")]   # E1 and B4 stand apart
    assert connected(st, None, group, tile["A1"]) == [tile[x] for x in ("C1", "A1", "B1", "B2")]
    assert connected(st, None, group, tile["D1"]) == [tile["D1"], tile["C1"], tile["A1"], tile["B1"],
                                                      tile["B2"], tile["E1"]]
    assert connected(st, None, group, tile["B4"]) == [tile["B4"]]
    assert connected(st, None, group, None) == []


def test_a_hoisted_value_that_cannot_fail_is_computed_before_its_loop():
    """Memo: a value that does not change with a comprehension's element is
    kept; one that cannot fail (total.harmless), in a function that writes
    nothing, is computed once before the loop and read as a plain local, in
    the order made (an inner kept value first); one that may fail stays
    lazy, computed where it was first needed, so it fails where it did."""
    import ast
    import itertools
    from types import SimpleNamespace

    from cardc.engine.lower import Placed
    from cardc.engine.memo import Memo

    def generate(pure, harmless):
        pygen = SimpleNamespace(ids=itertools.count(), placed={})
        memo = Memo(pygen, pure=pure)
        memo.enter("_l1", opaque=True)
        inner = memo.use("f(st)", lambda: harmless)      # asked only if it is hoisted
        outer = memo.use(f"g(st, {inner})", lambda: harmless)
        memo.leave()
        body = f"[_l1 for _l1 in xs if _l1 in {outer} and _l1 != {inner}]"
        lines = ["def h(st, xs):", "    " + memo.reset(), f"    return {body}"]
        memo.finish()
        tree = ast.parse("\n".join(lines))     # the slots and the marker placed on the tree
        Placed({}, pygen.placed).visit(tree)
        return ast.unparse(tree).splitlines()

    assert generate(True, True) == [
        "def h(st, xs):",
        "    _m0 = f(st)",
        "    _m1 = g(st, _m0)",
        "    return [_l1 for _l1 in xs if _l1 in _m1 and _l1 != _m0]"]
    lazy = [
        "def h(st, xs):",
        "    _m0 = _m1 = _U",
        "    return [_l1 for _l1 in xs if _l1 in (_m1 if _m1 is not _U else "
        "(_m1 := g(st, _m0 if _m0 is not _U else (_m0 := f(st))))) and "
        "_l1 != (_m0 if _m0 is not _U else (_m0 := f(st)))]"]
    assert generate(True, False) == lazy
    assert generate(False, True) == lazy
