"""The command line a newcomer meets: help, version, examples, defaults,
and one clear line (with a documented exit code) instead of a traceback."""
from __future__ import annotations

import pytest

import cardc.cli as cli
from cardc.cli import main, parser

from conftest import MINI


def commands() -> dict:
    sub = next(a for a in parser()._actions if a.dest == "command")
    return sub.choices


def test_no_arguments_prints_the_help(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: cardc") and "exit codes:" in out and "cardc new" in out


def test_version(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith("cardc 0.")


def test_every_command_has_an_example():
    missing = [name for name, s in commands().items() if f"cardc {name}" not in (s.epilog or "")]
    assert not missing, f"add these to cli.EXAMPLES: {missing}"


def test_play_without_players_uses_the_smallest_count(capsys):
    assert main(["play", str(MINI), "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "P2" in out and "P3" not in out


def test_play_seats_one_player_a_named_agent(capsys):
    """Three agents named and no --players: three players, not the smallest
    count with the third agent silently left out; more agents than
    --players, or than the game seats, is one line saying so."""
    assert main(["play", str(MINI), "--seed", "3", "--agents", "random,random,random"]) == 0
    assert "P3" in capsys.readouterr().out
    assert main(["play", str(MINI), "--players", "2", "--agents", "random,random,random"]) == 2
    assert "names 3 agents for 2 players" in capsys.readouterr().err
    assert main(["play", str(MINI), "--agents", "random,random,random,random"]) == 2
    assert "names 4 agents: mini is for 2 to 3 players" in capsys.readouterr().err


def test_export_needs_no_flag(tmp_path, capsys):
    assert main(["export", str(MINI), "--out", str(tmp_path)]) == 0
    assert (tmp_path / "tts" / "manifest.json").is_file()


def test_a_missing_file_is_one_line_naming_it(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nope.json")]) in (1, 3)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope.json" in err and "No such file" in err


def test_a_read_only_project_is_one_line_with_exit_3(game_copy, monkeypatch, capsys):
    import errno

    def read_only(path, content):
        raise OSError(errno.EROFS, "Read-only file system", str(path))
    monkeypatch.setattr("cardc.render.atomic.write_atomic", read_only)
    assert main(["build", str(game_copy())]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "mini.json: Read-only file system; " in err and "--out" in err


def test_an_output_that_cannot_be_written_is_one_line_naming_it(tmp_path, capsys):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where a folder should go")
    assert main(["rulebook", str(MINI), "--out", str(blocker / "out")]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "blocker" in err and err.startswith("cardc: cannot write or read ")


def test_a_part_that_does_not_import_is_listed_and_says_why(monkeypatch, capsys):
    monkeypatch.setattr(cli, "PARTS", cli.PARTS + [(("frobnicate",), "cardc.no_such_part", "add")])
    assert "frobnicate" in commands()
    assert main(["frobnicate", "--anything", "x"]) == 4
    err = capsys.readouterr().err
    assert "cardc frobnicate" in err and "cardc.no_such_part" in err


def test_outside_a_project_says_how_to_start_one(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 2
    assert "cardc new NAME" in capsys.readouterr().err


# ---------------------------------------------------------------- issue 41: the command line a designer lives in

def test_every_option_of_every_command_has_a_help_line():
    bare = [f"{name} {a.option_strings[-1] if a.option_strings else a.dest}"
            for name, s in commands().items() if s.add_help
            for a in s._actions if a.dest != "help" and not a.help]
    assert not bare, f"options without a help line: {bare}"


def test_new_is_listed_first():
    assert next(iter(commands())) == "new"


@pytest.mark.parametrize("argv, message", [
    (["play", str(MINI), "--agents", "rnadom"], "cardc: --agents: unknown agent `rnadom`; agents are: "),
    (["print", str(MINI), "--cards", "rubby"], "cardc: --cards: no card `rubby` in mini; did you mean `ruby`?"),
    (["print", str(MINI), "--bleed", "5"], "cardc: --bleed must be between 0 and 3.175 mm (1/8 in), not 5"),
    (["export", str(MINI), "--card-px", "5"], "cardc: --card-px must be between"),
])
def test_a_bad_option_is_a_usage_error_with_exit_2(argv, message, tmp_path, capsys):
    assert main(argv + ["--out", str(tmp_path)] if argv[0] != "play" else argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1


@pytest.mark.parametrize("argv", [["replay", "{}/missing.json"], ["compare", "{}/missing.json", "{}/b.json"],
                                  ["view", "{}/missing.json", "--seat", "1"], ["scenario", "{}/missing.json"]])
def test_a_file_that_cannot_be_read_exits_3_naming_it(argv, tmp_path, capsys):
    assert main([a.format(tmp_path) for a in argv]) == 3
    err = capsys.readouterr().err
    assert err == (f"cardc: cannot write or read {tmp_path}/missing.json: No such file or directory; "
                   "check the path\n")


def test_a_report_that_is_not_json_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "a.json").write_text("not json")
    assert main(["compare", str(tmp_path / "a.json"), str(tmp_path / "a.json")]) == 2
    assert "is not a report written by `cardc simulate --json` (not JSON: " in capsys.readouterr().err


def test_play_without_a_seed_deals_a_fresh_game_and_prints_its_seed(capsys, monkeypatch):
    """Every game without --seed is a new deal; the seed printed first plays it again."""
    monkeypatch.setattr("random.SystemRandom.randrange", lambda self, n: 4242)
    assert main(["play", str(MINI)]) == 0
    first = capsys.readouterr().out
    assert first.startswith(f"seed 4242 (cardc play {MINI} --seed 4242 deals the same cards again)\n")
    assert main(["play", str(MINI), "--seed", "4242"]) == 0
    assert capsys.readouterr().out == first.split("\n", 1)[1]


def test_play_quiet_still_prints_the_result(capsys):
    assert main(["play", str(MINI), "--seed", "3"]) == 0
    loud = capsys.readouterr().out.splitlines()
    assert main(["play", str(MINI), "--seed", "3", "--quiet"]) == 0
    quiet = capsys.readouterr().out.splitlines()
    assert quiet == loud[-2:] and quiet[0].startswith("   scores: P1 ") and quiet[1].startswith("Winner: ")


def test_play_set_changes_the_content_as_simulate_does(capsys):
    assert main(["play", str(MINI), "--seed", "3", "--quiet", "--set", "params.win_at=3"]) == 0
    assert main(["play", str(MINI), "--seed", "3", "--set", "params.nope=3"]) == 2
    assert "params.nope" in capsys.readouterr().err


def test_agents_repeat_over_the_seats_in_play_as_in_simulate():
    """One meaning of --agents: `greedy,random` for three seats is
    greedy, random, greedy in `play` as in the first game of `simulate`."""
    from cardc.engine import Game
    from cardc.sim.play import play
    from cardc.project import load_bundle
    from cardc.sim.run import Plan
    game = Game(load_bundle(str(MINI)))
    short = play(game, 3, 5, ["greedy", "random"])
    assert short.actions == play(game, 3, 5, ["greedy", "random", "greedy"]).actions
    assert short.actions != play(game, 3, 5, ["greedy", "random", "random"]).actions
    assert Plan((3,), ("greedy", "random"), 0, None, 100).seating(0) == (3, ("greedy", "random", "greedy"))
    helps = {name: next(a.help for a in s._actions if a.dest == "agents")
             for name, s in commands().items() if name in ("play", "simulate", "sweep")}
    assert all(cli.AGENTS_MEANING in h for h in helps.values()), helps


def test_quit_ends_the_game_with_exit_0(monkeypatch, capsys):
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", str(MINI), "--seed", "1", "--agents", "human"]) == 0
    assert capsys.readouterr().err == "cardc: game left (quit)\n"


def test_options_that_do_nothing_say_so(tmp_path, capsys):
    assert main(["export", str(MINI), "--tts", "--out", str(tmp_path)]) == 0
    assert "note: --tts is not needed" in capsys.readouterr().err
    assert main(["print", str(MINI), "--proof", "--backs", "separate", "--out", str(tmp_path)]) == 0
    assert "note: --backs does nothing with --proof" in capsys.readouterr().err


def test_new_title_is_on_the_cards_backs_guide_and_rulebook(tmp_path, monkeypatch, capsys):
    from pypdf import PdfReader
    monkeypatch.chdir(tmp_path)
    assert main(["new", "space_race", "--title", "Space Race: Two"]) == 0
    assert main(["print", "space_race"]) == 0
    assert main(["rulebook", "space_race", "--format", "md"]) == 0
    out = tmp_path / "generated" / "space_race"
    guide = "".join(p.extract_text() for p in PdfReader(out / "guide.pdf").pages)
    cards = "".join(p.extract_text() for p in PdfReader(out / "cards.pdf").pages)
    assert "Space Race: Two: printing and cutting" in guide and "Mini" not in guide
    assert "SPACE RACE: TWO" in cards and "MINI" not in cards
    assert (out / "rulebook.md").read_text().startswith("# Space Race: Two")


def test_guide_lists_its_sections_and_prints_the_one_named(capsys):
    assert main(["guide"]) == 0
    listing = capsys.readouterr().out
    assert "\n  zones\n    Zone families\n" in listing
    assert main(["guide", "zone", "families"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("#### Zone families\n") and "per:" in out and "### counters" not in out
    assert main(["guide", "menus"]) == 0
    assert capsys.readouterr().out.startswith("### Menus\n")


def test_guide_on_an_unknown_topic_suggests_one(capsys):
    assert main(["guide", "menuz"]) == 2
    assert capsys.readouterr().err == ("cardc: the guide has no section on `menuz` (did you mean `menus`?); "
                                       "`cardc guide` lists them\n")


def test_new_says_where_the_guide_is(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["new", "space_race"]) == 0
    assert "the designer's guide: cardc guide" in capsys.readouterr().out


def test_a_person_repeated_over_the_seats_is_told_how_to_play_one(monkeypatch, capsys):
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", str(MINI), "--seed", "1", "--players", "3", "--agents", "human,greedy"]) == 0
    assert capsys.readouterr().err.startswith(
        "note: the agents repeat over the seats, so human plays P1 and P3; to play one seat, name every "
        "seat, e.g. --agents human,greedy,greedy\n")
