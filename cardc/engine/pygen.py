"""Compile expression IR to Python functions, the way Jinja2 compiles templates.

One expression becomes one Python function, `def _e(st, env): return …`,
with every operator, read and comparison written inline, instead of a tree
of closures calling each other.  That is several times fewer Python calls per
evaluation, which is where the interpreter spends its time.

Safety: the source is generated from the compiled IR only.  Every value that
comes from content (numbers, text, names of counters, zones and locals) is
written with `repr()` as a literal or a dictionary key; identifiers in the
generated code are our own (`_l3`, `_F2`, `_fn_5`).  No text a designer wrote
is ever executed as Python.
"""
from __future__ import annotations

import itertools

from cardc.engine.builtins import IMPL, cards_at_slot
from cardc.engine.errors import EngineFault
from cardc.engine.exprs import _div, _index, _mod

_GATTRS = {"turn", "round", "turn_player", "first_player"}


class PyGen:
    """Generates and compiles the Python functions of one game's expressions."""

    def __init__(self, game, fmt):
        self.game = game
        self.ids = itertools.count()
        self.ns = {"EngineFault": EngineFault, "_div": _div, "_mod": _mod, "_index": _index,
                   "_fmt": fmt, "_modified": game.modify, "_pzone": _pzone}
        self.names = {}             # python name of each bound object, by id
        self._inlining = []         # functions being written in place (no endless recursion)

    # ------------------------------------------------------------ entry points
    def compile(self, ir):
        """A function f(st, env) computing the expression `ir`."""
        src = self.expr(ir, {})
        return self._define("_e", "(st, env)", src)

    def compile_body(self, ir, params):
        """A function f(st, *params) for a function body."""
        scope = {p: f"_a{i}" for i, p in enumerate(params)}
        args = "".join(f", {scope[p]}" for p in params)
        src = self.expr(ir, scope)
        return self._define("_body", f"(st{args})", src, prelude="env = None")

    def compile_op(self, o):
        """Simple statements (`let`, `jf`, counter `set`) written out as one
        function f(st, fr) each; None for the others, which stay closures."""
        kind = o[0]
        if kind == "let":
            v = self.expr(o[2], {})
            body = [f"    v = {v}", f"    env[{o[1]!r}] = v[:] if type(v) is list else v",
                    "    fr.pc += 1"]
        elif kind == "jf":
            body = [f"    fr.pc = fr.pc + 1 if {self.expr(o[1], {})} else {o[2]}"]
        elif kind == "set":
            body = self._set_lines(o)
            if body is None:
                return None
        else:
            return None
        name = f"_op{next(self.ids)}"
        return self._exec(name, [f"def {name}(st, fr):", "    env = fr.env"] + body)

    def _set_lines(self, o):
        target, op, value = o[1], o[2], self.expr(o[3], {})
        kind, name = target[0], target[1]
        lines = []
        if kind == "gctr":
            ref, part = f"st.g[{name!r}]", f"g:{name}"
        elif kind == "pctr":
            lines += [f"    _p = {self.expr(target[2], {})}",
                      f"    if _p is None: raise EngineFault({'cannot set `' + name + '` of none'!r})"]
            ref, part = f"st.pc[{name!r}][_p]", f"p:{name}"
        elif kind == "cctr":
            lines += [f"    _c = {self.expr(target[2], {})}",
                      f"    if _c is None: raise EngineFault({'cannot set `' + name + '` of none'!r})"]
            ref, part = f"st.cc[{name!r}][_c]", f"c:{name}"
        elif kind == "cpp":
            lines += [f"    _c = {self.expr(target[2], {})}", f"    _p = {self.expr(target[3], {})}",
                      "    if _c is None or _p is None: "
                      f"raise EngineFault({'cannot set `' + name + '` of none'!r})"]
            ref, part = f"st.cc[{name!r}][_c * st.n + _p]", f"c:{name}"
        else:
            return None                 # game attributes: rare, left to the closure
        if op == "=":
            lines.append(f"    {ref} = {value}")
        else:
            lines.append(f"    {ref} = {ref} {op[0]} {value}")
        lines += ["    pv = st.pv", f"    pv[{part!r}] = pv.get({part!r}, 0) + 1", "    fr.pc += 1"]
        return lines

    def compile_filter(self, var, cond):
        """f(st, env, values): the values for which `cond` holds, with `var`
        naming each in turn (a choice's `where`), as one list comprehension."""
        local = self._local()
        test = self.expr(cond, {var: local})
        name = f"_where{next(self.ids)}"
        return self._exec(name, [f"def {name}(st, env, values):",
                                 f"    return [{local} for {local} in values if {test}]"])

    def compile_menu(self, items, build):
        """One function f(st, env, labels, values, unavailable) that finds the
        options a menu offers now: the conditions are written inline, and
        each open option records its label (a closure, read only if someone
        asks), its body's pc and the loop variables it was found with."""
        lines: list = []
        self._menu_lines(items, {}, build, lines, 1)
        name = f"_menu{next(self.ids)}"
        return self._exec(name, [f"def {name}(st, env, labels, values, unavailable):"]
                          + lines + ["    return None"])

    def _menu_lines(self, items, scope, build, out, depth):
        pad = "    " * depth
        bindings = "{" + ", ".join(f"{k!r}: {v}" for k, v in scope.items()) + "}"
        for item in items:
            if item[0] == "opt":
                _, label, cond, reason, pc = item
                lab = self.bind(build(label), "_lab")
                add = [f"{pad}    _b = {bindings}", f"{pad}    labels.append(({lab}, _b))",
                       f"{pad}    values.append([{pc}, _b])"]
                if cond is None:
                    out += [f"{pad}if True:"] + add
                    continue
                out += [f"{pad}if {self.expr(cond, scope)}:"] + add
                if reason is not None:
                    why = self.bind(build(reason), "_why")
                    out += [f"{pad}else:", f"{pad}    unavailable.append(({lab}, {why}, {bindings}))"]
            elif item[0] == "for":
                _, var, lst, sub = item
                local = self._local()
                out.append(f"{pad}for {local} in list({self.expr(lst, scope)}):")
                before = len(out)
                self._menu_lines(sub, {**scope, var: local}, build, out, depth + 1)
                if len(out) == before:
                    out.append(f"{pad}    pass")
            else:
                _, cond, sub = item
                out.append(f"{pad}if {self.expr(cond, scope)}:")
                before = len(out)
                self._menu_lines(sub, scope, build, out, depth + 1)
                if len(out) == before:
                    out.append(f"{pad}    pass")

    def compile_cached(self, name, body, params, deps, game):
        """The cached call of a content function, written out for its own
        parameters and dependencies: the cache check, the stamp (the sum of the
        versions of the parts it reads) and the body itself, in one function."""
        args = [f"_a{i}" for i in range(len(params))]
        scope = dict(zip(params, args))
        sig = "".join(", " + a for a in args)
        key = f"({name!r}, ({''.join(a + ', ' for a in args)}))"
        everything = "*" in deps
        stamp = "None" if everything else (" + ".join(f"pv[{d!r}]" for d in deps) or "0")
        self.ns.setdefault("_game", game)
        fname = f"_fn{next(self.ids)}"
        lines = [
            f"def {fname}(st{sig}):",
            "    env = None",
            f"    key = {key}",
            "    cache = st.cache",
            "    try:",
            "        hit = cache.get(key)",
            "    except TypeError:",
            "        key = hit = None",
            "    version = st.version",
            "    pv = st.pv",
            "    if hit is not None and _game.cache_functions:",
            "        if hit[0] == version:",
            "            return hit[2]",
            f"        stamp = {stamp}",
            "        if stamp is not None and hit[1] == stamp:",
            "            cache[key] = (version, stamp, hit[2])",
            "            return hit[2]",
            "    else:",
            f"        stamp = {stamp}",
            f"    result = {self.expr(body, scope)}",
            "    if key is not None:",
            "        cache[key] = (version, stamp, result)",
            "    return result",
        ]
        return self._exec(fname, lines)

    def _define(self, prefix, signature, src, prelude=None):
        name = f"{prefix}{next(self.ids)}"
        lines = [f"def {name}{signature}:"]
        if prelude:
            lines.append("    " + prelude)
        lines.append(f"    return {src}")
        return self._exec(name, lines)

    def _exec(self, name, lines):
        """Define the generated function `name` from its source lines.  The
        source comes from the IR only (see the module docstring)."""
        exec(compile("\n".join(lines) + "\n", f"<cardc {name}>", "exec"), self.ns)  # noqa: S102
        return self.ns[name]

    def bind(self, obj, prefix="_o"):
        """A name in the generated code's namespace for a Python object."""
        key = id(obj)
        if key not in self.names:
            name = f"{prefix}{next(self.ids)}"
            self.ns[name] = obj
            self.names[key] = name
        return self.names[key]

    # ------------------------------------------------------------ expressions
    def expr(self, ir, scope) -> str:
        return getattr(self, "_" + ir[0])(ir, scope)

    def _local(self):
        return f"_l{next(self.ids)}"

    def _lit(self, ir, scope):
        return repr(ir[1])

    def _var(self, ir, scope):
        name = ir[1]
        return scope[name] if name in scope else f"env[{name!r}]"

    def _players(self, ir, scope):
        return "list(range(st.n))"

    def _game(self, ir, scope):
        return "None"

    def _zone(self, ir, scope):
        return repr(self.game.shared_slot[ir[1]])

    def _pzone(self, ir, scope):
        base, index = self.game.player_zone_base(ir[1])
        return f"_pzone(st, {base}, {index}, {self.expr(ir[2], scope)}, {ir[1]!r})"

    def _cards(self, ir, scope):
        return f"st.zones[{self.expr(ir[1], scope)}]"

    def _gctr(self, ir, scope):
        return f"st.g[{ir[1]!r}]"

    def _gattr(self, ir, scope):
        if ir[1] == "player_count":
            return "st.n"
        return f"st.{ir[1]}" if ir[1] in _GATTRS else f"getattr(st, {ir[1]!r})"

    def _pctr(self, ir, scope):
        return f"st.pc[{ir[1]!r}][{self.expr(ir[2], scope)}]"

    def _pattr(self, ir, scope):
        p = self.expr(ir[2], scope)
        return p if ir[1] == "seat" else f"st.player_name({p})"

    def _cctr(self, ir, scope):
        return f"st.cc[{ir[1]!r}][{self.expr(ir[2], scope)}]"

    def _cpp(self, ir, scope):
        return f"st.cc[{ir[1]!r}][({self.expr(ir[2], scope)}) * st.n + ({self.expr(ir[3], scope)})]"

    def _field(self, ir, scope):
        values = self.bind(self.game.card_field[ir[1]], "_F")
        return f"{values}[{self.expr(ir[2], scope)}]"

    def _eattr(self, ir, scope):
        return f"st.events[{self.expr(ir[2], scope)}][{ir[1]!r}]"

    # ------------------------------------------------------------ calls
    def _call(self, ir, scope):
        name, args, kwargs = ir[1], ir[2], ir[3]
        if name in ("any", "all") and args[0][0] == "comp":
            _, elt, var, it, cond = args[0]
            inner = {**scope, var: self._local()}
            loop = f"for {inner[var]} in {self.expr(it, scope)}"
            test = f" if {self.expr(cond, inner)}" if cond else ""
            return f"{name}({self.expr(elt, inner)} {loop}{test})"
        if name == "count":
            return f"len({self.expr(args[0], scope)})"
        if name == "cards_at" and args[0][0] == "cards":      # a whole zone: use its index
            at = self.bind(cards_at_slot, "_b")
            return f"{at}(st, {self.expr(args[0][1], scope)}, {self.expr(args[1], scope)})"
        if name in ("max", "min"):
            return f"{name}({', '.join(self.expr(a, scope) for a in args)})"
        if name == "modified":
            kw = ", ".join(f"{k!r}: {self.expr(v, scope)}" for k, v in kwargs.items())
            return f"_modified(st, {args[0][1]!r}, {self.expr(args[1], scope)}, lambda: {{{kw}}})"
        impl = self.bind(IMPL[name], "_b")
        env = "env" if name in ("playable",) else "None"
        parts = [self.expr(a, scope) for a in args]
        return f"{impl}(st, {env}{''.join(', ' + p for p in parts)})"

    def _fn(self, ir, scope):
        from cardc.engine.exprs import _substitute, _trivial
        name, args = ir[1], ir[2]
        game = self.game
        if game.fn_simple.get(name) and name not in self._inlining and all(_trivial(a) for a in args):
            self._inlining.append(name)
            try:
                body = _substitute(game.fn_bodies[name], dict(zip(game.fn_params[name], args)))
                return f"({self.expr(body, scope)})"
            finally:
                self._inlining.pop()
        call = self.bind(game.cached_function(name), "_fn")
        return f"{call}(st{''.join(', ' + self.expr(a, scope) for a in args)})"

    # ------------------------------------------------------------ operators
    def _bin(self, ir, scope):
        a, b = self.expr(ir[2], scope), self.expr(ir[3], scope)
        if ir[1] == "/":
            return f"_div({a}, {b})"
        if ir[1] == "%":
            return f"_mod({a}, {b})"
        return f"({a} {ir[1]} {b})"

    def _cmp(self, ir, scope):
        return f"({self.expr(ir[2], scope)} {ir[1]} {self.expr(ir[3], scope)})"

    def _and(self, ir, scope):
        return "(" + " and ".join(self.expr(v, scope) for v in ir[1]) + ")"

    def _or(self, ir, scope):
        return "(" + " or ".join(self.expr(v, scope) for v in ir[1]) + ")"

    def _not(self, ir, scope):
        return f"(not {self.expr(ir[1], scope)})"

    def _neg(self, ir, scope):
        return f"(-{self.expr(ir[1], scope)})"

    def _if(self, ir, scope):
        return f"({self.expr(ir[2], scope)} if {self.expr(ir[1], scope)} else {self.expr(ir[3], scope)})"

    def _list(self, ir, scope):
        return "[" + ", ".join(self.expr(v, scope) for v in ir[1]) + "]"

    def _comp(self, ir, scope):
        _, elt, var, it, cond = ir
        inner = {**scope, var: self._local()}
        test = f" if {self.expr(cond, inner)}" if cond else ""
        return f"[{self.expr(elt, inner)} for {inner[var]} in {self.expr(it, scope)}{test}]"

    def _index(self, ir, scope):
        return f"_index({self.expr(ir[1], scope)}, {self.expr(ir[2], scope)})"

    def _str(self, ir, scope):
        parts = [repr(p) if isinstance(p, str) else f"_fmt({self.expr(p[1], scope)}, {p[2]!r}, st)"
                 for p in ir[1]]
        return "''.join((" + ", ".join(parts) + ",))"

    def _fmt(self, ir, scope):
        return f"_fmt({self.expr(ir[1], scope)}, {ir[2]!r}, st)"


def _pzone(st, base, index, p, name):
    if p is None:
        raise EngineFault(f"`{name}` of none: no player here")
    return base + index * st.n + p
