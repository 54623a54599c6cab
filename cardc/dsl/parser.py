"""Parse effect-language text into the typed nodes of `cardc.dsl.nodes`.

One LALR parser is built from `grammar/effects.lark` and cached.  Errors are
raised as `DslError` carrying the character offset in the effect text; the
caller maps that offset to the YAML file's line and column, because only it
knows where the text sits in the file.
"""
from __future__ import annotations

import functools

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from lark.indenter import DedentError, Indenter

from cardc.dsl import nodes as n
from cardc.load.paths import GRAMMAR


class DslError(Exception):
    """A syntax error at `offset` characters into the effect text."""

    def __init__(self, offset: int, message: str, hint: str | None = None, length: int = 1):
        super().__init__(message)
        self.offset = offset
        self.message = message
        self.hint = hint
        self.length = max(1, length)


class _Indenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB"]
    CLOSE_PAREN_types = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8


@functools.cache
def _lark() -> Lark:
    return Lark((GRAMMAR / "effects.lark").read_text(), parser="lalr",
                start=["start", "expr_start"], postlex=_Indenter(),
                propagate_positions=True, maybe_placeholders=True)


# Plain words for the grammar's terminals, used in "expected ..." messages.
_WORDS = {
    "_NL": "end of line", "_INDENT": "an indented block", "_DEDENT": "end of block",
    "NAME": "a name", "NUMBER": "a number", "STRING": "a \"string\"",
    "COLON": "`:`", "LPAR": "`(`", "RPAR": "`)`", "LSQB": "`[`", "RSQB": "`]`",
    "COMMA": "`,`", "DOT": "`.`", "EQUAL": "`=`", "$END": "end of text",
}


def _word(term: str) -> str:
    if term in _WORDS:
        return _WORDS[term]
    for t in _lark().terminals:
        if t.name == term:
            pattern = t.pattern.value
            if t.pattern.type == "str":
                return f"`{pattern}`"
    return term.lower()


def _expected(exc: UnexpectedInput) -> str:
    """"; expected a, b" when the parser wanted one of a few things; a long
    list of operators helps nobody, so it is left out."""
    try:  # the interactive parser knows exactly what this state accepts
        terms = list(exc.interactive_parser.accepts())
    except Exception:
        terms = list(getattr(exc, "expected", ()) or ())
    terms = [t for t in terms if not t.startswith("__") and t != "$END"]
    expected = sorted({_word(t) for t in terms})
    if not expected:
        return ""
    if len(expected) <= 6:
        return "; expected " + ", ".join(expected)
    if "NAME" in terms or "NUMBER" in terms:
        return ": the expression is not finished"
    operators = {"and", "or", "not", "in", "if", "else"}
    keywords = [w for w in expected if w.strip("`").isalpha() and w.strip("`") not in operators]
    if 1 <= len(keywords) <= 3:
        return "; expected " + " or ".join(keywords) + " (or an operator)"
    return ""


STATEMENT_WORDS = ["let", "move", "shuffle", "attach", "detach", "reveal", "break", "return",
                   "log", "resolve", "trigger", "end", "assert", "cancel", "pass", "if", "for",
                   "repeat", "while", "phase", "choose"]


def _unknown_statement(source: str, pos: int):
    """When a line starts with a word that is not a statement and the parser
    trips right after it, the word is most likely a misspelt statement."""
    line_start = source.rfind("\n", 0, pos) + 1
    line = source[line_start:pos]
    words = line.split()
    if len(words) == 1 and words[0].isidentifier() and words[0] not in STATEMENT_WORDS:
        import difflib
        close = difflib.get_close_matches(words[0], STATEMENT_WORDS, n=1, cutoff=0.6)
        start = line_start + line.index(words[0])
        hint = f"did you mean `{close[0]}`?" if close else "a statement starts with a keyword " \
            "(let, move, if, …), a counter to set, or a procedure call"
        return start, f"unknown statement `{words[0]}`", hint, len(words[0])
    return None


def parse_block(text: str) -> list:
    """Parse a block of statements (a card effect, a proc body)."""
    return _parse(text, "start")


def parse_expr(text: str) -> n.Expr:
    """Parse a single expression (a condition, a score, a modifier)."""
    return _parse(text, "expr_start")


def _parse(text: str, start: str, offset: int = 0):
    source = str(text)
    if not source.endswith("\n"):
        source += "\n"
    try:
        tree = _lark().parse(source, start=start)
    except UnexpectedCharacters as exc:
        pos = exc.pos_in_stream or 0
        ch = source[pos]
        what = "a tab" if ch == "\t" else f"`{ch}`"
        raise DslError(offset + pos, f"unexpected character {what}") from None
    except UnexpectedToken as exc:
        tok = exc.token
        if tok.type == "$END" or (tok.type == "_DEDENT" and tok.start_pos is None):
            pos = len(source.rstrip())
            raise DslError(offset + pos, "the text ends too early" + _expected(exc)) from None
        if tok.type in ("_NL", "_DEDENT"):
            pos = tok.start_pos if tok.start_pos is not None else len(source.rstrip())
            if tok.type == "_NL":
                pos = _line_end(source, pos)
            raise DslError(offset + pos, "unexpected end of line" + _expected(exc)) from None
        if tok.type == "_INDENT":
            raise DslError(offset + tok.start_pos, "unexpected indent") from None
        guess = _unknown_statement(source, tok.start_pos)
        if guess:
            pos, message, hint, length = guess
            raise DslError(offset + pos, message, hint, length) from None
        raise DslError(offset + tok.start_pos, f"unexpected `{tok.value}`" + _expected(exc),
                       length=len(tok.value)) from None
    except UnexpectedEOF as exc:
        raise DslError(offset + len(source.rstrip()), "the text ends too early" + _expected(exc)) from None
    except DedentError as exc:
        raise DslError(offset + _dedent_pos(source), f"inconsistent indentation ({exc})") from None
    except LarkError as exc:  # any other parser failure still gets a location
        raise DslError(offset, f"cannot parse: {exc}") from None
    _check_depth(tree, offset)
    try:
        result = _ToNodes(source, offset).transform(tree)
    except VisitError as exc:
        if isinstance(exc.orig_exc, DslError):
            raise exc.orig_exc from None
        raise
    if start == "expr_start":
        return result.children[0] if hasattr(result, "children") else result
    return result


def _check_depth(tree, offset: int) -> None:
    """Refuse a tree nested deeper than MAX_PARSE_DEPTH (3,000 `not`s, 200
    brackets) before anything walks it recursively."""
    from lark import Tree

    from cardc.ir.content_limits import MAX_PARSE_DEPTH
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, Tree):
            continue
        if depth > MAX_PARSE_DEPTH:
            pos = getattr(node.meta, "start_pos", 0) if not node.meta.empty else 0
            raise DslError(offset + (pos or 0), f"this nests too deeply to check: over {MAX_PARSE_DEPTH} levels "
                           "of the parser's tree (about 50 brackets, 200 `not`s or 60 blocks inside each other)",
                           "split it into smaller parts with `let` or a function")
        stack.extend((child, depth + 1) for child in node.children)


def _line_end(source: str, pos: int) -> int:
    """Point an end-of-line error at the end of the last code on that line."""
    line_start = source.rfind("\n", 0, pos) + 1
    line = source[line_start:pos]
    code = line.split("#", 1)[0].rstrip()
    return line_start + len(code) if code else pos


def _dedent_pos(source: str) -> int:
    """Best guess at where an inconsistent dedent happens: the first line whose
    indentation matches no enclosing block."""
    stack = [0]
    offset = 0
    for line in source.splitlines(keepends=True):
        stripped = line.lstrip(" ")
        if stripped.strip() and not stripped.startswith("#"):
            indent = len(line) - len(stripped)
            if indent > stack[-1]:
                stack.append(indent)
            else:
                while indent < stack[-1]:
                    stack.pop()
                if indent != stack[-1]:
                    return offset + indent
        offset += len(line)
    return 0


def _unescape(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def parse_string(token_value: str, start: int) -> n.Str:
    """A quoted string token with `{expr}` interpolations.  `{{` and `}}` are
    literal braces.  `start` is the offset of the opening quote."""
    body = token_value[1:-1]
    parts: list = []
    buf = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "{" and body.startswith("{{", i):
            buf.append("{")
            i += 2
        elif ch == "}" and body.startswith("}}", i):
            buf.append("}")
            i += 2
        elif ch == "{":
            close = body.find("}", i)
            if close < 0:
                raise DslError(start + 1 + i, "`{` without a closing `}` in a string",
                               hint="write `{{` for a literal brace")
            if buf:
                parts.append(_unescape("".join(buf)))
                buf = []
            inner = body[i + 1:close]
            if not inner.strip():
                raise DslError(start + 1 + i, "empty `{}` in a string")
            parts.append(_parse(inner, "expr_start", offset=start + 2 + i))
            i = close + 1
        elif ch == "\\" and i + 1 < len(body):
            buf.append(body[i:i + 2])
            i += 2
        else:
            buf.append(ch)
            i += 1
    if buf:
        parts.append(_unescape("".join(buf)))
    return n.Str(parts, pos=start, end=start + len(token_value))


def _pos(node, meta_or_tok, offset):
    start = getattr(meta_or_tok, "start_pos", None)
    end = getattr(meta_or_tok, "end_pos", None)
    if start is not None:
        node.pos = start + offset
        node.end = (end or start) + offset
    return node


class _ToNodes(Transformer):
    """Lark tree -> nodes.  Each method receives the children of one rule."""

    def __init__(self, source: str, offset: int):
        super().__init__()
        self.offset = offset

    def _at(self, node, meta):
        return _pos(node, meta, self.offset)

    def _str(self, tok: Token) -> n.Str:
        return parse_string(tok.value, (tok.start_pos or 0) + self.offset)

    # ----- blocks
    def start(self, children):
        return [c for c in children if c is not None]

    def suite(self, children):
        return [c for c in children if c is not None]

    # ----- simple statements
    @v_args(meta=True)
    def let_stmt(self, meta, c):
        return self._at(n.Let(str(c[0]), c[1]), meta)

    @v_args(meta=True)
    def expr_stmt(self, meta, c):
        expr, op, rhs = c
        if op is None:
            return self._at(n.ExprStmt(expr), meta)
        return self._at(n.Assign(expr, str(op), rhs), meta)

    def assign_op(self, c):
        return str(c[0])

    def place(self, c):
        return str(c[0])

    def optional(self, c):
        return True

    @v_args(meta=True)
    def move_stmt(self, meta, c):
        return self._at(n.Move(c[0], c[1], c[2] or "top"), meta)

    @v_args(meta=True)
    def shuffle_stmt(self, meta, c):
        return self._at(n.Shuffle(c[0]), meta)

    @v_args(meta=True)
    def attach_stmt(self, meta, c):
        return self._at(n.Attach(c[0], c[1]), meta)

    @v_args(meta=True)
    def detach_stmt(self, meta, c):
        return self._at(n.Detach(c[0]), meta)

    @v_args(meta=True)
    def reveal_stmt(self, meta, c):
        return self._at(n.Reveal(c[0], c[1]), meta)

    @v_args(meta=True)
    def break_stmt(self, meta, c):
        return self._at(n.Break(), meta)

    @v_args(meta=True)
    def return_stmt(self, meta, c):
        return self._at(n.Return(c[0]), meta)

    @v_args(meta=True)
    def log_stmt(self, meta, c):
        return self._at(n.Log(self._str(c[0])), meta)

    @v_args(meta=True)
    def resolve_stmt(self, meta, c):
        return self._at(n.Resolve(c[0]), meta)

    @v_args(meta=True)
    def trigger_stmt(self, meta, c):
        return self._at(n.Trigger(str(c[0]), c[1] or {}), meta)

    @v_args(meta=True)
    def end_stmt(self, meta, c):
        return self._at(n.EndGame(c[0]), meta)

    @v_args(meta=True)
    def assert_stmt(self, meta, c):
        return self._at(n.Assert(c[0], self._str(c[1])), meta)

    @v_args(meta=True)
    def cancel_stmt(self, meta, c):
        return self._at(n.Cancel(c[0]), meta)

    @v_args(meta=True)
    def pass_stmt(self, meta, c):
        return self._at(n.Pass(), meta)

    # ----- choices
    def where(self, c):
        return c[0]

    def by(self, c):
        return c[0]

    def prompt(self, c):
        return self._str(c[0])

    @v_args(meta=True)
    def choose_rhs(self, meta, c):
        var, it, where, by, optional, prompt = c
        return self._at(n.Choose(str(var), it, where, by, bool(optional), prompt), meta)

    @v_args(meta=True)
    def random_rhs(self, meta, c):
        return self._at(n.Random(str(c[0]), c[1], c[2]), meta)

    @v_args(meta=True)
    def ask_rhs(self, meta, c):
        return self._at(n.Ask(c[0], self._str(c[1])), meta)

    @v_args(meta=True)
    def window_rhs(self, meta, c):
        return self._at(n.Window(str(c[0]), c[1], c[2] or {}), meta)

    def kwargs(self, c):
        return dict(c)

    def kwarg_(self, c):
        return (str(c[0]), c[1])

    # ----- compound statements
    @v_args(meta=True)
    def if_stmt(self, meta, c):
        branches = [(c[0], c[1])]
        other = None
        for extra in c[2:]:
            if extra is None:
                continue
            if extra[0] == "elif":
                branches.append((extra[1], extra[2]))
            else:
                other = extra[1]
        return self._at(n.If(branches, other), meta)

    def elif_clause(self, c):
        return ("elif", c[0], c[1])

    def else_clause(self, c):
        return ("else", c[0])

    @v_args(meta=True)
    def for_stmt(self, meta, c):
        return self._at(n.For(str(c[0]), c[1], c[2]), meta)

    @v_args(meta=True)
    def repeat_stmt(self, meta, c):
        return self._at(n.Repeat(c[0], c[1]), meta)

    @v_args(meta=True)
    def while_stmt(self, meta, c):
        return self._at(n.While(c[0], c[1]), meta)

    @v_args(meta=True)
    def phase_stmt(self, meta, c):
        return self._at(n.Phase(str(c[0]), c[1]), meta)

    @v_args(meta=True)
    def menu_stmt(self, meta, c):
        by, prompt, *items = c
        return self._at(n.Menu(by, prompt, items), meta)

    @v_args(meta=True)
    def option_item(self, meta, c):
        label = self._str(c[0])
        cond, reason = (c[1] if c[1] is not None else (None, None))
        return self._at(n.MenuOption(label, cond, reason, c[2]), meta)

    def option_cond(self, c):
        reason = self._str(c[1]) if c[1] is not None else None
        return (c[0], reason)

    @v_args(meta=True)
    def menu_for(self, meta, c):
        return self._at(n.MenuFor(str(c[0]), c[1], list(c[2:])), meta)

    @v_args(meta=True)
    def menu_if(self, meta, c):
        cond, items, *rest = c
        other = rest.pop() if rest else None
        return self._at(n.MenuIf(cond, items, [tuple(e) for e in rest], other), meta)

    def menu_elif(self, c):
        return (c[0], c[1])

    def menu_else(self, c):
        return c[0]

    def menu_items(self, c):
        return list(c)

    # ----- expressions
    def expr_start(self, c):
        return c[0]

    @v_args(meta=True)
    def cond_expr(self, meta, c):
        return self._at(n.IfExpr(c[1], c[0], c[2]), meta)

    @v_args(meta=True)
    def or_(self, meta, c):
        return c[0] if len(c) == 1 else self._at(n.BoolOp("or", list(c)), meta)

    @v_args(meta=True)
    def and_(self, meta, c):
        return c[0] if len(c) == 1 else self._at(n.BoolOp("and", list(c)), meta)

    @v_args(meta=True)
    def not_(self, meta, c):
        return self._at(n.Not(c[0]), meta)

    def comp_op(self, c):
        return " ".join(str(t) for t in c)

    @v_args(meta=True)
    def comparison(self, meta, c):
        return self._at(n.Compare(c[1], c[0], c[2]), meta)

    def add_op(self, c):
        return str(c[0])

    def mul_op(self, c):
        return str(c[0])

    @v_args(meta=True)
    def binop(self, meta, c):
        node = c[0]
        for i in range(1, len(c), 2):
            node = n.BinOp(c[i], node, c[i + 1], pos=node.pos)
            node.end = c[i + 1].end
        return node

    @v_args(meta=True)
    def neg(self, meta, c):
        return self._at(n.Neg(c[0]), meta)

    @v_args(meta=True)
    def attr(self, meta, c):
        return self._at(n.Attr(c[0], str(c[1])), meta)

    @v_args(meta=True)
    def index(self, meta, c):
        return self._at(n.Index(c[0], c[1]), meta)

    @v_args(meta=True)
    def number(self, meta, c):
        return self._at(n.Lit(int(c[0])), meta)

    @v_args(meta=True)
    def string(self, meta, c):
        return self._str(c[0])

    @v_args(meta=True)
    def true(self, meta, c):
        return self._at(n.Lit(True), meta)

    @v_args(meta=True)
    def false(self, meta, c):
        return self._at(n.Lit(False), meta)

    @v_args(meta=True)
    def none(self, meta, c):
        return self._at(n.Lit(None), meta)

    @v_args(meta=True)
    def name(self, meta, c):
        return self._at(n.Name(str(c[0])), meta)

    @v_args(meta=True)
    def call(self, meta, c):
        args, kwargs = [], {}
        for a in (c[1] or []):
            if isinstance(a, tuple):
                kwargs[a[0]] = a[1]
            else:
                args.append(a)
        return self._at(n.Call(str(c[0]), args, kwargs), meta)

    def args(self, c):
        return list(c)

    def kwarg(self, c):
        return (str(c[0]), c[1])

    @v_args(meta=True)
    def list_(self, meta, c):
        return self._at(n.ListLit([x for x in c if x is not None]), meta)

    @v_args(meta=True)
    def comp(self, meta, c):
        return self._at(n.ListComp(c[0], str(c[1]), c[2], c[3]), meta)
