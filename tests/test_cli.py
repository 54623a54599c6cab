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
