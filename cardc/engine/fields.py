"""What a game in progress holds: the fields of `State`, written once.

`State` (state.py) is one class made of four mixins, each in its own
module: the interpreter (`interp.py`), the questions (`asking.py`), the
cards on the table (`table.py`) and the counters' write path (`writes.py`).
Each mixin reads what the others hold and calls what they do; each inherits
`StateFields`, so a reader and the type checker find every field, and the
methods one mixin takes from another, here.  At run time it adds nothing:
no slots, no values (the slots are `State.__slots__`).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cardc.engine.asking import Decision
    from cardc.engine.interp import Frame


class StateFields:
    __slots__ = ()

    # what each slot holds (State.__slots__ makes them)
    game: Any                       # the Game (engine/game.py)
    n: int                          # players
    budget: int                     # steps left before the next decision
    slot_active: list               # per zone slot: whether its cards are in force
    slot_limit: list
    slot_keyed: list
    slot_stale: list
    slot_empty: list
    slot_plan: list
    zones: list[list[int]]          # per zone slot: its cards, top first
    owned_zones: set[int] | None    # copy on write (see `clone`): the zone slots this state owns
    loc: list[int]                  # per card: its zone slot (ATTACHED, OUT below 0)
    host: dict[int, int]            # attached card -> its host
    under: dict[int, list[int]]     # host -> its attached cards
    revealed: dict[int, list]       # card -> the seats it was revealed to
    game_counters: dict[str, Any]
    player_counters: dict[str, list]    # name -> a value per seat
    card_counters: dict[str, list]      # name -> a value per card (or per card and seat)
    owned_cc: set[str] | None       # copy on write: the card counters this state owns
    rng: int                        # the random generator's whole state (rng.py)
    seed: int | None
    stack: list[Frame]              # the continuation: the blocks running, innermost last
    pending: Decision | None        # the question being asked
    events: list[dict]              # reaction windows' events
    turn: int
    round: int
    turn_player: int
    first_player: int
    stage: str
    phase: str | None
    ending: Any
    terminal: bool
    winners: list[int]
    capped: bool
    decisions: int
    log: list[str] | None
    history: list[int]              # the positions of the actions taken: a replay
    track: dict | None
    lookahead: bool
    version: int
    part_versions: dict[str, int]   # versions of parts a cached value may read ("active": the cards in force)
    cache: list                     # per cached function: its values
    owned_caches: set[int] | None   # copy on write: the function caches this state owns
    filled: int                     # the caches that may hold entries, a mask
    cellw: dict
    zindex: dict
    owned_indexes: set[int] | None  # copy on write: the zone slots whose cell index this state owns
    mods: Any
    memory: list[dict[int, set[int]]] | None   # per seat: cards it saw go where it cannot see (Table.remember)
    hold_at: str | None
    me_ref: Any


    # what one mixin calls of another (each is defined once, in the module named)
    push: Callable[..., Any]            # interp.py
    touch: Callable[..., Any]           # interp.py
    touch_slot: Callable[..., Any]      # interp.py
    trigger: Callable[..., Any]         # interp.py
    visible: Callable[..., Any]         # table.py
    forget: Callable[..., Any]          # table.py
    forget_slot: Callable[..., Any]     # table.py
    forget_zone: Callable[..., Any]     # table.py
    unindex: Callable[..., Any]         # table.py
    counter_written: Callable[..., Any]     # table.py
    key_written: Callable[..., Any]     # table.py
    clone: Callable[..., Any]           # state.py
    own_cache: Callable[..., Any]       # state.py
    own_cc: Callable[..., Any]          # state.py
    player_name: Callable[..., Any]     # state.py
    scores: Callable[..., Any]          # state.py
