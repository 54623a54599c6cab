"""A loaded game: the bundle, with its code compiled to Python.

`Game` is shared and never changes during play; every `State` points at one.
It knows the zone layout (shared zones first, then each player zone once per
seat), the printed fields of every card instance, and the compiled code of
procedures, functions, hooks, card effects and the game flow.
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import cardc.engine.specialize as specialize
from cardc.engine.blocks import BlockGen
from cardc.engine.deps import KEYED, function_deps, simple_functions, unkeyed
from cardc.engine.errors import BadBundle, BundleMismatch, EngineFault
from cardc.engine.limits import DEPTH, DIGITS, STEPS, Limits
from cardc.engine.pygen import PyGen
from cardc.engine.stale import Stale
from cardc.engine.table import OUT
from cardc.engine.writes import WritePlan
from cardc.ir import nodes
from cardc.ir.calls import impure_functions, recursive_functions
from cardc.ir.content_limits import MAX_CARDS

if TYPE_CHECKING:
    from cardc.engine.state import State

SUPPORTED_FORMAT = 1


def _interned(value):
    """A printed text field as one shared object (`sys.intern`): a card's
    cell, say, is then the very object the grid's cells and neighbours are
    (`_grid`), so a dict keyed by cells finds it by identity, without
    comparing the characters (JSON gives each occurrence its own copy)."""
    return sys.intern(value) if type(value) is str else value


#: the calls of a cached function counted before it is settled (CacheProbe)
PROBE_CALLS = 1000


class CacheProbe:
    """The first calls of a cached content function, counted: how many found
    their value kept.  Keeping a value costs a lookup, a store and, later,
    its forgetting; a function whose values are almost never asked for
    twice before they are stale (say, one called only when a cached caller
    misses, each time with new arguments) runs faster uncached.  Which
    functions those are depends on how the content is played, so it is
    counted, not guessed (an example in docs/history/speed-waves.md).  The function is first
    compiled with two counters written in (PyGen.compile_cached); after
    PROBE_CALLS calls it is settled for the rest of the game's life:
    uncached if at most 1% of the calls found their value kept, else cached
    without the counters.  The values are the same either way (the functions are pure);
    only the time differs."""

    __slots__ = ("game", "name", "calls", "hits", "counted", "cached")
    limit = PROBE_CALLS

    def __init__(self, game, name):
        self.game, self.name = game, name
        self.calls = self.hits = 0
        self.counted = self.cached = None    # the two forms, once compiled

    def settle(self):
        """Both forms were compiled beforehand: settling changes which one a
        name stands for, and adds no name (a name added to the generated
        code's namespace while games run would unsettle every lookup of a
        global the interpreter has specialised)."""
        if self.counted is None:    # settled already (a call that was running)
            return
        game, name = self.game, self.name
        final = self.cached if self.hits * 100 > self.calls else game.body_function(name)
        game.settle_function(name, self.counted, final)
        self.counted = None


def _env_call(body, params):
    """A function body called the old way, with its arguments in a dict."""
    return lambda st, env: body(st, *[env[p] for p in params])


class Game:
    def __init__(self, bundle: dict, reference: bool = False):
        """The game of a bundle, its code generated.  `reference`: with every
        optimisation of the generated code off (no function caches, no
        modifiers specialised, loops and branches run op by op, every call
        with a frame, comprehensions as Python writes them): slower, and
        simple enough to trust; CI plays the golden games and the rules
        scenarios in both modes and compares them (tests/test_reference.py)."""
        self.reference = reference
        if bundle.get("format") != SUPPORTED_FORMAT:
            raise BundleMismatch(f"bundle format {bundle.get('format')!r} is not supported "
                                 f"(this cardc reads format {SUPPORTED_FORMAT}); rebuild it with `cardc build`")
        self.bundle = bundle
        self.id = bundle["game"]
        self.name = bundle["name"]
        self.hash = bundle["source_hash"]
        self.min_players = bundle["players"]["min"]
        self.max_players = bundle["players"]["max"]
        self.params = bundle["params"]
        self.max_turns = bundle.get("max_turns", 1000)
        self.limits = lim = Limits.of(bundle.get("limits"))
        self.over_steps = (f"more than {lim.steps:,} steps (loop turns and calls) without a decision: "
                           "the rules never stop here (a game may raise `limits: steps` in game.yaml, "
                           f"up to {STEPS[1]:,})")
        self.over_depth = (f"procedures and hooks run more than {lim.depth:,} deep inside each other: "
                           "a call that never comes back? (a game may raise `limits: depth` in "
                           f"game.yaml, up to {DEPTH[1]:,})")
        self.over_digits = (f"a number of more than {lim.digits} digits: arithmetic that grows "
                            "without end? (a game may raise `limits: digits` in game.yaml, up to "
                            f"{DIGITS[1]:,})")
        if len(bundle.get("instances", ())) > MAX_CARDS:
            raise BadBundle(f"instances: {len(bundle['instances']):,} cards, more than the "
                            f"{MAX_CARDS:,} a game may have")
        # +1: the highest score wins; -1: the lowest (`score: {wins: lowest}`)
        self.score_sign = -1 if bundle.get("score_wins") == "lowest" else 1
        # the named levels above a turn ([name, game counter or None for the
        # pass round the table]); by default just the round
        self.levels = [(lv["name"], lv["counter"]) for lv in bundle.get("levels") or []] or [("round", None)]
        self._zones(bundle)
        self._cards(bundle)
        self._grid(bundle.get("grid"))
        self.counters = bundle["counters"]
        self.windows = bundle["windows"]
        self.events = bundle["events"]
        self._code(bundle)

    @classmethod
    def load(cls, path, reference: bool = False) -> Game:
        from cardc.ir.schema import read_bundle  # a file is untrusted: checked first
        return cls(read_bundle(path), reference)

    # ------------------------------------------------------------ zones
    def _zones(self, bundle):
        self.zone_decls = bundle["zones"]
        self.shared = [z for z in self.zone_decls if z["owner"] == "shared"]
        self.per_player = [z for z in self.zone_decls if z["owner"] == "player"]
        self.shared_slot = {z["id"]: i for i, z in enumerate(self.shared)}
        self.player_index = {z["id"]: i for i, z in enumerate(self.per_player)}
        self.n_shared = len(self.shared)
        self.shared_parts = ["z:" + z["id"] for z in self.shared]
        self.player_parts = ["z:" + z["id"] for z in self.per_player]
        self._slot_tables = {}
        self._start_layout = {}
        self._hidden = {}
        self._memory_plans: dict = {}
        self.shared_active = [bool(z["active"]) for z in self.shared]
        self.player_active = [bool(z["active"]) for z in self.per_player]
        self.active_zone_ids = [z["id"] for z in self.zone_decls if z["active"]]
        self.active_parts = ["z:" + z for z in self.active_zone_ids]

    def player_zone_base(self, zone_id):
        """Slot of (zone, player p) is base + index * n + p."""
        return self.n_shared, self.player_index[zone_id]

    def slot(self, st, zone_id, player=None):
        if zone_id in self.shared_slot:
            return self.shared_slot[zone_id]
        return self.n_shared + self.player_index[zone_id] * st.n + player

    def slot_decl(self, st, slot):
        if slot < self.n_shared:
            return self.shared[slot]
        return self.per_player[(slot - self.n_shared) // st.n]

    def write_plan(self, kind: str, name: str) -> WritePlan:
        """What a write of counter `name` (of `kind`, writes.PARTS) makes
        stale, worked out once: the generated rules and `Writes` both follow it."""
        key = (kind, name)
        plan = self._write_plans.get(key)
        if plan is None:
            plan = self._write_plans[key] = WritePlan.of(self, kind, name)
        return plan

    def slot_tables(self, n):
        """([is each slot active], [each slot's card limit or None], [the
        (key, counter) each slot is read by, Game.keyed], [what a change to
        each slot makes stale, stale.Stale.slot_table], [what it makes stale
        when the slot becomes empty or stops being empty,
        stale.Stale.empty_table], [the five of each slot as a move reads
        them, Table.move: (stale, (empty, active, by cell, keyed) or None)]) for
        `n` players, made once."""
        hit = self._slot_tables.get(n)
        if hit is None:
            active = self.shared_active + [a for a in self.player_active for _ in range(n)]
            limits = [z["limit"] for z in self.shared] + \
                [z["limit"] for z in self.per_player for _ in range(n)]
            by_zone: dict = {}
            for key in self.keyed:
                zone, ctr = key.split("|")
                by_zone.setdefault(zone, []).append((key, ctr))
            keyed = [tuple(by_zone.get(z["id"], ())) for z in self.shared] + \
                [tuple(by_zone.get(z["id"], ())) for z in self.per_player for _ in range(n)]
            stale, empty = self.stale.slot_table(self, n), self.stale.empty_table(self, n)
            # all a move asks of the slot it leaves and the one it enters, in
            # one tuple (None: nothing reads the slot), read once a side:
            # (what a change makes stale, the rarer four or None when none
            # applies: most slots are read only as a whole)
            plans = []
            for s in range(len(active)):
                flags = (empty[s], active[s], s in self.stale.cells, bool(keyed[s]))
                rare = flags if any(flags) else None
                plans.append((stale[s], rare) if stale[s] or rare else None)
            hit = self._slot_tables[n] = (active, limits, keyed, stale, empty, plans)
        return hit

    def start_layout(self, n):
        """(the cards of each zone slot, the slot of each card) before setup
        runs, for `n` players, worked out once: every game of a simulation
        starts from copies of these two lists."""
        hit = self._start_layout.get(n)
        if hit is None:
            zones: list[list[int]] = [[] for _ in range(self.slot_count(n))]
            loc = [OUT] * len(self.instances)
            for iid, inst in enumerate(self.instances):
                seat = inst["seat"]
                if seat is not None and seat >= n:
                    continue
                zone = self.cards[self.card_def[iid]]["starts_in"]
                slot = self.shared_slot[zone] if zone in self.shared_slot else \
                    self.n_shared + self.player_index[zone] * n + seat
                zones[slot].append(iid)
                loc[iid] = slot
            hit = self._start_layout[n] = (zones, loc)
        return hit

    def hidden_slots(self, n, p):
        """The slots whose cards seat `p` does not see (not public, not p's own
        owner-visible zones), for `n` players, worked out once."""
        key = (n, p)
        hit = self._hidden.get(key)
        if hit is None:
            hit = []
            for slot in range(self.slot_count(n)):
                decl = self.shared[slot] if slot < self.n_shared else \
                    self.per_player[(slot - self.n_shared) // n]
                owner = None if slot < self.n_shared else (slot - self.n_shared) % n
                vis = decl["visibility"]
                if not (vis == "public" or (vis == "owner" and owner == p)):
                    hit.append(slot)
            self._hidden[key] = hit
        return hit

    def seen_masks(self, n):
        """Per slot, for `n` players: the seats that see its cards, as a bit
        mask (seat p is bit p); what `Table.remember` reads on every move."""
        key = ("seen", n)
        hit = self._hidden.get(key)
        if hit is None:
            hit = [0] * self.slot_count(n)
            for p in range(n):
                hidden = set(self.hidden_slots(n, p))
                for slot in range(len(hit)):
                    if slot not in hidden:
                        hit[slot] |= 1 << p
            self._hidden[key] = hit
        return hit

    def memory_plan(self, n, here, dest):
        """For a card moving from slot `here` to slot `dest` (neither under a
        card, the card revealed to nobody): (the seats that see it arrive but
        did not see it before: they learn which card left `here`; the seats
        that saw it and cannot see it now: they remember it in `dest`; the
        seats that see neither: they no longer know what is in `here`)."""
        key = (n, here, dest)
        hit = self._memory_plans.get(key)
        if hit is None:
            seen = self.seen_masks(n)
            before, after = seen[here], seen[dest]
            hit = tuple(tuple(p for p in range(n) if mask >> p & 1)
                        for mask in (after & ~before, before & ~after, ~(before | after)))
            self._memory_plans[key] = hit
        return hit

    def slot_active(self, st, slot):
        if slot < self.n_shared:
            return self.shared_active[slot]
        return self.player_active[(slot - self.n_shared) // st.n]

    def slot_owner(self, st, slot):
        if slot is None or slot < self.n_shared:
            return None
        return (slot - self.n_shared) % st.n

    def slot_name(self, st, slot):
        decl = self.slot_decl(st, slot)
        owner = self.slot_owner(st, slot)
        return decl["id"] if owner is None else f"{st.player_name(owner)}'s {decl['id']}"

    def slot_count(self, n):
        return self.n_shared + len(self.per_player) * n

    # ------------------------------------------------------------ cards
    def _cards(self, bundle):
        self.cards = bundle["cards"]
        self.card_index = {c["id"]: i for i, c in enumerate(self.cards)}
        self.instances = bundle["instances"]
        self.card_def = [self.card_index[i["card"]] for i in self.instances]
        self.card_seat = [i["seat"] for i in self.instances]
        self.card_start = [self.cards[d]["starts_in"] for d in self.card_def]
        self.card_name = [self.cards[d]["name"] for d in self.card_def]
        self.card_field = {
            "id": [self.cards[d]["id"] for d in self.card_def],
            "name": self.card_name,
            "kind": [self.cards[d]["kind"] for d in self.card_def],
            "text": [self.cards[d]["text"] for d in self.card_def],
        }
        self.card_field_types = {str(k): str(v) for k, v in bundle["card_fields"].items()}
        for name in bundle["card_fields"]:
            self.card_field[name] = [_interned(self.cards[d]["fields"].get(name)) for d in self.card_def]
        self.reaction_tag = [(c.get("reaction") or {}).get("to") for c in self.cards]

    # ------------------------------------------------------------ grid
    def _grid(self, grid):
        self.grid_columns, self.grid_cells, self.grid_neighbors = [], [], {}
        self.grid_column_of, self.grid_row_of = {}, {}
        if not grid:
            return
        cols = grid["columns"]
        self.grid_columns = list(cols) if isinstance(cols, str) else list(cols)
        rows = int(grid["rows"])
        for r in range(1, rows + 1):
            for ci, col in enumerate(self.grid_columns):
                cell = sys.intern(f"{col}{r}")      # one object per cell name (_interned)
                self.grid_cells.append(cell)
                self.grid_column_of[cell], self.grid_row_of[cell] = ci + 1, r
                nbs = []
                for dc, dr in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                    c2, r2 = ci + dc, r + dr
                    if 0 <= c2 < len(self.grid_columns) and 1 <= r2 <= rows:
                        nbs.append(sys.intern(f"{self.grid_columns[c2]}{r2}"))
                self.grid_neighbors[cell] = nbs

    # ------------------------------------------------------------ code
    def _code(self, bundle):
        code = bundle["code"]
        # per card instance: playable whatever the state (True: no requirement,
        # or `requires: true`), never (`requires: false`: an asset, a reaction
        # only), or None (its requirement is checked): most cards of a hand
        # are one of the first two, and a menu asks about each of them
        fixed = [True if c.get("requires") in (None, ["lit", True]) else
                 False if c.get("requires") == ["lit", False] else None for c in self.cards]
        self.card_play_fixed = [fixed[d] for d in self.card_def]
        self.fn_params = {k[3:]: v["params"] for k, v in code.items() if k.startswith("fn:")}
        self.fn_deps, self.mod_deps, self.covered_counters = function_deps(
            code, self.cards, self.active_zone_ids)
        # a counter held per player is never read by one value (the checker
        # refuses it; a bundle that does so depends on the whole zone instead)
        card_counters = self.counters["card"]
        for deps in (self.fn_deps, self.mod_deps):
            for name, parts in deps.items():
                bad = {d for d in parts if d.startswith(KEYED)
                       and card_counters.get(d[len(KEYED):].split("|")[1], {}).get("per_player", True)}
                if bad:
                    deps[name] = frozenset(parts - bad).union(*(unkeyed(d) for d in bad))
        every = [d for deps in list(self.fn_deps.values()) + list(self.mod_deps.values()) for d in deps]
        # the zones some function reads by the value of a card counter
        # ("<zone>|<counter>"): a change there makes stale what reads that value (stale.py)
        self.keyed = sorted({"|".join(d[len(KEYED):].split("|")[:2]) for d in every if d.startswith(KEYED)})
        self.keyed_counters = {k.split("|")[1] for k in self.keyed}
        self.fn_simple = simple_functions(code)
        # a function with a list argument is never kept: a list is no key, so
        # each call looked itself up, failed on the list (an exception, ~1 µs)
        # and computed; it is called plainly (the signature only saves time:
        # a call with a list is computed whatever the signature says)
        signatures = (bundle.get("signatures") or {}).get("functions") or {}
        # the compiler's types of each function's parameters, in order (the
        # generator reads them: a parameter declared `cell` holds one cell or none)
        self.fn_param_types = {
            name: [str(p[1]) if isinstance(p, list) and len(p) == 2 else "any" for p in sig["params"]]
            for name, sig in signatures.items() if isinstance(sig, dict) and isinstance(sig.get("params"), list)}
        self.fn_list_args = frozenset(
            name for name, sig in signatures.items() if isinstance(sig, dict)
            and any(isinstance(p, list) and len(p) == 2 and str(p[1]).startswith("list")
                    for p in sig.get("params") or ()))
        # each function's body, as typed nodes (cardc/ir/nodes.py): what the
        # generator and the analyses read
        self.fn_bodies = {k[3:]: nodes.parse(v["expr"]) for k, v in code.items() if k.startswith("fn:")}
        self.fn_impure = impure_functions(code)
        self.fn_recursive = recursive_functions(code)
        # the declared arguments of each modifier, in order: its cards' functions take them so
        self.modifier_args = {name: list(args) for name, args in (bundle.get("modifiers") or {}).items()}
        # each card's modifiers, {name: body} by card id, and the bodies of
        # every card's modifier of each name (total.py reads them), as typed nodes
        self.card_modifiers = {c["id"]: {m: nodes.parse(ir) for m, ir in (c.get("modifiers") or {}).items()}
                               for c in self.cards}
        self.modifier_bodies: dict = {}
        for c in self.cards:
            for m, body in self.card_modifiers[c["id"]].items():
                self.modifier_bodies.setdefault(m, []).append(body)
        # {modifier: [(argument, word)]}: the words a card's modifier compares an argument with
        self.modifier_keys = specialize.keys(self.modifier_bodies, self.modifier_args, code,
                                             self.fn_bodies, self.fn_params) if not self.reference else \
            {m: [] for m in self.modifier_bodies}
        # {modifier: argument}: the player argument some of its cards test
        # against their own zone's owner (`X if player == owner_of(this) else
        # value`): a call site reads the list for its player (seat_modifiers)
        self.modifier_owner = {}
        for m, bodies in self.modifier_bodies.items():
            guards = [g for g in (specialize.owner_guard(body, self.modifier_args.get(m, ()))
                                  for body in bodies) if g is not None]
            if guards and not self.reference:
                self.modifier_owner[m] = max(sorted(set(guards)), key=guards.count)
        self.cache_functions = not self.reference    # off only to check that caching changes nothing
        self._cached = {}
        self.pygen = pygen = PyGen(self)
        # function name -> its cache's index in State.cache: one for each
        # function not built in place, and what each change to a state makes
        # stale in them (the code written below forgets it)
        self.cache_slots = {name: i for i, name in enumerate(
            name for name in self.fn_bodies if not self.fn_simple.get(name))}
        self.stale = Stale.of(self)
        self._write_plans = {}             # (kind, name) -> WritePlan (write_plan)
        self.py_bodies: dict = {}
        for name in self.fn_bodies:
            self.body_function(name)
        # functions called the old way, f(st, env) with the arguments in env
        self.functions = {name: _env_call(self.py_bodies[name], self.fn_params[name])
                          for name in self.fn_bodies}
        # every block is declared first (so calls can bind their callee), then generated
        blocks = BlockGen(self, pygen)
        specs = {}
        self.codes = {}        # name -> Code
        for key, spec in code.items():
            if key.split(":")[0] in ("proc", "hook", "flow") and spec is not None:
                specs[key] = (spec, None)
        for c in self.cards:
            cid = c["id"]
            if c.get("effect"):
                specs[f"card:{cid}:effect"] = (c["effect"], c)
            reaction = c.get("reaction") or {}
            if reaction.get("effect"):
                specs[f"card:{cid}:reaction"] = (reaction["effect"], c)
            for event, spec in (c.get("hooks") or {}).items():
                specs[f"card:{cid}:hook:{event}"] = (spec, c)
        for key, (spec, card) in specs.items():
            self.codes[key] = blocks.declare(key, spec, card)
        self.direct_procs = blocks.plan(specs, self.codes)
        self.started_procs = blocks.started
        # the code object of each procedure's frameless form -> its Code (a fault's place)
        self.frameless = {}
        for key, (spec, _card) in specs.items():
            blocks.build(self.codes[key], spec)
        # every function's cached form exists now, so each state has a cache
        # for each (a block compiled later, a scenario's, adds none)
        for name in self.fn_bodies:
            self.cached_function(name)
        self.proc_params = {k[5:]: v["params"] for k, v in code.items()
                            if k.startswith("proc:") and v is not None}
        build = pygen.build
        self.display_label = build(code.get("display_label")) if code.get("display_label") else None
        # the browser table's board: a board card's group, and what the legend lists of a group
        self.display_group = build(code.get("display_group")) if code.get("display_group") else None
        self.display_legend = {k.partition(":")[2]: build(v) for k, v in code.items()
                               if k.startswith("display_legend:") and v}
        self.score = build(code.get("score")) if code.get("score") else None
        self.eval = build(code.get("eval")) if code.get("eval") else self.score
        self.constraints = [(build(c["expect"]), c["message"], c["loc"])
                            for c in code.get("constraints", [])]
        self.invariants = [(build(c["expect"]), c["message"], c["loc"])
                           for c in code.get("invariants", [])]
        self.overflow_procs = {"proc:" + z["overflow"] for z in self.zone_decls if z["overflow"]}
        self.requires, self.reaction_if = [], []
        self.hooks_of, self.modifiers_of = [], []
        for c in self.cards:
            cid = c["id"]
            # f(st, me, this): no dict of locals made for each check
            self.requires.append(pygen.compile_body(c["requires"], ["me", "this"])
                                 if c.get("requires") is not None else None)
            self.reaction_if.append(build((c.get("reaction") or {}).get("if")))
            self.hooks_of.append({event: f"card:{cid}:hook:{event}" for event in (c.get("hooks") or {})})
            self.modifiers_of.append({m: pygen.compile_modifier(body, self.modifier_args.get(m, []))
                                      for m, body in self.card_modifiers[cid].items()})
        # per card instance, for `playable` and `has_effect` written in place
        self.card_requires = [self.requires[d] for d in self.card_def]
        self.card_cell = self.card_field.get("cell")    # each card's printed cell (Table.forget_cell)
        self.card_has_effect = [f"card:{cid}:effect" in self.codes for cid in self.card_field["id"]]
        self.game_hooks = {k[5:]: k for k in self.codes if k.startswith("hook:")}
        self.has_hooks = {e for e in self.events
                          if e in self.game_hooks or any(e in h for h in self.hooks_of)}
        self.has_modifiers = {m for mods in self.modifiers_of for m in mods}
        # the next turn is the next seat's, unless the content declares a
        # counter that changes the order (Interpreter._next_in_turn)
        self.plain_turn_order = not ({"next_player", "direction"} & self.counters["game"].keys()
                                     or "out" in self.counters["player"])
        # per card instance: None, or (its modifiers, its hooks' code, its
        # modifiers folded for each word) for scans
        self._active_slots = {}
        # each card's modifiers folded for the words call sites pass, and
        # which of them modify only for their owner (specialize.py)
        folded = [self._specialised(c, self.modifiers_of[d]) for d, c in enumerate(self.cards)]
        owned = [self._owner_guarded(c) for c in self.cards]
        self.card_special = []
        for d in self.card_def:
            mods, hooked = self.modifiers_of[d], self.hooks_of[d]
            self.card_special.append(
                (tuple(mods.items()), tuple((e, self.codes[k]) for e, k in hooked.items()), folded[d])
                if mods or hooked else None)
        # per card instance: the modifiers it applies only for its zone's owner
        self.card_guarded = [owned[d] for d in self.card_def]

    def _specialised(self, card, compiled) -> tuple:
        """((modifier, argument, word), function) for each of the card's
        modifiers and each word its call sites may fix: the modifier folded
        for that word, or the same function where folding changed nothing;
        none where it is then `value` itself (specialize.py)."""
        out = []
        for m, body in self.card_modifiers[card["id"]].items():
            for arg, word in self.modifier_keys.get(m, ()):
                folded = specialize.specialise(body, arg, word)
                if folded is None:
                    continue
                f = compiled[m] if folded == body else \
                    self.pygen.compile_modifier(folded, self.modifier_args.get(m, []))
                out.append(((m, arg, word), f))
        return tuple(out)

    def _owner_guarded(self, card) -> frozenset:
        """The card's modifiers that modify only for its own zone's owner,
        tested on the argument the call sites' lists are by
        (`modifier_owner`, `seat_modifiers`)."""
        return frozenset(m for m, body in self.card_modifiers[card["id"]].items()
                         if self.modifier_owner.get(m) is not None and
                         specialize.owner_guard(body, self.modifier_args.get(m, ())) == self.modifier_owner[m])

    def seat_modifiers(self, found, name, who):
        """The cards in force that modify `name` (`found`, the scan's lists)
        when the player argument is `who`: without those that modify only
        for their zone's owner when that is not `who` (each would give the
        value unchanged).  Kept in `found` for the rest of the scan's life."""
        guarded = self.card_guarded
        out = tuple(e for e in found.get(name, ()) if name not in guarded[e[0]] or who == e[2])
        found[(name, self.modifier_owner[name], "owner", who)] = out
        return out

    def compile_block(self, name, spec):
        """A block compiled after load (a scenario's `run:` step), with the
        game's own generator: the same code any block of the bundle gets."""
        blocks = BlockGen(self, self.pygen)
        code = blocks.declare(name, spec)
        blocks.build(code, spec)
        return code

    def generated_source(self) -> str:
        """Every generated function of this game, in order, as one readable module."""
        return "\n".join(src for _, src in self.pygen.sources)

    def active_cards(self, st):
        """Cards whose hooks and modifiers are in force: those in active zones, in zone order."""
        out = []
        for zid in self.active_zone_ids:
            if zid in self.shared_slot:
                out.extend(st.zones[self.shared_slot[zid]])
            else:
                base, index = self.player_zone_base(zid)
                for p in range(st.n):
                    out.extend(st.zones[base + index * st.n + p])
        return out

    def body_function(self, name: str) -> Callable[..., Any]:
        """f(st, *args): the body of function `name`, uncached."""
        if name not in self.py_bodies:
            self.py_bodies[name] = lambda st, *args: self.py_bodies[name](st, *args)   # recursion
            self.py_bodies[name] = self.pygen.compile_body(self.fn_bodies[name], self.fn_params[name],
                                                           name)
        return self.py_bodies[name]

    def cache_slot(self, name) -> int:
        """The index of function `name`'s own cache in `State.cache`."""
        return self.cache_slots[name]

    def cached_function(self, name: str) -> Callable[..., Any]:
        """The call of function `name` with positional arguments: cached by
        the versions of the state parts it reads, unless it is too cheap to cache."""
        if name not in self._cached:
            # a recursive function binds this stand-in until its own code exists
            self._cached[name] = lambda st, *args: self._cached[name](st, *args)
            if self.fn_simple.get(name) or name in self.fn_list_args:
                self._cached[name] = self.body_function(name)
            else:
                deps = tuple(sorted(self.fn_deps.get(name, ("*",))))
                # counted first, then settled cached or not (CacheProbe); a
                # recursive function, or one kept for one version, stays cached
                args = (name, self.fn_bodies[name], self.fn_params[name], deps)
                fn = self.pygen.compile_cached(*args)
                if name not in self.fn_recursive and "*" not in deps:
                    probe = CacheProbe(self, name)
                    probe.cached = fn
                    fn = probe.counted = self.pygen.compile_cached(*args, probe)
                    self.body_function(name)
                self._cached[name] = fn
        return self._cached[name]

    def settle_function(self, name, counted, final):
        """From now on, calls of function `name` run `final` (its cached or
        its plain form) where they ran `counted`: in the generated code too,
        which calls it by the name `counted` was bound to."""
        self._cached[name] = final
        self.pygen.rebind(counted, final)

    def active_modifiers(self, st, name):
        """[(card, modifier function, owner)] in force for `name`, in zone order."""
        hit = st.mods
        if hit is None or hit[0] != st.part_versions["active"]:
            hit = self._scan_modifiers(st)
        return hit[1].get(name, ())

    def _scan_modifiers(self, st):
        """Which cards modify what, and which cards hook which event, changes
        only when an active zone changes (the version `active`), so one scan
        serves every modifier and every trigger until then:
        (version, {modifier: [(card, function, owner)]},
        {event: [(card, hook code, owner)]}), in zone order."""
        found: dict = {}
        hooks: dict = {}
        special = self.card_special
        for slot, owner in self.active_slots(st.n):
            for c in st.zones[slot]:
                sp = special[c]
                if sp is None:
                    continue
                for mname, f in sp[0]:
                    found.setdefault(mname, []).append((c, f, owner))
                for key, f in sp[2]:        # the same, for a word a call site fixes
                    found.setdefault(key, []).append((c, f, owner))
                for event, code in sp[1]:
                    hooks.setdefault(event, []).append((c, code, owner))
        st.mods = hit = (st.part_versions["active"], found, hooks)
        return hit

    def active_slots(self, n):
        """[(slot, owner)] of the active zones for `n` players, in the order
        of `active_cards`."""
        hit = self._active_slots.get(n)
        if hit is None:
            hit = []
            for zid in self.active_zone_ids:
                if zid in self.shared_slot:
                    hit.append((self.shared_slot[zid], None))
                else:
                    base, index = self.player_zone_base(zid)
                    hit += [(base + index * n + p, p) for p in range(n)]
            self._active_slots[n] = hit
        return hit

    def modify(self, st, name, value, args_fn):
        """`value` adjusted by every modifier of `name` in force, in zone order.
        `args_fn()` makes the modifier's arguments (a dict), only when some
        card in play modifies `name`."""
        hit = st.mods
        if hit is None or hit[0] != st.part_versions["active"]:
            hit = self._scan_modifiers(st)
        mods = hit[1].get(name)
        if not mods:
            return value
        args = args_fn()
        values = [args.get(a) for a in self.modifier_args.get(name, ())]
        turn_player = st.turn_player
        for c, f, owner in mods:
            value = f(st, value, c, owner if owner is not None else turn_player, owner, *values)
        return value

    def apply_modifiers(self, st, name, base, args):
        return self.modify(st, name, base, lambda: dict(args))

    def broken_invariants(self, st) -> list[str]:
        """The content's invariants that do not hold now (none while a zone
        limit is being enforced), plus the engine's own: every card in
        exactly one place."""
        out = []
        seen = [0] * len(self.instances)
        for cards in st.zones:
            for c in cards:
                seen[c] += 1
        for cards in st.under.values():
            for c in cards:
                seen[c] += 1
        lost = [i for i, k in enumerate(seen) if k != (0 if st.loc[i] == -2 else 1)]
        if lost:
            out.append(f"cards not in exactly one place: {[self.card_name[i] for i in lost][:5]}")
        if any(f.code.name in self.overflow_procs for f in st.stack):
            return out
        for check, message, (file, line, col) in self.invariants:
            if not check(st, {}):
                out.append(f"{file}:{line}:{col}: invariant broken: {message}")
        return out

    def level_values(self, st) -> list:
        """[(name, value)] of the levels above a turn, outermost first."""
        return [(name, st.round if counter is None else st.game_counters.get(counter)) for name, counter in self.levels]

    def level_text(self, st) -> str:
        """`deal 3, round 11`: where in the game a turn is, as logs say it."""
        return ", ".join(f"{name} {value}" for name, value in self.level_values(st))

    def new_state(self, players: int, seed: int = 0, log: bool = False, memory: bool = True) -> State:
        """A new game, run to its first decision.  `memory`: keep what each
        seat saw go where it cannot see (Table.remember), for agents that
        look ahead; a run whose agents never look (random) leaves it off, as
        it costs some 10% of a random game."""
        from cardc.engine.state import State
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"{self.name} is for {self.min_players} to {self.max_players} players, "
                             f"not {players}")
        return State.initial(self, players, seed, log, memory=memory)

    def fault(self, message):
        raise EngineFault(message)
