"""`cardc bench`: how fast the engine plays complete random games.

Measures complete games per second and decisions per second on one core
(random agents, fixed seeds), optionally the greedy agent's cost relative to
random, and the scaling from one core to `--jobs` processes.  Reported, not
asserted: speed is measured here, never in tests.
"""
from __future__ import annotations

import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from cardc.engine import Game
from cardc.project import game_folders, load_bundle


def random_game(game: Game, players: int, seed: int):
    """One complete game, each action drawn uniformly: the very numbers
    `random.Random(seed).randrange(n)` draws, one after another, with its
    own rejection sampling over `getrandbits` written in the loop.  A
    decision of the engine takes some 40 µs; `randrange` and the method it
    calls took 1-2% of that, time the bench charged to the engine."""
    st = game.new_state(players, seed=seed, memory=False)     # random agents never look
    bits = random.Random(seed).getrandbits
    while not st.terminal:
        n = len(st.pending.values)
        k = n.bit_length()
        r = bits(k)
        while r >= n:
            r = bits(k)
        st.apply(r)
    return st


def play_random(game: Game, players: int, seed: int, agent="random"):
    """One complete game with one seeded agent for every seat; (decisions, turns, capped)."""
    if agent == "random":
        st = random_game(game, players, seed)
    else:
        st = game.new_state(players, seed=seed)
        from cardc.agents import make_agent
        agents = [make_agent(agent, seed * 100 + i, game.bundle.get("agents")) for i in range(players)]
        while not st.terminal:
            st.apply(agents[st.pending.player].act(st, st.pending.player))
    return st.decisions, st.turn, st.capped


def measure(game: Game, players: int, seconds: float, games: int = 0, agent="random", seed0=0):
    t0, c0 = time.perf_counter(), time.process_time()
    n = decisions = turns = capped = 0
    while (games and n < games) or (not games and time.perf_counter() - t0 < seconds):
        d, t, c = play_random(game, players, seed0 + n, agent)
        n += 1
        decisions += d
        turns += t
        capped += c
    dt, cpu = time.perf_counter() - t0, max(time.process_time() - c0, 1e-9)
    return {"games": n, "seconds": dt, "games_per_s": n / dt, "decisions_per_s": decisions / dt,
            "decisions_per_cpu_s": decisions / cpu,
            "decisions_per_game": decisions / n, "turns_per_game": turns / n, "capped": capped}


#: the anchor line `cardc bench --anchor` compares with (see ../shared/bench/anchors/README.md)
ANCHOR = "pyminion-bigmoney-4p"


def run_anchor(python: str, script: str, seconds: float) -> dict:
    """Run the hand-written reference engine once in its own interpreter (it
    lives in its own virtualenv) and read its line: decisions per second of
    wall time, and per second of the child's CPU time (steadier on a shared
    machine: it does not count time the process spent waiting for a core)."""
    import re
    import resource
    import subprocess
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([python, script, "--seconds", str(seconds), "--only", ANCHOR],
                         capture_output=True, text=True, timeout=seconds * 10 + 120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    m = re.search(r"games=(\d+) games_per_s=([\d.]+) decisions_per_s=(\d+)", out.stdout)
    if not m:
        raise RuntimeError(f"the anchor printed no result: {(out.stdout + out.stderr).strip()[-300:]}")
    games, gps, dps = int(m.group(1)), float(m.group(2)), float(m.group(3))
    decisions = dps * games / gps if gps else 0
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {"decisions_per_s": dps, "decisions_per_cpu_s": decisions / cpu if cpu else 0.0}


def default_anchor_script() -> str:
    """The anchors beside the project (`../shared/bench/anchors/anchors.py`,
    looking up from the repository); `--anchor-script` names another."""
    from pathlib import Path
    here = Path(__file__).resolve().parent.parent
    for folder in [here, *here.parents]:
        script = folder / "shared" / "bench" / "anchors" / "anchors.py"
        if script.exists():
            return str(script)
    raise SystemExit("cardc bench: no ../shared/bench/anchors/anchors.py found; "
                     "say where it is with --anchor-script")


def _worker(args):
    bundle, players, seconds, seed0 = args
    return measure(Game(bundle), players, seconds, seed0=seed0)


def _merge(parts):
    """One measurement from several slices of it (sums, then rates)."""
    n = sum(p["games"] for p in parts)
    dt = sum(p["seconds"] for p in parts)
    decisions = sum(p["decisions_per_s"] * p["seconds"] for p in parts)
    cpu = sum(p["decisions_per_s"] * p["seconds"] / p["decisions_per_cpu_s"] for p in parts)
    turns = sum(p["turns_per_game"] * p["games"] for p in parts)
    return {"games": n, "seconds": dt, "games_per_s": n / dt, "decisions_per_s": decisions / dt,
            "decisions_per_cpu_s": decisions / max(cpu, 1e-9), "decisions_per_game": decisions / n,
            "turns_per_game": turns / n, "capped": sum(p["capped"] for p in parts)}


def anchored(game, n, seconds, games_per, anchor, script, rounds, anchors):
    """The game and the reference in turn, A B A B … A, `rounds` slices of
    the game: each slice's ratio is to the mean of the reference runs on
    either side of it, and the figure is the median of those ratios.  A
    shared machine's speed drifts by tens of percent within a minute; a
    slice and its neighbours see the same machine, and the median leaves out
    a slice that met a burst of other work.  Returns (the game's whole
    measurement, [wall ratios], [CPU-time ratios]); `anchors` gets every
    reference run (the first is the one before)."""
    parts, wall, cpu = [], [], []
    seed = 0
    for _ in range(rounds):
        games = games_per and max(1, games_per // rounds)
        r = measure(game, n, seconds / rounds, games, seed0=seed)
        seed += r["games"]
        parts.append(r)
        anchors.append(run_anchor(anchor, script, seconds / rounds))
        before, after = anchors[-2], anchors[-1]
        wall.append(r["decisions_per_s"] * 2 / (before["decisions_per_s"] + after["decisions_per_s"]))
        cpu.append(r["decisions_per_cpu_s"] * 2
                   / (before["decisions_per_cpu_s"] + after["decisions_per_cpu_s"]))
    return _merge(parts), wall, cpu


def bench(names, games_per, players, seconds, profile=False, jobs=1, anchor=None,
          anchor_script=None, agent="random", rounds=5) -> int:
    """With `anchor` (a Python that has the reference engine installed), the
    reference and each game run in turn, in `rounds` slices (see
    `anchored`): one command, one stretch of time, so the machine's drift
    cancels, and the ratio is the median over the slices.  With another `agent`
    (greedy, mcts:…) in every seat, its decisions/s and its cost per
    decision against random's are shown too (CPU time, same run)."""
    from rich.table import Table

    from cardc.render.terminal import console as terminal_console
    console = terminal_console(width=160)
    table = Table(title=f"cardc bench: random agents, {players} players (or the nearest allowed)"
                        + (f"; then {agent} in every seat" if agent != "random" else ""))
    cols = ["game", "players", "games", "games/s", "decisions/s", "decisions/game", "turns/game",
            "capped"]
    if anchor:
        # with short slices the reference's CPU time is mostly its start-up
        # (imports, in its own process), so the CPU-time ratio is shown for
        # one long slice only
        cols += [f"x {ANCHOR}"] + (["x (CPU time)"] if rounds == 1 else
                                   [f"x, {rounds} slices: min-max"])
    if agent != "random":
        cols += [f"{agent} decisions/s", f"{agent} cost x random"]
    for col in cols:
        table.add_column(col, justify="right")
    script = (anchor_script or default_anchor_script()) if anchor else None
    anchors = [run_anchor(anchor, script, seconds / rounds)] if anchor else []
    bundles = {}
    for folder in game_folders(names or None):
        gid = folder.name
        bundle = load_bundle(str(folder))
        bundles[gid] = bundle
        game = Game(bundle)
        n = max(game.min_players, min(players, game.max_players))
        play_random(game, n, 10_000)          # warm up
        if anchor:
            r, wall, cpu = anchored(game, n, seconds, games_per, anchor, script, rounds, anchors)
        else:
            r = measure(game, n, seconds, games_per)
        row = [gid, str(n), str(r["games"]), f"{r['games_per_s']:.1f}",
               f"{r['decisions_per_s']:,.0f}", f"{r['decisions_per_game']:.0f}",
               f"{r['turns_per_game']:.1f}", str(r["capped"])]
        if anchor:
            row += [f"{statistics.median(wall):.2f}",
                    f"{cpu[0]:.2f}" if rounds == 1 else f"{min(wall):.2f}-{max(wall):.2f}"]
        if agent != "random":
            a = measure(game, n, seconds, games_per and max(1, games_per // 10), agent=agent)
            row += [f"{a['decisions_per_s']:,.0f}",
                    f"{r['decisions_per_cpu_s'] / a['decisions_per_cpu_s']:.1f}"]
        table.add_row(*row)
    if anchors:
        console.print(f"{ANCHOR} decisions/s, in turn with the slices of each game: "
                      + ", ".join(f"{a['decisions_per_s']:,.0f}" for a in anchors))
    console.print(table)
    if jobs > 1:
        scaling = Table(title="scaling: total games/s with J processes")
        scaling.add_column("game")
        for j in range(1, jobs + 1):
            scaling.add_column(f"J={j}", justify="right")
        for gid, bundle in bundles.items():
            game = Game(bundle)
            n = max(game.min_players, min(players, game.max_players))
            row = [gid]
            for j in range(1, jobs + 1):
                with ProcessPoolExecutor(j) as pool:
                    results = list(pool.map(_worker, [(bundle, n, seconds, 1000 * k) for k in range(j)]))
                row.append(f"{sum(r['games_per_s'] for r in results):.1f}")
            scaling.add_row(*row)
        console.print(scaling)
    if profile:
        import cProfile
        import pstats
        for gid, bundle in bundles.items():
            game = Game(bundle)
            n = max(game.min_players, min(players, game.max_players))
            prof = cProfile.Profile()
            prof.enable()
            measure(game, n, seconds)
            prof.disable()
            console.print(f"profile: {gid}", style="bold")
            pstats.Stats(prof).sort_stats("tottime").print_stats(15)
    return 0


def scaled_copy(folder, factor, dest):
    """A copy of a game folder with every card file repeated `factor` times
    (ids suffixed), constraints dropped: content `factor` times larger."""
    import re
    import shutil
    from pathlib import Path
    dest = Path(dest) / folder.name
    shutil.copytree(folder, dest)
    game = (dest / "game.yaml").read_text()
    game = re.sub(r"\nconstraints:\n(  .*\n|\n)*", "\n", game)
    (dest / "game.yaml").write_text(game)
    for path in sorted((dest / "cards").rglob("*.yaml")):
        text = path.read_text()
        for k in range(1, factor):
            copy = re.sub(r"((?:^|[\s{,-])id: )([a-z0-9_]+)", lambda m, k=k: f"{m.group(1)}{m.group(2)}_x{k}", text)
            path.with_name(f"{path.stem}_x{k}.yaml").write_text(copy)
    return dest


def bench_compile(names, factor=10) -> int:
    """Time `check` (load + compile) for each game, and for a copy with
    `factor` times the cards, best of 3 runs."""
    import tempfile

    from rich.table import Table

    from cardc.project import build_folder
    from cardc.render.terminal import console as terminal_console
    table = Table(title=f"cardc bench --compile: check+build time, best of 3 (x{factor}: {factor} times the cards)")
    for col in ("game", "cards", "seconds", f"cards x{factor}", f"seconds x{factor}"):
        table.add_column(col, justify="right")

    def best(folder):
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            built = build_folder(folder)
            times.append(time.perf_counter() - t0)
        return min(times), built

    for folder in game_folders(names or None):
        t1, built = best(folder)
        with tempfile.TemporaryDirectory() as tmp:
            big = scaled_copy(folder, factor, tmp)
            t10, built10 = best(big)
        n1 = len(built.bundle["instances"]) if built.bundle else 0
        n10 = len(built10.bundle["instances"]) if built10.bundle else 0
        table.add_row(folder.name, str(n1), f"{t1:.3f}", str(n10), f"{t10:.3f}")
    terminal_console().print(table)
    return 0
