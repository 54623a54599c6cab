"""The one error type of the renderers.

A render error is the designer's problem, not a crash: the CLI prints its
message (which names the card, the box or the character) and exits non-zero.
"""


class RenderError(Exception):
    """Content that cannot be printed as written."""


class OptionError(RenderError):
    """A command-line option the renderer cannot take (`--bleed 5`, `--cards`
    naming no card): a usage error, exit 2, not a content problem."""
