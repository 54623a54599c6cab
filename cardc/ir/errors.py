"""The errors of running compiled rules, shared by the engine and the
builtins' bodies (`builtins.py`): `cardc.engine.errors` gives the same
classes, beside the engine's own."""


class EngineError(Exception):
    """Base of every engine error."""


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
