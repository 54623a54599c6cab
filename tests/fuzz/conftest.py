"""The fuzz suite: generated content, templates, bundles and replays, each
of which must build (or play) or fail with a located message, never a
traceback, and touch nothing outside its own temporary folder.

Volume: the default run (CI) plays `EXAMPLES` cases per test; the
`slow`-marked copies play `DEEP_EXAMPLES` (`pytest -m slow tests/fuzz`).
Hypothesis keeps no database here, so every run is the same size and a CI
run leaves no files behind.
"""
from __future__ import annotations

import os
import resource

import pytest
from hypothesis import HealthCheck, settings

EXAMPLES = 20
DEEP_EXAMPLES = 300
MAX_GROWTH_MB = 1024        # bounded memory: the largest template or bundle case stays far below

settings.register_profile("cardc", database=None, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                 HealthCheck.function_scoped_fixture])
settings.load_profile("cardc")


@pytest.fixture(autouse=True, scope="module")
def nothing_written_outside(tmp_path_factory):
    """No case may write outside its temporary folder (the repository and the
    working directory look the same afterwards), and together they stay
    within MAX_GROWTH_MB of memory."""
    from tests.conftest import REPO
    GENERATED = REPO / "generated"

    def snapshot():
        return ({p.name for p in REPO.iterdir()}, {p.name for p in GENERATED.iterdir()} if GENERATED.exists() else set(),
                set(os.listdir(os.getcwd())))
    before = snapshot()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    yield
    assert snapshot() == before
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024
    assert grown_mb < MAX_GROWTH_MB, f"the fuzz cases grew the process by {grown_mb:.0f} MB"
