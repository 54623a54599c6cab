"""The builtins' bodies as the engine calls them (`IMPL`), and the indexes
of zones by cell that the generated code and `cards_at` read.

Every builtin is declared once, with its body, in `cardc/ir/builtins.py`;
the few whose bodies need the engine's own indexes (`body=ENGINE`) have them
here (`ENGINE_BODIES`).
"""
from __future__ import annotations

from cardc.ir.builtins import BUILTINS, ENGINE, _connected, _rivals, _unique, rivals_table  # noqa: F401


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
        index: dict[str, list[int]] = {}
        position: dict[int, int] = {}
        for i, c in enumerate(st.zones[slot]):
            index.setdefault(cells[c], []).append(c)
            position[c] = i
        hit = ((0, len(position)), index, position)
        st.zindex[slot] = hit       # the dict is the state's own; its entries are shared (State.clone)
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
    found (a board of dozens of cards, most of them far from the start).
    The same cards in the same order: the zone's cards holding the
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


def _cards_at(st, env, cards, cell):
    for slot, zone in enumerate(st.zones):
        if zone is cards:       # a whole zone: look it up in a per-state index
            return cards_at_slot(st, slot, cell)
    cells = st.game.card_field["cell"]
    if isinstance(cell, list):
        wanted = set(cell)
        return [c for c in cards if cells[c] in wanted]
    return [c for c in cards if cells[c] == cell]


ENGINE_BODIES = {"cards_at": _cards_at}

#: name -> f(st, env, *args) for every builtin a bundle may call
IMPL = {b.name: (ENGINE_BODIES[b.name] if b.body == ENGINE else b.body)
        for b in BUILTINS.values() if b.body is not None}
