"""The builtin functions of the effect language, each declared once.

A builtin is a name content calls (`neighbors(c)`, `range(1, 5)`).  Its
declaration here says everything the rest of cardc needs to know about it:

- its type rule: the argument types and the result type (`params`,
  `result`), or, for a builtin whose rule needs more than a signature (a
  list of any element, keyword arguments, a table of the game's cards), the
  name of that rule in `cardc.compiler.builtins.RULES` (`params=None`);
- its body, `f(st, env, *args)`, which the engine calls (`body`), unless the
  compiler turns every call into other IR (`prev_player`, `all_cards`: no
  body), or the body needs the engine's own indexes (`body=ENGINE`: in
  `cardc.engine.builtins.ENGINE_BODIES`);
- what it reads of a state, for the function caches (`reads`): only its
  arguments and the game's fixed tables (`ARGS`), the attachments
  (`ATTACHMENTS`), or anything (`STATE`); `sort_by` reads what the
  function named by its second argument reads (`FUNCTION`), `modified`
  what the modifiers named by its first read (`MODIFIER`);
- whether it draws from the game's random generator (`random`), whether it
  is cheaper to compute again than to look up (`cheap`), whether its body
  reads the caller's locals (`env`: `playable` asks who `me` is);
- whether it cannot fail (`harmless`): never (`NEVER`, the default), when
  its arguments cannot (`WITH_ARGS`: `max`), or by its own rule in
  `cardc.engine.total.RULES` (`RULE`: `count` of a zone's cards);
- whether the generator may write a call in place (`inline`: its form is
  `cardc.engine.inline.FORMS[name]`, the same value and the same error);
- whether content may call it (`ir_only`: a name only the compiler writes).

The compiler (type rules, random checks), the engine (bodies, `deps.py`'s
reads, `simple_functions`, the inline forms, `total.py`'s proofs) and the
bundle schema (the closed list of names a bundle may call, `ir/schema.py`)
all read this table; a name in one of the engine's tables that is not
declared here, or declared and missing there, fails at import.  Adding a builtin is
one declaration here, its paragraph in grammar/README.md, and its test.

Builtins are generic: lists, seats in turn order, zones and attachments,
modifiers, integer helpers, a grid of cells named like "A1".  No game's nouns.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cardc.ir.errors import EngineFault

# what a builtin reads of a state (see the module docstring)
ARGS, ATTACHMENTS, STATE = "args", "attachments", "state"
FUNCTION, MODIFIER = "function", "modifier"      # what the function or modifier it names reads
#: what a builtin reads from its arguments alone, or from content it names
STATIC_READS = (ARGS, FUNCTION, MODIFIER)
#: a body written in the engine, beside the indexes it reads
ENGINE = "engine"
# whether a builtin can fail (see the module docstring)
NEVER, WITH_ARGS, RULE = "never", "with_args", "rule"
#: the most numbers `range(a, b)` gives (a list that long is already far
#: past any loop a game means)
MAX_RANGE = 10_000

# types, as the compiler writes them (cardc/compiler/types.py)
INT, BOOL, STR, CARD, PLAYER, ZONE, CELL = "int", "bool", "str", "card", "player", "zone", "cell"


@dataclass(frozen=True)
class Builtin:
    name: str
    params: tuple | None            # argument types; None: the compiler's own rule (RULES)
    result: str | None
    body: Callable | str | None     # f(st, env, *args); ENGINE; None: compiled away
    reads: str = ARGS
    random: bool = False
    cheap: bool = False
    env: bool = False
    harmless: str = NEVER
    inline: bool = False
    ir_only: bool = False


# ---------------------------------------------------------------- bodies

def _max_list(st, env, xs):
    return max(xs) if xs else 0


def _min_list(st, env, xs):
    return min(xs) if xs else 0


def _sort_by(st, env, xs, fname, desc):
    fn = st.game.functions[fname]
    param = st.game.fn_params[fname][0]
    return sorted(xs, key=lambda x: fn(st, {param: x}), reverse=bool(desc))


_PLAIN = (int, str, bool, type(None))


def _unique(st, env, xs):
    """Each value once, in the order first met (a dict keeps insertion order).
    A list of at most two plain values, the common case (the owners of the
    cards next to a cell, say), is answered without the dict: a third of the time."""
    if type(xs) is list and len(xs) < 3:
        if not xs:
            return []
        a = xs[0]
        if len(xs) == 1:
            if type(a) in _PLAIN:
                return [a]
        else:
            b = xs[1]
            if type(a) in _PLAIN and type(b) in _PLAIN:
                return [a] if a == b else [a, b]
    return list(dict.fromkeys(xs))


def _index_of(st, env, xs, x):
    try:
        return xs.index(x)
    except ValueError:
        return -1


#: player count -> for each seat, the seats after it round the table
_RIVALS: dict[int, list[list[int]]] = {}


def rivals_table(n):
    """For each seat of an n-player game, the seats after it round the table
    (kept: never changed; generated loops read a row as it is)."""
    table = _RIVALS.get(n)
    if table is None:
        table = _RIVALS[n] = [list(range(q + 1, n)) + list(range(q)) for q in range(n)]
    return table


def _rivals(st, env, p):
    n = st.n
    if type(p) is int and 0 <= p < n:       # the seats after p, round the table
        return rivals_table(n)[p][:]          # a new list: the caller may keep it
    return [(p + k) % n for k in range(1, n)]


def _players_from(st, env, p):
    n = st.n
    return [(p + k) % n for k in range(n)]


def _owner_of(st, env, c):
    # Game.slot_owner written out: it is on the hot path of many modifiers
    if c is None:
        return None
    slot = st.loc[c]
    if slot < 0:
        slot = st.zone_of(c)
    shared = st.game.n_shared
    return None if slot < shared else (slot - shared) % st.n


def _playable(st, env, c):
    req = st.game.card_requires[c]
    if req is None:
        return True
    return bool(req(st, env.get("me"), c))


def _round_up(st, env, x, m):
    if m <= 0:
        raise EngineFault("round_up needs a positive multiple")
    return -(-x // m) * m


def _range(st, env, a, b):
    """The whole numbers from a up to, not including, b (none if b <= a)."""
    if b - a > MAX_RANGE:
        raise EngineFault(f"range({a}, {b}) would give {b - a:,} numbers; at most {MAX_RANGE:,}")
    return list(range(a, b))


# ----- the grid: cells are "A1".."L9" (column letter(s), row number)

def _split(cell):
    i = 0
    while i < len(cell) and cell[i].isalpha():
        i += 1
    return cell[:i], int(cell[i:])


def _column(st, env, cell):
    try:
        return st.game.grid_column_of[cell]
    except KeyError:
        letters, _ = _split(cell)
        return st.game.grid_columns.index(letters) + 1


def _row(st, env, cell):
    try:
        return st.game.grid_row_of[cell]
    except KeyError:
        return _split(cell)[1]


def _distance(st, env, a, b):
    return abs(_column(st, env, a) - _column(st, env, b)) + abs(_row(st, env, a) - _row(st, env, b))


def _connected(st, env, cards, start):
    """The cards of `cards` joined to `start` through orthogonal neighbours.
    (Plain loops: for the dozen cards it is usually given, `set(map(…))`
    and a comprehension cost twice as much in making their objects.)"""
    if start is None:
        return []
    cells = st.game.card_field["cell"]
    occupied = set()                # the cells with a card of `cards`
    for c in cards:
        occupied.add(cells[c])
    seen_cells = {cells[start]}
    todo = [cells[start]]
    near = st.game.grid_neighbors
    while todo:
        for nb in near.get(todo.pop(), ()):
            if nb in occupied and nb not in seen_cells:
                seen_cells.add(nb)
                todo.append(nb)
    out = []
    for c in cards:
        if cells[c] in seen_cells:
            out.append(c)
    if start not in out:
        out.insert(0, start)
    return out


# ---------------------------------------------------------------- the table

def _b(name, params, result, body, **flags) -> Builtin:
    return Builtin(name, None if params is None else tuple(params), result, body, **flags)


_ALL = [
    # lists
    _b("count", None, INT, lambda st, env, xs: len(xs), cheap=True, harmless=RULE, inline=True),
    _b("sum", None, INT, lambda st, env, xs: sum(xs), inline=True),
    _b("any", None, BOOL, lambda st, env, xs: any(xs), inline=True),
    _b("all", None, BOOL, lambda st, env, xs: all(xs), inline=True),
    _b("max", None, INT, lambda st, env, *xs: max(xs), cheap=True, harmless=WITH_ARGS, inline=True),
    _b("min", None, INT, lambda st, env, *xs: min(xs), cheap=True, harmless=WITH_ARGS, inline=True),
    _b("max_list", None, INT, _max_list, ir_only=True),
    _b("min_list", None, INT, _min_list, ir_only=True),
    _b("top", None, None, lambda st, env, xs: xs[0] if xs else None, inline=True),
    _b("first", None, None, lambda st, env, xs: xs[0] if xs else None, inline=True),
    _b("bottom", None, None, lambda st, env, xs: xs[-1] if xs else None, inline=True),
    _b("last", None, None, lambda st, env, xs: xs[-1] if xs else None, inline=True),
    _b("reversed", None, None, lambda st, env, xs: list(reversed(xs))),
    _b("unique", None, None, _unique),
    _b("shuffled_order", None, None, lambda st, env, xs: st.shuffled(list(xs)), reads=STATE, random=True),
    _b("sort_by", None, None, _sort_by, reads=FUNCTION),
    _b("index_of", None, INT, _index_of),
    _b("flatten", None, None,
       lambda st, env, xss: [x for xs in xss for x in (st.zones[xs] if type(xs) is int else xs)], harmless=RULE),
    _b("range", [INT, INT], "list:int", _range),
    # seats
    _b("rivals", None, "list:player", _rivals),
    _b("next_player", [PLAYER], PLAYER, lambda st, env, p: (p + 1) % st.n, cheap=True, inline=True),
    _b("prev_player", None, PLAYER, None),
    _b("players_from", [PLAYER], "list:player", _players_from),
    _b("players_in", None, "list:player", None),
    # cards
    _b("all_cards", None, "list:card", None),
    _b("cards_of_kind", None, "list:card", None),
    _b("cards_with_id", None, "list:card", None),
    _b("printed", None, None, None),
    _b("zone_of", [CARD], ZONE, lambda st, env, c: st.zone_of(c), reads=STATE),
    _b("owner_of", [CARD], PLAYER, _owner_of, reads=STATE, cheap=True, harmless=WITH_ARGS, inline=True),
    _b("host", [CARD], CARD, lambda st, env, c: st.host.get(c), reads=ATTACHMENTS, cheap=True, inline=True),
    _b("attachments", [CARD], "list:card", lambda st, env, c: list(st.under.get(c, ())), reads=ATTACHMENTS),
    _b("playable", None, BOOL, _playable, reads=STATE, env=True, inline=True),
    _b("has_effect", [CARD], BOOL,
       lambda st, env, c: f"card:{st.game.card_field['id'][c]}:effect" in st.game.codes, cheap=True, inline=True),
    _b("has_reaction", [CARD, STR], BOOL,
       lambda st, env, c, tag: st.game.reaction_tag[st.game.card_def[c]] == tag, cheap=True),
    _b("visible_to", [CARD, PLAYER], BOOL, lambda st, env, c, p: st.visible(c, p), reads=STATE),
    _b("modified", None, INT, lambda st, env, name, base, **args: st.game.apply_modifiers(st, name, base, args),
       reads=MODIFIER, cheap=True, harmless=RULE, inline=True),
    # numbers
    _b("round_up", [INT, INT], INT, _round_up, cheap=True),
    _b("abs", [INT], INT, lambda st, env, x: abs(x), cheap=True, inline=True),
    # the grid
    _b("cell", [CARD], CELL, lambda st, env, c: st.game.card_field["cell"][c], cheap=True, inline=True),
    _b("cells", [], "list:cell", lambda st, env: list(st.game.grid_cells)),
    _b("neighbors", [CELL], "list:cell", lambda st, env, cell: st.game.grid_neighbors[cell], cheap=True,
       inline=True),
    _b("distance", [CELL, CELL], INT, _distance),
    _b("column", [CELL], INT, _column, cheap=True),
    _b("row", [CELL], INT, _row, cheap=True),
    _b("connected", None, "list:card", _connected, inline=True),
    _b("cards_at", None, "list:card", ENGINE, inline=True),
]

#: every builtin, by name
BUILTINS: dict[str, Builtin] = {b.name: b for b in _ALL}
#: the names a bundle may call: those with a body (the rest compile away)
CALLABLE = frozenset(b.name for b in _ALL if b.body is not None)
#: the builtins whose value depends on the game's random state
RANDOM = frozenset(b.name for b in _ALL if b.random)
