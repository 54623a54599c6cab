"""Designer commands that needed Python before:

- `cardc invariants GAME`: play many seeded games with random agents and
  check the content's `invariants:` (and the engine's own) after every
  decision; the first one broken is reported with a replay to look at it.
- `cardc view REPLAY --seat N --at K`: what one seat sees after the first K
  decisions of a recorded game (its observation, never the whole state),
  and the actions open to it if the decision is its own.
"""
from __future__ import annotations

from pathlib import Path

from cardc.project import UsageError, load_bundle


def add_commands(sub):
    s = sub.add_parser("invariants", help="play seeded random games checking the game's invariants "
                       "after every decision")
    s.add_argument("game", help="game id or folder")
    s.add_argument("--games", type=int, default=100, help="how many games (default 100)")
    s.add_argument("--players", help="player counts, e.g. 3,4,5 (default: every count the game allows)")
    s.add_argument("--seed", type=int, default=1, help="the first game's seed; the others follow")
    s.add_argument("--replay", help="where to write the replay of a game that broke an invariant "
                   "(default generated/<game>-invariant.json)")
    s.set_defaults(func=cmd_invariants)

    s = sub.add_parser("view", help="what one seat sees at one point of a recorded game")
    s.add_argument("file", help="a replay written by `cardc play --log` or `cardc invariants`")
    s.add_argument("--seat", required=True, help="the seat: 1 (or P1) for the first player")
    s.add_argument("--at", type=int, help="after this many decisions (default: the end)")
    s.add_argument("--bundle", help="game id, folder or bundle path (default: the game in the file)")
    s.set_defaults(func=cmd_view)


def _counts(text, game) -> list[int]:
    if not text:
        return list(range(game.min_players, game.max_players + 1))
    try:
        counts = [int(x) for x in text.split(",")]
    except ValueError:
        raise UsageError(f"--players {text}: write player counts separated by commas, e.g. 3,4") from None
    bad = [c for c in counts if not game.min_players <= c <= game.max_players]
    if bad:
        raise UsageError(f"{game.name} is for {game.min_players} to {game.max_players} players, not {bad[0]}")
    return counts


def find_broken(game, players: int, seed: int):
    """Play one game with random agents; (decisions, problems, actions) at
    the first decision after which an invariant is broken, else None."""
    from cardc.agents import make_agent
    st = game.new_state(players, seed=seed)
    agents = [make_agent("random", seed * 1000 + i) for i in range(players)]
    actions = []
    broken = game.broken_invariants(st)
    while not broken and not st.is_terminal():
        choice = agents[st.current_player()].act(st, st.current_player())
        actions.append(choice)
        st.apply(choice)
        broken = game.broken_invariants(st)
    return (len(actions), broken, actions) if broken else None


def cmd_invariants(args) -> int:
    from cardc.engine import Game
    from cardc.project import generated_dir
    from cardc.sim.play import replay_record, save_json
    if args.games < 1:
        raise UsageError("--games must be 1 or more")
    bundle = load_bundle(args.game)
    game = Game(bundle)
    counts = _counts(args.players, game)
    checks = len(bundle["code"].get("invariants", []))
    for i in range(args.games):
        seed, players = args.seed + i, counts[i % len(counts)]
        found = find_broken(game, players, seed)
        if found is None:
            continue
        at, problems, actions = found
        path = Path(args.replay) if args.replay else generated_dir(args.game) / f"{game.id}-invariant.json"
        save_json(path, replay_record(game, players, seed, actions, ["random"]))
        print(f"{game.id}: game {i + 1} (seed {seed}, {players} players) broke an invariant "
              f"after {at} decisions:")
        for p in problems:
            print(f"  {p}")
        where = "" if Path(args.game).name == game.id and not Path(args.game).exists() else f" --bundle {args.game}"
        print(f"replay: cardc replay {path}{where}")
        print(f"what each seat saw: cardc view {path} --seat 1 --at {at}{where}")
        return 1
    print(f"{game.id}: {args.games} games ({', '.join(map(str, counts))} players, seeds {args.seed}-"
          f"{args.seed + args.games - 1}): {checks} invariant{'s' * (checks != 1)} and "
          "every card in one place held after every decision")
    return 0


def _seat(text, players) -> int:
    text = str(text).upper().removeprefix("P")
    if not text.isdigit() or not 1 <= int(text) <= players:
        raise UsageError(f"--seat {text}: a seat from 1 to {players} (or P1 to P{players})")
    return int(text) - 1


def cmd_view(args) -> int:
    from cardc.engine import BundleMismatch, Game
    from cardc.render.terminal import observation_text
    from cardc.sim.play import read_replay
    record = read_replay(args.file)          # checked against grammar/replay.schema.json
    name, players, seed, actions = record["game"], record["players"], record["seed"], record["actions"]
    game = Game(load_bundle(args.bundle or name))
    if record.get("bundle") != game.hash:
        raise BundleMismatch(f"`{game.id}` changed since this game was recorded: "
                             "the same actions may not mean the same moves any more")
    seat = _seat(args.seat, players)
    at = len(actions) if args.at is None else args.at
    if not 0 <= at <= len(actions):
        raise UsageError(f"--at {at}: the replay has {len(actions)} decisions")
    st = game.new_state(players, seed=seed, log=True)
    for action in actions[:at]:
        st.apply(action)
    print(f"{st.player_name(seat)}'s view after {at} of {len(actions)} decisions")
    print(observation_text(st.observation(seat), game, st))   # st only draws the public board
    if st.is_terminal():
        print("The game is over: " + (", ".join(st.player_name(w) for w in st.winners) or "no") + " won.")
    elif st.current_player() == seat and (d := st.pending) is not None:
        print(f"\n{st.player_name(seat)} decides: {d.prompt or d.kind}")
        for i, label in enumerate(d.labels):
            print(f"  {i + 1}. {label}")
    else:
        print(f"\n{st.player_name(st.current_player())} decides next.")
    return 0
