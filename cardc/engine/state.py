"""The state of one game: its data, the step API, cloning and saving.

The interpreter that advances it (`interp.py`), the questions it asks
players (`asking.py`) and the moves of cards (`table.py`) are mixins of
`State`, each in its own module.

State is plain data: zones are lists of card ids, counters are dicts of
lists, the random generator is one int, and the continuation (which effect
is being resolved, where, with which locals; the open reaction window) is a
stack of frames (code name, pc, env).  So `clone()` is a handful of list
copies and `to_json()` can save a game at any decision.

The step API follows OpenSpiel: `current_player()`, `legal_actions()`,
`apply(i)`, `is_terminal()`, `returns()`, `observation(p)`.
"""
from __future__ import annotations

import cardc.engine.rng as rng
from cardc.engine.asking import Asking, Decision, action_keys, bind_option
from cardc.engine.errors import CorruptState, IllegalAction
from cardc.engine.interp import STAGES, Frame, Interpreter
from cardc.engine.table import ATTACHED, Table
from cardc.engine.writes import Writes

_new = object.__new__

STATE_FORMAT = 1

#: an action as `apply` takes it: its position among the open actions, or its
#: stable key (a tuple, `legal_actions`)
Action = int | tuple


class State(Interpreter, Asking, Table, Writes):
    """One game in progress (see the module docstring)."""

    # every attribute of a state, as slots: generated code reads them on
    # every line, and a slot is read faster than an entry of an instance
    # dict this large (extras, such as a scenario's hook, still go in one)
    __slots__ = ("game", "n", "budget", "slot_active", "slot_limit", "slot_keyed",
                 "zones", "owned_zones", "loc", "host", "under", "revealed", "game_counters", "player_counters",
                 "card_counters", "owned_cc",
                 "rng", "seed", "stack", "pending", "events", "turn", "round", "turn_player",
                 "first_player", "stage", "phase", "ending", "terminal", "winners", "capped",
                 "decisions", "log", "history", "track", "lookahead", "version", "part_versions", "cache",
                 "owned_caches", "filled", "slot_stale", "slot_empty", "slot_plan", "cellw", "zindex",
                 "owned_indexes", "mods", "hold_at", "me_ref", "memory")

    # ------------------------------------------------------------ creation
    def __init__(self, game, n):
        self.game = game
        self.n = n
        self.budget = game.limits.steps       # steps left before the next decision (see run)
        self.hold_at = None                   # a stage to stop at (scenarios: Interpreter.hold_at)
        self.me_ref = None                    # a weak reference to this state (asking.Decision)
        # per zone slot: whether its cards are in force, its limit, the counters
        # it is read by, what a change to it makes stale, and what its becoming
        # empty or not does (Game.slot_tables)
        self.slot_active, self.slot_limit, self.slot_keyed, self.slot_stale, self.slot_empty, \
            self.slot_plan = game.slot_tables(n)
        self.cellw = game.stale.cells        # the shared zones some function reads by cell

    @classmethod
    def initial(cls, game, n: int, seed: int = 0, log: bool = False, run: bool = True,
                memory: bool = True) -> State:
        st = cls(game, n)
        zones, loc = game.start_layout(n)
        st.zones = [z[:] for z in zones]
        st.owned_zones = None                 # never cloned: all its own (see `clone`)
        st.loc = loc[:]
        st.host, st.under, st.revealed = {}, {}, {}
        st.game_counters = {k: v["start"] for k, v in game.counters["game"].items()}
        st.player_counters = {k: [v["start"]] * n for k, v in game.counters["player"].items()}
        ncards = len(game.instances)
        st.card_counters = {k: [v["start"]] * (ncards * n if v["per_player"] else ncards)
                 for k, v in game.counters["card"].items()}
        st.owned_cc = None
        st.rng = rng.seed_state(seed)
        st.seed = seed
        st.stack, st.pending, st.events = [], None, []
        st.turn, st.round, st.turn_player, st.first_player = 0, 0, 0, 0
        st.stage, st.phase, st.ending = "init", None, None
        st.terminal, st.winners, st.capped = False, [], False
        st.decisions = 0
        st.log = [] if log else None
        st.history = []
        st.track = None
        st.lookahead = False
        st.version, st.part_versions, st.cache = 0, {"active": 0}, new_cache(game)
        st.owned_caches = None
        st.filled = 0                         # the caches that may hold entries, a mask (Table.forget)
        st.zindex = {}                        # {slot: a zone's cell index}: builtins.zone_index
        st.owned_indexes = None
        st.mods = None
        st.memory = _fresh_memory(game, n) if memory else None
        if run:
            st.run()
        return st

    def clone(self) -> State:
        """A copy to play on.  Copy on write: four parts are shared by the
        copy and this state until one of the two writes them (a look-ahead
        changes few of them, and they are the biggest part of a state): the
        zone lists, the card counters' lists, the function caches and the
        zones' cell indexes.  Each has one `owned_*` attribute: None when
        every entry is the state's own (a state never cloned, or not since it
        was made), else the set of entries it has copied since the clone;
        both the copy and this state start with an empty set.  A write
        asks `own_zone`, `own_cc`, `own_cache` or (indexes) `index_moved`
        first, which copy an entry not owned yet; nothing else writes them."""
        st = State(self.game, self.n)
        st.zones = self.zones[:]
        st.owned_zones, self.owned_zones = set(), set()
        st.loc = self.loc[:]
        st.host = dict(self.host)
        # the lists of attached cards are shared: they are replaced, never changed in place
        st.under = dict(self.under)
        st.revealed = {k: v[:] for k, v in self.revealed.items()}
        st.game_counters = dict(self.game_counters)
        st.player_counters = {k: v[:] for k, v in self.player_counters.items()}
        st.card_counters, st.owned_cc = dict(self.card_counters), set()
        self.owned_cc = set()
        st.rng, st.seed = self.rng, self.seed
        st.stack = _copy_frames(self.stack)
        st.pending = self.pending.copy_for(st) if self.pending is not None else None
        st.events = [dict(e) for e in self.events]
        st.turn, st.round, st.turn_player, st.first_player = \
            self.turn, self.round, self.turn_player, self.first_player
        st.stage, st.phase, st.ending = self.stage, self.phase, self.ending
        st.terminal, st.winners, st.capped = self.terminal, self.winners[:], self.capped
        st.decisions = self.decisions
        st.log = self.log[:] if self.log is not None else None
        st.history = self.history[:]
        st.track = None
        st.lookahead = False
        # the clone starts with the same versions (and cached values: below)
        st.version, st.part_versions = self.version, dict(self.part_versions)
        st.zindex = dict(self.zindex) if self.zindex else {}
        st.owned_indexes, self.owned_indexes = set(), set()
        st.cache = self.cache[:]
        st.owned_caches, self.owned_caches = set(), set()
        st.filled = self.filled
        st.mods = self.mods             # never changed in place: a new scan replaces it
        st.memory = None if self.memory is None else [{k: set(v) for k, v in m.items()} for m in self.memory]
        return st

    def own_cache(self, slot: int) -> dict:
        """Function cache `slot`, this state's own to write (see `clone`)."""
        owned = self.owned_caches
        if owned is None or slot in owned:
            return self.cache[slot]
        cache = self.cache[slot] = self.cache[slot].copy()
        owned.add(slot)
        return cache

    def own_cc(self, name: str) -> list:
        """The list of card counter `name`, this state's own to change in place
        (see `clone`)."""
        owned = self.owned_cc
        if owned is None or name in owned:
            return self.card_counters[name]
        values = self.card_counters[name] = self.card_counters[name][:]
        owned.add(name)
        return values

    def player_name(self, p: int | None) -> str:
        return "nobody" if p is None else f"P{p + 1}"

    # ------------------------------------------------------------ step API
    def current_player(self) -> int:
        """Who decides now, or -1 when the game is over."""
        return -1 if self.terminal or self.pending is None else self.pending.player

    def is_terminal(self) -> bool:
        return self.terminal

    def legal_actions(self) -> list[tuple]:
        """The actions open now, in the order the rules list them, each as
        its stable key (asking.action_keys): the same action has the same key
        in every state and every world an agent imagines, and `apply` takes
        it.  `apply` also takes an action's position in this list (what a
        replay records, and what a bot that picks at random draws, without
        the keys being made: `num_actions`)."""
        d = self.pending
        if d is None or self.terminal:
            return []
        return list(self._keys(d))

    def _keys(self, d):
        keys = getattr(d, "keys", None)
        if keys is None:
            keys = d.keys = action_keys(self, d)
        return keys

    def num_actions(self) -> int:
        """How many actions are open now (their positions are 0 … n-1)."""
        return 0 if self.pending is None or self.terminal else len(self.pending.values)

    def action_index(self, action: Action) -> int:
        """The position of `action` (a key of `legal_actions`, or a position)
        among the actions open now; IllegalAction if it is not open."""
        d = self.pending
        if d is None or self.terminal:
            d = self._decision()
        if isinstance(action, int) and not isinstance(action, bool):
            if 0 <= action < len(d.values):
                return int(action)
            self._check_action(action)
        if type(action) is tuple:
            index = getattr(d, "index", None)
            if index is None:
                index = d.index = {k: i for i, k in enumerate(self._keys(d))}
            i = index.get(action)
            if i is not None:
                return i
            raise IllegalAction(f"action {action!r} is not open now for {self.player_name(d.player)} "
                                f"({d.prompt or d.kind})")
        self._check_action(action)
        raise IllegalAction(f"action {action!r} is neither an action's key nor its position")

    def action_to_string(self, action: Action) -> str:
        """The label of `action` (its key or its position; built only now:
        labels are text a person or a log reads, never needed by a bot)."""
        d = self.pending
        if d is None or self.terminal:
            raise IllegalAction("no decision is pending")
        if type(action) is not int or not 0 <= action < len(d.values):
            if type(action) is not tuple:
                raise IllegalAction(f"action {action!r} is not one of the {len(d.values)} legal actions")
            action = self.action_index(action)
        return d.label(action)

    def action_labels(self) -> list[str]:
        """The labels of every open action, in action order."""
        return [] if self.pending is None or self.terminal else list(self.pending.labels)

    def why_not(self) -> list:
        """Options that exist but are not open now, each with the reason."""
        return [] if self.pending is None else list(self.pending.unavailable)

    def explain(self, player: int, label: str) -> str:
        """In words, why `player` cannot take the action `label` now ("" if they can)."""
        d = self.pending
        if self.terminal or d is None:
            return "the game is over" if self.terminal else "no decision is pending"
        if d.player != player:
            return f"it is {self.player_name(d.player)}'s decision, not {self.player_name(player)}'s"
        if label in d.labels:
            return ""
        for name, reason in d.unavailable:
            if name == label:
                return reason
        return f"“{label}” is not an action now ({d.prompt or d.kind}: {', '.join(d.labels)})"

    def apply(self, action: Action) -> None:
        """Take `action`: a key of `legal_actions()`, or its position there.
        An illegal action raises IllegalAction and leaves the state unchanged.
        The history (a replay) records the position."""
        d = self.pending
        if d is None or self.terminal:
            d = self._decision()
        if type(action) is not int or action < 0:
            action = self.action_index(action)     # a key: its position (else IllegalAction)
        try:
            value = d.values[action]
        except IndexError:      # past the last action (before anything changed)
            self._check_action(action)
            raise
        self.pending = None
        self.version += 1
        self.decisions += 1
        self.history.append(action)
        fr = self.stack[-1]
        kind = d.kind
        if kind == "menu":
            n = len(value)
            if n == 3:                  # one loop variable, the common case (bind_option)
                fr.env[value[1]] = value[2]
                fr.pc = value[0]
            elif n == 1:                # none ("Carry on")
                fr.pc = value[0]
            else:
                fr.pc = bind_option(fr.env, value)
        elif kind == "window":
            self.touch("events")
            self._answer_window(fr, d, value)
        else:
            fr.env[d.var] = value
            fr.pc += 1
        self.run()

    def _decision(self) -> Decision:
        """The decision open now; IllegalAction if the game is over or none is."""
        d = self.pending
        if self.terminal:
            raise IllegalAction("the game is over")
        if d is None:
            raise IllegalAction("no decision is pending")
        return d

    def _check_action(self, action):
        """Why `apply` cannot take `action` (IllegalAction), or nothing for an
        action that is an int of another type (not a bool) in range."""
        d = self._decision()
        if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action < len(d.values):
            raise IllegalAction(f"action {action!r} is not one of the {len(d.values)} legal actions "
                                f"for {self.player_name(d.player)} ({d.prompt or d.kind})")

    def returns(self) -> list[float]:
        """1 for each winner (shared wins count for each), 0 otherwise."""
        return [1.0 if p in self.winners else 0.0 for p in range(self.n)]

    def scores(self) -> list[int]:
        f = self.game.score
        return [f(self, {"p": p}) if f else 0 for p in range(self.n)]

    def evaluate(self, p: int) -> int:
        f = self.game.eval
        return f(self, {"p": p}) if f else 0

    # ------------------------------------------------------------ saving
    def to_json(self) -> dict:
        return {
            "format": STATE_FORMAT, "game": self.game.id, "bundle": self.game.hash,
            "players": self.n, "seed": self.seed, "zones": self.zones, "loc": self.loc,
            "host": {str(k): v for k, v in self.host.items()},
            "under": {str(k): v for k, v in self.under.items()},
            "revealed": {str(k): v for k, v in self.revealed.items()},
            "memory": None if self.memory is None else
            [{str(k): sorted(v) for k, v in sorted(m.items())} for m in self.memory],
            "g": self.game_counters, "pc": self.player_counters, "cc": self.card_counters, "rng": self.rng,
            "stack": [[f.code.name, f.pc, f.env] for f in self.stack],
            "pending": self.pending.to_json() if self.pending else None,
            "events": self.events, "turn": self.turn, "round": self.round,
            "turn_player": self.turn_player, "first_player": self.first_player,
            "stage": self.stage, "phase": self.phase, "ending": self.ending,
            "terminal": self.terminal,
            "winners": self.winners, "capped": self.capped, "decisions": self.decisions,
            "history": self.history, "log": self.log,
        }

    @classmethod
    def from_json(cls, game, data: dict) -> State:
        """Resume a saved state.  A save of another bundle, or one whose shape
        does not fit this game, is refused with a clear error."""
        try:
            if data.get("format") != STATE_FORMAT:
                raise CorruptState(f"state format {data.get('format')!r} is not {STATE_FORMAT}")
            if data["game"] != game.id:
                raise CorruptState(f"this save is of `{data['game']}`, not `{game.id}`")
            if data["bundle"] != game.hash:
                from cardc.engine.errors import BundleMismatch
                raise BundleMismatch(f"this save was made with another version of `{game.id}` "
                                     "(its bundle hash differs): the rules may have changed")
            st = cls(game, int(data["players"]))
            st.zones = [list(map(int, z)) for z in data["zones"]]
            st.owned_zones = None
            if len(st.zones) != game.slot_count(st.n):
                raise CorruptState("the saved zones do not match the game's zones")
            st.loc = list(data["loc"])
            if len(st.loc) != len(game.instances):
                raise CorruptState("the saved cards do not match the game's cards")
            st.host = {int(k): v for k, v in data["host"].items()}
            st.under = {int(k): v for k, v in data["under"].items()}
            st.revealed = {int(k): v for k, v in data["revealed"].items()}
            st.game_counters, st.player_counters, st.card_counters = data["g"], data["pc"], data["cc"]
            for kind, saved in (("game", st.game_counters), ("player", st.player_counters), ("card", st.card_counters)):
                if set(saved) != set(game.counters[kind]):
                    raise CorruptState(f"the saved {kind} counters do not match the game's")
            st.owned_cc = None
            st.rng, st.seed = int(data["rng"]), data["seed"]
            st.stack = []
            for name, pc, env in data["stack"]:
                if name not in game.codes:
                    raise CorruptState(f"the saved state runs unknown code `{name}`")
                st.stack.append(Frame(game.codes[name], int(pc), env))
            p = data["pending"]
            st.pending = Decision(p["kind"], p["player"], p["prompt"], p["labels"], p["values"],
                                  p["var"], p.get("unavailable", ())) if p else None
            st.events = data["events"]
            st.turn, st.round = data["turn"], data["round"]
            st.turn_player, st.first_player = data["turn_player"], data["first_player"]
            st.stage, st.phase, st.ending = data["stage"], data["phase"], data.get("ending")
            if st.stage not in STAGES:
                raise CorruptState(f"the saved state is at an unknown stage {str(st.stage)[:40]!r}")
            st.terminal, st.winners, st.capped = data["terminal"], data["winners"], data["capped"]
            st.decisions, st.history, st.log = data["decisions"], data["history"], data["log"]
            st.track = None
            st.lookahead = False
            st.version, st.part_versions, st.cache = 0, {"active": 0}, new_cache(game)
            st.owned_caches = None
            st.filled = 0
            st.zindex, st.owned_indexes = {}, None
            st.mods = None
            memory = data.get("memory")         # saves before memory was kept: nobody remembers
            st.memory = _fresh_memory(game, st.n)
            if memory is not None and st.memory is not None:
                if len(memory) != st.n:
                    raise CorruptState("the saved memory does not match the players")
                st.memory = [{int(k): set(map(int, v)) for k, v in m.items()} for m in memory]
            _check_cards(st)
            return st
        except (KeyError, TypeError, ValueError) as exc:
            raise CorruptState(f"the saved state is damaged ({type(exc).__name__}: {exc})") from None

    # ------------------------------------------------------------ observation
    def observation(self, p: int) -> dict:
        from cardc.engine.observe import observe
        return observe(self, p)


def _copy_env(env):
    out = env.copy()
    for k, v in env.items():
        if type(v) is list:
            out[k] = [x[:] if type(x) is list else x for x in v]
    return out


def _copy_frames(stack):
    """A copy of a stack of frames, each with its own locals (a copy of a
    state is made 8-10 times a greedy decision: each frame is made without
    its `__init__` call, see BlockGen._push)."""
    out = []
    for f in stack:
        g = _new(Frame)
        g.code, g.pc, g.env = f.code, f.pc, _copy_env(f.env)
        out.append(g)
    return out


def _fresh_memory(game, n):
    """Nobody remembers anything yet (Table.remember); None when every seat
    sees every zone, so there is nothing to remember."""
    return [{} for _ in range(n)] if any(game.hidden_slots(n, p) for p in range(n)) else None


def _check_cards(st):
    """Every card in exactly one place, as the saved `loc` says."""
    seen = {}
    for slot, cards in enumerate(st.zones):
        for c in cards:
            if c in seen or st.loc[c] != slot:
                raise CorruptState(f"card {c} is in two places or misfiled in the save")
            seen[c] = slot
    for h, cards in st.under.items():
        for c in cards:
            if c in seen or st.loc[c] != ATTACHED or st.host.get(c) != h:
                raise CorruptState(f"attached card {c} is misfiled in the save")
            seen[c] = ATTACHED
    for memory in st.memory or ():          # a seat remembers only cards that are there
        for slot, cards in memory.items():
            if any(seen.get(c) != slot for c in cards):
                raise CorruptState("a seat's memory names a card that is not where it says")


class NoCache(dict):
    """The cache of a state whose game has `cache_functions` off (only to test
    that caching changes nothing): it never holds anything."""

    def get(self, key, default=None):
        return default

    def __setitem__(self, key, value):
        pass

    def copy(self):
        return NoCache()


def new_cache(game):
    """The caches of a new state: one per cached content function
    (`Game.cache_slot`)."""
    kind = dict if game.cache_functions else NoCache
    return [kind() for _ in range(len(game.cache_slots))]
