"""What a game declares: the names the checker resolves effect text against.

Built from game.yaml and rules.yaml before any effect is compiled, so that
the order of definitions never matters to a designer.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from cardc.compiler import types as T

# Names of printed card data every card has, whatever the game declares.
CARD_BUILTIN_FIELDS = {"id": T.CARD_ID, "name": T.STR, "kind": T.CARD_KIND, "text": T.STR}
PLAYER_BUILTINS = {"seat": T.INT, "name": T.STR}
GAME_BUILTINS = {"turn": T.INT, "round": T.INT, "turn_player": T.PLAYER,
                 "first_player": T.PLAYER, "player_count": T.INT}
EVENT_BUILTINS = {"cancelled": T.BOOL, "responder": T.PLAYER, "response": T.CARD,
                  "tag": T.STR}


@dataclass
class Counter:
    name: str
    type: str
    start: object = None
    per_player: bool = False
    visibility: str = "public"      # public | owner | hidden: who sees it in an observation
    bookkeeping: bool = False       # rules machinery: the tables a person reads leave it out


@dataclass
class ZoneDecl:
    id: str
    owner: str               # "shared" | "player"
    visibility: str
    active: bool = False
    limit: str | int | None = None
    overflow: str | None = None
    keeps_attachments: bool = False


@dataclass
class ZoneFamily:
    """`discard` with `per: colour`: one plain zone per member, `discard[red]`
    …, expanded at compile time; rules index it, `discard[c.colour]`."""
    id: str
    enum: str
    owner: str
    members: list

    def zone_id(self, member: str) -> str:
        return f"{self.id}[{member}]"


@dataclass
class CatalogEntry:
    """One card instance, as rules may name it at compile time."""
    iid: int
    id: str
    seat: int | None          # a per-player copy's seat, else None
    fields: dict              # printed fields, with id, name and kind


@dataclass
class Signature:
    name: str
    params: dict             # name -> type
    returns: str | None = None

    @property
    def result(self) -> str:
        """A procedure's value travels back in this hidden game counter
        (`return v` sets it, `let x = name(…)` reads it right after the
        call): a name no designer can write, declared only for a procedure
        with `returns`."""
        return "$result_" + self.name


@dataclass
class Decls:
    params: dict = field(default_factory=dict)            # name -> value
    kinds: dict = field(default_factory=dict)
    card_fields: dict = field(default_factory=dict)       # name -> type
    zones: dict = field(default_factory=dict)             # id -> ZoneDecl
    game_counters: dict = field(default_factory=dict)     # name -> Counter
    player_counters: dict = field(default_factory=dict)
    card_counters: dict = field(default_factory=dict)
    events: dict = field(default_factory=dict)            # name -> {arg: type}
    windows: dict = field(default_factory=dict)           # tag -> {"from": zone, "fields": {}}
    modifiers: dict = field(default_factory=dict)         # name -> {arg: type}
    functions: dict = field(default_factory=dict)         # name -> Signature
    procs: dict = field(default_factory=dict)             # name -> Signature
    card_ids: set = field(default_factory=set)
    has_grid: bool = False
    enums: dict = field(default_factory=dict)             # name -> [member, ...]
    enum_labels: dict = field(default_factory=dict)       # name -> {member: label}, when declared
    families: dict = field(default_factory=dict)          # zone id -> ZoneFamily
    param_types: dict = field(default_factory=dict)       # param -> type
    catalog: list = field(default_factory=list)           # [CatalogEntry], in instance order
    players_out: bool = False                             # `p.out` is used: rivals skip those out

    def shared_zones(self):
        return {z for z, d in self.zones.items() if d.owner == "shared"}

    def player_zones(self):
        return {z for z, d in self.zones.items() if d.owner == "player"}

    def all_names(self):
        """Every bare name an expression may use, for did-you-mean hints."""
        return (set(self.params) | self.shared_zones() | set(self.functions) | set(self.enums)
                | {f for f, z in self.families.items() if z.owner == "shared"}
                | set(self.procs) | {"me", "this", "event", "players", "game", "value"})


def decls_from_bundle(bundle: dict) -> Decls:
    """The declarations of a built game, to check expressions written outside
    its content (scenario expectations, `--set` overrides)."""
    d = Decls()
    d.params = dict(bundle["params"])
    d.kinds = dict(bundle["kinds"])
    d.card_fields = dict(bundle["card_fields"])
    for z in bundle["zones"]:
        d.zones[z["id"]] = ZoneDecl(z["id"], z["owner"], z["visibility"], z["active"],
                                    z["limit"], z["overflow"], z.get("keeps_attachments", False))
    for scope, target in (("game", d.game_counters), ("player", d.player_counters),
                          ("card", d.card_counters)):
        for name, c in bundle["counters"][scope].items():
            target[name] = Counter(name, c["type"], c["start"], c["per_player"],
                                   c.get("visibility", "public"), c.get("bookkeeping", False))
    d.events = dict(bundle["events"])
    d.windows = dict(bundle["windows"])
    d.modifiers = dict(bundle["modifiers"])
    for kind, target in (("functions", d.functions), ("procs", d.procs)):
        for name, sig in bundle.get("signatures", {}).get(kind, {}).items():
            target[name] = Signature(name, {p: t for p, t in sig["params"]}, sig["returns"])
    d.card_ids = {c["id"] for c in bundle["cards"]}
    d.has_grid = bool(bundle.get("grid"))
    defs = {c["id"]: c for c in bundle["cards"]}
    d.catalog = [CatalogEntry(i["iid"], i["card"], i["seat"],
                              {**defs[i["card"]]["fields"], "id": i["card"],
                               "name": defs[i["card"]]["name"], "kind": defs[i["card"]]["kind"]})
                 for i in bundle["instances"]]
    d.enums = {k: list(v) for k, v in (bundle.get("enums") or {}).items()}
    d.enum_labels = {k: dict(v) for k, v in (bundle.get("labels") or {}).items()}
    for zid, enum in (bundle.get("zone_families") or {}).items():
        owner = next(z["owner"] for z in bundle["zones"] if z["id"] == f"{zid}[{d.enums[enum][0]}]")
        d.families[zid] = ZoneFamily(zid, enum, owner, d.enums[enum])
    d.param_types = {k: param_type(v, d.enums) for k, v in d.params.items()}
    d.players_out = "out" in d.player_counters
    return d


def param_type(value, enums=()) -> str:
    """The type of a param's value: a number, true/false, text, or a list of
    one of them, or (a table by player count) the type of its values.  ""
    when the value has no single type (a mixed list)."""
    if isinstance(value, bool):
        return T.BOOL
    if isinstance(value, int):
        return T.INT
    if isinstance(value, str):
        return T.STR
    if isinstance(value, dict):          # one value per player count: the values' type
        inner = {param_type(v) for v in value.values()}
        return inner.pop() if len(inner) == 1 and "" not in inner else ""
    if isinstance(value, list):
        inner = {param_type(v) for v in value}
        if len(inner) == 1 and not next(iter(inner)).startswith("list:") and "" not in inner:
            return T.list_of(inner.pop())
        if not value:
            return "list:any"
    return ""
