"""Errors the engine raises, each saying what a person can do about it."""


class EngineError(Exception):
    """Base of every engine error."""


class IllegalAction(EngineError):
    """An action that is not legal now; the state is unchanged."""


class CorruptState(EngineError):
    """A saved state that does not fit its bundle."""


class BundleMismatch(EngineError):
    """A replay or save made with another version of the game's bundle."""


class BadBundle(EngineError):
    """A bundle whose code is not what cardc writes (an unknown op or operator,
    a jump outside its block): refused before any of it runs."""


class EngineFault(EngineError):
    """The rules themselves went wrong while resolving something.

    Names the code being run (a card's effect, a procedure), the source file,
    line and column of the failing statement, and the cards being resolved,
    so that a designer can find the text to fix.
    """

    def __init__(self, message: str, where: str = "", resolving: list | None = None):
        self.message = message
        self.where = where
        self.resolving = resolving or []
        text = message
        if where:
            text = f"{where}: {message}"
        if self.resolving:
            text += " (while resolving " + " > ".join(self.resolving) + ")"
        super().__init__(text)
