"""Bodies of the builtin functions of the effect language.

Each takes (st, env, *args).  They are generic: lists, seats in turn order,
zones and attachments, modifiers, integer helpers, and a grid of cells named
like "A1" (column letter, row number).  Their type rules live in
`cardc.compiler.builtins`.
"""
from __future__ import annotations

from cardc.engine.errors import EngineFault


def _max_list(st, env, xs):
    return max(xs) if xs else 0


def _min_list(st, env, xs):
    return min(xs) if xs else 0


def _sort_by(st, env, xs, fname, desc):
    fn = st.game.functions[fname]
    param = st.game.fn_params[fname][0]
    return sorted(xs, key=lambda x: fn(st, {param: x}), reverse=bool(desc))


_PLAIN = (int, str, bool, type(None))


def _unique(st, env, xs):
    """Each value once, in the order first met (a dict keeps insertion order).
    A list of at most two plain values, the common case (the owners of the
    cards next to a cell, say), is answered without the dict: a third of the time."""
    if type(xs) is list and len(xs) < 3:
        if not xs:
            return []
        a = xs[0]
        if len(xs) == 1:
            if type(a) in _PLAIN:
                return [a]
        else:
            b = xs[1]
            if type(a) in _PLAIN and type(b) in _PLAIN:
                return [a] if a == b else [a, b]
    return list(dict.fromkeys(xs))


def _index_of(st, env, xs, x):
    try:
        return xs.index(x)
    except ValueError:
        return -1


#: player count -> for each seat, the seats after it round the table
_RIVALS: dict[int, list[list[int]]] = {}


def rivals_table(n):
    """For each seat of an n-player game, the seats after it round the table
    (kept: never changed; generated loops read a row as it is)."""
    table = _RIVALS.get(n)
    if table is None:
        table = _RIVALS[n] = [list(range(q + 1, n)) + list(range(q)) for q in range(n)]
    return table


def _rivals(st, env, p):
    n = st.n
    if type(p) is int and 0 <= p < n:       # the seats after p, round the table
        return rivals_table(n)[p][:]          # a new list: the caller may keep it
    return [(p + k) % n for k in range(1, n)]


def _players_from(st, env, p):
    n = st.n
    return [(p + k) % n for k in range(n)]


def _zone_of(st, env, c):
    return st.zone_of(c)


def _owner_of(st, env, c):
    # Game.slot_owner written out: it is on the hot path of many modifiers
    if c is None:
        return None
    slot = st.loc[c]
    if slot < 0:
        slot = st.zone_of(c)
    shared = st.game.n_shared
    return None if slot < shared else (slot - shared) % st.n


def _host(st, env, c):
    return st.host.get(c)


def _attachments(st, env, c):
    return list(st.under.get(c, ()))


def _playable(st, env, c):
    req = st.game.card_requires[c]
    if req is None:
        return True
    return bool(req(st, env.get("me"), c))


def _has_effect(st, env, c):
    return f"card:{st.game.card_field['id'][c]}:effect" in st.game.codes


def _has_reaction(st, env, c, tag):
    return st.game.reaction_tag[st.game.card_def[c]] == tag


def _visible_to(st, env, c, p):
    return st.visible(c, p)


def _modified(st, env, name, base, **args):
    return st.game.apply_modifiers(st, name, base, args)


def _round_up(st, env, x, m):
    if m <= 0:
        raise EngineFault("round_up needs a positive multiple")
    return -(-x // m) * m


# ----- the grid: cells are "A1".."L9" (column letter(s), row number)

def _split(cell):
    i = 0
    while i < len(cell) and cell[i].isalpha():
        i += 1
    return cell[:i], int(cell[i:])


def _column(st, env, cell):
    try:
        return st.game.grid_column_of[cell]
    except KeyError:
        letters, _ = _split(cell)
        return st.game.grid_columns.index(letters) + 1


def _row(st, env, cell):
    try:
        return st.game.grid_row_of[cell]
    except KeyError:
        return _split(cell)[1]


def _cell(st, env, c):
    return st.game.card_field["cell"][c]


def _cells(st, env):
    return list(st.game.grid_cells)


def _neighbors(st, env, cell):
    return st.game.grid_neighbors[cell]


def _distance(st, env, a, b):
    return abs(_column(st, env, a) - _column(st, env, b)) + abs(_row(st, env, a) - _row(st, env, b))


def _cards_at(st, env, cards, cell):
    for slot, zone in enumerate(st.zones):
        if zone is cards:       # a whole zone: look it up in a per-state index
            return cards_at_slot(st, slot, cell)
    cells = st.game.card_field["cell"]
    if isinstance(cell, list):
        wanted = set(cell)
        return [c for c in cards if cells[c] in wanted]
    return [c for c in cards if cells[c] == cell]


def zone_index(st, slot):
    """The zone at `slot` indexed by cell: ((the lowest and the next free
    position key), {cell: its cards in zone order}, {card: its position
    key}, keys ascending in zone order).  Built on the first read, then kept
    up to date by each move in or out (`Table.index_moved`) and dropped by
    anything else that changes the zone (`Table.unindex`): a board that
    gains one card a turn is not indexed again from scratch.  Pure for a
    given state, so generated code finds it once per expression."""
    hit = st.zindex.get(slot)
    if hit is None:
        cells = st.game.card_field["cell"]
        index, position = {}, {}
        for i, c in enumerate(st.zones[slot]):
            index.setdefault(cells[c], []).append(c)
            position[c] = i
        hit = ((0, len(position)), index, position)
        # a new dict, never the old one changed: clones share it (and its entries)
        st.zindex = {**st.zindex, slot: hit}
    return hit


def cards_in(hit, cell):
    """The cards of an indexed zone (`zone_index`) on `cell`, or on any of a
    list of cells, in the zone's order (as a scan would find them)."""
    if not isinstance(cell, list):
        found = hit[1].get(cell)
        return found[:] if found else []
    return cards_in_distinct(hit, dict.fromkeys(cell))      # each cell once


def cards_in_distinct(hit, cells):
    """`cards_in` for a list of cells known to hold no repeats (a cell's
    neighbours): nothing to remove first."""
    index = hit[1]
    found = []
    for x in cells:
        if x in index:              # a test and a read: a third faster than a call of .get
            found += index[x]       # (the index keeps no cell with no card)
    if len(found) > 1:
        position = hit[2]
        if len(found) == 2:         # the common case: a compare (a sort by key costs ~5x)
            a, b = found
            if position[a] > position[b]:
                found = [b, a]
        else:
            found.sort(key=position.__getitem__)
    return found


def count_in_distinct(hit, cells):
    """How many cards `cards_in_distinct` gives: none gathered, none sorted."""
    index = hit[1]
    n = 0
    for x in cells:
        if x in index:              # as in cards_in_distinct
            n += len(index[x])
    return n


def connected_valued(st, hit, start, values, value):
    """`connected([c for c in zone if c.counter == value], start)` on a zone
    indexed by cell (`zone_index`, `hit`; `values`, the counter's list): a
    search out from the start's cell through the cells that hold such a
    card, not a scan of the whole zone and then a search among the cards
    found (a board of dozens of cards, most of them far from the start).  The same cards in the same order: the zone's cards holding the
    value whose cells the search reaches, in zone order, the start first if
    it is not one of them (`_connected`)."""
    if start is None:
        return []
    index = hit[1]
    first = st.game.card_field["cell"][start]
    seen = {first}
    todo = [first]
    near = st.game.grid_neighbors
    while todo:
        for nb in near.get(todo.pop(), ()):
            if nb not in seen and nb in index:
                for c in index[nb]:
                    if values[c] == value:      # a cell with such a card: the search goes on through it
                        seen.add(nb)
                        todo.append(nb)
                        break
    out = []
    for x in seen:
        if x in index:
            for c in index[x]:
                if values[c] == value:
                    out.append(c)
    if len(out) > 1:
        out.sort(key=hit[2].__getitem__)        # zone order, by position
    if start not in out:
        out.insert(0, start)
    return out


def cards_at_slot(st, slot, cell):
    """`cards_at` on a whole zone, from its index."""
    return cards_in(zone_index(st, slot), cell)


def _connected(st, env, cards, start):
    """The cards of `cards` joined to `start` through orthogonal neighbours.
    (Plain loops: for the dozen cards it is usually given, `set(map(…))`
    and a comprehension cost twice as much in making their objects.)"""
    if start is None:
        return []
    cells = st.game.card_field["cell"]
    occupied = set()                # the cells with a card of `cards`
    for c in cards:
        occupied.add(cells[c])
    seen_cells = {cells[start]}
    todo = [cells[start]]
    near = st.game.grid_neighbors
    while todo:
        for nb in near.get(todo.pop(), ()):
            if nb in occupied and nb not in seen_cells:
                seen_cells.add(nb)
                todo.append(nb)
    out = []
    for c in cards:
        if cells[c] in seen_cells:
            out.append(c)
    if start not in out:
        out.insert(0, start)
    return out


IMPL = {
    "count": lambda st, env, xs: len(xs),
    "sum": lambda st, env, xs: sum(xs),
    "any": lambda st, env, xs: any(xs),
    "all": lambda st, env, xs: all(xs),
    "max": lambda st, env, *xs: max(xs),
    "min": lambda st, env, *xs: min(xs),
    "max_list": _max_list,
    "min_list": _min_list,
    "top": lambda st, env, xs: xs[0] if xs else None,
    "first": lambda st, env, xs: xs[0] if xs else None,
    "bottom": lambda st, env, xs: xs[-1] if xs else None,
    "last": lambda st, env, xs: xs[-1] if xs else None,
    "reversed": lambda st, env, xs: list(reversed(xs)),
    "unique": _unique,
    "shuffled_order": lambda st, env, xs: st.shuffled(list(xs)),
    "sort_by": _sort_by,
    "index_of": _index_of,
    "flatten": lambda st, env, xss: [x for xs in xss for x in (st.zones[xs] if type(xs) is int else xs)],
    "rivals": _rivals,
    "next_player": lambda st, env, p: (p + 1) % st.n,
    "players_from": _players_from,
    "zone_of": _zone_of,
    "owner_of": _owner_of,
    "host": _host,
    "attachments": _attachments,
    "playable": _playable,
    "has_reaction": _has_reaction,
    "has_effect": _has_effect,
    "visible_to": _visible_to,
    "modified": _modified,
    "round_up": _round_up,
    "abs": lambda st, env, x: abs(x),
    "cell": _cell,
    "cells": _cells,
    "neighbors": _neighbors,
    "distance": _distance,
    "column": _column,
    "row": _row,
    "connected": _connected,
    "cards_at": _cards_at,
}
