"""Caching function results (by the state parts they read) and building
cheap functions in place must change nothing: the same games, decision for
decision, with the cache on or off, for random and greedy (cloning) agents."""
from __future__ import annotations

import random

import pytest

from cardc.agents import make_agent
from cardc.engine import Game
from cardc.project import load_bundle


def play(game, n, seed, agent):
    st = game.new_state(n, seed=seed)
    agents = [make_agent(agent, seed * 10 + i) for i in range(n)]
    rnd = random.Random(seed)
    while not st.is_terminal():
        if agent == "random":
            st.apply(rnd.randrange(len(st.legal_actions())))
        else:
            st.apply(agents[st.current_player()].act(st, st.current_player()))
    return st.to_json()


@pytest.mark.parametrize("name, agent, games", [
    ("unicorn", "greedy", 2), ("startup", "random", 2), ("ipo", "random", 2), ("ipo", "greedy", 1)])
def test_cache_changes_nothing(name, agent, games):
    game = Game(load_bundle(name))
    for seed in range(games):
        game.cache_functions = True
        cached = play(game, 3, seed, agent)
        game.cache_functions = False
        plain = play(game, 3, seed, agent)
        game.cache_functions = True
        assert cached == plain
