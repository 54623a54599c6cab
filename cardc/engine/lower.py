"""The passes over the syntax tree of each generated function, in order.

First `Placed` puts on the tree what the generator's own names stand for: a
text (`_s3`: no text is ever in generated source), a kept value (`_m12`)
and a marker's statements (`_r7`, see memo.py).  Then a caller's pass (a
frameless block's locals made Python locals, `localize`).  Then, last,
`FirstUse` and the rewrite below: comprehensions in generated code run as
plain loops.

The code generator writes expressions (pygen.py): a test over a zone is
`any(cond for c in zone)`, a filter `[c for c in zone if cond]`.  On the
Python cardc runs on (3.11), each of those is a function of its own: every
`any(...)` makes a generator and resumes it once per element, every list
comprehension makes a frame.  A loop written into the function does the
same work without them: `any` over eight cards takes 400 ns as a generator
and 115 ns as a loop (measured: docs/history/speed-waves.md); `len([c for
c in xs if cond])` counts, with no list made.  This pass rewrites
the syntax tree of each generated function before it is compiled:

    if a and any(f(c) for c in xs):         _q0 = a
        ...                                 if _q0:
                                                _q0 = False
                                                for c in xs:
                                                    if f(c):
                                                        _q0 = True
                                                        break
                                            if _q0:
                                                ...

Exactness: everything is evaluated in the same order, and only where it was
evaluated before.  A part the rewrite must evaluate ahead of the statement
(the loop) is preceded by whatever the expression evaluated before it, kept
in temporaries (`_q…`); `and`, `or` and `x if c else y` become `if`
statements, so a part that was skipped is still skipped.  What the rewrite
does not know how to order (an augmented assignment's target, a chained
comparison, a lambda, a comprehension that is not `any`/`all` or a list)
is left as it was.  New statements carry the line of the statement they came
from, so a fault is located as before (blocks.py reads the line from the
traceback), and `cardc build --explain` still prints the source as written.

Before that, a second pass (`FirstUse`) drops the tests of kept values the
function certainly computes: `(_m0 if _m0 is not _U else (_m0 := v))`,
read where nothing could have computed it yet and where it is certainly
evaluated, becomes `(_m0 := v)`, and the reads after it `_m0`.
"""
from __future__ import annotations

import ast

_COMPS = (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)


def lower(source: str, filename: str, placed=None, tree_pass=None, rewrite: bool = True):
    """The code object of `source`.  `placed` (a `Placed`) first puts on the
    syntax tree what the generator's own names stand for (texts, kept
    values); `tree_pass(tree)`, if given, then rewrites the module; then
    (not with `rewrite` False: the reference mode) each kept value is
    computed where it is first certainly needed, and comprehensions run as
    loops."""
    if placed is None and tree_pass is None and not (rewrite and " for " in source):
        return compile(source, filename, "exec")
    tree = ast.parse(source, filename)
    if placed is not None:
        placed.visit(tree)
    if tree_pass is not None:
        tree_pass(tree)
    kept = rewrite and placed is not None and placed.kept
    loops = rewrite and (" for " in source or (placed is not None and placed.loops))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            if kept:
                FirstUse().function(node)
            if loops:
                Lowering().function(node)
    return compile(tree, filename, "exec")


def _at(tree, where):
    """`tree` (made from text of its own) located where `where` is, every node
    of it: a fault inside is found on the line of the name it replaced."""
    for node in ast.walk(tree):
        if "lineno" in node._attributes:
            for attr in ("lineno", "end_lineno", "col_offset", "end_col_offset"):
                setattr(node, attr, getattr(where, attr))
    return tree


class Placed(ast.NodeTransformer):
    """What the generator's own names stand for, put on the syntax tree:

    - a text's name (`_s3`, PyGen.lit) becomes the text, a constant, so no
      text is ever in the source;
    - a slot's name (`_m12`, memo.Memo) becomes its value, or the kept form
      `(_m12 if _m12 is not _U else (_m12 := value))`;
    - a marker statement (`_r7`, memo.Memo) becomes its statements (kept
      values made unknown, values computed up front), or nothing.

    A value's or statement's text is the generator's own, parsed here; what
    it holds is placed in turn.  One `Placed` serves one function (it notes
    whether it made a kept form, or placed a comprehension)."""

    def __init__(self, texts: dict, placed: dict):
        self.texts, self.placed = texts, placed
        self.kept = self.loops = False

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Name):
            lines = self.placed.get(node.value.id)
            if isinstance(lines, list):
                self.loops = self.loops or any(" for " in line for line in lines)
                return [self.visit(_at(stmt, node)) for line in lines for stmt in ast.parse(line).body]
        return self.generic_visit(node)

    def visit_Name(self, node):
        if not isinstance(node.ctx, ast.Load):
            return node
        text = self.texts.get(node.id)
        if text is not None:
            return ast.copy_location(ast.Constant(text), node)
        value = self.placed.get(node.id)
        if value is None or isinstance(value, list):
            return node
        self.loops = self.loops or " for " in value.text
        expr = self.visit(_at(ast.parse(value.text, mode="eval").body, node))
        if not value.kept:
            return expr
        self.kept = True
        name = value.name
        return _at(ast.IfExp(
            test=ast.Compare(ast.Name(name, ast.Load()), [ast.IsNot()], [ast.Name("_U", ast.Load())]),
            body=ast.Name(name, ast.Load()),
            orelse=ast.NamedExpr(ast.Name(name, ast.Store()), expr)), node)


def localize(func: ast.FunctionDef, params: list, local_name) -> bool:
    """A frameless block's locals as Python locals: in `func`, written as
    `def f(st, env)`, every `env['x']` (read, written, added to, deleted)
    and `env.get('x')` becomes the local `local_name('x')`, and the
    parameters become `(st, *those of params)`.  Nothing outside such a
    block can read its locals (it never stops), so this is exact.  False,
    and `func` untouched, where `env` is used any other way, a name has no
    local (`local_name` gives None), or a name is read that is neither a
    parameter nor written in the block: the dict form stays."""
    found: list = []
    read: set = set()
    written: set = set()
    parents = {id(child): node for node in ast.walk(func) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(func):
        if not (isinstance(node, ast.Name) and node.id == "env"):
            continue
        up = parents.get(id(node))
        target: ast.expr
        if isinstance(up, ast.Subscript) and up.value is node and isinstance(up.slice, ast.Constant):
            key, target, store = up.slice.value, up, not isinstance(up.ctx, ast.Load)
        elif isinstance(up, ast.Attribute) and up.attr == "get" \
                and isinstance(call := parents.get(id(up)), ast.Call) and call.func is up \
                and len(call.args) == 1 and not call.keywords and isinstance(call.args[0], ast.Constant):
            key, target, store = call.args[0].value, call, False
        else:
            return False
        if not isinstance(key, str) or local_name(key) is None:
            return False
        (written if store else read).add(key)
        found.append((target, key))
    if read - written - set(params):
        return False
    swap = {id(target): key for target, key in found}

    class Swap(ast.NodeTransformer):
        def generic_visit(self, node):
            key = swap.get(id(node))
            if key is not None:
                return ast.copy_location(ast.Name(local_name(key), getattr(node, "ctx", ast.Load())), node)
            return super().generic_visit(node)
    Swap().visit(func)
    func.args.args = [ast.arg("st")] + [ast.arg(local_name(p)) for p in params]
    ast.fix_missing_locations(func)
    return True


def _one_loop(comp) -> bool:
    """A comprehension of one plain `for` (the only kind the generator writes)."""
    return len(comp.generators) == 1 and not comp.generators[0].is_async


def _any_all(node) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("any", "all") and len(node.args) == 1 and not node.keywords
            and isinstance(node.args[0], ast.GeneratorExp) and _one_loop(node.args[0]))


def _loopable(node) -> bool:
    return _any_all(node) or (isinstance(node, ast.ListComp) and _one_loop(node))


def _counted(node) -> bool:
    """`len([x for x in xs if …])`: how many pass, with no list made."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"
            and len(node.args) == 1 and not node.keywords):
        return False
    comp = node.args[0]
    return (isinstance(comp, ast.ListComp) and _one_loop(comp) and isinstance(comp.elt, ast.Name)
            and isinstance(comp.generators[0].target, ast.Name)
            and comp.elt.id == comp.generators[0].target.id)


def _stored(nodes) -> set:
    """Every name the expressions `nodes` may assign (a walrus, a loop)."""
    out = set()
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                out.add(sub.id)
    return out


class Lowering:
    """Rewrites one generated function."""

    def __init__(self):
        self.count = 0
        self.active = []        # the loop variables of the loops being written
        self.known = {}         # id(node) -> (needs(node), node)
        self.where = (1, 0, 1, 0)   # the place of the statement being rewritten

    def mk(self, kind, *args, **fields):
        """A new node, on the line of the statement being rewritten: a fault
        in the loop is a fault of the statement it came from."""
        node = kind(*args, **fields)
        node.lineno, node.col_offset, node.end_lineno, node.end_col_offset = self.where
        return node

    def temp(self) -> str:
        self.count += 1
        return f"_q{self.count}"

    # ------------------------------------------------------------ statements
    def function(self, fn: ast.FunctionDef):
        fn.body = self.body(fn.body)

    def body(self, stmts: list) -> list:
        out = []
        for stmt in stmts:
            out += self.statement(stmt)
        return out

    def statement(self, stmt) -> list:
        self.where = (stmt.lineno, stmt.col_offset, stmt.end_lineno, stmt.end_col_offset)
        if isinstance(stmt, (ast.Assign, ast.Return, ast.Expr)) and stmt.value is not None:
            pre, stmt.value = self.expr(stmt.value)
        elif isinstance(stmt, ast.If):
            pre, stmt.test = self.expr(stmt.test)
            stmt.body, stmt.orelse = self.body(stmt.body), self.body(stmt.orelse)
        elif isinstance(stmt, ast.For):
            pre, stmt.iter = self.expr(stmt.iter)
            stmt.body, stmt.orelse = self.body(stmt.body), self.body(stmt.orelse)
        elif isinstance(stmt, (ast.While, ast.With)):      # the test stays as it is
            pre = []
            stmt.body = self.body(stmt.body)
            if isinstance(stmt, ast.While):
                stmt.orelse = self.body(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            pre = []
            stmt.body, stmt.orelse = self.body(stmt.body), self.body(stmt.orelse)
            stmt.finalbody = self.body(stmt.finalbody)
            for handler in stmt.handlers:
                handler.body = self.body(handler.body)
        else:
            return [stmt]
        return pre + [stmt]

    # ------------------------------------------------------------ expressions
    def needs(self, node) -> bool:
        """Whether `node` has a comprehension this pass runs as a loop, where
        the enclosing function evaluates it (not in a lambda, not inside a
        comprehension left as it is)."""
        hit = self.known.get(id(node))
        if hit is None:
            if _loopable(node):
                known = True
            elif isinstance(node, (ast.Lambda,) + _COMPS):
                known = False
            else:
                known = False
                for child in ast.iter_child_nodes(node):
                    if self.needs(child):
                        known = True
                        break
            self.known[id(node)] = (known, node)    # the node kept: its id stays its own
            return known
        return hit[0]

    def expr(self, node) -> tuple[list, ast.expr]:
        """(statements to run first, the expression to evaluate after them):
        together they do what `node` does."""
        if not self.needs(node):
            return [], node
        if _loopable(node) and not self._free_target(node):
            return [], node          # nested in a loop of the same variable: left as it is
        if _any_all(node):
            return self._any_all(node)
        if _counted(node) and self._free_target(node.args[0]):
            return self._count(node.args[0])
        if isinstance(node, ast.ListComp):
            return self._list(node)
        if isinstance(node, ast.BoolOp):
            return self._bool(node)
        if isinstance(node, ast.IfExp):
            return self._ifexp(node)
        if isinstance(node, ast.NamedExpr):
            pre, value = self.expr(node.value)
            node.value = value
            return pre, node
        parts = self._parts(node)
        if parts is None:
            return [], node          # an order this pass does not know: left as it is
        return self._in_order(node, parts)

    def _free_target(self, node) -> bool:
        """A comprehension's variable is its own; a loop's is the function's.
        Two nested loops of one name would share it: such a comprehension
        (the generator makes none) stays one."""
        comp = node.args[0] if _any_all(node) else node
        return not (_stored([comp.generators[0].target]) & set(self.active))

    def _assign(self, name, value):
        return self.mk(ast.Assign, targets=[self.mk(ast.Name, name, ast.Store())], value=value)

    def _loop(self, comp, each) -> tuple[list, list]:
        """(statements before the loop, the loop) of comprehension `comp`:
        `each(elt)` gives the statements run for each element that passes the
        conditions.  The iterable is the enclosing scope's; the conditions and
        the element are the loop's (its variable marked as taken meanwhile)."""
        gen = comp.generators[0]
        pre, items = self.expr(gen.iter)
        names = list(_stored([gen.target]))
        self.active += names
        try:
            epre, elt = self.expr(comp.elt)
            inner = epre + each(elt)
            for cond in reversed(gen.ifs):
                cpre, test = self.expr(cond)
                inner = cpre + [self.mk(ast.If, test=test, body=inner, orelse=[])]
        finally:
            del self.active[len(self.active) - len(names):]
        return pre, [self.mk(ast.For, target=gen.target, iter=items, body=inner, orelse=[])]

    def _any_all(self, node):
        t = self.temp()
        found = node.func.id == "any"      # any: stop at the first true; all: at the first false
        stop = [self._assign(t, self.mk(ast.Constant, found)), self.mk(ast.Break)]

        def each(elt):
            return [self.mk(ast.If, test=elt if found else self.mk(ast.UnaryOp, ast.Not(), elt), body=stop, orelse=[])]
        pre, loop = self._loop(node.args[0], each)
        return pre + [self._assign(t, self.mk(ast.Constant, not found))] + loop, self.mk(ast.Name, t, ast.Load())

    def _list(self, node):
        t = self.temp()

        def each(elt):
            append = self.mk(ast.Attribute, self.mk(ast.Name, t, ast.Load()), "append", ast.Load())
            return [self.mk(ast.Expr, self.mk(ast.Call, append, [elt], []))]
        pre, loop = self._loop(node, each)
        return pre + [self._assign(t, self.mk(ast.List, [], ast.Load()))] + loop, self.mk(ast.Name, t, ast.Load())

    def _count(self, comp):
        t = self.temp()

        def each(elt):          # the element is the loop's variable: nothing to evaluate
            return [self.mk(ast.AugAssign, target=self.mk(ast.Name, t, ast.Store()), op=ast.Add(),
                            value=self.mk(ast.Constant, 1))]
        pre, loop = self._loop(comp, each)
        return pre + [self._assign(t, self.mk(ast.Constant, 0))] + loop, self.mk(ast.Name, t, ast.Load())

    def _bool(self, node):
        """`a and b and c`: `t = a`, then `if t: t = b`, then `if t: t = c`
        (`or`: `if not t`); the parts before the first that needs a loop stay
        one expression."""
        values = node.values
        k = next(i for i, v in enumerate(values) if self.needs(v))
        t = self.temp()
        if k == 0:
            pre, first = self.expr(values[0])
        else:
            pre, first = [], values[0] if k == 1 else self.mk(ast.BoolOp, node.op, values[:k])
        out = pre + [self._assign(t, first)]
        for v in values[max(k, 1):]:
            vpre, value = self.expr(v)
            test = self.mk(ast.Name, t, ast.Load())
            if isinstance(node.op, ast.Or):
                test = self.mk(ast.UnaryOp, ast.Not(), test)
            out.append(self.mk(ast.If, test=test, body=vpre + [self._assign(t, value)], orelse=[]))
        return out, self.mk(ast.Name, t, ast.Load())

    def _ifexp(self, node):
        t = self.temp()
        pre, test = self.expr(node.test)
        bpre, body = self.expr(node.body)
        opre, orelse = self.expr(node.orelse)
        return pre + [self.mk(ast.If, test=test, body=bpre + [self._assign(t, body)],
                             orelse=opre + [self._assign(t, orelse)])], self.mk(ast.Name, t, ast.Load())

    @staticmethod
    def _parts(node):
        """The (object, field, index) of `node`'s sub-expressions in the
        order Python evaluates them, for the kinds whose order is plain;
        None for any other."""
        if isinstance(node, ast.Call):
            if any(isinstance(a, ast.Starred) for a in node.args) or \
                    any(k.arg is None for k in node.keywords):
                return None
            return ([(node, "func", None)] + [(node.args, None, i) for i in range(len(node.args))]
                    + [(k, "value", None) for k in node.keywords])
        if isinstance(node, ast.BinOp):
            return [(node, "left", None), (node, "right", None)]
        if isinstance(node, ast.UnaryOp):
            return [(node, "operand", None)]
        if isinstance(node, ast.Compare) and len(node.comparators) == 1:
            return [(node, "left", None), (node.comparators, None, 0)]
        if isinstance(node, (ast.Subscript,)):
            return [(node, "value", None), (node, "slice", None)]
        if isinstance(node, ast.Attribute):
            return [(node, "value", None)]
        if isinstance(node, (ast.Tuple, ast.List)) and isinstance(node.ctx, ast.Load) and \
                not any(isinstance(e, ast.Starred) for e in node.elts):
            return [(node.elts, None, i) for i in range(len(node.elts))]
        if isinstance(node, ast.Dict) and None not in node.keys:
            out = []
            for i in range(len(node.keys)):
                out += [(node.keys, None, i), (node.values, None, i)]
            return out
        return None

    def _in_order(self, node, parts):
        """`f(a, any(…), b)`: `a` kept in a temporary, the loop, then the call.
        A part before the last one that needs a loop is kept in a temporary
        unless it is a constant, or a name nothing after it can change."""
        def get(p):
            obj, field, i = p
            return obj[i] if field is None else getattr(obj, field)

        def put(p, value):
            obj, field, i = p
            if field is None:
                obj[i] = value
            else:
                setattr(obj, field, value)

        last = max(i for i, p in enumerate(parts) if self.needs(get(p)))
        later = _stored([get(p) for p in parts[1:last + 1]])
        out = []
        for i, p in enumerate(parts[:last + 1]):
            pre, value = self.expr(get(p))
            out += pre
            if i < last and not (isinstance(value, ast.Constant) or
                                 (isinstance(value, ast.Name) and value.id not in later)):
                t = self.temp()
                out.append(self._assign(t, value))
                value = self.mk(ast.Name, t, ast.Load())
            put(p, value)
        return out, node


# ---------------------------------------------------------------- kept values
def _kept(node):
    """`(_m3 if _m3 is not _U else (_m3 := value))`, a value the generator
    keeps (pygen.Memo): its name, or None."""
    if not (isinstance(node, ast.IfExp) and isinstance(node.body, ast.Name)
            and isinstance(node.orelse, ast.NamedExpr)):
        return None
    test, name = node.test, node.body.id
    if (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == name
            and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot)
            and isinstance(test.comparators[0], ast.Name) and test.comparators[0].id == "_U"
            and node.orelse.target.id == name):
        return name
    return None


def _reset(stmt) -> bool:
    """`_m0 = _m3 = _U`: kept values made unknown (pygen.Memo.finish)."""
    return (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name) and stmt.value.id == "_U"
            and all(isinstance(t, ast.Name) for t in stmt.targets))


class FirstUse:
    """A kept value is computed lazily wherever it is read, so that a value
    never needed is never computed (pygen.Memo): each read tests whether it
    was.  Where a run of statements certainly evaluates one of those reads
    before any other (it is not behind an `and`, an `or`, a condition or a
    loop), that read simply computes it (`(_m3 := value)`) and every later
    read in the run is the plain name: the same values, computed at the same
    moment, with no test.  A read that may have run earlier (behind a
    condition, or in an `if` before) keeps its test, and the first certain
    read after it is still the one that makes sure the value is computed.

    A run is the statements after a reset (`_m3 = _U`, at the top of the
    function, of a loop's body or of a block's case), and the body of an
    `if` in it (entered, it runs in order too).  A value reset outside a
    loop is never computed by a read inside the loop (that would compute it
    once an element), only read plainly there if it was computed before."""

    def __init__(self):
        self.mine = set()       # the kept values this run may compute
        self.done = set()       # those certainly computed by now
        self.seen = set()       # those read where they may have been computed
        self.made = set()       # the ids of the plain reads this pass wrote
        self.resets = []        # (the statements holding it, a reset)
        self.cleared = set()    # the values reset in the run being read

    def function(self, fn: ast.FunctionDef):
        self.body(fn.body)
        # a reset stays for a value some read still tests (or reads as written)
        left = {n.id for n in ast.walk(fn)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in self.made}
        for holder, stmt in self.resets:
            stmt.targets = [t for t in stmt.targets if t.id in left]
            if not stmt.targets:
                holder[:] = [x for x in holder if x is not stmt] or [ast.copy_location(ast.Pass(), stmt)]

    def body(self, stmts: list, loop=False):
        """The statements of a run; `loop`: a loop's body, where only the
        values reset in it may be computed.  What is computed in it counts
        only in it; what may have been read in it counts after it too."""
        mine, done, seen, cleared = self.mine, self.done, set(self.seen), self.cleared
        self.mine, self.done, self.cleared = (set() if loop else set(mine)), set(done), set()
        try:
            for stmt in list(stmts):
                if _reset(stmt):
                    names = {t.id for t in stmt.targets}
                    self.cleared |= names
                    self.mine |= names
                    self.done -= names
                    self.seen -= names
                    self.resets.append((stmts, stmt))
                else:
                    self.statement(stmt)
        finally:
            # a reset in it may or may not have run: a value computed before
            # it is no longer certain, and one read before it may still be set
            inner = self.cleared
            self.mine, self.done, self.cleared = mine, done - inner, cleared | inner
            self.seen |= seen

    def statement(self, stmt):
        if isinstance(stmt, (ast.Assign, ast.Return, ast.Expr)) and stmt.value is not None:
            stmt.value = self.expr(stmt.value, True)
        elif isinstance(stmt, ast.If):
            stmt.test = self.expr(stmt.test, True)
            self.body(stmt.body)
            self.body(stmt.orelse)
        elif isinstance(stmt, ast.For) and not stmt.orelse:
            stmt.iter = self.expr(stmt.iter, True)
            self.body(stmt.body, loop=True)
        elif isinstance(stmt, ast.While) and not stmt.orelse:
            stmt.test = self.expr(stmt.test, False)     # evaluated again after each round
            self.body(stmt.body, loop=True)
        else:           # a `try`, a `with`…: only what is computed already is read plainly
            self.plainly(stmt)

    def expr(self, node, certain):
        name = _kept(node)
        if name is not None:
            if name in self.done:
                return self._name(name, node)
            first = certain and name in self.mine and name not in self.seen
            node.orelse.value = self.expr(node.orelse.value, first)
            self.seen.add(name)
            if not (certain and name in self.mine):
                return node
            self.done.add(name)         # after its value, which is evaluated first
            return node.orelse if first else node
        if isinstance(node, ast.BoolOp):
            node.values = [self.expr(v, certain and i == 0) for i, v in enumerate(node.values)]
        elif isinstance(node, ast.IfExp):
            node.test = self.expr(node.test, certain)
            node.body, node.orelse = self.expr(node.body, False), self.expr(node.orelse, False)
        elif isinstance(node, ast.NamedExpr):
            node.value = self.expr(node.value, certain)
        else:
            parts = None if isinstance(node, (ast.Lambda,) + _COMPS) else Lowering._parts(node)
            if parts is None:   # an order this pass does not follow, or parts that may not run
                return self.plainly(node)
            for obj, field, i in parts:
                if field is None:
                    obj[i] = self.expr(obj[i], certain)
                else:
                    setattr(obj, field, self.expr(getattr(obj, field), certain))
        return node

    def plainly(self, node):
        """`node` with each read of a value computed by now made plain."""
        node = self._plain(node)
        for sub in ast.walk(node):
            for field, value in ast.iter_fields(sub):
                if isinstance(value, list):
                    value[:] = [self._plain(v) for v in value]
                elif isinstance(value, ast.AST):
                    setattr(sub, field, self._plain(value))
        return node

    def _name(self, name, node):
        out = ast.copy_location(ast.Name(name, ast.Load()), node)
        self.made.add(id(out))
        return out

    def _plain(self, node):
        name = _kept(node)
        if name in self.done:
            return self._name(name, node)
        if name is not None:
            self.seen.add(name)
        return node
