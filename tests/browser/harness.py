"""Start `cardc serve` on a free loopback port and drive it with headless Chromium.

The server runs as a real subprocess (`python -m cardc serve PROJECT --port 0
--no-open`); it prints its address once its socket listens, and the harness
waits for that line (bounded by a deadline), never for a fixed time.
Chromium is Debian's /usr/bin/chromium, driven by Playwright without any
browser download (tests/browser/ensure-chromium.sh installs it).
"""
from __future__ import annotations

import os
import re
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

CHROMIUM = os.environ.get("CARDC_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
READY_SECONDS = 120


def chromium_missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        return "no chromium: run tests/browser/ensure-chromium.sh (as root: apt-get install -y chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "no playwright: pip install -e '.[test]'"
    return None


class Server:
    """A running `cardc serve`; `url` is its address."""

    def __init__(self, target, cwd=None, extra=()):
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cardc", "serve", str(target), "--port", "0", "--no-open", *extra],
            cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.output: list[str] = []
        self.url = self._wait_for_address()

    def _wait_for_address(self) -> str:
        lines: queue.Queue = queue.Queue()

        def read():
            for line in self.proc.stdout:
                lines.put(line)
            lines.put(None)
        threading.Thread(target=read, daemon=True).start()
        self.lines = lines
        deadline = time.monotonic() + READY_SECONDS
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=deadline - time.monotonic())
            except queue.Empty:
                break
            if line is None:
                break
            self.output.append(line)
            found = re.search(r" at (http://\S+/)", line)
            if found:
                return found.group(1)
        self.stop()
        raise RuntimeError("cardc serve did not start:\n" + "".join(self.output))

    def stop(self) -> None:
        """Stop the server; what it printed is in `output`."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        while hasattr(self, "lines") and not self.lines.empty():
            line = self.lines.get()
            if line:
                self.output.append(line)


def launch(playwright):
    """A headless Chromium with a fresh profile (its --user-data-dir)."""
    profile = tempfile.mkdtemp(prefix="cardc-chromium-")
    return playwright.chromium.launch_persistent_context(
        profile, executable_path=CHROMIUM, headless=True, args=FLAGS,
        accept_downloads=True, viewport={"width": 1280, "height": 900}), profile


def launch_browser(playwright):
    """A headless Chromium for several contexts at once (people at one table)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
