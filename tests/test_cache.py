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


def mini_with(game_copy, functions: str, turn_start: str) -> Game:
    """The mini game with more functions (YAML under `functions:`) and the
    lines `turn_start` in place of its turn's `me.plays = 1`."""
    from cardc.project import build_folder
    folder = game_copy(edits={"rules.yaml": [("functions:\n", "functions:\n" + functions)],
                              "game.yaml": [("    me.plays = 1\n", turn_start)]})
    built = build_folder(folder)
    assert built.bundle, built.diags.render()
    return Game(built.bundle)


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


def test_a_value_read_before_a_write_is_not_taken_for_current_after_it(game_copy):
    """`me.plays = plays_of(me) + 1` reads the cached function before the
    write; the read after it must see the new count, not the entry cached on
    the way in (the version moves on after each write, not before it)."""
    game = mini_with(game_copy,
                     "  plays_of:\n    params: {p: player}\n"
                     "    returns: int\n    expr: sum([p.plays for q in players if q == p])\n",
                     "    me.plays = plays_of(me) + 1\n"
                     "    assert plays_of(me) == 1, \"plays_of(me) is {plays_of(me)}\"\n"
                     "    me.plays = 1\n")
    assert game.fn_simple.get("plays_of") is not True      # it is cached, or this tests nothing
    st = game.new_state(2, seed=0)
    rnd = random.Random(0)
    while not st.is_terminal() and st.decisions < 40:
        st.apply(rnd.randrange(len(st.legal_actions())))
    assert st.decisions >= 10


def test_a_function_reading_attachments_sees_an_attach_and_a_detach():
    """`host(c)` reads which card is attached to which: a part of its own
    ("attachments", see deps.py), so a cached function that reads it stays
    valid while other things change and is computed again after an attach
    or a detach (unicorn's `banked`: a card tucked under another is not banked)."""
    game = Game(load_bundle("unicorn"))
    assert "attachments" in game.fn_deps["banked"] and "*" not in game.fn_deps["banked"]
    banked = game.cached_function("banked")
    st = game.new_state(3, seed=0)
    bank = st.zones[game.slot(st, "bank", 0)]
    a, b = st.zones[game.slot(st, "draw", None)][:2]
    st.move(a, game.slot(st, "bank", 0))
    st.move(b, game.slot(st, "bank", 0))
    st.version += 1
    assert sorted(banked(st, 0)) == sorted(bank) == sorted([a, b])
    cache = game.cache_slots["banked"]
    assert 0 in st.cache[cache]
    st.version += 1
    st.touch("g:nothing_read")          # a change to what it does not read keeps the entry
    assert 0 in st.cache[cache]
    st.attach(a, b)
    assert 0 not in st.cache[cache], "an attach forgets it"
    st.version += 1
    assert banked(st, 0) == [b]
    st.detach(a)
    assert 0 not in st.cache[cache], "a detach forgets it"
    st.version += 1
    assert sorted(banked(st, 0)) == sorted([a, b])


def test_a_function_of_some_cells_follows_those_cells_only():
    """ipo's `companies_touching(x)` reads the board on x's neighbours only,
    and the company of the tiles there: it depends on those cells (a part of
    their own, deps.cell_part), so a tile placed or a company changed on a
    neighbour makes it stale, and a tile placed anywhere else does not."""
    game = Game(load_bundle("ipo"))
    assert game.fn_deps["companies_touching"] == {'cells:board|["call","neighbors",[["arg",0]],{}]'}
    assert "company" in game.covered_counters
    touching = game.cached_function("companies_touching")
    st = game.new_state(2, seed=0)
    board = game.slot(st, "board", None)
    cells = game.card_field["cell"]
    x = "E5"
    around = set(game.grid_neighbors[x])
    assert not any(cells[t] in around | {x} for t in st.zones[board])
    pool = [t for t in range(len(game.instances)) if cells[t] is not None and st.loc[t] != board]
    near = next(t for t in pool if cells[t] in around)
    far = next(t for t in pool if cells[t] not in around | {x})
    firm = st.zones[game.slot(st, "market", None)][0]      # a company card

    def read():
        st.version += 1         # as after any step: only what it reads can make it stale
        return touching(st, x)

    assert read() == []
    entry = st.cache[game.cache_slots["companies_touching"]][x]
    st.own_cc("company")[far] = firm
    st.move(far, board)
    assert read() == [] and st.cache[game.cache_slots["companies_touching"]][x] is entry, \
        "a tile far away leaves the value as it was"
    st.own_cc("company")[near] = firm
    st.move(near, board)
    assert read() == [firm]
    st.own_cc("company")[near] = None
    st.counter_written(near)    # what a `set` of the counter does (blocks.py)
    assert read() == []


def test_cards_holding_one_value_of_a_counter_follow_that_value_only():
    """`[t for t in board if t.company == c]` (ipo's `tiles_of`) depends on
    the board's cards that hold `c` (deps.keyed_part): a tile of another
    company coming, or changing hands between two others, leaves the value
    as it was; a tile joining or leaving `c` makes it stale.  Every answer
    is the scan's, in zone order."""
    game = Game(load_bundle("ipo"))
    assert game.fn_deps["tiles_of"] == {'keyed:board|company|["arg",0]'}
    tiles_of = game.cached_function("tiles_of")
    slot = game.cache_slots["tiles_of"]
    st = game.new_state(2, seed=0)
    board = game.slot(st, "board", None)
    a, b, c = st.zones[game.slot(st, "market", None)][:3]
    tiles = st.zones[game.slot(st, "tile_pool", None)][:6]
    for t, firm in zip(tiles, [a, b, a, None, a]):
        st.own_cc("company")[t] = firm
        st.move(t, board)

    def scan(firm):
        return [t for t in st.zones[board] if st.card_counters["company"][t] == firm]

    def read(firm):
        st.version += 1         # as after any step: only what it reads can make it stale
        return tiles_of(st, firm)

    def set_company(t, firm):   # what a `set` of the counter does (blocks.py)
        old = st.card_counters["company"][t]
        st.own_cc("company")[t] = firm
        st.key_written(t, "company", old, firm)

    assert [read(f) for f in (a, b, None)] == [scan(a), scan(b), scan(None)]
    assert read(a) == [tiles[4], tiles[2], tiles[0]]         # zone order: the last placed on top
    entry = st.cache[slot][a]
    st.own_cc("company")[tiles[5]] = b
    st.move(tiles[5], board)
    set_company(tiles[1], c)
    assert read(a) == scan(a) and st.cache[slot][a] is entry, "a's tiles are as they were"
    assert read(b) == scan(b) == [tiles[5]]
    set_company(tiles[2], b)
    assert [read(f) for f in (a, b, c)] == [scan(a), scan(b), scan(c)] == \
        [[tiles[4], tiles[0]], [tiles[5], tiles[2]], [tiles[1]]]
    st.move(tiles[0], game.slot(st, "tile_pool", None))
    assert read(a) == [tiles[4]]


def test_a_function_asking_only_whether_a_zone_is_empty_follows_that_only():
    """ipo's `end_available` reads the tile pool only as `count(tile_pool)
    == 0` (deps.emptiness_zone): a tile drawn from a pool that still holds
    tiles leaves the value as it was; the draw that empties the pool, and the
    first tile back in, make it stale.  Each answer is the plain body's."""
    game = Game(load_bundle("ipo"))
    assert "empty:tile_pool" in game.fn_deps["end_available"]
    assert "z:tile_pool" not in game.fn_deps["end_available"]
    end_available = game.cached_function("end_available")
    plain = game.body_function("end_available")
    slot = game.cache_slots["end_available"]
    st = game.new_state(2, seed=0)
    pool = game.slot(st, "tile_pool", None)
    aside = game.slot(st, "dead_tiles", None)

    def read():
        st.version += 1         # as after any step: only what it reads can make it stale
        value = end_available(st)
        assert value == plain(st)
        return value

    assert read() is False
    while len(st.zones[pool]) > 1:
        st.move(st.zones[pool][0], aside)
        assert st.cache[slot].get(0) is False, "a draw that leaves tiles keeps the value"
        assert read() is False
    st.move(st.zones[pool][0], aside, "bottom")
    assert 0 not in st.cache[slot] and read() is True, "the pool ran dry: the end is available"
    st.move(st.zones[aside][0], pool)
    assert read() is False
    st.move_zone(aside, pool)
    assert read() is False and st.cache[slot][0] is False
    st.move_zone(pool, aside)
    assert read() is True, "a whole pile moved away empties the pool"


@pytest.mark.parametrize("text, zone", [
    ("count(tile_pool) == 0", "tile_pool"), ("count(tile_pool) > 0", "tile_pool"),
    ("0 < count(tile_pool)", "tile_pool"), ("count(tile_pool) >= 1", "tile_pool"),
    ("1 > count(tile_pool)", "tile_pool"), ("count(tile_pool) != 0", "tile_pool"),
    ("count(tile_pool) > 1", None), ("count(tile_pool) == 2", None),
    ("count(tile_pool) >= 0", None), ("count(tile_pool) < 0", None)])
def test_which_comparisons_ask_only_whether_a_zone_is_empty(text, zone):
    from cardc.engine.deps import emptiness_zone
    from cardc.ir import nodes
    count = ["call", "count", [["cards", ["zone", "tile_pool"]]], {}]
    left, op, right = text.split(" ")
    side = {"count(tile_pool)": count}
    ir = ["cmp", op, side.get(left) or ["lit", int(left)], side.get(right) or ["lit", int(right)]]
    assert emptiness_zone(nodes.parse(ir)) == zone


def test_a_callees_cells_and_value_are_worked_out_from_the_callers_arguments():
    """A function calling one that reads some cells, or the cards of one
    value, reads the same cells or value worked out from its own arguments
    (deps.cells_called, keyed_called): its parameters become their
    positions, ["arg", i], and an argument worked out from anything else
    (or none passed) makes it read the whole zone."""
    from cardc.engine.deps import cells_called, keyed_called
    from cardc.ir import nodes
    near = 'cells:board|["call","neighbors",[["arg",1]],{}]'
    args = [nodes.parse(["var", "x"]), nodes.parse(["call", "cell", [["var", "c"]], {}])]
    assert cells_called(near, args, ("x", "c")) == 'cells:board|["call","neighbors",[["call","cell",[["arg",1]],{}]],{}]'
    assert cells_called(near, args, ("x",)) == "z:board"
    assert cells_called(near, args[:1], ("x",)) == "z:board"
    assert cells_called('cells:board|["arg",0]', [nodes.parse(["lit", "b2"])], ()) == 'cells:board|["lit","b2"]'
    keyed = 'keyed:claims|claim|["arg",0]'
    assert keyed_called(keyed, [nodes.parse(["var", "s"])], ("p", "s")) == {'keyed:claims|claim|["arg",1]'}
    assert keyed_called(keyed, [], ()) == {'keyed:claims|claim|["lit",null]'}
    assert keyed_called(keyed, [nodes.parse(["gctr", "round"])], ()) == {"z:claims", "c:claim"}


def test_cards_of_one_value_in_every_players_zone_follow_that_value_only():
    """ipo's `claims_at(p, x)`, p's markers whose `claim` is x, depends on
    the markers on x, in anyone's claims: a claim on another space, or a
    marker taken back from another space, leaves the value as it was; a
    marker set on x makes it stale."""
    game = Game(load_bundle("ipo"))
    assert game.fn_deps["claims_at"] == {'keyed:claims|claim|["arg",1]'}
    assert game.fn_deps["blocked_for"] == {'keyed:claims|claim|["arg",1]'}
    claims_at = game.cached_function("claims_at")
    slot = game.cache_slots["claims_at"]
    st = game.new_state(2, seed=0)
    mine, theirs = (st.zones[game.slot(st, "markers", p)] for p in (0, 1))

    def read():
        st.version += 1         # as after any step: only what it reads can make it stale
        return claims_at(st, 0, "C3")

    def set_claim(m, x):        # what a `set` of the counter does (blocks.py)
        old = st.card_counters["claim"][m]
        st.own_cc("claim")[m] = x
        st.key_written(m, "claim", old, x)

    assert read() == []
    entry = st.cache[slot]["C3"][0]     # keyed by the cell first (stale.Stale.outer)
    m = theirs[0]
    set_claim(m, "D4")
    st.move(m, game.slot(st, "claims", 1))
    mm = mine[0]
    set_claim(mm, "E5")
    st.move(mm, game.slot(st, "claims", 0))
    set_claim(mm, "F6")
    assert read() == [] and st.cache[slot]["C3"][0] is entry, "no marker on C3 came or went"
    set_claim(mm, "C3")
    assert read() == [mm]
    st.move(mm, game.slot(st, "markers", 0))
    assert read() == []


def test_a_copy_forgets_its_own_cached_values_and_leaves_the_originals():
    """Caches are shared by a state and its copy until one writes: a change
    in the copy forgets the copy's entries only, and an entry the copy adds
    under a key the original holds (`claims_at` is keyed by the cell first,
    {cell: {player: value}}) is a new inner dict, never the original's
    changed.  Each keeps answering as a scan of its own state does."""
    game = Game(load_bundle("ipo"))
    claims_at = game.cached_function("claims_at")
    slot = game.cache_slots["claims_at"]
    st = game.new_state(2, seed=0)
    assert claims_at(st, 0, "C3") == [] and claims_at(st, 1, "D4") == []
    inner = st.cache[slot]["C3"]
    kept = dict(inner)
    other = st.clone()
    m = other.zones[game.slot(other, "markers", 0)][0]
    old = other.card_counters["claim"][m]
    other.own_cc("claim")[m] = "C3"
    other.key_written(m, "claim", old, "C3")
    other.move(m, game.slot(other, "claims", 0))
    assert "C3" not in other.cache[slot] and "D4" in other.cache[slot]
    assert st.cache[slot]["C3"] is inner and inner == kept, "the original's entry is untouched"
    assert claims_at(other, 1, "C3") == [] and claims_at(other, 0, "C3") == [m]
    d4 = st.cache[slot]["D4"]
    assert claims_at(other, 0, "D4") == [] and 0 in other.cache[slot]["D4"]
    assert d4 == {1: []} and st.cache[slot]["D4"] is d4, "the copy wrote a new inner dict"
    assert claims_at(st, 0, "C3") == [] and claims_at(st, 1, "C3") == []


def test_a_function_of_one_player_depends_on_that_players_zones_only(game_copy):
    """`p.hand` with `p` the function's parameter is a part of its own (that
    player's hand); a comprehension variable of the same name hides the
    parameter, so there `p.hand` is every player's.  Played with the cache on
    and off, the games are the same."""
    game = mini_with(game_copy,
                     "  hand_size:\n    params: {p: player}\n    returns: int\n"
                     "    expr: count([c for c in p.hand])\n"
                     "  all_hands:\n    params: {p: player}\n    returns: int\n"
                     "    expr: sum([count([c for c in p.hand]) for p in players])\n"
                     "  rival_hands:\n    params: {p: player}\n    returns: int\n"
                     "    expr: sum([hand_size(q) for q in rivals(p)]) + hand_size(p)\n",
                     "    me.plays = 1\n"
                     "    log \"{hand_size(me)} {all_hands(me)} {rival_hands(me)}\"\n"
                     "    assert all_hands(me) == rival_hands(me), \"hands {all_hands(me)}\"\n")
    assert game.fn_deps["hand_size"] == {"z:hand@0"}
    assert game.fn_deps["all_hands"] == {"z:hand"}
    assert game.fn_deps["rival_hands"] == {"z:hand"}
    for seed in range(3):
        runs = []
        for cached in (True, False):
            game.cache_functions = cached
            st = game.new_state(3, seed=seed, log=True)
            rnd = random.Random(seed)
            while not st.is_terminal():
                st.apply(rnd.randrange(len(st.legal_actions())))
            runs.append(st.log)
        game.cache_functions = True
        assert runs[0] == runs[1]


def test_a_clone_and_its_original_never_read_each_others_cached_values(mini_game):
    """After a clone the two states share their function caches until one
    writes (copy on write, `State.own_cache`).  Two copies that take
    different actions reach the same version numbers; each must still read
    its own value of a function they both cached."""
    worth = mini_game.cached_function("worth")
    body = mini_game.body_function("worth")
    for seed in range(40):
        st = mini_game.new_state(2, seed=seed)
        labels = st.pending.labels
        banks = {lab for lab in labels if lab in ("Bank Ruby", "Bank Pearl")}
        if len(banks) < 2:
            continue
        p = st.current_player()
        worth(st, p)                        # cached before the clone: shared
        other = st.clone()
        st.apply(labels.index("Bank Ruby"))
        other.apply(other.pending.labels.index("Bank Pearl"))
        assert st.version == other.version
        assert (worth(other, p), worth(st, p)) == (body(other, p), body(st, p))
        assert worth(st, p) - worth(other, p) == 1      # a ruby is worth 3, a pearl 2
        return
    pytest.fail("no deal with a ruby and a pearl in the first hand")


def test_a_zones_cell_index_follows_every_move_and_never_leaks_into_a_clone():
    """The cell index of a zone (`zone_index`) is kept up to date by each
    move in or out, to the top or the bottom, and dropped by a shuffle or a
    bulk move: after each step, the cards on a cell (and on a list of cells)
    are those a scan of the zone finds, in zone order, in the original and
    in a clone made halfway that goes its own way."""
    from cardc.engine.builtins import cards_at_slot
    game = Game(load_bundle("ipo"))
    st = game.new_state(2, seed=0)
    board, pool = game.slot(st, "board", None), game.slot(st, "tile_pool", None)
    cells = game.card_field["cell"]
    # tiles (a cell each) and company cards (no cell: many cards on one key)
    tiles = st.zones[pool][:40] + st.zones[game.slot(st, "market", None)][:6]
    asked = [None] + sorted(cells[t] for t in tiles if cells[t] is not None)
    rnd = random.Random(7)

    def check(s):
        for x in asked:
            assert cards_at_slot(s, board, x) == [t for t in s.zones[board] if cells[t] == x]
        some = asked[1::3]
        assert cards_at_slot(s, board, some) == [t for t in s.zones[board] if cells[t] in some]
        for a, b in zip(asked[1:], asked[2:]):      # two cards found: put in zone order by a compare
            assert cards_at_slot(s, board, [b, a]) == [t for t in s.zones[board] if cells[t] in (a, b)]
        # no cell is kept with no card on it: generated code asks `x in index`
        # for "is there a card on x" (PyGen.e_cmp)
        assert all(s.zindex[board][1].values())

    states = [st]
    for step in range(120):
        if step == 60:
            states.append(st.clone())
        for s in states:
            t = rnd.choice(tiles)
            where = board if s.loc[t] != board else pool
            s.move(t, where, rnd.choice(["top", "bottom"]))
            if step % 25 == 24:
                s.shuffle_zone(board)
            if step == 90:
                s.move_zone(board, pool)
            check(s)
    # a clone that takes a tile onto the board, and one that takes one off:
    # the original's index sees neither
    for s in (st, st.clone()):
        check(s)
        copy = s.clone()
        on = next(t for t in tiles if copy.loc[t] != board)
        copy.move(on, board, "top")
        off = copy.zones[board][-1]
        copy.move(off, pool)
        check(copy)
        check(s)


def test_a_counter_held_per_player_is_never_read_by_one_value():
    """A bundle whose function compares a per-player card counter with a
    value (the checker refuses it in content) depends on the whole zone and
    counter, not on a part per value that no write would bump."""
    import copy
    bundle = copy.deepcopy(load_bundle("startup"))
    assert bundle["counters"]["card"]["tokens"]["per_player"]
    bundle["code"]["fn:probe"] = {"params": ["x"], "expr": [
        "comp", ["var", "c"], "c", ["cards", ["zone", "client_pool"]],
        ["cmp", "==", ["cctr", "tokens", ["var", "c"]], ["var", "x"]]]}
    game = Game(bundle)
    assert game.fn_deps["probe"] == {"z:client_pool", "c:tokens"}
    assert game.keyed == []


def test_a_function_whose_values_are_not_asked_for_twice_is_settled_uncached(monkeypatch):
    """A cached function is counted for its first calls (game.CacheProbe):
    one that finds almost no value kept (here `claims_at` asked of a new
    cell each time) then runs uncached, from the generated code too, and
    one that does stays cached.  Its answers are the same throughout."""
    from cardc.engine.game import CacheProbe
    monkeypatch.setattr(CacheProbe, "limit", 100)
    cells = sorted(Game(load_bundle("ipo")).grid_neighbors)[-50:]

    def settled(game, calls):
        counted = game.cached_function("claims_at")
        bound = game.pygen.bind(counted, "_fn")     # the name the generated code calls
        st = game.new_state(2, seed=0)              # its set-up asks a few too
        assert [counted(st, p, x) for p, x in calls] == [[]] * len(calls)
        final = game.cached_function("claims_at")
        assert final is not counted and game.pygen.ns[bound] is final
        assert [final(st, p, x) for p, x in calls] == [[]] * len(calls)
        return final, st

    game = Game(load_bundle("ipo"))
    final, _ = settled(game, [(p, x) for p in (0, 1) for x in cells])     # misses
    assert final is game.body_function("claims_at")

    game = Game(load_bundle("ipo"))
    final, st = settled(game, [(0, "C3")] * 100)     # one miss, then hits
    assert final is not game.body_function("claims_at")
    assert 0 in st.cache[game.cache_slots["claims_at"]]["C3"], "it keeps values"


def test_a_function_taking_a_list_is_called_plainly():
    """A list is no key: ipo's `largest_size(cs: list[card])` looked itself
    up on every call, failed on the list and computed.  A function with a
    list argument in its signature is its plain body; one whose signature
    says otherwise still gives its value for a list (computed, not kept)."""
    game = Game(load_bundle("ipo"))
    assert "largest_size" in game.fn_list_args
    assert game.cached_function("largest_size") is game.body_function("largest_size")
    assert game.cached_function("dead") is not game.body_function("dead")
    bundle = load_bundle("ipo")
    bundle["signatures"]["functions"]["largest_size"]["params"] = [["cs", "card"]]
    lying = Game(bundle)
    assert "largest_size" not in lying.fn_list_args
    st, other = game.new_state(4, seed=3), lying.new_state(4, seed=3)
    companies = st.zones[game.slot(st, "market", None)]
    assert lying.cached_function("largest_size")(other, list(companies)) == \
        game.cached_function("largest_size")(st, list(companies))


def test_a_cell_typed_by_the_compiler_is_looked_up_with_no_test_of_cell_or_list():
    """`cards_at` takes one cell or a list of cells.  Where the compiler's
    types say one cell (a parameter declared `cell`, a printed field or a
    counter of type cell), the generated code reads the zone's cell index
    directly, with no run-time test of which it is (pygen.one_cell); the
    value is the builtin's, for every cell and for none."""
    from cardc.engine.builtins import IMPL

    game = Game(load_bundle("ipo"))
    source = "\n".join(text for _, text in game.pygen.sources)
    assert ") is _str else" not in source, "a cell-or-list test is left in the generated code"
    st = game.new_state(2, seed=3)
    rnd = random.Random(3)
    for _ in range(60):         # a board with tiles on it
        st.apply(rnd.randrange(len(st.legal_actions())))
    board = st.zones[game.slot(st, "board", None)]
    assert board, "the game placed no tile"
    open_cell, claimed = game.cached_function("open_cell"), game.cached_function("claimed")
    for x in list(game.grid_cells) + [None]:
        st.version += 1
        empty = len(IMPL["cards_at"](st, None, board, x)) == 0
        assert open_cell(st, x) == (empty and not claimed(st, x)), x
