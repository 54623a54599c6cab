"""The table: where each card is, what each player can see, and moving,
shuffling, attaching and revealing cards.

A mixin of `State`: these methods work on the state's own data.
"""
from __future__ import annotations

from itertools import compress, repeat
from operator import ne

import cardc.engine.rng as rng
from cardc.engine.deps import ATTACHMENTS
from cardc.engine.errors import EngineFault
from cardc.engine.fields import StateFields

ATTACHED = -1
OUT = -2            # per-player cards of seats not in this game


def _permuted(xs, rnd):
    """`xs` in a random order drawn from `rnd`: sorted by a random float each
    (about twice as fast as `random.shuffle`, which draws in Python; the
    guess of a look-ahead is on every search's path).  Equal keys, about
    2**-40 for a deck, keep the order `xs` came in."""
    random = rnd.random
    keys = [random() for _ in xs]           # one draw per card, in order
    return [xs[i] for i in sorted(range(len(xs)), key=keys.__getitem__)]


#: the cache slots of a mask (`Table.forget`), worked out once per mask: a
#: game forgets a few dozen distinct masks, each many times a game
_BITS: dict = {}


def _bits(mask) -> tuple:
    out = []
    m = mask
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    if len(_BITS) < 100_000:        # bounded, whatever a game's masks are
        _BITS[mask] = tuple(out)
    return tuple(out)


class Table(StateFields):
    def zone_of(self, c):
        slot = self.loc[c]
        while slot == ATTACHED:
            c = self.host[c]
            slot = self.loc[c]
        return slot

    def visible(self, c, p):
        slot = self.zone_of(c)
        if slot < 0:
            return False
        decl = self.game.slot_decl(self, slot)
        vis = decl["visibility"]
        if vis == "public":
            return True
        if vis == "owner" and self.game.slot_owner(self, slot) == p:
            return True
        return p in self.revealed.get(c, ())

    def _take(self, c):
        """Remove a card from wherever it is."""
        slot = self.loc[c]
        self.touch_slot(slot)
        if slot == ATTACHED:
            self.touch(ATTACHMENTS)
            h = self.host.pop(c)
            # a new list, never the old one changed: clones share these lists
            rest = self.under[h][:]
            rest.remove(c)
            if rest:
                self.under[h] = rest
            else:
                del self.under[h]
        elif slot >= 0:
            self.own_zone(slot).remove(c)

    def own_zone(self, slot):
        """The list of the zone at `slot`, this state's own to change in place:
        after a clone, parent and clone share zone lists until one of them
        writes (`owned_zones`, see State.clone)."""
        owned = self.owned_zones
        if owned is not None and slot not in owned:
            owned.add(slot)
            self.zones[slot] = self.zones[slot][:]
        return self.zones[slot]

    # ------------------------------------------------------------ stale cached values
    # What each change makes stale is worked out once a game (stale.py);
    # these forget it.  After a clone the caches are shared until one of the
    # two writes: an emptied cache is a new dict, and a cache is copied
    # before an entry goes from it (`own_cache`).
    def forget(self, caches):
        """Every entry of these caches (a mask, stale.mask) is stale."""
        hit = self.filled & caches
        if not hit:
            return
        self.filled ^= hit
        cache, own = self.cache, self.owned_caches
        for s in _BITS.get(hit) or _bits(hit):
            cache[s] = {}
            if own is not None:
                own.add(s)

    def drop_keys(self, s, keys):
        """The entries of cache `s` for any of `keys` are stale (a cache
        keyed by the argument a change touches: stale.Watches)."""
        cache = self.cache[s]
        if cache:
            for v in keys:
                if v in cache:
                    if self.owned_caches is not None and s not in self.owned_caches:
                        cache = self.own_cache(s)
                    del cache[v]

    def forget_slot(self, stale):
        """The cards of a zone slot changed: `stale` is its entry of
        `slot_stale` (stale.Stale.slot_table), and one of its caches holds
        entries (a move asks `filled` first: most find nothing to forget)."""
        _, caches, by_key, owner = stale
        if caches:
            self.forget(caches)
        cache = self.cache
        for s in by_key:
            if owner in cache[s]:
                if self.owned_caches is not None and s not in self.owned_caches:
                    self.own_cache(s)
                del self.cache[s][owner]

    def forget_cell(self, slot, c):
        """Card `c` came to, left, or had a counter change on its cell of the
        zone at `slot`, a zone some function reads by cell (deps.cell_part):
        what reads that cell, or its neighbours, is stale (which entries
        those are is worked out once a cell: `Watches.on_cell`)."""
        watches = self.cellw[slot]
        if not self.filled & watches.caches:
            return
        cells = self.game.card_cell
        cell = cells[c] if cells is not None else None
        if cell is None:            # a card off the grid: a change to the whole zone
            self.forget(watches.caches)
            return
        whole, keyed = watches.plans.get(cell) or watches.on_cell(cell, self.game)
        if whole:
            self.forget(whole)
        for s, keys in keyed:
            self.drop_keys(s, keys)

    def forget_zone(self, slot=None):
        """Everything on the zone at `slot` (on every zone read by cell or by
        a counter's value, for None) may have changed."""
        stale = self.game.stale
        if slot is None:
            tables = list(stale.cells.values()) + list(stale.keyed.values())
        else:
            tables = [stale.cells[slot]] if slot in stale.cells else []
            tables += [stale.keyed[key] for key, _ in self.slot_keyed[slot] if key in stale.keyed]
        for watches in tables:
            self.forget(watches.caches)

    def forget_value(self, key, values):
        """Cards of a zone read by a counter's value (deps.keyed_part, the
        zone and counter `key`) came, went, or changed that counter, from or
        to `values`."""
        watches = self.game.stale.keyed.get(key)
        if watches is None or not self.filled & watches.caches:
            return
        for v in values:                    # one or two (a loop: `map` costs twice as much)
            if type(v) is list:             # not a key: a change to every value
                self.forget(watches.caches)
                return
        whole, literals, keyed = watches.plans.get(None) or watches.by_value()
        for value, bit in literals:
            if value in values:
                whole |= bit
        if whole:
            self.forget(whole)
        for s in keyed:
            self.drop_keys(s, values)

    def forget_keyed(self, slot, c):
        """Card `c` came to or left the zone at `slot`, which some function
        reads by the value of a counter (deps.keyed_part)."""
        for key, ctr in self.slot_keyed[slot]:
            self.forget_value(key, (self.card_counters[ctr][c],))

    def key_written(self, c, ctr, old, new):
        """Counter `ctr` of card `c` went from `old` to `new`: if the card's
        zone is read by that counter's value, what reads either value is stale."""
        slot = self.loc[c]
        if slot < 0:
            return
        for key, kc in self.slot_keyed[slot]:
            if kc == ctr:
                self.forget_value(key, (old, new))

    def counter_written(self, c):
        """A counter that some function reads on the cards of one player's
        zone or of some cells (`Game.covered_counters`, see deps.py) changed
        on `c`: the card's zone slot and zone, and its cell, count as changed
        (a function that also reads the whole zone keeps only that part,
        deps._whole, so the zone's own part must move too)."""
        slot = self.loc[c]
        if slot >= 0:
            stale = self.slot_stale[slot]
            if stale is not None and self.filled & stale[0]:
                self.forget_slot(stale)
            if slot in self.cellw:
                self.forget_cell(slot, c)

    def start_tracking(self):
        """Count, per card definition, how often it is resolved and how often
        it enters each zone: the raw data of card-usage reports."""
        self.track = {"resolve": {}, "enter": {}, "react": {}}

    def move(self, c, slot, place="top"):
        memories = self.memory
        if memories is not None:
            self.remember(memories, c, self.loc[c], slot)
        if self.track is not None:
            key = self.game.card_field["id"][c] + ">" + self.game.slot_decl(self, slot)["id"]
            self.track["enter"][key] = self.track["enter"].get(key, 0) + 1
        # take it from where it is (as `_take`, written in: the hottest path).
        # What the two slots are read by is one tuple each (Game.slot_tables):
        # ("active" versions the scan of the cards in force, `_scan_modifiers`:
        # a card with no modifier and no hook coming or going leaves it as it is)
        here = self.loc[c]
        owned = self.owned_zones
        if here >= 0:
            (left := self.zones[here] if owned is None else self.own_zone(here)).remove(c)
            plan = self.slot_plan[here]
            if plan is not None:
                stale, rare = plan
                if stale is not None and self.filled & stale[0]:
                    self.forget_slot(stale)
                if rare is not None:
                    empty, active, by_cell, keyed = rare
                    if empty and not left:      # the last card left (deps.emptiness_zone)
                        self.forget(empty)
                    if active and self.game.card_special[c] is not None:
                        pv = self.part_versions
                        pv["active"] = pv.get("active", 0) + 1
                    if by_cell:                 # a zone some function reads by cell
                        self.forget_cell(here, c)
                    if keyed:                   # a zone some function reads by a counter's value
                        self.forget_keyed(here, c)
        else:
            self._take(c)
        dest = self.zones[slot] if owned is None else self.own_zone(slot)
        # the slot it enters, as the slot it left above (written out twice,
        # not a method called twice: a call a side was what this saves)
        plan = self.slot_plan[slot]
        if plan is not None:
            stale, rare = plan
            if stale is not None and self.filled & stale[0]:
                self.forget_slot(stale)
            if rare is not None:
                empty, active, by_cell, keyed = rare
                if empty and not dest:          # the first card comes in
                    self.forget(empty)
                if active and self.game.card_special[c] is not None:
                    pv = self.part_versions
                    pv["active"] = pv.get("active", 0) + 1
                if by_cell:
                    self.forget_cell(slot, c)
                if keyed:
                    self.forget_keyed(slot, c)
        if place == "top":
            dest.insert(0, c)
        else:
            dest.append(c)
        self.loc[c] = slot
        zi = self.zindex
        if zi and (here in zi or slot in zi):
            self.index_moved(c, here, slot, place)
        if c in self.revealed:
            del self.revealed[c]
        if c in self.under and not self.game.slot_decl(self, slot).get("keeps_attachments"):
            # attachments follow their host into a zone that keeps them (a
            # tableau); anywhere else they come off and go in beside it
            at = dest.index(c) + 1
            self.touch(ATTACHMENTS)
            for a in self.under.pop(c):
                del self.host[a]
                dest.insert(at, a)
                self.loc[a] = slot
                at += 1
                if slot in self.cellw:
                    self.forget_cell(slot, a)
                if self.slot_keyed[slot]:
                    self.forget_keyed(slot, a)
            if slot in self.zindex:     # cards put in mid-zone: indexed again when next read
                self.unindex(slot)
            if self.slot_active[slot]:
                pv = self.part_versions
                pv["active"] = pv.get("active", 0) + 1

    def index_moved(self, c, here, slot, place):
        """Card `c` left the zone at `here` and came to the top or bottom of
        the zone at `slot`: the cell indexes of either (`zone_index`) follow.
        A copy shares each index with the state it was made from until one
        of the two changes it (`owned_indexes`, see State.clone)."""
        own = self.owned_indexes
        zi = self.zindex
        cell = self.game.card_cell[c]
        if here in zi:
            bounds, index, position = zi[here]
            if own is not None and here not in own:
                index, position = dict(index), dict(position)
                own.add(here)
                zi[here] = (bounds, index, position)
            # a cell's list is replaced, never changed: a copy may share it
            # (a loop, not a comprehension: no function made on every move)
            rest = []
            for x in index[cell]:
                if x != c:
                    rest.append(x)
            if rest:
                index[cell] = rest
            else:
                del index[cell]
            del position[c]
        if slot in zi:
            (lo, hi), index, position = zi[slot]
            if own is not None and slot not in own:
                index, position = dict(index), dict(position)
                own.add(slot)
            if place == "top":
                lo -= 1
                position[c] = lo
                index[cell] = [c] + index.get(cell, [])
            else:
                position[c] = hi
                hi += 1
                index[cell] = index.get(cell, []) + [c]
            zi[slot] = ((lo, hi), index, position)

    def unindex(self, slot):
        """The zone at `slot` changed some other way: its cell index, if
        any, is built again when next read."""
        self.zindex.pop(slot, None)       # the dict is this state's own (State.clone)

    def move_zone(self, src, slot, place="top"):
        """`move` of every card of the zone at `src` to `slot`, one after
        another in the zone's order, done in one step: the same zones, order,
        stale values and counts as moving them one by one (to the top, the last
        one moved ends on top).  Cards with attachments, or a zone moved onto
        itself, go one by one."""
        cards = self.zones[src]
        if not cards:
            return
        if src == slot or (self.under and not self.under.keys().isdisjoint(cards)):
            for c in list(cards):
                self.move(c, slot, place)
            return
        memories = self.memory
        if memories is not None:
            self.remember_zone(memories, src, slot)
        game = self.game
        if self.zindex:
            self.unindex(src)
            self.unindex(slot)
        for s in (src, slot):           # two zones (one moved onto itself went the card way)
            if s in self.cellw or self.slot_keyed[s]:
                self.forget_zone(s)
        if self.track is not None:
            enter, ids = self.track["enter"], game.card_field["id"]
            into = ">" + game.slot_decl(self, slot)["id"]
            for c in cards:
                key = ids[c] + into
                enter[key] = enter.get(key, 0) + 1
        owned = self.owned_zones
        if owned is not None:
            owned.add(src)              # the emptied zone is a new list of its own
        self.zones[src] = []
        dest = self.zones[slot] if owned is None else self.own_zone(slot)
        pv = self.part_versions
        for s in (src, slot):
            stale = self.slot_stale[s]
            if stale is not None and self.filled & stale[0]:
                self.forget_slot(stale)
        empty = self.slot_empty
        if empty[src] or (not dest and empty[slot]):    # the zone left empty, or filled from empty
            self.forget(empty[src] | (0 if dest else empty[slot]))
        if self.slot_active[src] or self.slot_active[slot]:
            special, n = game.card_special, 0
            for c in cards:         # a loop, not sum() of a generator: half the time
                if special[c] is not None:
                    n += 1
            n *= self.slot_active[src] + self.slot_active[slot]
            if n:
                pv["active"] = pv.get("active", 0) + n
        if place == "top":
            dest[0:0] = cards[::-1]
        else:
            dest.extend(cards)
        loc, revealed = self.loc, self.revealed
        if revealed:
            for c in cards:
                loc[c] = slot
                if c in revealed:
                    del revealed[c]
        else:                           # nothing revealed, the common case: no test a card
            for c in cards:
                loc[c] = slot

    def check_limit(self, slot) -> bool:
        """Start the zone's overflow procedure if a move took it over its
        limit; True if it did (it runs before anything else)."""
        decl = self.game.slot_decl(self, slot)
        limit = decl["limit"]
        if limit is None or len(self.zones[slot]) <= limit:
            return False
        key = "proc:" + decl["overflow"]
        owner = self.game.slot_owner(self, slot)
        for f in self.stack:
            if f.code.name == key and f.env.get(f.code.params[0]) == owner:
                return False    # already discarding down
        code = self.game.codes[key]
        self.push(code, {code.params[0]: owner, "me": owner})
        return True

    def shuffle_zone(self, slot):
        self.touch_slot(slot)
        cards = self.own_zone(slot)
        self.shuffled(cards)
        if self.revealed:
            memory = self.memory
            for c in cards:
                seen = self.revealed.pop(c, None)
                if seen and memory is not None:     # it was shown to them: they know it is in here
                    for p in seen:
                        memory[p].setdefault(slot, set()).add(c)

    def shuffled(self, xs):
        """Fisher-Yates in place with the state's generator; returns xs."""
        self.rng = rng.shuffle(self.rng, xs)
        return xs

    def pick(self, values):
        self.rng, i = rng.below(self.rng, len(values))
        return values[i]

    def attach(self, c, h):
        if c is None or h is None:
            raise EngineFault("`attach` needs two cards")
        if c == h:
            raise EngineFault("a card cannot be attached to itself")
        memories = self.memory
        if memories is not None:
            self.remember(memories, c, self.loc[c], ATTACHED, self.game.seen_masks(self.n)[self.zone_of(h)])
        self._take(c)
        self.touch(ATTACHMENTS)
        self.revealed.pop(c, None)
        self.loc[c] = ATTACHED
        self.host[c] = h
        was = self.under.get(h)
        self.under[h] = was + [c] if was else [c]       # a new list: clones share these lists

    def detach(self, c):
        if self.loc[c] != ATTACHED:
            return
        slot = self.zone_of(c)
        self._take(c)
        self.touch_slot(slot)
        self.own_zone(slot).insert(0, c)
        self.loc[c] = slot

    # ------------------------------------------------------------ what each seat remembers
    # `memory[p]`: {slot: the cards seat p saw go into that slot, which it
    # cannot see into, and knows are still there}.  A guess (`determinized`)
    # keeps them there.  The rule keeps it free of what p cannot know: an
    # entry is added only when p saw the card go in, and a slot's entries
    # are all dropped when a card p cannot tell leaves it unseen (p does not
    # know which one left), so an entry never tells p more than it saw.
    def remember(self, memories: list[dict[int, set[int]]], c, here, dest, after=None):
        """Card `c` moves from slot `here` to slot `dest` (`after`: the seats
        that see it there, when `dest` is not a zone slot)."""
        if here == dest:
            return
        if after is None and here >= 0 and dest >= 0 and c not in self.revealed:
            # the common case, by a plan per pair of slots (Game.memory_plan)
            learn, gain, blind = self.game.memory_plan(self.n, here, dest)
            for p in blind:
                if here in memories[p]:
                    del memories[p][here]
            for p in gain:
                kept = memories[p].get(dest)
                if kept is None:
                    memories[p][dest] = {c}
                else:
                    kept.add(c)
            for p in learn:
                kept = memories[p].get(here)
                if kept and c in kept:
                    kept.discard(c)
                    if not kept:
                        del memories[p][here]
            return
        seen = self.game.seen_masks(self.n)
        before = seen[here] if here >= 0 else (seen[z] if here == ATTACHED and (z := self.zone_of(c)) >= 0 else 0)
        shown = self.revealed.get(c)
        if shown:
            for q in shown:
                before |= 1 << q
        if after is None:
            after = seen[dest] if dest >= 0 else 0
        for p, memory in enumerate(memories):
            bit = 1 << p
            if (before | after) & bit:          # p sees which card this is
                if here >= 0:
                    kept = memory.get(here)
                    if kept and c in kept:
                        kept.discard(c)
                        if not kept:
                            del memory[here]
                if dest >= 0 and not after & bit:
                    memory.setdefault(dest, set()).add(c)
            elif here >= 0 and here in memory:  # a card p cannot tell left `here`
                del memory[here]

    def remember_zone(self, memories: list[dict[int, set[int]]], src, dest):
        """Every card of slot `src` moves to slot `dest` at once: a seat that
        sees either side knows them all; one that sees neither saw the whole
        zone go, so what it remembered in `src` is in `dest` now."""
        seen = self.game.seen_masks(self.n)
        cards = self.zones[src]
        for p, memory in enumerate(memories):
            bit = 1 << p
            kept = memory.pop(src, None)
            if seen[dest] & bit:
                continue
            if seen[src] & bit:
                kept = set(cards)
            elif self.revealed:
                kept = set(kept or ())
                kept.update(c for c in cards if p in self.revealed.get(c, ()))
            if kept:
                memory.setdefault(dest, set()).update(kept)

    def reveal(self, c, p):
        seen = self.revealed.setdefault(c, [])
        if p not in seen:
            seen.append(p)


    def determinized(self, p, rnd):
        """A copy of this state as `p` might imagine it: every card `p` cannot
        see is shuffled (with `rnd`, the caller's own generator) among the
        places `p` cannot see into that hold cards with the same back (cards
        that started in the same zone: a card of one deck never trades
        places with a card of another), zone sizes kept.  What `p` sees is exact; what `p` does
        not see is a guess.  Bots that look ahead use this, so they never act
        on hidden information.

        The copy depends on nothing `p` cannot know: the unseen cards of a
        back are put in a fixed order before the shuffle (so their real order
        does not show through), and the copy gets its own random generator,
        seeded from `rnd`, so a look-ahead that shuffles or draws does not
        see the real future.

        A place is a position in a zone or under a host card: a card attached
        to a card `p` cannot see is unseen too and is shuffled like the rest
        (a hidden card's attachments are never in view, `card_view`), and
        the piles under a hidden zone's unseen cards go under unseen cards of
        that zone drawn at random (`_imagine_attachments`: `p` sees only how
        many cards such a zone holds).  Whatever names a real card by its id
        names the imagined card in that card's place instead: frame locals
        (`_remap_locals`), the card fields of the window events a frame still
        holds (`st.events`), card-valued counters, and reveals to other seats
        (a reveal belongs to a place: moving or shuffling a card clears it)
        (`_imagine_names`).

        The counters of the shuffled cards (`cc`: tokens on a card) are
        imagined at their start values, neither kept by the card nor left
        with the place: a card counter shows only on a card in view
        (`observe.card_counters`), so the value on an unseen card is as
        hidden as the card.  Kept by the card, it would tie the real card to
        its real value (the one Ace with a token would be the card with the
        token in every imagined world, wherever it lands); left with the
        place, it would tell which place holds the real marked card.  Only
        the start value is free of both, as secret game and player counters
        are imagined at theirs (below).

        What `p` remembers (`memory[p]`, see `remember`: cards it saw go into
        a place it cannot see, still there) holds: such a card is imagined in
        the same zone, at a random one of its unseen places.  The copy keeps
        `p`'s memory and no other seat's."""
        memory, self.memory = self.memory, None       # not copied by the clone: replaced below
        d = self.clone()
        self.memory = memory
        game = self.game
        shown, hidden, groups, piled, plan, names = _guess_plan(self, p)
        known = memory[p] if memory is not None else None
        touched = set()
        loc = d.loc
        moved = {}                      # real card -> the imagined card in its place
        for places, real, ordered in groups:
            cards = _kept_in_place(places, real, ordered, known, rnd) if known else _permuted(ordered, rnd)
            if names:
                moved.update({was: c for was, c in zip(real, cards, strict=False) if c != was})
            k = 0
            for slot, positions in places:
                if type(positions) is range:        # the whole zone
                    chunk = d.zones[slot] = cards[k:k + len(positions)]
                    d.owned_zones.add(slot)
                    for c in chunk:
                        loc[c] = slot
                    touched.add(slot)
                elif slot == ATTACHED:              # under a host: see _imagine_attachments
                    k += 1
                    continue
                else:                               # some places of a zone
                    zone = d.own_zone(slot)
                    for j, i in enumerate(positions, k):
                        c = zone[i] = cards[j]
                        loc[c] = slot
                    touched.add(slot)
                k += len(positions)
        if piled:
            _imagine_attachments(d, self.loc, hidden, shown, moved, rnd, touched)
        if moved:
            if any(fr.code.cards for fr in d.stack):
                _remap_locals(d.stack, moved)
            _imagine_names(d, moved, plan)
        if plan[2]:
            _start_card_counters(d, plan[2])
        if known is not None:
            d.memory = [{k: set(v) for k, v in known.items()} if q == p else {} for q in range(d.n)]
        d.rng = rng.seed_state(rnd.getrandbits(64))
        # counters p may not see are imagined at their start values
        for scope, values in (("game", d.game_counters), ("player", d.player_counters)):
            for name, spec in game.counters[scope].items():
                vis = spec.get("visibility", "public")
                if vis == "public":
                    continue
                if scope == "game":
                    values[name] = spec["start"]
                else:
                    values[name] = [x if (q == p and vis == "owner") else spec["start"]
                                    for q, x in enumerate(values[name])]
                d.touch(("g:" if scope == "game" else "p:") + name)
        # cached values that read the reshuffled zones are stale now
        d.version += 1
        for slot in touched:
            d.touch_slot(slot)
        return d


def _kept_in_place(places, real, ordered, known, rnd) -> list:
    """The imagined cards of one back in place order (as `_permuted` gives
    them) when seat p remembers some of them in their zones (`known`: its
    memory, {slot: cards}): each remembered card goes to a random place of
    its own zone, its fellows in random order; the rest are shuffled into
    the other places.  The remembered cards are taken in sorted order, so
    their real places do not show through; a place's remembered cards and
    its share of the rest are shuffled together, so each remembered card
    lands at a random one of its zone's places."""
    pinned, k = [], 0
    for slot, positions in places:
        size = 1 if slot == ATTACHED else len(positions)
        here = known.get(slot) if slot >= 0 else None
        pinned.append((size, sorted(c for c in real[k:k + size] if c in here) if here else []))
        k += size
    fixed = {c for _, mine in pinned for c in mine}
    if not fixed:
        return _permuted(ordered, rnd)
    free = _permuted([c for c in ordered if c not in fixed], rnd)
    out, j = [], 0
    for size, mine in pinned:
        take = size - len(mine)
        out += _permuted(mine + free[j:j + take], rnd) if mine else free[j:j + take]
        j += take
    return out


def _guess_plan(st, p) -> tuple:
    """What `determinized` shuffles, worked out from `st` and the seat alone:
    (the cards revealed to `p`, the slots `p` cannot see, [(places, the real
    cards in place order, the same cards sorted: the order they are shuffled
    from)] one per back in back order, whether unseen cards hold attachments,
    `_unseen_plan`, whether anything names a real card by its id).  A search
    imagines many worlds of one decision, so it is kept on `st` while its
    versions stand still (as `_unseen_plan` is), and only the shuffle itself
    is done per guess."""
    key = (p, st.version, sum(st.part_versions.values()), len(st.events))
    hit = st.__dict__.get("_guess_plan")
    if hit is not None and hit[0] == key:
        return hit[1]
    start = st.game.card_start
    shown = {c for c, seen in st.revealed.items() if p in seen}     # revealed to p
    # back -> (places: [(slot, positions)], cards), in slot order; a
    # place under a host is (ATTACHED, (host, index)), after the zones
    groups: dict = {}
    hidden = st.game.hidden_slots(st.n, p)
    for slot in hidden:
        zone = st.zones[slot]
        if not zone:
            continue
        if shown and not shown.isdisjoint(zone):
            parts = _places_by_back(zone, start, shown)
        else:
            parts = _zone_places(st, slot, zone, start)
        for back, positions, cards in parts:
            into = groups.setdefault(back, ([], []))
            into[0].append((slot, positions))
            into[1].extend(cards)
    piled = bool(st.under) and _attached_places(st, hidden, shown, groups)
    plan = _unseen_plan(st, p, groups)
    # what names a real card by its id: frame locals, pending events,
    # card-valued counters, attachments, reveals to others
    names = bool(plan[0] or plan[1] or piled or st.revealed.keys() - shown
                 or any(fr.code.cards for fr in st.stack))
    ordered = [(places, real, sorted(real)) for _, (places, real) in sorted(groups.items())]
    out = (shown, hidden, ordered, piled, plan, names)
    st.__dict__["_guess_plan"] = (key, out)
    return out


def _places_by_back(zone, start, shown=frozenset()) -> list:
    """The places of `zone` that hold cards not in `shown`, by back:
    [(back, positions, the cards there)], backs in zone order.  A zone of one
    back with nothing shown (a deck, a hand) is one entry, its positions
    the whole zone (a `range`: `determinized` then fills it in one slice).
    Within a back, places in zone order, as one place each, in that order,
    would be filled the same."""
    backs = list(map(start.__getitem__, zone))
    if backs.count(backs[0]) == len(backs) and shown.isdisjoint(zone):
        return [(backs[0], range(len(zone)), zone)]
    by_back: dict = {}
    for i, c in enumerate(zone):
        if c not in shown:
            by_back.setdefault(backs[i], []).append(i)
    return [(back, positions, [zone[i] for i in positions]) for back, positions in by_back.items()]


def _zone_places(st, slot, zone, start) -> list:
    """`_places_by_back` of a zone with nothing shown to the seat, kept on
    the game for the zone's list while no state can change that list (a
    list a state does not own, `owned_zones`, is shared since a clone and never
    written again: a write copies it first, `Table.own_zone`).  A guess
    is made right after a clone, so a bot's next guess works out only the
    zones the turn moved cards in (zones of mixed backs were most of working
    out a guess, measured: docs/history/speed-waves.md)."""
    kept = st.game.__dict__.setdefault("_zone_places", {})
    hit = kept.get(slot)
    if hit is not None and hit[0] is zone:
        return hit[1]
    parts = _places_by_back(zone, start)
    if st.owned_zones is not None and slot not in st.owned_zones:
        kept[slot] = (zone, parts)
    return parts


def _attached_places(d, hidden, shown, groups):
    """Add to `groups` the places under the cards of the zones `hidden`
    (attachments of attachments too): an attached card is in its host's zone,
    so under a host `p` cannot see it is unseen (unless revealed to `p`).
    True if a card of those zones has cards under it."""
    start, under, zones = d.game.card_start, d.under, d.zones
    todo = [c for slot in hidden for c in zones[slot] if c in under]
    if not todo:
        return False
    while todo:
        h = todo.pop()
        for j, a in enumerate(under[h]):
            if a not in shown:
                places, cards = groups.setdefault(start[a], ([], []))
                places.append((ATTACHED, (h, j)))
                cards.append(a)
            if a in under:
                todo.append(a)
    return True


def _imagine_attachments(d, real_loc, hidden, shown, moved, rnd, touched):
    """Rebuild the attachments (`host`/`under`) of copy `d` after the shuffle
    (`moved`: real card -> imagined card in its place; `real_loc`: where the
    real cards are).  The cards under a host `p` sees stay under it, each
    place holding its imagined card.  Under the unseen cards of a hidden zone
    (`hidden`), the piles go to unseen places of that zone drawn at random
    (`rnd`): `p` sees only how many cards such a zone holds, so neither which
    card holds a pile nor where it lies in the zone is kept from the real game
    (a pile left with its place would tell a bot that the top card of a deck
    is the marked one).  A pile under an attached card stays with that place."""
    get = moved.get
    host, under = {}, {}
    loc = d.loc
    piles: dict = {}                        # hidden slot -> piles under its unseen cards
    hidden = set(hidden)
    for h, cards in d.under.items():
        now = [get(a, a) for a in cards]
        slot = real_loc[h]
        if slot in hidden and h not in shown:
            piles.setdefault(slot, []).append(now)
            continue
        under[get(h, h)] = now
        if slot >= 0:
            touched.add(slot)
    for slot in sorted(piles):
        zone = d.zones[slot]
        free = [c for c in zone if c not in shown]
        for h, now in zip(rnd.sample(free, len(piles[slot])), piles[slot], strict=False):
            under[h] = now
        touched.add(slot)
    for h, now in under.items():
        for a in now:
            host[a] = h
            loc[a] = ATTACHED
    d.host, d.under = host, under
    d.touch(ATTACHMENTS)            # cached `host` and `attachments` reads are stale


def _unseen_plan(st, p, groups) -> tuple:
    """What of `st` names or marks the cards `p` cannot see (`groups`, see
    `determinized`): ([indexes of the window events whose card fields name
    one, among those a frame holds], [(scope, name) of the card-valued
    counters naming one], [(card
    counter, per player, start value, [the unseen cards off that start])]).
    It depends only on the state and the seat, so a search that imagines
    many worlds of one decision works it out once (kept on `st` while its
    versions stand still: every change to a state moves one)."""
    key = (p, st.version, sum(st.part_versions.values()), len(st.events))
    hit = st.__dict__.get("_unseen_plan")
    if hit is not None and hit[0] == key:
        return hit[1]
    game = st.game
    unseen = {c for _, real in groups.values() for c in real}
    fields, card_counters = _card_slots(game)
    # the events the rules can still read: those a frame holds (a window
    # being polled, `$w…`, or a window's result, an event index in a local;
    # any int of a frame counts, which is more than needed, never less)
    held = set()
    for fr in st.stack:
        for k, v in fr.env.items():
            if type(v) is int:
                held.add(v)
            elif k[:2] == "$w":
                held.add(v[0])
    events = [i for i in sorted(held) if 0 <= i < len(st.events)
              and any(st.events[i].get(f) in unseen
                      for f in fields.get(st.events[i]["tag"], _RESPONSE))]
    counters = []
    for scope, name in card_counters:
        v = st.game_counters[name] if scope == "g" else \
            st.player_counters[name] if scope == "p" else st.card_counters[name]
        if (v in unseen) if scope == "g" else not unseen.isdisjoint(v):
            counters.append((scope, name))
    marks = []
    for name, spec in game.counters["card"].items():
        off = _off_start(st, name, spec)
        if off and not unseen.isdisjoint(off):
            marks.append((name, spec["per_player"], spec["start"], sorted(unseen.intersection(off))))
    plan = (events, counters, marks)
    st.__dict__["_unseen_plan"] = (key, plan)
    return plan


def _off_start(st, name, spec) -> frozenset:
    """The cards whose counter `name` is off its start value (for some
    player, if it is a counter per player).  Kept on the game for the list of values
    it was found in, while no state can change that list: a list a state
    does not own (`owned_cc`) is shared since a clone and is never written
    again (a write copies it first, `State.own_cc`), so the same list is the
    same values.  `determinized` asks right after a clone, when the real
    game owns none, so a greedy bot's next guess finds every counter the
    turn did not write (searching every unseen card's counters was up to
    60% of working out a guess, measured: docs/history/speed-waves.md)."""
    values = st.card_counters[name]
    kept = st.game.__dict__.setdefault("_off_start", {})
    hit = kept.get(name)
    if hit is not None and hit[0] is values:
        return hit[1]
    s = spec["start"]
    off: frozenset[int]
    if values.count(s) == len(values):
        off = frozenset()                       # every card at its start: the usual case
    else:
        moved = compress(range(len(values)), map(ne, values, repeat(s)))
        if spec["per_player"]:                  # values[c * n + q]
            n = st.n
            off = frozenset(i // n for i in moved)
        else:
            off = frozenset(moved)
    if st.owned_cc is not None and name not in st.owned_cc:
        kept[name] = (values, off)
    return off


def _imagine_names(d, moved, plan):
    """What of copy `d` names a shuffled card by its id names the imagined
    card in its place (`moved`: real card -> imagined card): window events,
    card-valued counters (those `plan` lists, see `_unseen_plan`), reveals.
    The containers are replaced, never changed in place (the real game may
    share them)."""
    get = moved.get
    events, counters, _ = plan
    if events:
        fields = _card_slots(d.game)[0]
        new = d.events[:]
        for i in events:
            e = new[i]
            names = fields.get(e["tag"], _RESPONSE)
            if any(e.get(f) in moved for f in names):
                new[i] = {k: (get(x, x) if k in names and x is not None else x)
                          for k, x in e.items()}
        d.events = new
        d.touch("events")
    for scope, name in counters:
        if scope == "g":
            v = d.game_counters[name]
            if v in moved:
                d.set_counter("gctr", name, moved[v])
            continue
        v = d.player_counters[name] if scope == "p" else d.card_counters[name]
        if not moved.keys().isdisjoint(v):
            d.replace_counter("pctr" if scope == "p" else "cctr", name,
                              [get(x, x) if x is not None else x for x in v])
    if d.revealed and not moved.keys().isdisjoint(d.revealed):
        d.revealed = {get(c, c): seen for c, seen in d.revealed.items()}


_RESPONSE = ("response",)


def _card_slots(game) -> tuple:
    """({window tag: the fields of its events that hold cards: its declared
    card fields and the answering card, `response`}, [(scope, name) of every
    counter that holds a card: "g", "p" or "c"]), worked out once a game."""
    hit = game.__dict__.get("_determinized_card_slots")
    if hit is None:
        fields = {tag: tuple(sorted(f for f, t in (w.get("fields") or {}).items() if t == "card"))
                  + _RESPONSE for tag, w in game.windows.items()}
        counters = [(scope[0], name) for scope in ("game", "player", "card")
                    for name, spec in game.counters[scope].items() if spec.get("type") == "card"]
        hit = game.__dict__["_determinized_card_slots"] = (fields, counters)
    return hit


def _start_card_counters(d, marks):
    """The card counters of the shuffled cards at their start values (`marks`:
    [(counter, per player, start, [the unseen cards off it])], see
    `_unseen_plan`; why, in `determinized`: a card counter shows only on a
    card in view)."""
    n = d.n
    for name, per_player, s, cards in marks:
        values = d.own_cc(name)
        if per_player:
            row = [s] * n
            for c in cards:
                values[c * n:(c + 1) * n] = row
        else:
            for c in cards:
                values[c] = s
        d.touch("c:" + name)
        if name in d.game.covered_counters or name in d.game.keyed_counters:
            d.forget_zone()


def _remap_locals(stack, moved):
    """Locals that name a card the seat cannot see name the imagined card
    in that card's place (`moved`: real card -> imagined card), so a frame
    of the copy does not carry the real card's identity.  Which locals hold
    cards the compiler says per block (`Code.cards`); values are replaced,
    never changed in place (the real game may share them)."""
    get = moved.get
    for fr in stack:
        env = fr.env
        for name, how in fr.code.cards.items():
            v = env.get(name)
            if v is None:
                continue
            if how == "card":
                env[name] = get(v, v)
            elif how == "list":
                env[name] = [get(c, c) for c in v]
            elif how == "iter":
                env[name] = [[get(c, c) for c in v[0]], v[1]]
            elif type(v) is dict:           # a window event: its card fields
                env[name] = {k: (get(x, x) if k in how else x) for k, x in v.items()}

