"""The loading stage: a game's folder read into located, schema-checked data.

- `yamlsrc`: YAML with a file:line:col on every value (LocDict, LocList, LocStr)
- `schema`: the grammar's JSON Schemas, with errors in plain words
- `game`: one game folder, every file, every problem in one run
"""

from cardc.load.game import GameSource, load_game
from cardc.load.schema import validate
from cardc.load.yamlsrc import LocDict, LocList, LocStr, load_yaml, parse_yaml

__all__ = [
    "GameSource",
    "LocDict",
    "LocList",
    "LocStr",
    "load_game",
    "load_yaml",
    "parse_yaml",
    "validate",
]
