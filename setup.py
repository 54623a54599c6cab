"""The one thing pyproject.toml cannot say: find every cardc sub-package
*and* install the repository's grammar/ and print/ folders as the packages
cardc.grammar and cardc.print, so the wheel carries them (one copy of each
file; cardc reads them with importlib.resources, see cardc/load/paths.py)."""
from setuptools import find_packages, setup

setup(packages=find_packages(include=["cardc", "cardc.*"]) + ["cardc.grammar", "cardc.print"],
      package_dir={"cardc.grammar": "grammar", "cardc.print": "print"})
