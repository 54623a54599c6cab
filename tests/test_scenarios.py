"""Every rules scenario under tests/scenarios/ (and the `cardc new`
template's) runs as one test: the rule documents' cases, played through the
real engine on the real bundles."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardc.testing.scenario import expand, run_file

from conftest import REPO, TEMPLATE

FILES = expand([Path(__file__).parent / "scenarios", TEMPLATE / "scenarios"])
_cache: dict = {}


@pytest.mark.parametrize("path", FILES, ids=[p.relative_to(REPO).as_posix() for p in FILES])
def test_scenario(path):
    results = run_file(path, _cache)
    assert results, f"{path} holds no scenario"
    failures = [f"{r.name}:\n  " + "\n  ".join(r.failures) for r in results if not r.ok]
    assert not failures, "\n".join(failures)
