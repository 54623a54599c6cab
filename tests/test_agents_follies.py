"""mcts does not waste its turns on moves that `eval` cannot tell apart from
doing nothing.  Issue 40 watched mcts at ipo, every iteration then scored by
`eval` at the end of the turn: it drew two business cards with a full hand
and discarded the one it kept, claimed a land option and lifted it in the
same turn (no refund), and sold shares with Broker's Fee and bought the
same back.  `eval` (net worth) scores each of these as a tie with passing;
only a look past the turn sees what they throw away.

The follies are counted from the labels a person reads (`action_to_string`)
and the decisions' prompts, seat by seat and turn by turn: game nouns live
here, in the test, never in the agent."""
from __future__ import annotations

import pytest

from cardc.agents import make_agent
from cardc.agents.view import SeatView
from cardc.engine import Game
from cardc.project import build_folder
from conftest import CONTENT

FOLLIES = ("draw and discard the kept card", "claim and lift", "sell and buy back")


def play_logged(game, specs, seed):
    """A game played by the agents `specs` (one a seat): every decision as
    (turn, player, prompt, label of the action taken), and the end state."""
    st = game.new_state(len(specs), seed=seed)
    agents = [make_agent(s, seed * 100 + i) for i, s in enumerate(specs)]
    log = []
    while not st.terminal:
        p = st.pending.player
        a = agents[p].act(SeatView(st, p)) if len(st.pending.values) > 1 else 0
        log.append((st.turn, p, st.pending.prompt or "", st.action_to_string(a)))
        st.apply(a)
    return log, st


def follies(log, seat) -> dict:
    """How often `seat` committed each folly (FOLLIES) in a logged ipo game."""
    kept, claimed, sold = {}, {}, {}
    counts = dict.fromkeys(FOLLIES, 0)
    for turn, p, prompt, label in log:
        if p != seat:
            continue
        if prompt.startswith("Keep a business card"):
            kept[turn] = label
        elif prompt.startswith("Hand limit") and kept.get(turn) == label:
            counts["draw and discard the kept card"] += 1
        elif prompt.startswith("Claim an empty space"):
            claimed.setdefault(turn, []).append(label)
        elif label.startswith("Lift your land option on "):
            cell = label[len("Lift your land option on "):].split(" ")[0]
            if cell in claimed.get(turn, []):
                counts["claim and lift"] += 1
        elif label == "Pass":           # the stop of an optional choice names no company
            continue
        elif prompt.startswith("Sell a share"):
            sold.setdefault(turn, []).append(label)
        elif prompt.startswith("Buy a share") and label in sold.get(turn, []):
            counts["sell and buy back"] += 1
            sold[turn].remove(label)
    return counts


def test_the_folly_counter_sees_each_folly():
    """The counter counts each folly once, for the seat that made it, and
    not a card kept and another discarded, a lift in a later turn, nor a
    sale stopped at once and a buy stopped at once."""
    log = [(3, 0, "Keep a business card", "Land Grab"),
           (3, 0, "Hand limit 3: discard a business card", "Land Grab"),
           (3, 0, "Claim an empty space with a land option", "B4"),
           (3, 0, "Free moves (they never cost your buy)", "Lift your land option on B4 (no refund)"),
           (3, 0, "Sell a share at its current price (or stop)", "Oat Couture"),
           (3, 0, "Buy a share at its current price (or stop)", "Oat Couture"),
           (3, 0, "Buy a share at its current price (or stop)", "Oat Couture"),
           (4, 1, "Sell a share at its current price (or stop)", "Pass"),
           (4, 1, "Buy a share at its current price (or stop)", "Pass"),
           (4, 1, "Keep a business card", "Quiet Period"),
           (4, 1, "Hand limit 3: discard a business card", "Angel Round"),
           (4, 1, "Claim an empty space with a land option", "C5"),
           (6, 1, "Free moves (they never cost your buy)", "Lift your land option on C5 (no refund)")]
    assert follies(log, 0) == dict.fromkeys(FOLLIES, 1)
    assert follies(log, 1) == dict.fromkeys(FOLLIES, 0)


GAMES = 10
#: the setting that breaks eval's ties towards fewer moves (keyed by stable
#: action keys, each decision costing 0.001): not the default, because it
#: also passes up the moves whose worth shows only after the turn, and wins
#: less (docs/agents.md: ipo 60.6% against 80.0%, startup 75.0% against 84.4%)
TIDY = "mcts:keyed=1:cost=0.001"


def count_follies(spec) -> dict:
    """Each folly's count over GAMES seeded ipo games, `spec` against greedy,
    the seats alternating."""
    game = Game(build_folder(CONTENT / "ipo").bundle)
    total = dict.fromkeys(FOLLIES, 0)
    for seed in range(GAMES):
        seat = seed % 2
        specs = [spec, "greedy"] if seat == 0 else ["greedy", spec]
        log, _ = play_logged(game, specs, seed)
        for k, v in follies(log, seat).items():
            total[k] += v
    return total


@pytest.fixture(scope="module")
def mcts_follies() -> dict:
    return count_follies(TIDY)


@pytest.mark.slow
@pytest.mark.parametrize("folly", [
    pytest.param(FOLLIES[0], marks=pytest.mark.xfail(
        reason="open: 1 draw-and-discard in these 10 games (0 before the seat memory and the hard "
               "boundary changed the agents' draws)")),
    pytest.param(FOLLIES[1], marks=pytest.mark.xfail(
        reason="open: lifting and keeping the option tie in eval and take as many moves, so the "
               "decision cost cannot break the tie (1 lift in the first 6 games)")),
    FOLLIES[2]])
def test_mcts_commits_each_ipo_folly_less_than_once_in_ten_games(mcts_follies, folly):
    assert mcts_follies[folly] < GAMES / 10, f"follies in {GAMES} games: {mcts_follies}"


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="open: the default mcts (keyed by position, no decision cost) wins "
                   "more and commits the follies often (36 draw-and-discards, 19 claim-and-lifts, 1 sell-"
                   "and-buy-back in these 10 games): eval at the turn's end cannot tell them from buying")
def test_the_default_mcts_commits_no_folly():
    assert all(n < GAMES / 10 for n in count_follies("mcts").values())
