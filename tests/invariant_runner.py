"""Play many seeded random games on all cores and check invariants after
every action: the content's own `invariants:` and the engine's "every card
in exactly one place".  Returns counts a test asserts on and prints."""
from __future__ import annotations

import os
import random
import statistics
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

_GAMES: dict = {}


def _game(name):
    if name not in _GAMES:
        from cardc.engine import Game
        from cardc.project import load_bundle
        _GAMES[name] = Game(load_bundle(name))
    return _GAMES[name]


@dataclass
class Summary:
    games: int = 0
    winners: int = 0
    capped: int = 0
    turns: list = field(default_factory=list)
    problems: list = field(default_factory=list)

    def add(self, other):
        self.games += other.games
        self.winners += other.winners
        self.capped += other.capped
        self.turns += other.turns
        self.problems += other.problems

    def median_turns(self):
        return statistics.median(self.turns) if self.turns else 0


def play_batch(args):
    """Games (seed, players) of one game id; `extra(st)` checks return problems."""
    name, jobs, extra_name = args
    game = _game(name)
    extra = globals().get(extra_name) if extra_name else None
    out = Summary()
    for seed, players in jobs:
        st = game.new_state(players, seed=seed)
        rnd = random.Random(seed)
        while not st.is_terminal():
            st.apply(rnd.randrange(len(st.legal_actions())))
            broken = game.broken_invariants(st)
            if extra:
                broken += extra(st)
            if broken:
                out.problems.append(f"seed {seed}, {players} players, after {st.decisions} "
                                    f"decisions: {broken}")
                break
        out.games += 1
        out.winners += bool(st.winners)
        out.capped += st.capped
        out.turns.append(st.turn)
    return out


def run(name, players, games, seed0=0, extra=None, workers=None) -> Summary:
    jobs = [(seed0 + i, players[i % len(players)]) for i in range(games)]
    workers = workers or min(4, os.cpu_count() or 1)
    chunks = [jobs[i::workers * 4] for i in range(workers * 4)]
    total = Summary()
    with ProcessPoolExecutor(workers) as pool:
        for part in pool.map(play_batch, [(name, c, extra) for c in chunks if c]):
            total.add(part)
    return total
