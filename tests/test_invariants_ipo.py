"""IPO under random play: 1,000 seeded games, 2 to 6 players, with every
invariant checked after every action.

After each action:
- `game.broken_invariants(st) == []`: the content's `invariants:` from
  content/ipo/game.yaml (the books balance through `game.ledger`, money never
  negative, 25 shares per active company, no safe company absorbed, no merger
  through a Poison Pill, board geometry, markers, hands...) plus the engine's
  own check that every card is in exactly one place;
- the 108 property tiles are each in exactly one of the tile zones (pool,
  racks, board, dead tiles).

At the end of each game: it ended by the rules (not at the `max_turns` cap),
with winners, and the winners hold the most money.

The games run in parallel on 2 processes; IPO_INVARIANT_GAMES overrides the
count (e.g. for a quick local run).
"""
from __future__ import annotations

import os
import random
import time
from concurrent.futures import ProcessPoolExecutor

GAMES = int(os.environ.get("IPO_INVARIANT_GAMES", "1000"))
WORKERS = 2
PLAYERS = (2, 3, 4, 5, 6)
TILES = 108
TILE_ZONES = ("tile_pool", "board", "dead_tiles")     # plus every player's rack

_GAME = None


def _game():
    global _GAME
    if _GAME is None:
        from cardc.engine import Game
        from cardc.project import load_bundle
        _GAME = Game(load_bundle("ipo"))
    return _GAME


def _tile_problems(game, st, tiles):
    slots = [game.slot(st, z) for z in TILE_ZONES]
    slots += [game.slot(st, "rack", p) for p in range(st.n)]
    seen = [c for s in slots for c in st.zones[s]]
    if len(seen) != TILES or set(seen) != tiles:
        missing = sorted(game.card_name[c] for c in tiles - set(seen))[:5]
        return [f"{len(seen)} tiles in the tile zones ({len(set(seen))} different); missing {missing}"]
    return []


def _ending(game, st):
    """Which end condition held when the game ended."""
    f = game.functions
    companies = st.zones[game.slot(st, "companies")]
    if any(f["size_of"](st, {"c": c}) >= game.params["end_size"] for c in companies):
        return "a company of 41+ tiles"
    if companies and all(f["is_safe"](st, {"c": c}) for c in companies):
        return "every company public and safe"
    if not st.zones[game.slot(st, "tile_pool")]:
        return "tile pool empty"
    return "other"


def play(jobs):
    """Play (seed, players) games; return problems, endings, decisions, cpu seconds."""
    game = _game()
    tiles = {i for i, k in enumerate(game.card_field["kind"]) if k == "tile"}
    assert len(tiles) == TILES
    problems, endings, decisions = [], {}, 0
    t0 = time.process_time()
    for seed, n in jobs:
        st = game.new_state(n, seed=seed)
        rnd = random.Random(seed)
        where = f"seed {seed}, {n} players"
        broken = game.broken_invariants(st) + _tile_problems(game, st, tiles)
        while not broken and not st.is_terminal():
            st.apply(rnd.randrange(len(st.legal_actions())))
            broken = game.broken_invariants(st) + _tile_problems(game, st, tiles)
        decisions += st.decisions
        if broken:
            problems.append(f"{where}, after {st.decisions} decisions (turn {st.turn}): {broken}")
            continue
        if st.capped:
            problems.append(f"{where}: stopped by the max_turns cap at turn {st.turn}")
            continue
        money = [st.player_counters["money"][p] for p in range(n)]
        best = max(money)
        if not st.winners or st.winners != [p for p in range(n) if money[p] == best]:
            problems.append(f"{where}: winners {st.winners} but money {money}")
        kind = _ending(game, st)
        endings[kind] = endings.get(kind, 0) + 1
    return problems, endings, decisions, time.process_time() - t0


def test_random_games_keep_every_invariant():
    jobs = [(seed, PLAYERS[seed % len(PLAYERS)]) for seed in range(GAMES)]
    chunks = [jobs[i::WORKERS * 4] for i in range(WORKERS * 4)]
    start = time.perf_counter()
    with ProcessPoolExecutor(WORKERS) as pool:
        results = list(pool.map(play, [c for c in chunks if c]))
    wall = time.perf_counter() - start
    problems = [p for r in results for p in r[0]]
    endings: dict = {}
    for r in results:
        for k, v in r[1].items():
            endings[k] = endings.get(k, 0) + v
    decisions = sum(r[2] for r in results)
    cpu = sum(r[3] for r in results)
    print(f"\nipo invariants: {GAMES} games, {decisions} decisions, {wall:.1f}s wall, "
          f"{cpu:.1f}s cpu on {WORKERS} processes; endings {endings}")
    assert not problems, f"{len(problems)} of {GAMES} games broke a rule:\n" + "\n".join(problems[:20])
    assert sum(endings.values()) == GAMES
