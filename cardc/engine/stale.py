"""Which cached function values a change to the state makes stale.

A content function's value is cached (pygen.compile_cached) until something
it reads changes.  deps.py says what each function reads, as parts; this
module turns that around, once a game, into what each change forgets:

- a part ("z:<zone>", "c:<counter>", "flow:turn" …): every entry of the cache
  of each function that reads it (`Stale.parts`);
- one player's zone (a part "z:<zone>@i", the zone of the function's
  argument i): the entries whose argument i is that player (`Stale.player_zones`);
- some cells of a shared zone (a part "cells:…"): the entries whose argument
  is a cell the change touches, or a card printed on one (`Stale.cells`);
- the cards of a zone whose counter holds one value (a part "keyed:…"): the
  entries whose argument is that value (`Stale.keyed`);
- whether a shared zone is empty (a part "empty:…"): every entry of the
  caches that read it, only when a move empties the zone or puts the first
  card in (`empty_table`, `Table.move`).

Forgetting at the write, rather than summing versions at each read, makes a
hit one dictionary lookup: a function is read far more often than what it
reads is written (one shipped game: 26 cached calls a decision, a few writes).  The
writes are in table.py (`forget_*`); a function that reads what no part
names ("*") keeps its entry for one state version, as before.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace

from cardc.engine.deps import CELLS, EMPTY, KEYED


@dataclass(frozen=True)
class Watch:
    """One cached function that reads a part through one of its arguments."""
    cache: int              # the function's cache: State.cache[cache]
    arg: int                # which argument holds the player, cell, card or value; -1: a literal
    by_key: bool = False    # the cache is keyed by that argument (`Stale.outer`): its entries
    #                         for one value are one key's, forgotten at once
    value: object = None    # the literal cell or value (arg == -1)
    near: bool = False      # cells: the neighbours of the cell (deps._cells_ir), not the cell
    printed: bool = False   # cells: the cell printed on a card argument, `cell(c)`


@dataclass(frozen=True)
class Watches:
    """The watches of one zone read by cell, or by a counter's value: a
    change there asks first whether any of their caches holds an entry
    (`State.filled`), and most find none."""
    caches: int             # the caches, as a mask: bit i for State.cache[i]
    each: tuple
    #: cell -> what a change on that cell forgets (`on_cell`), worked out the
    #: first time; None -> what a change of a value forgets (`by_value`)
    plans: dict = field(default_factory=dict, compare=False)

    def by_value(self) -> tuple:
        """What a change of a counter's value forgets, for a zone read by
        that value (`Stale.keyed`): (the caches to empty whatever the
        values, as a mask; (value, bit) of each cache that reads one literal
        value; the slots of the caches keyed by the value, whose keys for
        the old and new value are dropped).  Worked out once."""
        plan = self.plans.get(None)
        if plan is None:
            whole = 0
            for w in self.each:
                if w.arg >= 0 and not w.by_key:
                    whole |= 1 << w.cache
            literals = tuple((w.value, 1 << w.cache) for w in self.each if w.arg < 0)
            keyed = tuple(w.cache for w in self.each if w.arg >= 0 and w.by_key)
            plan = self.plans[None] = (whole, literals, keyed)
        return plan

    def on_cell(self, cell, game) -> tuple:
        """What a change on `cell` of this zone forgets, the same for every
        state of the game, so worked out once a cell (a grid has a few
        dozen): (the caches to empty, as a mask; for each cache keyed by
        the watched argument, (its slot, the keys to drop)).  The keys are
        the cell, or its neighbours, or the cards printed on those."""
        plan = self.plans.get(cell)
        if plan is not None:
            return plan
        whole, keyed = 0, {}        # type: int, dict
        near = game.grid_neighbors.get(cell, ())
        printed_on = game.stale.on_cell
        for w in self.each:
            cells = near if w.near else (cell,)
            if w.arg < 0:
                if w.value in cells:
                    whole |= 1 << w.cache
            elif not w.by_key:
                whole |= 1 << w.cache
            else:
                keys = [c for x in cells for c in printed_on.get(x, ())] if w.printed else cells
                mine = keyed.setdefault(w.cache, [])
                for k in keys:
                    if k not in mine:
                        mine.append(k)
        plan = self.plans[cell] = (whole, tuple((s, tuple(keys)) for s, keys in keyed.items() if keys))
        return plan


@dataclass
class Stale:
    """What each change to a state makes stale, for one game (`Game.stale`)."""
    parts: dict             # part -> the caches whose every entry it makes stale, as a mask
    player_zones: dict      # player zone id -> (Watch of the argument that is the player)
    cells: dict             # shared slot read by cell -> Watches
    keyed: dict             # "<zone>|<counter>" read by value -> Watches
    on_cell: dict           # cell -> the card instances printed on it
    outer: dict             # function of several arguments -> the argument its cache is keyed
    #                         by first ({value: {the others: entry}}), or None: a tuple key

    @classmethod
    def of(cls, game) -> Stale:
        parts: dict = {}
        found: list = []        # (table, key, Watch)
        outer: dict = {}
        for name, slot in sorted(game.cache_slots.items(), key=lambda kv: kv[1]):
            deps = game.fn_deps.get(name, ("*",))
            if "*" in deps:
                continue        # kept for one version of the state (compile_cached)
            mine = []
            for d in sorted(deps):
                if d.startswith(CELLS):
                    zone, where = d[len(CELLS):].split("|", 1)
                    mine.append(("cells", game.shared_slot[zone], cell_watch(slot, json.loads(where))))
                elif d.startswith(KEYED):
                    zone, ctr, where = d[len(KEYED):].split("|", 2)
                    x = json.loads(where)
                    w = Watch(slot, x[1]) if x[0] == "arg" else Watch(slot, -1, value=x[1])
                    mine.append(("keyed", f"{zone}|{ctr}", w))
                elif d.startswith("z:") and "@" in d:
                    zone, i = d[2:].split("@")
                    mine.append(("player_zones", zone, Watch(slot, int(i))))
                else:
                    parts.setdefault(d, []).append(slot)
            # the cache is keyed by the argument the first watch reads: a
            # change forgets that key's entries (a watch of another argument
            # forgets the whole cache)
            watched = [w.arg for _, _, w in mine if w.arg >= 0]
            nargs = len(game.fn_params[name])
            if nargs > 1:
                outer[name] = watched[0] if watched else None
            first = outer.get(name, 0 if nargs == 1 else None)
            found += [(table, key, replace(w, by_key=w.arg == first)) for table, key, w in mine]
        tables: dict = {"cells": {}, "keyed": {}, "player_zones": {}}
        for table, key, w in found:
            tables[table].setdefault(key, []).append(w)
        on_cell: dict = {}
        for c, x in enumerate(game.card_field.get("cell") or ()):
            if x is not None:
                on_cell.setdefault(x, []).append(c)

        def tuples(table):
            return {k: tuple(v) for k, v in table.items()}

        def watches(table):
            return {k: Watches(mask(w.cache for w in v), tuple(v)) for k, v in table.items()}
        return cls({k: mask(v) for k, v in parts.items()}, tuples(tables["player_zones"]),
                   watches(tables["cells"]), watches(tables["keyed"]), tuples(on_cell), outer)

    def slot_table(self, game, n) -> list:
        """For each zone slot of an `n`-player game: None, or what a change
        to its cards makes stale: (all of its caches, as a mask; the caches
        to empty, as a mask; the caches keyed by the owner; the owner).  A
        function of the owner whose cache is keyed by another argument has
        its whole cache emptied.  A move reads it for the slot it leaves and
        the one it enters."""
        out = []
        for slot in range(game.slot_count(n)):
            part = game.shared_parts[slot] if slot < game.n_shared else \
                game.player_parts[(slot - game.n_shared) // n]
            caches = self.parts.get(part, 0)
            watches: tuple | list = ()
            owner = None
            if slot >= game.n_shared:
                watches = self.player_zones.get(part[2:], ())
                owner = (slot - game.n_shared) % n
            by_key = tuple(w.cache for w in watches if w.by_key)
            caches |= mask(w.cache for w in watches if not w.by_key)
            every = caches | mask(by_key)
            out.append((every, caches, by_key, owner) if every else None)
        return out

    def empty_table(self, game, n) -> list:
        """For each zone slot of an `n`-player game, the caches (a mask, 0
        for none) of the functions that read only whether it is empty: a
        move forgets them when it empties the zone or puts the first card
        in, and any other change to the zone forgets them too."""
        return [self.parts.get(EMPTY + game.shared_parts[slot][2:], 0) if slot < game.n_shared else 0
                for slot in range(game.slot_count(n))]


def mask(caches) -> int:
    """Caches as one int, bit i for State.cache[i]: a change asks whether
    any holds an entry with one `&` (`State.filled`)."""
    out = 0
    for s in caches:
        out |= 1 << s
    return out


def cell_watch(slot, where) -> Watch:
    """The watch of a cell part's cells, as deps._cells_ir writes them: a
    literal cell, an argument that is a cell, the printed cell of a card
    argument, or the neighbours of one of those."""
    near = where[0] == "call" and where[1] == "neighbors"
    if near:
        where = where[2][0]
    if where[0] == "lit":
        return Watch(slot, -1, value=where[1], near=near)
    if where[0] == "arg":
        return Watch(slot, where[1], near=near)
    return Watch(slot, where[2][0][1], near=near, printed=True)     # cell(arg)
