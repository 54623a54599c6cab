"""cardc installs like any Python tool: the wheel carries everything it
needs, and an installed cardc works in an empty folder, writing only there.

The test builds the wheel from a copy of the checkout, installs it into a
fresh virtual environment outside the checkout (pip may use its cache and
the configured package index), and from an empty folder runs what a new
designer would. It takes about a minute, so it is marked `wheel`
(`pytest -m "not wheel"` skips it while working); CI runs it.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import REPO

pytestmark = pytest.mark.wheel

COPY_IGNORE = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__",
                                     ".pytest_cache", ".hypothesis", ".benchmarks", "generated")


def run(cmd, cwd, env=None, ok=True) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=900)
    if ok:
        assert proc.returncode == 0, f"{cmd} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(folder).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    source = tmp_path_factory.mktemp("source") / "cardc"
    shutil.copytree(REPO, source, ignore=COPY_IGNORE)
    dist = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", dist, source], cwd=dist)
    [built] = dist.glob("cardc-*.whl")
    return built


def test_the_wheel_carries_the_grammar_print_defaults_and_template(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    grammar = [p.name for p in (REPO / "grammar").iterdir() if p.suffix in (".json", ".lark")]
    assert grammar and {f"cardc/grammar/{n}" for n in grammar} <= names
    assert "cardc/print/defaults.yaml" in names
    assert "cardc/grammar/README.md" in names, "the designer's guide (`cardc guide`)"
    template = [p.relative_to(REPO).as_posix() for p in (REPO / "cardc" / "template").rglob("*")
                if p.is_file() and "generated" not in p.parts]
    assert set(template) <= names
    assert not [n for n in names if n.startswith(("tests/", "content/", "generated/"))]


def test_an_installed_cardc_works_in_an_empty_folder(wheel, tmp_path):
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", venv], cwd=tmp_path)
    python = venv / "bin" / "python"
    run([python, "-m", "pip", "install", "-q", wheel], cwd=tmp_path)
    purelib = Path(run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                       cwd=tmp_path).stdout.strip())
    assert purelib.is_relative_to(venv)
    before = snapshot(purelib)

    here = tmp_path / "empty"
    here.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"       # so that site-packages must stay exactly as installed
    cardc = venv / "bin" / "cardc"

    def cardc_ok(*args):
        return run([cardc, *args], cwd=here, env=env)

    assert "usage: cardc" in cardc_ok().stdout
    assert cardc_ok("--version").stdout.startswith("cardc ")
    assert "cardc guide" in cardc_ok("new", "demo").stdout
    assert cardc_ok("guide", "zones").stdout.startswith("### zones\n")
    checked = cardc_ok("check")
    assert "demo: ok (0 errors, 0 warnings" in checked.stdout, checked.stderr
    cardc_ok("build")
    cardc_ok("play", "demo", "--quiet", "--log", "game.json")
    cardc_ok("simulate", "demo", "--games", "20", "--jobs", "1", "--quiet", "--json", "report.json")
    cardc_ok("print", "demo")
    cardc_ok("rulebook", "demo")
    cardc_ok("export", "demo")
    assert "1 passed, 0 failed" in cardc_ok("scenario", "scenarios/demo").stdout

    for rel in ("cardc.toml", "content/demo/game.yaml", "schemas/game.schema.json",
                "generated/demo.json", "generated/demo/cards.pdf", "generated/demo/rulebook.pdf",
                "generated/demo/tts/manifest.json", "game.json", "report.json"):
        assert (here / rel).is_file(), f"{rel} missing in the project"
    assert snapshot(purelib) == before, "cardc wrote into site-packages"
