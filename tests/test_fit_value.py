"""`cardc fit-value`: a position's value fitted from simulated games, kept in
game.yaml, and scored by mcts where the game has no `eval` (or `value=1`)."""
from __future__ import annotations

import random

import pytest

from cardc.agents import make_agent
from cardc.agents.mcts import MCTSAgent
from cardc.agents.value import feature_names, fitted_value
from cardc.cli import main
from cardc.engine import Game
from cardc.project import build_folder
from cardc.sim.fit_value import Samples, fit, with_agents_entry
from cardc.sim.tune_agent import with_agents


def test_the_fit_weighs_the_feature_that_decides_who_wins():
    """Records where the seat ahead in `a` wins and `b` is noise: `a` gets
    a large positive weight, `b` one near 0, and the held-out leader wins
    far more often than chance."""
    rnd = random.Random(0)
    rows, won, game = [], [], []
    for g in range(300):
        a, b = rnd.gauss(0, 3), rnd.gauss(0, 3)
        p0_wins = rnd.random() < 1 / (1 + 2.718 ** (-1.5 * a))
        for sign, w in ((1, p0_wins), (-1, not p0_wins)):      # two seats: relative features mirror
            rows.append([sign * a, sign * b])
            won.append(1.0 if w else 0.0)
            game.append(g)
    result = fit(Samples(["counter:a", "counter:b"], rows, won, game), players=2)
    assert 1.2 < result.weights["counter:a"] < 1.8        # the log-odds a unit of `a` is worth: 1.5
    assert abs(result.weights["counter:b"]) < 0.15
    assert result.leader_wins > 0.65 and result.log_loss < 0.6 * result.base_loss


def test_fit_value_writes_a_value_that_builds_and_that_mcts_scores_by(game_copy, capsys):
    folder = game_copy()
    assert main(["fit-value", str(folder), "--players", "2", "--games", "12", "--seed", "3",
                 "--write", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "Held out: log loss" in out and "Written to" in out
    text = (folder / "game.yaml").read_text()
    assert "agents:\n  # cardc fit-value mini --players 2" in text and "\n  value:\n    " in text
    built = build_folder(folder)
    assert built.bundle, built.diags.render()
    weights = built.bundle["agents"]["value"]
    assert set(weights) <= set(feature_names(Game(built.bundle)))
    game = Game(built.bundle)
    value = fitted_value(game)
    st = game.new_state(2, seed=1)
    assert value is not None and len(value.all(st)) == 2
    agent = make_agent("mcts:40:value=1", 7)
    seat = st.current_player()
    action = agent.act(st, seat)
    assert agent._fitted and action in range(len(st.legal_actions()))


def test_a_game_without_eval_is_scored_by_its_fitted_value_and_one_with_eval_only_when_asked():
    class View:
        has_eval, has_value = False, True
    plain, asked = MCTSAgent(1, 10), MCTSAgent(1, 10, value=1)
    horizon = plain.horizon(View(), 0)
    assert plain._fitted and horizon.scored            # no eval: the fitted value scores the leaves
    View.has_eval = True
    plain.horizon(View(), 0)
    asked.horizon(View(), 0)
    assert not plain._fitted and asked._fitted
    View.has_value = False
    asked.horizon(View(), 0)
    assert not asked._fitted                           # none fitted: `eval` as before


def test_a_value_weighing_a_feature_the_game_lacks_is_a_located_error(game_copy):
    folder = game_copy(edits={"game.yaml": [("score: worth(p)\n",
                                             "score: worth(p)\nagents:\n  value:\n    counter:gold: 0.5\n"
                                             "    zone:bank: 0.1\n")]})
    built = build_folder(folder)
    assert built.bundle is None
    (error,) = built.diags.errors
    assert error.message.startswith("`agents: value:` weighs `counter:gold`, which is not a feature")
    assert error.loc.line > 1 and str(error.loc).endswith(f":{error.loc.line}:{error.loc.col}")


def test_a_weight_is_written_as_a_number_yaml_reads_back():
    """YAML 1.1 reads `5e-06` as text: a small weight is written `0.000005`."""
    import yaml

    from cardc.sim.fit_value import with_value
    weights = {"counter:money": 5e-06, "fn:net_worth": 0.000126123456, "zone:rack": -3.0, "score": 0.0}
    back = yaml.safe_load(with_value("id: g\n", weights, "n"))["agents"]["value"]
    assert back == pytest.approx(weights, rel=1e-5) and all(type(v) is float for v in back.values())


@pytest.mark.parametrize("first, second", [("value", "mcts"), ("mcts", "value")])
def test_writing_one_entry_of_agents_keeps_the_other(first, second):
    text = "id: g\nagents:\n  # tuned\n  mcts: \"c=0.9\"\neval: 1\n"
    value = ["  # fitted\n", "  value:\n", "    score: 0.5\n"]
    once = with_agents_entry(text, "value", value) if first == "value" else with_agents(text, "c=1.1", "again")
    twice = with_agents(once, "c=1.2", "third") if second == "mcts" else with_agents_entry(once, "value", value)
    assert twice.count("value:") == 1 and twice.count("mcts:") == 1 and twice.endswith("eval: 1\n")
    assert "# fitted\n  value:\n    score: 0.5\n" in twice
