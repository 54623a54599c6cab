"""Compile the bundle's IR to Python source, the way Jinja2 compiles templates.

This is the engine's one backend.  An expression becomes Python text with
every operator, read and comparison written inline (`expr`); a whole block of
statements becomes one function (`cardc/engine/blocks.py`, which asks this
module for its expressions); a content function becomes one function with
its cache check written in (`compile_cached`); a menu becomes one function
that lists the options open now (`compile_menu`).

Safety: the source is generated from the compiled IR only, from a closed set
of node kinds, operators and builtins; anything else in a bundle is refused
with `BadBundle` naming it.  A number from content is written as a literal;
a text (a name of a counter, zone or local, a line of a log) is never
written at all: the source holds the name of a constant (`_s3`, see `lit`),
which `lower` replaces by the text on the syntax tree before it is compiled.
Identifiers in the generated code are our own (`_l3`, `_F2`, `_fn5`), and
the only comments are the generator's own (`# op 7`).  The generated code
runs in a namespace whose builtins are only the few it uses.  No text a
designer wrote is ever part of the source, so none can be executed.
"""
from __future__ import annotations

import dataclasses
import itertools
import json
import linecache
import re
from contextlib import contextmanager
from types import MappingProxyType

from cardc.engine.builtins import IMPL, cards_in, rivals_table, zone_index
from cardc.engine.deps import CELLS
from cardc.engine.errors import BadBundle, EngineFault
from cardc.engine.inline import FORMS, trivial
from cardc.engine.interp import back_on_top, beneath, materialize, stopped
from cardc.engine.lower import Placed, lower
from cardc.engine.memo import Memo, names_in
from cardc.engine.stale import cell_watch
from cardc.engine.total import harmless, risky_parts
from cardc.ir import nodes as n
from cardc.ir.builtins import BUILTINS, RANDOM
from cardc.ir.nodes import substitute

# readable game attributes: `st.<name>` (player_count is `st.n`)
GATTRS = {"turn", "round", "turn_player", "first_player", "player_count"}
BIN_OPS = {"+", "-", "*", "/", "%"}
CMP_OPS = {"==", "!=", "<", "<=", ">", ">=", "in", "not in"}
#: the only builtins generated code can reach
SAFE_BUILTINS = {"len": len, "list": list, "range": range, "max": max, "min": min, "any": any,
                 "all": all, "type": type, "sum": sum, "abs": abs, "int": int, "TypeError": TypeError}
#: a chain of more operands than this is split, far below Python's parser limits
CHAIN = 50
#: generated expressions nested deeper than this are cut into separate functions
DEPTH = 40


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


def _node(ir):
    """An entry point's expression as a typed node: the game passes the
    bundle's entries in their JSON form (a list), parsed here once."""
    return n.parse(ir) if isinstance(ir, list) else ir


def _fold(values, ops):
    """values[0] ops[0] values[1] ops[1] … from the left (a long `+ - *` chain)."""
    out = values[0]
    for op, v in zip(ops, values[1:], strict=False):
        out = out + v if op == "+" else out - v if op == "-" else out * v
    return out


def digits_guard(game):
    """`_big(v)`: a product of two numbers the content computed, checked
    where it is made.  A kept number is checked when it is kept (a `let`,
    a `set`), but a product can also grow through a call's arguments or a
    function's value with nothing kept in between (`grow(n * n)`, calling
    itself), squaring its digits at each step: this stops that at the
    digits limit.  A product with a literal factor grows by a few digits a
    step at most, as a sum does, and is left to the checks where it is kept."""
    m, message = game.limits.max_int, game.over_digits

    def _big(v):
        if type(v) is int and not -m <= v <= m:
            raise EngineFault(message)
        return v
    return _big


def _mods_of(st):
    """{modifier: [(card, function, owner)]} of the cards in force now."""
    hit = st.mods
    if hit is None or hit[0] != st.part_versions["active"]:
        hit = st.game._scan_modifiers(st)
    return hit[1]


def _read(table, index):
    return None if index is None else table[index]


def _pzone(st, base, index, p, name):
    if p is None:
        raise EngineFault(f"`{name}` of none: no player here")
    return base + index * st.n + p


def _menu_texts(items, safe=frozenset()):
    """(text, the loop locals never none there) for the label and reason
    expressions of a menu's options: a loop over a zone's cards never
    gives none."""
    for item in items:
        match item:
            case n.Option(label=label, reason=reason):
                yield label, safe
                if reason is not None:
                    yield reason, safe
            case n.OptionsFor(var=var, items=of, options=options):
                yield from _menu_texts(options, safe | {var} if isinstance(of, n.Cards) else safe - {var})
            case n.OptionsIf(options=options):
                yield from _menu_texts(options, safe)


def _plain(v) -> bool:
    """A value `repr()` writes as a Python literal that means just that value."""
    if v is None or type(v) in (int, str, bool):
        return True
    return type(v) is list and all(_plain(x) for x in v)


def _slot_of(base, index, who) -> str:
    """The text of the slot of player zone `index` (after `base` shared
    ones) of the player `who`: base + index * players + who."""
    if index == 0:
        return f"{base} + {who}"
    return f"{base} + {index} * st.n + {who}"


class PyGen:
    """Generates and compiles the Python functions of one game."""

    def __init__(self, game):
        self.game = game
        self.ids = itertools.count()
        self.ns = {"__builtins__": dict(SAFE_BUILTINS), "EngineFault": EngineFault,
                   "_div": _div, "_mod": _mod, "_index": _index, "_fmt": fmt,
                   "_modified": game.modify, "_pzone": _pzone, "_game": game, "_read": _read,
                   "_fold": _fold, "_mods_of": _mods_of, "_str": str,
                   "_new": object.__new__, "_back": back_on_top,
                   "_mk": materialize, "_beneath": beneath, "_stopped": stopped,
                   "_big": digits_guard(game)}
        self.names = {}             # python name of each bound object, by id
        self.texts = {}             # text -> the name standing for it in generated source (see `lit`)
        self.text_values = {}       # the same, name -> text
        self.placed = {}            # what a Memo's slot or marker stands for (memo.py, lower.Placed)
        self.sources = []           # (name, source) of every generated function, in order
        self.origins = {}           # a block's function name -> its Code: where its `# op N` lines come from
        self._inlining = []         # functions being written in place (no endless recursion)
        self.memo = None            # the Memo of the function being written, if it reuses values
        self.text = False           # writing text for people (see `text_of`)
        self._in_modifier = False   # writing a modifier's body (see `compile_modifier`)
        # the names in generated code that hold one cell (or none), never a
        # list: the comprehension locals that run over the grid's cells, and
        # the parameters the compiler typed `cell` of the function being
        # written (`one_cell`)
        self.cell_locals: set = set()
        self._cells_are_text = all(type(x) is str for x in game.grid_cells)
        self.ns["_U"] = _UNSET
        self.ns["_E"] = _NOTHING
        self.kinds = {k[2:]: getattr(self, k) for k in dir(self) if k.startswith("e_")}

    # ------------------------------------------------------------ entry points
    def build(self, ir):
        """A function f(st, env) computing the expression `ir` (None for None)."""
        if ir is None:
            return None
        ir = _node(ir)
        name = self.fresh("_e")
        memo = Memo(self, pure=True)    # a value the expression needs twice is computed once
        with self.memo_of(memo):
            text = self.expr(ir, {})
        lines = [f"def {name}(st, env):", "    " + memo.reset(), f"    return {text}"]
        memo.finish()
        return self.exec_source(name, "\n".join(lines) + "\n")

    def compile_body(self, ir, params, fn=None):
        """A function f(st, *params) for a function body (of function `fn`)."""
        ir = _node(ir)
        scope = {p: f"_a{i}" for i, p in enumerate(params)}
        args = "".join(f", {scope[p]}" for p in params)
        name = self.fresh("_body")
        memo = Memo(self, pure=True)
        with self.memo_of(memo), self.typed_params(fn, list(scope.values())):
            text = self.expr(ir, scope)
        lines = [f"def {name}(st{args}):", "    env = None",
                 *self.budget_lines(fn, "    ").rstrip("\n").split("\n"),
                 "    " + memo.reset(), f"    return {text}"]
        memo.finish()
        return self.exec_source(name, "\n".join(x for x in lines if x) + "\n")

    def budget_lines(self, fn, pad):
        """A recursive function's call counts against the step budget."""
        if fn not in self.game.fn_recursive:
            return ""
        return (f"{pad}st.budget -= 1\n"
                f"{pad}if st.budget < 0: raise EngineFault(_game.over_steps)\n")

    def text_of(self, ir, scope):
        """Text for people (a log line, a label, a reason): here reading a
        printed field or a counter of none gives none (written "none")
        instead of failing, so such text is harmless (see total.py)."""
        saved, self.text = self.text, True
        try:
            return self.expr(ir, scope)
        finally:
            self.text = saved

    def build_text(self, ir, safe=frozenset()):
        """f(st, env) for a text expression (see `text_of`).  Its `risk`
        attribute evaluates only the parts of it that could fail (None if
        none can): what a bot's menu runs instead of building the text."""
        ir = _node(ir)
        name = self.fresh("_t")
        with self.memo_of(None):
            text = self.text_of(ir, {})
            parts = [self.text_of(x, {}) for x in risky_parts(ir, self.game, safe=safe)]
        fn = self.exec_source(name, f"def {name}(st, env):\n    return {text}\n")
        fn.risk = None
        if parts:
            risk = self.fresh("_risk")
            fn.risk = self.exec_source(risk, f"def {risk}(st, env):\n    return ({', '.join(parts)},)\n")
        return fn

    def compile_modifier(self, ir, args):
        """A card's modifier as f(st, value, this, me, owner, *args): the declared
        arguments are plain parameters, not a dict built for every call.

        `owner` is the owner of the zone in force that holds `this` (none for a
        shared zone): it is `owner_of(this)` there, with no lookup."""
        ir = _node(ir)
        scope = {"value": "_value", "this": "_this", "me": "_me"}
        scope.update({a: f"_a{i}" for i, a in enumerate(args)})
        params = "".join(f", _a{i}" for i in range(len(args)))
        name = self.fresh("_mod")
        with self.memo_of(None):
            self._in_modifier = True
            try:
                text = self.expr(ir, scope)
            finally:
                self._in_modifier = False
        return self.exec_source(name, f"def {name}(st, _value, _this, _me, _owner{params}):\n"
                                      f"    env = None\n    return {text}\n")

    def modifier_call(self, name, listed=False):
        """f(st, value, *args) for `modified("name", value, …)` with plain
        arguments: one check of which cards modify `name` now, then each
        card's modifier called directly.  With `listed`, f(st, mods, value,
        *args) for the list of those cards, already found (see e_call)."""
        key = ("modifier", name, listed)
        if key not in self.names:
            count = len(self.game.modifier_args.get(name, ()))
            params = "".join(f", _a{i}" for i in range(count))
            if listed:
                fname = self.fresh("_applied_")
                src = (f"def {fname}(st, mods, value{params}):\n"
                       "    # a modifier, by the cards in force that have it\n"
                       "    tp = st.turn_player\n"
                       "    for c, f, owner in mods:\n"
                       f"        value = f(st, value, c, owner if owner is not None else tp, owner{params})\n"
                       "    return value\n")
            else:
                fname = self.fresh("_modified_")
                src = (f"def {fname}(st, value{params}):\n"
                       "    # a modifier\n"
                       "    hit = st.mods\n"
                       f"    if hit is None or hit[0] != st.part_versions[{self.lit('active')}]:\n"
                       "        hit = _game._scan_modifiers(st)\n"
                       f"    mods = hit[1].get({self.lit(name)})\n"
                       f"    return {self.modifier_call(name, True)}(st, mods, value{params}) if mods else value\n")
            fn = self.exec_source(fname, src)
            self.ns[fname] = fn
            self.names[key] = (fname, fn)
        return self.names[key][0]

    def compile_menu(self, items):
        """One function f(st, env, values, unavailable) that finds the
        options a menu offers now: the conditions are written inline, and
        each open option records its body's pc and the loop variables it was
        found with, `[pc, name, value, …]`.  Its label is the function `f.labels[pc]`, called only if
        someone reads it (each option has a pc of its own)."""
        memo = Memo(self, env_reads=True, pure=True)
        lines: list = ["    " + memo.reset()]
        labels: dict = {}
        reasons: list = []
        # labels and reasons that could fail are built at once, even for a bot
        # (see total.py), so that simulation fails exactly where play does:
        # an open option's label right where the option is found
        eager = not all(harmless(x, self.game, text=True, safe=safe)
                        for x, safe in _menu_texts(items))
        with self.memo_of(memo):
            self._menu_lines(items, {}, lines, 1, labels=labels, reasons=reasons, eager=eager)
        name = self.fresh("_menu")
        memo.finish()
        body = [f"def {name}(st, env, values, unavailable):"] + lines + ["    return None"]
        fn = self.exec_source(name, "\n".join(body) + "\n")
        fn.labels = labels
        # whether an option shown as unavailable has a label or reason with a
        # part that could fail (see ask_menu)
        fn.risky_reasons = any(f.risk is not None for f in reasons)
        # the options not open can be found again later, by running the menu
        # again on the same state, unless a condition draws from the random
        # generator (the second run would draw again) or a reason must be
        # checked at once
        game = self.game
        fn.unavailable_later = not fn.risky_reasons and not _mentions(
            items, RANDOM, game.fn_impure, items=True) and not any(
            _mentions(ir, RANDOM, game.fn_impure)
            for bodies in game.modifier_bodies.values() for ir in bodies)
        fn.eager_text = eager
        return fn

    def _menu_lines(self, items, scope, out, depth, safe=frozenset(), labels=None, reasons=None,
                    eager=False):
        pad = "    " * depth
        bindings = "{" + ", ".join(f"{self.lit(k)}: {v}" for k, v in scope.items()) + "}"
        # an open option is [pc, name, value, name, value, …]: one list, no
        # dict, for every option of every menu (see asking.option_env)
        flat = "".join(f", {self.lit(k)}, {v}" for k, v in scope.items())
        k = 0
        while k < len(items):
            group = self._same_first_test(items, k)
            if group > 1:
                # options side by side whose conditions start with the same
                # test (`can_buy(p, c) and extra_cost(p, c) == 0`, then `… > 0`):
                # the test once, the rest of each condition inside it
                first = self._conjuncts(items[k].test)[0]
                out.append(f"{pad}if {self.expr(first, scope)}:")
                rest = [self._without_first(item) for item in items[k:k + group]]
                self._menu_lines(rest, scope, out, depth + 1, safe, labels, reasons, eager)
                k += group
                continue
            item = items[k]
            k += 1
            if isinstance(item, n.Option):
                label, cond, reason, pc = item.label, item.test, item.reason, item.to
                if int(pc) in labels:
                    raise BadBundle(f"two options of a menu start at op {int(pc)}: each has a body of its own")
                labels[int(pc)] = text = self.build_text(label, safe)
                lab = self.bind(text, "_lab")
                # an option's value is a tuple: one object to make (a list is
                # two), none at all for an option with no loop variable (a
                # constant); a loaded state's options are lists, read alike
                add = [f"{pad}    values.append(({int(pc)}{flat or ','}))"]
                if eager and text.risk is not None:
                    here = "{**env" + "".join(f", {self.lit(k)}: {v}" for k, v in scope.items()) + "}"
                    add.append(f"{pad}    {self.bind(text.risk, '_risk')}(st, {here})")
                if cond is None:
                    out += [f"{pad}if True:"] + add
                    continue
                out += [f"{pad}if {self.expr(cond, scope)}:"] + add
                if reason is not None:
                    because = self.build_text(reason, safe)
                    reasons += [text, because]
                    why = self.bind(because, "_why")
                    # a bot's menu passes no list: the options not open are
                    # found again only if someone reads them (ask_menu)
                    out += [f"{pad}elif unavailable is not None:",
                            f"{pad}    unavailable.append(({lab}, {why}, {bindings}))"]
            elif isinstance(item, n.OptionsFor):
                var, lst, sub = item.var, item.items, item.options
                local = self.local()
                over_cards = isinstance(lst, n.Cards)
                first = self._loop_invariant_first(sub, var)
                inner, level = pad, depth
                if first is None:
                    # no copy: finding the options changes nothing
                    out.append(f"{pad}for {local} in {self.expr(lst, scope)}:")
                else:
                    # every option of the loop starts with the same test, one
                    # that does not change with the element: tested once, at
                    # the first element (where the loop tested it first), and
                    # the loop runs only if it holds
                    whole = self.local()
                    out.append(f"{pad}{whole} = {self.expr(lst, scope)}")
                    out.append(f"{pad}if {whole} and {self.expr(first, scope)}:")
                    sub = [self._without_first(x) for x in sub]
                    inner, level = pad + "    ", depth + 1
                    out.append(f"{inner}for {local} in {whole}:")
                memo = self.memo
                assert memo is not None, "a menu is written with a Memo"
                region = memo.enter(local)
                out.append(f"{inner}    {memo.reset(region)}")
                before = len(out)
                self._menu_lines(sub, {**scope, var: local}, out, level + 1,
                                 safe | {var} if over_cards else safe - {var}, labels, reasons,
                                 eager)
                memo.leave()
                if len(out) == before:
                    out.append(f"{inner}    pass")
            else:
                out.append(f"{pad}if {self.expr(item.test, scope)}:")
                before = len(out)
                self._menu_lines(item.options, scope, out, depth + 1, safe, labels, reasons, eager)
                if len(out) == before:
                    out.append(f"{pad}    pass")

    def _conjuncts(self, cond):
        """The tests of `cond` if it is `a and b and …`, each call of a
        simple function (one written in place, see e_fn) opened up into its
        own tests if its body is such a chain; else None.  Evaluating them
        in turn is evaluating `cond`."""
        out = self._opened(cond, 0)
        return out if len(out) >= 2 else None

    def _opened(self, ir, depth) -> list:
        game = self.game
        if depth > 8:
            return [ir]
        match ir:
            case n.And(parts=parts):
                return [t for part in parts for t in self._opened(part, depth + 1)]
            case n.Fn(function=name, args=args) if game.fn_simple.get(name) and name in game.fn_bodies \
                    and all(trivial(a) for a in args):
                body = substitute(game.fn_bodies[name], dict(zip(game.fn_params[name], args, strict=False)))
                if isinstance(body, n.And):
                    return self._opened(body, depth + 1)
        return [ir]

    def _without_first(self, item):
        """Option `item` with the first test of its condition taken off."""
        more = self._conjuncts(item.test)[1:]
        return dataclasses.replace(item, test=more[0] if len(more) == 1 else n.And(more))

    def _loop_invariant_first(self, sub, var):
        """The first test of every option of a menu's loop, if they all start
        with the same one, it does not read the loop's variable, could not
        draw from the random generator, and no option has a reason to show
        when it is not open (so a false test writes nothing); else None."""
        if not sub or not all(isinstance(x, n.Option) and x.reason is None and self._conjuncts(x.test)
                              for x in sub):
            return None
        if len(sub) > 1 and self._same_first_test(sub, 0) != len(sub):
            return None
        first = self._conjuncts(sub[0].test)[0]
        if _reads_var(first, var) or self._draws(first):
            return None
        return first

    def _same_first_test(self, items, k) -> int:
        """How many options from `items[k]` on have a condition `a and …`
        with the same first test `a`, and no reason to show when not open
        (so nothing is written for them then).  The test must be pure: it is
        evaluated once instead of once an option, which is exact only if a
        second evaluation could not give another value (a draw from the random
        generator would)."""
        def first(item):
            if not (isinstance(item, n.Option) and item.reason is None):
                return None
            tests = self._conjuncts(item.test)
            return tests[0] if tests else None
        a = first(items[k])
        if a is None or self._draws(a):
            return 1
        same = 1
        while k + same < len(items) and first(items[k + same]) == a:
            same += 1
        return same

    def _draws(self, ir) -> bool:
        """Could evaluating `ir` draw from the random generator (directly,
        through a function, or through a modifier of any card)?"""
        game = self.game
        if getattr(self, "_mods_draw", None) is None:
            self._mods_draw = any(_mentions(x, RANDOM, game.fn_impure)
                                  for bodies in game.modifier_bodies.values() for x in bodies)
        return self._mods_draw or _mentions(ir, RANDOM, game.fn_impure)

    def compile_cached(self, name, body, params, deps, probe=None):
        """The cached call of a content function, written out for its own
        parameters: the cache lookup and the body itself, in one function.

        An entry holds while nothing the function reads changes: each change
        forgets the entries it makes stale (stale.py, Table.forget_*), so a
        hit is one lookup.  A function that reads what no part names ("*")
        keeps its entry for one version of the state (any write moves it)."""
        body = _node(body)
        args = [f"_a{i}" for i in range(len(params))]
        scope = dict(zip(params, args, strict=False))
        sig = "".join(", " + a for a in args)
        # each function has a cache of its own (`st.cache[slot]`), keyed by
        # its argument alone, or a tuple of its arguments: no tuple to build
        # and hash for a function of one argument, on every call
        slot = self.game.cache_slot(name)
        key = "0" if not args else args[0] if len(args) == 1 else f"({', '.join(args)})"
        everything = "*" in deps
        # a function of several arguments, one of which a change can make
        # stale alone (a player's zone, a cell, a counter's value: stale.py),
        # has a cache keyed by that argument first: {it: {the others: value}},
        # so the change forgets one key
        outer = self.game.stale.outer.get(name)
        inner = None
        if outer is not None:
            key = args[outer]
            rest = [a for i, a in enumerate(args) if i != outer]
            inner = rest[0] if len(rest) == 1 else f"({', '.join(rest)})"
        fname = self.fresh("_fn")
        memo = Memo(self, pure=True)    # a value the body needs twice is computed once
        with self.memo_of(memo), self.typed_params(name, args):
            result = self.expr(body, scope)
        # the lookup reads the argument itself, and the cache from the state
        # (no local for either): a hit, the common case, runs the fewest steps
        cache = f"st.cache[{slot}]"
        if everything:
            look = f"hit = {cache}.get({key})"
            check = ["    version = st.version",
                     "    if hit is not None and hit[0] == version:",
                     "        return hit[1]"]
            entry = "(version, result)"
        else:
            look = (f"hit = {cache}.get({key}, _U)" if inner is None else
                    f"hit = {cache}.get({key}, _E).get({inner}, _U)")
            check = ["    if hit is not _U:",
                     "        return hit"]
            if probe is not None:
                # its first calls counted: then it is settled, cached or not
                # (game.CacheProbe), and this function is no longer called
                p, limit = self.bind(probe, "_pr"), int(probe.limit)
                check = [f"    {p}.calls += 1",
                         "    if hit is not _U:",
                         f"        {p}.hits += 1",
                         f"        if {p}.calls >= {limit}: {p}.settle()",
                         "        return hit",
                         f"    if {p}.calls >= {limit}: {p}.settle()"]
            entry = "result"
        keep = self._keep(deps, args)
        store = [f"        key = {key}",
                 *self._store(slot, None if everything else inner, entry),
                 f"        st.filled |= {1 << slot}"]
        lines = [
            f"def {fname}(st{sig}):",
            "    # a function",
            *(["    " + look] if not args else [
              "    try:",
              "        " + look,
              "    except TypeError:        # an argument that is a list: not kept, computed",
              f"        return _game.body_function({self.lit(name)})(st{sig})"]),
            *check,
            *(["    env = None"] if "env" in names_in(result) else []),
            "    " + memo.reset(),
            f"    result = {result}",
            *([f"    if {keep[len(' and '):]}:"] + store if keep else [line[4:] for line in store]),
            "    return result",
        ]
        if name in self.game.fn_recursive:
            lines[2:2] = self.budget_lines(name, "    ").rstrip("\n").split("\n")
        memo.finish()
        return self.exec_source(fname, "\n".join(lines) + "\n")

    @staticmethod
    def _store(slot, inner, entry) -> list:
        """The lines that keep `result` in the cache of `slot`.  After a
        clone the caches are shared until one of the two writes (a cache is
        copied first, Table.own_cache); a two-level cache's inner dicts stay
        shared after that copy, so such a state writes a new inner dict.  A
        state never cloned (`st.owned_caches is None`: every cache its own, inner
        dicts too) adds to its inner dict in place: no copy of it each time."""
        mine = f"(st.cache[{slot}] if st.owned_caches is None or {slot} in st.owned_caches else st.own_cache({slot}))"
        if inner is None:
            return [f"        {mine}[key] = {entry}"]
        return ["        if st.owned_caches is None:",
                f"            cache = st.cache[{slot}]",
                "            hit = cache.get(key)",
                "            if hit is None:",
                f"                cache[key] = {{{inner}: result}}",
                "            else:",
                f"                hit[{inner}] = result",
                "        else:",
                f"            cache = {mine}",
                f"            cache[key] = {{**cache.get(key, _E), {inner}: result}}"]

    def _keep(self, deps, args) -> str:
        """The condition, beyond a key, for keeping an entry: an argument
        read as a cell is a cell (a string), one read for its printed cell a
        card (an int).  A change forgets entries by those (Table.forget_cell);
        with an argument of another kind the function is computed each time."""
        tests = []
        for d in sorted(deps):
            if d.startswith(CELLS):
                w = cell_watch(0, json.loads(d[len(CELLS):].split("|", 1)[1]))
                if w.arg >= 0:
                    test = f"type({args[w.arg]}) is {'int' if w.printed else '_str'}"
                    if test not in tests:
                        tests.append(test)
        return "".join(" and " + t for t in tests)

    @contextmanager
    def typed_params(self, fn, args):
        """Writing the body of content function `fn`, whose parameters are
        the names `args`: those the compiler typed `cell` (its signature,
        `Game.fn_param_types`) hold one cell or none (`one_cell`)."""
        types = self.game.fn_param_types.get(fn, ()) if fn is not None else ()
        cells = {a for a, t in zip(args, types, strict=False) if t == "cell"} - self.cell_locals
        self.cell_locals |= cells
        try:
            yield
        finally:
            self.cell_locals -= cells

    def one_cell(self, ir, text) -> bool:
        """`ir`, written `text`, holds one cell or none, never a list of
        cells, by the compiler's types: what takes either (`cards_at`) then
        needs no test at run time of which it is.  A local over the grid's
        cells or a parameter typed `cell` (`cell_locals`), a printed field
        or a counter typed `cell` (the bundle's `card_fields`, `counters`)."""
        if text in self.cell_locals:
            return True
        match ir:
            case n.Field(field=name):
                return self.game.card_field_types.get(name) == "cell"
            case n.Cctr(counter=name) | n.Pctr(counter=name):
                counter = self.game.counters["card" if isinstance(ir, n.Cctr) else "player"].get(name) or {}
                return counter.get("type") == "cell"
        return False

    @contextmanager
    def memo_of(self, memo):
        """Generate with `memo` (None: no reuse); every function has its own."""
        saved, self.memo = self.memo, memo
        try:
            yield
        finally:
            self.memo = saved

    @contextmanager
    def comprehension(self, local):
        """Inside a comprehension over `local`: a value that depends on
        `local` cannot be kept (it changes every element), but one that does
        not is loop-invariant, and is computed once for the whole loop."""
        memo = self.memo
        if memo is None or not memo.on:
            yield
            return
        memo.enter(local, opaque=True)
        try:
            yield
        finally:
            memo.leave()

    @contextmanager
    def no_memo(self):
        """Inside a comprehension or a lambda a value cannot be kept for reuse."""
        memo = self.memo
        was = memo.on if memo is not None else None
        if memo is not None:
            memo.on = False
        try:
            yield
        finally:
            if memo is not None:
                memo.on = was

    # ------------------------------------------------------------ the namespace
    def fresh(self, prefix):
        return f"{prefix}{next(self.ids)}"

    def local(self):
        return f"_l{next(self.ids)}"

    def lit(self, value) -> str:
        """`value` (a number, text, true/false, none, or a list or tuple of
        those) as an expression of generated source.  Text never enters the
        source: it is written as the name of a constant (`_s3`), which `lower`
        replaces on the syntax tree by the text itself, so no string of the
        content or the bundle is ever part of the source, whatever it holds.
        The same text is the same name throughout a game (the `Memo` and the
        blocks compare expressions by their source)."""
        if value is None or type(value) in (int, bool):
            return repr(value)
        if type(value) is str:
            name = self.texts.get(value)
            if name is None:
                name = self.texts[value] = f"_s{len(self.texts)}"
                self.text_values[name] = value
            return name
        if type(value) is list:
            return "[" + ", ".join(self.lit(v) for v in value) + "]"
        if type(value) is tuple:
            return "(" + "".join(f"{self.lit(v)}, " for v in value) + ")"
        raise BadBundle(f"not a literal: {str(value)[:40]!r}")

    def exec_source(self, name, source, origin=None, tree_pass=None):
        """Define the generated function `name` from its source, which comes
        from the IR only (see the module docstring): no string of the
        content or the bundle is ever in it (a text is a name of `lit`'s,
        made a constant on the tree by `lower`).
        A block's function marks each op with `# op N` only; `origin` (its
        Code) is the side table that says where op N is written
        (`Code.where`), for fault messages and `build --explain`.
        `tree_pass(tree)` rewrites its syntax tree before it is compiled."""
        self.sources.append((name, source))
        if origin is not None:
            self.origins[name] = origin
        filename = f"<cardc {name}>"
        # tracebacks show the generated line (a person debugging reads it)
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        # compiled with its comprehensions run as loops (lower.py): the same
        # evaluation, without a generator or a frame for each `any` or filter
        code = lower(source, filename, Placed(self.text_values, self.placed), tree_pass,
                     rewrite=not self.game.reference)
        exec(code, self.ns)  # noqa: S102
        return self.ns[name]

    def bind(self, obj, prefix="_o"):
        """A name in the generated code's namespace for a Python object."""
        key = id(obj)
        if key not in self.names:
            name = self.fresh(prefix)
            self.ns[name] = obj
            self.names[key] = (name, obj)      # keep obj alive: ids stay unique
        return self.names[key][0]

    def rebind(self, old, new):
        """The generated code calls `new` where it called `old` (a name bound
        to a Python object is looked up at each call)."""
        entry = self.names.get(id(old))
        if entry is not None:
            self.ns[entry[0]] = new

    # ------------------------------------------------------------ expressions
    def expr(self, ir, scope, depth=0) -> str:
        if not isinstance(ir, n.Expr):
            raise BadBundle(f"not an expression: {str(ir)[:40]!r}")
        text = self.kinds[ir.kind](ir, scope)
        memo = self.memo
        if memo is not None and memo.on and self._reusable(ir):
            # whether it can fail is asked only of a value hoisted out of a loop
            return memo.use(text, (lambda: harmless(ir, self.game)) if memo.pure else None)
        return text

    def _reusable(self, ir):
        """Worth computing once and reusing: a call (of a function or a builtin)
        that is pure (no randomness), so evaluating it once is exact."""
        match ir:
            case n.Fn(function=name):
                return name not in self.game.fn_impure
            case n.Call(builtin=name):
                return name != "count" and name not in RANDOM and not _mentions(ir, RANDOM, self.game.fn_impure)
        return False

    def e_lit(self, ir, scope):
        v = ir.value
        if not _plain(v):
            raise BadBundle(f"a literal must be a number, text, true/false, none or a list of "
                            f"those, not {str(v)[:40]!r}")
        return self.lit(v)

    def e_var(self, ir, scope):
        name = str(ir.name)
        if name in scope:
            return scope[name]
        if self.memo is not None and self.memo.env_reads:
            return self.memo.first(f"env[{self.lit(name)}]")
        return f"env[{self.lit(name)}]"

    def e_players(self, ir, scope):
        return "list(range(st.n))"

    def e_game(self, ir, scope):
        return "None"

    def e_zone(self, ir, scope):
        slot = self.game.shared_slot.get(ir.zone)
        if slot is None:
            raise BadBundle(f"unknown shared zone {str(ir.zone)[:40]!r}")
        return repr(slot)

    def e_pzone(self, ir, scope):
        zone = ir.zone
        if zone not in self.game.player_index:
            raise BadBundle(f"unknown player zone {str(zone)[:40]!r}")
        base, index = self.game.player_zone_base(zone)
        who = self.expr(ir.player, scope)
        if trivial(ir.player):          # cheap to read twice: the slot written in place
            return (f"({_slot_of(base, index, who)} if {who} is not None "
                    f"else _pzone(st, {base}, {index}, {who}, {self.lit(zone)}))")
        return f"_pzone(st, {base}, {index}, {who}, {self.lit(zone)})"

    def e_cards(self, ir, scope):
        return f"st.zones[{self.expr(ir.zone, scope)}]"

    def e_gctr(self, ir, scope):
        return f"st.game_counters[{self.lit(str(ir.counter))}]"

    def e_gattr(self, ir, scope):
        if ir.attr not in GATTRS:
            raise BadBundle(f"unknown game attribute {str(ir.attr)[:40]!r}")
        return "st.n" if ir.attr == "player_count" else f"st.{ir.attr}"

    def _read(self, table, index):
        """`table[index]`; in text, none for an index of none."""
        if self.text:
            return f"_read({table}, {index})"
        return f"{table}[{index}]"

    def _counters(self, kind, name):
        """The list of a player or card counter.  Read once per function
        (or op): the list object stays the same while nothing is written,
        and every counter the game declares exists in every state."""
        table = f"st.{'player_counters' if kind == 'player' else 'card_counters'}[{self.lit(name)}]"
        if self.memo is not None and name in self.game.counters.get(kind, {}):
            return self.memo.first(table)
        return table

    def e_pctr(self, ir, scope):
        return self._read(self._counters("player", str(ir.counter)), self.expr(ir.player, scope))

    def e_pattr(self, ir, scope):
        p = self.expr(ir.player, scope)
        return p if ir.attr == "seat" else f"st.player_name({p})"

    def e_cctr(self, ir, scope):
        return self._read(self._counters("card", str(ir.counter)), self.expr(ir.card, scope))

    def e_cpp(self, ir, scope):
        return (f"{self._counters('card', str(ir.counter))}[({self.expr(ir.card, scope)}) * st.n + "
                f"({self.expr(ir.player, scope)})]")

    def e_field(self, ir, scope):
        if ir.field not in self.game.card_field:
            raise BadBundle(f"unknown card field {str(ir.field)[:40]!r}")
        values = self.bind(self.game.card_field[ir.field], "_F")
        return self._read(values, self.expr(ir.card, scope))

    def e_eattr(self, ir, scope):
        return f"st.events[{self.expr(ir.event, scope)}][{self.lit(str(ir.field))}]"

    # ------------------------------------------------------------ calls
    def e_call(self, ir, scope):
        """A builtin's call: its inline form where it has one that applies
        (`cardc/engine/inline.py`), else a call of its body."""
        name, args, kwargs = ir.builtin, ir.args, ir.kwargs
        if name not in IMPL:
            raise BadBundle(f"unknown builtin {str(name)[:40]!r}")
        form = FORMS.get(name)
        if form is not None:
            text = form(self, name, args, kwargs, scope)
            if text is not None:
                return text
        impl = self.bind(IMPL[name], "_b")
        env = "env" if BUILTINS[name].env else "None"
        parts = [self.expr(a, scope) for a in args]
        return f"{impl}(st, {env}{''.join(', ' + p for p in parts)})"

    def _zone_index(self, cards, scope):
        """The cell index of a whole zone (`Cards(zone)`), found once per
        expression (hoisted out of loops when the zone does not change)."""
        slot = self.expr(cards.zone, scope)
        index = f"{self.bind(zone_index, '_b')}(st, {slot})"
        if slot.isdigit():      # a shared zone: an index already built is found without a call
            index = f"(st.zindex.get({slot}) or {index})"
        if self.memo is not None and self.memo.on:
            # a shared zone's index, where nothing moves a card while the
            # code runs, is found once at the top: it cannot fail, and a
            # loop over cells then reads it with no test of whether it is found
            index = self.memo.first(index) if self.memo.pure and slot.isdigit() else self.memo.use(index)
        return index

    def _by_cell(self, index):
        """The {cell: cards} part of a zone's index (`zone_index`).  Read in a
        loop, from an index found once at the top (`_zone_index`), it is found
        once at the top too: a name read per element, not a subscript (a
        function over `cells()` reads it once for each cell of the grid)."""
        if self.memo is not None and self.memo.on and self.memo.loops and \
                re.fullmatch(r"_k\d+", index):
            return self.memo.first(f"{index}[1]")
        return f"{index}[1]"

    def e_fn(self, ir, scope):
        name, args = ir.function, ir.args
        game = self.game
        if name not in game.fn_bodies:
            raise BadBundle(f"unknown function {str(name)[:40]!r}")
        if game.fn_simple.get(name) and name not in self._inlining and all(trivial(a) for a in args):
            # a few reads and comparisons, called with plain arguments: its
            # body in place, the arguments substituted (it is pure: exact)
            self._inlining.append(name)
            try:
                body = substitute(game.fn_bodies[name], dict(zip(game.fn_params[name], args, strict=False)))
                return f"({self.expr(body, scope)})"
            finally:
                self._inlining.pop()
        call = self.bind(game.cached_function(name), "_fn")
        return f"{call}(st{''.join(', ' + self.expr(a, scope) for a in args)})"

    # ------------------------------------------------------------ operators
    def e_bin(self, ir, scope):
        op = ir.operator
        if op not in BIN_OPS:
            raise BadBundle(f"unknown operator {str(op)[:40]!r}")
        if op in ("+", "-", "*"):
            # a left-leaning chain (a + b - c + …) written flat, not nested,
            # so long sums never reach Python's parenthesis limit
            chain, node = [], ir
            same = ("+", "-") if op in ("+", "-") else ("*",)
            while isinstance(node, n.Bin) and node.operator in same:
                chain.append((node.operator, node.right))
                node = node.left
            # a product of two or more computed numbers is checked where it
            # is made (digits_guard)
            big = op == "*" and sum(not isinstance(x, n.Lit) for x in [node] + [r for _, r in chain]) >= 2
            if len(chain) < CHAIN:
                parts = [self.expr(node, scope)]
                for o, right in reversed(chain):
                    parts.append(f"{o} {self.expr(right, scope)}")
                text = "(" + " ".join(parts) + ")"
            else:
                # a long chain: its operands as one flat tuple, folded left to
                # right (Python's own `a + b + …` nests one level per operator)
                values = [self.expr(node, scope)] + [self.expr(r, scope) for _, r in reversed(chain)]
                ops = "".join(o for o, _ in reversed(chain))
                text = f"_fold(({', '.join(values)},), {self.lit(ops)})"
            return f"_big({text})" if big else text
        a, b = self.expr(ir.left, scope), self.expr(ir.right, scope)
        return f"{'_div' if op == '/' else '_mod'}({a}, {b})"

    def e_cmp(self, ir, scope):
        op = ir.operator
        if op not in CMP_OPS:
            raise BadBundle(f"unknown comparison {str(op)[:40]!r}")
        match ir:
            case n.Cmp(operator="==" | "!=" | ">", right=n.Lit(value=0), left=n.Call(
                    builtin="count", args=[n.Call(builtin="cards_at", args=[n.Cards() as cards, where, *_])])) \
                    if trivial(where):
                # whether a cell of an indexed zone holds a card: one
                # membership test (the index keeps no cell with no card)
                index, x = self._zone_index(cards, scope), self.expr(where, scope)
                test = "not in" if op == "==" else "in"
                if self.one_cell(where, x):
                    return f"({x} {test} {self._by_cell(index)})"
                return (f"(({x} {test} {self._by_cell(index)}) if type({x}) is _str else "
                        f"(len({self.bind(cards_in, '_b')}({index}, {x})) {op} 0))")
        return f"({self.expr(ir.left, scope)} {op} {self.expr(ir.right, scope)})"

    def e_and(self, ir, scope):
        return self._chain(" and ", ir.parts, scope)

    def e_or(self, ir, scope):
        return self._chain(" or ", ir.parts, scope)

    def _chain(self, joiner, items, scope):
        parts = [self.expr(v, scope) for v in items]
        out = "(" + joiner.join(parts[:CHAIN]) + ")"
        for k in range(CHAIN, len(parts), CHAIN):
            out = "(" + out + joiner + joiner.join(parts[k:k + CHAIN]) + ")"
        return out

    def e_not(self, ir, scope):
        return f"(not {self.expr(ir.value, scope)})"

    def e_neg(self, ir, scope):
        return f"(-{self.expr(ir.value, scope)})"

    def e_if(self, ir, scope):
        return (f"({self.expr(ir.then, scope)} if {self.expr(ir.test, scope)} "
                f"else {self.expr(ir.otherwise, scope)})")

    def e_list(self, ir, scope):
        return "[" + ", ".join(self.expr(v, scope) for v in ir.items) + "]"

    def _loop_local(self, it) -> str:
        """A new local for a comprehension over `it` (noted if it holds cells)."""
        local = self.local()
        if it == CELLS_CALL and self._cells_are_text:
            self.cell_locals.add(local)
        return local

    def e_comp(self, ir, scope):
        elt, var, it, cond = ir.item, ir.var, ir.items, ir.test
        inner = {**scope, str(var): self._loop_local(it)}
        with self.no_memo():        # Python allows no `:=` in a comprehension's iterable
            source = self._iterable(it, scope)
        with self.comprehension(inner[str(var)]):
            test = f" if {self.expr(cond, inner)}" if cond else ""
            return f"[{self.expr(elt, inner)} for {inner[str(var)]} in {source}{test}]"

    def _iterable(self, ir, scope):
        """What a comprehension loops over: the players as a range (the same
        numbers in the same order, with no list made), the grid's cells as
        the game's own list (`cells()` copies it for a value that may be
        kept; a loop only reads it: the whole grid copied on each call),
        else the expression."""
        match ir:
            case n.Players():
                return "range(st.n)"
            case _ if ir == CELLS_CALL:
                return "_game.grid_cells"
            case n.Call(builtin="rivals", args=[p]) if trivial(p):
                # the seats after p, round the table, the builtin's own table
                # (it copies a row for a value that may be kept; a loop only reads it)
                who = self.expr(p, scope)
                return (f"({self.bind(rivals_table, '_b')}(st.n)[{who}] if type({who}) is int and 0 <= {who} < st.n "
                        f"else {self.bind(IMPL['rivals'], '_b')}(st, None, {who}))")
        return self.expr(ir, scope)

    def e_index(self, ir, scope):
        return f"_index({self.expr(ir.items, scope)}, {self.expr(ir.index, scope)})"

    def e_str(self, ir, scope):
        parts = [self.lit(p) if isinstance(p, str) else
                 f"_fmt({self.expr(p.value, scope)}, {self.lit(str(p.type))}, st)" for p in ir.parts]
        return f"{self.lit('')}.join((" + ", ".join(parts) + ",))"


_UNSET = object()          # a kept value not computed yet
CELLS_CALL = n.Call("cells", [], {})      # `cells()`: every cell of the grid
_NOTHING: MappingProxyType = MappingProxyType({})     # no entries (a cache keyed by one argument first)


def _reads_var(ir, name) -> bool:
    """Does expression `ir` read the local `name` anywhere inside?"""
    return any(isinstance(e, n.Var) and e.name == name for e in n.walk(ir))


def _mentions(ir, builtins, functions, items=False) -> bool:
    """Does expression `ir` (with `items`, a menu's items) call one of
    `builtins`, or one of `functions`, anywhere inside?"""
    return any((isinstance(e, n.Call) and e.builtin in builtins) or (isinstance(e, n.Fn) and e.function in functions)
               for e in (n.menu_nodes(ir) if items else n.walk(ir)))

