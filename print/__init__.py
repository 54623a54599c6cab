"""Print defaults as package data (not code).

setuptools installs this folder as `cardc.print` (see pyproject.toml); cardc
reads it with importlib.resources through `cardc.load.paths.PRINT`. This file only
makes the folder importable in an editable install.
"""
