"""`cardc build --explain`: the Python the engine generates for a game, to read.

The engine compiles a bundle into Python functions at load (see pygen.py and
blocks.py).  This writes all of them out as one module: first what each
bound name stands for (a card field, a builtin, another block), then every
generated function in the order it was made.  The generated source marks a
block's ops only by number (`# op 7`: no content string is ever part of
generated code); here each mark gets its `file:line:col` from the block's
side table (`PyGen.origins`, `Code.where`) and, when the content file is in
the project, the line of effect text it came from.  The module is for
people: the engine never imports it.
"""
from __future__ import annotations

import re
from pathlib import Path

_OP = re.compile(r"^\s*# op (\d+)\b")
_PLACED = re.compile(r"\b_[sm]\d+\b")
_MARKER = re.compile(r"(\s*)(_r\d+)")


def _as_run(pygen, line) -> list:
    """A generated line as it runs, written out for people: what lower.Placed
    puts on the tree in place of the generator's own names (a text, a kept
    value, a marker's statements).  The engine never writes a text into its
    source; this page does, to be read."""
    m = _MARKER.fullmatch(line)
    if m:       # assignments: the names they set stay names
        return [f"{m.group(1)}{names} = {_as_run_expr(pygen, value)}"
                for names, _, value in (x.rpartition(" = ") for x in pygen.placed.get(m.group(2), []))]
    return [_as_run_expr(pygen, line)]


def _as_run_expr(pygen, text) -> str:
    def one(m):
        name = m.group(0)
        if name in pygen.text_values:
            return repr(pygen.text_values[name])
        value = pygen.placed.get(name)
        if isinstance(value, list) or value is None:
            return name
        inner = _as_run_expr(pygen, value.text)
        return f"({name} if {name} is not _U else ({name} := {inner}))" if value.kept else inner
    return _PLACED.sub(one, text)


def explain(game, root: Path | None = None) -> str:
    """The generated module of `game` as text; source lines are read from
    files under `root` (the project folder) when they exist."""
    pygen = game.pygen
    out = [f'"""Generated engine code of `{game.id}` (bundle {game.hash[:12]}): for reading only.',
           "",
           "Written by `cardc build --explain`.  Each block runs `def _blkN(st, fr)` from the",
           "frame's pc; see cardc/engine/blocks.py.  Names bound in the namespace:", '"""', ""]
    for name, obj in sorted(pygen.names.values(), key=lambda entry: _natural(entry[0])):
        out.append(f"# {name} = {_describe(game, obj)}")
    out.append("")
    files: dict = {}
    for name, source in pygen.sources:
        code = pygen.origins.get(name)
        for k, line in enumerate(source.splitlines()):
            shown = _as_run(pygen, line)
            if len(shown) != 1:
                out += shown
                continue
            line = shown[0]
            if code is not None and k == 1:
                line = f"{line}: {_one_line(code.label)} ({_one_line(code.file)})"
            m = _OP.match(line) if code is not None else None
            if m:
                pc = int(m.group(1))
                line = f"{line}  {_one_line(code.where(pc))}"
                if 0 <= pc < len(code.src):
                    text = _source_line(files, root, code.file, int(code.src[pc][0]))
                    if text:
                        line = f"{line}:  {_one_line(text)}"
            out.append(line)
        out.append("")
    return "\n".join(out) + "\n"


def _one_line(text) -> str:
    """Content text on one line of this module (a file name may hold a newline)."""
    return repr(str(text))[1:-1]


def _natural(name):
    m = re.match(r"(\D+)(\d+)", name)
    return (m.group(1), int(m.group(2))) if m else (name, 0)


def _describe(game, obj) -> str:
    from cardc.engine.blocks import Code
    from cardc.engine.game import CacheProbe
    if isinstance(obj, Code):
        return f"the block {obj.name!r} ({_one_line(obj.label)})"
    if isinstance(obj, CacheProbe):
        return (f"the count of function {obj.name!r}'s first calls, which settles "
                "whether it stays cached (game.CacheProbe)")
    if isinstance(obj, list):
        for field, values in game.card_field.items():
            if values is obj:
                return f"the printed field {field!r} of every card"
        return "a list"
    from cardc.engine.builtins import IMPL, cards_in, zone_index
    for builtin, impl in list(IMPL.items()) + [("zone_index (a whole zone by cell)", zone_index),
                                               ("cards_in (cards_at on a zone index)", cards_in)]:
        if impl is obj:
            return f"the builtin {builtin} (cardc/engine/builtins.py)"
    name = getattr(obj, "__name__", type(obj).__name__)
    return f"the generated function {name}" if name.startswith(("_fn", "_e", "_body", "_menu")) \
        else name


def _source_line(files, root, file, line) -> str:
    if file not in files:
        text = None
        # only a file inside the project: the bundle's `file` is untrusted
        base = (root or Path.cwd()).resolve()
        try:
            path = (base / str(file)).resolve()
        except (OSError, ValueError):
            path = None
        if path is not None and path.is_relative_to(base):
            try:
                text = path.read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError):
                text = None
        files[file] = text
    lines = files[file]
    if lines and 0 < line <= len(lines):
        return lines[line - 1].strip()[:100]
    return ""
