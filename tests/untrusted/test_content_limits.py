"""Content the checker must refuse, with a located message, rather than
crash on or let the engine run without end (grammar/README.md, "Limits")."""
from __future__ import annotations

import pytest

FN = "expr: sum([c.value for c in p.bank])"
DRAW = "    do: |\n      repeat n:"
WIN = "if worth(me) >= win_at:"

CASES = [  # name, edits, expected "file:line:col message" (start of it)
    ("200 nested parentheses", {"rules.yaml": [(FN, "expr: " + "(" * 200 + "1" + ")" * 200)]},
     "rules.yaml:6:60 this nests too deeply to check: over 200 levels of the parser's tree"),
    ("3000 nots", {"game.yaml": [(WIN, "if " + "not " * 3000 + "worth(me) >= win_at:")]},
     "game.yaml:43:792 this nests too deeply to check"),
    ("a flat sum of 250 terms", {"rules.yaml": [(FN, "expr: " + " + ".join(["1"] * 250))]},
     "rules.yaml:6:11 this nests too deeply: over 60 operations inside each other"),
    ("count 3000000", {"cards/cards.yaml": [("    count: 6", "    count: 3000000")]},
     "cards/cards.yaml:7:12 the game has 3,000,008 physical cards, over the limit of 10,000 (`ruby` alone has 3,000,000)"),
    ("a float count", {"cards/cards.yaml": [("    count: 6", "    count: 6.0")]},
     "cards/cards.yaml:7:12"),
    ("a float param", {"game.yaml": [("  hand_limit: 3", "  hand_limit: 3.0")]},
     "game.yaml:6:15"),
    ("repeat 10^12", {"rules.yaml": [("      repeat n:", "      repeat 1000000000000:")]},
     "rules.yaml:11:14 `repeat 1,000,000,000,000` is over the limit of 10,000 repeats"),
    ("a procedure calling itself", {"rules.yaml": [(DRAW, "    do: |\n      draw(p, n)\n      repeat n:")]},
     "rules.yaml:11:7 procedure `draw` calls itself on every path, so it would never end "
     "(procedure `draw` → procedure `draw`)"),
    ("two procedures calling each other",
     {"rules.yaml": [(DRAW, "    do: |\n      discard_down(p)\n      repeat n:"),
                     ("      while count(p.hand) > hand_limit:", "      draw(p, 1)\n      while count(p.hand) > hand_limit:")]},
     "rules.yaml:19:7 procedure `discard_down` calls itself on every path, so it would never end "
     "(procedure `discard_down` → procedure `draw` → procedure `discard_down`)"),
    ("a function calling itself", {"rules.yaml": [(FN, "expr: worth(p) + 1")]},
     "rules.yaml:6:11 function `worth` calls itself on every path, so it would never end"),
    ("a hook triggering its own event",
     {"game.yaml": [("counters:\n", "events:\n  ping: {}\ncounters:\n"),
                    ("    me.plays = 1\n", "    me.plays = 1\n    trigger ping\n")],
      "rules.yaml": [("procs:\n", "hooks:\n  ping: |\n    log \"ping\"\n    trigger ping\nprocs:\n")]},
     "rules.yaml:10:5 event `ping` triggers itself on every path, so it would never end"),
    ("shuffled_order in a function", {"rules.yaml": [(FN, "expr: count(shuffled_order(p.bank))")]},
     "rules.yaml:6:17 `shuffled_order` draws random numbers, which function `worth` may not"),
    ("shuffled_order in a condition", {"game.yaml": [(WIN, "if count(shuffled_order(me.bank)) >= win_at:")]},
     "game.yaml:43:14 `shuffled_order` draws random numbers, which a condition may not"),
    ("shuffled_order in a label", {"game.yaml": [('option "Pass":', 'option "Pass {count(shuffled_order(me.hand))}":')]},
     "game.yaml:41:29 `shuffled_order` draws random numbers, which a label may not"),
    ("shuffled_order in a log line", {"game.yaml": [("    me.plays = 1\n", "    me.plays = 1\n    log \"{count(shuffled_order(me.hand))}\"\n")]},
     "game.yaml:31:17 `shuffled_order` draws random numbers, which a label may not"),
    ("too many players", {"game.yaml": [("players: {min: 2, max: 3}", "players: {min: 2, max: 1000}")]},
     "game.yaml:4:"),
]


@pytest.mark.parametrize("name, edits, expected", CASES, ids=[c[0] for c in CASES])
def test_refused_with_a_located_message(built_error, name, edits, expected):
    built, error = built_error(edits)
    assert built.bundle is None
    assert error is not None and error.startswith(expected), error


ALLOWED = [
    ("recursion under a condition", {"rules.yaml": [(DRAW, "    do: |\n      if n > 1:\n        draw(p, n - 1)\n      repeat n:")]}),
    ("shuffled_order in a statement", {"game.yaml": [("    me.plays = 1\n", "    me.plays = 1\n    let order = shuffled_order(me.hand)\n")]}),
    ("a hook that triggers another event", {
        "game.yaml": [("counters:\n", "events:\n  ping: {}\n  pong: {}\ncounters:\n"),
                      ("    me.plays = 1\n", "    me.plays = 1\n    trigger ping\n")],
        "rules.yaml": [("procs:\n", "hooks:\n  ping: |\n    trigger pong\nprocs:\n")]}),
    ("repeat at the limit", {"rules.yaml": [("      repeat n:", "      repeat 10000:")]}),
]


@pytest.mark.parametrize("name, edits", ALLOWED, ids=[c[0] for c in ALLOWED])
def test_bounded_content_still_builds(built_error, name, edits):
    built, error = built_error(edits)
    assert error is None and built.bundle is not None


def test_a_conditionally_recursive_function_builds(built_error):
    built, error = built_error({"rules.yaml": [(FN, "expr: 0 if count(p.bank) == 0 else worth(p)")]})
    assert error is None and built.bundle is not None
