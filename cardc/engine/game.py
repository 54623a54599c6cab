"""A loaded game: the bundle, with its code turned into closures.

`Game` is shared and never changes during play; every `State` points at one.
It knows the zone layout (shared zones first, then each player zone once per
seat), the printed fields of every card instance, and the compiled code of
procedures, functions, hooks, card effects and the game flow.
"""
from __future__ import annotations

from cardc.engine.deps import function_deps, simple_functions
from cardc.engine.errors import BundleMismatch, EngineFault
from cardc.engine.exprs import ExprBuilder
from cardc.engine.ops import OpBuilder

SUPPORTED_FORMAT = 1


def _env_call(body, params):
    """A function body called the old way, with its arguments in a dict."""
    return lambda st, env: body(st, *[env[p] for p in params])


class Game:
    def __init__(self, bundle: dict):
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
        self._zones(bundle)
        self._cards(bundle)
        self._grid(bundle.get("grid"))
        self.counters = bundle["counters"]
        self.windows = bundle["windows"]
        self.events = bundle["events"]
        self._code(bundle)

    @classmethod
    def load(cls, path) -> "Game":
        from cardc.bundle_schema import read_bundle      # a file is untrusted: checked first
        return cls(read_bundle(path))

    # ------------------------------------------------------------ zones
    def _zones(self, bundle):
        self.zone_decls = bundle["zones"]
        self.shared = [z for z in self.zone_decls if z["owner"] == "shared"]
        self.per_player = [z for z in self.zone_decls if z["owner"] == "player"]
        self.shared_slot = {z["id"]: i for i, z in enumerate(self.shared)}
        self.player_index = {z["id"]: i for i, z in enumerate(self.per_player)}
        self.n_shared = len(self.shared)
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
        for name in bundle["card_fields"]:
            self.card_field[name] = [self.cards[d]["fields"].get(name) for d in self.card_def]
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
                cell = f"{col}{r}"
                self.grid_cells.append(cell)
                self.grid_column_of[cell], self.grid_row_of[cell] = ci + 1, r
                nbs = []
                for dc, dr in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                    c2, r2 = ci + dc, r + dr
                    if 0 <= c2 < len(self.grid_columns) and 1 <= r2 <= rows:
                        nbs.append(f"{self.grid_columns[c2]}{r2}")
                self.grid_neighbors[cell] = nbs

    # ------------------------------------------------------------ code
    def _code(self, bundle):
        ex = ExprBuilder(self)
        ob = OpBuilder(self, ex)
        code = bundle["code"]
        self.fn_params = {k[3:]: v["params"] for k, v in code.items() if k.startswith("fn:")}
        self.fn_deps, self.mod_deps = function_deps(code, self.cards, self.active_zone_ids)
        # every part of the state a function can depend on, at version 0
        self.parts = dict.fromkeys(
            {d for deps in list(self.fn_deps.values()) + list(self.mod_deps.values())
             for d in deps if d != "*"} | {"active", "flow", "events"}, 0)
        self.fn_simple = simple_functions(code)
        self.fn_bodies = {k[3:]: v["expr"] for k, v in code.items() if k.startswith("fn:")}
        self.cache_functions = True       # off only to test that caching changes nothing
        self._cached = {}
        self.py_bodies = {}
        self.pygen = ex.pygen
        if ex.pygen is not None:
            for name, body in self.fn_bodies.items():
                self.py_bodies[name] = ex.pygen.compile_body(body, self.fn_params[name])
        self.functions = {}
        for key, spec in code.items():
            if key.startswith("fn:"):
                name = key[3:]
                if ex.pygen is not None:
                    self.functions[name] = _env_call(self.py_bodies[name], self.fn_params[name])
                else:
                    self.functions[name] = ex.build(spec["expr"])
        self.codes = {}        # name -> Code
        for key, spec in code.items():
            if key.split(":")[0] in ("proc", "hook", "flow") and spec is not None:
                self.codes[key] = ob.build(key, spec)
        self.proc_params = {k[5:]: v["params"] for k, v in code.items()
                            if k.startswith("proc:") and v is not None}
        self.display_label = ex.build(code.get("display_label")) if code.get("display_label") else None
        self.score = ex.build(code.get("score")) if code.get("score") else None
        self.eval = ex.build(code.get("eval")) if code.get("eval") else self.score
        self.constraints = [(ex.build(c["expect"]), c["message"], c["loc"])
                            for c in code.get("constraints", [])]
        self.invariants = [(ex.build(c["expect"]), c["message"], c["loc"])
                           for c in code.get("invariants", [])]
        self.overflow_procs = {"proc:" + z["overflow"] for z in self.zone_decls if z["overflow"]}
        self.requires, self.reaction_if = [], []
        self.hooks_of, self.modifiers_of = [], []
        for c in self.cards:
            cid = c["id"]
            self.requires.append(ex.build(c.get("requires")))
            if c.get("effect"):
                self.codes[f"card:{cid}:effect"] = ob.build(f"card:{cid}:effect", c["effect"], card=c)
            reaction = c.get("reaction") or {}
            self.reaction_if.append(ex.build(reaction.get("if")))
            if reaction.get("effect"):
                self.codes[f"card:{cid}:reaction"] = ob.build(f"card:{cid}:reaction",
                                                              reaction["effect"], card=c)
            hooks = {}
            for event, spec in (c.get("hooks") or {}).items():
                key = f"card:{cid}:hook:{event}"
                self.codes[key] = ob.build(key, spec, card=c)
                hooks[event] = key
            self.hooks_of.append(hooks)
            self.modifiers_of.append({m: ex.build(ir) for m, ir in (c.get("modifiers") or {}).items()})
        self.game_hooks = {k[5:]: k for k in self.codes if k.startswith("hook:")}
        self.has_hooks = {e for e in self.events
                          if e in self.game_hooks or any(e in h for h in self.hooks_of)}
        self.has_modifiers = {m for mods in self.modifiers_of for m in mods}

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

    def cached_function(self, name):
        """The call of function `name` with positional arguments: cached by
        the versions of the state parts it reads, unless it is too cheap to cache."""
        if name in self._cached:
            return self._cached[name]
        bodies = self.py_bodies
        deps = tuple(sorted(self.fn_deps.get(name, ("*",))))
        everything = "*" in deps
        game = self

        if self.pygen is not None and not self.fn_simple.get(name):
            call = self.pygen.compile_cached(name, self.fn_bodies[name], self.fn_params[name],
                                             deps, self)
            self._cached[name] = call
            return call
        if self.fn_simple.get(name):
            def call(st, *values):
                return bodies[name](st, *values)
        else:
            def call(st, *values):
                # An entry is (state version, versions of the parts read, result):
                # valid as is while nothing changed, and still valid after a
                # change to parts the function does not read.
                key = (name, values)
                try:
                    hit = st.cache.get(key)
                except TypeError:           # a list argument: not cacheable
                    return bodies[name](st, *values)
                version = st.version
                stamp = None
                if hit is not None and game.cache_functions:
                    if hit[0] == version:
                        return hit[2]
                    if not everything:
                        # versions only grow, so their sum changes whenever one does
                        stamp = sum(map(st.pv.__getitem__, deps))
                        if hit[1] == stamp:
                            st.cache[key] = (version, stamp, hit[2])
                            return hit[2]
                result = bodies[name](st, *values)
                if stamp is None and not everything:
                    stamp = sum(map(st.pv.__getitem__, deps))
                st.cache[key] = (version, stamp, result)
                return result
        self._cached[name] = call
        return call

    def active_modifiers(self, st, name):
        """[(card, modifier closure, owner)] in force for `name`, in zone order.
        Which cards modify what changes only when an active zone changes, so
        one scan of the active zones serves every modifier until then."""
        if name not in self.has_modifiers:
            return ()
        stamp = st.pv.get("active", 0)
        hit = st.cache.get("modifiers")
        if hit is None or hit[0] != stamp:
            found = {}
            for c in self.active_cards(st):
                mods = self.modifiers_of[self.card_def[c]]
                if mods:
                    owner = self.slot_owner(st, st.zone_of(c))
                    for mname, f in mods.items():
                        found.setdefault(mname, []).append((c, f, owner))
            hit = st.cache["modifiers"] = (stamp, found)
        return hit[1].get(name, ())

    def modify(self, st, name, value, args_fn):
        """`value` adjusted by every modifier of `name` in force, in zone order.
        `args_fn()` makes the modifier's arguments (a fresh dict), only when
        some card in play modifies `name`."""
        mods = self.active_modifiers(st, name)
        if not mods:
            return value
        env = args_fn()
        for c, f, owner in mods:
            env["value"], env["this"] = value, c
            env["me"] = owner if owner is not None else st.turn_player
            value = f(st, env)
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

    def new_state(self, players: int, seed: int = 0, log: bool = False):
        from cardc.engine.state import State
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"{self.name} is for {self.min_players} to {self.max_players} players, "
                             f"not {players}")
        return State.initial(self, players, seed, log)

    def fault(self, message):
        raise EngineFault(message)
