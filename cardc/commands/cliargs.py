"""Types of command-line values: argparse refuses a bad one with one line
naming the option and what it takes (`--max-decisions 0`, `--max-holes -1`)."""
from __future__ import annotations

import argparse

# One meaning of --agents wherever a game's seats are filled from a list
# (`play`, `simulate`, `sweep`).
AGENTS_MEANING = "seat by seat, the list repeating when there are more seats than agents"


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"`{text}` is not a whole number") from None


def at_least(low: int):
    """A whole number `low` or more."""
    def value(text: str) -> int:
        n = _whole(text)
        if n < low:
            raise argparse.ArgumentTypeError(f"{n} is too small: at least {low}")
        return n
    value.__name__ = f"whole number >= {low}"
    return value


positive = at_least(1)
not_negative = at_least(0)


def agent_spec(text: str) -> str:
    """An agent's name with its settings (`greedy`, `mcts:400`); not `human`,
    which would wait for a person."""
    from cardc.agents import parse_agent
    try:
        cls, _ = parse_agent(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if text.strip().split(":")[0] == "human":
        raise argparse.ArgumentTypeError("`human` waits for a person: time a bot")
    return text.strip()
