"""Players that are not people: each picks an action index from what its
seat may see.  `make_agent(name, seed)` builds one by name."""
from cardc.agents.basic import GreedyAgent, RandomAgent
from cardc.agents.human import HumanAgent

AGENTS = {"random": RandomAgent, "greedy": GreedyAgent, "human": HumanAgent}


def make_agent(name: str, seed: int = 0):
    try:
        return AGENTS[name](seed)
    except KeyError:
        raise ValueError(f"unknown agent `{name}`; agents are: {', '.join(AGENTS)}") from None
