"""Rules scenarios: a start state, scripted decisions, expected results.

A scenario speaks the content's own names: players are P1..Pn, zones are
`P1.hand` or `discard`, counters are `P2.partner` or `game.quarter`, cards
are their ids, and checks are expressions of the effect language
(`valuation(P1)`).  The format is the same for every game; see
tests/scenarios/README.md.
"""
from __future__ import annotations

import sys
from collections import Counter as Multiset
from dataclasses import dataclass, field
from pathlib import Path

from cardc.compiler.decls import decls_from_bundle
from cardc.compiler.exprs import ExprCompiler, Scope, Where
from cardc.diagnostics import Diagnostics, Loc, display_path
from cardc.dsl.parser import DslError, parse_expr
from cardc.engine import EngineError, Game
from cardc.engine.exprs import ExprBuilder, fmt
from cardc.engine.state import State


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
        self.card_names = {}
        self.builder = ExprBuilder(game)
        self.trail = []

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
            extra = [k for k in ("turn", "zones", "attach", "counters") if k in start]
            if extra:
                raise ScenarioError(_loc(start, extra[0]), f"`{extra[0]}` cannot be used with "
                                    "`setup: run` (the real setup decides it); use `setup: skip`")
            st = self.game.new_state(self.n, seed=seed, log=True)
            self._unique_names(st)
            return st
        st = State.initial(self.game, self.n, seed, log=True, run=False)
        st.stage = "setup"
        turn = start.get("turn", "P1")
        if turn not in self.names:
            raise ScenarioError(_loc(start, "turn"), f"`turn` must be one of {', '.join(self.names)}")
        st.turn_player = self.names[turn]
        self.place(st, start)
        st.run()
        return st

    def place(self, st, start):
        taken = set()
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
                iid = self._take(st, cid, taken, ids, i)
                placed.append(iid)
            for iid in reversed(placed):
                st.move(iid, slot, "top")
            for iid, cid in zip(placed, ids or []):
                self.card_names.setdefault(str(cid), iid)
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

    def _take(self, st, cid, taken, container, index):
        g = self.game
        cid = str(cid)
        if cid not in g.card_index:
            from cardc.diagnostics import did_you_mean
            hint = did_you_mean(cid, g.card_index)
            raise ScenarioError(_loc(container, index), f"unknown card `{cid}`" + (f" ({hint})" if hint else ""))
        for iid, d in enumerate(g.card_def):
            if g.cards[d]["id"] == cid and iid not in taken and st.loc[iid] >= 0:
                taken.add(iid)
                return iid
        raise ScenarioError(_loc(container, index), f"no copy of `{cid}` is left to place")

    def _unique_names(self, st):
        """Card ids with one copy in play can be named in checks too."""
        g = self.game
        counts = Multiset(g.cards[g.card_def[i]]["id"] for i in range(len(g.instances)) if st.loc[i] != -2)
        for i in range(len(g.instances)):
            cid = g.cards[g.card_def[i]]["id"]
            if counts[cid] == 1 and st.loc[i] != -2:
                self.card_names.setdefault(cid, i)

    def _set_counter(self, st, key, value, container):
        loc = _loc(container, key) or Loc(self.file, 0, 0)
        try:
            ir, t = self.lower(key, loc)
        except ScenarioError:
            ir = None
        if ir is None or ir[0] not in ("gctr", "pctr", "cctr", "cpp"):
            raise ScenarioError(loc, f"`{key}` is not a counter")
        v = self.builder.build(self.lower(value, loc)[0])(st, self.env()) \
            if isinstance(value, str) else value
        env, b, kind = self.env(), self.builder, ir[0]
        if kind == "gctr":
            st.g[ir[1]] = v
        elif kind == "pctr":
            st.pc[ir[1]][b.build(ir[2])(st, env)] = v
        elif kind == "cctr":
            st.cc[ir[1]][b.build(ir[2])(st, env)] = v
        else:
            st.cc[ir[1]][b.build(ir[2])(st, env) * st.n + b.build(ir[3])(st, env)] = v

    # ------------------------------------------------------------ steps
    def run(self) -> list:
        st = self.start()
        failures = []
        for i, step in enumerate(self.spec.get("steps") or []):
            if "expect" in step:
                failures += self.check(st, step["expect"], f"after step {i}")
                if failures:
                    return failures
                continue
            who, label = next(iter(step.items()))
            err = self.take_step(st, who, label, _loc(self.spec["steps"], i))
            if err:
                return [err]
            self.trail.append(f"{who} → {label}")
        return failures + self.check(st, self.spec.get("expect") or {}, "at the end")

    def take_step(self, st, who, label, loc):
        if st.is_terminal():
            return f"{loc}: step `{who}: {label}`: the game is already over"
        d = st.pending
        actual = st.player_name(d.player)
        if who != actual:
            return (f"{loc}: step `{who}: {label}`: it is {actual}'s decision "
                    f"({d.prompt or d.kind}: {', '.join(d.labels)})")
        label = str(label)
        exact = [i for i, l in enumerate(d.labels) if l == label]
        loose = [i for i, l in enumerate(d.labels) if label.lower() in l.lower()]
        options = exact or loose
        if len(set(d.labels[i] for i in options)) > 1 and not exact:
            return (f"{loc}: step `{who}: {label}` matches several actions: "
                    + ", ".join(d.labels[i] for i in options))
        if not options:
            why = "".join(f"; not open: {l} ({r})" for l, r in d.unavailable)
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
            if want == "none" and t != "str":
                want_v = None
            if isinstance(want, str) and want in self.names:
                want_v = self.names[want]
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
            want = expect.get("winners", expect.get("winner"))
            want = [] if want in (None, "none") else ([want] if isinstance(want, str) else list(want))
            got = [st.player_name(w) for w in st.winners] if st.terminal else []
            if sorted(got) != sorted(want):
                out.append(f"winner: expected {want or 'none'}, got {got or 'none'}"
                           f"{' (game not over)' if not st.terminal else ''}{ctx}")
        if "terminal" in expect and bool(expect["terminal"]) != st.terminal:
            out.append(f"terminal: expected {expect['terminal']}, got {st.terminal}{ctx}")
        if "decision" in expect:
            got = "none" if st.is_terminal() or st.pending is None else st.player_name(st.pending.player)
            if got != str(expect["decision"]):
                out.append(f"decision: expected {expect['decision']} to decide, got {got}{ctx}")
        labels = st.legal_actions()
        for want in expect.get("legal") or []:
            if not any(str(want).lower() in l.lower() for l in labels):
                out.append(f"legal: expected an action like `{want}`, open: {labels}{ctx}")
        for want in expect.get("not_legal") or []:
            if any(str(want).lower() in l.lower() for l in labels):
                out.append(f"not_legal: `{want}` should not be open, open: {labels}{ctx}")
        for want in expect.get("log") or []:
            if not any(str(want) in line for line in (st.log or [])):
                out.append(f"log: no line containing `{want}`{ctx}")
        for want in expect.get("not_log") or []:
            lines = [line for line in (st.log or []) if str(want) in line]
            if lines:
                out.append(f"not_log: `{want}` should not be logged, but: {lines[0]}{ctx}")
        return out


def load_scenarios(path: Path):
    from cardc.diagnostics import CardcError
    from cardc.load.schema import validate
    from cardc.load.yamlsrc import load_yaml
    data = load_yaml(path, display_path(path))
    diags = Diagnostics()
    if not validate(data, "scenario", diags):
        raise CardcError(diags.sorted())
    if isinstance(data, dict) and "scenarios" in data:
        base = {k: v for k, v in data.items() if k != "scenarios"}
        for s in data["scenarios"]:
            merged = type(s)({**base, **s})
            merged.value_locs = {**getattr(data, "value_locs", {}), **getattr(s, "value_locs", {})}
            merged.loc = getattr(s, "loc", None)
            yield merged
    else:
        yield data


def run_file(path: Path, cache: dict) -> list[Result]:
    from cardc.diagnostics import CardcError
    from cardc.paths import find_project
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
        try:
            if key not in cache:
                bundle = load_bundle(gid, project)
                cache[key] = (Game(bundle), bundle)
            game, bundle = cache[key]
            failures = Runner(game, bundle, spec, display_path(path)).run()
        except ScenarioError as exc:
            failures = [f"scenario error: {exc}"]
        except EngineError as exc:
            failures = [f"engine error: {exc}"]
        results.append(Result(name, display_path(path), not failures, failures))
    return results


def expand(paths) -> list[Path]:
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(q for q in p.rglob("*.yaml"))
        else:
            out.append(p)
    return out


def run_scenarios(paths, verbose=False, out=None) -> int:
    out = out or sys.stdout
    cache, passed, failed = {}, 0, 0
    for path in expand(paths):
        for r in run_file(path, cache):
            if r.ok:
                passed += 1
                if verbose:
                    out.write(f"ok    {r.file}: {r.name}\n")
            else:
                failed += 1
                out.write(f"FAIL  {r.file}: {r.name}\n")
                for f in r.failures:
                    out.write(f"      {f}\n")
    out.write(f"{passed} passed, {failed} failed\n")
    return 1 if failed else 0
