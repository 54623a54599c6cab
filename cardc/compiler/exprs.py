"""Check and lower expressions: typed nodes in, bundle IR (JSON lists) out.

Every expression is checked against the game's declarations and given a
type; the result is a small JSON tree (`["bin", "+", a, b]`) that the engine
turns into generated Python once, at load.  Errors are collected, never
raised, so one `cardc check` run reports every problem; a broken expression
lowers to `["lit", null]` of type `any` so checking can go on.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

from cardc.compiler import types as T
from cardc.compiler.decls import CARD_BUILTIN_FIELDS, EVENT_BUILTINS, GAME_BUILTINS, PLAYER_BUILTINS, Decls
from cardc.ir.builtins import RANDOM
from cardc.ir.jsonform import json_children
from cardc.load.diagnostics import Loc, did_you_mean

BAD = (["lit", None], T.ANY)


@dataclass
class Where:
    """Where one effect text sits, to turn node offsets into file locations."""
    text: object             # LocStr (knows its file position) or plain str
    file: str
    label: str               # e.g. "card `poach` effect"
    line: int = 1
    col: int = 1

    def loc(self, pos: int, end: int | None = None) -> Loc:
        position = getattr(self.text, "position", None)
        if position is not None:
            line, col = position(pos)
            end_col = None
            if end is not None and end > pos:
                end_line, ec = position(end)
                end_col = ec if end_line == line else None
            return Loc(self.file, line, col, end_col)
        return Loc(self.file, self.line, self.col + pos)


class Scope:
    """Local names and their types; a child scope sees its parent's names."""

    def __init__(self, names: dict | None = None, parent: Scope | None = None):
        self.names = dict(names or {})
        self.parent = parent
        self.inline: dict = {}       # name -> IR: a function's `let`, written in place of its uses

    def define_inline(self, name, ir, t):
        """A function-body `let`: its uses become its expression (functions are
        pure, so this changes nothing but the text the designer reads)."""
        self.names[name] = t
        self.inline[name] = ir

    def inline_ir(self, name):
        """(IR, the names that hide the let's own inputs on the way) for an
        inlined local, or (None, ()) for an ordinary one."""
        scope: Scope | None = self
        hidden: set[str] = set()
        while scope is not None:
            if name in scope.names:
                if name not in scope.inline:
                    return None, ()
                ir = scope.inline[name]
                return ir, sorted(hidden & _free_vars(ir))
            hidden |= set(scope.names)
            scope = scope.parent
        return None, ()

    def get(self, name):
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def child(self, names=None):
        return Scope(names, self)

    def all(self):
        out: dict = {}
        scope: Scope | None = self
        while scope is not None:
            out = {**scope.names, **out}
            scope = scope.parent
        return out


def _free_vars(ir) -> set:
    """The locals an IR expression reads (`["var", x]`) from outside it (a
    comprehension's variable is its own); a literal reads none."""
    if ir[0] == "var":
        return {ir[1]}
    if ir[0] == "comp":
        _, elt, var, items, cond = ir
        inner = _free_vars(elt) | (_free_vars(cond) if cond is not None else set())
        return _free_vars(items) | (inner - {var})
    out: set = set()
    for part in json_children(ir):
        out |= _free_vars(part)
    return out


def by_player_count(table: dict) -> list:
    """A param given per player count (`{2: 7, 3: 6, 4: 5}`, every count the
    game allows, checked by the compiler) as existing IR: the value at
    `game.player_count - lowest` in the list of values."""
    counts = sorted(int(k) for k in table)
    values = [table.get(str(k)) for k in range(counts[0], counts[-1] + 1)]     # a gap: reported by the compiler
    return ["index", ["lit", values], ["bin", "-", ["gattr", "player_count"], ["lit", counts[0]]]]


#: builtins whose result depends on the game's random state
RANDOM_BUILTINS = RANDOM


class ExprCompiler:
    def __init__(self, decls: Decls, where: Where, diags):
        self.d = decls
        self.where = where
        self.diags = diags
        # Set to a description ("a function", "a condition", "a label") while
        # compiling something whose evaluation must not draw random numbers:
        # a cached function, a condition or a label may be evaluated once,
        # twice or never depending on who looks, and a draw there would make
        # the game depend on that.
        self.no_random: str | None = None

    @contextmanager
    def without_random(self, what: str):
        outer = self.no_random
        self.no_random = outer or what
        try:
            yield
        finally:
            self.no_random = outer

    # ------------------------------------------------------------ reporting
    def error(self, node, message, hint=None):
        self.diags.error(self.where.loc(node.pos, node.end or None), message, hint)

    def expect(self, node, ir_type, wanted, what):
        ir, t = ir_type
        if wanted == "list:card" and t == T.ZONE:
            return ["cards", ir]
        if not T.fits(t, wanted):
            self.error(node, f"{what} must be {T.plain(wanted)}, but this is {T.plain(t)}")
        else:
            self.check_members(node, ir, wanted)
        return ir

    # ------------------------------------------------------------ members
    def members(self, t: str):
        """The texts a value of type `t` (an enumeration, a card id, or a
        list of either) may be; None for any other type."""
        t = T.elem(t) if t.startswith("list:") else t
        if t == T.CARD_ID:
            return sorted(i for i in self.d.card_ids if isinstance(i, str))
        if t == T.CARD_KIND:
            return list(self.d.kinds)
        if T.is_enum(t):
            return self.d.enums.get(t[5:])
        return None

    def check_members(self, node, ir, wanted: str) -> None:
        """Literal text given where `wanted` (a member, or a list of members)
        is expected, checked against the members: a misspelt card id or
        member is an error at the text, with a did-you-mean, rather than a
        comparison that is silently never true."""
        members = self.members(wanted)
        if not members:
            return
        if ir[0] == "lit" and isinstance(ir[1], list):
            texts = [v for v in ir[1] if isinstance(v, str)]
        elif ir[0] == "list":
            texts = [item[1] for item in ir[1] if item[0] == "lit" and isinstance(item[1], str)]
        elif ir[0] == "lit" and isinstance(ir[1], str):
            texts = [ir[1]]
        else:
            return
        kind = T.elem(wanted) if wanted.startswith("list:") else wanted
        for text in texts:
            if text in members:
                continue
            if kind == T.CARD_ID:
                self.error(node, f"no card has the id `{text}`", did_you_mean(text, members))
            elif kind == T.CARD_KIND:
                self.error(node, f"there is no kind `{text}` (the kinds are {', '.join(members)})",
                           did_you_mean(text, members))
            else:
                self.error(node, f"`{text}` is not a {kind[5:]} (the {kind[5:]}s are "
                           f"{', '.join(members)})", did_you_mean(text, members))

    # ------------------------------------------------------------ entry
    def expr(self, node, scope: Scope):
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            self.error(node, "this is a statement, not a value")
            return BAD
        return method(node, scope)

    def as_list(self, node, scope, what="this"):
        whole = self._whole_family(node, scope)
        if whole is not None:
            return whole, "list:card"
        ir, t = self.expr(node, scope)
        if t == T.ZONE:
            return ["cards", ir], "list:card"
        if t == T.ANY:
            return ir, T.ANY
        if not t.startswith("list:"):
            self.error(node, f"{what} must be a list or a zone, but this is {T.plain(t)}")
            return ir, "list:any"
        return ir, t

    def condition(self, node, scope, what="a condition"):
        with self.without_random("a condition"):
            ir, t = self.expr(node, scope)
        if t not in (T.BOOL, T.ANY):
            self.error(node, f"{what} must be true/false, but this is {T.plain(t)}",
                       hint="compare it, e.g. `count(x) > 0` or `x != none`")
        return ir

    # ------------------------------------------------------------ leaves
    def _Lit(self, node, scope):
        v = node.value
        if v is None:
            return ["lit", None], T.NONE
        if isinstance(v, bool):
            return ["lit", v], T.BOOL
        return ["lit", v], T.INT

    def _Str(self, node, scope):
        parts: list = []
        for part in node.parts:
            if isinstance(part, str):
                parts.append(part)
            else:
                ir, t = self.expr(part, scope)
                labels = self.d.enum_labels.get(t[5:]) if T.is_enum(t) else None
                if labels:          # a member shows as its label: "♥ Hearts", not "hearts"
                    members = self.d.enums[t[5:]]
                    ir, t = ["index", ["lit", [labels[m] for m in members] + [None]],
                             ["call", "index_of", [["lit", members], ir], {}]], T.STR
                parts.append(["fmt", ir, t])
        if all(isinstance(p, str) for p in parts):
            return ["lit", "".join(parts)], T.STR
        return ["str", parts], T.STR

    def _Name(self, node, scope):
        name = node.name
        t = scope.get(name)
        if t is not None:
            ir, hidden = scope.inline_ir(name)
            if ir is None:
                return ["var", name], t
            if hidden:
                self.error(node, f"`{name}` uses `{hidden[0]}`, but `{hidden[0]}` is another "
                           "name here (a list-building loop variable)",
                           f"rename the loop variable, e.g. `[… for {hidden[0]}2 in …]`")
            return ir, t
        if name == "players":
            return ["players"], "list:player"
        if name == "game":
            return ["game"], T.GAME
        if name in self.d.params:
            value = self.d.params[name]
            t = self.d.param_types.get(name) or (
                T.STR if isinstance(value, str) else T.BOOL if isinstance(value, bool) else T.INT)
            if isinstance(value, dict):
                return by_player_count(value), t
            return ["lit", value], t
        if name in self.d.enums:
            return ["lit", list(self.d.enums[name])], "list:enum:" + name
        fam = self.d.families.get(name)
        if fam is not None:
            if fam.owner == "player":
                self.error(node, f"`{name}` is a family of zones every player has; say whose and "
                           f"which, e.g. `me.{name}[{fam.members[0]}]`")
            else:
                self.error(node, f"`{name}` is a family of zones, one per {fam.enum}; say which, "
                           f"e.g. `{name}[{fam.members[0]}]` or `{name}[c.{fam.enum}]`")
            return BAD
        zone = self.d.zones.get(name)
        if zone is not None:
            if zone.owner == "player":
                self.error(node, f"`{name}` is a zone every player has; say whose, e.g. `me.{name}`")
                return BAD
            return ["zone", name], T.ZONE
        if name in self.d.functions:
            return ["lit", name], "fn:" + name
        if name in ("me", "this", "event", "value"):
            where = {"me": "there is no acting player here",
                     "this": "only a card's own text has `this`",
                     "event": "only a reaction has `event`",
                     "value": "only a modifier has `value`"}[name]
            self.error(node, f"`{name}` is not available here: {where}")
            return BAD
        enum = next((e for e, members in self.d.enums.items() if name in members), None)
        if enum is not None:     # a member is text: `c.colour == "green"`, not `== green`
            self.error(node, f"unknown name `{name}`", f"`{name}` is a {enum}: as a value it is text, "
                       f"in quotes: `\"{name}\"`")
            return BAD
        candidates = set(scope.all()) | self.d.all_names()
        hint = did_you_mean(name, sorted(candidates))
        self.error(node, f"unknown name `{name}`", hint)
        return BAD

    # ------------------------------------------------------------ fields
    def _Attr(self, node, scope):
        obj_ir, t = self.expr(node.obj, scope)
        name = node.name
        if t == T.ANY:
            return ["lit", None], T.ANY
        if t == T.PLAYER:
            if name in self.d.player_counters:
                return ["pctr", name, obj_ir], self.d.player_counters[name].type
            if name in self.d.zones:
                if self.d.zones[name].owner != "player":
                    self.error(node, f"`{name}` is a shared zone: write `{name}`, not `x.{name}`")
                    return BAD
                return ["pzone", name, obj_ir], T.ZONE
            if name in PLAYER_BUILTINS:
                return ["pattr", name, obj_ir], PLAYER_BUILTINS[name]
            if name in self.d.families and self.d.families[name].owner == "player":
                fam = self.d.families[name]
                self.error(node, f"`{name}` is a family of zones, one per {fam.enum}; say which, "
                           f"e.g. `p.{name}[{fam.members[0]}]`")
                return BAD
            options = (set(self.d.player_counters) | set(PLAYER_BUILTINS) | {
                z for z in self.d.player_zones() if "[" not in z}
                | {f for f, z in self.d.families.items() if z.owner == "player"})
            return self._unknown(node, name, "a player", options)
        if t == T.CARD:
            if name in CARD_BUILTIN_FIELDS:
                return ["field", name, obj_ir], CARD_BUILTIN_FIELDS[name]
            if name in self.d.card_fields:
                return ["field", name, obj_ir], self.d.card_fields[name]
            if name in self.d.card_counters:
                c = self.d.card_counters[name]
                if c.per_player:
                    return ["cctr", name, obj_ir], "perplayer:" + c.type
                return ["cctr", name, obj_ir], c.type
            if name == "owner":
                return ["call", "owner_of", [obj_ir], {}], T.PLAYER
            options = set(CARD_BUILTIN_FIELDS) | set(self.d.card_fields) | set(self.d.card_counters) | {"owner"}
            return self._unknown(node, name, "a card", options)
        if t == T.GAME:
            if name in self.d.game_counters:
                return ["gctr", name], self.d.game_counters[name].type
            if name in GAME_BUILTINS:
                return ["gattr", name], GAME_BUILTINS[name]
            return self._unknown(node, name, "the game", set(self.d.game_counters) | set(GAME_BUILTINS))
        if T.is_event(t):
            tag = t[6:]
            fields = self.d.windows.get(tag, {}).get("fields", {})
            if name in fields:
                return ["eattr", name, obj_ir], fields[name]
            if name in EVENT_BUILTINS:
                return ["eattr", name, obj_ir], EVENT_BUILTINS[name]
            return self._unknown(node, name, f"a `{tag}` event", set(fields) | set(EVENT_BUILTINS))
        self.error(node, f"{T.plain(t)} has no fields (`.{name}`)")
        return BAD

    def _unknown(self, node, name, what, options):
        self.error(node, f"{what} has no field `{name}`", did_you_mean(name, sorted(options)))
        return BAD

    def _family(self, node, scope):
        """The family of zones `node.obj` names (`discard`, `p.expedition`),
        with the IR of its owner for a player family; None if it names none."""
        obj = node.obj
        if type(obj).__name__ == "Name" and scope.get(obj.name) is None:
            fam = self.d.families.get(obj.name)
            if fam is not None and fam.owner == "shared":
                return fam, None
        if type(obj).__name__ == "Attr":
            fam = self.d.families.get(obj.name)
            if fam is not None and fam.owner == "player":
                who = self.expect(obj.obj, self.expr(obj.obj, scope), T.PLAYER, "whose zone")
                return fam, who
        return None

    def _whole_family(self, node, scope):
        """Where a list of cards is read (`for c in me.column`, `count(discard)`,
        `x in p.column`), a zone family named without a member is all its
        zones' cards, member by member; elsewhere (a move's destination) it
        still needs its member.  None if `node` names no family."""
        kind = type(node).__name__
        if kind == "Name" and scope.get(node.name) is None:
            fam = self.d.families.get(node.name)
            if fam is not None and fam.owner == "shared":
                return self._join([["cards", ["zone", fam.zone_id(m)]] for m in fam.members])
        if kind == "Attr":
            fam = self.d.families.get(node.name)
            if fam is not None and fam.owner == "player":
                obj_ir, t = self.expr(node.obj, scope)
                if t in (T.PLAYER, T.ANY):
                    return self._join([["cards", ["pzone", fam.zone_id(m), obj_ir]] for m in fam.members])
        return None

    @staticmethod
    def _join(parts):
        out = parts[0]
        for part in parts[1:]:
            out = ["bin", "+", out, part]
        return out

    def _family_zone(self, node, scope, fam, who):
        """`discard[red]`, `discard["red"]` or `discard[c.colour]`: a literal
        member names its zone at compile time; any other text picks it as
        the game runs (text that is no member gives none, a fault when used)."""
        def zone(member):
            zid = fam.zone_id(member)
            return ["zone", zid] if who is None else ["pzone", zid, who]
        index = node.index
        member = None
        if type(index).__name__ == "Name" and scope.get(index.name) is None and \
                index.name not in self.d.params:
            member = index.name
        elif type(index).__name__ == "Str" and all(isinstance(p, str) for p in index.parts):
            member = "".join(index.parts)
        if member is not None:
            if member not in fam.members:
                self.error(index, f"`{member}` is not a {fam.enum} (the {fam.enum}s are "
                           f"{', '.join(fam.members)})", did_you_mean(member, fam.members))
                return BAD
            return zone(member), T.ZONE
        ir, t = self.expr(index, scope)
        if not (T.fits(t, "enum:" + fam.enum) and (t in (T.STR, T.ANY) or t == "enum:" + fam.enum)):
            self.error(index, f"`{fam.id}` is indexed by a {fam.enum}, not {T.plain(t)}")
            return BAD
        table = ["list", [zone(m) for m in fam.members] + [["lit", None]]]
        return ["index", table, ["call", "index_of", [["lit", list(fam.members)], ir], {}]], T.ZONE

    def _Index(self, node, scope):
        family = self._family(node, scope)
        if family is not None:
            return self._family_zone(node, scope, *family)
        obj_ir, t = self.expr(node.obj, scope)
        if t.startswith("perplayer:"):
            p = self.expect(node.index, self.expr(node.index, scope), T.PLAYER, "the index")
            if obj_ir[0] == "cctr":
                return ["cpp", obj_ir[1], obj_ir[2], p], t.split(":", 1)[1]
        if t == T.ZONE or t.startswith("list:") or t == T.ANY:
            if t == T.ZONE:
                obj_ir, t = ["cards", obj_ir], "list:card"
            i = self.expect(node.index, self.expr(node.index, scope), T.INT, "a list index")
            return ["index", obj_ir, i], T.elem(t)
        self.error(node, f"{T.plain(t)} cannot be indexed with [ ]")
        return BAD

    # ------------------------------------------------------------ operators
    def _BinOp(self, node, scope):
        lir, lt = self.expr(node.left, scope)
        rir, rt = self.expr(node.right, scope)
        if node.op == "+" and (T.is_list(lt) or T.is_list(rt)) and T.ANY not in (lt, rt):
            if lt == T.ZONE:
                lir, lt = ["cards", lir], "list:card"
            if rt == T.ZONE:
                rir, rt = ["cards", rir], "list:card"
            joined = T.join(lt, rt)
            if not joined:
                self.error(node, f"cannot join {T.plain(lt)} and {T.plain(rt)}")
                return BAD
            return ["bin", "+", lir, rir], joined
        if node.op == "+" and T.is_text(lt) and T.is_text(rt):
            return ["bin", "+", lir, rir], T.STR
        for sub, t in ((node.left, lt), (node.right, rt)):
            if t not in (T.INT, T.ANY):
                self.error(sub, f"`{node.op}` needs numbers, but this is {T.plain(t)}")
                return BAD
        return ["bin", node.op, lir, rir], T.INT

    def _Neg(self, node, scope):
        ir = self.expect(node.value, self.expr(node.value, scope), T.INT, "a negated value")
        return ["neg", ir], T.INT

    def _Compare(self, node, scope):
        lir, lt = self.expr(node.left, scope)
        if node.op in ("in", "not in"):
            rir, rt = self.as_list(node.right, scope, "the right side of `in`")
            if not T.fits(lt, T.elem(rt)) and lt != T.NONE:
                self.error(node.left, f"{T.plain(lt)} can never be in {T.plain(rt)}")
            elif T.is_enum(lt):
                self.check_members(node.right, rir, T.list_of(lt))
            else:
                self.check_members(node.left, lir, T.elem(rt))
            return ["cmp", node.op, lir, rir], T.BOOL
        rir, rt = self.expr(node.right, scope)
        if node.op in ("==", "!="):
            if not (T.fits(lt, rt) or T.fits(rt, lt)):
                self.error(node, f"comparing {T.plain(lt)} with {T.plain(rt)} is always "
                           f"{'false' if node.op == '==' else 'true'}")
            else:
                self.check_members(node, rir, lt)
                self.check_members(node, lir, rt)
            return ["cmp", node.op, lir, rir], T.BOOL
        for sub, t in ((node.left, lt), (node.right, rt)):
            if t not in (T.INT, T.ANY):
                self.error(sub, f"`{node.op}` compares numbers, but this is {T.plain(t)}")
        return ["cmp", node.op, lir, rir], T.BOOL

    def _BoolOp(self, node, scope):
        irs = [self.condition(v, scope, f"each side of `{node.op}`") for v in node.values]
        return [node.op, irs], T.BOOL

    def _Not(self, node, scope):
        return ["not", self.condition(node.value, scope, "the value after `not`")], T.BOOL

    def _IfExpr(self, node, scope):
        c = self.condition(node.cond, scope)
        a, at = self.expr(node.then, scope)
        b, bt = self.expr(node.other, scope)
        t = T.join(at, bt)
        if not t:
            self.error(node, f"both sides of `if … else` must have one type: {T.plain(at)} vs {T.plain(bt)}")
            t = T.ANY
        return ["if", c, a, b], t

    def _ListLit(self, node, scope):
        irs, t = [], T.NONE
        for item in node.items:
            ir, it = self.expr(item, scope)
            joined = T.join(t, it)
            if not joined:
                self.error(item, f"a list holds one type: {T.plain(it)} among {T.plain(t)}s")
                joined = T.ANY
            t = joined
            irs.append(ir)
        return ["list", irs], T.list_of(t if t != T.NONE else T.ANY)

    def _ListComp(self, node, scope):
        it_ir, it_t = self.as_list(node.iter, scope, "the list after `in`")
        inner = scope.child({node.var: T.elem(it_t)})
        elt, elt_t = self.expr(node.elt, inner)
        cond = self.condition(node.cond, inner, "the filter after `if`") if node.cond else None
        return ["comp", elt, node.var, it_ir, cond], T.list_of(elt_t)

    # ------------------------------------------------------------ calls
    def _Call(self, node, scope):
        from cardc.compiler.builtins import BUILTINS
        name = node.name
        if name in self.d.functions:
            sig = self.d.functions[name]
            args = self._args(node, scope, sig)
            return ["fn", name, args], sig.returns or T.ANY
        if name in self.d.procs:
            if self.d.procs[name].returns is not None:
                self.error(node, f"`{name}` is a procedure: take its value on a line of its own, "
                           f"`let x = {name}(…)`, then use `x`")
            else:
                self.error(node, f"`{name}` is a procedure: call it as a statement on its own line, "
                           "not inside an expression")
            return BAD
        builtin = BUILTINS.get(name)
        if name in RANDOM_BUILTINS and self.no_random:
            self.error(node, f"`{name}` draws random numbers, which {self.no_random} may not: it may be "
                       "evaluated any number of times (or never), and the game would depend on that",
                       "draw in a statement (`let order = shuffled_order(…)`) and use the result")
        if builtin is None:
            options = set(BUILTINS) | set(self.d.functions) | set(self.d.procs)
            self.error(node, f"unknown function `{name}`", did_you_mean(name, sorted(options)))
            return BAD
        return builtin(self, node, scope)

    def _args(self, node, scope, sig):
        """Positional arguments of a function or proc call, checked against its params."""
        params = list(sig.params.items())
        if node.kwargs:
            self.error(node, f"`{sig.name}` takes its arguments by position")
        if len(node.args) != len(params):
            self.error(node, f"`{sig.name}` takes {len(params)} argument"
                       f"{'s' if len(params) != 1 else ''} ({', '.join(p for p, _ in params)}), "
                       f"got {len(node.args)}")
            return [["lit", None]] * len(params)
        return [self.expect(a, self.expr(a, scope), t, f"argument `{p}` of `{sig.name}`")
                for a, (p, t) in zip(node.args, params, strict=False)]
