"""Players that are not people: each picks an action from what its seat may
see (a SeatView, cardc/agents/view.py).  `make_agent(spec, seed)` builds one
from its name, with settings after colons: `mcts:400` is mcts with 400
iterations per decision, `mcts:400:12` also cuts an iteration after 12
decisions, if its turn is not over first (`mcts:400:12:8` also scores a
leaf so cut after 8 steps of its action's follow-ups); `greedy:8` caps greedy's look-ahead through an
action at 8 steps an option (`greedy:1`: one step ahead)."""
from cardc.agents.basic import GreedyAgent, RandomAgent
from cardc.agents.human import HumanAgent
from cardc.agents.mcts import MCTSAgent

AGENTS = {"random": RandomAgent, "greedy": GreedyAgent, "mcts": MCTSAgent, "human": HumanAgent}


def parse_agent(spec: str):
    """(agent class, int settings) for a spec such as `mcts:400`; ValueError
    with the agents' names if it names none."""
    name, *settings = spec.strip().split(":")
    cls = AGENTS.get(name)
    if cls is None:
        raise ValueError(f"unknown agent `{spec}`; agents are: {', '.join(AGENTS)}")
    allowed = getattr(cls, "settings", ())
    if len(settings) > len(allowed) or not all(s.isdigit() and int(s) > 0 for s in settings):
        how = (f"`{name}:" + ":".join(s.upper() for s in allowed) + "` with positive whole numbers"
               if allowed else f"`{name}` takes no settings")
        raise ValueError(f"agent `{spec}`: write {how}")
    return cls, [int(s) for s in settings]


def make_agent(spec: str, seed: int = 0):
    cls, settings = parse_agent(spec)
    agent = cls(seed, *settings)
    agent.name = spec.strip()
    return agent
