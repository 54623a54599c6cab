"""The table: where each card is, what each player can see, and moving,
shuffling, attaching and revealing cards.

A mixin of `State`: these methods work on the state's own data.
"""
from __future__ import annotations

from cardc.engine import rng
from cardc.engine.deps import ATTACHMENTS
from cardc.engine.errors import EngineFault

ATTACHED = -1
OUT = -2            # per-player cards of seats not in this game


def _permuted(xs, rnd):
    """`xs` in a random order drawn from `rnd`: sorted by a random float each
    (about twice as fast as `random.shuffle`, which draws in Python; the
    guess of a look-ahead is on every search's path).  Equal keys, about
    2**-40 for a deck, keep the order `xs` came in."""
    random = rnd.random
    return sorted(xs, key=lambda _: random())


class Table:
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
            self.under[h].remove(c)
            if not self.under[h]:
                del self.under[h]
        elif slot >= 0:
            self.own_zone(slot).remove(c)

    def own_zone(self, slot):
        """The list of the zone at `slot`, this state's own to change in place:
        after a clone, parent and clone share zone lists until one of them
        writes (`zowned`: the slots copied since, None when all are its own)."""
        owned = self.zowned
        if owned is not None and slot not in owned:
            owned.add(slot)
            self.zones[slot] = self.zones[slot][:]
        return self.zones[slot]

    def start_tracking(self):
        """Count, per card definition, how often it is resolved and how often
        it enters each zone: the raw data of card-usage reports."""
        self.track = {"resolve": {}, "enter": {}, "react": {}}

    def move(self, c, slot, place="top"):
        if self.track is not None:
            key = self.game.card_field["id"][c] + ">" + self.game.slot_decl(self, slot)["id"]
            self.track["enter"][key] = self.track["enter"].get(key, 0) + 1
        # take it from where it is (as `_take`, written in: the hottest path)
        # ("active" versions the scan of the cards in force, `_scan_modifiers`:
        # a card with no modifier and no hook coming or going leaves it as it is)
        pv = self.pv
        here = self.loc[c]
        owned = self.zowned
        if here >= 0:
            (self.zones[here] if owned is None else self.own_zone(here)).remove(c)
            part = self.slot_parts[here]
            pv[part] = pv.get(part, 0) + 1
            self.sv[here] += 1
            if self.slot_active[here] and self.game.card_special[c] is not None:
                pv["active"] = pv.get("active", 0) + 1
        else:
            self._take(c)
        dest = self.zones[slot] if owned is None else self.own_zone(slot)
        part = self.slot_parts[slot]
        pv[part] = pv.get(part, 0) + 1
        self.sv[slot] += 1
        if self.slot_active[slot] and self.game.card_special[c] is not None:
            pv["active"] = pv.get("active", 0) + 1
        if place == "top":
            dest.insert(0, c)
        else:
            dest.append(c)
        self.loc[c] = slot
        if c in self.revealed:
            del self.revealed[c]
        if c in self.under and not self.game.slot_decl(self, slot).get("keeps_attachments"):
            # attachments follow their host into a zone that keeps them (a
            # tableau); anywhere else they come off and go in beside it
            at = dest.index(c) + 1
            pv[ATTACHMENTS] = pv.get(ATTACHMENTS, 0) + 1
            for a in self.under.pop(c):
                del self.host[a]
                dest.insert(at, a)
                self.loc[a] = slot
                at += 1
            if self.slot_active[slot]:
                pv["active"] = pv.get("active", 0) + 1

    def move_zone(self, src, slot, place="top"):
        """`move` of every card of the zone at `src` to `slot`, one after
        another in the zone's order, done in one step: the same zones, order,
        versions and counts as moving them one by one (to the top, the last
        one moved ends on top).  Cards with attachments, or a zone moved onto
        itself, go one by one."""
        cards = self.zones[src]
        if not cards:
            return
        if src == slot or (self.under and any(c in self.under for c in cards)):
            for c in list(cards):
                self.move(c, slot, place)
            return
        game, k = self.game, len(cards)
        if self.track is not None:
            enter, ids = self.track["enter"], game.card_field["id"]
            into = ">" + game.slot_decl(self, slot)["id"]
            for c in cards:
                key = ids[c] + into
                enter[key] = enter.get(key, 0) + 1
        owned = self.zowned
        if owned is not None:
            owned.add(src)              # the emptied zone is a new list of its own
        self.zones[src] = []
        dest = self.zones[slot] if owned is None else self.own_zone(slot)
        pv = self.pv
        for part in (self.slot_parts[src], self.slot_parts[slot]):
            pv[part] = pv.get(part, 0) + k
        self.sv[src] += 1
        self.sv[slot] += 1
        if self.slot_active[src] or self.slot_active[slot]:
            special = game.card_special
            n = sum(1 for c in cards if special[c] is not None)
            n *= self.slot_active[src] + self.slot_active[slot]
            if n:
                pv["active"] = pv.get("active", 0) + n
        if place == "top":
            dest[0:0] = cards[::-1]
        else:
            dest.extend(cards)
        loc, revealed = self.loc, self.revealed
        for c in cards:
            loc[c] = slot
            if c in revealed:
                del revealed[c]

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
            for c in cards:
                self.revealed.pop(c, None)

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
        self._take(c)
        self.touch(ATTACHMENTS)
        self.revealed.pop(c, None)
        self.loc[c] = ATTACHED
        self.host[c] = h
        self.under.setdefault(h, []).append(c)

    def detach(self, c):
        if self.loc[c] != ATTACHED:
            return
        slot = self.zone_of(c)
        self._take(c)
        self.touch_slot(slot)
        self.own_zone(slot).insert(0, c)
        self.loc[c] = slot

    def reveal(self, c, p):
        seen = self.revealed.setdefault(c, [])
        if p not in seen:
            seen.append(p)


    def determinized(self, p, rnd):
        """A copy of this state as `p` might imagine it: every card `p` cannot
        see is shuffled (with `rnd`, the caller's own generator) among the
        places `p` cannot see into that hold cards with the same back (cards
        that started in the same zone: a tile never trades places with a
        company card), zone sizes kept.  What `p` sees is exact; what `p` does
        not see is a guess.  Bots that look ahead use this, so they never act
        on hidden information.

        The copy depends on nothing `p` cannot know: the unseen cards of a
        back are put in a fixed order before the shuffle (so their real order
        does not show through), and the copy gets its own random generator,
        seeded from `rnd`, so a look-ahead that shuffles or draws does not
        see the real future."""
        d = self.clone()
        game = self.game
        start = game.card_start
        shown = {c for c, seen in d.revealed.items() if p in seen}     # revealed to p
        # back -> (places: [(slot, [positions])], cards), in slot order
        groups: dict = {}
        for slot in game.hidden_slots(d.n, p):
            zone = d.zones[slot]
            if not zone:
                continue
            backs = [start[c] for c in zone]
            if backs.count(backs[0]) == len(backs) and shown.isdisjoint(zone):
                # the usual case: a deck or a hand of one back, nothing shown
                places, cards = groups.setdefault(backs[0], ([], []))
                places.append((slot, range(len(zone))))
                cards.extend(zone)
                continue
            for i, c in enumerate(zone):
                if c not in shown:
                    places, cards = groups.setdefault(backs[i], ([], []))
                    places.append((slot, (i,)))
                    cards.append(c)
        touched = set()
        loc = d.loc
        moved = {}                      # real card -> the imagined card in its place
        remap = any(fr.code.cards for fr in d.stack)     # only frames with card locals need it
        for back in sorted(groups):
            places, real = groups[back]          # the real cards, in place order
            cards = _permuted(sorted(real), rnd)
            if remap:
                moved.update((was, c) for was, c in zip(real, cards) if c != was)
            k = 0
            for slot, positions in places:
                if type(positions) is range:        # the whole zone
                    chunk = d.zones[slot] = cards[k:k + len(positions)]
                    d.zowned.add(slot)
                    for c in chunk:
                        loc[c] = slot
                else:
                    c = d.own_zone(slot)[positions[0]] = cards[k]
                    loc[c] = slot
                k += len(positions)
                touched.add(slot)
        if moved:
            _remap_locals(d.stack, moved)
        d.rng = rng.seed_state(rnd.getrandbits(64))
        # counters p may not see are imagined at their start values
        for scope, values in (("game", d.g), ("player", d.pc)):
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

