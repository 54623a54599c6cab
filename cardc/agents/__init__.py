"""Players that are not people: each picks an action from what its seat may
see (a SeatView, cardc/agents/view.py).  `make_agent(spec, seed)` builds one
from its name, with settings after colons: `mcts:400` is mcts with 400
iterations per decision, `mcts:400:12` also cuts an iteration after 12
decisions (`mcts:400:12:8` also scores a leaf so cut after 8 steps of its
action's follow-ups); `greedy:8` caps greedy's look-ahead through an action
at 8 steps an option (`greedy:1`: one step ahead).  Settings may also be
named, in any order after the positional ones: `mcts:300:turns=3:eval=0`
(see each agent's `named` table; docs/agents.md lists them)."""
from cardc.agents.basic import GreedyAgent, OneStepAgent, RandomAgent
from cardc.agents.human import HumanAgent
from cardc.agents.mcts import EliteAgent, MCTSAgent

AGENTS = {"random": RandomAgent, "osla": OneStepAgent, "greedy": GreedyAgent, "mcts": MCTSAgent,
          "elite": EliteAgent, "human": HumanAgent}
#: the ladder `cardc skill` plays by default, weakest first
LADDER = ("random", "osla", "greedy", "mcts", "elite")


def parse_agent(spec: str):
    """(agent class, positional int settings) for a spec such as `mcts:400`;
    ValueError with the agents' names if it names none, or with how to write
    its settings (see `agent_settings`)."""
    cls, values, _ = agent_settings(spec)
    return cls, values


def agent_settings(spec: str):
    """(agent class, positional settings, named settings) for a spec such as
    `mcts:400:turns=3`: the positional ones as ints, the named ones as a
    dict typed by the class's `named` table."""
    name, *settings = spec.strip().split(":")
    cls = AGENTS.get(name)
    if cls is None:
        raise ValueError(f"unknown agent `{spec}`; agents are: {', '.join(AGENTS)}")
    allowed = getattr(cls, "settings", ())
    named_types = getattr(cls, "named", {})
    positional = [s for s in settings if "=" not in s]
    named = {}
    ok = len(positional) <= len(allowed) and all(s.isdigit() and int(s) > 0 for s in positional)
    ok = ok and settings[:len(positional)] == positional        # named ones come last
    for s in settings[len(positional):]:
        key, _, value = s.partition("=")
        kind = named_types.get(key)
        if kind is None:
            ok = False
            break
        try:
            named[key] = kind(value)
        except (TypeError, ValueError):
            ok = False
            break
        if named[key] < 0:
            ok = False
    if not ok:
        how = (f"`{name}:" + ":".join(s.upper() for s in allowed) + "` with positive whole numbers"
               if allowed else f"`{name}` takes no settings")
        if named_types:
            how += ", then any of " + ", ".join(f"`{k}=N`" for k in named_types)
        raise ValueError(f"agent `{spec}`: write {how}")
    return cls, [int(s) for s in positional], named


#: the agents a game's `agents:` block tunes (`mcts` its settings; `elite`
#: the same at its own, twice larger, budget)
TUNED = ("mcts", "elite")


def make_agent(spec: str, seed: int = 0, tuned: dict | None = None):
    """The agent `spec` names, seeded.  `tuned`: the game's `agents:` block
    (the bundle's "agents"): a bare `mcts` or `elite` then plays with the
    settings `cardc tune-agent` found for that game; a spec with settings of
    its own (`mcts:400`) is taken as written."""
    name = spec.strip()
    full = name
    if tuned and name in TUNED and tuned.get("mcts"):
        full = f"{name}:{tuned['mcts']}"
    try:
        cls, settings, named = agent_settings(full)
    except ValueError as exc:
        if full == name:
            raise
        raise ValueError(f"this game's `agents: mcts` settings `{full.partition(':')[2]}`: {exc}") from None
    agent = cls(seed, *settings, **named)
    agent.name = name
    return agent
