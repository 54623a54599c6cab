"""Turn expression IR from the bundle into Python closures, once, at load.

A closure has the signature `f(st, env)`: `st` is the game state, `env` the
locals of the running frame (`me`, `this`, `event`, lets, loop variables).
Nothing here walks a tree while the game runs: that is what makes the
interpreter fast enough for bulk simulation.
"""
from __future__ import annotations

import os

from cardc.engine.builtins import IMPL
from cardc.engine.errors import EngineFault


def fmt(value, typ, st):
    """A value as text in a log line or an option label."""
    if value is None:
        return "none"
    if typ == "card":
        return st.game.card_name[value]
    if typ == "player":
        return st.player_name(value)
    if typ == "zone":
        return st.game.slot_name(st, value)
    if typ.startswith("list:"):
        inner = typ[5:]
        return ", ".join(fmt(v, inner, st) for v in value) or "nothing"
    if typ == "bool":
        return "yes" if value else "no"
    return str(value)


def _div(a, b):
    if b == 0:
        raise EngineFault("division by zero")
    return a // b


def _mod(a, b):
    if b == 0:
        raise EngineFault("modulo by zero")
    return a % b


def _index(xs, k):
    if not -len(xs) <= k < len(xs):
        raise EngineFault(f"index {k} is outside a list of {len(xs)}")
    return xs[k]


_BIN = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": _div, "%": _mod,
}
_CMP = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    "in": lambda a, b: a in b, "not in": lambda a, b: a not in b,
}


class ExprBuilder:
    """Compiles IR lists into closures for one game."""

    def __init__(self, game, generate=True):
        self.game = game
        self._inlining = []          # functions being built in place (no endless recursion)
        # Python generated from the IR when possible (faster); these closures otherwise
        self.pygen = None
        if generate and os.environ.get("CARDC_NO_CODEGEN") != "1":
            from cardc.engine.pygen import PyGen
            self.pygen = PyGen(game, fmt)

    def build(self, ir):
        if ir is None:
            return None
        if self.pygen is not None:
            return self.pygen.compile(ir)
        return getattr(self, "_" + ir[0])(ir)

    # ----- leaves
    def _lit(self, ir):
        v = ir[1]
        return lambda st, env: v

    def _var(self, ir):
        name = ir[1]

        def var(st, env):
            try:
                return env[name]
            except KeyError:
                raise EngineFault(f"local `{name}` has no value here") from None
        return var

    def _players(self, ir):
        return lambda st, env: list(range(st.n))

    def _game(self, ir):
        return lambda st, env: None

    def _zone(self, ir):
        slot = self.game.shared_slot[ir[1]]
        return lambda st, env: slot

    def _pzone(self, ir):
        base, index = self.game.player_zone_base(ir[1])
        p = self.build(ir[2])

        def pzone(st, env):
            who = p(st, env)
            if who is None:
                raise EngineFault(f"`{ir[1]}` of none: no player here")
            return base + index * st.n + who
        return pzone

    def _cards(self, ir):
        z = self.build(ir[1])
        return lambda st, env: st.zones[z(st, env)]

    # ----- counters and fields
    def _gctr(self, ir):
        name = ir[1]
        return lambda st, env: st.g[name]

    def _gattr(self, ir):
        name = ir[1]
        if name == "player_count":
            return lambda st, env: st.n
        return lambda st, env: getattr(st, name)

    def _pctr(self, ir):
        name = ir[1]
        if ir[2][0] == "var":               # the common `p.money`: read the local directly
            var = ir[2][1]

            def pctr_var(st, env):
                try:
                    return st.pc[name][env[var]]
                except (KeyError, TypeError):
                    raise EngineFault(f"`{name}` of `{var}`: no player here") from None
            return pctr_var
        p = self.build(ir[2])

        def pctr(st, env):
            who = p(st, env)
            if who is None:
                raise EngineFault(f"`{name}` of none: no player here")
            return st.pc[name][who]
        return pctr

    def _pattr(self, ir):
        name, p = ir[1], self.build(ir[2])
        if name == "seat":
            return p
        return lambda st, env: st.player_name(p(st, env))

    def _cctr(self, ir):
        name = ir[1]
        if ir[2][0] == "var":
            var = ir[2][1]

            def cctr_var(st, env):
                try:
                    return st.cc[name][env[var]]
                except (KeyError, TypeError):
                    raise EngineFault(f"`{name}` of `{var}`: no card here") from None
            return cctr_var
        c = self.build(ir[2])

        def cctr(st, env):
            card = c(st, env)
            if card is None:
                raise EngineFault(f"`{name}` of none: no card here")
            return st.cc[name][card]
        return cctr

    def _cpp(self, ir):
        name, c, p = ir[1], self.build(ir[2]), self.build(ir[3])

        def cpp(st, env):
            card, who = c(st, env), p(st, env)
            if card is None or who is None:
                raise EngineFault(f"`{name}` of none")
            return st.cc[name][card * st.n + who]
        return cpp

    def _field(self, ir):
        values = self.game.card_field[ir[1]]
        name = ir[1]
        if ir[2][0] == "var":
            var = ir[2][1]

            def field_var(st, env):
                try:
                    return values[env[var]]
                except (KeyError, TypeError):
                    raise EngineFault(f"`.{name}` of `{var}`: no card here") from None
            return field_var
        c = self.build(ir[2])

        def field(st, env):
            card = c(st, env)
            if card is None:
                raise EngineFault(f"`.{name}` of none: no card here")
            return values[card]
        return field

    def _eattr(self, ir):
        name, e = ir[1], self.build(ir[2])
        return lambda st, env: st.events[e(st, env)][name]

    # ----- calls
    def _call(self, ir):
        name = ir[1]
        args = [self.build(a) for a in ir[2]]
        kwargs = {k: self.build(v) for k, v in ir[3].items()}
        impl = IMPL[name]
        if name in ("any", "all") and ir[2][0][0] == "comp":
            return self._lazy_quantifier(name, ir[2][0])
        if name == "count":
            a = args[0]
            return lambda st, env: len(a(st, env))
        if name == "modified":
            return self._modified(ir[2][0][1], args[1], list(kwargs.items()))
        if kwargs:
            return lambda st, env: impl(st, env, *[a(st, env) for a in args],
                                        **{k: v(st, env) for k, v in kwargs.items()})
        if len(args) == 1:
            a = args[0]
            return lambda st, env: impl(st, env, a(st, env))
        if len(args) == 2:
            a, b = args
            return lambda st, env: impl(st, env, a(st, env), b(st, env))
        return lambda st, env: impl(st, env, *[a(st, env) for a in args])

    def _modified(self, name, base, kwargs):
        """`modified("x", base, k=v…)`: see Game.modify."""
        modify = self.game.modify

        def modified(st, env):
            return modify(st, name, base(st, env), lambda: {k: f(st, env) for k, f in kwargs})
        return modified

    def _lazy_quantifier(self, name, comp_ir):
        """`any([x.f for x in xs if c])` stops at the first true (or, for
        `all`, the first false) element instead of building the whole list."""
        elt, var, it, cond = (self.build(comp_ir[1]), comp_ir[2], self.build(comp_ir[3]),
                              self.build(comp_ir[4]))
        want = name == "any"

        def quantifier(st, env):
            old = env.get(var, _MISSING)
            result = not want
            for x in list(it(st, env)):
                env[var] = x
                if (cond is None or cond(st, env)) and bool(elt(st, env)) == want:
                    result = want
                    break
            if old is _MISSING:
                env.pop(var, None)
            else:
                env[var] = old
            return result
        return quantifier

    def _fn(self, ir):
        name = ir[1]
        game = self.game
        if game.fn_simple.get(name) and name not in self._inlining and \
                all(_trivial(a) for a in ir[2]):
            # A function of a few reads and comparisons, called with plain
            # arguments: build its body in place, with the arguments
            # substituted for the parameters (it is pure, so this is exact).
            body = game.fn_bodies[name]
            params = game.fn_params[name]
            self._inlining.append(name)
            try:
                return self.build(_substitute(body, dict(zip(params, ir[2]))))
            finally:
                self._inlining.pop()
        args = [self.build(a) for a in ir[2]]
        params = game.fn_params[name]
        deps = tuple(sorted(game.fn_deps.get(name, ("*",))))
        everything = "*" in deps
        functions = game.functions
        n_args = len(args)
        a0 = args[0] if n_args >= 1 else None
        a1 = args[1] if n_args >= 2 else None
        if game.fn_simple.get(name):
            # A few reads and comparisons: computing it again is cheaper than
            # looking it up, so it is not cached.
            if n_args == 1:
                p0 = params[0]
                return lambda st, env: functions[name](st, {p0: a0(st, env)})
            if n_args == 2:
                p0, p1 = params
                return lambda st, env: functions[name](st, {p0: a0(st, env), p1: a1(st, env)})
            return lambda st, env: functions[name](st, {p: a(st, env) for p, a in zip(params, args)})

        def fn(st, env):
            # Functions are pure: the same arguments give the same value while
            # the parts of the state the function reads are unchanged.
            if n_args == 1:
                values = (a0(st, env),)
            elif n_args == 2:
                values = (a0(st, env), a1(st, env))
            else:
                values = tuple([a(st, env) for a in args])
            stamp = st.version if everything else tuple(map(st.pv.get, deps))
            key = (name, values)
            try:
                hit = st.cache.get(key)
            except TypeError:           # a list argument: not cacheable
                key, hit = None, None
            if hit is not None and hit[0] == stamp and game.cache_functions:
                return hit[1]
            result = functions[name](st, dict(zip(params, values)))
            if key is not None:
                st.cache[key] = (stamp, result)
            return result
        return fn

    # ----- operators
    def _bin(self, ir):
        f, a, b = _BIN[ir[1]], self.build(ir[2]), self.build(ir[3])
        if ir[1] == "+":
            return lambda st, env: a(st, env) + b(st, env)
        if ir[1] == "-":
            return lambda st, env: a(st, env) - b(st, env)
        return lambda st, env: f(a(st, env), b(st, env))

    def _cmp(self, ir):
        op, a, b = ir[1], self.build(ir[2]), self.build(ir[3])
        if ir[3][0] == "lit" and op in ("==", "!=", ">", "<", ">=", "<=") and ir[3][1] is not None \
                and not isinstance(ir[3][1], bool):
            v = ir[3][1]              # comparing with a number or text: no closure for it
            if op == "==":
                return lambda st, env: a(st, env) == v
            if op == "!=":
                return lambda st, env: a(st, env) != v
            if op == ">":
                return lambda st, env: a(st, env) > v
            if op == "<":
                return lambda st, env: a(st, env) < v
            if op == ">=":
                return lambda st, env: a(st, env) >= v
            return lambda st, env: a(st, env) <= v
        if op == "==":
            return lambda st, env: a(st, env) == b(st, env)
        if op == "!=":
            return lambda st, env: a(st, env) != b(st, env)
        if op == ">":
            return lambda st, env: a(st, env) > b(st, env)
        if op == "<":
            return lambda st, env: a(st, env) < b(st, env)
        if op == ">=":
            def ge(st, env):
                x, y = a(st, env), b(st, env)
                if x is None or y is None:
                    raise EngineFault("comparing none with a number")
                return x >= y
            return ge
        f = _CMP[op]

        def cmp(st, env):
            x, y = a(st, env), b(st, env)
            if op in ("<=", ">=") and (x is None or y is None):
                raise EngineFault("comparing none with a number")
            return f(x, y)
        return cmp

    def _and(self, ir):
        parts = [self.build(v) for v in ir[1]]
        if len(parts) == 2:
            a, b = parts
            return lambda st, env: a(st, env) and b(st, env)
        if len(parts) == 3:
            a, b, c = parts
            return lambda st, env: a(st, env) and b(st, env) and c(st, env)

        def and_(st, env):
            for p in parts:
                if not p(st, env):
                    return False
            return True
        return and_

    def _or(self, ir):
        parts = [self.build(v) for v in ir[1]]
        if len(parts) == 2:
            a, b = parts
            return lambda st, env: a(st, env) or b(st, env)

        def or_(st, env):
            for p in parts:
                if p(st, env):
                    return True
            return False
        return or_

    def _not(self, ir):
        a = self.build(ir[1])
        return lambda st, env: not a(st, env)

    def _neg(self, ir):
        a = self.build(ir[1])
        return lambda st, env: -a(st, env)

    def _if(self, ir):
        c, a, b = self.build(ir[1]), self.build(ir[2]), self.build(ir[3])
        return lambda st, env: a(st, env) if c(st, env) else b(st, env)

    def _list(self, ir):
        items = [self.build(v) for v in ir[1]]
        return lambda st, env: [i(st, env) for i in items]

    def _comp(self, ir):
        elt, var, it, cond = self.build(ir[1]), ir[2], self.build(ir[3]), self.build(ir[4])

        def comp(st, env):
            out = []
            old = env.get(var, _MISSING)
            for x in list(it(st, env)):
                env[var] = x
                if cond is None or cond(st, env):
                    out.append(elt(st, env))
            if old is _MISSING:
                env.pop(var, None)
            else:
                env[var] = old
            return out
        return comp

    def _index(self, ir):
        a, i = self.build(ir[1]), self.build(ir[2])
        return lambda st, env: _index(a(st, env), i(st, env))

    def _str(self, ir):
        parts = []
        for p in ir[1]:
            if isinstance(p, str):
                parts.append((p, None, None))
            else:
                parts.append((None, self.build(p[1]), p[2]))

        def string(st, env):
            return "".join(text if f is None else fmt(f(st, env), typ, st)
                           for text, f, typ in parts)
        return string

    def _fmt(self, ir):
        f, typ = self.build(ir[1]), ir[2]
        return lambda st, env: fmt(f(st, env), typ, st)


_MISSING = object()


def _trivial(ir) -> bool:
    """An argument cheap and safe to evaluate more than once."""
    return ir[0] in ("var", "lit") or (ir[0] in ("field", "pctr", "cctr") and ir[2][0] == "var")


def _substitute(ir, args: dict):
    """`ir` with every `["var", param]` replaced by that argument's IR."""
    if isinstance(ir, list):
        if len(ir) == 2 and ir[0] == "var" and isinstance(ir[1], str) and ir[1] in args:
            return args[ir[1]]
        return [_substitute(part, args) for part in ir]
    if isinstance(ir, dict):
        return {k: _substitute(v, args) for k, v in ir.items()}
    return ir
