"""`mcts`: information-set Monte Carlo tree search for any compiled game.

Single-observer ISMCTS (Cowling, Powley and Whitehouse 2012, as OpenSpiel's
`ismcts.py` does it): one tree over the searching seat's information sets,
and every iteration plays on a fresh guess of the hidden cards
(`SeatView.resample`), so the search averages over the worlds the seat
cannot tell apart and never acts on a card it cannot see.

* Nodes are reached by the actions taken from the root, keyed by (player,
  action number).  Which actions exist differs between guessed worlds, so a
  child's exploration term counts how often it was *available* rather than
  how often its parent was visited (Cowling's availability count).
* Each player picks, inside the tree, what is best for itself (UCB1 on its
  own values): opponents are searched as players, not as chance.
* When the game has an `eval`, the position a new leaf reaches is scored at
  once with it (ROLLOUT = 0: no random moves below the tree), and the tree
  itself stops growing after `depth` decisions (forced moves not counted).
  Random moves before the score only add noise: on startup, mcts:200 against
  greedy won 65/100 with random rollouts to depth 6 and 28/40 without, and
  the saved work buys more iterations (mcts:400 without rollouts: 36/40).
  A game without an `eval` is played out to its end by random moves.
* A position's value for seat p is 1 for a win, 0 for a loss (1/k each for
  a win shared by k), and otherwise 0.5 + 0.4 tanh(margin / scale), where
  margin is p's eval minus the best rival's and scale is the typical margin
  this agent has seen so far: scale-free, so one constant of exploration fits
  every game.  Each decision between the root and the result shrinks it
  towards 0.5 by 2% (DISCOUNT): a sooner win is a surer win.
* `mcts:ITER:DEPTH:FOLLOW` (FOLLOW > 0) scores a leaf only after the
  follow-up decisions its action sets off (greedy's `follow_through`, at
  most FOLLOW world steps).  Off by default: at unicorn (3p, one seat
  against two greedy, 90 games) it won 42.2% against 40.0%, at ipo 55%
  against 60% (20 games), within noise, for 10-35% more time; the tree
  already plays follow-ups as its own nodes.
* Each guessed world is searched ITERATIONS_PER_WORLD times on average (a
  copy is far cheaper than a guess); iteration i plays on guess i/4 first,
  then on a copy of a guess drawn at random among those made so far.
* The move played is the root's most visited action (ties: the higher value,
  then the lower number).  The budget is iterations, not seconds, and all
  randomness comes from the agent's own seeded generator, so a seed gives the
  same game on any machine and any number of workers.
"""
from __future__ import annotations

import math
import os

from cardc.agents.basic import Agent, action_value, follow_through

#: iterations per decision and the depth of the tree, by default (300: the
#: most that stays under 0.25 CPU s a decision on every shipped game)
DEFAULT_ITERATIONS = 300
DEFAULT_DEPTH = 6
#: exploration constant of UCB1 on values in [0, 1]
EXPLORATION = 0.5
#: a game without `eval` is played out, but never for more than this many decisions
PLAYOUT_LIMIT = 5000
#: a position not yet decided is worth 0.5 +- this: strictly between a loss
#: (0) and a win (1), so that a sure win is always worth more than a lead
POSITION_RANGE = 0.4
#: each decision between now and a result shrinks it towards 0.5 by this
#: factor: a win now is worth more than the same win three moves later
DISCOUNT = 0.98
#: random decisions at most below the tree before a position is scored by
#: `eval` (a game without `eval` is always played out)
ROLLOUT = 0

#: world steps a leaf's action may spend on its follow-up decisions before
#: the leaf is scored (`mcts:ITER:DEPTH:FOLLOW`; 0: scored at once)
DEFAULT_FOLLOW = 0

#: iterations per guessed world: a guess costs several times a copy of one,
#: so each guess is searched a few times (OpenSpiel's `max_world_samples`)
ITERATIONS_PER_WORLD = 4


class Node:
    """The statistics of one edge of the tree (from the view of the player
    who took it) and the children below it."""
    __slots__ = ("children", "visits", "total", "avail", "policy")

    def __init__(self):
        self.children = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 0
        self.policy = None          # (n, action) of a modelled rival deciding here


class MCTSAgent(Agent):
    name = "mcts"
    settings = ("iterations", "depth", "follow")

    def __init__(self, seed: int = 0, iterations: int = DEFAULT_ITERATIONS, depth: int = DEFAULT_DEPTH,
                 follow: int = DEFAULT_FOLLOW, exploration: float = EXPLORATION):
        super().__init__(seed)
        self.iterations, self.depth, self.c = iterations, depth, exploration
        self.follow = follow
        self.rollout = ROLLOUT
        self.scale = None                       # the typical eval margin, learnt as it plays
        self._margins, self._leaves = 0.0, 0
        # experiment switches (pilots only)
        self.rivals = "ucb"         # ucb | greedy | greedy1
        self.prior = 0.0            # progressive-bias weight at the root from greedy's values
        self.rfollow = 24
        self.leaf = "now"           # now | turn (score when the root's turn is over)
        self.tpol = "random"        # default policy below the tree in leaf=turn: random | greedy
        self.tcap = 40
        for item in filter(None, os.environ.get("CARDC_MCTS_X", "").split(",")):
            k, v = item.split("=")
            setattr(self, k, type(getattr(self, k))(v))

    def choose(self, view) -> int:
        n = len(view.legal_actions())
        if n == 1:
            return 0
        depth = self.depth if view.has_eval else PLAYOUT_LIMIT
        rollout = self.rollout if view.has_eval else PLAYOUT_LIMIT
        root = Node()
        rnd = self.rng
        if self.scale is None:
            self.scale = self._first_scale(view.resample(rnd))
        self._margins, self._leaves = 0.0, 0
        worlds = []
        if self.prior:
            first = view.resample(rnd)
            worlds.append(first)
            place = first.place()
            for a in range(n):
                w = first.clone()
                w.apply(a, last=True)
                w = follow_through(w, place, [self.rfollow - 1])
                child = root.children[(view.seat, a)] = Node()
                k = self.prior
                child.visits, child.avail, child.total = k, k, k * self._values(w)[view.seat]
        for i in range(self.iterations):
            if i % ITERATIONS_PER_WORLD == 0 and not (i == 0 and worlds):
                worlds.append(view.resample(rnd))
                world = worlds[-1].clone()
            else:
                world = worlds[rnd.randrange(len(worlds))].clone()
            self._iterate(root, world, depth, rollout, view.seat)
        if self._leaves:
            # follow the margins of this game as they grow
            self.scale = max(1.0, 0.5 * self.scale + 0.5 * self._margins / self._leaves)
        seat = view.seat
        best, key = 0, None
        for a in range(n):
            child = root.children.get((seat, a))
            k = (child.visits, child.total / child.visits, -a) if child and child.visits else (0, 0.0, -a)
            if key is None or k > key:
                best, key = a, k
        return best

    # ------------------------------------------------------------ one iteration
    def _iterate(self, root: Node, world, depth: int, rollout: int, seat: int) -> None:
        rnd, c = self.rng, self.c
        node, path, steps = root, [], 0
        model = self.rivals != "ucb"
        turnmode = self.leaf == "turn"
        if turnmode:
            depth = self.tcap
            t0 = world.turn
        while True:
            if world.terminal:
                values = self._values(world)
                break
            if turnmode and world.turn != t0:
                values = self._values(world)
                break
            if steps >= depth:
                values = self._values(world)
                break
            n = world.n_actions
            if n == 1:
                world.apply(0)
                continue
            p = world.player
            children = node.children
            if model and p != seat:
                pol = node.policy
                if pol is None or pol[0] != n:
                    pol = node.policy = (n, self._rival_choice(world, p))
                a = pol[1]
                child = children.get((p, a))
                if child is None:
                    child = children[(p, a)] = Node()
                node = child
                path.append((child, p))
                steps += 1
                world.apply(a, last=steps >= depth and not turnmode)
                continue
            untried = []
            for a in range(n):
                child = children.get((p, a))
                if child is None:
                    untried.append(a)
                else:
                    child.avail += 1
            if untried:
                a = untried[rnd.randrange(len(untried))]
                child = children[(p, a)] = Node()
                child.avail = 1
                path.append((child, p))
                steps += 1
                if turnmode:
                    world.apply(a)
                    values, used = self._turn_out(world, t0, depth - steps, seat)
                    steps += used
                    break
                left = min(depth - steps, rollout)
                if left <= 0 and self.follow:
                    world = self._last_step(world, a)
                else:
                    world.apply(a, last=left <= 0)      # scored at once: no menu needed
                values, used = self._rollout(world, left)
                steps += used
                break
            best, best_u = None, -1.0
            for a in range(n):
                child = children[(p, a)]
                u = child.total / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
                if u > best_u:
                    best, best_u = a, u
            node = children[(p, best)]
            path.append((node, p))
            steps += 1
            if turnmode:
                world.apply(best)
            elif steps >= depth and self.follow:
                world = self._last_step(world, best)
            else:
                world.apply(best, last=steps >= depth)
        discount = DISCOUNT ** steps
        for child, p in path:
            child.visits += 1
            child.total += 0.5 + (values[p] - 0.5) * discount

    def _turn_out(self, world, t0: int, left: int, seat: int) -> tuple[list, int]:
        """Play on by the default policy until the turn is no longer t0."""
        rnd, start = self.rng, left
        while left > 0 and not world.terminal and world.turn == t0:
            n = world.n_actions
            if n == 1:
                world.apply(0)
                continue
            left -= 1
            if self.tpol == "greedy":
                world.apply(self._rival_choice(world, world.player))
            else:
                world.apply(rnd.randrange(n))
        return self._values(world), start - left

    def _rival_choice(self, world, p: int) -> int:
        """A modelled rival's move: greedy's choice (through `rfollow` steps)."""
        place = world.place()
        n = world.n_actions
        best, best_value = 0, None
        for b in range(n):
            value = action_value(world.clone(), b, p, place, [self.rfollow])
            if best_value is None or value > best_value:
                best, best_value = b, value
        return best

    def _last_step(self, world, action: int):
        """The world a leaf is scored on: `action` taken, then the follow-up
        decisions it sets off, each by the deciding seat's one-step greedy
        choice (greedy's `follow_through`, at most `follow` steps), so that a
        leaf is not scored halfway through an action (its cost paid, its
        gain still a question away)."""
        root = world.place()
        world.apply(action, last=True)
        return follow_through(world, root, [self.follow - 1])

    def _rollout(self, world, left: int) -> tuple[list, int]:
        """Random play for `left` more decisions (or to the end): the values
        and the decisions it took."""
        rnd, start = self.rng, left
        while left > 0 and not world.terminal:
            n = world.n_actions
            if n == 0:                      # stopped at a menu by a `last` step
                break
            if n == 1:
                world.apply(0)
                continue
            left -= 1
            world.apply(rnd.randrange(n), last=left == 0)
        return self._values(world), start - left

    # ------------------------------------------------------------ values
    def _values(self, world) -> list:
        """Each seat's value of `world`, in [0, 1] (see the module docstring)."""
        players = world.players
        if world.terminal:
            winners = world.winners
            share = 1.0 / len(winners) if winners else 0.0
            return [share if p in winners else 0.0 for p in range(players)]
        evals = [world.evaluate(p) for p in range(players)]
        scale = self.scale
        out = []
        for p in range(players):
            margin = evals[p] - max(evals[q] for q in range(players) if q != p)
            self._margins += abs(margin)
            out.append(0.5 + POSITION_RANGE * math.tanh(margin / scale))
        self._leaves += players
        return out

    @staticmethod
    def _first_scale(world) -> float:
        """A first guess of the typical margin: the seats' evals spread now."""
        if world.terminal:
            return 1.0
        evals = [world.evaluate(p) for p in range(world.players)]
        mean = sum(evals) / len(evals)
        return max(1.0, sum(abs(e - mean) for e in evals) / len(evals))
