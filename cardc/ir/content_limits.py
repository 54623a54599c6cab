"""The limits `cardc check` enforces on content, in one place.

Content is untrusted (designers share game folders), so the checker refuses
what would make it, or the engine, run without end or out of memory, with a
located error that names the limit. Each limit sits far above anything the
shipped games use (the figure in brackets), so a real game never meets it.
The engine's own run-time budgets (steps per action, call depth, integer
size) are separate: they catch what a checker cannot prove.
"""

#: how deep the effect parser's tree may go: brackets, `not`s, nested blocks
#: (the shipped games reach 46; 3,000 `not`s would exhaust Python's stack)
MAX_PARSE_DEPTH = 200

#: how deep one compiled statement or expression may nest (shipped: 18);
#: a longer flat chain `a + b + c + ...` counts one level per operator
MAX_NESTING = 60

#: physical cards in one game, per-player copies counted for the most
#: players (shipped: 108); each card is state the engine copies on every clone
MAX_CARDS = 10_000

#: a `repeat N:` with a literal count (shipped: 6)
MAX_REPEAT = 10_000

LIMITS = {"parse depth": MAX_PARSE_DEPTH, "nesting": MAX_NESTING, "cards": MAX_CARDS,
          "repeat": MAX_REPEAT}
