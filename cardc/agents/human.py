"""A person at the terminal: a numbered menu of what the seat may do.

It shows the seat's own observation (never the state), each action's label,
the options that are not open now with the reason, and lets the player
`undo` back to their previous decision as long as nothing random happened
since (no card drawn or shuffled that they would then have seen)."""
from __future__ import annotations

import sys

from cardc.agents.basic import Agent


class Quit(Exception):
    """The person typed `quit`: the game ends by their choice (exit 0),
    unlike Ctrl-C (130)."""


class HumanAgent(Agent):
    name = "human"

    def __init__(self, seed: int = 0, stdin=None, stdout=None):
        super().__init__(seed)
        self.inp = stdin or sys.stdin
        self.out = stdout or sys.stdout
        self.saved = None

    def choose(self, view) -> int | str:
        self.out.write(view.text() + "\n")
        me, prompt = view.player_name(view.seat), view.prompt or "choose"
        # a prompt that already names the player ("P1: your move") is not named twice
        self.out.write(f"\n{prompt}\n" if prompt.startswith(f"{me}:") else f"\n{me}: {prompt}\n")
        labels = [view.action_to_string(a) for a in view.legal_actions()]
        for i, label in enumerate(labels):
            self.out.write(f"  {i + 1}. {label}\n")
        for label, reason in view.why_not():
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
                raise Quit
            if text.isdigit() and 1 <= int(text) <= len(labels):
                return int(text) - 1
            if text.startswith(("?", "show ")):
                asked = text[1:] if text.startswith("?") else text[5:]
                shown = view.card_text(asked)
                self.out.write((shown or f"no card `{asked.strip()}`: `? N` shows option N's card, "
                                "`show NAME` a card by its name") + "\n")
                continue
            self.out.write(f"type a number from 1 to {len(labels)}, `? N` or `show CARD` to read a card, "
                           "`undo` or `quit`\n")
