"""Rules scenarios: a start state, scripted decisions, expected results.

A scenario speaks the content's own names: players are P1..Pn, zones are
`P1.hand` or `discard`, counters are `P2.partner` or `game.quarter`, cards
are their ids, and checks are expressions of the effect language
(`valuation(P1)`).  The format is the same for every game; see
tests/scenarios/README.md.
"""
from __future__ import annotations

import re
import sys
from collections import Counter as Multiset
from dataclasses import dataclass, field
from pathlib import Path

from cardc.compiler.decls import decls_from_bundle
from cardc.compiler.exprs import ExprCompiler, Scope, Where
from cardc.dsl.parser import DslError, parse_expr
from cardc.engine import EngineError, Game
from cardc.engine.pygen import fmt
from cardc.engine.state import State
from cardc.load.diagnostics import Diagnostics, Loc, display_path


class _Located(dict):
    """A one-key mapping that borrows another mapping's location for that key."""

    def __init__(self, data, source, key):
        super().__init__(data)
        self.value_locs = {key: _loc(source, key)}


class ScenarioError(Exception):
    """The scenario itself is wrong (a name that does not exist, a bad step)."""

    def __init__(self, loc, message):
        super().__init__(f"{loc}: {message}" if loc else message)


@dataclass
class Result:
    name: str
    file: str
    ok: bool
    failures: list = field(default_factory=list)
    transcript: list = field(default_factory=list)     # every step, the open actions, the log (-v)


def _key_loc(container, key):
    locs = getattr(container, "key_locs", None)
    return locs[key] if locs and key in locs else _loc(container, key)


def _loc(container, key):
    locs = getattr(container, "value_locs", None)
    if locs and key in locs:
        return locs[key]
    locs = getattr(container, "item_locs", None)
    if locs is not None and isinstance(key, int) and key < len(locs):
        return locs[key]
    return getattr(container, "loc", None)


class Runner:
    """Runs one scenario against one built game."""

    def __init__(self, game: Game, bundle: dict, spec, file: str):
        self.game, self.bundle, self.spec, self.file = game, bundle, spec, file
        self.decls = decls_from_bundle(bundle)
        self.n = int(spec.get("players", game.min_players))
        if not game.min_players <= self.n <= game.max_players:
            raise ScenarioError(_loc(spec, "players") or Loc(file, 0, 0),
                                f"`players: {self.n}`: {game.id} is for {game.min_players} to "
                                f"{game.max_players} players")
        self.names = {f"P{i + 1}": i for i in range(self.n)}
        self.card_names: dict[str, int] = {}
        self.builder = game.pygen
        self.trail: list[str] = []
        self.exact = spec.get("labels", "part") == "exact"
        self.invariants = spec.get("invariants", True)
        self.excused: set = set()           # invariants the start state itself does not meet
        self.transcript: list[str] = []      # what -v shows: every step, the open actions

    def player(self, who, loc, what="player") -> int:
        """The seat of `P1` … `Pn`; anything else is an error of the scenario."""
        who = str(who)
        if who in self.names:
            return self.names[who]
        if re.fullmatch(r"P[0-9]+", who):
            raise ScenarioError(loc, f"there is no {who} in a {self.n}-player game "
                                f"(the players are {', '.join(self.names)})")
        raise ScenarioError(loc, f"`{who}` is not a {what}: write P1 … P{self.n}")

    # ------------------------------------------------------------ expressions
    def lower(self, text, loc):
        """Check one expression of the scenario against the game: (IR, type).
        Players P1..Pn and the named cards are its locals."""
        text = str(text)
        try:
            node = parse_expr(text)
        except DslError as exc:
            raise ScenarioError(loc, f"cannot parse `{text}`: {exc.message}") from None
        names = {k: "player" for k in self.names}
        names.update({k: "card" for k in self.card_names})
        diags = Diagnostics()
        ec = ExprCompiler(self.decls, Where(text, loc.file, "scenario", loc.line, loc.col), diags)
        ir, t = ec.expr(node, Scope(names))
        if diags.has_errors:
            d = diags.sorted()[0]
            raise ScenarioError(loc, d.message + (f" ({d.hint})" if d.hint else ""))
        return ir, t

    def compile(self, text, container, key):
        """A closure for the expression `text`, written at container[key]."""
        ir, t = self.lower(text, _loc(container, key) or Loc(self.file, 0, 0))
        return self.builder.build(ir), t

    def env(self):
        return {**self.names, **self.card_names}

    def value(self, st, text, container, key):
        f, t = self.compile(text, container, key)
        return f(st, self.env()), t

    # ------------------------------------------------------------ start state
    def start(self) -> State:
        spec = self.spec
        seed = int(spec.get("seed", 0))
        start = spec.get("start") or {}
        if start.get("setup", "skip") == "run":
            extra = [k for k in ("turn", "zones", "attach", "counters", "empty", "turn_number", "round")
                     if k in start]
            if extra:
                raise ScenarioError(_loc(start, extra[0]), f"`{extra[0]}` cannot be used with "
                                    "`setup: run` (the real setup decides it); use `setup: skip`, "
                                    "or `stack:` to script the cards the setup draws")
            st = State.initial(self.game, self.n, seed, log=True, run=False)
            restore = self.stack(st, start.get("stack") or {}, start)
            st.run()
            restore()
            self._unique_names(st)
            return st
        if "stack" in start:
            raise ScenarioError(_loc(start, "stack"), "`stack` scripts the draws of a real setup: "
                                "use it with `setup: run` (with `setup: skip`, place the cards under `zones`)")
        st = State.initial(self.game, self.n, seed, log=True, run=False)
        st.stage = "setup"
        st.set_flow("turn_player", self.player(start.get("turn", "P1"), _loc(start, "turn")))
        self.place(st, start)
        self.set_clock(st, start)
        st.run()
        return st

    def set_clock(self, st, start):
        """`turn_number: 12` makes the first turn turn 12 (so `game.turn` of a
        rule such as "within the last round" has a past); `round: 4` makes it
        round 4.  The engine counts on from there."""
        for key in ("turn_number", "round"):
            if key in start and (not isinstance(start[key], int) or start[key] < 1):
                raise ScenarioError(_loc(start, key), f"`{key}` must be a whole number, 1 or more")
        if "turn_number" in start:
            st.set_flow("turn", start["turn_number"] - 1)
        if "round" in start:
            # the engine starts round 1 when the setup ends: end it here, then set the round
            st._flow_next(once=True)
            st.set_flow("round", start["round"])

    def stack(self, st, stack, start):
        """`stack: {tile_pool: [b7, c3]}` with `setup: run`: these cards go on
        top of that zone, and every shuffle of it until the first decision
        leaves them on top, in this order (the rest is shuffled): the blind
        draws of a setup, scripted.  Returns the undo of the scripting."""
        if not stack:
            return lambda: None
        kept = {}
        taken: set[int] = set()
        for key, ids in stack.items():
            f, _ = self._zone(key, stack)
            slot = f(st, self.env())
            placed = [self._take(st, cid, taken, ids, i, slot) for i, cid in enumerate(ids or [])]
            for iid in reversed(placed):
                st.move(iid, slot, "top")
            kept[slot] = placed
            for iid, cid in zip(placed, ids or [], strict=True):
                self.card_names.setdefault(str(cid), iid)
        plain = st.shuffle_zone

        def shuffle_zone(slot):
            plain(slot)
            for iid in reversed(kept.get(slot, [])):
                if st.loc[iid] == slot:
                    zone = st.own_zone(slot)
                    zone.remove(iid)
                    zone.insert(0, iid)
        st.shuffle_zone = shuffle_zone
        return lambda: st.__dict__.pop("shuffle_zone", None)

    def place(self, st, start):
        taken: set[int] = set()
        for key, dest in (start.get("empty") or {}).items():
            f_from, _ = self._zone(key, start["empty"])
            f_to, _ = self._zone(key, start["empty"], str(dest))
            src, to = f_from(st, self.env()), f_to(st, self.env())
            for c in list(st.zones[src]):
                st.move(c, to, "bottom")
        for key, ids in (start.get("zones") or {}).items():
            f, t = self._zone(key, start["zones"])
            slot = f(st, self.env())
            placed = []
            for i, cid in enumerate(ids or []):
                iid = self._take(st, cid, taken, ids, i, slot)
                placed.append(iid)
            for iid in reversed(placed):
                st.move(iid, slot, "top")
            for iid, cid in zip(placed, ids or [], strict=True):
                self.card_names.setdefault(str(cid), iid)
                seat = self.game.card_seat[iid]
                if seat is not None:
                    self.card_names.setdefault(f"{self._base_id(cid)}[P{seat + 1}]", iid)
        for cid, host in (start.get("attach") or {}).items():
            c = self.card_names.get(cid)
            h = self.card_names.get(host)
            if c is None or h is None:
                raise ScenarioError(_loc(start["attach"], cid), f"attach `{cid}` to `{host}`: "
                                    "both cards must be placed under `zones` first")
            st.attach(c, h)
        self._unique_names(st)
        for key, value in (start.get("counters") or {}).items():
            self._set_counter(st, key, value, start["counters"])

    def _zone(self, key, container, text=None):
        """The zone named by `text` (by default the key itself) in container[key]."""
        text = key if text is None else text
        f, t = self.compile(text, container if text == key else _Located({key: text}, container, key), key)
        if t != "zone":
            raise ScenarioError(_loc(container, key), f"`{text}` is not a zone")
        return f, t

    @staticmethod
    def _base_id(cid) -> str:
        return str(cid).split("[", 1)[0]

    def _take(self, st, cid, taken, container, index, slot=None):
        """A copy of card `cid` not placed yet.  A per-player card's copy is
        the destination owner's own (`land_option` into `P2.markers` is P2's),
        unless the id names the owner: `land_option[P1]`."""
        g = self.game
        cid = str(cid)
        loc = _loc(container, index)
        base, owner = self._base_id(cid), None
        if "[" in cid:
            m = re.fullmatch(r"([a-z][a-z0-9_]*)\[(P[0-9]+)\]", cid)
            if m is None:
                raise ScenarioError(loc, f"`{cid}`: a player's own copy is written `card_id[P2]`")
            base, owner = m.group(1), self.player(m.group(2), loc)
        if base not in g.card_index:
            from cardc.load.diagnostics import did_you_mean
            hint = did_you_mean(base, g.card_index)
            raise ScenarioError(loc, f"unknown card `{base}`" + (f" ({hint})" if hint else ""))
        if owner is None and slot is not None:
            owner = g.slot_owner(st, slot)
        copies = [iid for iid, d in enumerate(g.card_def)
                  if g.cards[d]["id"] == base and iid not in taken and st.loc[iid] >= 0]
        own = [iid for iid in copies if g.card_seat[iid] is not None and g.card_seat[iid] == owner]
        if "[" in cid and not own:
            raise ScenarioError(loc, f"no copy of `{base}` of {cid[len(base) + 1:-1]} is left to place")
        for iid in own + copies:
            taken.add(iid)
            return iid
        raise ScenarioError(loc, f"no copy of `{cid}` is left to place")

    def _unique_names(self, st):
        """Card ids with one copy in play can be named in checks too, and a
        per-player card with one copy per seat by its owner: `land_option[P2]`."""
        g = self.game
        in_play = [i for i in range(len(g.instances)) if st.loc[i] != -2]
        counts = Multiset(g.card_field["id"][i] for i in in_play)
        owned = Multiset((g.card_field["id"][i], g.card_seat[i]) for i in in_play
                         if g.card_seat[i] is not None)
        for i in in_play:
            cid, seat = g.card_field["id"][i], g.card_seat[i]
            if counts[cid] == 1:
                self.card_names.setdefault(cid, i)
            if seat is not None and owned[(cid, seat)] == 1:
                self.card_names.setdefault(f"{cid}[P{seat + 1}]", i)

    def _set_counter(self, st, key, value, container):
        loc = _loc(container, key) or Loc(self.file, 0, 0)
        try:
            ir, t = self.lower(key, loc)
        except ScenarioError:
            ir = None
        if ir is None or ir[0] not in ("gctr", "pctr", "cctr", "cpp"):
            raise ScenarioError(loc, f"`{key}` is not a counter")
        members = self.decls.enums.get(t[5:], ()) if t.startswith("enum:") else ()
        if isinstance(value, str) and value in members:
            v = value               # a counter typed by a named list: its member, as written
        else:
            v = self.builder.build(self.lower(value, loc)[0])(st, self.env()) \
                if isinstance(value, str) else value
        env, b, kind = self.env(), self.builder, ir[0]
        # through the state's one write path: what reads the counter is forgotten
        if kind == "gctr":
            st.set_counter(kind, ir[1], v)
        elif kind == "pctr":
            st.set_counter(kind, ir[1], v, player=b.build(ir[2])(st, env))
        elif kind == "cctr":
            st.set_counter(kind, ir[1], v, card=b.build(ir[2])(st, env))
        else:
            st.set_counter(kind, ir[1], v, card=b.build(ir[2])(st, env), player=b.build(ir[3])(st, env))

    # ------------------------------------------------------------ steps
    MAX_STEPS = 10_000          # steps taken, repeats counted: a scenario always ends

    log: list | None = None

    def begin(self) -> State:
        """The start state, ready for `steps` (a rulebook example replays a
        scenario this way to draw its states)."""
        st = self.start()
        self.log = st.log
        self.taken = 0
        if self.invariants is True:
            # a start built by hand need not be a state the rules reach; what
            # it does meet, every step must keep (`invariants: all` asks for all)
            self.excused = set(self.game.broken_invariants(st))
        return st

    def run(self) -> list:
        st = self.begin()
        broken = self.broken(st, "at the start")
        if broken:
            return broken
        failures = self.steps(st, self.spec.get("steps") or [], self.spec, "steps")
        if failures:
            return failures
        return self.check(st, self.spec.get("expect") or {}, "at the end")

    def steps(self, st, steps, container, key) -> list:
        """Take `steps` in order; the failures of the first that fails."""
        for i, step in enumerate(steps):
            loc = _loc(steps, i) or _loc(container, key)
            if "turn_end" in step:
                failures = self.turn_end(st, step["turn_end"], loc, i)
                if failures:
                    return failures
                continue
            if i + 1 < len(steps) and isinstance(steps[i + 1], dict) and "turn_end" in steps[i + 1]:
                st.hold_at = "next_turn"     # the engine stops once the turn (and its turn_end hooks) is over
            if "expect" in step:
                failures = self.check(st, step["expect"], f"after {self.taken} steps")
                if failures:
                    return failures
                continue
            if "repeat" in step:
                failures = self.repeat(st, step["repeat"], loc)
                if failures:
                    return failures
                continue
            self.taken += 1
            if self.taken > self.MAX_STEPS:
                return [f"{loc}: more than {self.MAX_STEPS} steps: is a `repeat` too large?"]
            if "run" in step:
                err = self.run_statement(st, step["run"], _Located({"run": step["run"]}, step, "run"))
                what = "run: " + "; ".join(str(step["run"]).strip().splitlines())
            else:
                who, label = next(iter(step.items()))
                self.player(who, loc, "player (or `expect`, `run`, `repeat`)")
                self.note_open(st, f"{who}: {label}")
                err = self.take_step(st, who, label, loc)
                what = f"{who} → {label}"
            if err:
                return [err]
            self.trail.append(what)
            broken = self.broken(st, f"after step `{what}`")
            if broken:
                return broken
        return []

    def turn_end(self, st, expect, loc, index) -> list:
        """`turn_end:` checks, right after the step that ends a turn: they see
        the table after the turn's last decision and its `turn_end` hooks,
        before the next player's turn begins (its draw, its skipped turn)."""
        if index == 0:
            raise ScenarioError(loc, "`turn_end` checks go right after the step that ends a turn")
        if not st.is_terminal() and st.pending is not None:
            st.hold_at = None
            d = st.pending
            return [f"{loc}: turn_end: the turn has not ended: {st.player_name(d.player)} still decides "
                    f"({d.prompt or d.kind}: {', '.join(d.labels)}) (steps: {' | '.join(self.trail)})"]
        failures = self.check(st, expect or {}, "at the end of the turn")
        if failures:
            return failures
        if not st.is_terminal():
            st.run()                         # the next turn begins
        return []

    def repeat(self, st, spec, loc) -> list:
        """`repeat: {times: 3, steps: [...]}`: the same steps, several times."""
        times = spec.get("times") if isinstance(spec, dict) else None
        if not isinstance(times, int) or times < 0 or not isinstance(spec.get("steps"), list):
            raise ScenarioError(loc, "`repeat` is `{times: N, steps: [...]}`")
        for _ in range(times):
            failures = self.steps(st, spec["steps"], spec, "steps")
            if failures:
                return failures
        return []

    def broken(self, st, when) -> list:
        """The content's invariants (and the engine's own), after every step
        of every scenario: those the start met (all of them with
        `invariants: all`, none with `invariants: false`)."""
        if self.invariants is False:
            return []
        return [f"{b} ({when}; steps: {' | '.join(self.trail) or 'none'})"
                for b in self.game.broken_invariants(st) if b not in self.excused]

    def note_open(self, st, step):
        if st.pending is not None and not st.is_terminal():
            d = st.pending
            self.transcript.append(f"{st.player_name(d.player)} · {d.prompt or d.kind}: "
                                   + " | ".join(d.labels))
        self.transcript.append(f"  step {self.taken}: {step}")

    def run_statement(self, st, text, container):
        """`- run: draw(P1, 2)`: statements of the effect language, run now,
        as if the player whose decision is pending (else the turn player)
        did them.  P1 … Pn and the named cards are its names; a decision it
        asks for is the next step's."""
        from cardc.compiler.stmts import compile_block
        loc = _loc(container, "run") or Loc(self.file, 0, 0)
        if st.is_terminal():
            return f"{loc}: `run`: the game is already over"
        names = {"me": "player", **{k: "player" for k in self.names},
                 **{k: "card" for k in self.card_names if "[" not in k}}
        diags = Diagnostics()
        code = compile_block(text, Where(text, loc.file, "scenario `run`", loc.line, loc.col),
                             self.decls, diags, names)
        if diags.has_errors:
            d = diags.sorted()[0]
            raise ScenarioError(d.loc, d.message + (f" ({d.hint})" if d.hint else ""))
        ops = self.game.compile_block(f"scenario:run:{self.taken}", code)
        me = st.pending.player if st.pending is not None else st.turn_player
        st.pending = None          # the waiting decision is asked again, afresh, afterwards
        st.push(ops, {"me": me, **self.env()})
        try:
            st.run()
        except EngineError as exc:
            return f"{loc}: `run: {text}` raised: {exc}"
        return None

    def take_step(self, st, who, label, loc):
        if st.is_terminal():
            return f"{loc}: step `{who}: {label}`: the game is already over"
        d = st.pending
        actual = st.player_name(d.player)
        if who != actual:
            return (f"{loc}: step `{who}: {label}`: it is {actual}'s decision "
                    f"({d.prompt or d.kind}: {', '.join(d.labels)})")
        label = str(label)
        exact = [i for i, option in enumerate(d.labels) if option == label]
        loose = [] if self.exact else [i for i, option in enumerate(d.labels) if label.lower() in option.lower()]
        options = exact or loose
        if len(set(d.labels[i] for i in options)) > 1 and not exact:
            return (f"{loc}: step `{who}: {label}` matches several actions: "
                    + ", ".join(d.labels[i] for i in options))
        if not options:
            why = "".join(f"; not open: {option} ({reason})" for option, reason in d.unavailable)
            return (f"{loc}: step `{who}: {label}`: no such action now "
                    f"({d.prompt or d.kind}: {', '.join(d.labels)}){why}")
        try:
            st.apply(options[0])
        except EngineError as exc:
            return f"{loc}: step `{who}: {label}` raised: {exc}"
        return None

    # ------------------------------------------------------------ checks
    def check(self, st, expect, when) -> list:
        out = []
        ctx = f" ({when}; steps: {' | '.join(self.trail) or 'none'})"
        for key, want in (expect.get("values") or {}).items():
            got, t = self.value(st, key, expect["values"], key)
            want_v = want
            # a bare `none` is none, whatever the type; a text counter holding the
            # word is `"none"`, in quotes
            if want == "none" and (t != "str" or getattr(want, "style", None) is None):
                want_v = None
            if t == "player" and isinstance(want, str) and want != "none":
                want_v = self.player(want, _loc(expect["values"], key))
            if isinstance(want, str) and want in self.card_names and t == "card":
                want_v = self.card_names[want]
            if got != want_v:
                out.append(f"{_key_loc(expect['values'], key)}: `{key}`: expected {want}, "
                           f"got {fmt(got, t, st)}{ctx}")
        for key, ids in (expect.get("zones") or {}).items():
            f, _ = self._zone(key, expect["zones"])
            slot = f(st, self.env())
            got = Multiset(self.game.card_field["id"][c] for c in st.zones[slot])
            if got != Multiset(str(i) for i in ids or []):
                out.append(f"{_key_loc(expect['zones'], key)}: `{key}`: expected {sorted(map(str, ids or []))}, "
                           f"got {sorted(got.elements())}{ctx}")
        for key, zone in (expect.get("where") or {}).items():
            if key not in self.card_names:
                raise ScenarioError(_loc(expect["where"], key), f"`{key}` does not name one card here")
            f, _ = self._zone(key, expect["where"], str(zone))
            slot = st.zone_of(self.card_names[key])
            if slot != f(st, self.env()):
                out.append(f"{_key_loc(expect['where'], key)}: `{key}`: expected in {zone}, "
                           f"found in {self.game.slot_name(st, slot) if slot >= 0 else 'no zone'}{ctx}")
        if "winner" in expect or "winners" in expect:
            key = "winners" if "winners" in expect else "winner"
            want = expect[key]
            want = [] if want in (None, "none") else ([want] if isinstance(want, str) else list(want))
            for w in want:
                self.player(w, _loc(expect, key))
            got = [st.player_name(w) for w in st.winners] if st.terminal else []
            if sorted(got) != sorted(want):
                out.append(f"winner: expected {want or 'none'}, got {got or 'none'}"
                           f"{' (game not over)' if not st.terminal else ''}{ctx}")
        if "terminal" in expect and bool(expect["terminal"]) != st.terminal:
            out.append(f"terminal: expected {expect['terminal']}, got {st.terminal}{ctx}")
        if "decision" in expect:
            if str(expect["decision"]) != "none":
                self.player(expect["decision"], _loc(expect, "decision"))
            got = "none" if st.is_terminal() or st.pending is None else st.player_name(st.pending.player)
            if got != str(expect["decision"]):
                out.append(f"decision: expected {expect['decision']} to decide, got {got}{ctx}")
        labels = st.action_labels()
        like = (lambda w, have: w == have) if self.exact else (lambda w, have: w.lower() in have.lower())
        for want in expect.get("legal") or []:
            if not any(like(str(want), have) for have in labels):
                out.append(f"legal: expected an action {'named' if self.exact else 'like'} `{want}`, "
                           f"open: {labels}{ctx}")
        for want in expect.get("not_legal") or []:
            if any(like(str(want), have) for have in labels):
                out.append(f"not_legal: `{want}` should not be open, open: {labels}{ctx}")
        for want in expect.get("log") or []:
            if not any(str(want) in line for line in (st.log or [])):
                out.append(f"log: no line containing `{want}`{ctx}")
        at = 0
        log = st.log or []
        for want in expect.get("log_in_order") or []:
            found = next((i for i in range(at, len(log)) if str(want) in log[i]), None)
            if found is None:
                earlier = any(str(want) in line for line in log[:at])
                out.append(f"log_in_order: no line containing `{want}`"
                           + (" after the line of the one before it" if earlier else "") + ctx)
                break
            at = found + 1
        for want in expect.get("not_log") or []:
            lines = [line for line in (st.log or []) if str(want) in line]
            if lines:
                out.append(f"not_log: `{want}` should not be logged, but: {lines[0]}{ctx}")
        return out


def load_scenarios(path: Path):
    from cardc.load.diagnostics import CardcError
    from cardc.load.schema import validate
    from cardc.load.yamlsrc import load_yaml
    data = load_yaml(path, display_path(path))
    diags = Diagnostics()
    if not validate(data, "scenario", diags):
        raise CardcError(diags.sorted())
    if isinstance(data, dict) and "scenarios" in data:
        base = {k: v for k, v in data.items() if k != "scenarios"}
        for s in data["scenarios"]:
            merged = _merged(data, base, s)
            if isinstance(base.get("start"), dict) and isinstance(s.get("start"), dict):
                merged["start"] = _merged(data["start"], data["start"], s["start"], deep=True)
            yield merged
    else:
        yield data


def _merged(shared, shared_keys: dict, own, deep=False):
    """The shared keys of a file with one scenario's own over them, keeping
    where each was written.  With `deep`, a mapping in both (a start's
    `zones`, `counters`) is merged key by key, so a scenario's `start:` adds
    to the file's instead of silently replacing it."""
    merged = type(own)({**shared_keys, **own})
    for key in own if deep else ():
        if isinstance(own[key], dict) and isinstance(shared_keys.get(key), dict):
            merged[key] = _merged(shared_keys[key], shared_keys[key], own[key])
    for attr in ("value_locs", "key_locs"):
        setattr(merged, attr, {**getattr(shared, attr, {}), **getattr(own, attr, {})})
    merged.loc = getattr(own, "loc", None)
    return merged


def scenario_bundle(gid: str, cards, path: Path, project=None) -> dict:
    """The game with the scenario's own cards added (`cards:` of a scenario:
    card definitions in the card-file format, for this scenario only)."""
    from cardc.load.diagnostics import CardcError
    from cardc.load.game import load_game
    from cardc.load.schema import validate
    from cardc.project import compile_checked, game_folders
    diags = Diagnostics()
    source = load_game(game_folders([gid], project)[0], diags)
    if source is not None:
        from cardc.load.yamlsrc import LocDict
        doc = LocDict({"cards": cards})
        if getattr(cards, "loc", None) is not None:
            doc.value_locs = {"cards": cards.loc}
        if validate(doc, "cards", diags):
            source.card_files.append((path, doc))
            bundle = compile_checked(source, diags)
            if bundle is not None:
                return bundle
    raise CardcError(diags.sorted())


def run_file(path: Path, cache: dict, reference: bool = False) -> list[Result]:
    """Run every scenario of a file (`cache` keeps each game loaded once);
    `reference`: on the engine with its optimisations off (Game)."""
    from cardc.load.diagnostics import CardcError
    from cardc.load.paths import find_project
    from cardc.project import load_bundle
    results = []
    try:
        specs = list(load_scenarios(path))
    except CardcError as exc:
        return [Result(path.stem, display_path(path), False,
                       [d.header() + (f" ({d.hint})" if d.hint else "") for d in exc.diagnostics])]
    for spec in specs:
        name = str(spec.get("title", path.stem))
        gid = str(spec.get("game"))
        project = find_project(path.parent)     # a game id names a game of the file's project
        key = (project.root if project else None, gid)
        runner = None
        try:
            if "cards" in spec:
                bundle = scenario_bundle(gid, spec["cards"], path, project)
                game = Game(bundle, reference)
            else:
                if key not in cache:
                    bundle = load_bundle(gid, project)
                    cache[key] = (Game(bundle, reference), bundle)
                game, bundle = cache[key]
            runner = Runner(game, bundle, spec, display_path(path))
            failures = runner.run()
        except CardcError as exc:
            failures = ["the scenario's cards: " + d.header() + (f" ({d.hint})" if d.hint else "")
                        for d in exc.diagnostics]
        except ScenarioError as exc:
            failures = [f"scenario error: {exc}"]
        except EngineError as exc:
            failures = [f"engine error: {exc}"]
        result = Result(name, display_path(path), not failures, failures)
        if runner is not None:
            result.transcript = runner.transcript + [f"  log: {line}" for line in (runner.log or [])]
        results.append(result)
    return results


def expand(paths) -> list[Path]:
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(q for q in p.rglob("*.yaml"))
        else:
            out.append(p)
    return out


def run_scenarios(paths, verbose=False, out=None, reference=False) -> int:
    out = out or sys.stdout
    cache: dict = {}
    passed, failed = 0, 0
    for path in expand(paths):
        for r in run_file(path, cache, reference):
            if r.ok:
                passed += 1
                if verbose:
                    out.write(f"ok    {r.file}: {r.name}\n")
            else:
                failed += 1
                out.write(f"FAIL  {r.file}: {r.name}\n")
                for f in r.failures:
                    out.write(f"      {f}\n")
            if verbose:
                for line in r.transcript:
                    out.write(f"      {line}\n")
    out.write(f"{passed} passed, {failed} failed\n")
    return 1 if failed else 0
