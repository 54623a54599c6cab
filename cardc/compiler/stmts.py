"""Check and lower statement blocks into flat op lists with jumps.

A block becomes `{"ops": [...], "src": [[line, col], ...], "file": ...}`.
Control flow is lowered to jumps so that the engine can keep its place in a
block as a plain number (the frame's `pc`): that is what lets a game be saved
in the middle of an effect, inside a choice or a reaction window, and resumed.
"""
from __future__ import annotations

import re

from cardc.compiler import types as T
from cardc.compiler.exprs import ExprCompiler, Scope, Where
from cardc.dsl import nodes as n
from cardc.dsl.parser import STATEMENT_WORDS, DslError, parse_block, parse_expr
from cardc.ir.content_limits import MAX_NESTING, MAX_REPEAT
from cardc.load.diagnostics import Loc


class BlockCompiler(ExprCompiler):
    def __init__(self, decls, where: Where, diags, flags=(), proc=None):
        super().__init__(decls, where, diags)
        self.proc = proc             # the procedure's Signature, when this is one's body
        self.ops: list = []
        self.src: list = []
        self.loops: list = []        # stack of lists of break-jump op indexes
        self.slots = 0
        self.flags = set(flags)
        self.local_types: dict = {}      # every local of the block and its type (see card_locals)

    # ------------------------------------------------------------ emitting
    def emit(self, node, op) -> int:
        self.ops.append(op)
        loc = self.where.loc(node.pos) if node is not None else None
        self.src.append([loc.line, loc.col] if loc else [0, 0])
        return len(self.ops) - 1

    def slot(self) -> str:
        self.slots += 1
        return f"${self.slots}"

    def here(self) -> int:
        return len(self.ops)

    def code(self, label, params=()):
        out = {"label": label, "file": self.where.file, "params": list(params),
               "ops": self.ops, "src": self.src}
        cards = self.card_locals()
        if cards:
            out["cards"] = cards
        return out

    def note_local(self, name, t):
        if t not in (T.ANY, T.NONE, None):
            self.local_types[name] = t

    def card_locals(self) -> dict:
        """The locals that hold cards, and how: `card`, `list` (of cards),
        `iter` (a `for` loop's own slot over cards: [items, next index]), or
        the names of an event's card fields.  Search agents need this to
        imagine a game: a local naming a card the seat cannot see must name
        the imagined card in that place, not the real one."""
        out: dict[str, str | list[str]] = {}
        for name, t in sorted(self.local_types.items()):
            if t == T.CARD:
                out[name] = "card"
            elif t == "list:card":
                out[name] = "list"
            elif t == "iter:card":
                out[name] = "iter"
            elif T.is_event(t):
                fields = (self.d.windows.get(t[6:]) or {}).get("fields", {})
                cards = sorted(f for f, ft in fields.items() if ft == T.CARD)
                if cards:
                    out[name] = cards
        return out

    # ------------------------------------------------------------ blocks
    def block(self, stmts, scope: Scope):
        for stmt in stmts:
            method = getattr(self, "_s_" + type(stmt).__name__, None)
            if method is None:
                self.error(stmt, "this cannot stand as a statement")
                continue
            method(stmt, scope)

    def _s_Pass(self, s, scope):
        pass

    def _s_Let(self, s, scope):
        ir, t = self.rhs(s.value, scope, s.name)
        if s.name in self.d.params or s.name in ("me", "this", "event", "players", "game"):
            self.error(s, f"`{s.name}` is a reserved name or a param; choose another local name")
        old = scope.names.get(s.name)
        if old is not None and T.join(old, t) in ("", None):
            self.error(s, f"`{s.name}` was {T.plain(old)}; a local keeps one type")
        scope.names[s.name] = t if t != T.NONE else T.ANY
        self.note_local(s.name, t)
        if ir is not None:
            self.emit(s, ["let", s.name, ir])

    def rhs(self, value, scope, var):
        """A right-hand side: an expression, or a choice that binds `var`."""
        if isinstance(value, n.Choose):
            return self.choose(value, scope, var)
        if isinstance(value, n.Random):
            items, t = self.as_list(value.iter, scope)
            where = self._where(value.var, t, value.where, scope)
            self.emit(value, ["random", var, items, value.var, where])
            return None, T.elem(t)
        if isinstance(value, n.Ask):
            asked = self.expr(value.player, scope)
            if asked[1].startswith("list:") and T.fits(asked[1], "list:player"):
                return self.ask_each(value, asked, scope, var)
            if not T.fits(asked[1], T.PLAYER):
                self.error(value.player, "who is asked must be a player (a yes/no question) or a list "
                           f"of players (the first to say yes), not {T.plain(asked[1])}")
            p = asked[0]
            prompt = self.label(value.prompt, scope)
            self.emit(value, ["ask", var, p, prompt])
            return None, T.BOOL
        if isinstance(value, n.Window):
            return self.window(value, scope, var)
        if self.returning_call(value):
            return self.call_for_value(value, scope)
        return self.expr(value, scope)

    def returning_call(self, value) -> bool:
        return isinstance(value, n.Call) and value.name in self.d.procs

    def call_for_value(self, call, scope):
        """`let x = name(…)` of a procedure with `returns`: the call, then its
        value, read from the procedure's result counter (set to none first,
        so that one that ends without `return v` gives none)."""
        sig = self.d.procs[call.name]
        if sig.returns is None:
            self.error(call, f"procedure `{call.name}` gives back no value",
                       "declare `returns: TYPE` for it in rules.yaml and end it with `return VALUE`, "
                       "or call it on a line of its own")
            self._s_ExprStmt(n.ExprStmt(call, pos=call.pos, end=call.end), scope)
            return None, T.ANY
        self.emit(call, ["set", ["gctr", sig.result], "=", ["lit", None]])
        self.emit(call, ["call", call.name, self._args(call, scope, sig)])
        return ["gctr", sig.result], sig.returns

    def ask_each(self, ask, asked, scope, var):
        """`let who = ask rivals(me) "Challenge?"`: a window any listed player
        may answer, holding no card.  Each is asked in the list's order; the
        first to say yes settles it and is the value (none if nobody does).
        Lowered to the statements a designer would write for it (a `for`
        over the players with an `ask` and a `break`), with names no
        designer can write."""
        players, each, answer = self.slot(), self.slot(), self.slot()
        self.emit(ask, ["let", players, asked[0]])
        self.emit(ask, ["let", var, ["lit", None]])
        at = {"pos": ask.pos, "end": ask.end}
        loop = n.For(each, n.Name(players, **at), [
            n.Let(answer, n.Ask(n.Name(each, **at), ask.prompt, **at), **at),
            n.If([(n.Name(answer, **at), [n.Assign(n.Name(var, **at), "=", n.Name(each, **at), **at),
                                          n.Break(**at)])], None, **at)], **at)
        self._s_For(loop, scope.child({players: asked[1], var: T.PLAYER}))
        return None, T.PLAYER

    def _where(self, var, list_type, where, scope):
        if where is None:
            return None
        return self.condition(where, scope.child({var: T.elem(list_type)}), "the `where` filter")

    def choose(self, c: n.Choose, scope, var):
        items, t = self.as_list(c.iter, scope)
        where = self._where(c.var, t, c.where, scope)
        by = self._by(c.by, scope)
        prompt = self.label(c.prompt, scope)
        self.emit(c, ["choose", var, items, c.var, where, by, c.optional, prompt, T.elem(t)])
        return None, T.elem(t)

    def _by(self, by, scope):
        if by is None:
            if scope.get("me") is None:
                self.error_at_block("there is no acting player here: say `by <player>`")
            return ["var", "me"]
        return self.expect(by, self.expr(by, scope), T.PLAYER, "the chooser after `by`")

    def error_at_block(self, message):
        self.diags.error(self.where.loc(0), message)

    def window(self, w: n.Window, scope, var):
        decl = self.d.windows.get(w.tag)
        if decl is None:
            from cardc.load.diagnostics import did_you_mean
            self.error(w, f"unknown window `{w.tag}`; declare it under `windows:` in game.yaml",
                       did_you_mean(w.tag, sorted(self.d.windows)))
            return None, T.ANY
        players, pt = self.expr(w.players, scope)
        if pt == T.PLAYER:
            players = ["list", [players]]
        elif not T.fits(pt, "list:player"):
            self.error(w.players, f"a window is for a player or a list of players, not {T.plain(pt)}")
        fields = {}
        declared = decl.get("fields", {})
        for name, value in w.fields.items():
            if name not in declared:
                from cardc.load.diagnostics import did_you_mean
                self.error(value, f"window `{w.tag}` has no field `{name}`",
                           did_you_mean(name, sorted(declared)))
                continue
            fields[name] = self.expect(value, self.expr(value, scope), declared[name], f"field `{name}`")
        for name in declared:
            fields.setdefault(name, ["lit", None])
        self.emit(w, ["window", var, w.tag, players, fields])
        return None, "event:" + w.tag

    def _s_Assign(self, s, scope):
        target = s.target
        if isinstance(target, n.Name):
            t = scope.get(target.name)
            if t is None:
                if target.name in self.d.params:
                    self.error(target, f"`{target.name}` is a param (a fixed number); "
                               "params cannot change during play")
                else:
                    self.error(target, f"unknown local `{target.name}`; declare it first with `let`")
                return
            if s.op != "=":
                if t not in (T.INT, T.ANY):
                    self.error(s, f"`{s.op}` needs a number, but `{target.name}` is {T.plain(t)}")
                val = self.expect(s.value, self.expr(s.value, scope), T.INT, "the amount")
                self.emit(s, ["let", target.name, ["bin", s.op[0], ["var", target.name], val]])
                return
            ir, vt = self.rhs(s.value, scope, target.name)
            if ir is not None:
                if not T.fits(vt, t) and t != T.ANY:
                    self.error(s.value, f"`{target.name}` holds {T.plain(t)}, not {T.plain(vt)}")
                self.emit(s, ["let", target.name, ir])
            return
        tir, tt = self.expr(target, scope)
        if not tir or tir[0] not in ("gctr", "pctr", "cctr", "cpp"):
            if tir and tir[0] == "gattr" and target.name in ("turn_player", "first_player"):
                pass
            elif [tir, tt] == [["lit", None], T.ANY]:
                return          # a misspelt counter: said once, by the expression (with did-you-mean)
            else:
                self.error(target, "only counters (player, game or card) and locals can be set")
                return
        if isinstance(s.value, (n.Choose, n.Random, n.Ask, n.Window)) or self.returning_call(s.value):
            tmp = self.slot()
            vir, vt = self.rhs(s.value, scope, tmp)
            self.note_local(tmp, vt)
            vir = ["var", tmp]
        else:
            vir, vt = self.expr(s.value, scope)
        if s.op != "=":
            if tt not in (T.INT, T.ANY):
                self.error(s, f"`{s.op}` needs a number counter, but this is {T.plain(tt)}")
            if vt not in (T.INT, T.ANY):
                self.error(s.value, f"the amount must be a number, not {T.plain(vt)}")
        elif not T.fits(vt, tt):
            self.error(s.value, f"this counter holds {T.plain(tt)}, not {T.plain(vt)}")
        else:
            self.check_members(s.value, vir, tt)        # `game.led = "gren"` for a `colour` counter
        self.emit(s, ["set", tir, s.op, vir])

    def _s_ExprStmt(self, s, scope):
        e = s.expr
        if isinstance(e, n.Call) and e.name in self.d.procs:
            sig = self.d.procs[e.name]
            args = self._args(e, scope, sig)
            self.emit(s, ["call", e.name, args])
            return
        if isinstance(e, n.Call) and e.name in self.d.functions:
            self.error(s, f"`{e.name}` is a function: it computes a value and does nothing on its own line",
                       "use it in an expression, e.g. `let x = …`")
            return
        if isinstance(e, n.Call):
            from cardc.compiler.builtins import BUILTINS
            from cardc.load.diagnostics import did_you_mean
            if e.name in BUILTINS:
                self.error(s, f"`{e.name}` computes a value and does nothing on its own line")
            else:
                self.error(e, f"unknown procedure `{e.name}`",
                           did_you_mean(e.name, sorted(set(self.d.procs) | set(self.d.functions))))
            return
        self.error(s, "this value does nothing on its own line",
                   "did you mean `let x = …`, or to call a procedure?")

    def _s_Move(self, s, scope):
        cir, ct = self.expr(s.cards, scope)
        is_list = ct != T.CARD
        if ct == T.ZONE:
            cir = ["cards", cir]
        elif ct not in (T.CARD, T.ANY) and not T.fits(ct, "list:card"):
            self.error(s.cards, f"`move` moves a card or a list of cards, not {T.plain(ct)}")
        zir = self.expect(s.zone, self.expr(s.zone, scope), T.ZONE, "the destination")
        self.emit(s, ["move", cir, zir, s.place, is_list])

    def _s_Shuffle(self, s, scope):
        self.emit(s, ["shuffle", self.expect(s.zone, self.expr(s.zone, scope), T.ZONE, "what is shuffled")])

    def _s_Attach(self, s, scope):
        c = self.expect(s.card, self.expr(s.card, scope), T.CARD, "the attached card")
        h = self.expect(s.host, self.expr(s.host, scope), T.CARD, "the host card")
        self.emit(s, ["attach", c, h])

    def _s_Detach(self, s, scope):
        self.emit(s, ["detach", self.expect(s.card, self.expr(s.card, scope), T.CARD, "the card")])

    def _s_Reveal(self, s, scope):
        cir, ct = self.expr(s.cards, scope)
        if ct == T.CARD:
            cir = ["list", [cir]]
        elif ct == T.ZONE:
            cir = ["cards", cir]
        elif not T.fits(ct, "list:card"):
            self.error(s.cards, f"`reveal` shows cards, not {T.plain(ct)}")
        pir, pt = self.expr(s.to, scope)
        if pt == T.PLAYER:
            pir = ["list", [pir]]
        elif not T.fits(pt, "list:player"):
            self.error(s.to, f"`reveal … to` needs a player or players, not {T.plain(pt)}")
        self.emit(s, ["reveal", cir, pir])

    def _s_Break(self, s, scope):
        if not self.loops:
            self.error(s, "`break` outside a loop")
            return
        self.loops[-1].append(self.emit(s, ["jump", None]))

    def _s_Return(self, s, scope):
        returns = self.proc.returns if self.proc is not None else None
        if s.value is not None and returns is None:
            if self.proc is None:
                self.error(s.value, "only a procedure gives back a value with `return`",
                           "compute values with a function, or move this into a procedure with "
                           "`returns: TYPE` in rules.yaml")
            else:
                self.error(s.value, f"procedure `{self.proc.name}` gives back no value",
                           f"declare `returns: TYPE` for `{self.proc.name}` in rules.yaml")
        elif s.value is not None:
            ir = self.expect(s.value, self.rhs_value(s.value, scope), returns, "the value returned")
            self.emit(s, ["set", ["gctr", self.proc.result], "=", ir])
        elif returns is not None:
            self.error(s, f"procedure `{self.proc.name}` gives back {T.plain(returns)}: "
                       "`return VALUE`")
        self.emit(s, ["return"])

    def rhs_value(self, value, scope):
        """A value that may be another procedure's (`return other(…)`)."""
        if self.returning_call(value):
            tmp = self.slot()
            ir, t = self.call_for_value(value, scope)
            self.note_local(tmp, t)
            self.emit(value, ["let", tmp, ir])
            return ["var", tmp], t
        return self.expr(value, scope)

    def label(self, node, scope):
        """A prompt, a label or a log line: text built only when someone reads it."""
        if node is None:
            return None
        with self.without_random("a label"):
            return self.expr(node, scope)[0]

    def _s_Log(self, s, scope):
        self.emit(s, ["log", self.label(s.message, scope)])

    def _s_Resolve(self, s, scope):
        self.emit(s, ["resolve", self.expect(s.card, self.expr(s.card, scope), T.CARD, "what is resolved")])

    def _s_Trigger(self, s, scope):
        decl = self.d.events.get(s.event)
        if decl is None:
            from cardc.load.diagnostics import did_you_mean
            self.error(s, f"unknown event `{s.event}`; declare it under `events:` in game.yaml",
                       did_you_mean(s.event, sorted(self.d.events)))
            return
        args = {}
        for k, v in s.args.items():
            if k not in decl:
                self.error(v, f"event `{s.event}` has no argument `{k}`")
                continue
            args[k] = self.expect(v, self.expr(v, scope), decl[k], f"argument `{k}`")
        for k in decl:
            args.setdefault(k, ["lit", None])
        self.emit(s, ["trigger", s.event, args])

    def _s_EndGame(self, s, scope):
        w = None
        if s.winners is not None:
            w, wt = self.expr(s.winners, scope)
            if wt == T.PLAYER:
                w = ["list", [w]]
            elif not T.fits(wt, "list:player"):
                self.error(s.winners, f"winners must be players, not {T.plain(wt)}")
        self.emit(s, ["end", w])

    def _s_Assert(self, s, scope):
        self.emit(s, ["assert", self.condition(s.cond, scope), self.expr(s.message, scope)[0]])

    def _s_Cancel(self, s, scope):
        ir, t = self.expr(s.event, scope)
        if not (T.is_event(t) or t == T.ANY):
            self.error(s.event, f"`cancel` cancels a window's event, not {T.plain(t)}")
        self.emit(s, ["cancel", ir])

    # ------------------------------------------------------------ control flow
    def _s_If(self, s, scope):
        ends = []
        for i, (cond, body) in enumerate(s.branches):
            c = self.condition(cond, scope)
            jf = self.emit(cond, ["jf", c, None])
            self.block(body, scope.child())
            if s.other or i < len(s.branches) - 1:      # the last branch just falls through
                ends.append(self.emit(None, ["jump", None]))
            self.ops[jf][2] = self.here()
        if s.other:
            self.block(s.other, scope.child())
        for j in ends:
            self.ops[j][1] = self.here()

    def _loop(self, s, scope, head_pc, names, body, exit_patch):
        self.loops.append([])
        self.block(body, scope.child(names))
        self.emit(None, ["jump", head_pc])
        end = self.here()
        for j in self.loops.pop():
            self.ops[j][1] = end
        exit_patch(end)

    def _s_For(self, s, scope):
        items, t = self.as_list(s.iter, scope, "the list after `in`")
        slot = self.slot()
        self.note_local(s.var, T.elem(t))
        if T.elem(t) == T.CARD:
            self.note_local(slot, "iter:card")
        self.emit(s, ["iter", slot, items])
        head = self.emit(s, ["next", slot, s.var, None])
        self._loop(s, scope, head, {s.var: T.elem(t)}, s.body,
                   lambda end: self.ops[head].__setitem__(3, end))

    def _s_Repeat(self, s, scope):
        count = self.expect(s.count, self.expr(s.count, scope), T.INT, "the number of repeats")
        if count and count[0] == "lit" and isinstance(count[1], int) and count[1] > MAX_REPEAT:
            self.error(s.count, f"`repeat {count[1]:,}` is over the limit of {MAX_REPEAT:,} repeats",
                       "a loop that long is a mistake or needs a `while` with a condition")
        slot = self.slot()
        self.emit(s, ["repeat", slot, count])
        head = self.emit(s, ["countdown", slot, None])
        self._loop(s, scope, head, {}, s.body, lambda end: self.ops[head].__setitem__(2, end))

    def _s_While(self, s, scope):
        slot = self.slot()
        self.emit(s, ["let", slot, ["lit", 0]])
        head = self.emit(s, ["guard", slot])
        jf = self.emit(s, ["jf", self.condition(s.cond, scope), None])
        self._loop(s, scope, head, {}, s.body, lambda end: self.ops[jf].__setitem__(2, end))

    def _s_Phase(self, s, scope):
        for hook in ("enter_" + s.name,):
            if hook in self.d.events:
                self.emit(s, ["trigger", hook, {k: ["lit", None] for k in self.d.events[hook]}])
        self.emit(s, ["phase", s.name])
        self.block(s.body, scope.child())
        if "exit_" + s.name in self.d.events:
            self.emit(s, ["trigger", "exit_" + s.name,
                          {k: ["lit", None] for k in self.d.events["exit_" + s.name]}])

    def _s_Menu(self, s, scope):
        by = self._by(s.by, scope)
        prompt = self.label(s.prompt, scope)
        menu = self.emit(s, ["menu", by, prompt, None, None])
        ends: list = []
        items = self._menu_items(s.items, scope, ends)
        if not items:
            self.error(s, "a menu needs at least one `option`")
        end = self.here()
        for j in ends:
            self.ops[j][1] = end
        self.ops[menu][3] = items
        self.ops[menu][4] = end

    def _menu_items(self, items, scope, ends):
        out = []
        for item in items:
            if isinstance(item, n.MenuOption):
                label = self.label(item.label, scope)
                cond = self.condition(item.cond, scope, "an option's condition") if item.cond else None
                reason = self.label(item.reason, scope)
                pc = self.here()
                self.block(item.body, scope.child())
                ends.append(self.emit(None, ["jump", None]))
                out.append(["opt", label, cond, reason, pc])
            elif isinstance(item, n.MenuFor):
                with self.without_random("a menu"):     # a menu is rebuilt whenever it is shown
                    lst, t = self.as_list(item.iter, scope, "the list after `in`")
                inner = scope.child({item.var: T.elem(t)})
                self.note_local(item.var, T.elem(t))    # an option names a card by it (card_locals)
                out.append(["for", item.var, lst, self._menu_items(item.items, inner, ends)])
            elif isinstance(item, n.MenuIf):
                # `if … elif … else` among options: lowered to one `if` per
                # branch, each also requiring that no branch above it held
                branches = [(item.cond, item.items)] + list(item.elifs)
                if item.other is not None:
                    branches.append((None, item.other))
                failed: list = []
                for cond, items in branches:
                    this = self.condition(cond, scope) if cond is not None else None
                    test = [["not", c] for c in failed] + ([this] if this is not None else [])
                    out.append(["if", test[0] if len(test) == 1 else ["and", test],
                                self._menu_items(items, scope.child(), ends)])
                    if this is not None:
                        failed.append(this)
        return out


# ---------------------------------------------------------------- entry points

_TOO_DEEP = (f"this nests too deeply: over {MAX_NESTING} operations inside each other "
             "(a long chain `a + b + c + …` counts one per operator); split it with `let` or a function")


def _nesting(ir) -> int:
    """How deep lists nest in compiled IR, without recursion."""
    best, stack = 0, [(ir, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, list):
            best = max(best, depth)
            stack.extend((x, depth + 1) for x in node)
        elif isinstance(node, dict):
            stack.extend((x, depth) for x in node.values())
    return best


def _parse_error(where: Where, diags, exc: DslError):
    loc = where.loc(exc.offset, exc.offset + exc.length)
    diags.error(loc, exc.message, exc.hint)


def compile_block(text, where: Where, decls, diags, names: dict, params=(), proc=None) -> dict | None:
    """Parse, check and lower one block of statements (`proc`: the Signature
    of the procedure it is the body of)."""
    try:
        stmts = parse_block(text)
    except DslError as exc:
        _parse_error(where, diags, exc)
        return None
    bc = BlockCompiler(decls, where, diags, proc=proc)
    for name, t in names.items():
        bc.note_local(name, t)
    bc.block(stmts, Scope(names))
    for op, (line, col) in zip(bc.ops, bc.src, strict=False):
        if _nesting(op) > MAX_NESTING + 2:      # an op holds its expressions two levels down
            diags.error(Loc(where.file, line, col) if line else where.loc(0), _TOO_DEEP)
            break
    return bc.code(where.label, params)


_LET_LINE = re.compile(r"^[ \t]*let[ \t]", re.M)
FN_BODY = ("a function body is one expression, optionally after `let` lines that name its "
           "parts (`let n = count(p.hand)` on its own line, then the expression)")


def compile_fn_body(text, where: Where, decls, diags, names: dict, want: str | None = None):
    """A function's `expr`: one expression, or `let` lines and then one
    expression.  Each `let` is written in place of its uses (functions are
    pure, so this is exactly the same computation), so the bundle and the
    engine see one plain expression."""
    if isinstance(text, (bool, int)) or not _LET_LINE.search(str(text)):
        first = str(text).split(None, 1)[:1]
        if first and first[0] in STATEMENT_WORDS:
            try:
                parse_expr(text)
            except DslError as exc:
                exc.hint = exc.hint or FN_BODY
                _parse_error(where, diags, exc)
                return None
        return compile_expr(text, where, decls, diags, names, want)
    try:
        stmts = parse_block(text)
    except DslError as exc:
        _parse_error(where, diags, exc)
        return None
    ec = ExprCompiler(decls, where, diags)
    ec.no_random = where.label          # a function is cached: it may not draw
    scope = Scope(names)
    *lets, last = stmts or [None]
    for s in lets:
        if not isinstance(s, n.Let):
            ec.error(s, "only `let` lines may come before a function's expression", FN_BODY)
            return None
        if isinstance(s.value, (n.Choose, n.Random, n.Ask, n.Window)):
            ec.error(s.value, "a function cannot ask anyone anything: choices belong in procedures",
                     FN_BODY)
            return None
        if s.name in decls.params or s.name in names or s.name in ("me", "this", "event", "players", "game"):
            ec.error(s, f"`{s.name}` is already a name here (a param or the function's own "
                     "parameter); choose another local name")
        elif scope.get(s.name) is not None:
            ec.error(s, f"`{s.name}` is named twice; a function's locals never change")
        ir, t = ec.expr(s.value, scope)
        scope.define_inline(s.name, ir, t if t != T.NONE else T.ANY)
    if not isinstance(last, n.ExprStmt):
        ec.error(last, "a function ends with the expression it computes" if isinstance(last, n.Let)
                 else "a function computes a value; it cannot change the game (use a procedure)",
                 FN_BODY)
        return None
    return _finish_expr(ec, last.expr, ec.expr(last.expr, scope), want)


def compile_expr(text, where: Where, decls, diags, names: dict, want: str | None = None):
    """Parse, check and lower one expression; `want` is the type it must have."""
    if isinstance(text, bool) or isinstance(text, int):
        text = str(text).lower() if isinstance(text, bool) else str(text)
    try:
        node = parse_expr(text)
    except DslError as exc:
        _parse_error(where, diags, exc)
        return None
    ec = ExprCompiler(decls, where, diags)
    with ec.without_random(where.label):   # functions, requirements, modifiers, scores: all pure
        ir_t = ec.expr(node, Scope(names))
    return _finish_expr(ec, node, ir_t, want)


def _finish_expr(ec, node, ir_t, want):
    """Check an expression's nesting and its type against `want`; give its IR."""
    if _nesting(ir_t[0]) > MAX_NESTING:
        ec.diags.error(ec.where.loc(node.pos), _TOO_DEEP)
        return None
    if want is None:
        return ir_t[0]
    if want == T.BOOL and ir_t[1] not in (T.BOOL, T.ANY):
        ec.error(node, f"this must be true/false, but it is {T.plain(ir_t[1])}")
        return ir_t[0]
    return ec.expect(node, ir_t, want, "this expression")
