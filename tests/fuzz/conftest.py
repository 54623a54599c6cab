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

import pytest
from hypothesis import HealthCheck, settings

EXAMPLES = 25
DEEP_EXAMPLES = 300

settings.register_profile("cardc", database=None, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                 HealthCheck.function_scoped_fixture])
settings.load_profile("cardc")


@pytest.fixture(autouse=True, scope="module")
def nothing_written_outside(tmp_path_factory):
    """No case may write outside its temporary folder: the repository and the
    working directory look the same afterwards."""
    from cardc.paths import GENERATED, REPO

    def snapshot():
        return ({p.name for p in REPO.iterdir()}, {p.name for p in GENERATED.iterdir()} if GENERATED.exists() else set(),
                set(os.listdir(os.getcwd())))
    before = snapshot()
    yield
    assert snapshot() == before
