"""Replays, scenarios and command-line values from someone else: each bad
one is one clear line naming the file (or option), the key and what is
allowed, and a non-zero exit; never a traceback."""
from __future__ import annotations

import json

import pytest

from cardc.cli import main
from tests.conftest import MINI


@pytest.fixture(scope="module")
def record(tmp_path_factory):
    log = tmp_path_factory.mktemp("replay") / "game.json"
    assert main(["play", str(MINI), "--players", "2", "--seed", "3", "--quiet", "--log", str(log)]) == 0
    return json.loads(log.read_text())


def _replay(tmp_path, capsys, content: bytes):
    path = tmp_path / "r.json"
    path.write_bytes(content)
    code = main(["replay", str(path), "--bundle", str(MINI), "--quiet"])
    err = capsys.readouterr().err
    return code, err.replace(str(path), "r.json").strip()


def _edit(record, **changes):
    out = dict(record)
    for key, value in changes.items():
        if value is KeyError:
            out.pop(key)
        else:
            out[key] = value
    return json.dumps(out).encode()


CASES = [  # name, change to the record, expected stderr
    ("an out-of-range action", dict(actions=[0, 99]), "cardc: r.json: `actions[1]` is 99, but P"),
    ("a string action", dict(actions=["0"]), 'cardc: r.json: `actions[0]` is "0": it must be a whole number, 0 or more'),
    ("a float action", dict(actions=[1.0]), "cardc: r.json: `actions[0]` is 1.0: it must be a whole number, 0 or more"),
    ("a negative action", dict(actions=[-1]), "cardc: r.json: `actions[0]` is -1: it must be a whole number, 0 or more"),
    ("no seed", dict(seed=KeyError), "cardc: r.json: no `seed`: a replay needs `format`, `game`, `bundle`, `players`, `seed`, `actions`"),
    ("actions null", dict(actions=None), "cardc: r.json: `actions` is null: it must be a list of whole numbers"),
    ("players as text", dict(players="3"), 'cardc: r.json: `players` is "3": it must be a whole number of players, e.g. 3'),
    ("too many players", dict(players=9), "cardc: r.json: `players` is 9, but mini is for 2 to 3 players"),
    ("format 99", dict(format=99), "cardc: r.json: `format` is 99, but this cardc reads replay format 1 only"),
    ("cut short", "half", "cardc: r.json: the replay ends after"),
]


@pytest.mark.parametrize("name, change, expected", CASES, ids=[c[0] for c in CASES])
def test_a_bad_replay_is_one_clear_line(tmp_path, capsys, record, name, change, expected):
    if change == "half":
        content = _edit(record, actions=record["actions"][:len(record["actions"]) // 2])
    else:
        content = _edit(record, **change)
    code, err = _replay(tmp_path, capsys, content)
    assert code == 1
    assert err.startswith(expected), err
    assert "Traceback" not in err and "\n" not in err


@pytest.mark.parametrize("content, expected", [
    (b"[1, 2, 3]", "cardc: r.json: not a replay: it must be a JSON object with format, game, bundle"),
    (b'{"format": 1, "actions": [', "cardc: r.json:1:27: not valid JSON"),
    (b"\x00\xff\xfe binary", "cardc: r.json: not a replay (not UTF-8 text: a binary file?)"),
])
def test_a_file_that_is_no_replay(tmp_path, capsys, content, expected):
    code, err = _replay(tmp_path, capsys, content)
    assert code == 1 and err.startswith(expected), err


def test_a_whole_replay_still_plays(tmp_path, capsys, record):
    code, err = _replay(tmp_path, capsys, json.dumps(record).encode())
    assert code == 0 and err == ""


def test_a_scenario_for_more_players_than_the_game_takes(tmp_path, capsys):
    from tests.conftest import TEMPLATE
    text = (TEMPLATE / "scenarios" / "mini" / "steal.yaml").read_text()
    path = tmp_path / "s.yaml"
    path.write_text(text.replace("players: 2", "players: 99").replace("game: mini", f"game: {MINI}"))
    assert main(["scenario", str(path)]) == 1
    out = capsys.readouterr().out
    assert "`players: 99`: mini is for 2 to 3 players" in out


@pytest.mark.parametrize("argv, expected", [
    (["play", str(MINI), "--players", "0"], "argument --players: 0 is too small: at least 1"),
    (["play", str(MINI), "--players", "9"], "cardc: --players 9: mini is for 2 to 3 players"),
    (["simulate", str(MINI), "--max-decisions", "0"], "argument --max-decisions: 0 is too small: at least 1"),
    (["simulate", str(MINI), "--max-holes", "-1"], "argument --max-holes: -1 is too small: at least 0"),
    (["simulate", str(MINI), "--games", "x"], "argument --games: `x` is not a whole number"),
    (["cards", str(MINI), "--kind", "nope"], "cardc: --kind `nope`: mini has no such kind; its kinds are gem, guard, thief"),
    (["simulate", str(MINI), "--games", "2", "--set", "params.win_at=1e999"], "`1e999` is not a number"),
    (["simulate", str(MINI), "--games", "2", "--set", "params.win_at=nan"], "`nan` is not a number"),
])
def test_a_bad_command_line_value_is_one_clear_line(capsys, argv, expected):
    try:
        code = main(argv)
    except SystemExit as exc:      # argparse: usage line + one error line, exit 2
        code = exc.code
    captured = capsys.readouterr()
    assert code == 2
    assert expected in captured.err, captured.err
    assert "Traceback" not in captured.err
