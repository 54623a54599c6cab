"""Compile a loaded game folder into its bundle.

Order: gather declarations (game.yaml, rules.yaml, card ids) so that nothing
depends on definition order; compile functions, procs, hooks and the flow;
compile each card; expand card instances; then check the content's own
constraints on the initial state.  Every problem goes to `diags`; the bundle
is returned only when there are none.
"""
from __future__ import annotations

from cardc import sandbox
from cardc.compiler import types as T
from cardc.compiler.decls import Counter, Decls, Signature, ZoneDecl
from cardc.compiler.exprs import Where
from cardc.compiler.stmts import compile_block, compile_expr
from cardc.diagnostics import Loc, did_you_mean, display_path

BUNDLE_FORMAT = 1
CARD_KEYS = {"id", "name", "kind", "count", "per_player", "starts_in", "text", "flavour",
             "note", "requires", "effect", "reaction", "hooks", "modifiers"}


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
        self.used_procs: set = set()

    # ------------------------------------------------------------ helpers
    def where(self, container, key, label):
        value = container[key]
        loc = _loc(container, key)
        return Where(value, loc.file, label, loc.line, loc.col)

    def block(self, container, key, label, names, params=()):
        return compile_block(container[key], self.where(container, key, label), self.d,
                             self.diags, names, params)

    def expr(self, container, key, label, names, want=None):
        return compile_expr(container[key], self.where(container, key, label), self.d,
                            self.diags, names, want)

    def type_of(self, container, key):
        text = container[key]
        t = T.DECLARABLE.get(str(text).replace(" ", ""))
        if t is None:
            self.diags.error(_loc(container, key), f"unknown type `{text}`",
                             did_you_mean(str(text), T.DECLARABLE) or
                             "types are: " + ", ".join(sorted(T.DECLARABLE)))
            return T.ANY
        return t

    # ------------------------------------------------------------ declarations
    def declare(self):
        g, d = self.game, self.d
        d.params = dict(g.get("params") or {})
        d.kinds = dict(g.get("kinds") or {})
        fields = g.get("card_fields") or {}
        d.card_fields = {k: self.type_of(fields, k) for k in fields}
        for i, z in enumerate(g.get("zones") or []):
            if z["id"] in d.zones:
                self.diags.error(_loc(g["zones"], i), f"zone `{z['id']}` is declared twice")
            d.zones[z["id"]] = ZoneDecl(z["id"], z.get("owner", "shared"), z.get("visibility", "public"),
                                        bool(z.get("active", False)), z.get("limit"), z.get("overflow"),
                                        bool(z.get("keeps_attachments", False)))
        counters = g.get("counters") or {}
        for scope, target in (("game", d.game_counters), ("player", d.player_counters),
                              ("card", d.card_counters)):
            block = counters.get(scope) or {}
            for name, spec in block.items():
                if isinstance(spec, dict):
                    t = self.type_of(spec, "type") if "type" in spec else T.INT
                    start = spec.get("start", {T.INT: 0, T.BOOL: False, T.STR: ""}.get(t))
                    target[name] = Counter(name, t, start, bool(spec.get("per_player", False)))
                else:
                    t = T.BOOL if isinstance(spec, bool) else T.STR if isinstance(spec, str) else T.INT
                    target[name] = Counter(name, t, spec)
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
        for name in d.functions:
            if name in d.procs:
                self.diags.error(_key_loc(rules["procs"], name),
                                 f"`{name}` is both a function and a procedure")
        for _, cards in self.src.card_files:
            for c in cards.get("cards") or []:
                d.card_ids.add(c.get("id"))
        self._check_zone_refs()

    def _check_zone_refs(self):
        d = self.d
        for i, z in enumerate(self.game.get("zones") or []):
            decl = d.zones[z["id"]]
            if decl.limit is not None and not isinstance(decl.limit, int) and decl.limit not in d.params:
                self.diags.error(_loc(z, "limit"), f"zone limit `{decl.limit}` is neither a number nor a param",
                                 did_you_mean(str(decl.limit), d.params))
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
            ir = self.expr(spec, "expr", f"function `{name}`", dict(sig.params), sig.returns)
            self.code["fn:" + name] = {"params": list(sig.params), "expr": ir}
        for name, spec in (rules.get("procs") or {}).items():
            sig = self.d.procs[name]
            names = {"me": T.PLAYER, **sig.params} if "me" not in sig.params else dict(sig.params)
            self.code["proc:" + name] = self.block(spec, "do", f"procedure `{name}`", names,
                                                   list(sig.params))
        for event, body in (rules.get("hooks") or {}).items():
            if event not in self.d.events:
                self.diags.error(_key_loc(rules["hooks"], event), f"unknown event `{event}`",
                                 did_you_mean(event, self.d.events))
                continue
            names = {"me": T.PLAYER, **self.d.events[event]}
            self.code["hook:" + event] = self.block(rules["hooks"], event, f"game hook `{event}`", names)

    def compile_flow(self):
        flow = self.game.get("flow") or {}
        for part in ("setup", "turn", "round_start", "round_end"):
            if part in flow:
                self.code["flow:" + part] = self.block(flow, part, f"flow `{part}`", {"me": T.PLAYER})
        if "turn" not in flow:
            self.diags.error(_loc(self.game, "flow") if "flow" in self.game else
                             Loc(display_path(self.src.root / "game.yaml"), 1, 1),
                             "the game has no `flow.turn`: what happens on a player's turn?")
        display = self.game.get("display") or {}
        if "label" in display:
            self.code["display_label"] = self.expr(display, "label", "display label", {"this": T.CARD}, T.STR)
        if "board" in display and display["board"] not in self.d.zones:
            self.diags.error(_loc(display, "board"), f"unknown zone `{display['board']}`",
                             did_you_mean(str(display["board"]), self.d.zones))
        for key in ("score", "eval"):
            if key in self.game:
                self.code[key] = self.expr(self.game, key, key, {"p": T.PLAYER}, T.INT)
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
                               "kind_id": card["kind"], "params": self.d.params}
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
        seen = {}
        env = sandbox.environment()
        for path, doc in self.src.card_files:
            defaults = doc.get("defaults") or {}
            for i, raw in enumerate(doc.get("cards") or []):
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
        max_players = int((self.game.get("players") or {}).get("max", 1))
        for card in cards:
            seats = range(max_players) if card["per_player"] else [None]
            for seat in seats:
                for _ in range(card["count"]):
                    instances.append({"iid": len(instances), "card": card["id"], "seat": seat})
        return cards, instances

    def field(self, raw, defaults, key, default=None):
        if key in raw:
            return raw[key]
        return defaults.get(key, default)

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
            value = self.field(raw, defaults, key)
            want = d.card_fields[key]
            ok = (want == T.INT and isinstance(value, int) and not isinstance(value, bool)) or \
                 (want == T.BOOL and isinstance(value, bool)) or \
                 (want in (T.STR, T.CELL) and isinstance(value, str)) or value is None
            if not ok:
                holder = raw if key in raw else defaults
                self.diags.error(_loc(holder, key), f"card field `{key}` must be {T.plain(want)}")
            fields[key] = value
        for key in d.card_fields:
            fields.setdefault(key, None)
        count = self.field(raw, defaults, "count", 1)
        context = {"params": d.params, "card": {"id": cid, "name": raw.get("name"), **fields}, **fields}
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

        def holder(key):
            """The mapping that gives this card its `key`: the card, else the file's defaults."""
            return raw if key in raw else defaults

        card = {"id": cid, "name": raw.get("name", cid), "kind": kind, "count": count,
                "per_player": per_player, "starts_in": starts, "text": text,
                "text_template": text_template, "flavour": self.field(raw, defaults, "flavour"),
                "note": self.field(raw, defaults, "note"), "fields": fields,
                "source": str(_loc(raw, "id")).rsplit(":", 1)[0]}
        if "requires" in holder("requires"):
            card["requires"] = self.expr(holder("requires"), "requires", f"{label} requires", names, T.BOOL)
        if "effect" in holder("effect"):
            card["effect"] = self.block(holder("effect"), "effect", f"{cid}: effect", names)
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
            inner_p, inner_f = set(), set()
            _referenced(code, inner_p, inner_f)
            procs.update(inner_p - ({own} if kind == "proc" else set()))
            fns.update(inner_f - ({own} if kind == "fn" else set()))
        for card in cards:
            _referenced(card, procs, fns)
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


def _referenced(ir, procs: set, fns: set):
    """Collect proc and function names used anywhere in compiled code."""
    if isinstance(ir, list):
        if ir and ir[0] == "call" and len(ir) > 2 and isinstance(ir[1], str):
            procs.add(ir[1])
            if ir[1] == "sort_by":
                fns.add(ir[2][1][1])
        if ir and ir[0] == "fn":
            fns.add(ir[1])
        for part in ir:
            _referenced(part, procs, fns)
    elif isinstance(ir, dict):
        for part in ir.values():
            _referenced(part, procs, fns)




def compile_game(source, diags) -> dict | None:
    """The bundle of a loaded game, or None when it has errors."""
    gc = GameCompiler(source, diags)
    gc.declare()
    gc.compile_rules()
    gc.compile_flow()
    cards, instances = gc.compile_cards()
    gc.check_templates(cards)
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
        "counters": {scope: {c.name: {"type": c.type, "start": c.start, "per_player": c.per_player}
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
    bundle = _plain(bundle)
    from cardc.render.layout_check import check_layout  # names in layout.yaml the schema cannot check
    check_layout(source.layout, d.kinds, d.params, diags)
    from cardc.compiler.constraints import check_constraints
    check_constraints(bundle, diags)
    if diags.has_errors:
        return None
    return bundle


def _plain(value):
    """LocDict/LocList/LocStr to plain JSON types, so the bundle is pure data."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    return value
