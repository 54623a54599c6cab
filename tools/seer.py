"""How far search can go when hidden information is no obstacle: `seer` is
the mcts agent searching on copies of the real game, so it knows every
hidden card and every coming shuffle (clairvoyant), with any of mcts's
settings (`seer:3000:turns=0`).  A measurement, not an agent: it breaks
the rule that an agent sees only its seat, so it lives here and nowhere in
cardc.  It bounds what an mcts of the same budget and horizon can reach by
guessing the hidden cards better (the agents issue's "show it with an agent
that sees every card").

    .venv/bin/python tools/seer.py ipo --players 2 --agents seer,greedy --games 160 --seed 11

Everything after the game is `cardc simulate`'s (one process: `--jobs 1`).
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cardc.agents import AGENTS, TUNED  # noqa: E402
from cardc.agents.mcts import MCTSAgent  # noqa: E402
from cardc.agents.view import SeatView, World  # noqa: E402


class SeerView(SeatView):
    """A seat's view that holds a copy of the real game: `resample` gives
    copies of it, hidden cards, deck order and random seed included."""
    __slots__ = ()

    def __init__(self, state, seat: int, rnd=None):
        self._guess, self.seat, self._lent = state.clone(), seat, None

    def resample(self, rnd) -> World:
        return World(self._guess.clone())


class SeerAgent(MCTSAgent):
    name = "seer"

    def act(self, state, seat=None):
        if seat is None:
            raise TypeError("seer plays from the real game: act(state, seat)")
        if len(state.pending.values) == 1:
            return 0
        return self.choose(SeerView(state, seat))


def main(argv: list) -> int:
    import cardc.agents as agents
    AGENTS["seer"] = SeerAgent
    agents.TUNED = TUNED + ("seer",)      # `seer` plays with the game's tuned mcts settings
    from cardc.cli import main as cardc_main
    return cardc_main(["simulate", *argv, "--jobs", "1"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
