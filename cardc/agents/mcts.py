"""`mcts`: information-set Monte Carlo tree search for any compiled game.

Single-observer ISMCTS (Cowling, Powley and Whitehouse 2012, as OpenSpiel's
`ismcts.py` does it): one tree over the searching seat's information sets,
and every iteration plays on a fresh guess of the hidden cards
(`SeatView.resample`), so the search averages over the worlds the seat
cannot tell apart and never acts on a card it cannot see.  docs/agents.md
says what it does and why; docs/history/agents.md what was tried before.

* Tree children are keyed by (player, the action's menu position), or
  with `keyed=1` by (player, the action's stable key) (`World.action_keys`,
  the engine's `State.legal_actions`), the same in every guessed world.
  Position is the default because it measured stronger (see DEFAULT_KEYED):
  below a draw, stable keys name the card drawn, which differs in every
  guessed world, so each world grows a subtree of its own.  Which actions
  exist differs between worlds too, so a child's exploration term counts
  how often it was *available* rather than how often its parent was
  visited (Cowling's availability count).
* Each player picks, inside the tree, what is best for itself (UCB1 on its
  own values): opponents are searched as players, not as chance.
* Below the new leaf a playout runs past the turn: `turns` turn ends
  counted from the root's turn (`turns=1`: the end of the root's turn; 0:
  to the end of the game), by random moves (or, a share `mix` of the
  decisions, the deciding seat's one-step best by `eval`), at most `depth`
  decisions a turn.  It is scored by the result if the game ended, else
  by `eval` where the budget cut it.  A game with no `eval` but a value
  fitted from simulated games (`agents: value:`, `cardc fit-value`) is
  scored by that instead, and so is any game with `value=1`.  With
  `eval=0`, or when the game has neither, every playout runs to the end
  and only results count.
* A position's value for seat p is 1 for a win, 0 for a loss (1/k each for
  a win shared by k), and otherwise 0.5 + 0.4 tanh(margin / scale), where
  margin is p's eval minus the best rival's and scale is the typical margin
  this agent has seen so far: scale-free, so one exploration constant fits
  every game.  A result reached by playing to the end is shrunk towards
  0.5 by 2% a decision (DISCOUNT): a sooner win is a surer win.
* `mcts:ITER:DEPTH:FOLLOW`: DEPTH caps the decisions a turn of an iteration
  plays; FOLLOW > 0 scores a leaf cut by DEPTH only after the follow-up
  decisions its action sets off (greedy's `follow_through`).  Named
  settings: `turns=`, `eval=0|1`, `value=0|1`, `c=` (exploration), `mix=`
  (share of playout decisions taken by the one-step best).
* Each guessed world is searched ITERATIONS_PER_WORLD times on average (a
  copy is far cheaper than a guess).
* The move played is the root's most visited action (ties: the higher value,
  then the earlier in the menu).  The budget is iterations, not seconds, and
  all randomness comes from the agent's own seeded generator, so a seed
  gives the same game on any machine and any number of workers.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from cardc.agents.basic import Agent, follow_through

#: iterations per decision, and the most decisions a turn of an iteration
#: plays (the end of the turn comes first in every shipped game), by default
DEFAULT_ITERATIONS = 300
DEFAULT_DEPTH = 40
#: turn ends a playout runs to, counted from the root's turn (0: the game's end)
DEFAULT_TURNS = 1
#: exploration constant of UCB1 on values in [0, 1]
EXPLORATION = 0.5
#: a playout to the end of the game never plays more than this many decisions
PLAYOUT_LIMIT = 5000
#: a position not yet decided is worth 0.5 +- this: strictly between a loss
#: (0) and a win (1), so that a sure win is always worth more than a lead
POSITION_RANGE = 0.4
#: each decision between now and a result shrinks it towards 0.5 by this
#: factor: a win now is worth more than the same win three moves later
DISCOUNT = 0.98
#: what each decision a player takes before the horizon costs it, in value
#: (a share of a win), `cost=`: a tie-break so that of two lines `eval`
#: cannot tell apart the one with fewer moves is taken (pass, rather than
#: draw two cards and discard the one kept).  Off by default: it also takes
#: the moves whose worth shows only after the turn (buying a share at its
#: price is a tie with passing), and cost 9 points of wins against greedy
#: at ipo (160 games, docs/agents.md)
DECISION_COST = 0.0
#: tree children keyed by the action's stable key (1) or its menu position
#: (0), `keyed=`.  Positions by default: on the same 160 deals against
#: greedy, keyed by position (no cost) won ipo 80.0% and startup 84.4%,
#: keyed by stable key 69.4% (ipo; with the cost 60.6% and 75.0%): pooling
#: by position shares what is learnt below a draw, where stable keys split
#: the tree by the card drawn in each guessed world (docs/agents.md)
DEFAULT_KEYED = 0
#: world steps a leaf's action may spend on its follow-up decisions before
#: the leaf is scored (`mcts:ITER:DEPTH:FOLLOW`; 0: scored at once)
DEFAULT_FOLLOW = 0

#: iterations per guessed world: a guess costs several times a copy of one,
#: so each guess is searched a few times (OpenSpiel's `max_world_samples`)
ITERATIONS_PER_WORLD = 4


class Node:
    """The statistics of one edge of the tree (from the view of the player
    who took it) and the children below it, keyed by (player, action key).
    `keys` keeps the action keys of the decision below this edge in each
    guessed world (by the world's number): a world and the keys taken from
    the root fix the state (the engine is deterministic), so the keys are
    worked out once a world, not once an iteration."""
    __slots__ = ("children", "visits", "total", "avail", "keys")

    def __init__(self):
        self.children = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 0
        self.keys = {}


@dataclass(frozen=True)
class Horizon:
    """Where one decision's iterations stop: at the start of turn `stop_turn`
    (None: the game's end), after `cap` decisions at most; `scored` says
    whether a cut position is scored by `eval` (else it counts as a draw)."""
    stop_turn: int | None
    cap: int
    scored: bool

    def reached(self, world, steps: int) -> bool:
        return (world.terminal or steps >= self.cap
                or (self.stop_turn is not None and world.turn >= self.stop_turn))


class MCTSAgent(Agent):
    name = "mcts"
    settings = ("iterations", "depth", "follow")
    named = {"turns": int, "eval": int, "c": float, "mix": float, "cost": float, "keyed": int, "value": int}

    def __init__(self, seed: int = 0, iterations: int = DEFAULT_ITERATIONS, depth: int = DEFAULT_DEPTH,
                 follow: int = DEFAULT_FOLLOW, exploration: float = EXPLORATION, *,
                 turns: int = DEFAULT_TURNS, eval: int = 1, c: float | None = None, mix: float = 0.0,
                 cost: float = DECISION_COST, keyed: int = DEFAULT_KEYED, value: int = 0):
        super().__init__(seed)
        self.iterations, self.depth = iterations, depth
        self.c = exploration if c is None else c
        self.follow = follow
        self.turns, self.use_eval, self.mix, self.cost = turns, bool(eval), min(1.0, mix), cost
        self.keyed = bool(keyed)
        self.use_value = bool(value)            # score by the fitted value even where the game has `eval`
        self._fitted = False                    # this search scores by the fitted value (`horizon`)
        self.scale: float | None = None         # the typical eval margin, learnt as it plays
        self._margins, self._leaves = 0.0, 0
        self.root: Node | None = None           # the last search's tree, for a person who asks why

    def horizon(self, view, turn: int) -> Horizon:
        """This decision's horizon (see the module docstring)."""
        self._fitted = view.has_value and (self.use_value or not view.has_eval)
        if not ((view.has_eval or self._fitted) and self.use_eval):
            return Horizon(None, PLAYOUT_LIMIT, False)
        if self.turns == 0:
            return Horizon(None, PLAYOUT_LIMIT, True)
        return Horizon(turn + self.turns, self.depth * self.turns, True)

    def choose(self, view) -> int:
        if len(view.legal_actions()) == 1:
            return 0
        keys = view.action_keys() if self.keyed else list(range(len(view.legal_actions())))
        root = Node()
        rnd = self.rng
        worlds = [view.resample(rnd)]
        horizon = self.horizon(view, worlds[0].turn)
        if self.scale is None:
            self.scale = self._first_scale(worlds[0])
        self._margins, self._leaves = 0.0, 0
        for i in range(self.iterations):
            if i and i % ITERATIONS_PER_WORLD == 0:
                worlds.append(view.resample(rnd))
                w = len(worlds) - 1
            elif i % ITERATIONS_PER_WORLD == 0:
                w = 0
            else:
                w = rnd.randrange(len(worlds))
            self._iterate(root, worlds[w].clone(), w, horizon)
        if self._leaves:
            # follow the margins of this game as they grow
            self.scale = max(1.0, 0.5 * self.scale + 0.5 * self._margins / self._leaves)
        self.root = root
        seat = view.seat
        best, best_rank = 0, None
        for a, k in enumerate(keys):
            child = root.children.get((seat, k))
            rank = (child.visits, child.total / child.visits, -a) if child and child.visits else (0, 0.0, -a)
            if best_rank is None or rank > best_rank:
                best, best_rank = a, rank
        return best

    # ------------------------------------------------------------ one iteration
    def _iterate(self, root: Node, world, w: int, horizon: Horizon) -> None:
        """Down the tree by UCB1, one new node, a playout to the horizon, and
        back up with the values of where it stopped (`world`: a copy of
        guessed world number `w`)."""
        rnd, c = self.rng, self.c
        node, path, steps = root, [], 0
        acted = [0] * world.players             # decisions each player took (its options: 2+)
        while True:
            if horizon.reached(world, steps):
                values = self._values(world, horizon.scored)
                break
            n = world.n_actions
            if n == 1:
                world.apply(0)
                continue
            p = world.player
            children = node.children
            keys = node.keys.get(w)
            if keys is None:
                keys = node.keys[w] = world.action_keys() if self.keyed else range(world.n_actions)
            untried = []
            for a, k in enumerate(keys):
                child = children.get((p, k))
                if child is None:
                    untried.append(a)
                else:
                    child.avail += 1
            if untried:
                a = untried[rnd.randrange(len(untried))]
                child = children[(p, keys[a])] = Node()
                child.avail = 1
                path.append((child, p))
                steps += 1
                acted[p] += 1
                world = self._step(world, a, steps >= horizon.cap)
                values, used = self._playout(world, horizon, steps, acted)
                steps += used
                break
            best, best_u = None, -math.inf
            for a, k in enumerate(keys):
                child = children[(p, k)]
                u = child.total / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
                if u > best_u:
                    best, best_u = a, u
            assert best is not None             # every key has a child, and u > -inf
            node = children[(p, keys[best])]
            path.append((node, p))
            steps += 1
            acted[p] += 1
            world = self._step(world, best, steps >= horizon.cap)
        # a position cut by the horizon is not discounted: every one sits at
        # the same point (a game played out: a sooner win is a surer win)
        discount = DISCOUNT ** steps if horizon.stop_turn is None else 1.0
        cost = self.cost
        for child, p in path:
            child.visits += 1
            child.total += 0.5 + (values[p] - 0.5) * discount - cost * acted[p]

    def _step(self, world, action: int, last: bool):
        """`action` taken; on the last decision an iteration may take, the
        engine need not work out the next menu (and with FOLLOW the action's
        follow-ups are played first)."""
        if last and self.follow:
            return self._last_step(world, action)
        world.apply(action, last=last)
        return world

    def _last_step(self, world, action: int):
        """The world a leaf is scored on: `action` taken, then the follow-up
        decisions it sets off, each by the deciding seat's one-step greedy
        choice (greedy's `follow_through`, at most `follow` steps), so that a
        leaf is not scored halfway through an action (its cost paid, its
        gain still a question away)."""
        root = world.place()
        world.apply(action, last=True)
        return follow_through(world, root, [self.follow - 1])

    def _playout(self, world, horizon: Horizon, steps: int, acted: list) -> tuple[list, int]:
        """Moves by the playout policy until the horizon (see the module
        docstring): the values where it stopped and the decisions it took
        (each counted in `acted` for the player who took it)."""
        rnd, start = self.rng, steps
        mix = self.mix if horizon.scored else 0.0
        while not horizon.reached(world, steps):
            n = world.n_actions
            if n == 0:                      # stopped at a menu by a `last` step
                break
            if n == 1:
                world.apply(0)
                continue
            steps += 1
            acted[world.player] += 1
            last = steps >= horizon.cap
            if mix and rnd.random() < mix:
                world = self._one_step_best(world, n, last)
            else:
                world.apply(rnd.randrange(n), last=last)
        return self._values(world, horizon.scored), steps - start

    def _one_step_best(self, world, n: int, last: bool):
        """The world after the deciding seat's best option by `eval` one step
        ahead (ties: the first); the world returned may be a copy."""
        p = world.player
        best, best_value = None, None
        for a in range(n):
            w = world if a == n - 1 else world.clone()
            w.apply(a, last=True)
            value = float("inf") if w.terminal and p in w.winners else self._eval(w, p)
            if best_value is None or value > best_value:
                best, best_value = (w, a), value
        assert best is not None                 # n >= 1
        w, _ = best
        if not last:
            w.carry_on()
        return w

    # ------------------------------------------------------------ values
    def _values(self, world, scored: bool = True) -> list:
        """Each seat's value of `world`, in [0, 1] (see the module docstring);
        a position not scored by `eval` is 0.5 for everyone."""
        players = world.players
        if world.terminal:
            winners = world.winners
            share = 1.0 / len(winners) if winners else 0.0
            return [share if p in winners else 0.0 for p in range(players)]
        if not scored:
            return [0.5] * players
        evals = self._evals(world)
        scale = self.scale
        out = []
        for p in range(players):
            margin = evals[p] - max(evals[q] for q in range(players) if q != p)
            self._margins += abs(margin)
            out.append(0.5 + POSITION_RANGE * math.tanh(margin / scale))
        self._leaves += players
        return out

    def _evals(self, world) -> list:
        """Every seat's `eval` of `world`, or its fitted value (`horizon`)."""
        if self._fitted:
            return world.values()
        return [world.evaluate(p) for p in range(world.players)]

    def _eval(self, world, p: int) -> float:
        """Seat p's `eval` of `world`, or its fitted value (`horizon`)."""
        return world.values()[p] if self._fitted else world.evaluate(p)

    def _first_scale(self, world) -> float:
        """A first guess of the typical margin: the seats' evals spread now."""
        if world.terminal:
            return 1.0
        evals = self._evals(world)
        mean = sum(evals) / len(evals)
        return max(1.0, sum(abs(e - mean) for e in evals) / len(evals))


class EliteAgent(MCTSAgent):
    """`elite`: mcts at twice its budget (the top rung of the ladder, as
    TAG's elite MCTS is its tuned search at full budget)."""
    name = "elite"

    def __init__(self, seed: int = 0, iterations: int = 2 * DEFAULT_ITERATIONS, *args, **named):
        super().__init__(seed, iterations, *args, **named)
