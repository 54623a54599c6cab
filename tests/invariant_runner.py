"""Play many seeded random games on all cores and check invariants after
every action: the content's own `invariants:` and the engine's "every card
in exactly one place".  Returns counts a test asserts on and prints."""
from __future__ import annotations

import os
import random
import statistics
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

_GAMES: dict = {}


def _game(name):
    if name not in _GAMES:
        from cardc.engine import Game
        from cardc.project import load_bundle
        _GAMES[name] = Game(load_bundle(name))
    return _GAMES[name]


@dataclass
class Summary:
    games: int = 0
    winners: int = 0
    capped: int = 0
    turns: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    endings: dict = field(default_factory=dict)     # kind -> games, when `extra` classifies endings

    def add(self, other):
        self.games += other.games
        self.winners += other.winners
        self.capped += other.capped
        self.turns += other.turns
        self.problems += other.problems
        for k, v in other.endings.items():
            self.endings[k] = self.endings.get(k, 0) + v

    def median_turns(self):
        return statistics.median(self.turns) if self.turns else 0


def play_batch(args):
    """Games (seed, players) of one game id; `extra(st)` checks return problems."""
    name, jobs, extra_name = args
    game = _game(name)
    extra = globals().get(extra_name) if extra_name else None
    out = Summary()
    for seed, players in jobs:
        st = game.new_state(players, seed=seed)
        rnd = random.Random(seed)
        while not st.is_terminal():
            st.apply(rnd.randrange(len(st.legal_actions())))
            broken = game.broken_invariants(st)
            if extra:
                broken += extra(st)
            if broken:
                out.problems.append(f"seed {seed}, {players} players, after {st.decisions} "
                                    f"decisions: {broken}")
                break
        out.games += 1
        if extra is not None and hasattr(extra, "ending"):
            kind = extra.ending(st)
            out.endings[kind] = out.endings.get(kind, 0) + 1
        out.winners += bool(st.winners)
        out.capped += st.capped
        out.turns.append(st.turn)
    return out


def run(name, players, games, seed0=0, extra=None, workers=None) -> Summary:
    jobs = [(seed0 + i, players[i % len(players)]) for i in range(games)]
    workers = workers or min(4, os.cpu_count() or 1)
    chunks = [jobs[i::workers * 4] for i in range(workers * 4)]
    total = Summary()
    with ProcessPoolExecutor(workers) as pool:
        for part in pool.map(play_batch, [(name, c, extra) for c in chunks if c]):
            total.add(part)
    return total


# ---------------------------------------------------------------- unicorn

def _unicorn_value(st, p):
    return st.game.functions["valuation"](st, {"p": p})


def _unicorn_frozen(st):
    return st.game.functions["frozen"](st, {})


def unicorn_rules(st):
    """The finish line of unicorn, which no single state can state:

    - a game ends only in the valuation phase of a turn: nobody wins mid-turn
      or in a turn skipped by a Patent Lawsuit;
    - a win by valuation has exactly one winner, the player whose turn just
      ended, at $1B or more;
    - the only other end is the content's frozen end (no card can move), won
      by the highest valuation;
    - a player who ends their own completed turn at $1B or more wins then:
      when the turn passes, the player whose turn ended is below $1B.
      (Valuations do not change between the end of a turn and the next
      decision: only draws, discards and skipped turns happen in between.)
    """
    problems = []
    win_at = st.game.params["win_at"]
    if st.terminal:
        if st.capped:
            return problems
        if st.phase != "valuation":
            problems.append(f"the game ended outside a valuation phase (phase {st.phase})")
        values = [_unicorn_value(st, p) for p in range(st.n)]
        me = st.turn_player
        if values[me] >= win_at:
            if st.winners != [me]:
                problems.append(f"P{me + 1} ended the turn at ${values[me]}M but the winners are "
                                f"{[f'P{w + 1}' for w in st.winners]}")
        elif _unicorn_frozen(st):
            best = max(values)
            if st.winners != [p for p in range(st.n) if values[p] == best]:
                problems.append(f"frozen end: winners {st.winners}, valuations {values}")
        else:
            problems.append(f"the game ended at the end of P{me + 1}'s turn at ${values[me]}M "
                            "with cards still able to move")
        return problems
    prev = getattr(st, "_unicorn_seen", None)
    if prev is not None and st.turn > prev[0] and prev[0] > 0:
        ended = prev[1]
        if _unicorn_value(st, ended) >= win_at:
            problems.append(f"P{ended + 1} completed turn {prev[0]} at ${_unicorn_value(st, ended)}M "
                            "and did not win")
    st._unicorn_seen = (st.turn, st.turn_player)
    return problems


def _unicorn_ending(st):
    if st.capped:
        return "capped"
    if not st.winners:
        return "no winner"
    if _unicorn_value(st, st.turn_player) >= st.game.params["win_at"]:
        return "$1B at the end of a turn"
    return "frozen: highest valuation" + (" (shared)" if len(st.winners) > 1 else "")


unicorn_rules.ending = _unicorn_ending


# ---------------------------------------------------------------- startup

# The turn budgets the document gives (2 Plays, 1 Hire, 0 Interest, Sales and
# Quality) and the founder traits and market trends that change them, by
# card id: an oracle written from the card texts, independent of rules.yaml.
_STARTUP_BASE = {"plays": 2, "hires": 1, "interest": 0, "sales": 0, "quality": 0}
_STARTUP_TRAIT_BUDGET = {"hustler": "interest", "born_seller": "sales",
                         "perfectionist": "quality", "people_person": "hires"}
_STARTUP_TREND_BUDGET = {"move_fast": "plays", "inbound_boom": "interest"}


def _startup_cards(st, zone, p=None):
    return st.zones[st.game.slot(st, zone, p)]


def _startup_budgets(st, p):
    g = st.game
    want = dict(_STARTUP_BASE)
    for c in _startup_cards(st, "trait", p):
        res = _STARTUP_TRAIT_BUDGET.get(g.card_field["id"][c])
        if res:
            want[res] += g.card_field["amount"][c]
    for c in _startup_cards(st, "trend"):
        res = _STARTUP_TREND_BUDGET.get(g.card_field["id"][c])
        if res:
            want[res] += g.card_field["amount"][c]
    return want


def _startup_value(st, p):
    return st.game.functions["company_value"](st, {"p": p})


def startup_rules(st):
    """What no single state of startup can state:

    - at the first decision of every turn the player whose turn it is holds
      exactly this turn's budgets (2 Plays, 1 Hire, 0 Interest, 0 Sales,
      0 Quality, changed only by their trait and the year's trend), no Fire,
      Promote or shield, no token placed this turn, and no deck has been
      rebuilt yet this turn; the player whose turn just ended holds 0 of
      every turn-only resource;
    - the C-Suite stock never grows (it does not refresh at funding);
    - a quarter is one round: game.quarter counts the rounds completed;
    - every game ends after the funding round of quarter 16, after 16 turns
      of every player, and the winners are the highest company value, then
      the most money among those, shared if still tied.
    """
    problems = []
    g = st.game
    n = st.n
    quarter, year = st.game_counters["quarter"], st.game_counters["year"]
    csuite = len(_startup_cards(st, "csuite"))
    pool = tuple(_startup_cards(st, "hiring_pool"))
    seen = getattr(st, "_startup_seen", None)
    if seen is not None and csuite > seen[2]:
        problems.append(f"the C-Suite stock grew from {seen[2]} to {csuite}")
    # the pool changes only by a hire or promotion from it (then refilled) or
    # at funding (discarded and refilled): after any change it holds seven,
    # or the employee deck is empty
    if (seen is not None and year > 0 and pool != seen[3] and len(pool) < 7
            and _startup_cards(st, "employee_deck")):
        problems.append(f"the hiring pool changed and holds {len(pool)} with employees left in the deck")
    if st.terminal:
        if st.capped:
            return problems + ["capped"]
        if (quarter, year, st.round, st.turn) != (16, 4, 16, 16 * n):
            problems.append(f"the game ended at quarter {quarter}, year {year}, round {st.round}, "
                            f"turn {st.turn}: expected quarter 16, year 4, round 16, turn {16 * n}")
        values = [_startup_value(st, p) for p in range(n)]
        best = max(values)
        leaders = [p for p in range(n) if values[p] == best]
        richest = max(st.player_counters["money"][p] for p in leaders)
        want = [p for p in leaders if st.player_counters["money"][p] == richest]
        if sorted(st.winners) != want:
            problems.append(f"winners {st.winners}, expected {want} (values {values}, "
                            f"money {[st.player_counters['money'][p] for p in range(n)]})")
        return problems
    if st.round >= 1 and quarter != st.round - 1:
        problems.append(f"round {st.round} but quarter {quarter}")
    if seen is not None and st.turn != seen[0] and st.turn > 0:
        me = st.turn_player
        if st.pending is None or st.pending.player != me:
            problems.append(f"turn {st.turn} did not begin with P{me + 1}'s own decision")
        want = _startup_budgets(st, me)
        got = {k: st.player_counters[k][me] for k in want}
        if got != want:
            problems.append(f"turn {st.turn}: P{me + 1} starts with {got}, expected {want}")
        if st.player_counters["fire"][me] or st.player_counters["promote"][me] or st.player_counters["shielded"][me] or st.player_counters["focused"][me]:
            problems.append(f"turn {st.turn}: P{me + 1} starts with Fire, Promote, a shield or focus")
        if any(st.player_counters["reshuffles"][p] for p in range(n)):
            problems.append(f"turn {st.turn}: a reshuffle is already counted at the start of the turn")
        placed = st.card_counters["placed"]
        if any(placed[c * n + me] for c in _startup_cards(st, "client_pool")):
            problems.append(f"turn {st.turn}: P{me + 1} starts with interest already placed this turn")
        ended = seen[1]
        if seen[0] > 0 and ended != me:
            left = {k: st.player_counters[k][ended] for k in ("plays", "hires", "interest", "sales", "quality",
                                                 "fire", "promote") if st.player_counters[k][ended]}
            if left:
                problems.append(f"turn {seen[0]}: P{ended + 1} kept {left} after the turn ended")
    st._startup_seen = (st.turn, st.turn_player, csuite, pool)
    return problems


def _startup_ending(st):
    if st.capped:
        return "capped"
    if len(st.winners) > 1:
        return "shared win"
    values = [_startup_value(st, p) for p in range(st.n)]
    if values.count(max(values)) > 1:
        return "value tie broken by money"
    return "highest company value"


startup_rules.ending = _startup_ending
