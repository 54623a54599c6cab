"""`cardc bench` works where no anchors lie beside it (an installed cardc):
the reference engine is looked for only when `--anchor` asks for it."""
import statistics

import cardc.sim.bench as bench_module
from conftest import MINI


def test_bench_needs_no_anchor_script_unless_asked(monkeypatch, capsys):
    def nowhere():
        raise SystemExit("cardc bench: no ../shared/bench/anchors/anchors.py found")
    monkeypatch.setattr(bench_module, "default_anchor_script", nowhere)
    assert bench_module.bench([str(MINI)], games_per=2, players=2, seconds=0,
                              agent="greedy") == 0
    out = capsys.readouterr().out
    assert "greedy cost x random" in out and "mini" in out



def test_anchored_ratio_is_the_median_of_slices_against_their_neighbours(monkeypatch):
    """Each slice of the game is divided by the mean of the reference runs
    either side of it; a slice that met a burst of other work (here the
    reference ran at half speed once) does not move the median."""
    speeds = iter([100.0, 100.0, 100.0, 50.0, 100.0, 100.0])
    seeds = []

    def fake_anchor(python, script, seconds):
        v = next(speeds)
        return {"decisions_per_s": v, "decisions_per_cpu_s": v}

    def fake_measure(game, n, seconds, games=0, agent="random", seed0=0):
        seeds.append(seed0)
        return {"games": 3, "seconds": 1.0, "games_per_s": 3.0, "decisions_per_s": 100.0,
                "decisions_per_cpu_s": 100.0, "decisions_per_game": 33.3, "turns_per_game": 5.0,
                "capped": 0}
    monkeypatch.setattr(bench_module, "run_anchor", fake_anchor)
    monkeypatch.setattr(bench_module, "measure", fake_measure)
    anchors = [fake_anchor(None, None, 0)]
    r, wall, cpu = bench_module.anchored(None, 2, 5, 0, "python", "script", 5, anchors)
    assert [round(w, 3) for w in wall] == [1.0, 1.0, 1.333, 1.333, 1.0] == [round(c, 3) for c in cpu]
    assert statistics.median(wall) == 1.0
    assert seeds == [0, 3, 6, 9, 12]          # the slices play new games, not the same ones
    assert r["games"] == 15 and r["decisions_per_s"] == 100.0 and r["seconds"] == 5.0


def test_random_games_draw_what_randrange_draws(mini_game):
    """The bench's random player draws its actions as `randrange(n)` would,
    seed for seed (its rejection sampling is written in the loop, for
    speed): the games it plays, and what a designer reads of them, are
    those of `random.Random(seed).randrange`."""
    import random
    for seed in range(20):
        st = mini_game.new_state(2, seed=seed)
        rnd = random.Random(seed)
        while not st.terminal:
            st.apply(rnd.randrange(len(st.pending.values)))
        assert bench_module.random_game(mini_game, 2, seed).history == st.history
