"""The interpreter: running ops until a player must decide, and the game's
outer structure (setup, rounds, turns), triggers and the end of the game.

A mixin of `State`: these methods work on the state's own data.
"""
from __future__ import annotations

from cardc.engine.errors import CorruptState, EngineFault
from cardc.engine.fields import StateFields

#: the stages of the game's outer structure (`Interpreter._flow_next`)
STAGES = frozenset({"init", "setup", "round", "turn", "after_turn", "next_turn", "round_over",
                    "ending"})


_new = object.__new__


class Frame:
    """One running block: its code, the next op, and its locals."""
    __slots__ = ("code", "pc", "env")

    def __init__(self, code, pc, env):
        self.code, self.pc, self.env = code, pc, env


def back_on_top(st, fr) -> bool:
    """After a call, a `resolve` or a `trigger` has pushed frames and started
    the top one: what the run loop would do next, done at once (run the frame
    on top until `fr` is back on top), so a call that did not stop goes on
    without a round trip through the run loop and its block's `if pc ==`
    chain.  False where the run loop must take over: a decision, the game's
    end, or `fr` gone (an `end` cleared the stack); it resumes at `fr.pc`."""
    s = st.stack
    while st.pending is None and not st.terminal and s:
        t = s[-1]
        if t is fr:
            return True
        run = t.code.run        # read, then called: Python cannot specialise `t.code.run(…)`
        run(st, t)
    return False


def materialize(st, code, env):
    """The frame of a block started without one (BlockGen._start), made
    where it first needs it, on top of the stack."""
    fr = _new(Frame)
    fr.code, fr.pc, fr.env = code, 0, env
    st.stack.append(fr)
    return fr


def beneath(st, fr, code, env, n, r, pc):
    """A block started without a frame called another started so, which
    did not run to its end (`r`: None, it stopped with its frame at `n` on
    the stack; 0, it is gone): the caller's frame, made now if it has none,
    goes beneath the callee's, to resume at `pc`.  What the caller answers."""
    if r is not None:
        return r
    if fr is None:
        fr = _new(Frame)
        fr.code, fr.env = code, env
        st.stack.insert(n, fr)
    fr.pc = pc
    return None


def stopped(st, fr):
    """What a block started without a frame answers where it stops after
    `_back`: None with its frame on the stack, 0 if an `end` took it off."""
    return None if fr in st.stack else 0


class Interpreter(StateFields):
    #: a stage to stop at once, when nothing is left to run (scenarios set it)
    hold_at = None

    def push(self, code, env):
        if len(self.stack) >= self.game.limits.depth:
            raise EngineFault(self.game.over_depth)
        self.budget -= 1
        if self.budget < 0:
            raise EngineFault(self.game.over_steps)
        fr = _new(Frame)            # Frame(code, 0, env) without a call of its __init__
        fr.code, fr.pc, fr.env = code, 0, env
        self.stack.append(fr)

    def run(self):
        """Run the frame on top of the stack until a player must decide or the
        game ends.  Each block is one generated function (see blocks.py) that
        runs as far as it can and returns when something else must run first."""
        stack = self.stack
        fr = None
        self.budget = self.game.limits.steps       # work allowed before the next decision
        try:
            while self.pending is None and not self.terminal:
                if stack:
                    fr = stack[-1]
                    run = fr.code.run   # read, then called (see back_on_top)
                    run(self, fr)
                elif self.stage == self.hold_at:
                    self.hold_at = None        # a checkpoint (scenarios): stop here, once
                    return
                else:
                    fr = None
                    self._flow_next()
        except EngineFault as exc:
            if not exc.where and fr is not None:
                raise self._fault(exc.message, fr, exc.__traceback__) from None
            raise
        except RecursionError as exc:
            if fr is None:
                raise
            raise self._fault("functions call each other too deeply (a function that needs its "
                              "own value?)", fr, exc.__traceback__) from None
        except (TypeError, KeyError, NameError, IndexError, ValueError, AttributeError,
                ZeroDivisionError) as exc:
            if fr is None:
                raise
            raise self._fault(f"{type(exc).__name__}: {exc}", fr, exc.__traceback__) from exc

    def _fault(self, message, fr, tb=None):
        """A located EngineFault: the statement of `fr` that failed, read from
        the traceback (the generated code knows which op each line came from).
        A block that cannot stop runs inside its caller's function (see
        BlockGen.plan), so the frame that failed may be above `fr`: it is the
        topmost frame whose function is in the traceback; and a procedure that
        cannot stop runs with no frame at all, found by its function alone
        (as is one started without a frame, BlockGen._start): whichever of
        the two is further in, in the traceback, failed."""
        frameless, inner, at = self.game.frameless, None, {}
        t, depth = tb, 0
        while t is not None:
            at[t.tb_frame.f_code] = (depth, t)      # the innermost entry of each function
            if t.tb_frame.f_code in frameless:
                inner = (depth, t)  # the innermost block running without a frame of its own
            t, depth = t.tb_next, depth + 1
        for f in reversed(self.stack):
            if f is fr:
                break
            if getattr(f.code.run, "__code__", None) in at:
                fr = f
                break
        pc = fr.pc
        found = at.get(getattr(fr.code.run, "__code__", None))
        if found is not None:
            op = fr.code.op_at(found[1].tb_lineno)
            if op is not None:
                pc = op
        resolving = [f.code.label for f in self.stack if f.code.card]
        code = fr.code
        if inner is not None and (found is None or inner[0] > found[0]):
            # a procedure that cannot stop runs without a frame (blocks.py,
            # BlockGen._frameless), and one that may stop starts without one
            # (BlockGen._start), called from the frame found above or from
            # another such procedure: the innermost of them failed, unless a
            # framed block it went on to run (a `resolve`, a call that can
            # recurse) is further in
            code = frameless[inner[1].tb_frame.f_code]
            op = code.op_at(inner[1].tb_lineno)
            pc = op if op is not None else 0
        return EngineFault(message, f"{code.where(pc)} in {code.label}", resolving)

    def resolve_card(self, card, me):
        """`resolve c`: run the card's effect, as `me`, with `this` the card."""
        game = self.game
        cid = game.card_field["id"][card]
        code = game.codes.get(f"card:{cid}:effect")
        if self.track is not None:
            self.track["resolve"][cid] = self.track["resolve"].get(cid, 0) + 1
        if code is None:
            raise EngineFault(f"{game.card_name[card]} has no effect to resolve")
        self.push(code, {"me": me, "this": card})

    def touch(self, part):
        """Note that one part of the state changed (see cardc.engine.deps)."""
        self.part_versions[part] = self.part_versions.get(part, 0) + 1
        caches = self.game.stale.parts.get(part)
        if caches:
            self.forget(caches)

    def touch_slot(self, slot):
        """Note that the zone at `slot` changed: its zone's part, and what
        reads that slot alone (a function of one player's zone, see deps.py)."""
        if slot >= 0:
            if slot in self.cellw or self.slot_keyed[slot]:
                self.forget_zone(slot)
            if slot in self.zindex:
                self.unindex(slot)
            stale = self.slot_stale[slot]
            if stale is not None and self.filled & stale[0]:
                self.forget_slot(stale)
            if self.slot_empty[slot]:       # it may have become empty, or stopped being
                self.forget(self.slot_empty[slot])
            if self.slot_active[slot]:      # one version for every zone whose cards are in force
                pv = self.part_versions
                pv["active"] = pv.get("active", 0) + 1

    def _flow_next(self, once=False):
        """Advance the game's outer structure (setup, rounds, turns) to the
        next thing to run: stage after stage while none pushes a frame, ends
        the game or is a stage to hold at (the run loop would only call
        this again at once); with `once`, one stage (scenarios set a clock).
        The stages are tested in the order of how often they come (three
        every turn, one a round, two a game), not the order they come in."""
        g = self.game
        hooks = g.has_hooks
        while True:
            self.version += 1
            stage = self.stage
            if stage == "turn":
                if self.turn >= g.max_turns:
                    self.capped = True
                    self.terminal = True
                    self.winners = []
                    return
                self.turn += 1
                self.touch("flow:turn")
                self.stage = "after_turn"
                self.phase = None
                if self.log is not None:
                    self.log.append(f"== Turn {self.turn} ({g.level_text(self)}): "
                                    f"{self.player_name(self.turn_player)} ==")
                self._push_flow("flow:turn", self.turn_player)
                if "turn_start" in hooks:
                    self._auto_trigger("turn_start")
            elif stage == "after_turn":
                self.stage = "next_turn"
                if "turn_end" in hooks:
                    self._auto_trigger("turn_end")
                elif not once and self.hold_at is None:
                    continue            # nothing started, nothing to stop at: the next stage at once
            elif stage == "next_turn":
                self.turn_player, round_over = self._next_in_turn()
                self.touch("flow:turn_player")
                if round_over:
                    self.stage = "round_over"
                    self._push_flow("flow:round_end", self.first_player)
                    if "round_end" in hooks:
                        self._auto_trigger("round_end")
                else:
                    self.stage = "turn"
                    if not once and self.hold_at is None:
                        continue
            elif stage == "round":
                self.stage = "turn"
                self._push_flow("flow:round_start", self.first_player)
                if "round_start" in hooks:
                    self._auto_trigger("round_start")
            elif stage == "round_over":
                self.round += 1
                self.touch("flow:round")
                self.stage = "round"
            elif stage == "setup":
                # `game.next_player = p` in setup picks who plays the first turn
                chosen = None if self.game.plain_turn_order else self.game_counters.get("next_player")
                if chosen is not None:
                    self.game_counters["next_player"] = None
                    self.touch("g:next_player")
                    self.turn_player = chosen
                    self.touch("flow:turn_player")
                self.first_player = self.turn_player
                self.round = 1
                self.touch("flow:first_player")
                self.touch("flow:round")
                self.stage = "round"
                self._auto_trigger("game_start")
            elif stage == "init":
                self.stage = "setup"
                self._push_flow("flow:setup", 0)
            elif stage == "ending":             # the game_end hooks have run
                self.end_game(self.ending)
            else:
                raise CorruptState(f"the saved state is at an unknown stage {str(stage)[:40]!r}")
            if once or self.stack or self.terminal or self.pending is not None \
                    or self.stage == self.hold_at:
                return

    def _next_in_turn(self):
        """(who plays the next turn, whether a round is over).  By default the
        next seat, a round being over when the turn comes back to (or passes)
        the first player.  Content may change that through three counters the
        compiler declares when rules use them: `p.out` (a player who is out is
        skipped, without a turn), `game.direction` (-1: turns go backwards)
        and `game.next_player` (that player plays next, once; the round still
        ends where the turn order says, so another turn is not a new round)."""
        n, first = self.n, self.first_player
        if self.game.plain_turn_order:      # none of the three declared: the next seat
            p = self.turn_player + 1
            if p == n:
                p = 0
            return p, p == first
        g = self.game_counters
        chosen = g.get("next_player")
        if chosen is not None:
            g["next_player"] = None
            self.touch("g:next_player")
        step = -1 if g.get("direction", 1) < 0 else 1
        out = self.player_counters.get("out")
        p, over = self.turn_player, False
        for _ in range(n):                  # at most once round the table
            p = (p + step) % n
            over = over or p == first
            if out is None or not out[p]:
                break
        return (p if chosen is None else chosen), over

    def _push_flow(self, key, me):
        code = self.game.codes.get(key)
        if code is not None:
            self.push(code, {"me": me})

    def _auto_trigger(self, event):
        if event in self.game.has_hooks:
            args = dict.fromkeys(self.game.events[event])     # each field None
            if "player" in args:
                args["player"] = self.turn_player
            self.trigger(event, args, self.turn_player)

    def trigger(self, event, args, me) -> bool:
        """Start every hook of `event`: the game's own, then each active
        card's (pushed so that the game's runs first).  False if there was
        none: most events, most of the time, have no card in force that
        listens, and the block that triggered goes straight on."""
        g = self.game
        if event not in g.has_hooks:
            return False
        hit = self.mods
        if hit is None or hit[0] != self.part_versions["active"]:
            hit = g._scan_modifiers(self)       # the active cards' hooks, by event
        cards = hit[2].get(event, ())
        key = g.game_hooks.get(event)
        if not key and not cards:
            return False
        frames = []
        if key:
            frames.append((g.codes[key], {**args, "me": me}))
        for c, code, owner in cards:
            who = owner if owner is not None else args.get("player", me)
            frames.append((code, {**args, "me": who, "this": c}))
        for code, env in reversed(frames):
            self.push(code, env)
        return True

    def end_game(self, winners):
        """`end game`: stop everything now.  If the game declares a `game_end`
        event, its hooks run first (a last accounting), then the game ends."""
        self.stack.clear()
        if "game_end" in self.game.has_hooks and self.stage != "ending":
            self.stage = "ending"
            self.ending = winners
            self._auto_trigger("game_end")
            return
        self.terminal = True
        if winners is None:           # the best score wins: the highest, or the lowest
            sign = self.game.score_sign
            scores = [sign * s for s in self.scores()]
            best = max(scores) if scores else 0
            winners = [p for p in range(self.n) if scores[p] == best]
        self.winners = sorted({w for w in winners if w is not None})

