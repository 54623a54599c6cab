"""The one error type of the renderers.

A render error is the designer's problem, not a crash: the CLI prints its
message (which names the card, the box or the character) and exits non-zero.
"""


class RenderError(Exception):
    """Content that cannot be printed as written."""
