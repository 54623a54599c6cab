"""Turn the bundle's op lists into lists of closures, one per statement.

An op has the signature `op(st, fr)`: it does its work on the state and
moves the frame's `pc` (the next op to run), or leaves `pc` where it is and
sets `st.pending` when a player must decide.  Because a frame is just
(code, pc, env), the whole continuation of a game is plain data.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from cardc.engine.errors import EngineFault

WHILE_LIMIT = 10_000

# Ops that change the state (not just a frame's locals).  The run loop bumps
# `st.version` before each of them; function results are cached per version.
MUTATING = {"set", "move", "shuffle", "attach", "detach", "reveal", "cancel", "window",
            "end", "random"}


@dataclass
class Code:
    name: str
    label: str
    file: str
    ops: list
    src: list
    params: list = field(default_factory=list)
    card: str | None = None          # the card's name, for fault messages
    mutates: list = field(default_factory=list)   # per op: does it change the state?

    def where(self, pc: int) -> str:
        if 0 <= pc < len(self.src):
            line, col = self.src[pc]
            return f"{self.file}:{line}:{col}"
        return self.file


class OpBuilder:
    def __init__(self, game, exprs):
        self.game = game
        self.x = exprs

    def build(self, name, spec, card=None) -> Code:
        ops = [self.op(o) for o in spec["ops"]]
        label = spec.get("label", name)
        if card is not None:
            label = f"{card['name']} ({card['id']}) {name.split(':', 2)[2]}"
        mutates = [o[0] in MUTATING for o in spec["ops"]]
        return Code(name, label, spec.get("file", "?"), ops, spec.get("src", []),
                    spec.get("params", []), card["name"] if card else None, mutates)

    def op(self, o):
        if self.x.pygen is not None:        # simple statements as generated Python
            generated = self.x.pygen.compile_op(o)
            if generated is not None:
                return generated
        return getattr(self, "_" + o[0])(o)

    # ----- locals and counters
    def _let(self, o):
        name, f = o[1], self.x.build(o[2])

        def let(st, fr):
            v = f(st, fr.env)
            fr.env[name] = v[:] if type(v) is list else v
            fr.pc += 1
        return let

    def _set(self, o):
        target, op, f = o[1], o[2], self.x.build(o[3])
        kind = target[0]
        part = {"gctr": "g:", "gattr": "flow", "pctr": "p:", "cctr": "c:", "cpp": "c:"}[kind]
        if part != "flow":
            part += target[1]
        if kind == "gctr":
            name = target[1]

            def write(st, env, v):
                st.g[name] = v

            def read(st, env):
                return st.g[name]
        elif kind == "gattr":
            name = target[1]

            def write(st, env, v):
                setattr(st, name, v)

            def read(st, env):
                return getattr(st, name)
        elif kind == "pctr":
            name, p = target[1], self.x.build(target[2])

            def write(st, env, v):
                who = p(st, env)
                if who is None:
                    raise EngineFault(f"cannot set `{name}` of none")
                st.pc[name][who] = v

            def read(st, env):
                return st.pc[name][p(st, env)]
        elif kind == "cctr":
            name, c = target[1], self.x.build(target[2])

            def write(st, env, v):
                card = c(st, env)
                if card is None:
                    raise EngineFault(f"cannot set `{name}` of none")
                st.cc[name][card] = v

            def read(st, env):
                return st.cc[name][c(st, env)]
        else:  # cpp: a per-player card counter
            name, c, p = target[1], self.x.build(target[2]), self.x.build(target[3])

            def write(st, env, v):
                card, who = c(st, env), p(st, env)
                if card is None or who is None:
                    raise EngineFault(f"cannot set `{name}` of none")
                st.cc[name][card * st.n + who] = v

            def read(st, env):
                return st.cc[name][c(st, env) * st.n + p(st, env)]
        if op == "=":
            def assign(st, fr):
                write(st, fr.env, f(st, fr.env))
                pv = st.pv
                pv[part] = pv.get(part, 0) + 1
                fr.pc += 1
        elif op == "+=":
            def assign(st, fr):
                write(st, fr.env, read(st, fr.env) + f(st, fr.env))
                pv = st.pv
                pv[part] = pv.get(part, 0) + 1
                fr.pc += 1
        else:
            def assign(st, fr):
                write(st, fr.env, read(st, fr.env) - f(st, fr.env))
                pv = st.pv
                pv[part] = pv.get(part, 0) + 1
                fr.pc += 1
        return assign

    # ----- control flow
    def _jump(self, o):
        target = o[1]

        def jump(st, fr):
            fr.pc = target
        return jump

    def _jf(self, o):
        cond, target = self.x.build(o[1]), o[2]

        def jf(st, fr):
            fr.pc = fr.pc + 1 if cond(st, fr.env) else target
        return jf

    def _iter(self, o):
        slot, items = o[1], self.x.build(o[2])

        def it(st, fr):
            fr.env[slot] = [list(items(st, fr.env)), 0]
            fr.pc += 1
        return it

    def _next(self, o):
        slot, var, end = o[1], o[2], o[3]

        def nxt(st, fr):
            state = fr.env[slot]
            if state[1] < len(state[0]):
                fr.env[var] = state[0][state[1]]
                state[1] += 1
                fr.pc += 1
            else:
                del fr.env[slot]
                fr.pc = end
        return nxt

    def _repeat(self, o):
        slot, count = o[1], self.x.build(o[2])

        def repeat(st, fr):
            fr.env[slot] = count(st, fr.env)
            fr.pc += 1
        return repeat

    def _countdown(self, o):
        slot, end = o[1], o[2]

        def countdown(st, fr):
            if fr.env[slot] > 0:
                fr.env[slot] -= 1
                fr.pc += 1
            else:
                del fr.env[slot]
                fr.pc = end
        return countdown

    def _guard(self, o):
        slot = o[1]

        def guard(st, fr):
            fr.env[slot] += 1
            if fr.env[slot] > WHILE_LIMIT:
                raise EngineFault(f"a `while` loop ran {WHILE_LIMIT:,} times: it does not end")
            fr.pc += 1
        return guard

    def _return(self, o):
        def ret(st, fr):
            st.stack.pop()
        return ret

    def _phase(self, o):
        name = o[1]

        def phase(st, fr):
            st.phase = name
            fr.pc += 1
        return phase

    # ----- calls
    def _call(self, o):
        key = "proc:" + o[1]
        args = [self.x.build(a) for a in o[2]]
        game = self.game

        def call(st, fr):
            code = game.codes[key]
            env = {p: a(st, fr.env) for p, a in zip(code.params, args)}
            env.setdefault("me", fr.env.get("me"))
            fr.pc += 1
            st.push(code, env)
        return call

    def _resolve(self, o):
        c = self.x.build(o[1])
        game = self.game

        def resolve(st, fr):
            card = c(st, fr.env)
            if card is None:
                raise EngineFault("`resolve` of none: no card")
            cid = game.card_field['id'][card]
            code = game.codes.get(f"card:{cid}:effect")
            if st.track is not None:
                st.track["resolve"][cid] = st.track["resolve"].get(cid, 0) + 1
            fr.pc += 1
            if code is None:
                raise EngineFault(f"{game.card_name[card]} has no effect to resolve")
            st.push(code, {"me": fr.env.get("me"), "this": card})
        return resolve

    def _trigger(self, o):
        name = o[1]
        args = {k: self.x.build(v) for k, v in o[2].items()}

        def trigger(st, fr):
            values = {k: a(st, fr.env) for k, a in args.items()}
            fr.pc += 1
            st.trigger(name, values, fr.env.get("me"))
        return trigger

    def _end(self, o):
        winners = self.x.build(o[1])

        def end(st, fr):
            st.end_game(winners(st, fr.env) if winners else None)
        return end

    def _assert(self, o):
        cond, msg = self.x.build(o[1]), self.x.build(o[2])

        def check(st, fr):
            if not cond(st, fr.env):
                raise EngineFault("assertion failed: " + msg(st, fr.env))
            fr.pc += 1
        return check

    def _log(self, o):
        msg = self.x.build(o[1])

        def log(st, fr):
            if st.log is not None:
                st.log.append(msg(st, fr.env))
            fr.pc += 1
        return log

    # ----- cards
    def _move(self, o):
        cards, zone, place, is_list = self.x.build(o[1]), self.x.build(o[2]), o[3], o[4]

        def move(st, fr):
            slot = zone(st, fr.env)
            fr.pc += 1
            if is_list:
                for c in list(cards(st, fr.env)):
                    st.move(c, slot, place)
            else:
                c = cards(st, fr.env)
                if c is None:
                    raise EngineFault("`move` of none: no card to move")
                st.move(c, slot, place)
            st.check_limit(slot)
        return move

    def _shuffle(self, o):
        zone = self.x.build(o[1])

        def shuffle(st, fr):
            st.shuffle_zone(zone(st, fr.env))
            fr.pc += 1
        return shuffle

    def _attach(self, o):
        c, h = self.x.build(o[1]), self.x.build(o[2])

        def attach(st, fr):
            st.attach(c(st, fr.env), h(st, fr.env))
            fr.pc += 1
        return attach

    def _detach(self, o):
        c = self.x.build(o[1])

        def detach(st, fr):
            st.detach(c(st, fr.env))
            fr.pc += 1
        return detach

    def _reveal(self, o):
        cards, players = self.x.build(o[1]), self.x.build(o[2])

        def reveal(st, fr):
            for c in cards(st, fr.env):
                for p in players(st, fr.env):
                    if p is not None:
                        st.reveal(c, p)
            fr.pc += 1
        return reveal

    def _cancel(self, o):
        e = self.x.build(o[1])

        def cancel(st, fr):
            ev = e(st, fr.env)
            if ev is None:
                raise EngineFault("`cancel` of none: no event")
            st.events[ev]["cancelled"] = True
            st.touch("events")
            fr.pc += 1
        return cancel

    # ----- decisions
    def _where(self, itvar, cond_ir):
        """The `where` filter of a choice: f(st, env, values) -> kept values."""
        if cond_ir is None:
            return None
        if self.x.pygen is not None:
            return self.x.pygen.compile_filter(itvar, cond_ir)
        cond = self.x.build(cond_ir)

        def where(st, env, values):
            kept = []
            for v in values:
                env[itvar] = v
                if cond(st, env):
                    kept.append(v)
            return kept
        return where

    def _choose(self, o):
        var, items = o[1], self.x.build(o[2])
        where, by = self._where(o[3], o[4]), self.x.build(o[5])
        optional, prompt, typ = o[6], self.x.build(o[7]), o[8]

        def choose(st, fr):
            env = fr.env
            values = list(items(st, env))
            if where is not None:
                values = where(st, env, values)
            if not values and not optional:
                raise EngineFault("nothing to choose from" +
                                  (f" for “{prompt(st, env)}”" if prompt else ""))
            who = by(st, env)
            st.ask_choice(who, var, values, typ, optional, prompt(st, env) if prompt else None)
        return choose

    def _random(self, o):
        var, items, where = o[1], self.x.build(o[2]), self._where(o[3], o[4])

        def rnd(st, fr):
            env = fr.env
            values = list(items(st, env))
            if where is not None:
                values = where(st, env, values)
            env[var] = st.pick(values) if values else None
            fr.pc += 1
        return rnd

    def _ask(self, o):
        var, player, prompt = o[1], self.x.build(o[2]), self.x.build(o[3])

        def ask(st, fr):
            st.ask_yes_no(player(st, fr.env), var, prompt(st, fr.env))
        return ask

    def _menu(self, o):
        by = self.x.build(o[1])
        prompt = self.x.build(o[2])
        if self.x.pygen is not None:        # the options' conditions as generated Python
            items = self.x.pygen.compile_menu(o[3], self.x.build)
        else:
            items = self._menu_items(o[3])

        def menu(st, fr):
            st.ask_menu(by(st, fr.env), prompt(st, fr.env) if prompt else None, items)
        return menu

    def _menu_items(self, items):
        out = []
        for it in items:
            if it[0] == "opt":
                out.append(("opt", self.x.build(it[1]), self.x.build(it[2]), self.x.build(it[3]), it[4]))
            elif it[0] == "for":
                out.append(("for", it[1], self.x.build(it[2]), self._menu_items(it[3])))
            else:
                out.append(("if", self.x.build(it[1]), self._menu_items(it[2])))
        return out

    def _window(self, o):
        var, tag, players = o[1], o[2], self.x.build(o[3])
        fields = {k: self.x.build(v) for k, v in o[4].items()}

        def window(st, fr):
            st.poll_window(fr, var, tag, players, fields)
        return window
