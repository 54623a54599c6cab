"""Compile each block of statements into one Python function that resumes.

The compiler lowers a block (a procedure, a hook, a card's effect, a part of
the game flow) to a flat list of ops with jumps (`cardc/compiler/stmts.py`).
Here the whole list becomes one generated function `run(st, fr)`:

    def _blk7(st, fr):
        env = fr.env
        pc = fr.pc
        while True:
            if pc == 0:
                # rules.yaml:12:5 move
                ...
                pc = 3
            if pc == 3:
                ...

Straight-line ops run inline, one after another, with no call per op.  The
function returns to the engine's run loop only where the game must wait:
a player's decision, a procedure call or a hook (a new frame on the stack),
the end of the block.  A frame is still `(code, pc, locals)`, as data: `pc`
is an op index, and every op the engine can stop at or come back to starts
a case of the `if pc == …` chain, so a game saved at any decision resumes
exactly where it stopped.  Forward jumps fall down the chain; only loops go
back to its top.  Where nothing can stop, the code is written as a person
would write it: a loop whose body cannot stop is a Python `for`, an `if`
among straight code a Python `if` (`_straight_loop`, `_region`), and a jump
to a jump goes straight on to where the last one goes (`_goto`).

A frame is made only where it is needed.  A procedure that can never stop
runs as a plain function of its arguments, its locals Python's
(`_frameless`); one that may stop but cannot reach itself is started
without a frame, by a second function written from the same ops, and makes
its frame at its first stop (`_start`).  The stack at any decision is the
one framed calls would have made.

Faults are located without bookkeeping at run time: the generated source
records which op each of its lines came from (as Jinja2 records template
lines), and the engine reads the line of the failing frame from the
traceback.

Safety: source is written from a closed set of ops; a content number is a
literal, a content text the name of a constant put on the syntax tree
(`PyGen.lit`), so no content string is ever in the source; an op, operator
or jump target outside that set is refused with `BadBundle` naming the field
(see `cardc/engine/pygen.py`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from cardc.engine.errors import BadBundle, EngineFault
from cardc.engine.interp import Frame
from cardc.engine.lower import localize
from cardc.engine.memo import Memo, names_in
from cardc.engine.total import harmless, risky_parts
from cardc.engine.writes import PARTS
from cardc.ir import nodes
from cardc.ir.jsonform import pc_fields
from cardc.ir.nodes import (
    CallOp,
    Cards,
    Cctr,
    Comp,
    Cpp,
    Gattr,
    JfOp,
    JumpOp,
    List,
    Lit,
    MenuOp,
    MoveOp,
    Players,
    Pzone,
    SetOp,
    Zone,
)

_new = object.__new__

WHILE_LIMIT = 10_000

# Ops that change the state (not just a frame's locals).  Cached function
# results are keyed on `st.version`, so each of these bumps it right after its
# write: a value the op reads before writing (`x = f(x) + 1` reads f) is cached
# under the old version, and the next read of f sees the new one.  A bump
# before the write would let such a value pass for current afterwards.
MUTATING = {"set", "move", "shuffle", "attach", "detach", "reveal", "cancel", "window",
            "end", "random"}
BUMP = "st.version += 1"
# Ops that run straight through: no stop, no jump (a loop of only these runs
# as a Python loop, see BlockGen._emit_loop).
STRAIGHT = {"let", "set", "log", "assert", "phase", "shuffle", "attach", "detach", "reveal",
            "cancel", "random"}
# Ops after which the engine may have to run something else first (a pushed
# frame, a decision): the op after them is a place to resume.
SUSPENDS = {"call", "resolve", "trigger", "move", "end", "return", "choose", "ask",
            "menu", "window"}
# Ops the engine can be stopped at (a decision open on them).
WAITS = {"choose", "ask", "menu", "window"}
OPS = frozenset(nodes.OPS)      # the closed set of op kinds (cardc/ir/nodes.py)
# The longest run of straight code with `if`s written as one case (BlockGen._region)
REGION_OPS = 200


SETTABLE_GATTRS = {"turn_player", "first_player"}


def _framed(code, names):
    """The frameless form of a procedure whose lines still need their frame
    (BlockGen._frameless): its frame pushed and run as for any call (the
    depth limit, a fault's place); the caller took the call's step."""
    def run(st, *args):
        if len(st.stack) >= st.game.limits.depth:
            raise EngineFault(st.game.over_depth)
        fr = _new(Frame)
        fr.code, fr.pc, fr.env = code, 0, dict(zip(names, args, strict=False))
        st.stack.append(fr)
        code.run(st, fr)
    return run


def _reaches(calls, start, goal) -> bool:
    """Can procedure `start` call `goal`, through any number of calls?"""
    seen, todo = set(), list(calls.get(start, ()))
    while todo:
        k = todo.pop()
        if k == goal:
            return True
        if k not in seen:
            seen.add(k)
            todo.extend(calls.get(k, ()))
    return False


@dataclass
class Located:
    """The lines of a block's start without a frame (BlockGen._start), op
    by op, for `Interpreter._fault`: its own lines, the block's places."""
    code: Code
    line_op: list

    @property
    def label(self):
        return self.code.label

    def where(self, pc):
        return self.code.where(pc)

    def op_at(self, lineno):
        return self.line_op[lineno - 1] if 0 < lineno <= len(self.line_op) else None


def frameless_params(code) -> list:
    """The arguments of a procedure's frameless form, in order: its own
    parameters, then `me` (the caller's `me`) unless it is one of them."""
    return list(code.params) + ([] if "me" in code.params else ["me"])


def _local_name(var: str) -> str | None:
    """The Python local standing for the block local `var`: a content name
    as `_lv_<name>`, a compiler temporary (`$1`, a loop's state) as
    `_lt_<digits>`; neither prefix is used by any other generated name.
    None for any other name (not one the compiler writes): it stays in a dict."""
    if var.isidentifier():
        return "_lv_" + var
    if var[:1] == "$" and var[1:].isdigit():
        return "_lt_" + var[1:]
    return None


@dataclass
class Code:
    """One compiled block: its name, where it comes from, and `run(st, fr)`."""
    name: str
    label: str
    file: str
    src: list
    params: list = field(default_factory=list)
    card: str | None = None          # the card's name, for fault messages
    run: object = None               # the generated function
    line_op: list = field(default_factory=list)   # generated line number -> op index
    source: str = ""                 # the generated module text (for `--explain`)
    n_ops: int = 0
    cards: dict = field(default_factory=dict)   # locals holding cards (see determinized)
    direct: bool = False             # it can never stop: it runs where it is started (BlockGen.plan)
    frameless: object = None         # a procedure that can never stop, as f(st, *args) (_frameless)
    start: object = None             # one that may stop, started without a frame: f(st, env) (_start)

    def where(self, pc: int) -> str:
        if 0 <= pc < len(self.src):
            line, col = self.src[pc]
            return f"{self.file}:{line}:{col}"
        return self.file

    def op_at(self, lineno: int) -> int | None:
        if 0 < lineno <= len(self.line_op):
            return self.line_op[lineno - 1]
        return None


class BlockGen:
    """Writes the `run` function of every block of one game."""

    def __init__(self, game, pygen):
        self.game = game
        self.pygen = pygen
        # procedures that can never stop (see `plan`): a call runs them at once
        self.direct: frozenset = getattr(game, "direct_procs", frozenset())
        # procedures started without a frame (see `plan`, `_start`)
        self.started: frozenset = getattr(game, "started_procs", frozenset())
        self.fast = False           # writing a procedure's frameless start (_start)
        self._sources = None        # (ops, where each op is jumped to from), see _entered
        self._stand_ins = {}        # (procedure, "frameless" or "start") -> its stand-in (_entry)
        self.ops_of: dict = {}      # a block's name -> its ops, typed nodes (cardc/ir/nodes.py)

    def plan(self, specs, codes) -> frozenset:
        """The procedures a call may run at once, inside the caller's own
        function, instead of returning to the run loop to start them: those
        that can never stop for a decision or for something else to run
        first (no choice, question, menu or window; no `resolve`, `trigger`
        or `end`; no move into a zone with a limit), and that call only such
        procedures.  A procedure that can reach itself is left out, so the
        depth limit, not Python's, still ends a runaway recursion."""
        if self.game.reference:             # every call with a frame (Game's reference mode)
            self.direct = self.started = frozenset()
            return self.direct
        ops_of = {k: self.ops_of[k] for k in specs if k.startswith("proc:")}
        direct: set[str] = set()
        grew = True
        while grew:
            grew = False
            for key, ops in ops_of.items():
                if key not in direct and all(self._runs_through(o, direct) for o in ops):
                    direct.add(key)
                    grew = True
        self.direct = frozenset(direct)
        # every other procedure that cannot reach itself is started without
        # a frame, and makes one only where it stops (_start)
        calls = {k: {"proc:" + str(o.procedure) for o in ops if isinstance(o, CallOp)}
                 for k, ops in ops_of.items()}
        self.started = frozenset(k for k in ops_of if k not in direct and not _reaches(calls, k, k))
        # a card's effect or a hook that cannot stop runs at once as well,
        # where `resolve` or `trigger` starts it (see _resolve, _trigger)
        for key in specs:
            codes[key].direct = all(self._runs_through(o, direct) for o in self.ops_of[key])
        return self.direct

    def _runs_through(self, o, direct) -> bool:
        """Op `o` never stops the block (a call: to a procedure in `direct`)."""
        match o:
            case CallOp(procedure=name):
                return "proc:" + str(name) in direct
            case MoveOp():
                return not self._move_may_stop(o)
        return o.kind not in WAITS and o.kind not in ("resolve", "trigger", "end")

    def _direct_call(self, o) -> bool:
        return isinstance(o, CallOp) and "proc:" + str(o.procedure) in self.direct

    def declare(self, name, spec, card=None) -> Code:
        """The Code of block `name`; its ops, checked, are kept as typed nodes."""
        self.where = f"code[{name!r}].ops"
        self._check(spec["ops"])
        self.ops_of[name] = [nodes.parse(o, op=True) for o in spec["ops"]]
        label = spec.get("label", name)
        if card is not None:
            label = f"{card['name']} ({card['id']}) {name.split(':', 2)[2]}"
        return Code(name, label, str(spec.get("file", "?")), spec.get("src", []),
                    list(spec.get("params", [])), card["name"] if card else None,
                    n_ops=len(spec["ops"]), cards=dict(spec.get("cards", {})))

    # ------------------------------------------------------------ one block
    def build(self, code: Code, spec) -> None:
        ops = self.ops_of[code.name]
        self.code, self.ops, self.where = code, ops, f"code[{code.name!r}].ops"
        # a jump the compiler wrote for a loop or a branch has no place of its
        # own in the source: it stands where it goes (a loop's head)
        code.src = [list(x) for x in code.src]
        for i, o in enumerate(ops):
            if isinstance(o, JumpOp) and i < len(code.src) and list(code.src[i]) == [0, 0] \
                    and o.to < len(code.src):
                code.src[i] = list(code.src[o.to])
        leaders = self._leaders(ops)
        lines, line_op = self._write(code, ops, leaders)
        source = "\n".join(lines) + "\n"
        code.run = self.pygen.exec_source(lines[0][4:lines[0].index("(")], source, code)
        code.line_op = line_op
        code.source = source
        if code.name in self.direct:
            code.frameless = self._frameless(code, lines)
        elif code.name in self.started:
            code.start = self._start(code, ops)
        for which in ("frameless", "start"):
            stand_in = self._stand_ins.pop((code.name, which), None)
            if stand_in is not None:
                self.pygen.rebind(stand_in, getattr(code, which))

    def _entry(self, callee, which) -> str:
        """The name a call runs `callee`'s frameless function or its start
        by (`which`): the function itself, so a call reads no attribute of
        the Code (a read Python cannot specialise, ~30 ns a call).  A callee
        written after its caller is called through a stand-in until `build`
        writes it, then the name is bound to the function."""
        fn = getattr(callee, which)
        if fn is None:
            fn = self._stand_ins.get((callee.name, which))
            if fn is None:
                def fn(*args, _code=callee, _which=which):
                    return getattr(_code, _which)(*args)
                self._stand_ins[(callee.name, which)] = fn
        return self.pygen.bind(fn, "_P")

    def _write(self, code, ops, leaders):
        """(lines, the op of each line) of the block's function: `run(st,
        fr)`, or with `self.fast` its start without a frame (`_start`)."""
        fname = self.pygen.fresh("_fst" if self.fast else "_blk")
        lines, line_op = [], []

        pad = ""                # the cases of a group are one level deeper (below)

        def emit(text, op=None):
            lines.append(pad + text if text.startswith("        ") else text)
            line_op.append(op)

        if self.fast:
            emit(f"def {fname}(st, env):")
            emit("    # a block, started without a frame: it makes one where it stops")
            emit("    fr = None")
            emit("    pc = 0")
        else:
            emit(f"def {fname}(st, fr):")
            emit("    # a block")
            emit("    env = fr.env")
            emit("    pc = fr.pc")
        emit("    while True:")
        starts = sorted(leaders)
        loops: dict[int, int] = {}  # a loop written as a Python loop: its `next` -> the op after it
        for start in starts:
            if not any(a < start < b for a, b in loops.items()):
                end = self._straight_loop(ops, start)
                if end is not None:
                    loops[start] = end
        # the places inside such a loop are reached only from within it
        starts = [x for x in starts if not any(a < x < b for a, b in loops.items())]
        # straight code with `if`s in it, entered only at its first op, is one
        # case with Python `if`s (its jumps' targets need no case of their own)
        regions: dict[int, int] = {}
        for k, start in enumerate(starts):
            if start in loops or any(a < start < b for a, b in regions.items()):
                continue
            end = self._region(ops, start, starts[k + 1:])
            if end is not None:
                regions[start] = end
        # where such a run ends, the case goes on with the op there, unless
        # something else jumps to it or the engine stops at it
        joined = {b for a, b in regions.items()
                  if b < len(ops) and b not in loops and b not in regions and ops[b].kind not in WAITS
                  and not self._entered(ops, a, b)}
        starts = [x for x in starts
                  if not any(a < x < b for a, b in regions.items()) and x not in joined]
        # a long chain is cut in groups behind one test (`if pc < 40:`), so
        # resuming at a late case, or jumping far ahead, passes a test per
        # group and a few cases instead of every case before it
        size = max(4, math.isqrt(len(starts))) if len(starts) > 8 else len(starts)
        for k, start in enumerate(starts):
            stop = starts[k + 1] if k + 1 < len(starts) else len(ops) + 1
            if k % size == 0:
                pad = ""
                if k + size < len(starts):
                    emit(f"        if pc < {starts[k + size]}:", start)
                    pad = "    "
            emit(f"        if pc == {start}:", start)
            if start == len(ops):
                for text in self._return(None, start)[0]:
                    emit("            " + text, start)
                continue
            end = loops.get(start)
            if end is not None:
                self._emit_loop(ops, start, end, emit)
                continue
            first = start
            end = regions.get(start)
            if end is not None:
                self._emit_plain(ops, start, end, {}, emit, "            ")
                if end not in joined:
                    for text in self._goto(end, end - 1):
                        emit("            " + text, end - 1)
                    continue
                first = end
            known: dict = {}    # values read by earlier ops of this case, still true
            for i in range(first, min(stop, len(ops))):
                known, ends = self._emit_op(ops, i, known, emit, "            ")
                if ends and i + 1 < stop and lines[-1].strip() == f"pc = {i + 1}":
                    # it goes on at the next op, which is no case of its own
                    # (a call in a start without a frame, `_leaders`)
                    lines.pop()
                    line_op.pop()
                    known = {}
                    continue
                if ends:
                    break
            else:
                for text in self._goto(stop, stop - 1):
                    emit("            " + text, stop - 1)
        pad = ""
        emit(f"        raise _bad_pc({self.lit(code.name)}, pc)", None)
        return lines, line_op

    def _frameless(self, code, lines):
        """A procedure that can never stop, as `f(st, *args)` (its
        parameters and `me`, `frameless_params`): a call runs it with no
        frame pushed, none taken off, no `pc` read (it starts at 0 and
        nothing resumes it), where a frame and its upkeep were a third of
        what such a call cost.  Nothing can read its locals from outside
        while it runs, so they are Python locals, not a dict (`localized`).
        The same lines as `run`, line for line, so `line_op` places a fault
        in it; `Interpreter._fault` finds it in the traceback
        (`Game.frameless`).  Its calls of other such procedures are
        frameless too; it makes no other call (`plan`), so its nesting is
        bounded by the content's own procedures.  Where a line would still
        need the frame: a function that pushes one (`_framed`)."""
        names = frameless_params(code)
        if lines[2:4] != ["    env = fr.env", "    pc = fr.pc"] or \
                any("fr." in x or "fr)" in x for x in lines[4:]):
            return _framed(code, names)
        body = entered_once([x[:len(x) - len(x.lstrip())] + "pass" if x.strip() == "st.stack.pop()"
                             else x for x in lines[4:]])
        name = self.pygen.fresh("_dir")
        comment = "    # a block, run without a frame: it cannot stop"
        local = []

        def to_locals(tree):            # on the syntax tree (lower.localize), never the text
            local.append(localize(tree.body[0], names, _local_name))
        fn = self.pygen.exec_source(name, "\n".join([f"def {name}(st, env):", comment,
                                                   "    fr = None", "    pc = 0", *body]) + "\n",
                                    code, to_locals)
        self.game.frameless[fn.__code__] = code
        if local[0]:
            return fn                   # f(st, *args), its locals Python locals

        def framed(st, *args):
            return fn(st, dict(zip(names, args, strict=False)))
        return framed

    def _start(self, code, ops):
        """A procedure that may stop, started without a frame: `f(st, env)`
        runs the same ops as `run`, with its locals in the dict its caller
        made, and makes its frame only where it first needs one: where it
        stops for a decision or something that must run first (`_at`).
        Most calls never stop (a window of optional moves that is usually
        skipped, a step that asks only in rare cases; measured:
        docs/history/speed-waves.md): they pay for no frame, no push and no
        pop.  Where it has stopped, callers started the same way put
        their frames beneath its own (`interp.beneath`), so the stack is
        what framed calls would have made.

        It answers as `run` does, True once it has run to its end (its frame,
        if it made one, taken off); else None, its frame on the stack, or 0
        if that is gone (the game ended, `interp.stopped`)."""
        self.fast = True
        try:
            lines, line_op = self._write(code, ops, self._leaders(ops, resumed=False))
        finally:
            self.fast = False
        lines = lines[:4] + entered_once(lines[4:])
        fn = self.pygen.exec_source(lines[0][4:lines[0].index("(")], "\n".join(lines) + "\n", code)
        self.game.frameless[fn.__code__] = Located(code, line_op)
        return fn

    def _at(self, pc) -> list:
        """`fr.pc = pc`: the place to resume at.  A start without a frame
        (`_start`) makes its frame first, on top of the stack, if it has none."""
        if not self.fast:
            return [f"fr.pc = {pc}"]
        return [f"fr = fr or _mk(st, {self.pygen.bind(self.code, '_K')}, env)", f"fr.pc = {pc}"]

    def _stop(self) -> str:
        """Where the block stops after `_back` could not bring its frame back on top."""
        return "return _stopped(st, fr)" if self.fast else "return"

    def _emit_op(self, ops, i, known, emit, pad):
        """Write op `i`; (what the ops after it may reuse, whether it ends the case)."""
        o = ops[i]
        emit(f"{pad}# op {i:d} {o.kind}", i)
        # each op has its own Memo: within it nothing changes the state or
        # the frame's locals until its values are computed, so a value needed
        # twice is computed once, and a local, a counter's list or the
        # modifiers in force are read once; the next ops of the case reuse
        # what this op cannot change
        memo = Memo(self.pygen, env_reads=True, known=known)
        with self.pygen.memo_of(memo):
            body, ends = self.op(o, i)
        body = [memo.reset()] + body
        memo.finish()
        # every op that writes bumps the version after its write (a window's
        # poll_window does it itself)
        assert o.kind not in MUTATING or o.kind == "window" or any(BUMP in t for t in body), o.kind
        for text in body:
            emit(pad + text, i)
        return _still_true(memo.eager, o, self.lit), ends

    def _straight_loop(self, ops, i):
        """For a loop's `next`, `countdown` or `guard` (`for`, `repeat`, `while`) at `i` whose
        body runs straight through (no op in it can stop; its only jumps are
        those of `if … else` inside it, or a `return`, see `_plain`; nothing
        outside jumps into it), the index after the loop; else None."""
        if self.game.reference:
            return None
        o = ops[i] if i < len(ops) else None
        if o is None or o.kind not in ("next", "countdown", "guard"):
            return None
        first = i + 1
        if o.kind == "guard":           # `while`: its test is the op after the guard
            test = ops[i + 1] if i + 1 < len(ops) else None
            if not isinstance(test, JfOp):
                return None
            end, first = test.to, i + 2
        else:
            end = o.end                 # `next` and `countdown` go on at their `end` when done
        if not (isinstance(end, int) and first < end - 1 and ops[end - 1] == JumpOp(i)):
            return None
        if not self._plain(ops, first, end - 1) or self._entered(ops, i + 1, end - 1):
            return None
        return end

    def _region(self, ops, a, later):
        """The end of the longest run of ops from `a` that holds an `if` and
        is straight code otherwise (see `_plain`), ends at one of the places
        in `later`, and is entered only at `a`; None if there is none longer
        than the case that starts at `a`."""
        if self.game.reference:
            return None
        # it cannot reach past an op that is neither straight code nor part
        # of an `if`, and it is kept short (REGION_OPS): writing a block stays
        # quick whatever its size
        limit = a
        while limit < len(ops) and limit - a < REGION_OPS and \
                (ops[limit].kind in ("jf", "jump", "return") or self._runs_on(ops[limit])):
            limit += 1
        best = None
        for b in later:
            if b > limit:
                break
            if self._plain(ops, a, b) and any(isinstance(ops[k], JfOp) for k in range(a, b)) \
                    and not self._entered(ops, a, b, to_b=False):
                best = b
        return best if best is not None and best != (later[0] if later else None) else None

    def _runs_on(self, o) -> bool:
        """Op `o` runs straight on to the next op: no stop, no jump."""
        return o.kind in STRAIGHT or (isinstance(o, MoveOp) and not self._move_may_stop(o)) \
            or self._direct_call(o)

    def _plain(self, ops, a, b) -> bool:
        """Ops a..b-1 are straight code, `return` and `if … else`: each `jf`
        jumps ahead within them, past a `then` part that ends, if there is an
        `else`, with a jump ahead past it, within them too (what the compiler
        writes for an `if`)."""
        k = a
        while k < b:
            o = ops[k]
            if isinstance(o, JfOp):
                t = o.to
                if not k < t <= b:
                    return False
                u = self._else_end(ops, k, t, b)
                if u is not None:
                    if not (self._plain(ops, k + 1, t - 1) and self._plain(ops, t, u)):
                        return False
                    k = u
                else:
                    if not self._plain(ops, k + 1, t):
                        return False
                    k = t
            elif self._runs_on(o) or o.kind == "return":
                k += 1
            else:
                return False
        return True

    @staticmethod
    def _else_end(ops, k, t, b):
        """For a `jf` at k to t: where its `else` part ends, if the `then`
        part ends with a jump ahead past one (within b); else None."""
        j = ops[t - 1] if t - 1 > k else None
        if isinstance(j, JumpOp) and t <= j.to <= b:
            return j.to
        return None

    def _entered(self, ops, a, b, to_b=True) -> bool:
        """Does an op outside a..b-1 jump to an op after `a` inside it (or,
        with `to_b`, to b: a loop's jump back)?"""
        if self._sources is None or self._sources[0] is not ops:
            self._sources = (ops, _jumps_to(ops, self._menu_targets))
        into = self._sources[1]
        return any(not a <= j < b for t in range(a + 1, b + 1 if to_b else b) for j in into.get(t, ()))

    def _emit_loop(self, ops, i, end, emit):
        """A straight loop as a Python loop: over the list its `iter` made
        (`for`), or as many turns as its `repeat` counted.

        Nothing in the body can stop, so no one sees the loop between two of
        its turns: its place (in the list, or the turns left) need not be
        kept in the frame's locals turn by turn (the case starts where
        `iter` or `repeat` left it).  A turn costs one step of the budget, as
        the op-by-op loop's jump back takes it: all at once before the loop
        when no turn can end the block (a game that runs out of steps stops
        at the same line, before the loop instead of within it), else at the
        end of each turn.  A `for` binds its variable in the frame's locals
        each turn, and the body's first op reads it from the Python loop's
        own local."""
        o = ops[i]
        slot = self.lit(o.slot)
        each_turn = any(ops[k].kind == "return" for k in range(i + 1, end - 1))
        pad = "                "
        budget = ["st.budget -= 1", "if st.budget < 0: raise EngineFault(_game.over_steps)"]
        if o.kind == "guard":
            # `while`: each turn counts itself against the loop limit, tests,
            # runs its body and pays its step; the test failing ends it
            emit(f"            # op {i:d} (a straight loop)", i)
            emit("            while True:", i)
            known, _ = self._emit_op(ops, i, {}, emit, pad)
            memo = Memo(self.pygen, env_reads=True, known=known)
            with self.pygen.memo_of(memo):
                test = self.x(ops[i + 1].test)
            lines = [memo.reset(), f"if not {test}:"]
            memo.finish()
            for text in lines:
                emit(pad + text, i + 1)
            emit(pad + "    break", i + 1)
            self._emit_plain(ops, i + 2, end - 1, dict(memo.eager), emit, pad)
            for text in budget:
                emit(pad + text, end - 1)
            for text in self._goto(end, i):
                emit("            " + text, i)
            return
        if o.kind == "next":
            var = self.lit(o.var)
            emit(f"            # op {i:d} (a straight loop)", i)
            emit(f"            _it = env[{slot}]", i)        # (not `_s`: a call's push uses it)
            if not each_turn:
                emit("            st.budget -= len(_it[0])", end - 1)
                emit("            if st.budget < 0: raise EngineFault(_game.over_steps)", end - 1)
            emit("            for _k0 in _it[0]:", i)
            emit(f"{pad}env[{var}] = _k0", i)
            known = {f"env[{var}]": "_k0"}
        else:
            emit(f"            # op {i:d} (a straight loop)", i)
            emit(f"            _it = env[{slot}]", i)
            if not each_turn:
                emit("            st.budget -= max(_it, 0)", end - 1)
                emit("            if st.budget < 0: raise EngineFault(_game.over_steps)", end - 1)
            emit("            for _ in range(_it):", i)
            known = {}
        self._emit_plain(ops, i + 1, end - 1, known, emit, pad)
        if each_turn:
            for text in budget:
                emit(pad + text, end - 1)
        emit(f"            del env[{slot}]", i)
        for text in self._goto(end, i):
            emit("            " + text, i)

    def _emit_plain(self, ops, a, b, known, emit, pad):
        """Write ops a..b-1 (see `_plain`) as Python, each `jf` an `if`."""
        k = a
        while k < b:
            o = ops[k]
            if not isinstance(o, JfOp):
                known, _ = self._emit_op(ops, k, known, emit, pad)
                k += 1
                continue
            t = o.to
            emit(f"{pad}# op {k:d} if", k)
            memo = Memo(self.pygen, env_reads=True, known=known)
            with self.pygen.memo_of(memo):
                test = self.x(o.test)
            lines = [memo.reset(), f"if {test}:"]
            memo.finish()
            for text in lines:
                emit(pad + text, k)
            known = dict(memo.eager)        # a test writes nothing
            u = self._else_end(ops, k, t, b)
            self._emit_plain(ops, k + 1, t - 1 if u is not None else t, known, emit, pad + "    ")
            if u is not None and u > t:
                emit(f"{pad}else:", t - 1)
                self._emit_plain(ops, t, u, known, emit, pad + "    ")
            known = {}                      # either part may have written
            k = u if u is not None else t

    def _check(self, ops):
        """Refuse what the compiler never writes: an unknown op, a jump outside the block."""
        end = len(ops)
        for i, o in enumerate(ops):
            if not isinstance(o, list) or not o or o[0] not in OPS:
                raise BadBundle(f"{self.where}[{i}]: unknown op {str(o)[:40]!r}")

            for k in pc_fields(o[0]):
                t = o[k] if k < len(o) else None
                if type(t) is not int or not 0 <= t <= end:
                    raise BadBundle(f"{self.where}[{i}][{k}]: jump target {t!r} is outside the block "
                                    f"(0..{end})")
            if o[0] == "menu" and len(o) > 3:
                self._check_menu(o[3], i, end)

    def _check_menu(self, items, i, end):
        for it in items or ():
            if it[0] == "opt":
                if type(it[4]) is not int or not 0 <= it[4] <= end:
                    raise BadBundle(f"{self.where}[{i}]: a menu option starts at {it[4]!r}, "
                                    f"outside the block (0..{end})")
            elif it[0] == "for":
                self._check_menu(it[3], i, end)
            elif it[0] == "if":
                self._check_menu(it[2], i, end)
            else:
                raise BadBundle(f"{self.where}[{i}]: unknown menu item {str(it[0])[:40]!r}")

    def _leaders(self, ops, resumed=True) -> set:
        """Op indexes that start a case: the entry, every jump target, every op
        the engine may stop at or come back to, and the end.  A start without
        a frame (`_start`, `resumed` false) is never come back to: where it
        stops, its framed `run` resumes, so its cases are the entry, the
        jumps' targets and the end, and the op after a call runs on in the
        same case (no `pc = …` and `if pc == …` between the two)."""
        out = {0, len(ops)}
        for i, o in enumerate(ops):
            kind = o.kind
            match o:
                case JumpOp(to=t) | JfOp(to=t):
                    out.update((t, i + 1))
                case nodes.NextOp(end=t) | nodes.CountdownOp(end=t):
                    out.update((t, i + 1))
            if not resumed:
                continue
            if kind in SUSPENDS and not (kind == "move" and not self._move_may_stop(o)) \
                    and not self._direct_call(o):
                out.add(i + 1)
            if kind in WAITS:
                out.add(i)
            if isinstance(o, MenuOp):
                out.add(o.end)
                self._menu_targets(o.items, out)
        return {x for x in out if 0 <= x <= len(ops)}

    def _menu_targets(self, items, out):
        for item in items or ():
            match item:
                case nodes.Option(to=to):
                    out.add(to)
                case nodes.OptionsFor(options=options) | nodes.OptionsIf(options=options):
                    self._menu_targets(options, out)

    # ------------------------------------------------------------ ops
    def op(self, o, i):
        """(lines, ends_the_case) for op `o` at index `i`."""
        return getattr(self, "_" + o.kind)(o, i)

    def x(self, ir):
        return self.pygen.expr(ir, {})

    def lit(self, value) -> str:
        """A literal of the generated source; text is a name (see PyGen.lit)."""
        return self.pygen.lit(value)

    def fn(self, ir):
        """A separate function f(st, env) for an expression the engine calls later."""
        return self.pygen.bind(self.pygen.build(ir), "_x") if ir is not None else "None"

    def _goto(self, target, i):
        """Go on at op `target` from the code of op `i`.  A jump back (a
        loop's next turn) starts the chain again, and counts against the step
        budget.  A jump to a jump goes on to where that one goes, counting
        each jump back on the way as it would have counted it, without a
        trip through the chain in between (the end of a menu option's body
        jumps to the end of the menu, which jumps back to the loop's head)."""
        back = int(target <= i)
        seen = set()
        while not self.game.reference and target < len(self.ops) and isinstance(self.ops[target], JumpOp) \
                and target not in seen:
            seen.add(target)
            nxt = self.ops[target].to
            back += nxt <= target
            target = nxt
        lines = [f"st.budget -= {back}", "if st.budget < 0: raise EngineFault(_game.over_steps)"] \
            if back else []
        return lines + [f"pc = {target}"] + (["continue"] if target <= i else [])

    def _int_check(self, var):
        """A number kept in a local or a counter stays within the digits budget."""
        m = self.game.limits.max_int
        return f"if type({var}) is int and not -{m} <= {var} <= {m}: raise EngineFault(_game.over_digits)"

    def _plain_literal(self, ir) -> bool:
        """A literal that needs no check when kept: none, true/false, text,
        or a number within the digits budget."""
        if not isinstance(ir, Lit):
            return False
        v = ir.value
        if v is None or type(v) in (bool, str):
            return True
        return type(v) is int and abs(v) <= self.game.limits.max_int

    def _let(self, o, i):
        if self._plain_literal(o.value):
            return [f"env[{self.lit(o.var)}] = {self.x(o.value)}"], False
        return [f"_v = {self.x(o.value)}", self._int_check("_v"),
                f"env[{self.lit(o.var)}] = _v[:] if type(_v) is list else _v"], False

    def _set(self, o, i):
        target, op, value = o.target, o.operator, self.x(o.value)
        kind = target.kind
        if kind not in PARTS or op not in ("=", "+=", "-="):
            raise BadBundle(f"{self.where}[{i}]: cannot set {str(kind)[:20]!r} with {str(op)[:8]!r}")
        name = target.attr if isinstance(target, Gattr) else target.counter
        none = self.lit(f"cannot set `{name}` of none")
        lines = []
        if kind == "gctr":
            ref = f"st.game_counters[{self.lit(name)}]"
        elif kind == "gattr":
            if name not in SETTABLE_GATTRS:
                raise BadBundle(f"{self.where}[{i}][1]: `{str(name)[:20]}` cannot be set")
            ref = f"st.{name}"
        elif kind == "pctr":
            lines += [f"_p = {self.x(target.player)}", f"if _p is None: raise EngineFault({none})"]
            ref = f"st.player_counters[{self.lit(name)}][_p]"
        elif kind == "cctr":
            lines += [f"_c = {self.x(target.card)}", f"if _c is None: raise EngineFault({none})",
                      self._own_cc(name)]
            ref = "_t[_c]"
        else:
            lines += [f"_c = {self.x(target.card)}", f"_p = {self.x(target.player)}",
                      f"if _c is None or _p is None: raise EngineFault({none})",
                      self._own_cc(name)]
            ref = "_t[_c * st.n + _p]"
        # what the write makes stale: the plan `Writes.set_counter` applies
        # outside the rules, written here inline (writes.py)
        plan = self.game.write_plan(kind, name)
        write = [f"{ref} = _v", BUMP]
        if plan.caches:                 # the cached values that read it are stale (stale.py)
            write.append(f"if st.filled & {plan.caches:d}: st.forget({plan.caches:d})")
        if plan.per_card:
            write.append("st.counter_written(_c)")     # read on the cards of cells: see deps.cell_part
        if plan.keyed:
            # a zone read by this counter's value: the old value and the new (deps.keyed_part)
            write = [f"_o = {ref}"] + write + [f"st.key_written(_c, {self.lit(name)}, _o, _v)"]
        if op == "=":
            lines.append(f"_v = {value}")
            if not self._plain_literal(o.value):
                lines.append(self._int_check("_v"))
            # the value it already holds (`is`: the same object, so true is
            # never taken for 1) changes nothing: no write, no version bump
            return lines + [f"if {ref} is not _v:"] + ["    " + x for x in write], False
        d = o.value
        if isinstance(d, Lit) and type(d.value) is int and 0 < abs(d.value) <= self.game.limits.max_int:
            # a whole number added to a counter gives a number, or has failed
            # already: its range is asked first, and its kind only outside it
            # (the same test, fewer steps for the value in range it nearly always is)
            m = self.game.limits.max_int
            return lines + [f"_v = {ref} {op[0]} {d.value}",
                            f"if not -{m} <= _v <= {m} and type(_v) is int: "
                            "raise EngineFault(_game.over_digits)"] + write, False
        # adding 0 changes nothing (a card's printed 0 of most resources):
        # no write, and the cached values that read the counter stay valid
        write = [f"_v = {ref} {op[0]} _d", self._int_check("_v")] + write
        return lines + [f"_d = {value}", "if _d != 0:"] + ["    " + x for x in write], False

    def _own_cc(self, name):
        """`_t` = the state's own list of card counter `name` (see State.own_cc)."""
        name = self.lit(name)
        return f"_t = st.card_counters[{name}] if st.owned_cc is None else st.own_cc({name})"

    def _jump(self, o, i):
        return self._goto(o.to, i), True

    def _jf(self, o, i):
        t = o.to
        return [f"pc = {i + 1} if {self.x(o.test)} else {t}"] + (["continue"] if t <= i else []), True

    def _iter(self, o, i):
        # the loop walks its own copy (the body may change the zone it walks);
        # `players`, a comprehension or a list written out is a new list already
        fresh = isinstance(o.items, (Players, Comp, List))
        items = self.x(o.items)
        return [f"env[{self.lit(o.slot)}] = [{items if fresh else f'list({items})'}, 0]"], False

    def _next(self, o, i):
        slot, var, end = self.lit(o.slot), self.lit(o.var), o.end
        return [f"_s = env[{slot}]",
                "if _s[1] < len(_s[0]):",
                f"    env[{var}] = _s[0][_s[1]]",
                "    _s[1] += 1",
                f"    pc = {i + 1}",
                "else:",
                f"    del env[{slot}]"] + ["    " + x for x in self._goto(end, i)], True

    def _repeat(self, o, i):
        return [f"env[{self.lit(o.slot)}] = {self.x(o.times)}"], False

    def _countdown(self, o, i):
        slot, end = self.lit(o.slot), o.end
        return [f"if env[{slot}] > 0:",
                f"    env[{slot}] -= 1",
                f"    pc = {i + 1}",
                "else:",
                f"    del env[{slot}]"] + ["    " + x for x in self._goto(end, i)], True

    def _guard(self, o, i):
        slot = self.lit(o.slot)
        msg = self.lit(f"a `while` loop ran {WHILE_LIMIT:,} times: it does not end")
        return [f"env[{slot}] += 1", f"if env[{slot}] > {WHILE_LIMIT}: raise EngineFault({msg})"], False

    def _return(self, o, i):
        if self.fast:
            return ["if fr is not None: st.stack.pop()", "return True"], True
        return ["st.stack.pop()", "return True"], True

    def _phase(self, o, i):
        return [f"st.phase = {self.lit(o.phase)}"], False

    def _call(self, o, i):
        key = "proc:" + str(o.procedure)
        callee = self.game.codes.get(key)
        if callee is None:
            raise BadBundle(f"{self.where}[{i}][1]: unknown procedure {str(o.procedure)[:40]!r}")
        k = self.pygen.bind(callee, "_K")
        if key in self.direct:
            # it cannot stop: it runs now, to its end, without a frame, its
            # arguments passed as Python's (_frameless), for one step of the
            # budget like any call
            if len(o.args) != len(callee.params):
                raise BadBundle(f"{self.where}[{i}][2]: `{o.procedure}` takes {len(callee.params)} "
                                f"arguments, not {len(o.args)}")
            args = [self.x(a) for a in o.args]
            args += [] if "me" in callee.params else [self._me()]
            return ["st.budget -= 1", "if st.budget < 0: raise EngineFault(_game.over_steps)",
                    f"{self._entry(callee, 'frameless')}(st{''.join(', ' + a for a in args)})"], False
        items = [f"{self.lit(p)}: {self.x(a)}" for p, a in zip(callee.params, o.args, strict=False)]
        if "me" not in callee.params[:len(o.args)]:
            items.append(f"{self.lit('me')}: {self._me()}")
        lines = [f"_e = {{{', '.join(items)}}}"]
        budget = ["st.budget -= 1", "if st.budget < 0: raise EngineFault(_game.over_steps)"]
        if key in self.started:
            # it starts without a frame (_start); where it stops, its frame
            # is on the stack: a framed caller lets `_back` run what is above
            # its own, one started the same way puts its frame beneath
            if self.fast:
                return (lines + budget + ["_n = len(st.stack)", f"_r = {self._entry(callee, 'start')}(st, _e)",
                                          "if _r is not True:",
                                          f"    return _beneath(st, fr, {self.pygen.bind(self.code, '_K')}, "
                                          f"env, _n, _r, {i + 1})"]
                        + self._goto(i + 1, i)), True
            return (lines + [f"fr.pc = {i + 1}"] + budget
                    # stopped for a decision (the common case): nothing to bring back first
                    + [f"if not {self._entry(callee, 'start')}(st, _e) and "
                       "(st.pending is not None or not _back(st, fr)): return"]
                    + self._goto(i + 1, i)), True
        # a block returns True only where it has run to its end and taken its
        # own frame off (a `return`, or its last op): nothing else ran above
        # it, so this frame is on top again.  Else `_back` runs what it pushed
        # until this frame is on top, or says the game must wait first (the
        # run loop then resumes this frame at fr.pc)
        return (lines + self._at(i + 1) + self._push(k, "_e", "_f")
                + [f"if not {k}.run(st, _f) and not _back(st, fr): {self._stop()}"]
                + self._goto(i + 1, i)), True

    def _me(self) -> str:
        """The acting player a call passes on: the local the op read `me`
        into at its top, if it did (then `me` is bound, or the op failed
        there already), else `env.get('me')`, a lookup of its own."""
        memo = self.pygen.memo
        me = self.lit("me")
        return (memo.eager.get(f"env[{me}]") if memo is not None else None) or f"env.get({me})"

    def _push(self, code, env, name="_f"):
        """`st.push(code, env)` written in (a call is on every turn's path:
        a shared function for it costs more than its copies, measured:
        docs/history/speed-waves.md), the new frame kept in local `name`.  The frame is
        made without its `__init__` (a Python call on every call of a
        procedure) and its three slots are filled in place: the same object,
        made in two-thirds of the time."""
        frame = self.pygen.bind(Frame, "_Frame")
        return ["_s = st.stack",
                f"if len(_s) >= {int(self.game.limits.depth)}: raise EngineFault(_game.over_depth)",
                "st.budget -= 1",
                "if st.budget < 0: raise EngineFault(_game.over_steps)",
                f"{name} = _new({frame})",
                f"{name}.code = {code}",
                f"{name}.pc = 0",
                f"{name}.env = {env}",
                f"_s.append({name})"]

    def _resolve(self, o, i):
        return [f"_c = {self.x(o.card)}",
                f"if _c is None: raise EngineFault({self.lit('`resolve` of none: no card')})",
                *self._at(i + 1),
                f"st.resolve_card(_c, env.get({self.lit('me')}))",
                "_f = st.stack[-1]",
                f"if not _f.code.run(st, _f) and not _back(st, fr): {self._stop()}"] \
            + self._goto(i + 1, i), True

    def _trigger(self, o, i):
        items = ", ".join(f"{self.lit(k)}: {self.x(v)}" for k, v in o.args.items())
        # the hooks it started run, in order; with none started it goes straight
        # on; `_back` (interp.back_on_top) runs them until this frame is on top
        return [f"_a = {{{items}}}",
                *self._at(i + 1),
                f"if st.trigger({self.lit(o.event)}, _a, env.get({self.lit('me')})) "
                f"and not _back(st, fr): {self._stop()}"] \
            + self._goto(i + 1, i), True

    def _end(self, o, i):
        winners = self.x(o.winners) if o.winners is not None else "None"
        # its frame is gone with the rest of the stack (a start says so: 0)
        return [f"st.end_game({winners})", BUMP, "return 0" if self.fast else "return"], True

    def _assert(self, o, i):
        return [f"if not {self.x(o.test)}:",
                f"    raise EngineFault({self.lit('assertion failed: ')} + {self.x(o.message)})"], False

    def _log(self, o, i):
        text = self.pygen.text_of(o.text, {})
        if harmless(o.text, self.game, text=True):    # for people only: built when someone reads it
            return ["if st.log is not None:", f"    st.log.append({text})"], False
        # it could fail: without a log, the parts that could fail are still
        # evaluated, so that simulation fails exactly where play does
        parts = [self.pygen.text_of(x, {}) for x in risky_parts(o.text, self.game)]
        return ["if st.log is not None:", f"    st.log.append({text})", "else:",
                f"    ({', '.join(parts)},)"], False

    def _move(self, o, i):
        cards, zone, place, is_list = o.cards, o.to, o.place, o.many
        if place not in ("top", "bottom"):
            raise BadBundle(f"{self.where}[{i}][3]: a card goes to the top or the bottom, "
                            f"not {str(place)[:20]!r}")
        stops = self._move_may_stop(o)
        lines = [f"_z = {self.x(zone)}"] + ([f"fr.pc = {i + 1}"] if stops and not self.fast else [])
        if is_list and isinstance(cards, Cards):     # a whole zone
            lines.append(f"st.move_zone({self.x(cards.zone)}, _z, {self.lit(place)})")
        elif is_list:
            lines += [f"for _c in list({self.x(cards)}):", f"    st.move(_c, _z, {self.lit(place)})"]
        else:
            lines += [f"_c = {self.x(cards)}",
                      f"if _c is None: raise EngineFault({self.lit('`move` of none: no card to move')})",
                      f"st.move(_c, _z, {self.lit(place)})"]
        if not stops:           # into a zone without a limit: the next op follows
            return lines + [BUMP], False
        if self.fast:           # a frame only for a zone that has a limit now
            return lines + [BUMP, "if st.slot_limit[_z] is not None:",
                            *["    " + x for x in self._at(i + 1)],
                            "    if st.check_limit(_z): return None",
                            f"pc = {i + 1}"], True
        return lines + [BUMP, "if st.slot_limit[_z] is not None and st.check_limit(_z): return",
                        f"pc = {i + 1}"], True

    def _move_may_stop(self, o) -> bool:
        """Whether move `o` can stop for something else to run first: only a
        move into a zone with a limit can (its overflow procedure runs at once)."""
        zone = o.to
        if isinstance(zone, (Zone, Pzone)):
            for decl in self.game.zone_decls:
                if decl["id"] == zone.zone:
                    return decl.get("limit") is not None
        return True

    def _shuffle(self, o, i):
        return [f"st.shuffle_zone({self.x(o.zone)})", BUMP], False

    def _attach(self, o, i):
        return [f"st.attach({self.x(o.card)}, {self.x(o.host)})", BUMP], False

    def _detach(self, o, i):
        return [f"st.detach({self.x(o.card)})", BUMP], False

    def _reveal(self, o, i):
        return [f"_ps = {self.x(o.player)}",
                f"for _c in {self.x(o.card)}:",
                "    for _p in _ps:",
                "        if _p is not None:",
                "            st.reveal(_c, _p)", BUMP], False

    def _cancel(self, o, i):
        return [f"_v = {self.x(o.event)}",
                f"if _v is None: raise EngineFault({self.lit('`cancel` of none: no event')})",
                f"st.events[_v][{self.lit('cancelled')}] = True",
                f"st.touch({self.lit('events')})", BUMP], False

    def _values(self, items, var, cond):
        lines = [f"_vs = list({self.x(items)})"]
        if cond is not None:
            local = self.pygen.local()
            with self.pygen.comprehension(local):
                test = self.pygen.expr(cond, {var: local})
            lines.append(f"_vs = [{local} for {local} in _vs if {test}]")
        return lines

    def _prompt(self, ir):
        """(what the op passes as the prompt, its text where needed now): text
        that cannot fail is made only if someone reads it (see Decision)."""
        if ir is None:
            return "None", None
        if isinstance(ir, Lit) or not harmless(ir, self.game):
            text = self.x(ir)
            return text, text
        f = self.fn(ir)
        return f, f"{f}(st, env)"

    def _choose(self, o, i):
        var, items, itvar, cond, by, optional, prompt, typ = \
            o.var, o.items, o.cvar, o.where, o.player, o.optional, o.prompt, o.type
        passed, p = self._prompt(prompt)
        # a clone a bot only scores stops here without listing the choices
        lines = ["if st.lookahead:", *["    " + x for x in self._at(i)],
                 f"    st.stop_here({self.x(by)}, {self.lit('choose')})", "    return"]
        lines += self._values(items, itvar, cond)
        if not optional:
            why = self.lit("nothing to choose from")
            if p:
                why += f" + {self.lit(' for “')} + {p} + {self.lit('”')}"
            lines.append(f"if not _vs: raise EngineFault({why})")
        lines += [f"_who = {self.x(by)}", *self._at(i),
                  f"st.ask_choice(_who, {self.lit(var)}, _vs, {self.lit(typ)}, {bool(optional)!r}, {passed})",
                  "return"]
        return lines, True

    def _random(self, o, i):
        var, items, itvar, cond = o.var, o.items, o.cvar, o.where
        return self._values(items, itvar, cond) + [
            f"env[{self.lit(var)}] = st.pick(_vs) if _vs else None", BUMP], False

    def _ask(self, o, i):
        return [*self._at(i),
                f"st.ask_yes_no({self.x(o.player)}, {self.lit(o.var)}, {self._prompt(o.prompt)[0]})",
                "return"], True

    def _menu(self, o, i):
        items = self.pygen.bind(self.pygen.compile_menu(o.items), "_M")
        prompt = self._prompt(o.prompt)[0]
        return [*self._at(i), f"st.ask_menu({self.x(o.player)}, {prompt}, {items})", "return"], True

    def _window(self, o, i):
        var, tag = o.var, o.tag
        if tag not in self.game.windows:
            raise BadBundle(f"{self.where}[{i}][2]: unknown window {str(tag)[:40]!r}")
        players = self.fn(o.players)
        fields = "{" + ", ".join(f"{self.lit(k)}: {self.fn(v)}" for k, v in o.fields.items()) + "}"
        # poll_window bumps the version itself, right after the event is added
        return [*self._at(i), f"st.poll_window(fr, {self.lit(var)}, {self.lit(tag)}, {players}, {fields})",
                "return"], True


# Ops after which no value an op read up front (see Memo.first) needs reading
# again, but for the ones listed beside them; any other op forgets them all.
_KEEPS = {"set", "log", "assert", "phase", "reveal", "cancel", "shuffle", "attach", "detach"}


def entered_once(body: list) -> list:
    """The body of a function entered only at its first case and never
    jumping back to the chain (no `continue`: a procedure without a frame,
    or a start without one), line for line (a fault is placed by its line):
    its first case's test always holds, so it becomes `if True:`, which
    Python compiles to nothing; and where the only other case is the end,
    which every assignment of `pc` goes to, that test and those assignments
    go as well.  Anything else is left as it is."""
    stripped = [x.strip() for x in body]
    if "continue" in stripped or any(x.startswith("if pc < ") for x in stripped):
        return body
    tests = [i for i, x in enumerate(stripped) if x.startswith("if pc == ")]
    if not tests or stripped[tests[0]] != "if pc == 0:":
        return body

    def written(i, text):
        return body[i][:len(body[i]) - len(body[i].lstrip())] + text
    out = list(body)
    out[tests[0]] = written(tests[0], "if True:")
    sets = [i for i, x in enumerate(stripped) if x.startswith("pc = ")]
    if len(tests) == 2:
        end = stripped[tests[1]][len("if pc == "):-1]
        if all(stripped[i] == f"pc = {end}" for i in sets):
            out[tests[1]] = written(tests[1], "if True:")
            for i in sets:
                out[i] = written(i, "pass")
    elif sets and set(sets) == _falls_through(body, stripped, tests):
        # each case is entered only from the end of the one before it
        for i in tests[1:]:
            out[i] = written(i, "if True:")
        for i in sets:
            out[i] = written(i, "pass")
    return out


def _falls_through(body, stripped, tests) -> set | None:
    """The lines `pc = N` that end a case (the last line of its body) and
    go on to the next case, N its number; a case that ends otherwise must
    end in `return` or `raise`.  None where a case ends any other way."""
    out = set()
    for k, t in enumerate(tests):
        end = tests[k + 1] if k + 1 < len(tests) else None
        level = len(body[t]) - len(body[t].lstrip()) + 4
        last = None
        for i in range(t + 1, end if end is not None else len(body)):
            indent = len(body[i]) - len(body[i].lstrip())
            if indent < level and stripped[i]:
                break
            if indent == level and stripped[i] and not stripped[i].startswith("#"):
                last = i
        if last is None:
            return None
        if end is not None and stripped[last] == f"pc = {stripped[end][len('if pc == '):-1]}":
            out.add(last)
        elif not stripped[last].startswith(("return", "raise")):
            return None
    return out


def _jumps_to(ops, menu_targets) -> dict:
    """{op index: the ops that jump to it} (jumps, `if`s, loops' ends, menu options)."""
    into: dict[int, list] = {}
    for j, o in enumerate(ops):
        match o:
            case JumpOp(to=t) | JfOp(to=t) | nodes.NextOp(end=t) | nodes.CountdownOp(end=t):
                targets = [t]
            case MenuOp():
                found = {o.end}
                menu_targets(o.items, found)
                targets = list(found)
            case _:
                targets = []
        for t in targets:
            into.setdefault(t, []).append(j)
    return into


def _still_true(read: dict, o, lit) -> dict:
    """The values read up front by op `o` and the ops before it (text -> local)
    that the ops after it may use as they are: the frame's locals and the
    counters' lists stay, except a card counter `o` sets (its list may be
    copied on write); the cards in force change with a shuffle, an attach
    or a detach."""
    if o.kind not in _KEEPS:
        return {}
    gone = set()
    for text in read:
        if o.kind in ("shuffle", "attach", "detach") and text.startswith("_mods_of("):
            gone.add(text)
        if isinstance(o, SetOp) and isinstance(o.target, (Cctr, Cpp)) and \
                text == f"st.card_counters[{lit(str(o.target.counter))}]":
            gone.add(text)
    names = {read[t] for t in gone}
    out = {}
    for text, name in read.items():     # in the order made: what reads a dropped one goes too
        if text in gone or not names.isdisjoint(names_in(text)):
            names.add(name)
            continue
        out[text] = name
    return out


def bad_pc(name, pc):
    """A frame resumed where the engine never stops: a damaged or foreign save."""
    from cardc.engine.errors import CorruptState
    return CorruptState(f"the saved state resumes `{name}` at op {pc}, where the engine never stops")
