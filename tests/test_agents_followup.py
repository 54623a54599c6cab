"""Greedy looks through an action's own follow-up decisions before it scores.

tests/fixtures/games/followup: each player has one turn, to take 1 point or
to raid (pay 1 point, then pick a vault: the gold one gives 3).  One step
ahead the raid is only its cost, since the vault is picked at the next
decision; played through that follow-up it nets 2.  With `alarm` set the
rival may then sound the alarm, which takes the gold back: a rival answering
by its own greedy choice always does, and the raid nets -1."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from cardc.agents import make_agent, parse_agent
from cardc.agents.basic import DEFAULT_FOLLOW, GreedyAgent
from cardc.agents.view import SeatView, World
from cardc.engine import Game
from cardc.project import build_folder, load_bundle

FOLLOWUP = Path(__file__).parent / "fixtures" / "games" / "followup"


def built_game(folder) -> Game:
    built = build_folder(folder)
    assert built.bundle is not None and not built.diags.has_errors, built.diags.render()
    return Game(built.bundle)


def first_turn(game, spec, seed):
    """The labels of the actions P1 takes in its turn."""
    st = game.new_state(2, seed=seed)
    agent = make_agent(spec, seed)
    taken = []
    while st.pending.player == 0 and not st.terminal:
        view = SeatView(st, 0)
        action = agent.act(view)
        taken.append(view.action_to_string(action))
        st.apply(action)
    return taken


def test_greedy_plays_an_action_that_pays_off_after_its_own_follow_up_choice():
    game = built_game(FOLLOWUP)
    for seed in range(10):
        # one step ahead: the raid scores -1 against the point's +1
        assert first_turn(game, "greedy:1", seed) == ["Take 1 point"]
        assert first_turn(game, "greedy", seed) == ["Raid the vaults (costs 1 point)",
                                                    "The gold vault (3 points)"]


def test_a_rivals_answer_inside_the_action_is_the_rivals_own_greedy_choice(game_copy):
    folder = game_copy(FOLLOWUP, {"game.yaml": [("  alarm: 0 ", "  alarm: 1 ")]})
    game = built_game(folder)
    for seed in range(10):
        # the rival sounds the alarm (it earns a point): the raid nets -1
        assert first_turn(game, "greedy", seed) == ["Take 1 point"]


def test_greedy_takes_a_look_ahead_budget_in_its_name():
    assert parse_agent("greedy:1") == (GreedyAgent, [1])
    assert make_agent("greedy", 0).follow == DEFAULT_FOLLOW
    assert make_agent("greedy:6", 0).follow == 6
    for bad in ("greedy:0", "greedy:x", "greedy:1:2"):
        with pytest.raises(ValueError):
            parse_agent(bad)


def unicorn_menu_with(option: str):
    """A unicorn position (3 players, random play) where the seat to move is
    at its card-play menu with `option` among its actions, and that action."""
    game = Game(load_bundle("unicorn"))
    for seed in range(40):
        st = game.new_state(3, seed=seed)
        rnd = random.Random(seed)
        while not st.terminal and st.turn < 60:
            view = SeatView(st, st.pending.player)
            labels = [view.action_to_string(a) for a in view.legal_actions()]
            if (view.prompt or "").startswith("Card play") and option in labels:
                return st, labels.index(option)
            st.apply(rnd.randrange(len(labels)))
    raise AssertionError(f"no position with `{option}` in 40 seeds")


def test_follow_ups_are_the_decisions_an_answer_sets_off_and_no_more():
    """At unicorn's card-play menu: a card's target is a follow-up of `Use`;
    the next card play (the same menu asked again) is not, nor is the next
    player's turn."""
    st, use = unicorn_menu_with("Use Poach")
    seat = st.pending.player
    world = SeatView(st, seat).resample(random.Random(1))
    root = world.place()
    poach = world.clone()
    poach.apply(use)
    assert poach.player == seat and poach.follows(root)            # poach from which startup?
    bank = world.clone()
    bank.apply(0)                                                  # the first option banks a card
    assert not bank.follows(root)
    end = world.clone()
    end.apply(world.n_actions - 1)                                 # end the turn
    assert end.player != seat and not end.follows(root)


def test_the_look_ahead_spends_at_most_its_steps_per_option(monkeypatch):
    st, _ = unicorn_menu_with("Use Poach")
    view = SeatView(st, st.pending.player)
    steps = [0]
    apply = World.apply

    def counted(self, action, last=False):
        steps[0] += 1
        return apply(self, action, last)
    monkeypatch.setattr(World, "apply", counted)
    n = len(view.legal_actions())
    for follow in (1, 3, DEFAULT_FOLLOW):
        steps[0] = 0
        make_agent(f"greedy:{follow}", 0).act(view)
        assert n <= steps[0] <= n * follow
    steps[0] = 0
    make_agent("greedy:1", 0).act(view)
    assert steps[0] == n                      # one step ahead: one step an option


def test_mcts_with_follow_scores_its_leaves_after_their_actions_follow_ups():
    """Two iterations expand each first move once.  Cut after one decision
    (`mcts:2:1`), the raid's leaf is its cost (-1) and the point wins; cut
    there but scored after the vault pick (`mcts:2:1:8`), the raid's leaf is
    +2."""
    game = built_game(FOLLOWUP)
    for seed in range(5):
        assert first_turn(game, "mcts:2:1", seed) == ["Take 1 point"]
        assert first_turn(game, "mcts:2:1:8", seed) == ["Raid the vaults (costs 1 point)",
                                                       "The gold vault (3 points)"]


def test_mcts_scores_at_the_end_of_the_turn_so_it_raids_and_takes_the_gold():
    """By default an iteration is scored once the turn is over, so the raid is
    judged with its vault picked, never at its cost alone (200 iterations:
    with 40 a first raid into the empty vault can leave it unvisited)."""
    game = built_game(FOLLOWUP)
    for seed in range(5):
        assert first_turn(game, "mcts:200", seed) == ["Raid the vaults (costs 1 point)",
                                                     "The gold vault (3 points)"]


def test_mcts_searches_the_rivals_answer_inside_its_turn(game_copy):
    """With the alarm the rival's answer comes inside the raider's turn: the
    tree searches it as the rival's own choice (it always sounds the alarm),
    so the raid nets -1 and mcts takes the point."""
    folder = game_copy(FOLLOWUP, {"game.yaml": [("  alarm: 0 ", "  alarm: 1 ")]})
    game = built_game(folder)
    for seed in range(5):
        assert first_turn(game, "mcts:200", seed) == ["Take 1 point"]
