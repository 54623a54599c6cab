"""A person at the terminal: a numbered menu of what the seat may do.

It shows the seat's own observation (never the state), each action's label,
the options that are not open now with the reason, and lets the player
`undo` back to their previous decision as long as nothing random happened
since (no card drawn or shuffled that they would then have seen)."""
from __future__ import annotations

import sys


class HumanAgent:
    name = "human"

    def __init__(self, seed: int = 0, stdin=None, stdout=None):
        self.inp = stdin or sys.stdin
        self.out = stdout or sys.stdout
        self.saved = None

    def show(self, st, seat):
        from cardc.render_text import observation_text
        self.out.write(observation_text(st.observation(seat), st.game, st) + "\n")

    def act(self, st, seat: int) -> int:
        d = st.pending
        self.show(st, seat)
        self.out.write(f"\n{st.player_name(seat)}: {d.prompt or 'choose'}\n")
        for i, label in enumerate(d.labels):
            self.out.write(f"  {i + 1}. {label}\n")
        for label, reason in d.unavailable:
            self.out.write(f"   -  {label}  (not now: {reason})\n")
        while True:
            self.out.write("> ")
            self.out.flush()
            line = self.inp.readline()
            if not line:
                raise EOFError("no more input")
            text = line.strip().lower()
            if text in ("undo", "u"):
                return "undo"
            if text in ("q", "quit"):
                raise KeyboardInterrupt
            if text.isdigit() and 1 <= int(text) <= len(d.labels):
                return int(text) - 1
            self.out.write(f"type a number from 1 to {len(d.labels)}, `undo` or `quit`\n")
