"""The authoring language as package data (not code).

setuptools installs this folder as `cardc.grammar` (see pyproject.toml), so
the wheel carries effects.lark and every JSON Schema; cardc reads them with
importlib.resources through `cardc.load.paths.GRAMMAR`. This file only makes the
folder importable in an editable install.
"""
