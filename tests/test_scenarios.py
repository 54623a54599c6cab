"""Every rules scenario under tests/scenarios/ runs as one test: the rule
documents' cases, played through the real engine on the real bundles."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardc.scenario import expand, run_file

ROOT = Path(__file__).parent / "scenarios"
FILES = expand([ROOT])
_cache: dict = {}


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_scenario(path):
    results = run_file(path, _cache)
    assert results, f"{path} holds no scenario"
    failures = [f"{r.name}:\n  " + "\n  ".join(r.failures) for r in results if not r.ok]
    assert not failures, "\n".join(failures)
