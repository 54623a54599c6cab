"""The linter (ruff) passes on all of cardc; the type checker (mypy) on the
packages the engine-core redesign has reached (more join as they are
redone: render, serve and sim have not been).  Their settings are in
pyproject.toml."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).parent.parent
TYPED = ["cardc/ir", "cardc/engine", "cardc/compiler", "cardc/dsl", "cardc/load", "cardc/render",
         "cardc/serve/guard.py", "cardc/project", "cardc/commands", "cardc/testing", "cardc/sim/intervals.py",
         "cardc/agents", "cardc/sim/tune_agent.py", "cardc/sim/fit_value.py"]


def _run(*args):
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing():
    proc = _run("ruff", "check", "--no-cache", "cardc", "tools")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_finds_nothing():
    proc = _run("mypy", "--no-incremental", "--cache-dir", "/dev/null", *TYPED)
    assert proc.returncode == 0, proc.stdout + proc.stderr
