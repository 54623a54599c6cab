"""Compile a loaded game folder into its bundle.

Order: gather declarations (game.yaml, rules.yaml, card ids) so that nothing
depends on definition order; compile functions, procs, hooks and the flow;
compile each card; expand card instances; then check the content's own
constraints on the initial state.  Every problem goes to `diags`; the bundle
is returned only when there are none.
"""
from __future__ import annotations

import re

from cardc.compiler import types as T
from cardc.compiler.bounds import check_unbounded
from cardc.compiler.decls import CatalogEntry, Counter, Decls, Signature, ZoneDecl, ZoneFamily, param_type
from cardc.compiler.exprs import Where
from cardc.compiler.generate import expand_entry
from cardc.compiler.stmts import compile_block, compile_expr, compile_fn_body
from cardc.ir.calls import impure_functions
from cardc.ir.content_limits import MAX_CARDS
from cardc.ir.jsonform import card_expressions, entry_expressions
from cardc.load import sandbox
from cardc.load.diagnostics import Loc, did_you_mean, display_path

BUNDLE_FORMAT = 1
_CARD_ID = re.compile(r"^[a-z][a-z0-9_]*$")
CARD_KEYS = {"id", "name", "kind", "count", "per_player", "starts_in", "text", "flavour",
             "note", "requires", "effect", "reaction", "hooks", "modifiers", "image", "back_image"}


def _loc(container, key, fallback_file="?"):
    """The location of container[key] in its YAML file, best effort."""
    locs = getattr(container, "value_locs", None) or getattr(container, "item_locs", None)
    if locs is not None:
        try:
            return locs[key]
        except (KeyError, IndexError):
            pass
    value = container[key] if key is not None else container
    loc = getattr(value, "loc", None) or getattr(container, "loc", None)
    return loc or Loc(fallback_file, 0, 0)


def _key_loc(container, key):
    locs = getattr(container, "key_locs", None)
    if locs and key in locs:
        return locs[key]
    return _loc(container, key)


class GameCompiler:
    def __init__(self, source, diags):
        self.src = source
        self.diags = diags
        self.d = Decls()
        self.game = source.game
        self.code: dict = {}
        self.fn_locs: dict = {}      # function name -> where its expression is written
        self.used_procs: set = set()
        self.env = sandbox.environment()     # content templates: card text, generated cards
        self.card_entries: list = []      # (file, doc, [card entries, generators expanded])
        self.score_wins = "highest"
        self.levels: list = []

    # ------------------------------------------------------------ helpers
    def where(self, container, key, label):
        value = container[key]
        loc = _loc(container, key)
        return Where(value, loc.file, label, loc.line, loc.col)

    def block(self, container, key, label, names, params=(), proc=None):
        return compile_block(container[key], self.where(container, key, label), self.d,
                             self.diags, names, params, proc)

    def expr(self, container, key, label, names, want=None):
        return compile_expr(container[key], self.where(container, key, label), self.d,
                            self.diags, names, want)

    def type_of(self, container, key):
        text = container[key]
        names = T.declarable(self.d.enums)
        t = names.get(str(text).replace(" ", ""))
        if t is None:
            self.diags.error(_loc(container, key), f"unknown type `{text}`",
                             did_you_mean(str(text), names) or
                             "types are: " + ", ".join(sorted(names)))
            return T.ANY
        return t

    # ------------------------------------------------------------ declarations
    def declare(self):
        g, d = self.game, self.d
        self.check_players()
        self.declare_enums_and_params()
        d.kinds = dict(g.get("kinds") or {})
        fields = g.get("card_fields") or {}
        d.card_fields = {k: self.type_of(fields, k) for k in fields}
        for i, z in enumerate(g.get("zones") or []):
            if z["id"] in d.zones or z["id"] in d.families:
                self.diags.error(_loc(g["zones"], i), f"zone `{z['id']}` is declared twice")
            ids = [z["id"]]
            if "per" in z:
                enum = str(z["per"])
                if enum not in d.enums:
                    self.diags.error(_loc(z, "per"), f"unknown enumeration `{enum}`; declare it under "
                                     "`enums:` in game.yaml", did_you_mean(enum, d.enums))
                    continue
                fam = ZoneFamily(z["id"], enum, z.get("owner", "shared"), list(d.enums[enum]))
                d.families[z["id"]] = fam
                ids = [fam.zone_id(m) for m in fam.members]
            for zid in ids:
                d.zones[zid] = ZoneDecl(zid, z.get("owner", "shared"), z.get("visibility", "public"),
                                        bool(z.get("active", False)), z.get("limit"), z.get("overflow"),
                                        bool(z.get("keeps_attachments", False)))
        counters = g.get("counters") or {}
        for scope, target in (("game", d.game_counters), ("player", d.player_counters),
                              ("card", d.card_counters)):
            block = counters.get(scope) or {}
            for name, spec in block.items():
                if isinstance(spec, dict):
                    t = self.type_of(spec, "type") if "type" in spec else T.INT
                    start = spec.get("start", {T.INT: 0, T.BOOL: False}.get(t))     # others: none
                    self._check_counter_start(name, t, spec)
                    target[name] = Counter(name, t, start, bool(spec.get("per_player", False)),
                                           str(spec.get("visibility", "public")),
                                           bool(spec.get("bookkeeping", False)))
                    if scope == "game" and target[name].visibility == "owner":
                        self.diags.error(_loc(spec, "visibility"), f"game counter `{name}` has no owner: "
                                         "make it `public` or `hidden`, or a player counter")
                else:
                    t = T.BOOL if isinstance(spec, bool) else T.STR if isinstance(spec, str) else T.INT
                    target[name] = Counter(name, t, spec)
        self.declare_turn_order()
        for name, args in (g.get("events") or {}).items():
            d.events[name] = {a: self.type_of(args, a) for a in (args or {})}
        for tag, spec in (g.get("windows") or {}).items():
            flds = spec.get("fields") or {}
            d.windows[tag] = {"from": spec.get("from", "hand"),
                              "fields": {f: self.type_of(flds, f) for f in flds}}
            zone = d.zones.get(d.windows[tag]["from"])
            if zone is None or zone.owner != "player":
                self.diags.error(_loc(spec, "from") if "from" in spec else _loc(g["windows"], tag),
                                 f"window `{tag}` answers from `{d.windows[tag]['from']}`, "
                                 "which must be a player zone",
                                 did_you_mean(d.windows[tag]["from"], d.player_zones()))
        for name, args in (g.get("modifiers") or {}).items():
            d.modifiers[name] = {a: self.type_of(args, a) for a in (args or {})}
        d.has_grid = "grid" in g
        rules = self.src.rules or {}
        for kind, target in (("functions", d.functions), ("procs", d.procs)):
            for name, spec in (rules.get(kind) or {}).items():
                params = spec.get("params") or {}
                sig = Signature(name, {p: self.type_of(params, p) for p in params},
                                self.type_of(spec, "returns") if "returns" in spec else None)
                target[name] = sig
        for sig in d.procs.values():
            if sig.returns is not None:
                d.game_counters[sig.result] = Counter(sig.result, sig.returns, None, False, "hidden")
        for name in d.functions:
            if name in d.procs:
                self.diags.error(_key_loc(rules["procs"], name),
                                 f"`{name}` is both a function and a procedure")
        for path, doc in self.src.card_files:
            raws = []
            for raw in doc.get("cards") or []:
                raws += self.expand(raw)
            self.card_entries.append((path, doc, raws))
            d.card_ids.update(c.get("id") for c in raws)
        d.catalog = self.catalog()
        self._check_zone_refs()

    # counters the turn order reads, declared when the rules use them (so
    # every other game's bundle stays as it was): name -> (scope, Counter)
    TURN_ORDER = {"next_player": ("game", Counter("next_player", T.PLAYER, None)),
                  "direction": ("game", Counter("direction", T.INT, 1)),
                  "out": ("player", Counter("out", T.BOOL, False))}

    def declare_turn_order(self):
        """`game.next_player = p` (p plays the next turn), `game.direction = -1`
        (turns go backwards) and `p.out = true` (p is skipped from now on, and
        is nobody's rival): three counters the engine's turn order reads,
        declared here when some text of the game names them."""
        d = self.d
        text = b"\n".join(self.src.contents.values()) if getattr(self.src, "contents", None) else b""
        scopes = {"game": d.game_counters, "player": d.player_counters}
        for name, (scope, counter) in self.TURN_ORDER.items():
            pattern = rb"game\s*\.\s*" + name.encode() + rb"\b" if scope == "game" else rb"\.\s*out\b"
            declared = scopes[scope].get(name)
            if declared is not None:
                if declared.type != counter.type:
                    self.diags.error(_key_loc((self.game.get("counters") or {}).get(scope) or {}, name),
                                     f"`{name}` is the turn order's own counter: it holds "
                                     f"{T.plain(counter.type)}, not {T.plain(declared.type)}")
            elif re.search(pattern, text):
                scopes[scope][name] = counter
        d.players_out = "out" in d.player_counters

    def _check_counter_start(self, name, t, spec):
        """A counter typed by an enumeration (`type: suit`) starts as one of
        its members, or none: checked as a card field of that type is."""
        if not T.is_enum(t) or spec.get("start") is None:
            return
        members = self.d.enums.get(t[5:], [])
        if str(spec["start"]) not in members:
            self.diags.error(_loc(spec, "start"), f"counter `{name}` must start as one of {t[5:]}: "
                             f"{', '.join(members)} (or leave `start` out: none)",
                             did_you_mean(str(spec["start"]), members))

    def _check_per_count(self, name, table, params):
        """A param given per player count has a value for every count the
        game allows, and none for another."""
        players = self.game.get("players") if isinstance(self.game.get("players"), dict) else {}
        lo, hi = players.get("min"), players.get("max")
        if not (isinstance(lo, int) and isinstance(hi, int)):
            return
        counts = {int(k) for k in table}
        missing = [n for n in range(lo, hi + 1) if n not in counts]
        extra = sorted(n for n in counts if not lo <= n <= hi)
        if missing:
            self.diags.error(_loc(params, name), f"param `{name}` gives a value per player count, but none "
                             f"for {', '.join(map(str, missing))} player{'s' * (missing != [1])}",
                             f"give one for every count from {lo} to {hi}")
        if extra:
            self.diags.error(_loc(params, name), f"param `{name}` gives a value for {', '.join(map(str, extra))} "
                             f"players, but the game is for {lo} to {hi}", "leave those counts out")

    def check_players(self):
        """`players: {min: 4, max: 3}` is a game no count can start: said at
        check time, not by every command that deals it."""
        players = self.game.get("players")
        if not isinstance(players, dict):
            return
        lo, hi = players.get("min"), players.get("max")
        if isinstance(lo, int) and isinstance(hi, int) and lo > hi:
            self.diags.error(_loc(players, "min"), f"players: `min` is {lo} but `max` is {hi}: no number "
                             "of players can start the game", f"make min at most max, e.g. "
                             f"`players: {{min: {hi}, max: {lo}}}`")

    def declare_enums_and_params(self):
        """`enums:` (named lists of names) first, since types may name them;
        then params, whose values may be numbers, text or lists of one of them."""
        g, d = self.game, self.d
        enums = g.get("enums") or {}
        for name, members in enums.items():
            if name in T.RESERVED_ENUMS:
                self.diags.error(_key_loc(enums, name), f"`{name}` is a name cardc keeps for the game's "
                                 f"{name.replace('_', ' ')}s; name the enumeration otherwise")
            d.enums[name] = [str(m) for m in members]
            if isinstance(members, dict):           # members with display labels
                d.enum_labels[name] = {str(m): str(label) for m, label in members.items()}
            if len(set(d.enums[name])) != len(d.enums[name]):
                dup = next(m for m in d.enums[name] if d.enums[name].count(m) > 1)
                self.diags.error(_loc(enums, name), f"enumeration `{name}` names `{dup}` twice")
        d.params = dict(g.get("params") or {})
        params = g.get("params") or {}
        for name, value in d.params.items():
            t = param_type(value, d.enums)
            if not t:
                self.diags.error(_loc(params, name), f"param `{name}` must be a number, true/false, "
                                 "text, or a list of one of them (all items of one type)")
                t = T.ANY
            d.param_types[name] = t
            if isinstance(value, dict):
                self._check_per_count(name, value, params)
            if name in d.enums:
                self.diags.error(_key_loc(params, name), f"`{name}` is both a param and an enumeration")

    def expand(self, raw):
        """One card entry as the cards it stands for (a `generate:` family)."""
        def error(container, key, message):
            self.diags.error(_loc(container, key), message)
        cards = expand_entry(raw, self.d.enums, self.env, error)
        for card in cards:
            cid = card.get("id")
            if isinstance(cid, str) and not _CARD_ID.match(cid):
                self.diags.error(_loc(raw, "id"), f"card id `{cid}` is not lower_snake_case"
                                 + (": a templated id needs `generate:`" if "{{" in cid else ""),
                                 None if "{{" in cid else "a lowercase letter, then lowercase letters, digits or _")
                return []
        return cards

    def _check_limit_not_negative(self, z, decl):
        """A zone can never hold fewer than no cards: a negative limit would
        make its overflow procedure ask for more cards than there are
        (a number written there is checked by the schema; a param, here)."""
        if not isinstance(decl.limit, str):
            return
        value = self.d.params.get(decl.limit)
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            params = self.game.get("params") or {}
            self.diags.error(_loc(params, decl.limit), f"param `{decl.limit}` is {value}, but it is the "
                             f"limit of zone `{decl.id}` (game.yaml, zones), which can hold no fewer "
                             "than 0 cards", f"make `{decl.limit}` 0 or more")

    def _check_zone_refs(self):
        d = self.d
        for z in self.game.get("zones") or []:
            fam = d.families.get(z["id"])     # a family's zones share one declaration
            decl = d.zones.get(fam.zone_id(fam.members[0]) if fam and fam.members else z["id"])
            if decl is None:
                continue
            if decl.limit is not None and not isinstance(decl.limit, int) and decl.limit not in d.params:
                self.diags.error(_loc(z, "limit"), f"zone limit `{decl.limit}` is neither a number nor a param",
                                 did_you_mean(str(decl.limit), d.params))
            elif isinstance(d.params.get(decl.limit), dict):
                self.diags.error(_loc(z, "limit"), f"zone limit `{decl.limit}` gives a value per player "
                                 "count; a zone's limit is one number", "use a param that is one number")
            elif isinstance(decl.limit, str) and d.param_types.get(decl.limit) != T.INT:
                self.diags.error(_loc(z, "limit"), f"zone limit `{decl.limit}` must be a whole number, "
                                 f"but that param is {T.plain(d.param_types.get(decl.limit, T.ANY))}")
            else:
                self._check_limit_not_negative(z, decl)
            if decl.limit is not None and decl.overflow is None:
                self.diags.error(_loc(z, "limit"), f"zone `{decl.id}` has a limit but no `overflow` "
                                 "procedure to call when it is exceeded")
            if decl.overflow is not None:
                sig = d.procs.get(decl.overflow)
                if sig is None:
                    self.diags.error(_loc(z, "overflow"), f"unknown procedure `{decl.overflow}`",
                                     did_you_mean(decl.overflow, d.procs))
                elif list(sig.params.values()) != [T.PLAYER]:
                    self.diags.error(_loc(z, "overflow"), f"overflow procedure `{decl.overflow}` must "
                                     "take exactly one player parameter")
                else:
                    self.used_procs.add(decl.overflow)

    # ------------------------------------------------------------ rules and flow
    def compile_rules(self):
        rules = self.src.rules or {}
        for name, spec in (rules.get("functions") or {}).items():
            sig = self.d.functions[name]
            ir = compile_fn_body(spec["expr"], self.where(spec, "expr", f"function `{name}`"), self.d,
                                 self.diags, dict(sig.params), sig.returns)
            self.code["fn:" + name] = {"params": list(sig.params), "expr": ir}
            self.fn_locs[name] = _loc(spec, "expr")
        for name, spec in (rules.get("procs") or {}).items():
            sig = self.d.procs[name]
            names = {"me": T.PLAYER, **sig.params} if "me" not in sig.params else dict(sig.params)
            self.code["proc:" + name] = self.block(spec, "do", f"procedure `{name}`", names,
                                                   list(sig.params), sig)
        for event in rules.get("hooks") or {}:
            if event not in self.d.events:
                self.diags.error(_key_loc(rules["hooks"], event), f"unknown event `{event}`",
                                 did_you_mean(event, self.d.events))
                continue
            names = {"me": T.PLAYER, **self.d.events[event]}
            self.code["hook:" + event] = self.block(rules["hooks"], event, f"game hook `{event}`", names)

    def declare_levels(self, flow):
        """`flow.levels`: the named levels above a turn, outermost first;
        [] when the game does not declare them (its logs say `round`)."""
        out, passes = [], 0
        for i, level in enumerate(flow.get("levels") or []):
            counter = level.get("counter")
            if counter is None:
                passes += 1
                if passes > 1:
                    self.diags.error(_loc(flow["levels"], i), "only one level can be the pass round the "
                                     "table (a level without `counter`)")
            else:
                decl = self.d.game_counters.get(counter)
                if decl is None or decl.type != T.INT:
                    self.diags.error(_loc(level, "counter"), f"`{counter}` must be a number counter of the "
                                     "game (declare it under `counters: game:`)" if decl is None else
                                     f"`{counter}` must count in whole numbers",
                                     did_you_mean(str(counter), self.d.game_counters))
            out.append({"name": str(level["name"]), "counter": counter})
        return out

    def compile_flow(self):
        flow = self.game.get("flow") or {}
        for part in ("setup", "turn", "round_start", "round_end"):
            if part in flow:
                self.code["flow:" + part] = self.block(flow, part, f"flow `{part}`", {"me": T.PLAYER})
        self.levels = self.declare_levels(flow)
        if "turn" not in flow:
            self.diags.error(_loc(self.game, "flow") if "flow" in self.game else
                             Loc(display_path(self.src.root / "game.yaml"), 1, 1),
                             "the game has no `flow.turn`: what happens on a player's turn?")
        display = self.game.get("display") or {}
        if "label" in display:
            self.code["display_label"] = self.expr(display, "label", "display label", {"this": T.CARD}, T.STR)
        if "group" in display:
            self.code["display_group"] = self.expr(display, "group", "display group", {"this": T.CARD}, T.CARD)
        for title in display.get("legend") or {}:
            self.code["display_legend:" + title] = self.expr(display["legend"], title, f"display legend `{title}`",
                                                             {"this": T.CARD})
        for key in ("board", "markers"):
            if key in display and display[key] not in self.d.zones:
                self.diags.error(_loc(display, key), f"unknown zone `{display[key]}`",
                                 did_you_mean(str(display[key]), self.d.zones))
        score = self.game.get("score")
        if isinstance(score, dict):             # {expr: …, wins: lowest}
            self.code["score"] = self.expr(score, "expr", "score", {"p": T.PLAYER}, T.INT)
            self.score_wins = score.get("wins", "highest")
        elif score is not None:
            self.code["score"] = self.expr(self.game, "score", "score", {"p": T.PLAYER}, T.INT)
        if "eval" in self.game:
            self.code["eval"] = self.expr(self.game, "eval", "eval", {"p": T.PLAYER}, T.INT)
        elif self.score_wins == "lowest" and self.code.get("score") is not None:
            self.code["eval"] = ["neg", self.code["score"]]    # the greedy bot raises its eval
        for key in ("constraints", "invariants"):
            self.code[key] = []
            for c in self.game.get(key) or []:
                ir = self.expr(c, "expect", key[:-1], {}, T.BOOL)
                loc = _loc(c, "expect")
                self.code[key].append({"expect": ir, "message": c.get("message", key[:-1]),
                                       "loc": [loc.file, loc.line, loc.col]})

    # ------------------------------------------------------------ templates
    def check_templates(self, cards):
        """Layout templates (corner, type line, footer) rendered for every card
        they print on, and the rulebook template read, in the content sandbox:
        a failure is found by `check`, not by `print`."""
        layout = self.src.layout or {}
        env = sandbox.environment()
        levels = [(layout.get("card") or {}, None)] + \
                 [(deck, set(deck.get("kinds") or [])) for deck in layout.get("decks") or []
                  if isinstance(deck, dict)]
        for level, kinds in levels:
            if not isinstance(level, dict):
                continue
            for key in ("corner", "type_line", "footer"):
                source = level.get(key)
                if not isinstance(source, str):
                    continue
                where = _loc(level, key)
                try:
                    template = sandbox.compile_template(env, source)
                except sandbox.TemplateProblem as exc:
                    self.diags.error(sandbox.source_loc(source, exc.line, where), f"layout `{key}` template: {exc}")
                    continue
                for card in cards:
                    if kinds is not None and card["kind"] not in kinds:
                        continue
                    kind = self.d.kinds.get(card["kind"]) or {}
                    context = {**{k: v for k, v in card["fields"].items() if v is not None},
                               "name": card["name"], "id": card["id"], "game": layout.get("title"),
                               "kind": kind.get("label") or str(card["kind"]).replace("_", " ").title(),
                               "kind_id": card["kind"], "params": self.d.params,
                               "labels": self.d.enum_labels}
                    try:
                        sandbox.render(template, context)
                    except sandbox.TemplateProblem as exc:
                        if exc.undefined:
                            continue        # a card without that field prints the box empty
                        self.diags.error(sandbox.source_loc(source, exc.line, where),
                                         f"layout `{key}` template (card `{card['id']}`): {exc}")
                        break
        rulebook = self.src.rulebook
        if rulebook:
            path = display_path(self.src.root / "rulebook.md.j2")
            try:
                env.parse(str(rulebook), "rulebook.md.j2", path)
            except sandbox.jinja2.TemplateSyntaxError as exc:
                self.diags.error(Loc(path, exc.lineno or 1, 1), f"rulebook template: {exc.message}")
            except (RecursionError, MemoryError):
                self.diags.error(Loc(path, 1, 1), "rulebook template: it nests too deeply to read")

    # ------------------------------------------------------------ cards
    def compile_cards(self):
        cards, instances = [], []
        seen: dict = {}
        env = self.env
        for _path, doc, raws in self.card_entries:
            defaults = doc.get("defaults") or {}
            for raw in raws:
                card = self.compile_card(raw, defaults, env)
                if card is None:
                    continue
                if card["id"] in seen:
                    self.diags.error(_loc(raw, "id"), f"duplicate card id `{card['id']}` "
                                     f"(first defined at {seen[card['id']]})")
                    continue
                loc = _loc(raw, "id")
                seen[card["id"]] = f"{loc.file}:{loc.line}"
                cards.append(card)
        instances = [{"iid": e.iid, "card": e.id, "seat": e.seat} for e in self.d.catalog]
        return cards, instances

    def field(self, raw, defaults, key, default=None):
        if key in raw:
            return raw[key]
        return defaults.get(key, default)

    def printed(self, raw, defaults, key):
        """A card's printed field as the game sees it (not yet checked)."""
        value = self.field(raw, defaults, key)
        want = self.d.card_fields.get(key)
        if want == T.INT and isinstance(value, str) and hasattr(raw, "generated") and \
                re.fullmatch(r"-?[0-9]+", value.strip()):
            return int(value)              # a generated number, e.g. "{{ number * 2 }}"
        return value

    def catalog(self):
        """Every card instance of the game, known before any rule is compiled,
        so that rules may name cards by id or kind as compile-time tables;
        the bundle's `instances` are made from the same list."""
        out: list = []
        max_players = int((self.game.get("players") or {}).get("max", 1))
        if not self._within_card_limit(max_players):
            return out
        for _, doc, raws in self.card_entries:
            defaults = doc.get("defaults") or {}
            for raw in raws:
                fields = {k: self.printed(raw, defaults, k) for k in self.d.card_fields}
                fields.update(id=raw.get("id"), name=raw.get("name", raw.get("id")),
                              kind=self.field(raw, defaults, "kind"))
                per_player = bool(self.field(raw, defaults, "per_player", False))
                count = self.field(raw, defaults, "count", 1)
                count = count if isinstance(count, int) else 0
                for seat in (range(max_players) if per_player else [None]):
                    for _ in range(count):
                        out.append(CatalogEntry(len(out), raw.get("id"), seat, fields))
        return out

    def _within_card_limit(self, max_players) -> bool:
        """At most MAX_CARDS physical cards (`count: 3000000` would take
        minutes and gigabytes to lay out); reported at the largest count."""
        total, big = 0, None        # big: (count, raw, defaults) of the largest count
        for _, doc, raws in self.card_entries:
            defaults = doc.get("defaults") or {}
            for raw in raws:
                count = self.field(raw, defaults, "count", 1)
                count = count if isinstance(count, int) and not isinstance(count, bool) else 0
                total += count * (max_players if self.field(raw, defaults, "per_player", False) else 1)
                if big is None or count > big[0]:
                    big = (count, raw, defaults)
        if total <= MAX_CARDS:
            return True
        assert big is not None, "over the limit, so some card has a count"
        count, raw, defaults = big
        holder = raw if "count" in raw else defaults
        self.diags.error(_loc(holder, "count") if "count" in holder else _loc(raw, "id"),
                         f"the game has {total:,} physical cards, over the limit of {MAX_CARDS:,} "
                         f"(`{raw.get('id')}` alone has {count:,})", "lower the card counts")
        return False

    def compile_card(self, raw, defaults, env):
        d = self.d
        cid = raw.get("id")
        label = f"card `{cid}`"
        kind = self.field(raw, defaults, "kind")
        holder = raw if "kind" in raw else defaults
        if kind not in d.kinds:
            self.diags.error(_loc(holder, "kind"), f"unknown card kind `{kind}`; declare it under "
                             "`kinds:` in game.yaml", did_you_mean(str(kind), d.kinds))
        starts = self.field(raw, defaults, "starts_in")
        per_player = bool(self.field(raw, defaults, "per_player", False))
        zone = d.zones.get(starts)
        holder = raw if "starts_in" in raw else defaults
        if zone is None:
            self.diags.error(_loc(holder, "starts_in") if "starts_in" in holder else _loc(raw, "id"),
                             f"unknown zone `{starts}` for `starts_in`" if starts else
                             "a card needs `starts_in`: the zone its copies start in",
                             did_you_mean(str(starts), d.zones))
        elif per_player != (zone.owner == "player"):
            self.diags.error(_loc(holder, "starts_in"),
                             f"`{starts}` is a {'player' if zone.owner == 'player' else 'shared'} zone: "
                             + ("cards starting there need `per_player: true`" if zone.owner == "player"
                                else "per-player cards must start in a player zone"))
        fields = {}
        for key in list(defaults) + list(raw):
            if key in CARD_KEYS or key in fields:
                continue
            if key not in d.card_fields:
                holder = raw if key in raw else defaults
                self.diags.error(_key_loc(holder, key), f"unknown card field `{key}`; declare it under "
                                 "`card_fields:` in game.yaml", did_you_mean(key, set(d.card_fields) | CARD_KEYS))
                continue
            value = self.printed(raw, defaults, key)
            want = d.card_fields[key]
            ok = (want == T.INT and isinstance(value, int) and not isinstance(value, bool)) or \
                 (want == T.BOOL and isinstance(value, bool)) or \
                 (want in (T.STR, T.CELL) and isinstance(value, str)) or value is None
            if T.is_enum(want) and value is not None:
                members = d.enums.get(want[5:], [])
                ok = str(value) in members
                if not ok:
                    holder = raw if key in raw else defaults
                    self.diags.error(_loc(holder, key), f"card field `{key}` must be one of "
                                     f"{want[5:]}: {', '.join(members)}", did_you_mean(str(value), members))
                    ok = True
                value = str(value) if value is not None else None
            if not ok:
                holder = raw if key in raw else defaults
                self.diags.error(_loc(holder, key), f"card field `{key}` must be {T.plain(want)}")
            fields[key] = value
        for key in d.card_fields:
            fields.setdefault(key, None)
        count = self.field(raw, defaults, "count", 1)
        context = {"params": d.params, "labels": d.enum_labels,
                   "card": {"id": cid, "name": raw.get("name"), **fields},
                   **getattr(raw, "generated", {}), **fields}
        text_template = str(self.field(raw, defaults, "text", "") or "")
        try:
            text = sandbox.render_text(env, text_template, context)
        except sandbox.TemplateProblem as exc:
            text_holder = raw if "text" in raw else defaults
            where = _loc(text_holder, "text") if "text" in text_holder else _loc(raw, "id")
            self.diags.error(sandbox.source_loc(text_holder.get("text"), exc.line, where),
                             f"card text template of `{cid}`: {exc}")
            text = text_template
        names = {"me": T.PLAYER, "this": T.CARD}

        def holder_of(key):
            """The mapping that gives this card its `key`: the card, else the file's defaults."""
            return raw if key in raw else defaults

        card = {"id": cid, "name": raw.get("name", cid), "kind": kind, "count": count,
                "per_player": per_player, "starts_in": starts, "text": text,
                "text_template": text_template, "flavour": self.field(raw, defaults, "flavour"),
                "note": self.field(raw, defaults, "note"), "fields": fields,
                "source": str(_loc(raw, "id")).rsplit(":", 1)[0]}
        for key in ("image", "back_image"):  # relative to the game folder; set only when given (same bundles)
            if self.field(raw, defaults, key):
                card[key] = str(self.field(raw, defaults, key))
        if "requires" in holder_of("requires"):
            card["requires"] = self.expr(holder_of("requires"), "requires", f"{label} requires", names, T.BOOL)
        if "effect" in holder_of("effect"):
            card["effect"] = self.block(holder_of("effect"), "effect", f"{cid}: effect", names)
        reaction = self.field(raw, defaults, "reaction")
        if reaction:
            tag = reaction.get("to")
            if tag not in d.windows:
                self.diags.error(_loc(reaction, "to"), f"unknown window `{tag}`",
                                 did_you_mean(str(tag), d.windows))
            else:
                rnames = {**names, "event": "event:" + tag}
                card["reaction"] = {
                    "to": tag,
                    "if": self.expr(reaction, "if", f"{label} reaction condition", rnames, T.BOOL)
                    if "if" in reaction else None,
                    "effect": self.block(reaction, "effect", f"{cid}: reaction", rnames)
                    if "effect" in reaction else None}
        hooks = self.field(raw, defaults, "hooks") or {}
        card["hooks"] = {}
        for event in hooks:
            if event not in d.events:
                self.diags.error(_key_loc(hooks, event), f"unknown event `{event}`",
                                 did_you_mean(event, d.events))
                continue
            card["hooks"][event] = self.block(hooks, event, f"{cid}: hook `{event}`",
                                              {**names, **d.events[event]})
        mods = self.field(raw, defaults, "modifiers") or {}
        card["modifiers"] = {}
        for name in mods:
            if name not in d.modifiers:
                self.diags.error(_key_loc(mods, name), f"unknown modifier `{name}`",
                                 did_you_mean(name, d.modifiers))
                continue
            card["modifiers"][name] = self.expr(mods, name, f"{cid}: modifier `{name}`",
                                                {**names, "value": T.INT, **d.modifiers[name]}, T.INT)
        return card

    def warn_unused(self, cards):
        """Warnings (not errors, unless --strict): procedures and functions that
        nothing uses, and cards of which no copy is ever in play."""
        procs, fns = set(self.used_procs), set()
        for key, code in self.code.items():
            kind, _, own = key.partition(":")     # a rule calling only itself is still unused
            inner_p: set[str] = set()
            inner_f: set[str] = set()
            _referenced(entry_expressions(code), inner_p, inner_f)
            procs.update(inner_p - ({own} if kind == "proc" else set()))
            fns.update(inner_f - ({own} if kind == "fn" else set()))
        for card in cards:
            _referenced(card_expressions(card), procs, fns)
        rules = self.src.rules or {}
        for kind, used, noun in (("procs", procs, "procedure"), ("functions", fns, "function")):
            block = rules.get(kind) or {}
            for name in block:
                if name not in used:
                    self.diags.warning(_key_loc(block, name), f"{noun} `{name}` is never used",
                                       "remove it, or call it from the flow, a card or another rule")
        for card in cards:
            if card["count"] == 0:
                self.diags.warning(None, f"card `{card['id']}` has count 0: no copy is ever in play")


def _referenced(nodes, procs: set, fns: set):
    """Collect the procedure and function names that the ops and expressions
    `nodes` (from `entry_expressions` or `card_expressions`) use."""
    for ir in nodes:
        if ir[0] == "call" and len(ir) > 2:
            procs.add(ir[1])
            if ir[1] == "sort_by":
                fns.add(ir[2][1][1])
        elif ir[0] == "fn":
            fns.add(ir[1])


def compile_game(source, diags, checks=()) -> dict | None:
    """The bundle of a loaded game, or None when it has errors.  `checks`:
    f(source, decls, bundle, diags) for what only a later stage can check
    (the layout's names, the game's constraints: `project.compile_checked`),
    run on the bundle before it is given out, so one run reports every error
    and the compiler imports neither the engine nor the renderer."""
    gc = GameCompiler(source, diags)
    gc.declare()
    gc.compile_rules()
    gc.compile_flow()
    cards, instances = gc.compile_cards()
    gc.check_templates(cards)
    if not diags.has_errors:
        check_unbounded(gc.code, cards, gc.fn_locs, diags)
    g = source.game
    if not diags.has_errors:
        gc.warn_unused(cards)
    if diags.has_errors:
        return None
    d = gc.d
    bundle = {
        "format": BUNDLE_FORMAT,
        "game": g["id"],
        "name": g.get("name", g["id"]),
        "description": g.get("description"),
        "note": g.get("note"),
        "players": dict(g.get("players") or {"min": 1, "max": 1}),
        "source_hash": source.source_hash(),
        "params": d.params,
        "kinds": d.kinds,
        "card_fields": d.card_fields,
        "zones": [{"id": z.id, "owner": z.owner, "visibility": z.visibility, "active": z.active,
                   "limit": d.params.get(z.limit, z.limit) if z.limit is not None else None,
                   "overflow": z.overflow, "keeps_attachments": z.keeps_attachments}
                  for z in d.zones.values()],
        "counters": {scope: {c.name: {"type": c.type, "start": c.start, "per_player": c.per_player,
                                      **({"visibility": c.visibility} if c.visibility != "public" else {}),
                                      **({"bookkeeping": True} if c.bookkeeping else {})}
                             for c in target.values()}
                     for scope, target in (("game", d.game_counters), ("player", d.player_counters),
                                           ("card", d.card_counters))},
        "events": d.events,
        "windows": d.windows,
        "modifiers": d.modifiers,
        "signatures": {kind: {name: {"params": [[p, t] for p, t in sig.params.items()],
                                     "returns": sig.returns}
                              for name, sig in target.items()}
                       for kind, target in (("functions", d.functions), ("procs", d.procs))},
        "grid": dict(g["grid"]) if "grid" in g else None,
        "timing": dict(g.get("timing") or {}),
        "display": dict(g.get("display") or {}),
        "max_turns": int((g.get("flow") or {}).get("max_turns", 1000)),
        "cards": cards,
        "instances": instances,
        "code": gc.code,
        "layout": source.layout,
        "rulebook": source.rulebook,
    }
    agents = g.get("agents") or {}
    if agents.get("mcts") or agents.get("value"):     # cardc tune-agent, fit-value: only when given
        bundle["agents"] = {}
        if agents.get("mcts"):
            bundle["agents"]["mcts"] = str(agents["mcts"])
        if agents.get("value"):
            bundle["agents"]["value"] = _fitted_value(agents["value"], bundle, diags)
    if g.get("limits"):               # the engine's budgets, raised (cardc/engine/limits.py)
        bundle["limits"] = dict(g["limits"])
    if gc.levels:                     # only when declared, as the other optional keys
        bundle["levels"] = gc.levels
    if gc.score_wins == "lowest":     # only then, so other bundles stay as they were
        bundle["score_wins"] = "lowest"
    bundle["docs"] = _docs(g, source.rules or {})
    if d.enums:      # only when used, so games without them keep their bundles byte for byte
        bundle["enums"] = d.enums
        bundle["zone_families"] = {f.id: f.enum for f in d.families.values()}
    if d.enum_labels:
        bundle["labels"] = d.enum_labels
    bundle = _plain(bundle)
    for check in checks:        # the later stages' checks (project.compile_checked)
        check(source, d, bundle, diags)
    if diags.has_errors:
        return None
    return bundle


def _fitted_value(weights, bundle, diags) -> dict:
    """game.yaml's `agents: value:` (cardc fit-value): each feature one the
    game declares (cardc/agents/value.py), else a located error."""
    known = {f"counter:{k}" for k, v in bundle["counters"]["player"].items()
             if v.get("type", "int") in ("int", "bool")}
    known |= {f"zone:{z['id']}" for z in bundle["zones"] if z["owner"] == "player"}
    impure = impure_functions(bundle["code"])
    known |= {f"fn:{name}" for name, sig in bundle["signatures"]["functions"].items()
              if sig["returns"] in ("int", "bool") and [t for _, t in sig["params"]] == ["player"]
              and name not in impure}
    if "score" in bundle["code"]:
        known.add("score")
    for name in weights:
        if name not in known:
            diags.error(_key_loc(weights, name), f"`agents: value:` weighs `{name}`, which is not a feature of "
                        "this game (a player counter holding a number, a per-player zone, a function of one player "
                        "giving a number, or the score)",
                        did_you_mean(str(name), sorted(known))
                        or "fit it again with `cardc fit-value --write`, or remove the line")
    return {str(k): float(v) for k, v in weights.items()}


def _docs(game, rules) -> dict:
    """What the content says in words, for a rulebook (the default one is made
    of these): descriptions of zones, counters, windows, functions and procs,
    and the text of the flow and the score as written."""
    def described(block):
        return {str(k): str(v["description"]) for k, v in (block or {}).items()
                if isinstance(v, dict) and v.get("description")}
    counters = game.get("counters") or {}
    flow = game.get("flow") or {}
    return {
        "zones": {str(z["id"]): str(z["description"]) for z in game.get("zones") or []
                  if z.get("description")},
        "counters": {scope: described(counters.get(scope)) for scope in ("game", "player", "card")},
        "windows": described(game.get("windows")),
        "functions": described(rules.get("functions")),
        "procs": described(rules.get("procs")),
        "flow": {part: str(flow[part]) for part in ("setup", "round_start", "turn", "round_end")
                 if part in flow},
        "score": (str(game["score"]["expr"]) if isinstance(game.get("score"), dict)
                  else str(game["score"]) if "score" in game else None),
    }


def _plain(value):
    """LocDict/LocList/LocStr to plain JSON types, so the bundle is pure data."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    return value
