"""Decisions: the questions the rules put to players (a choice from a list,
yes or no, a menu of options, an answer in a reaction window).

A mixin of `State`; `Decision` is the pending question itself.
"""
from __future__ import annotations

from weakref import ref as _ref

from cardc.engine.errors import EngineFault
from cardc.engine.fields import StateFields
from cardc.engine.pygen import fmt

_new = object.__new__


class Decision:
    """A question to one player: pick one of `labels` (values hold the answers).

    `unavailable` lists menu options not offered now, each with its reason,
    so a human can see why a card cannot be played.  Labels are text built
    from expressions; they are only computed when someone reads them (a random
    bot never does), by `make_labels(state)` on the state that owns the decision.
    So is the prompt, when it is text built from an expression that cannot
    fail: then it is a function f(state, locals), called when first read.
    Both are read while the decision is still pending (they describe the
    state as it is now)."""
    __slots__ = ("kind", "player", "_prompt", "_labels", "values", "var", "_unavailable",
                 "_make", "_owner", "_one", "menu", "keys", "index")

    def __init__(self, kind, player, prompt, labels, values, var, unavailable=(),
                 make_labels=None, owner=None, make_one=None, menu=None):
        self.kind, self.player, self._prompt = kind, player, prompt
        self._labels, self.values, self.var = labels, values, var
        self._unavailable = unavailable          # a list, or a function of the state
        # the state is held by a weak reference: a state holds its pending
        # decision, and a cycle between them would leave every discarded
        # look-ahead copy to the garbage collector instead of freeing it at once
        # (one reference a state, made with its first decision that needs it)
        self._owner = owner._owner_ref() if owner is not None else None
        self._make, self._one = make_labels, make_one
        self.menu = menu        # a menu's generated function and its options not open
        # its actions' stable keys and their positions, made when first asked
        # (State.legal_actions); a decision made in the hot path (ask_menu)
        # leaves both unset, so read them with getattr
        self.keys = self.index = None

    def _state(self):
        st = self._owner() if self._owner is not None else None
        if st is None:
            raise RuntimeError("a decision's text is read after its state is gone: keep the state")
        return st

    @property
    def prompt(self):
        p = self._prompt
        if callable(p):
            st = self._state()
            if st.pending is not self:
                raise RuntimeError("a decision's prompt is read while it is pending, not after")
            p = self._prompt = p(st, st.stack[-1].env)
        return p

    @property
    def labels(self):
        if self._labels is None:
            self._labels = self._make(self._state(), self)
            self._make = None
        return self._labels

    def label(self, i):
        """The label of option `i` alone (a log needs just the one taken)."""
        if self._labels is None and self._one is not None:
            return self._one(self._state(), self, i)
        return self.labels[i]

    @property
    def unavailable(self):
        if callable(self._unavailable):
            self._unavailable = self._unavailable(self._state(), self)
        return list(self._unavailable)

    def copy_for(self, st):
        """The same decision, owned by a clone of its state."""
        if self._labels is not None and not callable(self._unavailable) and \
                not callable(self._prompt):
            return self
        return Decision(self.kind, self.player, self._prompt, self._labels, self.values, self.var,
                        self._unavailable, self._make, st, self._one, self.menu)

    def to_json(self):
        return {"kind": self.kind, "player": self.player, "prompt": self.prompt,
                "labels": self.labels, "values": self.values, "var": self.var,
                "unavailable": self.unavailable}


# ------------------------------------------------------------ stable actions
# An action's position in a decision's list is not an identity: the same
# number can mean another card in another state, or in another world an agent
# imagines.  Its key is: where the rules ask (the code and its pc), which
# option (a menu's option by its body's pc), and what the choice names, a card
# by its id ("card", "<its id>"), a seat, a cell, a word or a number, and, for
# options that would otherwise read the same, which of them (0, 1, …).  A card
# the deciding player cannot see is ("hidden card",): a key tells no more
# than the label.  Keys are plain tuples: hashable, equal across states and
# processes, made only when someone asks (a random bot never does).

def action_keys(st, d) -> list:
    """The stable key of each action of decision `d`, pending on `st`."""
    fr = st.stack[-1] if st.stack else None
    site = (fr.code.name, fr.pc) if fr is not None else ("", -1)
    names = st.game.card_field["id"]
    who = d.player

    def meaning(value, card):
        if card and type(value) is int:
            return ("card", names[value]) if st.visible(value, who) else ("hidden card",)
        if type(value) is list:
            return tuple(meaning(v, card) for v in value)
        return value

    if d.kind == "menu":
        cards = fr.code.cards if fr is not None else {}
        raw = [(o[0],) + tuple(meaning(o[i + 1], cards.get(o[i]) == "card") for i in range(1, len(o), 2))
               for o in d.values]
    elif d.kind == "choose":
        typ = d.menu[0] if d.menu else None
        card = typ in ("card", "list:card")
        raw = [(meaning(v, card),) for v in d.values]           # None: pass
    elif d.kind == "window":
        raw = [(meaning(v, True),) for v in d.values]           # None: pass
    else:                               # yes or no
        raw = [(v,) for v in d.values]
    seen: dict = {}
    keys = []
    for r in raw:
        k = seen[r] = seen.get(r, -1) + 1
        keys.append(site + r + (k,))
    return keys


def bind_option(env, option):
    """Write the loop variables an open menu option was found with into
    `env`; returns the option's pc.  An option is (pc, name, value, …), a
    list in a loaded state; a state saved before options were flat holds
    [pc, {name: value}], and resumes as it was."""
    n = len(option)
    if n == 3:
        env[option[1]] = option[2]
    elif n == 2 and type(option[1]) is dict:
        env.update(option[1])
    else:
        for i in range(1, n, 2):
            env[option[i]] = option[i + 1]
    return option[0]


def option_env(env, option):
    """A copy of the frame's locals with an option's loop variables in."""
    env = dict(env)
    bind_option(env, option)
    return env


# A menu's labels and reasons, made when someone reads them, on the state
# whose pending decision it is (an option's label is found by its body's pc).
def _menu_labels(st, d):
    env = st.stack[-1].env
    label_of = d.menu[0].labels
    return [label_of[o[0]](st, option_env(env, o)) for o in d.values]


def _menu_label(st, d, i):
    o = d.values[i]
    return d.menu[0].labels[o[0]](st, option_env(st.stack[-1].env, o))


def _menu_unavailable(st, d):
    env = st.stack[-1].env
    items, unavailable = d.menu
    if unavailable is None:
        # not listed when the menu was asked (a bot never reads them): the
        # menu runs again, on the same state, to list them now
        if st.pending is not d:
            raise RuntimeError("a menu's options not open are read while it is pending, not after")
        unavailable = []
        items(st, env, [], unavailable)
    return [[f(st, {**env, **b}), r(st, {**env, **b})] for f, r, b in unavailable]


# A choice's labels: `menu` holds (the values' type, whether it may be passed).
def _choice_labels(st, d):
    typ, optional = d.menu
    shown = d.values[:-1] if optional else d.values
    return [st._label(v, typ, d.player) for v in shown] + (["Pass"] if optional else [])


def _choice_label(st, d, i):
    typ, optional = d.menu
    if optional and i == len(d.values) - 1:
        return "Pass"
    return st._label(d.values[i], typ, d.player)


class Asking(StateFields):
    def _label(self, value, typ, who):
        if typ == "card" and value is not None and not self.visible(value, who):
            return "a hidden card"
        return fmt(value, typ, self)

    def _owner_ref(self):
        """The weak reference a decision holds its state by (Decision), made once a state."""
        r = self.me_ref
        if r is None:
            r = self.me_ref = _ref(self)
        return r

    def ask_choice(self, who, var, values, typ, optional, prompt):
        """`values` is the generated code's own new list: the decision keeps it.
        The decision is made as `Decision(...)` would make it, without the
        call: a class called with eleven arguments goes through
        `type.__call__` and `__init__`, more than the stores themselves, on
        every decision (so in ask_menu; measured: docs/history/speed-waves.md)."""
        if optional:
            values = values + [None]
        # one store a line: six stores on one line build a tuple and unpack it
        d = _new(Decision)
        d.kind = "choose"
        d.player = who
        d._prompt = prompt
        d._labels = None
        d.values = values
        d.var = var
        d._unavailable = ()
        d._make = _choice_labels
        d._one = _choice_label
        d.menu = (typ, optional)
        d._owner = self.me_ref or self._owner_ref()     # a live state's weak reference is true
        self.pending = d

    def ask_yes_no(self, who, var, prompt):
        self.pending = Decision("ask", who, prompt, ["Yes", "No"], [True, False], var,
                                owner=self if callable(prompt) else None)

    def stop_here(self, who, kind, prompt=None):
        """A throwaway clone that a bot only wants to score (`lookahead`)
        stops at its next question without working out the options (or its
        prompt, until someone reads it)."""
        self.pending = Decision(kind, who, prompt, [], [], None,
                                owner=self if callable(prompt) else None)

    def ask_menu(self, who, prompt, items):
        if self.lookahead:
            self.stop_here(who, "menu", prompt)
            return
        values: list = []
        unavailable: list | None = None if items.unavailable_later else []
        env = self.stack[-1].env
        items(self, env, values, unavailable)      # see PyGen.compile_menu
        if not values:
            if callable(prompt):
                prompt = prompt(self, env)
            raise EngineFault("a menu has no option open" + (f" (“{prompt}”)" if prompt else ""))
        d = _new(Decision)          # as in ask_choice
        d.kind = "menu"
        d.player = who
        d._prompt = prompt
        d._labels = None
        d.values = values
        d.var = None
        d._unavailable = _menu_unavailable if unavailable is None or unavailable else []
        d._make = _menu_labels
        d._one = _menu_label
        d.menu = (items, unavailable)
        d._owner = self.me_ref or self._owner_ref()
        self.pending = d
        if items.eager_text:
            # the parts of labels and reasons that could fail are evaluated
            # now, read or not, so a bot fails where a person would (total.py);
            # an open option's label was, where the menu found the option
            if items.risky_reasons:
                for f, r, b in unavailable or ():
                    for g in (f, r):
                        if g.risk is not None:
                            g.risk(self, {**env, **b})

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
            self.touch("events")
            self.version += 1           # before anything reads the new event (see blocks.MUTATING)
            seen, order = set(), []
            for p in players_fn(self, fr.env):
                if p is not None and p not in seen:
                    seen.add(p)
                    order.append(p)
            state = fr.env[key] = [len(self.events) - 1, order, 0]
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

