"""cardc: a declarative card-and-rules compiler."""

__version__ = "0.1.0"
