"""`cardc serve` answers only Host headers that name this computer: the
header is parsed as a whole (host and port), not by its first characters,
so `[::1]evil.example` is refused (a page elsewhere could otherwise reach
the server by DNS rebinding)."""
from __future__ import annotations

import asyncio

import pytest

from cardc.serve.guard import Guard, loopback_host_header


@pytest.mark.parametrize("host", [
    "localhost", "localhost:8000", "LOCALHOST:1", "127.0.0.1", "127.0.0.1:8000", "127.1.2.3:80",
    "[::1]", "[::1]:8000", "[0:0:0:0:0:0:0:1]:8000",
])
def test_loopback_hosts_are_accepted(host):
    assert loopback_host_header(host)


@pytest.mark.parametrize("host", [
    "[::1]evil.example", "[::1]evil.example:8000", "[::1].evil.example", "[::1]:8000.evil.example",
    "localhost.evil.example", "localhost.evil.example:8000", "evil.example", "127.0.0.1.evil.example",
    "127.0.0.1:8000:1", "127.0.0.1:", "127.0.0.1:99999", "127.0.0.1:x", "::1", "[::1", "[127.0.0.1]",
    "[::2]:8000", "10.0.0.1", "0.0.0.0:8000", "", " localhost", "localhost ", "local host",
    "localhost\r\nX: y", "user@localhost",
])
def test_other_hosts_are_refused(host):
    assert not loopback_host_header(host)


def test_the_guard_refuses_a_host_that_only_starts_like_loopback():
    sent = []

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": "/", "client": ("::1", 5000),
             "headers": [(b"host", b"[::1]evil.example")]}
    asyncio.run(Guard(app)(scope, None, send))
    assert sent[0]["status"] == 403
