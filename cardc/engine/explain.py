"""`cardc build --explain`: the Python the engine generates for a game, to read.

The engine compiles a bundle into Python functions at load (see pygen.py and
blocks.py).  This writes all of them out as one module: first what each
bound name stands for (a card field, a builtin, another block), then every
generated function in the order it was made.  Each statement of a block
carries a comment with its `file:line:col` and, when the content file is at
hand, the line of effect text it came from.  The module is for people: the
engine never imports it.
"""
from __future__ import annotations

import re
from pathlib import Path

_WHERE = re.compile(r"^(\s*)# (\S+):(\d+):(\d+) (\w+)$")


def explain(game, root: Path | None = None) -> str:
    """The generated module of `game` as text; source lines are read from
    files under `root` (the project folder) when they exist."""
    px = game.pygen
    out = [f'"""Generated engine code of `{game.id}` (bundle {game.hash[:12]}): for reading only.',
           "",
           "Written by `cardc build --explain`.  Each block runs `def _blkN(st, fr)` from the",
           "frame's pc; see cardc/engine/blocks.py.  Names bound in the namespace:", '"""', ""]
    for key, (name, obj) in sorted(px.names.items(), key=lambda kv: _natural(kv[1][0])):
        out.append(f"# {name} = {_describe(game, obj)}")
    out.append("")
    files: dict = {}
    for _, source in px.sources:
        for line in source.splitlines():
            out.append(line)
            m = _WHERE.match(line)
            if m:
                text = _source_line(files, root, m.group(2), int(m.group(3)))
                if text:
                    out[-1] = f"{line}:  {text}"
        out.append("")
    return "\n".join(out) + "\n"


def _natural(name):
    m = re.match(r"(\D+)(\d+)", name)
    return (m.group(1), int(m.group(2))) if m else (name, 0)


def _describe(game, obj) -> str:
    from cardc.engine.blocks import Code
    from cardc.engine.game import CacheProbe
    if isinstance(obj, Code):
        return f"the block {obj.name!r} ({obj.label})"
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
        for base in ([root] if root else []) + [Path.cwd()]:
            path = Path(file) if Path(file).is_absolute() else base / file
            try:
                text = path.read_text(encoding="utf-8").splitlines()
                break
            except OSError:
                continue
        files[file] = text
    lines = files[file]
    if lines and 0 < line <= len(lines):
        return lines[line - 1].strip()[:100]
    return ""
