"""The state of one game, and the interpreter that advances it.

State is plain data: zones are lists of card ids, counters are dicts of
lists, the random generator is one int, and the continuation (which effect
is being resolved, where, with which locals; the open reaction window) is a
stack of frames (code name, pc, env).  So `clone()` is a handful of list
copies and `to_json()` can save a game at any decision.

The step API follows OpenSpiel: `current_player()`, `legal_actions()`,
`apply(i)`, `is_terminal()`, `returns()`, `observation(p)`.
"""
from __future__ import annotations

from cardc.engine import rng
from cardc.engine.errors import CorruptState, EngineFault, IllegalAction
from cardc.engine.exprs import fmt

ATTACHED = -1
OUT = -2            # per-player cards of seats not in this game
STATE_FORMAT = 1


class Frame:
    """One running block: its code, the next op, and its locals."""
    __slots__ = ("code", "pc", "env")

    def __init__(self, code, pc, env):
        self.code, self.pc, self.env = code, pc, env


class Decision:
    """A question to one player: pick one of `labels` (values hold the answers).

    `unavailable` lists menu options not offered now, each with its reason,
    so a human can see why a card cannot be played.  Labels are text built
    from expressions; they are only computed when someone reads them (a random
    bot never does), by `make_labels(state)` on the state that owns the decision."""
    __slots__ = ("kind", "player", "prompt", "_labels", "values", "var", "_unavailable",
                 "_make", "_owner")

    def __init__(self, kind, player, prompt, labels, values, var, unavailable=(),
                 make_labels=None, owner=None):
        self.kind, self.player, self.prompt = kind, player, prompt
        self._labels, self.values, self.var = labels, values, var
        self._unavailable = unavailable          # a list, or a function of the state
        self._make, self._owner = make_labels, owner

    @property
    def labels(self):
        if self._labels is None:
            self._labels = self._make(self._owner)
            self._make = None
        return self._labels

    @property
    def unavailable(self):
        if callable(self._unavailable):
            self._unavailable = self._unavailable(self._owner)
        return list(self._unavailable)

    def copy_for(self, st):
        """The same decision, owned by a clone of its state."""
        if self._labels is not None and not callable(self._unavailable):
            return self
        return Decision(self.kind, self.player, self.prompt, self._labels, self.values, self.var,
                        self._unavailable, self._make, st)

    def to_json(self):
        return {"kind": self.kind, "player": self.player, "prompt": self.prompt,
                "labels": self.labels, "values": self.values, "var": self.var,
                "unavailable": self.unavailable}


class State:
    # ------------------------------------------------------------ creation
    def __init__(self, game, n):
        self.game = game
        self.n = n

    @classmethod
    def initial(cls, game, n, seed=0, log=False, run=True):
        st = cls(game, n)
        st.zones = [[] for _ in range(game.slot_count(n))]
        st.loc = [OUT] * len(game.instances)
        for iid, inst in enumerate(game.instances):
            card = game.cards[game.card_def[iid]]
            seat = inst["seat"]
            if seat is not None and seat >= n:
                continue
            slot = game.slot(st, card["starts_in"], seat)
            st.zones[slot].append(iid)
            st.loc[iid] = slot
        st.host, st.under, st.revealed = {}, {}, {}
        st.g = {k: v["start"] for k, v in game.counters["game"].items()}
        st.pc = {k: [v["start"]] * n for k, v in game.counters["player"].items()}
        ncards = len(game.instances)
        st.cc = {k: [v["start"]] * (ncards * n if v["per_player"] else ncards)
                 for k, v in game.counters["card"].items()}
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
        st.version, st.pv, st.cache = 0, {}, {}
        if run:
            st.run()
        return st

    def clone(self):
        st = State(self.game, self.n)
        st.zones = [z[:] for z in self.zones]
        st.loc = self.loc[:]
        st.host = dict(self.host)
        st.under = {k: v[:] for k, v in self.under.items()}
        st.revealed = {k: v[:] for k, v in self.revealed.items()}
        st.g = dict(self.g)
        st.pc = {k: v[:] for k, v in self.pc.items()}
        st.cc = {k: v[:] for k, v in self.cc.items()}
        st.rng, st.seed = self.rng, self.seed
        st.stack = [Frame(f.code, f.pc, _copy_env(f.env)) for f in self.stack]
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
        # the clone starts with the same versions, so the cached function
        # values stay valid for it (a copy: the two states diverge from here)
        st.version, st.pv, st.cache = self.version, dict(self.pv), dict(self.cache)
        return st

    def player_name(self, p):
        return "nobody" if p is None else f"P{p + 1}"

    # ------------------------------------------------------------ step API
    def current_player(self) -> int:
        """Who decides now, or -1 when the game is over."""
        return -1 if self.terminal or self.pending is None else self.pending.player

    def is_terminal(self) -> bool:
        return self.terminal

    def legal_actions(self) -> list[str]:
        """Labels of the actions open now; `apply` takes an index into this list."""
        return [] if self.pending is None or self.terminal else list(self.pending.labels)

    def why_not(self) -> list:
        """Options that exist but are not open now, each with the reason."""
        return [] if self.pending is None else list(self.pending.unavailable)

    def explain(self, player: int, label: str) -> str:
        """In words, why `player` cannot take the action `label` now ("" if they can)."""
        if self.terminal:
            return "the game is over"
        d = self.pending
        if d.player != player:
            return f"it is {self.player_name(d.player)}'s decision, not {self.player_name(player)}'s"
        if label in d.labels:
            return ""
        for name, reason in d.unavailable:
            if name == label:
                return reason
        return f"“{label}” is not an action now ({d.prompt or d.kind}: {', '.join(d.labels)})"

    def apply(self, action: int):
        """Take action number `action` of `legal_actions()`.  An illegal action
        raises IllegalAction and leaves the state unchanged."""
        d = self.pending
        if self.terminal:
            raise IllegalAction("the game is over")
        if d is None:
            raise IllegalAction("no decision is pending")
        if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action < len(d.values):
            raise IllegalAction(f"action {action!r} is not one of the {len(d.values)} legal actions "
                                f"for {self.player_name(d.player)} ({d.prompt or d.kind})")
        self.pending = None
        self.version += 1
        if d.kind == "window":
            self.touch("events")
        self.decisions += 1
        self.history.append(action)
        fr = self.stack[-1]
        value = d.values[action]
        if d.kind == "menu":
            pc, bindings = value
            fr.env.update(bindings)
            fr.pc = pc
        elif d.kind == "window":
            self._answer_window(fr, d, value)
        else:
            fr.env[d.var] = value
            fr.pc += 1
        self.run()

    def returns(self) -> list[float]:
        """1 for each winner (shared wins count for each), 0 otherwise."""
        return [1.0 if p in self.winners else 0.0 for p in range(self.n)]

    def scores(self) -> list[int]:
        f = self.game.score
        return [f(self, {"p": p}) if f else 0 for p in range(self.n)]

    def evaluate(self, p) -> int:
        f = self.game.eval
        return f(self, {"p": p}) if f else 0

    # ------------------------------------------------------------ interpreter
    def push(self, code, env):
        self.stack.append(Frame(code, 0, env))

    def run(self):
        """Run ops until a player must decide or the game ends."""
        stack = self.stack
        while self.pending is None and not self.terminal:
            if not stack:
                self._flow_next()
                continue
            fr = stack[-1]
            code = fr.code
            ops = code.ops
            if fr.pc >= len(ops):
                stack.pop()
                continue
            if code.mutates[fr.pc]:
                self.version += 1
            try:
                ops[fr.pc](self, fr)
            except EngineFault as exc:
                if not exc.where:
                    raise self._fault(exc.message, fr) from None
                raise
            except (TypeError, KeyError, IndexError, ValueError, AttributeError, ZeroDivisionError) as exc:
                raise self._fault(f"{type(exc).__name__}: {exc}", fr) from exc

    def _fault(self, message, fr):
        resolving = [f.code.label for f in self.stack if f.code.card]
        return EngineFault(message, f"{fr.code.where(fr.pc)} in {fr.code.label}", resolving)

    def touch(self, part):
        """Note that one part of the state changed (see cardc.engine.deps)."""
        self.pv[part] = self.pv.get(part, 0) + 1

    def touch_slot(self, slot):
        if slot >= 0:
            decl = self.game.slot_decl(self, slot)
            pv = self.pv
            part = "z:" + decl["id"]
            pv[part] = pv.get(part, 0) + 1
            if decl["active"]:             # one version for every zone whose cards are in force
                pv["active"] = pv.get("active", 0) + 1

    def _flow_next(self):
        """Advance the game's outer structure: setup, rounds, turns."""
        self.version += 1
        self.touch("flow")
        g = self.game
        stage = self.stage
        if stage == "init":
            self.stage = "setup"
            self._push_flow("flow:setup", 0)
        elif stage == "setup":
            self.first_player = self.turn_player
            self.round = 1
            self.stage = "round"
            self._auto_trigger("game_start")
        elif stage == "round":
            self.stage = "turn"
            self._push_flow("flow:round_start", self.first_player)
            self._auto_trigger("round_start")
        elif stage == "turn":
            if self.turn >= g.max_turns:
                self.capped = True
                self.terminal = True
                self.winners = []
                return
            self.turn += 1
            self.stage = "after_turn"
            self.phase = None
            if self.log is not None:
                self.log.append(f"== Turn {self.turn} (round {self.round}): "
                                f"{self.player_name(self.turn_player)} ==")
            self._push_flow("flow:turn", self.turn_player)
            self._auto_trigger("turn_start")
        elif stage == "after_turn":
            self.stage = "next_turn"
            self._auto_trigger("turn_end")
        elif stage == "next_turn":
            self.turn_player = (self.turn_player + 1) % self.n
            if self.turn_player == self.first_player:
                self.stage = "round_over"
                self._push_flow("flow:round_end", self.first_player)
                self._auto_trigger("round_end")
            else:
                self.stage = "turn"
        elif stage == "round_over":
            self.round += 1
            self.stage = "round"
        elif stage == "ending":             # the game_end hooks have run
            self.end_game(self.ending)

    def _push_flow(self, key, me):
        code = self.game.codes.get(key)
        if code is not None:
            self.push(code, {"me": me})

    def _auto_trigger(self, event):
        if event in self.game.has_hooks:
            args = {k: None for k in self.game.events[event]}
            if "player" in args:
                args["player"] = self.turn_player
            self.trigger(event, args, self.turn_player)

    def trigger(self, event, args, me):
        """Run every hook of `event`: the game's own, then each active card's."""
        g = self.game
        if event not in g.has_hooks:
            return
        frames = []
        key = g.game_hooks.get(event)
        if key:
            frames.append((g.codes[key], {**args, "me": me}))
        for c in g.active_cards(self):
            hook = g.hooks_of[g.card_def[c]].get(event)
            if hook:
                owner = g.slot_owner(self, self.zone_of(c))
                who = owner if owner is not None else args.get("player", me)
                frames.append((g.codes[hook], {**args, "me": who, "this": c}))
        for code, env in reversed(frames):
            self.push(code, env)

    def end_game(self, winners):
        """`end game`: stop everything now.  If the game declares a `game_end`
        event, its hooks run first (a last accounting), then the game ends."""
        self.stack.clear()
        if "game_end" in self.game.has_hooks and self.stage != "ending":
            self.stage = "ending"
            self.ending = winners
            self._auto_trigger("game_end")
            return
        self.terminal = True
        if winners is None:
            scores = self.scores()
            best = max(scores) if scores else 0
            winners = [p for p in range(self.n) if scores[p] == best]
        self.winners = sorted({w for w in winners if w is not None})

    # ------------------------------------------------------------ decisions
    def _label(self, value, typ, who):
        if typ == "card" and value is not None and not self.visible(value, who):
            return "a hidden card"
        return fmt(value, typ, self)

    def ask_choice(self, who, var, values, typ, optional, prompt):
        shown = list(values)
        if optional:
            values = values + [None]

        def make_labels(st):
            return [st._label(v, typ, who) for v in shown] + (["Pass"] if optional else [])
        self.pending = Decision("choose", who, prompt, None, values, var, (), make_labels, self)

    def ask_yes_no(self, who, var, prompt):
        self.pending = Decision("ask", who, prompt, ["Yes", "No"], [True, False], var)

    def ask_menu(self, who, prompt, items):
        if self.lookahead:
            # a throwaway clone that a bot only wants to score: stop here
            # without working out which options the menu would offer
            self.pending = Decision("menu", who, prompt, [], [], None)
            return
        label_fns, values, unavailable = [], [], []
        env = self.stack[-1].env
        self._menu_options(items, env, {}, label_fns, values, unavailable)
        if not values:
            raise EngineFault("a menu has no option open" + (f" (“{prompt}”)" if prompt else ""))
        def make_labels(st):
            env = st.stack[-1].env
            return [f(st, {**env, **b}) for f, b in label_fns]

        def make_unavailable(st):
            env = st.stack[-1].env
            return [[f(st, {**env, **b}), r(st, {**env, **b})] for f, r, b in unavailable]
        self.pending = Decision("menu", who, prompt, None, values, None,
                                make_unavailable if unavailable else [], make_labels, self)

    def _menu_options(self, items, env, bindings, labels, values, unavailable):
        for item in items:
            if item[0] == "opt":
                _, label, cond, reason, pc = item
                if cond is None or cond(self, env):
                    b = dict(bindings)
                    labels.append((label, b))
                    values.append([pc, b])
                elif reason is not None:
                    unavailable.append((label, reason, dict(bindings)))
            elif item[0] == "for":
                _, var, lst, sub = item
                for v in list(lst(self, env)):
                    env[var] = v
                    self._menu_options(sub, env, {**bindings, var: v}, labels, values, unavailable)
            else:
                _, cond, sub = item
                if cond(self, env):
                    self._menu_options(sub, env, bindings, labels, values, unavailable)

    def poll_window(self, fr, var, tag, players_fn, fields):
        """Ask each listed player in turn for one answer from their zone.

        The window's progress (event id, players, whose turn to answer) lives
        in the frame's locals under `$w<pc>`, so a save inside a window resumes."""
        g = self.game
        key = f"$w{fr.pc}"
        state = fr.env.get(key)
        if state is None:
            event = {"tag": tag, "cancelled": False, "responder": None, "response": None}
            for k, f in fields.items():
                event[k] = f(self, fr.env)
            self.events.append(event)
            seen, order = set(), []
            for p in players_fn(self, fr.env):
                if p is not None and p not in seen:
                    seen.add(p)
                    order.append(p)
            state = fr.env[key] = [len(self.events) - 1, order, 0]
            self.touch("events")
            if "window_open" in g.has_hooks:
                self._window_hook("window_open", tag, len(self.events) - 1)
                return      # the hooks run first; this op then polls
        ev, order, i = state
        from_zone = g.windows[tag]["from"]
        while i < len(order):
            p = order[i]
            eligible = []
            for c in self.zones[g.slot(self, from_zone, p)]:
                d = g.card_def[c]
                if g.reaction_tag[d] == tag:
                    cond = g.reaction_if[d]
                    if cond is None or cond(self, {"me": p, "this": c, "event": ev}):
                        eligible.append(c)
            if eligible:
                state[2] = i
                labels = [f"Respond with {g.card_name[c]}" for c in eligible] + ["Pass"]
                self.pending = Decision("window", p, f"Answer {tag}?", labels, eligible + [None], var)
                return
            i += 1
        del fr.env[key]
        fr.env[var] = ev
        fr.pc += 1
        if "window_close" in g.has_hooks:
            self._window_hook("window_close", tag, ev)

    def _window_hook(self, event, tag, ev):
        """Enter and exit hooks of a reaction window (events `window_open` /
        `window_close`, with whichever of `tag` and `event` they declare)."""
        declared = self.game.events[event]
        args = {k: v for k, v in (("tag", tag), ("event", ev)) if k in declared}
        self.trigger(event, args, self.turn_player)

    def _answer_window(self, fr, d, card):
        key = f"$w{fr.pc}"
        state = fr.env[key]
        if card is None:
            state[2] += 1
            return          # the window op runs again and polls the next player
        ev = state[0]
        self.events[ev]["responder"] = d.player
        self.events[ev]["response"] = card
        del fr.env[key]
        fr.env[d.var] = ev
        fr.pc += 1
        if "window_close" in self.game.has_hooks:
            self._window_hook("window_close", self.events[ev]["tag"], ev)
        if self.track is not None:
            cid = self.game.card_field["id"][card]
            react = self.track.setdefault("react", {})
            react[cid] = react.get(cid, 0) + 1
        code = self.game.codes.get(f"card:{self.game.card_field['id'][card]}:reaction")
        if code is not None:
            self.push(code, {"me": d.player, "this": card, "event": ev})

    # ------------------------------------------------------------ cards
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
            h = self.host.pop(c)
            self.under[h].remove(c)
            if not self.under[h]:
                del self.under[h]
        elif slot >= 0:
            self.zones[slot].remove(c)

    def start_tracking(self):
        """Count, per card definition, how often it is resolved and how often
        it enters each zone: the raw data of card-usage reports."""
        self.track = {"resolve": {}, "enter": {}, "react": {}}

    def move(self, c, slot, place="top"):
        if self.track is not None:
            key = self.game.card_field["id"][c] + ">" + self.game.slot_decl(self, slot)["id"]
            self.track["enter"][key] = self.track["enter"].get(key, 0) + 1
        self._take(c)
        dest = self.zones[slot]
        self.touch_slot(slot)
        if place == "top":
            dest.insert(0, c)
        else:
            dest.append(c)
        self.loc[c] = slot
        self.revealed.pop(c, None)
        if c in self.under and not self.game.slot_decl(self, slot).get("keeps_attachments"):
            # attachments follow their host into a zone that keeps them (a
            # tableau); anywhere else they come off and go in beside it
            at = dest.index(c) + 1
            for a in self.under.pop(c):
                del self.host[a]
                dest.insert(at, a)
                self.loc[a] = slot
                at += 1

    def check_limit(self, slot):
        decl = self.game.slot_decl(self, slot)
        limit = decl["limit"]
        if limit is None or len(self.zones[slot]) <= limit:
            return
        key = "proc:" + decl["overflow"]
        owner = self.game.slot_owner(self, slot)
        for f in self.stack:
            if f.code.name == key and f.env.get(f.code.params[0]) == owner:
                return          # already discarding down
        code = self.game.codes[key]
        self.push(code, {code.params[0]: owner, "me": owner})

    def shuffle_zone(self, slot):
        self.touch_slot(slot)
        cards = self.zones[slot]
        self.shuffled(cards)
        for c in cards:
            self.revealed.pop(c, None)

    def shuffled(self, xs):
        """Fisher-Yates in place with the state's generator; returns xs."""
        s = self.rng
        for i in range(len(xs) - 1, 0, -1):
            s, j = rng.below(s, i + 1)
            xs[i], xs[j] = xs[j], xs[i]
        self.rng = s
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
        self.zones[slot].insert(0, c)
        self.loc[c] = slot

    def reveal(self, c, p):
        seen = self.revealed.setdefault(c, [])
        if p not in seen:
            seen.append(p)

    # ------------------------------------------------------------ saving
    def to_json(self) -> dict:
        return {
            "format": STATE_FORMAT, "game": self.game.id, "bundle": self.game.hash,
            "players": self.n, "seed": self.seed, "zones": self.zones, "loc": self.loc,
            "host": {str(k): v for k, v in self.host.items()},
            "under": {str(k): v for k, v in self.under.items()},
            "revealed": {str(k): v for k, v in self.revealed.items()},
            "g": self.g, "pc": self.pc, "cc": self.cc, "rng": self.rng,
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
    def from_json(cls, game, data: dict) -> "State":
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
            if len(st.zones) != game.slot_count(st.n):
                raise CorruptState("the saved zones do not match the game's zones")
            st.loc = list(data["loc"])
            if len(st.loc) != len(game.instances):
                raise CorruptState("the saved cards do not match the game's cards")
            st.host = {int(k): v for k, v in data["host"].items()}
            st.under = {int(k): v for k, v in data["under"].items()}
            st.revealed = {int(k): v for k, v in data["revealed"].items()}
            st.g, st.pc, st.cc = data["g"], data["pc"], data["cc"]
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
            st.terminal, st.winners, st.capped = data["terminal"], data["winners"], data["capped"]
            st.decisions, st.history, st.log = data["decisions"], data["history"], data["log"]
            st.track = None
            st.lookahead = False
            st.version, st.pv, st.cache = 0, {}, {}
            _check_cards(st)
            return st
        except (KeyError, TypeError, ValueError) as exc:
            raise CorruptState(f"the saved state is damaged ({type(exc).__name__}: {exc})") from None

    # ------------------------------------------------------------ observation
    def observation(self, p) -> dict:
        from cardc.engine.observe import observe
        return observe(self, p)


def _copy_env(env):
    out = {}
    for k, v in env.items():
        if type(v) is list:
            out[k] = [x[:] if type(x) is list else x for x in v]
        else:
            out[k] = v
    return out


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
