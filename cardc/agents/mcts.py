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
* When the game has an `eval`, every iteration is scored at one kind of
  point: once the turn the root decision is asked in is over.  Below the new
  leaf the rest of that turn is played by random moves (`depth` decisions at
  most from the root, 40 by default: every shipped turn ends first), then
  `eval` scores where it stopped.  So every leaf is compared with every
  other at the same point of the game, with the turn's own choices
  (a card's target, the shares of a buy) and the rivals' answers inside it
  played.  Why: scored at once after the tree's last move, as before, a
  leaf sat after one's own move at one depth and after a rival's at the
  next, or halfway through a turn (its cost paid, its gain a question
  away), and those margins do not compare.  More search made it worse: at
  ipo mcts:50 beat mcts (300) 65% of 20 games.  Against greedy, the same 20
  games (seed 1): ipo 30% scored at once, 85% at the turn's end; startup
  75% and 70%.  Tried and left (with the old discount below, ipo 75% and
  startup 45% without them): a one-step greedy policy below the tree
  instead of random moves (ipo 65%, 1.8x the time; startup 50%); scoring
  after three turns at unicorn (a round at 3 players: 34% against 40%,
  90 games).  At unicorn with three players (eighth session, one mcts seat
  against two greedy, the same 90 games, 40% shipped) none of these moved
  the rate out of its interval: the rivals' two turns after the root's
  played by greedy before the score (40% of 45, 80 iterations), the rest
  of the turn by greedy, greedy's value as a root prior, the margin over
  the rivals' mean, exploration 0.25 or 1, a guess every iteration, the
  tanh scale halved or doubled, 1,200 iterations (37%); nor seeing every
  card (a diagnostic: 44%).
  Above greedy that game has little skill left to buy (docs/history/agents.md).
  A game without an `eval` is played out to its end by random moves.
* A position's value for seat p is 1 for a win, 0 for a loss (1/k each for
  a win shared by k), and otherwise 0.5 + 0.4 tanh(margin / scale), where
  margin is p's eval minus the best rival's and scale is the typical margin
  this agent has seen so far: scale-free, so one constant of exploration fits
  every game.  A leaf at the end of the turn is taken as it is: every one
  sits at the same point.  (Shrunk towards 0.5 by 2% a decision, as before,
  a line that played more of its turn was worth less for that alone, which
  is likely why mcts at startup then won 45% against greedy; 70% without,
  and ipo 75% -> 85%, the same 20 games.)  In a
  game played out to its end each decision between the root and the result
  shrinks it by 2% (DISCOUNT): a sooner win is a surer win.
* `mcts:ITER:DEPTH:FOLLOW`: DEPTH caps the decisions an iteration plays
  (`mcts:300:6`, the old default spec, cuts a long turn after 6 and scores
  it there); FOLLOW > 0 scores a leaf cut so only after the follow-up
  decisions its action sets off (greedy's `follow_through`, at most FOLLOW
  world steps).
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

from cardc.agents.basic import Agent, follow_through

#: iterations per decision, and the most decisions an iteration plays from
#: the root before it is scored (the end of the turn comes first in every
#: shipped game), by default
DEFAULT_ITERATIONS = 300
DEFAULT_DEPTH = 40
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
#: world steps a leaf's action may spend on its follow-up decisions before
#: the leaf is scored (`mcts:ITER:DEPTH:FOLLOW`; 0: scored at once)
DEFAULT_FOLLOW = 0

#: iterations per guessed world: a guess costs several times a copy of one,
#: so each guess is searched a few times (OpenSpiel's `max_world_samples`)
ITERATIONS_PER_WORLD = 4


class Node:
    """The statistics of one edge of the tree (from the view of the player
    who took it) and the children below it."""
    __slots__ = ("children", "visits", "total", "avail")

    def __init__(self):
        self.children = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 0


class MCTSAgent(Agent):
    name = "mcts"
    settings = ("iterations", "depth", "follow")

    def __init__(self, seed: int = 0, iterations: int = DEFAULT_ITERATIONS, depth: int = DEFAULT_DEPTH,
                 follow: int = DEFAULT_FOLLOW, exploration: float = EXPLORATION):
        super().__init__(seed)
        self.iterations, self.depth, self.c = iterations, depth, exploration
        self.follow = follow
        self.scale = None                       # the typical eval margin, learnt as it plays
        self._margins, self._leaves = 0.0, 0

    def choose(self, view) -> int:
        n = len(view.legal_actions())
        if n == 1:
            return 0
        depth = self.depth if view.has_eval else PLAYOUT_LIMIT
        root = Node()
        rnd = self.rng
        if self.scale is None:
            self.scale = self._first_scale(view.resample(rnd))
        self._margins, self._leaves = 0.0, 0
        worlds = []
        for i in range(self.iterations):
            if i % ITERATIONS_PER_WORLD == 0:
                worlds.append(view.resample(rnd))
                world = worlds[-1].clone()
            else:
                world = worlds[rnd.randrange(len(worlds))].clone()
            self._iterate(root, world, depth, view.has_eval)
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
    def _iterate(self, root: Node, world, depth: int, has_eval: bool) -> None:
        """Down the tree by UCB1, one new node, then random moves until the
        turn the root decision is asked in is over (to the end of the game
        when the game has no `eval`; `depth` decisions at most), and back up
        with the values of where it stopped."""
        rnd, c = self.rng, self.c
        node, path, steps = root, [], 0
        turn = world.turn if has_eval else None
        while True:
            if world.terminal or (turn is not None and world.turn != turn) or steps >= depth:
                values = self._values(world)
                break
            n = world.n_actions
            if n == 1:
                world.apply(0)
                continue
            p = world.player
            children = node.children
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
                world = self._step(world, a, steps >= depth)
                values, used = self._playout(world, turn, depth - steps)
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
            world = self._step(world, best, steps >= depth)
        # a leaf at the end of the turn is not discounted: every one sits at
        # the same point (a game played out: a sooner win is a surer win)
        discount = DISCOUNT ** steps if turn is None else 1.0
        for child, p in path:
            child.visits += 1
            child.total += 0.5 + (values[p] - 0.5) * discount

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

    def _playout(self, world, turn, left: int) -> tuple[list, int]:
        """Random moves while the turn is still `turn` (None: to the end of
        the game), `left` decisions at most: the values where it stopped and
        the decisions it took."""
        rnd, start = self.rng, left
        while left > 0 and not world.terminal and (turn is None or world.turn == turn):
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
