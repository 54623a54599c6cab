"""Agents see only what their seat may see: in a guessing game no agent
finds the hidden Ace more often than chance allows.

tests/fixtures/games/guess: one Ace among four face-down cards, three on
the table and one in P2's hand; P1 picks a table card blind and wins with
the Ace.  A fair bot finds it 1 time in 4 whatever it does; a bot that read
the real state (the cards, the pending choice's card ids, or the game's
future shuffles) would find it 3 times in 4."""
from __future__ import annotations

import math
from pathlib import Path

import pytest

from cardc.agents import make_agent
from cardc.agents.view import SeatView
from cardc.engine import Game
from cardc.project import build_folder

GUESS = Path(__file__).parent / "fixtures" / "games" / "guess"
GAMES = 200


def binomial_range(n: int, p: float, tail: float = 0.0005) -> tuple[int, int]:
    """The central range of Binomial(n, p) holding all but `tail` at each end."""
    pmf = [math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]
    lo, acc = 0, 0.0
    while acc + pmf[lo] < tail:
        acc += pmf[lo]
        lo += 1
    hi, acc = n, 0.0
    while acc + pmf[hi] < tail:
        acc += pmf[hi]
        hi -= 1
    return lo, hi


def built_game(folder) -> Game:
    built = build_folder(folder)
    assert built.bundle is not None and not built.diags.has_errors
    return Game(built.bundle)


@pytest.fixture(scope="module")
def guess_game():
    return built_game(GUESS)


def found_ace(game, agent, seed) -> bool:
    st = game.new_state(2, seed=seed)
    assert st.pending.player == 0 and len(st.pending.values) == 3
    st.apply(agent.act(SeatView(st, 0)))
    assert st.terminal
    return st.winners == [0]


def test_a_peeking_bot_would_find_the_ace(guess_game):
    """The fixture tells a peeker from a fair bot: reading the real cards
    finds the Ace whenever it is on the table."""
    hits = 0
    for seed in range(GAMES):
        st = guess_game.new_state(2, seed=seed)
        aces = [i for i, c in enumerate(st.pending.values) if guess_game.card_field["id"][c] == "ace"]
        hits += bool(aces)
    lo, hi = binomial_range(GAMES, 0.25)
    assert hits > hi


@pytest.mark.parametrize("spec", ["random", "greedy", "mcts:40"])
def test_no_agent_finds_the_hidden_ace_more_than_chance(guess_game, spec):
    hits = sum(found_ace(guess_game, make_agent(spec, 1000 + seed), seed) for seed in range(GAMES))
    lo, hi = binomial_range(GAMES, 0.25)
    assert lo <= hits <= hi, f"{spec} found the Ace {hits} times in {GAMES} (chance: {lo}..{hi})"


def test_a_resampled_world_keeps_what_the_seat_sees(guess_game):
    """The guess keeps zone sizes and the seat's own view; the pending blind
    choice names the imagined world's cards, in the places it sees."""
    import random
    st = guess_game.new_state(2, seed=5)
    view = SeatView(st, 0)
    world = view.resample(random.Random(1))._st
    assert [len(z) for z in world.zones] == [len(z) for z in st.zones]
    assert world.observation(0)["zones"] == st.observation(0)["zones"]
    table = guess_game.slot(world, "table", None)
    assert world.pending.values == world.zones[table]
    assert world.rng != st.rng and world.seed is None


# ---------------------------------------------------------------- a local naming a hidden card
GUESS_LOCAL = Path(__file__).parent / "fixtures" / "games" / "guess_local"


@pytest.fixture(scope="module")
def local_game():
    return built_game(GUESS_LOCAL)


def took_ace(game, agent, seed) -> bool:
    st = game.new_state(2, seed=seed)
    assert st.pending.kind == "ask" and st.pending.player == 0
    st.apply(agent.act(SeatView(st, 0)))
    assert st.terminal
    return st.winners == [0]


def test_a_local_naming_a_hidden_card_names_the_imagined_card(local_game):
    """The rules hold the top face-down card in a local while P1 decides: in
    a resampled world the local names the imagined top card, not the real one."""
    import random
    for seed in range(20):
        st = local_game.new_state(2, seed=seed)
        real_table = st.zones[local_game.slot(st, "table", None)]
        assert st.stack[-1].env["c"] == real_table[0]
        world = SeatView(st, 0).resample(random.Random(seed))._st
        assert world.stack[-1].env["c"] == world.zones[local_game.slot(world, "table", None)][0]
        assert st.stack[-1].env["c"] == real_table[0]       # the real game is untouched


@pytest.mark.parametrize("spec, games", [("greedy", 1000), ("mcts:40", GAMES)])
def test_no_agent_learns_a_hidden_card_from_a_local(local_game, spec, games):
    """Take the top card or the bottom one: 1 in 4 for a fair bot.  Had the
    imagined game kept the local's real card, greedy would take the top card
    whenever it is the Ace: measured without the remapping, greedy won 400
    of 1000 games and mcts:40 95 of 200."""
    hits = sum(took_ace(local_game, make_agent(spec, 2000 + seed), seed) for seed in range(games))
    lo, hi = binomial_range(games, 0.25)
    assert lo <= hits <= hi, f"{spec} took the Ace {hits} times in {games} (chance: {lo}..{hi})"


# ---------------------------------------------------------------- events, counters, attachments
# Three more places of a state that name or mark a card the seat cannot see
# (State.determinized).  Each fixture is a bet a fair bot wins 1 time in 4,
# whatever it does; the rates "without" below were measured with the
# determinized of before this change (seeds as in the tests).
GAMES_DIR = Path(__file__).parent / "fixtures" / "games"


@pytest.fixture(scope="module")
def gap_games():
    return {name: built_game(GAMES_DIR / name)
            for name in ("guess_event", "guess_counter", "guess_attached")}


def bet_won(game, agent, seed) -> bool:
    st = game.new_state(2, seed=seed)
    assert st.pending.player == 0
    st.apply(agent.act(SeatView(st, 0)))
    assert st.terminal
    return st.winners == [0]


@pytest.mark.parametrize("fixture, spec, games", [
    # without: greedy 372 of 1000, mcts:40 103 of 200
    ("guess_event", "greedy", 1000), ("guess_event", "mcts:40", GAMES),
    # without: greedy 332 of 1000, mcts:40 93 of 200 (left with the place
    # instead of the card: 340 and 97)
    ("guess_counter", "greedy", 1000), ("guess_counter", "mcts:40", GAMES),
    # without: greedy 332 of 1000, mcts:40 93 of 200 (the Pin left under
    # the real card's place: 330 and 97)
    ("guess_attached", "greedy", 1000), ("guess_attached", "mcts:40", GAMES),
])
def test_no_agent_learns_a_hidden_card_from_events_counters_or_attachments(gap_games, fixture, spec, games):
    game = gap_games[fixture]
    hits = sum(bet_won(game, make_agent(spec, 2000 + seed), seed) for seed in range(games))
    lo, hi = binomial_range(games, 0.25)
    assert lo <= hits <= hi, f"{spec} won the {fixture} bet {hits} times in {games} (chance: {lo}..{hi})"


def test_a_window_event_names_the_imagined_card_in_the_real_cards_place(gap_games):
    """The bet window's event names the top face-down card: in a resampled
    world it names the imagined top card; the real event is untouched."""
    import random
    game = gap_games["guess_event"]
    for seed in range(20):
        st = game.new_state(2, seed=seed)
        table = game.slot(st, "table", None)
        assert st.pending.kind == "window" and st.events[-1]["card"] == st.zones[table][0]
        before = [dict(e) for e in st.events]
        world = SeatView(st, 0).resample(random.Random(seed))._st
        assert world.events[-1]["card"] == world.zones[table][0]
        assert st.events == before


def test_the_counters_of_unseen_cards_are_imagined_at_their_start(gap_games):
    """The marked card is face down: no imagined world marks any card (the
    real state keeps its token)."""
    import random
    game = gap_games["guess_counter"]
    for seed in range(20):
        st = game.new_state(2, seed=seed)
        assert sorted(st.card_counters["marked"][c] for c in range(len(game.instances))) == [0, 0, 0, 1]
        world = SeatView(st, 0).resample(random.Random(seed))._st
        assert not any(world.card_counters["marked"])
        assert sum(st.card_counters["marked"]) == 1


def test_a_guess_after_a_counter_moved_to_another_unseen_card_imagines_it_at_start(gap_games):
    """What a guess knows of the counters of unseen cards is kept between
    guesses for the list of values it read (`table._off_start`): when the
    real game moves the token to another face-down card (a write, so a list
    of its own), the next guess starts that card at its start value too."""
    import random
    from cardc.engine.table import _guess_plan
    game = gap_games["guess_counter"]
    st = game.new_state(2, seed=0)
    assert not any(SeatView(st, 0).resample(random.Random(0))._st.card_counters["marked"])
    unseen = [c for _, real, _ in _guess_plan(st, 0)[2] for c in real]
    (marked,) = [c for c in unseen if st.card_counters["marked"][c]]
    other = next(c for c in unseen if c != marked)
    values = st.own_cc("marked")            # as a `set` op writes it
    values[marked], values[other] = 0, 1
    st.version += 1
    world = SeatView(st, 0).resample(random.Random(1))._st
    assert not any(world.card_counters["marked"]), "the moved token shows in the guess"
    assert st.card_counters["marked"][other] == 1


def test_an_unseen_pile_goes_under_a_random_unseen_card_of_its_zone(gap_games):
    """The Pin stays under a deck card (the deck holds one pile), but which
    card, and where in the deck, is imagined: every position and every card
    holds it in some of 400 worlds of one real game, and the real game keeps
    its own Pin."""
    import random
    game = gap_games["guess_attached"]
    st = game.new_state(2, seed=3)
    deck = game.slot(st, "deck", None)
    (pin,) = [c for c in range(len(game.instances)) if game.card_field["id"][c] == "pin"]
    real_host = st.host[pin]
    positions, hosts = set(), set()
    rnd = random.Random(0)
    for _ in range(400):
        world = SeatView(st, 0).resample(rnd)._st
        h = world.host[pin]
        assert world.under == {h: [pin]} and world.loc[pin] == -1 and world.zone_of(pin) == deck
        positions.add(world.zones[deck].index(h))
        hosts.add(h)
    assert positions == {0, 1, 2, 3} and len(hosts) == 4
    assert st.host == {pin: real_host} and st.under == {real_host: [pin]}


@pytest.mark.parametrize("name", ["unicorn", "startup", "ipo"])
def test_a_resampled_world_of_a_shipped_game_is_whole_and_leaves_the_real_one(name):
    """In random games of the shipped games: every card is in exactly one
    place of the imagined world (a zone, or under a host, with `loc`, `host`
    and `under` agreeing), what the seat sees is as in the real game (cards,
    their counters and the cards under them), and the real game is unchanged."""
    import json
    import random
    from cardc.engine.table import ATTACHED
    from cardc.project import load_bundle
    game = Game(load_bundle(name))
    r = random.Random(11)
    checked = 0
    for seed in range(4):
        st = game.new_state(3, seed=seed)
        while not st.is_terminal():
            if r.random() < 0.1 or (st.under and r.random() < 0.5):
                p = st.pending.player
                before = json.dumps(st.to_json(), sort_keys=True)
                world = SeatView(st, p).resample(random.Random(seed))._st
                assert json.dumps(st.to_json(), sort_keys=True) == before
                where = {}
                for slot, cards in enumerate(world.zones):
                    for c in cards:
                        assert c not in where and world.loc[c] == slot
                        where[c] = slot
                for h, cards in world.under.items():
                    for a in cards:
                        assert a not in where and world.loc[a] == ATTACHED and world.host[a] == h
                        where[a] = ATTACHED
                assert len(world.host) == sum(map(len, world.under.values()))
                assert sorted(where) == sorted(c for c in range(len(st.loc)) if st.loc[c] != -2)
                assert world.observation(p)["zones"] == st.observation(p)["zones"]
                checked += 1
            st.apply(r.randrange(len(st.legal_actions())))
    assert checked > 50


def test_a_pile_under_a_card_the_seat_was_shown_stays_under_it(gap_games):
    """Revealed to P1, the pinned card is seen: it keeps its place and the
    Pin stays under it in every imagined world (the Pin itself is unseen,
    the only card of its back, so it stays the Pin)."""
    import random
    game = gap_games["guess_attached"]
    st = game.new_state(2, seed=3)
    (pin,) = [c for c in range(len(game.instances)) if game.card_field["id"][c] == "pin"]
    host = st.host[pin]
    st.reveal(host, 0)
    deck = game.slot(st, "deck", None)
    rnd = random.Random(0)
    for _ in range(50):
        world = SeatView(st, 0).resample(rnd)._st
        assert world.host == {pin: host} and world.under == {host: [pin]}
        assert world.zones[deck].index(host) == st.zones[deck].index(host)


@pytest.mark.parametrize("name", ["unicorn", "startup", "ipo"])
def test_what_a_guess_keeps_between_guesses_is_what_it_would_work_out_again(name):
    """The game keeps, between guesses, which cards each card counter marks
    and how each hidden zone's places fall by back, for the list they were
    found in (`table._off_start`, `table._zone_places`): at decisions of
    random games of each shipped game, with the real game moving on between
    guesses as a bot's does, the plan of a guess is the one worked out with
    nothing kept."""
    import random
    from cardc.engine import table
    from cardc.project import load_bundle
    game = Game(load_bundle(name))
    r = random.Random(5)
    checked = 0
    for seed in range(3):
        st = game.new_state(4, seed=seed)
        while not st.is_terminal():
            if r.random() < 0.5:
                p = st.pending.player
                st.determinized(p, random.Random(seed))         # what it keeps, it keeps here
                kept = table._guess_plan(st, p)                 # the plan that guess made
                st.__dict__.pop("_guess_plan")
                st.__dict__.pop("_unseen_plan")
                saved = {k: game.__dict__.pop(k) for k in ("_off_start", "_zone_places") if k in game.__dict__}
                fresh = table._guess_plan(st, p)
                game.__dict__.update(saved)                     # kept on for the next decisions
                assert repr(kept) == repr(fresh), f"{name} seed {seed}, decision {st.decisions}"
                checked += 1
            st.apply(r.randrange(len(st.pending.values)))
    assert checked > 100
