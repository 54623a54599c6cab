"""The `cardc` command line.

Each subcommand is a small function; the work is done by the stage modules.
Exit codes (also in `cardc --help`): see EXIT_CODES.
"""
from __future__ import annotations

import argparse
import errno
import importlib
import json
import random
import sys
import textwrap
import time
from pathlib import Path

from cardc import __version__
from cardc.commands.cliargs import AGENTS_MEANING, agent_spec, not_negative, positive
from cardc.load.diagnostics import SourceCache
from cardc.load.paths import project_of
from cardc.project import UsageError, build_folder, bundle_bytes, bundle_path, game_folders, load_bundle


def _print_diags(built, strict=False) -> bool:
    """Print a build's diagnostics; True if it failed."""
    diags = built.diags
    if len(diags):
        print(diags.render(SourceCache()), file=sys.stderr)
        print(file=sys.stderr)
    failed = diags.has_errors or (strict and diags.warnings)
    return bool(failed)


# ---------------------------------------------------------------- check / build

def cmd_check(args) -> int:
    failed = False
    for folder in game_folders(args.games):
        t0 = time.perf_counter()
        built = build_folder(folder)
        _check_rulebook(built)
        bad = _print_diags(built, args.strict)
        errors, warnings = len(built.diags.errors), len(built.diags.warnings)
        status = "FAILED" if bad else "ok"
        print(f"{folder.name}: {status} ({errors} error{'s' * (errors != 1)}, "
              f"{warnings} warning{'s' * (warnings != 1)}, {time.perf_counter() - t0:.2f}s)")
        failed |= bad
    return 1 if failed else 0


def _check_rulebook(built) -> None:
    """Render the game's own rulebook template (in the content sandbox) so that
    `check` finds its mistakes, not `cardc rulebook`."""
    if built.bundle is None or not built.bundle.get("rulebook"):
        return
    from cardc.load.diagnostics import Loc
    from cardc.render.rulebook import RulebookError, render_markdown
    try:
        render_markdown(built.bundle)
    except RulebookError as exc:
        built.diags.error(Loc(exc.file or "rulebook.md.j2", exc.line or 1, 1), f"rulebook template: {exc.detail}")


def cmd_build(args) -> int:
    from cardc.render.atomic import write_atomic
    failed = False
    for folder in game_folders(args.games):
        built = build_folder(folder)
        if _print_diags(built, args.strict) or built.bundle is None:
            print(f"{folder.name}: FAILED, no bundle written")
            failed = True
            continue
        data = bundle_bytes(built.bundle)
        path = bundle_path(folder, built.bundle["game"])
        if args.check:
            old = path.read_bytes() if path.exists() else None
            if old != data:
                print(f"{built.bundle['game']}: {path.name} is stale: the sources compile to a different "
                      f"bundle; run `cardc build {built.bundle['game']}` and commit it")
                failed = True
            else:
                print(f"{built.bundle['game']}: {path} is up to date")
            continue
        from cardc.ir.schema import validate_bundle
        validate_bundle(built.bundle)
        _refuse_overwriting_another_game(path, built.bundle)
        write_atomic(path, data)
        from cardc.load.diagnostics import display_path
        print(f"{built.bundle['game']}: wrote {display_path(path)} ({len(data):,} bytes, "
              f"{len(built.bundle['instances'])} cards)")
        if args.explain:
            from cardc.engine import Game
            from cardc.engine.explain import explain
            out = path.parent / built.bundle["game"] / "explain.py"
            write_atomic(out, explain(Game(built.bundle), project_of(folder).root).encode())
            print(f"{built.bundle['game']}: wrote the generated engine code to {display_path(out)}")
    return 1 if failed else 0


def _refuse_overwriting_another_game(path: Path, bundle: dict) -> None:
    """Two game folders of one project with the same id would share
    generated/<game>.json: the second build says so instead of replacing
    the first one's bundle."""
    from cardc.project import built_from
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    before, now = built_from(old) if isinstance(old, dict) else None, built_from(bundle)
    if before and now and before != now:
        raise UsageError(f"{path} holds the bundle of another game folder with the id "
                         f"`{bundle['game']}` ({before}, not {now}); rename one of the games, or "
                         f"delete {path} first")


def cmd_new(args) -> int:
    from cardc.commands.new import NewGameError, new_game
    from cardc.load.diagnostics import display_path
    try:
        made = new_game(args.name, title=args.title)
    except NewGameError as exc:
        raise UsageError(str(exc)) from None
    if made.made_project:
        where = "here" if made.project.root == Path.cwd() else f"in {made.project.root}"
        print(f"made a cardc project {where} (cardc.toml, editor schemas in "
              f"{display_path(made.project.schemas)}/)")
    print(f"created {display_path(made.folder)} and its scenarios in {display_path(made.scenarios)}/")
    print(f"next: cardc check {args.name} && cardc play {args.name} && cardc scenario")
    print("the designer's guide: cardc guide (its sections), cardc guide zones (one of them)")
    return 0


def cmd_schemas(args) -> int:
    from cardc.commands.new import is_the_grammar, write_schemas
    from cardc.load.diagnostics import display_path
    from cardc.project import current_project
    project = current_project()
    if is_the_grammar(project.schemas):
        print(f"{display_path(project.schemas)} is cardc's own grammar: nothing to write")
        return 0
    written = write_schemas(project)
    print(f"wrote {len(written)} schemas to {display_path(project.schemas)}/")
    return 0


def cmd_cards(args) -> int:
    bundle = load_bundle(args.game)
    if args.kind and args.kind not in bundle["kinds"]:
        from cardc.load.diagnostics import did_you_mean
        hint = did_you_mean(args.kind, sorted(bundle["kinds"]))
        raise UsageError(f"--kind `{args.kind}`: {bundle['game']} has no such kind; its kinds are "
                         + ", ".join(sorted(bundle["kinds"])) + (f" ({hint})" if hint else ""))
    rows = []
    for c in bundle["cards"]:
        if args.kind and c["kind"] != args.kind:
            continue
        fields = {k: v for k, v in c["fields"].items() if v is not None}
        value = next((f"{k} {v}" for k, v in fields.items() if isinstance(v, int)), "")
        qty = f"{c['count']}/player" if c["per_player"] else str(c["count"])
        rows.append({"id": c["id"], "name": c["name"], "kind": c["kind"], "value": value,
                     "quantity": qty, "count": c["count"], "per_player": c["per_player"],
                     "fields": fields, "text": c["text"]})
    if args.format == "json":
        print(json.dumps(rows, indent=1))
    elif args.format == "csv":
        from cardc.load.sheet import write_card_sheet
        cards = [c for c in bundle["cards"] if not args.kind or c["kind"] == args.kind]
        with_rules = write_card_sheet(cards, list(bundle.get("card_fields") or {}), sys.stdout)
        if with_rules:
            print(f"note: {len(with_rules)} of these cards have rules (effect, requires, ...) that a sheet does "
                  f"not carry; keep them in YAML: {', '.join(with_rules[:5])}"
                  + (" ..." if len(with_rules) > 5 else ""), file=sys.stderr)
    else:
        from rich.table import Table

        from cardc.render.terminal import console as terminal_console
        table = Table(title=f"{bundle['name']}: {len(rows)} cards "
                      f"({sum(r['count'] for r in rows if not r['per_player'])} shared copies)")
        for col in ("id", "name", "kind", "value", "qty", "text"):
            table.add_column(col, overflow="fold", max_width=60 if col == "text" else None)
        for r in rows:
            short = r["text"] if len(r["text"]) <= 80 else r["text"][:77] + "…"
            table.add_row(r["id"], r["name"], r["kind"], r["value"], r["quantity"], short)
        terminal_console().print(table)
    return 0


# ---------------------------------------------------------------- play

def _game(name):
    from cardc.engine import Game
    return Game(load_bundle(name))


def cmd_play(args) -> int:
    from cardc.sim.play import play, replay_record, save_json
    game = _play_game(args)
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    if not agents:
        raise UsageError(f"--agents names no agent: `{args.agents}`")
    for name in agents:
        _agent_or_usage_error(name)
    # without --players, one agent named per seat sets the count (the
    # smallest the game allows when fewer are named: the list repeats)
    players = args.players or max(game.min_players, len(agents))
    if not game.min_players <= players <= game.max_players:
        given = f"--players {players}" if args.players else f"--agents names {len(agents)} agents"
        raise UsageError(f"{given}: {game.id} is for {game.min_players} to {game.max_players} players")
    if len(agents) > players:
        raise UsageError(f"--agents names {len(agents)} agents for {players} players: name one a seat "
                         "(" + AGENTS_MEANING + ")")
    _note_a_repeated_person(agents, players)
    seed = args.seed
    if seed is None:
        # a fresh game each time, and the seed said, so that it can be played again
        seed = random.SystemRandom().randrange(1_000_000)
        print(f"seed {seed} (cardc play {args.game} --seed {seed} deals the same cards again)")
    result = play(game, players, seed, agents, echo=None if args.quiet else print)
    if args.quiet:
        for line in result.summary:
            print(line)
    if args.log:
        save_json(args.log, replay_record(game, players, seed, result.actions, agents))
        print(f"replay written to {args.log}")
    return 0


def _note_a_repeated_person(agents: list, players: int) -> None:
    """`--agents human,greedy` for three seats seats the person twice (the
    list repeats): said, with the list that seats them once."""
    from cardc.sim.play import seat_agents
    seats = seat_agents(agents, players)
    if len(agents) > 1 and agents.count("human") == 1 and seats.count("human") > 1:
        bot = next(a for a in agents if a != "human")
        print("note: the agents repeat over the seats, so human plays "
              + " and ".join(f"P{i + 1}" for i, a in enumerate(seats) if a == "human")
              + "; to play one seat, name every seat, e.g. --agents "
              + ",".join(["human"] + [bot] * (players - 1)), file=sys.stderr)


def _agent_or_usage_error(name: str) -> None:
    from cardc.agents import parse_agent
    try:
        parse_agent(name)
    except ValueError as exc:
        raise UsageError(f"--agents: {exc}") from None


def _play_game(args):
    """The game of `play`, with `--set` applied as `simulate` applies it."""
    from cardc.engine import Game
    from cardc.project.overrides import parse_sets
    from cardc.sim.cli import variant_bundle
    try:
        overrides = parse_sets(args.set)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return Game(variant_bundle(args.game, overrides))


def cmd_replay(args) -> int:
    from cardc.sim.play import read_replay, replay
    record = read_replay(args.file)
    try:
        game = _game(args.bundle or record["game"])
    except UsageError as exc:
        if args.bundle:
            raise
        raise UsageError(f"{exc}. A game outside content/ is named with --bundle: "
                         f"`cardc replay {args.file} --bundle path/to/game` (its folder or bundle)") from None
    replay(game, record, echo=None if args.quiet else print, name=args.file)
    return 0


def cmd_scenario(args) -> int:
    from cardc.project import current_project
    from cardc.testing.scenario import run_scenarios
    files = args.files
    if not files:
        folder = current_project().scenarios
        if not folder.is_dir():
            raise UsageError(f"no scenarios folder {folder}: name scenario files or folders")
        files = [folder]
    else:
        # a game's name (`cardc scenario space_race`, as for `check` and
        # `play`) is its folder of scenarios in the project, scenarios/NAME
        named = [current_project().scenarios / f if not Path(f).exists() else None for f in files]
        files = [n if n is not None and n.is_dir() else f for f, n in zip(files, named, strict=False)]
        missing = next((f for f in files if not Path(f).exists()), None)
        if missing is not None:     # a file that is not there: exit 3, as for every command
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(missing))
    return run_scenarios(files, verbose=args.verbose, reference=args.reference)


def cmd_bench(args) -> int:
    from cardc.sim.bench import bench, bench_compile
    if args.compile:
        return bench_compile(args.games or None, args.scale)
    return bench(args.games or None, args.games_per, args.players, args.seconds, args.profile,
                 args.jobs, args.anchor, args.anchor_script, args.agent, args.rounds)


# ---------------------------------------------------------------- wiring
#
# To add a command: its parser in `parser()`, or, for a command living in a
# module of its own, one line in PARTS; and one line in EXAMPLES (a test
# checks that every command's help ends with an example).

EXAMPLES = {
    "new": "cardc new space_race --title \"Space Race\"   # in an empty folder: a new project",
    "check": "cardc check                    # every game of the project\n"
             "cardc check content/unicorn --strict",
    "build": "cardc build                    # every game, to generated/<game>.json\n"
             "cardc build --check unicorn    # fail if the committed bundle is stale",
    "schemas": "cardc schemas                  # after upgrading cardc: editor schemas in schemas/",
    "cards": "cardc cards unicorn --kind attack --format csv",
    "play": "cardc play unicorn --seed 7 --agents human,greedy,greedy --log game.json",
    "replay": "cardc replay game.json",
    "scenario": "cardc scenario                 # every scenario of the project\n"
                "cardc scenario unicorn         # one game's, in scenarios/unicorn/\n"
                "cardc scenario tests/scenarios/unicorn/ -v",
    "bench": "cardc bench unicorn --players 4 --games-per 100",
    "print": "cardc print unicorn --paper letter --bleed 3 --fit bleed",
    "export": "cardc export unicorn            # generated/unicorn/tts/ and web/",
    "rulebook": "cardc rulebook unicorn --format pdf",
    "simulate": "cardc simulate unicorn --games 500 --players 3,4 --agents random,greedy --seed 1",
    "sweep": "cardc sweep unicorn --set params.pr_penalty=50,100 --games 500",
    "compare": "cardc compare before.json after.json --significant",
    "skill": "cardc skill unicorn --players 3 --agents random,greedy --games 40",
    "tune": "cardc tune startup --vary params.start_money=5:20 --fair 5 --players 3 --trials 20",
    "tune-agent": "cardc tune-agent startup --players 2 --trials 12 --games 40 --jobs 2 --write",
    "fit-value": "cardc fit-value startup --players 2 --games 200 --write",
    "serve": "cardc serve                    # every game of the project, in the browser",
    "invariants": "cardc invariants unicorn --games 200 --players 3,4",
    "view": "cardc view game.json --seat 2 --at 40",
    "guide": "cardc guide                    # the sections\n"
             "cardc guide zone families      # one section",
}

# Commands in modules of their own: (commands, module, function(subparsers)
# adding them). A part that does not import (a missing dependency) still
# lists its commands; running one says what is missing.
PARTS = [
    (("guide",), "cardc.commands.designer_guide", "add_command"),
    (("invariants", "view"), "cardc.commands.designer", "add_commands"),
    (("print", "export", "rulebook"), "cardc.cli", "add_render_commands"),
    (("simulate", "sweep", "compare"), "cardc.sim.cli", "add_commands"),
    (("skill",), "cardc.sim.skill", "add_command"),
    (("tune",), "cardc.sim.tune", "add_command"),
    (("tune-agent",), "cardc.sim.tune_agent", "add_command"),
    (("fit-value",), "cardc.sim.fit_value", "add_command"),
    (("serve",), "cardc.cli", "add_serve_command"),
]

EXIT_CODES = """\
exit codes:
  0  success
  1  content errors, failed checks or scenarios, games that faulted
  2  usage: a bad command line, an unknown game, no project here
  3  a file or folder that cannot be read or written (named in the message)
  4  a part of cardc that does not import (reinstall cardc)
  130  interrupted"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cardc", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Compile, check, play, simulate and print card and board games written as "
                    "YAML content.\n\ncardc works on the project around the working directory "
                    "(the nearest folder\nabove it with a cardc.toml or a content/ folder); "
                    "outputs go to its generated/.",
        epilog="start: cardc new my_game (in an empty folder), then cardc check.\n"
               "cardc COMMAND --help shows a command's options and an example.\n\n" + EXIT_CODES)
    p.add_argument("--version", action="version", version=f"cardc {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    # `new` first: the command a newcomer starts with
    s = sub.add_parser("new", help="start a game in content/NAME (and a project, outside one)")
    s.add_argument("name", help="the game id, lower_snake_case")
    s.add_argument("--title", help="the game's display name, on its cards, backs, guide and rulebook "
                   "(default: the id in words)")
    s.set_defaults(func=cmd_new)


    s = sub.add_parser("check", help="check games for content errors")
    s.add_argument("games", nargs="*", help="game ids or folders (default: every game of the project)")
    s.add_argument("--strict", action="store_true", help="fail on warnings too")
    s.set_defaults(func=cmd_check)

    s = sub.add_parser("build", help="compile games to generated/<game>.json")
    s.add_argument("games", nargs="*", help="game ids or folders (default: every game of the project)")
    s.add_argument("--check", action="store_true",
                   help="do not write; fail if a committed bundle is stale")
    s.add_argument("--strict", action="store_true", help="fail on warnings too (no bundle written)")
    s.add_argument("--explain", action="store_true",
                   help="also write the Python the engine generates, to read, to generated/<game>/explain.py")
    s.set_defaults(func=cmd_build)

    s = sub.add_parser("schemas", help="write the JSON Schemas editors use into the project")
    s.set_defaults(func=cmd_schemas)

    s = sub.add_parser("cards", help="list a game's cards")
    s.add_argument("game", help="game id, folder or bundle")
    s.add_argument("--kind", help="only the cards of this kind (say, attack)")
    s.add_argument("--format", choices=["table", "csv", "json"], default="table",
                   help="a table to read (default), CSV for a spreadsheet, or JSON for a script")
    s.set_defaults(func=cmd_cards)

    s = sub.add_parser("play", help="play one game with agents and print its log")
    s.add_argument("game", help="game id, folder or bundle")
    s.add_argument("--players", type=positive, help="how many (default: one a named agent, at least "
                   "the smallest count the game allows)")
    s.add_argument("--seed", type=int, default=None,
                   help="the same seed and agents deal and play the same game (default: a fresh "
                        "seed, printed first)")
    s.add_argument("--agents", default="random", help="comma-separated: random, greedy, mcts "
                   "(mcts:400 sets its iterations), human; " + AGENTS_MEANING + " (default random)")
    s.add_argument("--set", action="append", default=[], metavar="PATH=VALUE",
                   help="change the content for this game, as in simulate, e.g. params.win_at=15")
    s.add_argument("--log", help="write the replay (bundle hash, seed, actions) to this file")
    s.add_argument("--quiet", action="store_true",
                   help="print only the result (the final scores and the winner), not every move")
    s.set_defaults(func=cmd_play)

    s = sub.add_parser("replay", help="replay a saved game and print its log")
    s.add_argument("file", help="a replay written by cardc play --log (or a hole of simulate)")
    s.add_argument("--bundle", help="game id or bundle path (default: the game named in the file)")
    s.add_argument("--quiet", action="store_true", help="print nothing; only check that it replays")
    s.set_defaults(func=cmd_replay)

    s = sub.add_parser("scenario", help="run rules scenarios")
    s.add_argument("files", nargs="*",
                   help="scenario files or folders (default: the project's scenarios folder)")
    s.add_argument("-v", "--verbose", action="store_true", help="print every scenario, passed ones too")
    s.add_argument("--reference", action="store_true",
                   help="run on the engine with every optimisation off (no caches, op by op): slower; "
                        "a scenario that passes only one way is an engine bug worth reporting")
    s.set_defaults(func=cmd_scenario)

    s = sub.add_parser("bench", help="games and decisions per second with random agents")
    s.add_argument("games", nargs="*", help="game ids or folders (default: every game of the project)")
    s.add_argument("--games-per", type=not_negative, default=0, help="games per measurement (default: by time)")
    s.add_argument("--seconds", type=float, default=3.0,
                   help="without --games-per: how long each measurement plays (default 3)")
    s.add_argument("--players", type=positive, default=4, help="players a game (default 4)")
    s.add_argument("--jobs", type=positive, default=1, help="also measure scaling up to this many cores")
    s.add_argument("--profile", action="store_true", help="print a cProfile of the hot loop")
    s.add_argument("--compile", action="store_true",
                   help="time check+build instead, and for content --scale times larger")
    s.add_argument("--scale", type=positive, default=10,
                   help="with --compile: how many times larger the generated content is (default 10)")
    s.add_argument("--anchor", metavar="PYTHON",
                   help="a Python with the reference engine (pyminion) installed: run it and each "
                        "game in turn and report cardc's ratio to it (the median over --rounds)")
    s.add_argument("--rounds", type=positive, default=5,
                   help="with --anchor: slices of each game, each between two runs of the "
                        "reference (default 5)")
    s.add_argument("--anchor-script", metavar="PATH",
                   help="the anchors script (default: ../shared/bench/anchors/anchors.py)")
    s.add_argument("--agent", default="random", type=agent_spec,
                   help="also time this agent in every seat (greedy, mcts:ITER) and its cost "
                        "per decision against random's")
    s.set_defaults(func=cmd_bench)

    _add_parts(sub)
    for name, s in sub.choices.items():
        s.formatter_class = argparse.RawDescriptionHelpFormatter
        if name in EXAMPLES:
            s.epilog = "example:\n" + textwrap.indent(EXAMPLES[name], "  ")
    return p


def _add_parts(sub) -> None:
    for names, module, function in PARTS:
        try:
            getattr(importlib.import_module(module), function)(sub)
        except ImportError as exc:
            for name in names:
                if name not in sub.choices:
                    _unavailable(sub, name, module, exc)


def _unavailable(sub, name: str, module: str, exc: ImportError) -> None:
    """A command whose module did not import: listed, and saying why when run."""
    why = f"`cardc {name}` is unavailable: {module} did not import ({exc})"
    # no option prefix: whatever follows (--help too) is taken in, and the command says why
    s = sub.add_parser(name, help=f"(unavailable: {exc})", add_help=False, prefix_chars="\0")
    s.add_argument("rest", nargs="*")

    def run(args):
        print(f"cardc: {why}; install what it names (an optional part: pip install "
              f"'cardc[EXTRA]', see pyproject.toml) or reinstall cardc", file=sys.stderr)
        return 4
    s.set_defaults(func=run)


def add_render_commands(sub) -> None:
    """print, export and rulebook: arguments and runners from cardc.render.cli."""
    from cardc.render import cli as render_cli
    for name, adder, runner, text in (
            ("print", "add_print_arguments", "run_print", "print-and-play PDFs"),
            ("export", "add_export_arguments", "run_export", "Tabletop Simulator sheets and PNGs"),
            ("rulebook", "add_rulebook_arguments", "run_rulebook", "the rulebook PDF and Markdown")):
        s = sub.add_parser(name, help=text)
        getattr(render_cli, adder)(s)
        s.set_defaults(func=_bundle_runner(getattr(render_cli, runner)))


def add_serve_command(sub) -> None:
    from cardc.serve.cli import add_arguments
    add_arguments(sub.add_parser("serve", help="the designer's workbench in the browser: "
                                 "cards, rulebook, play and simulate, following edits"))


def _bundle_runner(runner):
    def run(args):
        return runner(args, load_bundle(args.game)) or 0
    return run


_OS_ADVICE = {
    errno.ENOENT: "check the path",
    errno.EACCES: "check its permissions, or write somewhere else (--out DIR where offered)",
    errno.EPERM: "check its permissions, or write somewhere else (--out DIR where offered)",
    errno.EROFS: "the file system is read-only: run cardc in a project you can write to, "
                 "or pass --out DIR where offered",
    errno.ENOSPC: "the disk is full: free some space and run the command again",
    errno.EDQUOT: "the disk quota is used up: free some space and run the command again",
    errno.EISDIR: "a folder is in the way of a file of that name",
    errno.ENOTDIR: "a file is in the way of a folder of that name",
}


def os_error_line(exc: OSError) -> str:
    """One line for a failed read or write: the file, what went wrong, what to do."""
    name = exc.filename if exc.filename is not None else "a file"
    if exc.filename2 is not None:
        name = f"{name} -> {exc.filename2}"
    reason = exc.strerror or str(exc)
    advice = getattr(exc, "advice", None) or _OS_ADVICE.get(exc.errno, "check the file and run the command again")
    return f"cardc: cannot write or read {name}: {reason}; {advice}"


def main(argv=None) -> int:
    from cardc.agents.human import Quit
    from cardc.engine import EngineError
    from cardc.load.paths import ProjectError
    from cardc.sim.play import ReplayError
    p = parser()
    args = p.parse_args(argv)
    if args.command is None:
        p.print_help()
        return 0
    try:
        return args.func(args)
    except (UsageError, ProjectError) as exc:
        print(f"cardc: {exc}", file=sys.stderr)
        return 2
    except ReplayError as exc:
        print(f"cardc: {exc}", file=sys.stderr)
        return 1
    except (EngineError, ValueError) as exc:
        print(f"cardc: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except OSError as exc:
        print(os_error_line(exc), file=sys.stderr)
        return 3
    except ImportError as exc:
        print(f"cardc: a part of cardc did not import ({exc}); reinstall cardc "
              "(pip install --force-reinstall cardc) or install what it names", file=sys.stderr)
        return 4
    except Quit:
        print("cardc: game left (quit)", file=sys.stderr)
        return 0
    except (KeyboardInterrupt, EOFError):
        print("\ncardc: stopped", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
