"""`cardc tune-agent` and a game's `agents:` block: the search agent's
settings tuned for one game, kept in its game.yaml, and what a bare `mcts`
then means for that game."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from cardc.agents import make_agent
from cardc.agents.mcts import MCTSAgent
from cardc.cli import main
from cardc.project import build_folder
from cardc.sim.tune_agent import KNOBS, settings_text, with_agents

FIXTURES = Path(__file__).parent / "fixtures" / "games"
GRAMMAR = Path(__file__).parent.parent / "grammar"


def game_with(tmp_path, block: str) -> Path:
    folder = tmp_path / "guess"
    shutil.copytree(FIXTURES / "guess", folder)
    (folder / "game.yaml").write_text((folder / "game.yaml").read_text() + block)
    return folder


def test_a_bare_mcts_plays_with_the_games_settings(tmp_path):
    built = build_folder(game_with(tmp_path, 'agents:\n  mcts: "c=0.9:mix=0.2"\n'))
    tuned = built.bundle["agents"]
    assert tuned == {"mcts": "c=0.9:mix=0.2"}
    mcts, elite, own = make_agent("mcts", 1, tuned), make_agent("elite", 1, tuned), make_agent("mcts:50", 1, tuned)
    assert (mcts.name, mcts.c, mcts.mix, mcts.iterations) == ("mcts", 0.9, 0.2, 300)
    assert (elite.name, elite.c, elite.iterations) == ("elite", 0.9, 600)
    assert (own.c, own.mix, own.iterations) == (0.5, 0.0, 50)        # settings of its own: as written


def test_a_game_without_the_block_keeps_its_bundle_as_it_was():
    assert "agents" not in build_folder(FIXTURES / "guess").bundle


def test_settings_the_agent_does_not_take_are_a_located_error(tmp_path, capsys):
    folder = game_with(tmp_path, 'agents:\n  mcts: "c=fast"\n')
    assert main(["check", str(folder)]) == 1
    err = capsys.readouterr().err
    assert re.search(r"game\.yaml:\d+:9: error: `mcts` must be named settings joined by colons", err)


def test_the_schema_names_exactly_the_settings_mcts_takes():
    schema = json.loads((GRAMMAR / "game.schema.json").read_text())
    pattern = schema["properties"]["agents"]["properties"]["mcts"]["pattern"]
    assert set(re.search(r"\^\(([a-z|]+)\)", pattern).group(1).split("|")) == set(MCTSAgent.named)
    assert {name for name, *_ in KNOBS} <= set(MCTSAgent.named)


def test_the_block_is_added_or_replaced_and_nothing_else_moves():
    text = "id: g\n# players\nplayers: {min: 2, max: 2}\n"
    once = with_agents(text, "c=0.9:mix=0.1:cost=0.002", "found so")
    assert once == text + 'agents:\n  # found so\n  mcts: "c=0.9:mix=0.1:cost=0.002"\n'
    twice = with_agents(once + "\nscore: 1\n", "c=1.1:mix=0.0:cost=0.0", "again")
    assert twice == text + 'agents:\n  # again\n  mcts: "c=1.1:mix=0.0:cost=0.0"\n\nscore: 1\n'
    flow = with_agents("agents: {mcts: \"c=1\"}\neval: 1", "c=2", "n")
    assert flow == 'agents:\n  # n\n  mcts: "c=2"\neval: 1'


def test_settings_are_written_as_the_schema_takes_them():
    schema = json.loads((GRAMMAR / "game.schema.json").read_text())
    pattern = schema["properties"]["agents"]["properties"]["mcts"]["pattern"]
    for values in ({"c": 0.2, "mix": 0.0, "cost": 0.0}, {"c": 1.99999, "mix": 0.123456, "cost": 0.0000123}):
        assert re.fullmatch(pattern, settings_text(values)), settings_text(values)


def test_tune_agent_reports_its_trials_and_the_confirmation(tmp_path, capsys):
    folder = tmp_path / "remember"
    shutil.copytree(FIXTURES / "remember", folder)
    before = (folder / "game.yaml").read_text()
    out = tmp_path / "t.json"
    assert main(["tune-agent", str(folder), "--trials", "3", "--games", "10", "--confirm", "20",
                 "--iterations", "20", "--json", str(out), "--quiet"]) == 0
    data = json.loads(out.read_text())
    assert len(data["trials"]) >= 2 and data["trials"][0]["games"] == 10
    assert data["in_use"] == "c=0.5:mix=0.0:cost=0.0" and data["in_use"] in data["confirm"]
    assert all(r["games"] == 20 for r in data["confirm"].values())
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("mcts at Remember (2 players, 20 iterations) against greedy, on 20 new deals: ")
    assert (folder / "game.yaml").read_text() == before          # not written without --write
    assert not data["written"]


def test_tune_agent_refuses_a_player_count_the_game_does_not_take(capsys):
    assert main(["tune-agent", str(FIXTURES / "remember"), "--players", "5"]) == 2
    assert "is for 2 to 2 players" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ['agents:\n  mcts: "z=1"\n', 'agents:\n  greedy: "c=1"\n'])
def test_only_mcts_and_its_settings_may_be_kept(tmp_path, bad, capsys):
    assert main(["check", str(game_with(tmp_path, bad))]) == 1
