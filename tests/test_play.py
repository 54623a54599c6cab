"""Playing from the command line: the log, replays, agents, the human menu."""
from __future__ import annotations

import io
import json

import pytest

from cardc.agents import make_agent
from cardc.agents.human import HumanAgent
from cardc.cli import main
from cardc.engine import BundleMismatch
from cardc.sim.play import play, replay, replay_record

from conftest import MINI


def test_play_log_and_replay_are_identical(mini_game, tmp_path, capsys):
    log = tmp_path / "game.json"
    assert main(["play", str(MINI), "--players", "3", "--seed", "4", "--agents",
                 "random,greedy", "--log", str(log)]) == 0
    played = capsys.readouterr().out
    assert "== Turn 1 (round 1): P1 ==" in played
    assert "Winner:" in played or "turn cap" in played
    record = json.loads(log.read_text())
    assert record["seed"] == 4 and record["players"] == 3 and record["actions"]
    assert main(["replay", str(log), "--bundle", str(MINI)]) == 0
    replayed = capsys.readouterr().out
    assert replayed.splitlines() == [l for l in played.splitlines() if not l.startswith("replay written")]


def test_replay_refuses_a_changed_bundle(mini_game):
    game_result = play(mini_game, 2, 1, ["random"])
    record = replay_record(mini_game, 2, 1, game_result.actions, ["random"])
    record["bundle"] = "f" * 64
    with pytest.raises(BundleMismatch, match="changed since this game was recorded"):
        replay(mini_game, record)


def test_greedy_takes_an_immediate_win(mini_game):
    """At 12 points a player wins at the end of their turn: greedy banks the gem that gets there."""
    for seed in range(40):
        st = mini_game.new_state(2, seed=seed)
        agent = make_agent("greedy", seed)
        while not st.is_terminal():
            seat = st.current_player()
            st.apply(agent.act(st, seat))
        assert st.winners or st.capped


def test_human_menu_shows_reasons_and_accepts_numbers(mini_game):
    st = mini_game.new_state(2, seed=1)
    out = io.StringIO()
    agent = HumanAgent(stdin=io.StringIO("x\n9\n1\n"), stdout=out)
    choice = agent.act(st, st.current_player())
    text = out.getvalue()
    assert choice == 0
    assert "1. Bank" in text and "type a number from 1 to" in text
    assert "(not now: nothing to steal)" in text or "Play Thief" not in text
    assert "hand of P1" in text


def test_human_undo_goes_back_to_the_last_decision(game_copy):
    """`undo` returns to the seat's previous decision while nothing new was
    drawn, shuffled or seen; the undone action leaves the replay."""
    from cardc.agents import human as human_mod
    import cardc.agents as agents
    from cardc.engine import Game
    from cardc.project import build_folder
    folder = game_copy(edits={"game.yaml": [("    me.plays = 1\n", "    me.plays = 2\n")]})
    game = Game(build_folder(folder).bundle)
    answers = iter(["1", "undo", "2"] + ["1"] * 2000)

    class Scripted(human_mod.HumanAgent):
        def choose(self, view):
            text = next(answers)
            return "undo" if text == "undo" else min(int(text) - 1, len(view.legal_actions()) - 1)

    real = agents.AGENTS["human"]
    agents.AGENTS["human"] = Scripted
    try:
        lines = []
        result = play(game, 2, 7, ["human"], echo=lines.append)
    finally:
        agents.AGENTS["human"] = real
    assert "  (undone)" in lines
    first = lines.index("  (undone)")
    assert lines[first - 1].startswith("  P1 · Play a card → ")      # the move taken back
    assert result.actions[0] == 1, "the replay starts with the second answer, not the undone one"


def test_human_reads_a_card_by_option_number_or_by_name(mini_game):
    """`? N` prints the card option N names, `show NAME` any card by its name
    or id (issue 41); then the choice is still asked."""
    st = mini_game.new_state(2, seed=1)
    out = io.StringIO()
    agent = HumanAgent(stdin=io.StringIO("? 1\nshow thief\n? 99\nshow dragon\n1\n"), stdout=out)
    assert agent.act(st, st.current_player()) == 0
    text = out.getvalue()
    label = st.action_to_string(0)                       # "Bank Ruby" or "Bank Pearl"
    name = label.split(" ", 1)[1]
    card = next(c for c in mini_game.cards if c["name"] == name)
    assert f"> {name} (Gem): {card['text']}\n" in text
    assert "> Thief (Thief): Take a banked gem from a rival.\n" in text
    assert text.count("`? N` shows option N's card, `show NAME` a card by its name") == 2


def test_a_prompt_that_names_the_player_is_not_prefixed_twice(game_copy):
    from cardc.engine import Game
    from cardc.project import build_folder
    folder = game_copy(edits={"game.yaml": [('prompt "Play a card"', 'prompt "{me}: your move"')]})
    st = Game(build_folder(folder).bundle).new_state(2, seed=1)
    out = io.StringIO()
    HumanAgent(stdin=io.StringIO("1\n"), stdout=out).act(st, st.current_player())
    assert "\nP1: your move\n" in out.getvalue() and "P1: P1:" not in out.getvalue()


def test_the_terminal_shows_scores_as_a_headline_and_placed_tiles_apart_from_empty_cells():
    """A person sees the scores first (a game with no secret counter), and on
    ipo's board a lone placed tile (#) is not an empty cell (.)."""
    from cardc.agents.view import SeatView
    from cardc.engine import Game
    from conftest import REPO
    game = Game.load(REPO / "generated" / "ipo.json")
    st = game.new_state(2, seed=2)
    text = SeatView(st, st.current_player()).text()
    lines = text.splitlines()
    assert lines[1].startswith("  SCORES  P1 ") and ", P2 " in lines[1]
    board = [line for line in lines if line[:3].strip().isdigit()]
    cells = "".join(line[4:] for line in board).split()
    assert cells.count("#") == 2 and cells.count(".") == len(cells) - 2     # the two seeded tiles
