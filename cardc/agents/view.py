"""The one place where agents touch the engine.

Agents never get the State.  At a decision they get a `SeatView`, the
information set of their seat in the spirit of OpenSpiel: the observation,
the legal actions (ints) with `action_to_string`, and `resample(rng)`, a
full game consistent with what the seat has seen, to search on.  A
resampled game is a `World`: the step API a search needs (clone, apply,
legal actions, terminal, returns, evaluate) and nothing else.

The boundary is hard: a SeatView does not hold the real game.  It holds a
game the seat imagines (`State.determinized`: every card it cannot see
shuffled among the places it cannot see into, secret counters at their
start values, a random generator of its own), made once when the view is
made, and everything it answers is read from that copy.  What the seat sees
is exact in it, so the answers are the real ones; what the seat does not see
is not in it at all, so no agent, by accident or by reaching into private
attributes, can read a hidden card or the real game's coming shuffles.  An
agent that only needs the number of options (random) gets a `Menu` instead,
which is cheaper still: see `Agent.view`.

Everything that depends on the engine's internals lives in this module, so
a change of engine is a change here, not in every agent.
"""
from __future__ import annotations

import random

from cardc.agents.value import fitted_value

#: decisions whose options are worked out from the state: a resampled game
#: asks them again, so an option names a card of the imagined world (a blind
#: pick among face-down cards must not carry the real cards' identities)
REASKED = ("choose", "menu")

#: the seed of the imagined copy a SeatView holds.  Fixed: the copy depends
#: on nothing the seat cannot know whatever the seed (determinized puts the
#: unseen cards in a fixed order before shuffling), and agents draw their own
#: worlds from it with their own generators (`resample`)
VIEW_SEED = 0


def imagined(state, seat: int, rnd: random.Random, remember: bool = False):
    """A copy of `state` as `seat` might imagine it (State.determinized), with
    no record of the real game's past or seed, and the pending question asked
    again in it when its options are worked out from the state (REASKED).
    With `remember`, it keeps what the seat remembers of where cards went
    (a view's copy, which worlds are drawn from); a world to search on
    does not need it."""
    d = state.determinized(seat, rnd)       # with a random state of its own, from rnd
    if not remember:
        d.memory = None
    d.seed = None
    d.log = None
    d.history = []
    d.track = None
    pending = d.pending
    if pending is not None and pending.kind in REASKED and d.stack:
        fr = d.stack[-1]
        d.pending = None
        fr.code.run(d, fr)             # its block resumes at the question and asks it
    return d


class Menu:
    """The least a seat's view holds: whose decision it is and how many
    options it has.  For agents that need nothing more (random): it costs no
    copy of the game."""
    __slots__ = ("seat", "_n")

    def __init__(self, state, seat: int):
        self.seat = seat
        self._n = len(state.pending.values)

    def legal_actions(self) -> range:
        return range(self._n)


class SeatView:
    """What `seat` may know when it must decide (see the module docstring).

    `rnd`, when given, is the agent's own generator: the imagined copy is
    drawn with it, and the agent's first `resample` with that generator is
    then a copy of it, not a second draw (the same world the draw would have
    made: it is the draw).  Without it the copy is drawn with a fixed seed."""
    __slots__ = ("_guess", "seat", "_lent")

    def __init__(self, state, seat: int, rnd: random.Random | None = None):
        # the seat's imagined copy, never the real game (module docstring)
        self._guess = imagined(state, seat, rnd or random.Random(VIEW_SEED), remember=True)
        self.seat = seat
        self._lent = rnd

    # what the seat sees
    def observation(self) -> dict:
        return self._guess.observation(self.seat)

    def legal_actions(self) -> range:
        return range(len(self._guess.pending.values))

    def action_to_string(self, action: int) -> str:
        return self._guess.action_to_string(action)

    def action_keys(self) -> list:
        """Each legal action's stable key (State.legal_actions), in the order
        of `legal_actions`: equal in every world `resample` imagines, so a
        search can pool what it learns about an action across worlds."""
        return self._guess.legal_actions()

    @property
    def prompt(self) -> str | None:
        d = self._guess.pending
        return d.prompt

    def why_not(self) -> list:
        """Options that exist but are not open now, with the reason."""
        return self._guess.why_not()

    @property
    def players(self) -> int:
        return self._guess.n

    def card_text(self, query: str) -> str | None:
        """A card's name, kind and text, for a person who asks: `query` is an
        option's number (the card its label names; only what the label
        shows, so nothing hidden leaks) or a card's name or id (the card
        list is public, like a rulebook).  None if it names no card."""
        cards = self._guess.game.cards
        text = query.strip().lower()
        if text.isdigit():
            n = int(text)
            if not 1 <= n <= len(self._guess.pending.values):
                return None
            label = self.action_to_string(n - 1).lower()
            named = [c for c in cards if c["name"].lower() in label]
            card = max(named, key=lambda c: len(c["name"]), default=None)
        else:
            card = next((c for c in cards if text in (c["name"].lower(), c["id"])), None)
        if card is None:
            return None
        kind = (self._guess.game.bundle.get("kinds") or {}).get(card["kind"], {}).get("label", card["kind"])
        return f"{card['name']} ({kind}): {card['text'] or '(no text)'}"

    def player_name(self, p) -> str:
        return self._guess.player_name(p)

    def text(self) -> str:
        """The observation as a person reads it (the board drawn if there is one)."""
        from cardc.render.terminal import observation_text
        return observation_text(self.observation(), self._guess.game, self._guess, self.scores())

    def scores(self) -> list | None:
        """Every player's score, for a headline, when the seat may know them:
        the game has a score and no counter a seat may not see (a score
        over a secret counter would give it away)."""
        st = self._guess
        game = st.game
        secret = any(c.get("visibility", "public") != "public"
                     for scope in ("game", "player") for c in game.counters[scope].values())
        return None if not game.score or secret else list(st.scores())

    @property
    def has_eval(self) -> bool:
        """Whether the game says what a good position is (`eval` in game.yaml)."""
        return self._guess.game.eval is not None

    @property
    def has_value(self) -> bool:
        """Whether the game has a value fitted from simulated games
        (`agents: value:` in game.yaml, `cardc fit-value`)."""
        return fitted_value(self._guess.game) is not None

    # a guess at what the seat does not see
    def resample(self, rnd: random.Random) -> World:
        """A full game consistent with this seat's observation: every card
        the seat cannot see is shuffled (by `rnd`) among the places it cannot
        see into that hold cards with the same back; the copy draws its
        future randomness from a seed of `rnd` too, so neither the unseen
        cards nor the coming shuffles of the real game leak into a search.
        Drawn from the view's own imagined copy: the shuffle puts the unseen
        cards in a fixed order first, so the world is the one the real game
        would have given for the same `rnd`."""
        if rnd is self._lent:          # the guess was drawn with it: that draw is this one
            self._lent = None
            guess = self._guess
            memory, guess.memory = guess.memory, None     # a world to search on needs none
            world = guess.clone()
            guess.memory = memory
            return World(world)
        return World(imagined(self._guess, self.seat, rnd))


class World:
    """A full game an agent imagines (from `SeatView.resample`): play on it
    freely, it is the agent's own."""
    __slots__ = ("_st",)

    def __init__(self, state):
        self._st = state

    def clone(self) -> World:
        return World(self._st.clone())

    @property
    def terminal(self) -> bool:
        return self._st.terminal

    @property
    def turn(self) -> int:
        """The game's turn counter."""
        return self._st.turn

    @property
    def player(self) -> int:
        """Who decides now (meaningless once terminal)."""
        return self._st.pending.player

    @property
    def n_actions(self) -> int:
        """How many legal actions; 0 after a `last` step stopped at a menu."""
        return len(self._st.pending.values)

    @property
    def players(self) -> int:
        return self._st.n

    def action_keys(self) -> list:
        """Each legal action's stable key (State.legal_actions)."""
        return self._st.legal_actions()

    def apply(self, action: int, last: bool = False) -> None:
        """Take `action`.  With `last`, the world is only scored afterwards:
        the engine stops at the next menu without working out its options."""
        st = self._st
        if last:
            st.lookahead = True
        st.apply(action)

    def place(self) -> tuple:
        """Where in the rules the pending decision is asked: (turn, depth of
        the call stack, the asking block, its op).  `follows` compares two."""
        st = self._st
        fr = st.stack[-1] if st.stack else None
        return (st.turn, len(st.stack), fr.code.name if fr else None, fr.pc if fr else -1)

    def follows(self, root: tuple) -> bool:
        """Whether the pending decision is a follow-up of the decision asked
        at `root` (a `place()`): still inside what the answer to it set off
        (a call it made is still running, or a later question of the same
        block), in the same turn.  The same question asked again (a loop
        back) or a question of an outer block is not."""
        turn, depth, code, pc = self.place()
        if turn != root[0] or depth < root[1]:
            return False
        return depth > root[1] or (code == root[2] and pc > root[3])

    def settle(self) -> None:
        """Work out the options of a decision that a `last` step stopped at
        without them (the engine asks the same question again)."""
        st = self._st
        d = st.pending
        if d is not None and not d.values and d.kind in REASKED and st.stack:
            fr = st.stack[-1]
            st.pending = None
            was, st.lookahead = st.lookahead, False
            fr.code.run(st, fr)
            st.lookahead = was

    def carry_on(self) -> None:
        """Play on normally after a `last` step (one that was only to be
        scored): its pending menu worked out, the next ones too."""
        self.settle()
        self._st.lookahead = False

    @property
    def winners(self) -> list:
        return self._st.winners

    def evaluate(self, p: int) -> float:
        """The content's `eval` for seat p (0 when the game has none)."""
        return self._st.evaluate(p)

    def values(self) -> list[float]:
        """Every seat's fitted value (`SeatView.has_value`; cardc/agents/value.py)."""
        value = fitted_value(self._st.game)
        if value is None:
            raise ValueError("this game has no fitted value (`cardc fit-value`)")
        return value.all(self._st)

    def scores(self) -> list:
        return self._st.scores()
