"""Playing many games: seeds, seats, chunks, worker processes and clusters.

Reproducibility rests on three rules:

* game i of a run seeded S is fully fixed by (S, i): its player count and
  seating come from i alone (`Plan.seating`), its shuffle seed and its
  agents' seeds are hashes of (S, i[, seat]) (`derive_seed`).  So game i is
  the same game whether it runs first, last, on one core or on a cluster,
  and every variant of a sweep plays exactly the same deals;
* games are cut into chunks whose size depends only on the number of games
  (`chunk_size`), never on the number of workers;
* chunk results are merged in chunk order (`stream`), so even float sums
  are added in one order.  A seed gives one report, whatever `--jobs`.

The same `run_chunk` runs inline (`--jobs 1`), in a process pool, or on a
Dask cluster (`--cluster`), so all three produce identical results.
"""
from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import pickle
import socket
import time
from collections import Counter, deque
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cardc.agents import make_agent
from cardc.agents.view import Menu
from cardc.engine import Game
from cardc.sim.stats import (
    HOLE_ENDINGS,
    Aggregate,
    Paired,
    answering_cards,
    card_observations,
    observations,
    resolvable_cards,
)

#: seconds a person needs for one real decision when the game's `timing` does not say
DEFAULT_SECONDS_PER_ACTION = 5.0
#: stages of the engine before the first turn: the starting choice is read after them
SETUP_STAGES = ("init", "setup")


def derive_seed(seed: int, *parts) -> int:
    """A 63-bit seed for (seed, game index[, seat]): a hash, so neighbouring
    games share nothing and game i's seed never depends on the run's size."""
    digest = hashlib.blake2b(repr((int(seed),) + parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


@dataclass(frozen=True)
class Plan:
    """What to play; small and immutable, so it travels to every worker."""
    players: tuple[int, ...]
    agents: tuple[str, ...]
    seed: int = 0
    start_zone: str | None = None
    max_decisions: int = 100_000

    def seating(self, index: int) -> tuple[int, tuple[str, ...]]:
        """(players, agent of each seat) for game `index`.

        Player counts take turns game by game; for each count the agents
        rotate one seat per game, so over every len(agents) games of a count
        each agent has sat in each seat exactly once."""
        n = self.players[index % len(self.players)]
        shift = (index // len(self.players)) % len(self.agents)
        return n, tuple(self.agents[(seat + shift) % len(self.agents)] for seat in range(n))


@dataclass
class GameRecord:
    """One finished game, reduced to what the statistics need."""
    index: int
    seed: int
    players: int
    agents: tuple[str, ...]
    ending: str = ""                    # see stats.ENDINGS
    winners: list = field(default_factory=list)
    turns: int = 0
    decisions: int = 0
    choices: int = 0                    # decisions with more than one legal action
    options: int = 0                    # legal actions summed over the decisions (branching)
    minutes: float = 0.0                # estimated from `timing`
    scores: list | None = None          # final `score` per seat (None if the game faulted)
    score_sign: int = 1                 # -1 when the lowest score wins
    places: list | None = None          # finishing place per seat, 1 = best, ties share
    starts: list | None = None          # each seat's starting choice (--start-zone)
    samples: list = field(default_factory=list)     # (turns completed, scores) at turn changes
    lead_changes: int = 0
    resolved: dict = field(default_factory=dict)    # card id -> Counter(seat -> times)
    answered: dict = field(default_factory=dict)    # card id -> Counter(seat -> windows answered with it)
    entered: dict = field(default_factory=dict)     # "card>zone" -> Counter(seat -> times)
    fault: str | None = None
    actions: list = field(default_factory=list)
    # agent -> [CPU seconds thinking, decisions with 2+ options]: measured, so
    # it goes to the report's `run`, never into the seeded statistics.  CPU
    # time of this thread, so a machine busy with other work does not inflate it

    think: dict = field(default_factory=dict)

    def line(self) -> dict:
        """The game as one JSON line (no action list or score samples: the
        seed and agents reproduce them)."""
        out = asdict(self)
        del out["actions"], out["samples"], out["think"]
        out["resolved"] = {k: sum(v.values()) for k, v in self.resolved.items()}
        out["entered"] = {k: sum(v.values()) for k, v in self.entered.items()}
        out["answered"] = {k: sum(v.values()) for k, v in self.answered.items()}
        # card use per seat: [times by seat 0, seat 1, ...] (the seat acting
        # when it happened, as everywhere: the answering seat for answers)
        for name in ("resolved", "answered", "entered"):
            out[name + "_by_seat"] = {k: [v.get(p, 0) for p in range(self.players)]
                                      for k, v in getattr(self, name).items()}
        return out


class _Credit(dict):
    """Stands in for one of the engine's counting dicts in `st.track`.

    The engine only counts per card; each count it adds is also credited to
    the seat acting when it happened: the turn player, or during setup
    (when players choose in turn but nobody has a turn) the decider.  This
    is what "win rate of the players who played it" is measured on."""

    def __init__(self, st, by_seat: dict, decider: list, to_decider: bool = False):
        super().__init__()
        self.st, self.by_seat, self.decider = st, by_seat, decider
        self.to_decider = to_decider        # the answers of windows: the answering seat's

    def __setitem__(self, key, value):
        before = self.get(key, 0)
        super().__setitem__(key, value)
        seat = self.decider[0] if self.to_decider or self.st.stage in SETUP_STAGES \
            else self.st.turn_player
        self.by_seat.setdefault(key, Counter())[seat] += value - before


def _starts(game: Game, st, zone: str) -> list[str]:
    """Each seat's starting choice: the cards it holds in `zone`."""
    out = []
    for p in range(st.n):
        ids = sorted(game.card_field["id"][c] for c in st.zones[game.slot(st, zone, p)])
        out.append("+".join(ids) or "(none)")
    return out


def _faulting_action(st) -> int | None:
    """The action whose look-ahead raised inside an agent, so that the saved
    replay ends by applying it and reproduces the fault."""
    for a in range(len(st.pending.values)):
        try:
            st.clone().apply(a)
        except Exception:      # the engine's own failure, whatever its type
            return a
    return None


def play_game(game: Game, plan: Plan, index: int) -> GameRecord:
    """Play game `index` of the plan to its end and record it.  Any exception
    the engine raises (a fault in the rules) ends the game as a `fault`."""
    n, seats = plan.seating(index)
    rec = GameRecord(index, derive_seed(plan.seed, index), n, seats)
    rec.score_sign = game.score_sign
    tuned = game.bundle.get("agents")
    agents = [make_agent(name, derive_seed(plan.seed, index, seat), tuned) for seat, name in enumerate(seats)]
    st, decider = None, [None]
    try:
        st = game.new_state(n, seed=rec.seed, memory=any(a.view is not Menu for a in agents))
        _track(st, rec, decider)
        scores = _ScoreWatch(st.turn)
        read_starts = bool(plan.start_zone)
        while True:
            if read_starts and st.stage not in SETUP_STAGES:
                rec.starts, read_starts = _starts(game, st, plan.start_zone), False
            if st.turn != scores.turn or st.terminal:
                scores.see(st, rec)
            if st.terminal:
                break
            if len(rec.actions) >= plan.max_decisions:
                rec.ending = "stalled"
                break
            seat = decider[0] = st.pending.player
            choice = len(st.pending.values) > 1
            rec.choices += choice
            rec.options += len(st.pending.values)
            t0 = time.thread_time()
            try:
                action = agents[seat].act(st, seat)
            except Exception:
                action = _faulting_action(st)
                if action is None:
                    raise
            if choice:
                spent = rec.think.setdefault(seats[seat], [0.0, 0])
                spent[0] += time.thread_time() - t0
                spent[1] += 1
            rec.actions.append(action)
            st.apply(action)
        rec.scores = rec.samples[-1][1] if st.terminal else st.scores()
    except Exception as exc:
        rec.ending, rec.fault, rec.scores = "fault", f"{type(exc).__name__}: {exc}", None
    _finish(game, plan, st, rec)
    return rec


def _track(st, rec: GameRecord, decider: list) -> None:
    """Start the engine's usage counts, credited to seats into `rec`
    (`decider[0]` is kept up to date by the caller)."""
    st.start_tracking()
    st.track["resolve"] = _Credit(st, rec.resolved, decider)
    st.track["enter"] = _Credit(st, rec.entered, decider)
    st.track["react"] = _Credit(st, rec.answered, decider, to_decider=True)


@dataclass
class _ScoreWatch:
    """Samples every seat's score when the turn changes (and at the end),
    counting lead changes: a new seat alone in the lead."""
    turn: int
    leader: int | None = None

    def see(self, st, rec: GameRecord) -> None:
        scores = st.scores()
        rec.samples.append((st.turn if st.terminal else self.turn, scores))
        self.turn = st.turn
        best = max(s * rec.score_sign for s in scores)
        top = [p for p, s in enumerate(scores) if s * rec.score_sign == best]
        if len(top) == 1:
            rec.lead_changes += self.leader is not None and top[0] != self.leader
            self.leader = top[0]


def _finish(game: Game, plan: Plan, st, rec: GameRecord) -> None:
    """Length, estimated minutes, winners, places and how the game ended."""
    timing = game.bundle.get("timing") or {}
    if st is not None:
        rec.turns, rec.decisions = st.turn, st.decisions
        if rec.starts is None and plan.start_zone:
            rec.starts = _starts(game, st, plan.start_zone)
    rec.minutes = (rec.choices * timing.get("seconds_per_action", DEFAULT_SECONDS_PER_ACTION)
                   + rec.turns * timing.get("seconds_per_turn", 0)) / 60
    if rec.ending == "fault":
        return
    rec.winners = list(st.winners)
    rec.places = _places([s * game.score_sign for s in rec.scores], rec.winners)
    if rec.ending != "stalled":
        rec.ending = ("capped" if st.capped else "winner" if len(st.winners) == 1
                      else "shared" if st.winners else "no_winner")


def _places(scores: list, winners: list) -> list[int]:
    """Finishing place of each seat: winners first, then by score (scores
    given best-highest: a lowest-wins game passes them negated); ties share
    a place and the next place is skipped (1, 2, 2, 4)."""
    key = [(p in winners, s) for p, s in enumerate(scores)]
    return [1 + sum(k > mine for k in key) for mine in key]


# ---------------------------------------------------------------- chunks

@dataclass
class ChunkResult:
    """What a worker sends back for games [start, stop): one aggregate per
    variant, paired differences against variant 0, the rule holes (with their
    actions) and, if asked, one JSON line per game."""
    start: int
    stop: int
    aggregates: list
    paired: list
    holes: list = field(default_factory=list)      # (variant, GameRecord)
    lines: list = field(default_factory=list)      # (variant, dict)
    worker_rss_mb: float = 0.0                     # the worker's peak memory so far
    think: dict = field(default_factory=dict)      # agent -> [seconds, decisions], all variants
    cpu: tuple = ((), 0.0)                         # ((host, pid) of the worker, its CPU seconds so far)


_GAMES: dict[str, Game] = {}


@dataclass(frozen=True)
class Shipped:
    """A bundle on its way to worker processes: its hash and its pickled
    bytes, made once by the parent.  Pickling the bundle's dict for every
    chunk cost the parent 11 ms a chunk (startup), and unpickling it the
    worker 4 ms, about 5% of a chunk's games; bytes travel as they are, and
    a worker that has compiled the bundle never unpickles it again."""
    key: str
    data: bytes

    @classmethod
    def of(cls, bundle: dict) -> Shipped:
        return cls(bundle["source_hash"], pickle.dumps(bundle, protocol=pickle.HIGHEST_PROTOCOL))


def _game(bundle) -> Game:
    """Compile each bundle (a dict or a Shipped one) once per worker
    process, keyed by its hash."""
    key = bundle.key if isinstance(bundle, Shipped) else bundle["source_hash"]
    if key not in _GAMES:
        if len(_GAMES) > 16:
            _GAMES.clear()
        _GAMES[key] = Game(pickle.loads(bundle.data) if isinstance(bundle, Shipped) else bundle)
    return _GAMES[key]


def run_chunk(bundles: list, plan: Plan, start: int, stop: int, lines: bool = False) -> ChunkResult:
    """Play games [start, stop) under every variant (bundles[0] is the
    baseline; dicts, or Shipped from a process pool)."""
    games = [_game(b) for b in bundles]
    out = ChunkResult(start, stop, [Aggregate() for _ in games], [Paired() for _ in games])
    # a sweep also pairs card use by agent (the baseline's resolvable and
    # answering cards)
    cards = resolvable_cards(games[0].bundle) if len(games) > 1 else ()
    answers = answering_cards(games[0].bundle) if len(games) > 1 else ()
    for index in range(start, stop):
        base = None
        for k, game in enumerate(games):
            rec = play_game(game, plan, index)
            add_think(out.think, rec.think)
            obs = observations(rec)
            out.aggregates[k].add(rec, obs)
            if cards or answers:
                obs = {**obs, **card_observations(rec, cards, answers)}
            if k == 0:
                base = obs
            else:
                out.paired[k].add(base, obs)
            if rec.ending in HOLE_ENDINGS:
                out.holes.append((k, rec))
            if lines:
                out.lines.append((k, rec.line()))
    out.worker_rss_mb = peak_rss_mb()
    out.cpu = (_worker_id(), time.process_time())
    return out


def add_think(total: dict, more: dict) -> None:
    """Add one game's (or chunk's) thinking time per agent to `total`."""
    for agent, (seconds, decisions) in more.items():
        mine = total.setdefault(agent, [0.0, 0])
        mine[0] += seconds
        mine[1] += decisions


def seconds_per_decision(think: dict) -> dict:
    """agent -> mean CPU seconds an agent took for a decision with 2+ options."""
    return {agent: round(s / n, 6) for agent, (s, n) in sorted(think.items()) if n}


def _worker_id() -> tuple:
    """This process, told apart from those of other machines of a cluster."""
    return socket.gethostname(), os.getpid()


def cpu_seconds(totals: Totals) -> float:
    """CPU seconds of this process and of every worker that played a chunk
    (workers on other machines included): what a run cost, however busy the
    machine; the fork server's one import of the engine is not counted."""
    return round(time.process_time() + workers_cpu_seconds(totals), 3)


def workers_cpu_seconds(totals: Totals) -> float:
    """CPU seconds of the workers other than this process (0 inline)."""
    me = _worker_id()
    return round(sum(c for pid, c in totals.worker_cpu.items() if pid != me), 3)


def peak_rss_mb() -> float:
    """This process's peak resident memory (Linux reports KiB, macOS bytes)."""
    import resource
    import sys
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (2**20 if sys.platform == "darwin" else 2**10), 1)


def chunk_size(games: int) -> int:
    """Games per chunk: from the number of games only, never from the number
    of workers (results must not depend on it); small runs still spread."""
    return max(1, min(50, games // 100))


# ---------------------------------------------------------------- executors

class _Inline:
    """Runs each chunk on the spot: `--jobs 1`, no processes, easy to profile."""
    window = workers = 1

    def submit(self, fn, *args):
        return _Done(fn(*args))

    def close(self):
        pass


@dataclass
class _Done:
    value: object

    def result(self):
        return self.value


class _Processes:
    """A process pool on this machine.  forkserver (where available) rather
    than fork: the progress bar runs a thread, and forking threads is unsafe.
    The fork server imports the engine and the agents once (preload), so a
    worker starts as a fork of it instead of importing them again; bundles
    travel as Shipped bytes, compiled once per worker."""

    def __init__(self, jobs: int):
        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        if "forkserver" in methods:
            ctx.set_forkserver_preload([__name__])
        self.pool = ProcessPoolExecutor(jobs, mp_context=ctx)
        self.workers = jobs
        self.window = jobs * 4

    def ship(self, bundles):
        return [Shipped.of(b) for b in bundles]

    def submit(self, fn, *args):
        return self.pool.submit(fn, *args)

    def close(self):
        self.pool.shutdown(cancel_futures=True)


class _Cluster:
    """A Dask distributed cluster at `address` (the scheduler), or a
    `distributed.Client` given directly (tests start a LocalCluster).
    Workers need cardc installed; bundles are sent once to every worker."""

    def __init__(self, address):
        try:
            from distributed import Client
        except ImportError:
            from cardc.project import UsageError
            raise UsageError("--cluster needs Dask: pip install 'dask[distributed]' "
                             "(or cardc's `cluster` extra)") from None
        self.own = not isinstance(address, Client)
        if self.own:
            self.client = _connect(Client, address)
        else:
            self.client = address
        self.workers = max(1, sum(self.client.nthreads().values()))
        self.window = 4 * self.workers

    def scatter(self, bundles):
        return self.client.scatter(bundles, broadcast=True)

    def submit(self, fn, *args):
        return self.client.submit(fn, *args, pure=False)

    def close(self):
        if self.own:
            self.client.close()


def _connect(Client, address, timeout: float = 5.0):
    """A client of the scheduler at `address`, or one clear line (UsageError)
    after `timeout` seconds when nothing answers there."""
    from cardc.project import UsageError
    try:
        return Client(address, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UsageError(f"--cluster {address}: no Dask scheduler answers there ({reason[:120]}); "
                         "start one with `dask scheduler`, or leave out --cluster") from None


def executor(jobs: int = 1, cluster=None):
    if cluster is not None:
        return _Cluster(cluster)
    return _Processes(jobs) if jobs > 1 else _Inline()


def stream(pool, bundles: list, plan: Plan, start: int, stop: int, chunk: int, lines: bool = False):
    """Yield the ChunkResults of games [start, stop) in order, keeping at most
    `pool.window` chunks in flight: constant memory however many games."""
    args = pool.scatter(bundles) if hasattr(pool, "scatter") else \
        pool.ship(bundles) if hasattr(pool, "ship") else bundles
    pending = deque()
    for lo in range(start, stop, chunk):
        if len(pending) >= pool.window:
            yield pending.popleft().result()
        pending.append(pool.submit(run_chunk, args, plan, lo, min(lo + chunk, stop), lines))
    while pending:
        yield pending.popleft().result()


@dataclass
class Totals:
    """The merged results of a run so far: per variant, an Aggregate and the
    paired differences against the baseline."""
    aggregates: list
    paired: list
    worker_rss_mb: float = 0.0
    think: dict = field(default_factory=dict)      # agent -> [seconds, decisions]
    worker_cpu: dict = field(default_factory=dict)  # (host, pid) -> CPU seconds of that worker so far

    @classmethod
    def empty(cls, variants: int) -> Totals:
        return cls([Aggregate() for _ in range(variants)], [Paired() for _ in range(variants)])

    def merge(self, chunk: ChunkResult) -> None:
        self.worker_rss_mb = max(self.worker_rss_mb, chunk.worker_rss_mb)
        pid, cpu = chunk.cpu
        self.worker_cpu[pid] = max(self.worker_cpu.get(pid, 0.0), cpu)
        add_think(self.think, chunk.think)
        for mine, theirs in zip(self.aggregates, chunk.aggregates, strict=False):
            mine.merge(theirs)
        for mine, theirs in zip(self.paired, chunk.paired, strict=False):
            mine.merge(theirs)


def play_many(pool, bundles: list, plan: Plan, start: int, stop: int, totals: Totals,
              on_chunk=None, lines: bool = False) -> Totals:
    """Play games [start, stop) of every variant into `totals`, calling
    `on_chunk(result)` in game order (progress, holes, JSON lines)."""
    for result in stream(pool, bundles, plan, start, stop, chunk_size(stop - start), lines):
        totals.merge(result)
        if on_chunk is not None:
            on_chunk(result)
    return totals


# ---------------------------------------------------------------- holes

@dataclass
class HoleWriter:
    """Saves games that hit the turn cap, stalled or faulted as replay files
    (`cardc replay FILE` reproduces them), up to `limit` files per run."""
    folder: Path
    limit: int = 100
    saved: list = field(default_factory=list)
    skipped: int = 0
    failed: str | None = None     # why holes could not be saved, once it happened

    def save(self, game: Game, rec: GameRecord, overrides: dict | None = None,
             bundle_file: str | None = None) -> None:
        if len(self.saved) >= self.limit or self.failed:
            self.skipped += 1
            return
        from cardc.sim.play import replay_record, save_json
        record = replay_record(game, rec.players, rec.seed, rec.actions, rec.agents)
        record.update({"ending": rec.ending, "fault": rec.fault, "index": rec.index,
                       "turns": rec.turns})
        if overrides:
            record["overrides"] = overrides
        tag = "-".join(f"{k}={v}" for k, v in sorted((overrides or {}).items()))
        name = f"{rec.ending}-game{rec.index}-seed{rec.seed}{'-' + _safe(tag) if tag else ''}.json"
        path = self.folder / name
        try:
            save_json(path, record)
        except OSError as exc:     # a read-only or full disk: the report still gets written
            self.failed = f"cannot save rule holes in {self.folder}: {exc.strerror or exc}"
            self.skipped += 1
            return
        command = f"cardc replay {path}" + (f" --bundle {bundle_file}" if bundle_file else "")
        self.saved.append({"file": str(path), "index": rec.index, "seed": rec.seed,
                           "players": rec.players, "agents": list(rec.agents),
                           "ending": rec.ending, "fault": rec.fault, "turns": rec.turns,
                           "overrides": overrides or {}, "replay": command})


def _safe(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "._=+-" else "_" for ch in text)[:80]


def write_bundle(folder: Path, bundle: dict) -> str:
    """Save a variant's bundle beside its holes: replays of an overridden
    game need it (`cardc replay FILE --bundle THIS`)."""
    from cardc.render.atomic import write_atomic
    path = folder / f"bundle-{bundle['source_hash'][:12]}.json"
    if not path.exists():
        write_atomic(path, (json.dumps(bundle, sort_keys=True) + "\n").encode())
    return str(path)
