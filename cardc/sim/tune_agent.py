"""`cardc tune-agent GAME`: the search agent's own settings, tuned for one game.

The TAG framework tunes its MCTS per game (NTBEA) before it ranks games by
how much skill pays; here optuna's TPE sampler (as `cardc tune` uses)
searches mcts's exploration constant `c`, the share `mix` of greedy moves
in its playouts and the cost of a move `cost`, at the ladder's budget, by
the win rate against `--against` (greedy) in one seat of `--players`.
Every trial plays the same deals (common random numbers), so trials differ
only in the settings.  The best of many trials is flattered by luck (the
winner's curse), so it is then played again on new deals beside the
settings in use, and only that confirmation is reported and trusted: with
`--write`, settings that won more there go into the game's `agents:` block
(game.yaml), and a bare `mcts` (and `elite`, at twice the budget) means them
for that game from its next build.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass

from cardc.project import UsageError
from cardc.sim.intervals import wilson

#: what the search may move: (name, low, high, digits kept, on a log scale)
KNOBS = (("c", 0.2, 2.0, 2, True), ("mix", 0.0, 0.5, 2, False), ("cost", 0.0, 0.01, 4, False))


@dataclass
class Result:
    """One setting's games: its settings text and its hero seat's wins."""
    settings: str
    wins: float = 0.0
    games: int = 0

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def text(self) -> str:
        lo, hi = wilson(self.wins, self.games)
        return f"{100 * self.rate:.1f}% [{100 * lo:.1f}-{100 * hi:.1f}]"


def settings_text(values: dict) -> str:
    """`c=0.83:mix=0.12:cost=0.0021`: the named settings as game.yaml holds them."""
    return ":".join(f"{name}={round(values[name], digits)}" for name, _, _, digits, _ in KNOBS)


def in_use(tuned: dict | None) -> dict:
    """The knobs' values a bare `mcts` plays with now (the game's block, or the defaults)."""
    from cardc.agents import make_agent
    agent = make_agent("mcts", 0, tuned)
    return {name: getattr(agent, name) for name, *_ in KNOBS}


class Matches:
    """Plays one hero setting against the rival on the plan's deals."""

    def __init__(self, bundle: dict, players: int, rival: str, iterations: int, pool, max_decisions: int):
        self.bundle, self.players, self.rival = bundle, players, rival
        self.iterations, self.pool, self.max_decisions = iterations, pool, max_decisions

    def play(self, settings: str, seed: int, games: int, on_chunk=None) -> Result:
        from cardc.sim.run import Plan, Totals, play_many
        hero = f"mcts:{self.iterations}:{settings}"
        plan = Plan((self.players,), (hero,) + (self.rival,) * (self.players - 1), seed, None,
                    self.max_decisions)
        totals = play_many(self.pool, [self.bundle], plan, 0, games, Totals.empty(1), on_chunk=on_chunk)
        agg = totals.aggregates[0]
        tally = agg.counts[self.players].agents.get(hero) if self.players in agg.counts else None
        return Result(settings, tally.wins if tally else 0.0, agg.games)


def search(matches: Matches, start: dict, trials: int, games: int, seed: int, on_trial=None) -> list[Result]:
    """`trials` settings, the one in use first, on the same deals (seed)."""
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize",
                                sampler=optuna.samplers.TPESampler(seed=seed, n_startup_trials=max(3, trials // 3)))
    study.enqueue_trial({name: min(max(start[name], low), high) for name, low, high, _, _ in KNOBS})
    tried: dict[str, Result] = {}

    def objective(trial):
        values = {name: trial.suggest_float(name, low, high, log=log) for name, low, high, _, log in KNOBS}
        text = settings_text(values)
        if text not in tried:
            tried[text] = matches.play(text, seed, games)
            if on_trial:
                on_trial(tried[text])
        return tried[text].rate
    study.optimize(objective, n_trials=trials)
    return sorted(tried.values(), key=lambda r: -r.rate)


def with_agents(text: str, settings: str, note: str) -> str:
    """game.yaml's text with its `agents:` block set to these settings: the
    block replaced where it is, else added at the end; nothing else moves."""
    from cardc.sim.fit_value import with_agents_entry
    return with_agents_entry(text, "mcts", [f"  # {note}\n", f'  mcts: "{settings}"\n'])


def add_command(sub) -> None:
    s = sub.add_parser("tune-agent", help="tune the mcts agent's settings for one game "
                       "against greedy, and keep them in its game.yaml")
    s.add_argument("game", help="game id or folder")
    s.add_argument("--players", type=int, default=2, help="players a game, mcts in one seat (default 2)")
    s.add_argument("--against", default="greedy", help="the agent in the other seats (default greedy)")
    s.add_argument("--iterations", type=int, default=300,
                   help="mcts's budget while tuning (default 300, the ladder's)")
    s.add_argument("--trials", type=int, default=12, help="settings to try (default 12)")
    s.add_argument("--games", type=int, default=40, help="games per setting, the same deals (default 40)")
    s.add_argument("--confirm", type=int, help="new deals on which the best and the settings in use "
                   "are played again (default twice --games)")
    s.add_argument("--seed", type=int, default=0, help="the run's seed: same seed, same report")
    s.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    s.add_argument("--max-decisions", type=int, default=100_000,
                   help="a game still running after this many decisions is stopped as stalled")
    s.add_argument("--write", action="store_true",
                   help="keep settings that won more on the new deals in the game's game.yaml")
    s.add_argument("--json", metavar="PATH", help="write the report as JSON")
    s.add_argument("--quiet", action="store_true", help="only the answer")
    s.set_defaults(func=cmd_tune_agent)


def cmd_tune_agent(args) -> int:
    from cardc.project import game_folders
    from cardc.render.atomic import write_atomic
    from cardc.sim.cli import _write
    from cardc.sim.run import executor
    try:
        import optuna  # noqa: F401
    except ImportError:
        raise UsageError("cardc tune-agent needs optuna: pip install optuna (or cardc's `tune` extra)") from None
    if args.trials < 1 or args.games < 2 or args.iterations < 1 or args.jobs < 1:
        raise UsageError("--trials, --iterations and --jobs must be at least 1 and --games at least 2")
    from cardc.sim.fit_value import match_bundle
    bundle = match_bundle(args.game, args.players)
    from cardc.agents import parse_agent
    try:
        parse_agent(args.against)
    except ValueError as exc:
        raise UsageError(f"--against: {exc}") from None
    tuned = bundle.get("agents")
    start = in_use(tuned)
    confirm = args.confirm or 2 * args.games
    pool = executor(args.jobs)
    try:
        matches = Matches(bundle, args.players, args.against, args.iterations, pool, args.max_decisions)
        say = (lambda r: None) if args.quiet else \
            (lambda r: print(f"  {r.settings:32} {r.text()} of {r.games}", flush=True))
        if not args.quiet:
            print(f"{bundle['name']}: {args.trials} settings of mcts:{args.iterations}, "
                  f"{args.games} deals each, against {args.against} ({args.players} players)")
        tried = search(matches, start, args.trials, args.games, args.seed, say)
        best, current = tried[0].settings, settings_text(start)
        fresh = args.seed + 1_000_003                    # deals no trial played
        again = {name: matches.play(name, fresh, confirm) for name in dict.fromkeys((best, current))}
    finally:
        pool.close()
    won, was = again[best], again[current]
    gain = 100 * (won.rate - was.rate)
    better = best != current and won.rate > was.rate
    lines = [f"mcts at {bundle['name']} ({args.players} players, {args.iterations} iterations) "
             f"against {args.against}, on {confirm} new deals: {best} won {won.text()}"
             + (f"; the settings in use ({current}) won {was.text()} ({gain:+.1f} pts)."
                if best != current else " (the settings in use were the best found).")]
    folder = game_folders([args.game])[0]
    if better and args.write:
        note = (f"cardc tune-agent {bundle['game']} --players {args.players} --against {args.against}: "
                f"{won.text()} on {confirm} new deals, before {was.text()}")
        path = folder / "game.yaml"
        write_atomic(path, with_agents(path.read_text(encoding="utf-8"), best, note))
        lines.append(f"Written to {path} (`agents: mcts`); `cardc build {bundle['game']}` brings it "
                     "into the bundle.")
    elif better:
        lines.append(f"Not written: add --write to keep them in {folder / 'game.yaml'}.")
    else:
        lines.append("Nothing better than the settings in use on the new deals: game.yaml stays as it is.")
    if best != current and abs(gain) < 100 * 1.96 * math.sqrt(max(won.rate * (1 - won.rate), 0.05) * 2 / won.games):
        lines.append("The difference is within what luck gives at this many deals: --confirm more to be sure.")
    print("\n".join(lines))
    if args.json:
        _write(args.json, json.dumps({
            "game": bundle["game"], "players": args.players, "against": args.against,
            "iterations": args.iterations, "seed": args.seed, "answer": lines,
            "trials": [{"settings": r.settings, "wins": r.wins, "games": r.games} for r in tried],
            "confirm": {name: {"wins": r.wins, "games": r.games} for name, r in again.items()},
            "best": best, "in_use": current, "written": bool(better and args.write)}, indent=1))
    return 0
