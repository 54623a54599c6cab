"""`cardc fit-value GAME`: a position's value fitted from simulated games.

It plays `--games` games (greedy in every seat by default, seats rotating),
records every seat's features at the start of each turn (`agents/value.py`:
the content's player counters, per-player zone sizes and score), and labels
each record with whether that seat won.  A seat's features are taken
relative to the other seats' mean, so the model asks "ahead in what?".
Then a logistic regression, L2-regularised and fitted by Newton's method
(numpy), gives each feature a weight; the games are split by game, the
last fifth held out, and the report gives the held-out log loss and how
often the seat with the highest value at a turn's start went on to win,
against the rate of guessing.

With `--write` the weights go into game.yaml's `agents: value:` block (a
comment says how they were fitted), and from the next build mcts scores
its leaves by them where the game has no `eval`, or with `value=1`.
"""
from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import dataclass

from cardc.project import UsageError

#: how strongly large weights are pulled toward 0 (on standardised features)
RIDGE = 1.0
#: Newton steps at most (the fit usually settles in under ten)
STEPS = 50


@dataclass
class Samples:
    names: list[str]
    rows: list[list[float]]         # one a seat a turn: features relative to the other seats' mean
    won: list[float]                # 1 if that seat won
    game: list[int]                 # which game


def collect(game, players: int, agents: list[str], games: int, seed: int, max_decisions: int,
            on_game=None) -> Samples:
    """Play `games` games and record (see the module docstring)."""
    from cardc.agents import make_agent
    from cardc.agents.value import Features, feature_names
    from cardc.sim.run import derive_seed

    names = feature_names(game)
    if not names:
        raise UsageError(f"{game.name} declares no player counter, per-player zone or score to fit a value from")
    features = Features(game, names)
    out = Samples(names, [], [], [])
    tuned = game.bundle.get("agents")
    for g in range(games):
        s = derive_seed(seed, g)
        st = game.new_state(players, seed=s, memory=True)
        seats = [agents[(g + i) % len(agents)] for i in range(players)]
        playing = [make_agent(spec, derive_seed(seed, g, i), tuned) for i, spec in enumerate(seats)]
        seen: list[list[list[float]]] = []
        turn, decisions = None, 0
        while not st.terminal and decisions < max_decisions:
            if st.turn != turn and st.stage not in ("init", "setup"):
                seen.append(features.read(st))
                turn = st.turn
            d = st.pending
            assert d is not None, "a game not over has a decision open"
            st.apply(playing[d.player].act(st, d.player) if len(d.values) > 1 else 0)
            decisions += 1
        if not st.terminal:
            continue                    # stalled: no result to learn from
        winners = set(st.winners)
        for rows in seen:
            for p in range(players):
                others = [rows[q] for q in range(players) if q != p]
                out.rows.append([x - sum(o[i] for o in others) / len(others) for i, x in enumerate(rows[p])])
                out.won.append(1.0 if p in winners else 0.0)
                out.game.append(g)
        if on_game:
            on_game(g)
    return out


@dataclass
class Fit:
    weights: dict[str, float]       # per feature, on the feature's own scale
    spread: dict[str, float]        # per feature: its spread between seats (a standard deviation)
    held_out: int                   # records held out
    log_loss: float                 # of the held-out records
    base_loss: float                # of guessing the base rate
    leader_wins: float              # held-out turns whose leader by value won
    chance: float                   # 1 / players


def fit(samples: Samples, players: int) -> Fit:
    """The logistic regression (see the module docstring)."""
    import numpy as np

    x = np.asarray(samples.rows, dtype=float)
    y = np.asarray(samples.won, dtype=float)
    games = np.asarray(samples.game)
    if len(y) < 10 or y.min() == y.max():
        raise UsageError("too few finished games to fit a value from: play more (--games)")
    cut = np.quantile(np.unique(games), 0.8)
    train, test = games <= cut, games > cut
    if not test.any():
        train = test = np.ones(len(y), dtype=bool)
    mean, sd = x[train].mean(axis=0), x[train].std(axis=0)
    sd[sd == 0] = 1.0
    z = np.hstack([np.ones((len(y), 1)), (x - mean) / sd])
    w = np.zeros(z.shape[1])
    ridge = np.eye(z.shape[1]) * RIDGE
    ridge[0, 0] = 0.0                   # the intercept is not pulled
    zt, yt = z[train], y[train]
    for _ in range(STEPS):
        p = 1.0 / (1.0 + np.exp(-(zt @ w)))
        grad = zt.T @ (p - yt) + ridge @ w
        hess = (zt * (p * (1 - p))[:, None]).T @ zt + ridge
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    q = np.clip(1.0 / (1.0 + np.exp(-(z[test] @ w))), 1e-9, 1 - 1e-9)
    base = np.clip(yt.mean(), 1e-9, 1 - 1e-9)
    yh = y[test]
    loss = float(-(yh * np.log(q) + (1 - yh) * np.log(1 - q)).mean())
    base_loss = float(-(yh * math.log(base) + (1 - yh) * math.log(1 - base)).mean())
    # each held-out turn: did the seat of highest value win?
    value = z[test] @ w
    hits, turns = 0, 0
    for start in range(0, int(test.sum()) - players + 1, players):
        turn = slice(start, start + players)
        turns += 1
        hits += int(yh[turn][int(np.argmax(value[turn]))] == 1.0)
    weights = {name: float(f"{w[i + 1] / sd[i]:.6g}") for i, name in enumerate(samples.names)}
    spread = {name: float(f"{sd[i]:.6g}") for i, name in enumerate(samples.names)}
    return Fit(weights, spread, int(test.sum()), loss, base_loss, hits / max(1, turns), 1.0 / players)


def with_value(text: str, weights: dict[str, float], note: str) -> str:
    """game.yaml's text with its `agents: value:` block set to `weights`;
    the rest of `agents:` (mcts's settings) and of the file as it was."""
    entry = [f"  # {note}\n", "  value:\n"] + [f"    {k}: {_number(v)}\n" for k, v in weights.items()]
    return with_agents_entry(text, "value", entry)


def _number(v: float) -> str:
    """`v` as YAML reads a number back: with a point and no exponent (YAML 1.1
    reads `5e-06` as text), six significant digits."""
    import numpy as np
    text = np.format_float_positional(v, precision=6, unique=False, fractional=False, trim="-")
    return text if "." in text else text + ".0"


def with_agents_entry(text: str, key: str, entry: list[str]) -> str:
    """game.yaml's text with the entry `key` of its `agents:` block replaced by
    the lines `entry` (comments just above it go with it), or added; the
    block made if there is none.  Nothing else moves."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if re.match(r"agents\s*:", line)), None)
    if start is None:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        return "".join(lines + ["agents:\n"] + entry)
    end = start + 1
    while end < len(lines) and (lines[end].startswith((" ", "\t")) or not lines[end].strip()):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():     # blank lines stay where they were
        end -= 1
    body = lines[start + 1:end]
    inline = lines[start].split(":", 1)[1].strip()
    if inline and not inline.startswith("#"):       # `agents: {mcts: "…"}`: written out as a block
        import yaml
        flow = yaml.safe_load(inline) or {}
        body = [f"  {k}: {json.dumps(v)}\n" for k, v in flow.items()] if isinstance(flow, dict) else []
        lines[start] = "agents:\n"
    kept: list[str] = []
    pending: list[str] = []             # comment lines, kept with the entry they stand above
    i = 0
    while i < len(body):
        line = body[i]
        stripped = line.strip()
        if stripped.startswith("#") and line.startswith("  ") and not line.startswith("   "):
            pending.append(line)
            i += 1
            continue
        if re.match(rf"  {re.escape(key)}\s*:", line):      # the old entry: dropped, with its comments
            pending = []
            i += 1
            while i < len(body) and (body[i].startswith("    ") or not body[i].strip()):
                i += 1
            continue
        kept += pending + [line]
        pending = []
        i += 1
    kept += pending
    return "".join(lines[:start + 1] + kept + entry + lines[end:])


def match_bundle(game: str, players: int) -> dict:
    """The bundle of `game` for matches of `players` seats (at least 2, and a
    count the game allows), else a UsageError saying which it allows."""
    from cardc.sim.cli import variant_bundle
    bundle = variant_bundle(game, {})
    lo, hi = bundle["players"]["min"], bundle["players"]["max"]
    if not lo <= players <= hi or players < 2:
        raise UsageError(f"{bundle['name']} is for {lo} to {hi} players; --players needs one of "
                         f"those, at least 2")
    return bundle


def add_command(sub) -> None:
    s = sub.add_parser("fit-value", help="fit what a position is worth from simulated games, for mcts "
                       "at a game without `eval`, and keep it in game.yaml")
    s.add_argument("game", help="game id or folder")
    s.add_argument("--players", type=int, default=2, help="players a game (default 2)")
    s.add_argument("--agents", default="greedy",
                   help="the agents that play the games, seat by seat, rotating (default greedy)")
    s.add_argument("--games", type=int, default=200, help="games to play (default 200)")
    s.add_argument("--seed", type=int, default=0, help="the run's seed: same seed, same fit")
    s.add_argument("--max-decisions", type=int, default=100_000,
                   help="a game still running after this many decisions is left out as stalled")
    s.add_argument("--write", action="store_true", help="keep the weights in the game's game.yaml")
    s.add_argument("--json", metavar="PATH", help="write the fit as JSON")
    s.add_argument("--quiet", action="store_true", help="only the answer")
    s.set_defaults(func=cmd_fit_value)


def cmd_fit_value(args) -> int:
    from cardc.agents import parse_agent
    from cardc.engine import Game
    from cardc.project import game_folders
    from cardc.render.atomic import write_atomic
    from cardc.sim.cli import _write
    try:
        import numpy  # noqa: F401
    except ImportError:
        raise UsageError("cardc fit-value needs numpy: pip install numpy (or cardc's `tune` extra)") from None
    if args.games < 5 or args.max_decisions < 1:
        raise UsageError("--games must be at least 5 and --max-decisions at least 1")
    bundle = match_bundle(args.game, args.players)
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    for spec in agents:
        try:
            parse_agent(spec)
        except ValueError as exc:
            raise UsageError(f"--agents: {exc}") from None
    game = Game(bundle)
    live = not args.quiet and sys.stdout.isatty()     # a count that rewrites itself, for a person
    say = (lambda g: print(f"\r  {g + 1} of {args.games} games", end="", flush=True)) if live else None
    samples = collect(game, args.players, agents, args.games, args.seed, args.max_decisions, say)
    if live:
        print()
    result = fit(samples, args.players)
    def effect(k):                      # log-odds of a typical lead in the feature
        return result.weights[k] * result.spread[k]
    order = sorted(result.weights, key=lambda k: -abs(effect(k)))
    lines = [f"A value for {bundle['name']} ({args.players} players) from {args.games} games of "
             f"{', '.join(agents)}: {len(samples.won)} records, {result.held_out} held out.",
             f"Held out: log loss {result.log_loss:.3f} against {result.base_loss:.3f} for the base rate; "
             f"the seat of highest value at a turn's start won {100 * result.leader_wins:.1f}% "
             f"(chance {100 * result.chance:.1f}%).",
             "Weights, in log-odds of winning: for a unit of the feature, and for a typical lead in it "
             "(one standard deviation between seats), largest first:"]
    lines += [f"  {k:30} {result.weights[k]:+12.6g} {effect(k):+8.3f}" for k in order]
    if result.log_loss >= result.base_loss:
        lines.append("Warning: on the held-out games this value predicts the winner no better than the base "
                     "rate: play more games (--games), or write the game an `eval`.")
    folder = game_folders([args.game])[0]
    if args.write:
        note = (f"cardc fit-value {bundle['game']} --players {args.players} --agents {','.join(agents)} "
                f"--games {args.games} --seed {args.seed}: held-out leader won {100 * result.leader_wins:.1f}% "
                f"(chance {100 * result.chance:.1f}%)")
        path = folder / "game.yaml"
        write_atomic(path, with_value(path.read_text(encoding="utf-8"), result.weights, note))
        lines.append(f"Written to {path} (`agents: value`); `cardc build {bundle['game']}` brings it into the "
                     "bundle, and mcts scores by it where the game has no `eval` (or with `value=1`).")
    else:
        lines.append(f"Not written: add --write to keep it in {folder / 'game.yaml'}.")
    print("\n".join(lines))
    if args.json:
        _write(args.json, json.dumps({
            "game": bundle["game"], "players": args.players, "agents": agents, "games": args.games,
            "seed": args.seed, "records": len(samples.won), "held_out": result.held_out,
            "log_loss": result.log_loss, "base_log_loss": result.base_loss,
            "leader_wins": result.leader_wins, "chance": result.chance, "weights": result.weights,
            "spread": result.spread}, indent=2) + "\n")
    return 0
