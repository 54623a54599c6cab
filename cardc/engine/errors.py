"""Errors the engine raises, each saying what a person can do about it.

`EngineError` and `EngineFault` are defined beside the builtins
(`cardc/ir/errors.py`), whose bodies raise faults too, and are the same
classes here.
"""
from cardc.ir.errors import EngineError, EngineFault  # noqa: F401


class IllegalAction(EngineError):
    """An action that is not legal now; the state is unchanged."""


class CorruptState(EngineError):
    """A saved state that does not fit its bundle."""


class BundleMismatch(EngineError):
    """A replay or save made with another version of the game's bundle."""


class BadBundle(EngineError):
    """A bundle whose code is not what cardc writes (an unknown op or operator,
    a jump outside its block): refused before any of it runs."""
