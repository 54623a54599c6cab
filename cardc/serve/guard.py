"""The guard in front of every request (plain ASGI middleware).

* Loopback only, unless `--host` was given: a request from any other
  address is refused, and so is one whose Host header is not a loopback
  name (a page elsewhere cannot reach the server by DNS rebinding).
* A POST must come from the server's own pages: a cross-site Origin is refused.
* Every response says what the browser may run: only /static scripts, no
  inline script, no plugins, no framing by other sites.
"""
from __future__ import annotations

import ipaddress
import re

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; form-action 'self'; frame-src 'self'; frame-ancestors 'self'; "
       "base-uri 'none'")
HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),   # (no-referrer would make Origin "null")
    (b"cross-origin-opener-policy", b"same-origin"),
]


def is_loopback(host: str | None) -> bool:
    if not host:
        return False
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host == "localhost"


_HOST = re.compile(r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9.-]+))(?::(?P<port>[0-9]{1,5}))?")


def loopback_host_header(value: str) -> bool:
    """Whether a Host header names this computer: `localhost`, a loopback
    IPv4 address or `[::1]`, each with an optional port, and nothing else
    (`[::1]evil.example`, `localhost.evil.example:80` and `127.0.0.1:x` are
    not).  Parsed as a whole, not by its prefix."""
    m = _HOST.fullmatch(value)
    if m is None:
        return False
    if m["port"] is not None and not 0 < int(m["port"]) < 65536:
        return False
    if m["v6"] is not None:
        try:
            address = ipaddress.ip_address(m["v6"])
        except ValueError:
            return False
        return address.version == 6 and address.is_loopback
    name = m["name"].lower()
    if name == "localhost":
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    return address.version == 4 and address.is_loopback


class Guard:
    def __init__(self, app, loopback_only: bool = True) -> None:
        self.app = app
        self.loopback_only = loopback_only

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        refusal = self.refusal(scope)
        if refusal:
            return await _refuse(send, refusal)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {k.lower() for k, _ in headers}
                if b"content-security-policy" not in names:
                    headers.append((b"content-security-policy", CSP.encode()))
                headers += [h for h in HEADERS if h[0] not in names]
                message = {**message, "headers": headers}
            await send(message)
        return await self.app(scope, receive, send_with_headers)

    def refusal(self, scope) -> str | None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if self.loopback_only:
            client = (scope.get("client") or (None,))[0]
            if not is_loopback(client):
                return "this server answers only this computer (start it with --host to share it)"
            if not loopback_host_header(headers.get("host", "")):
                return "unexpected Host header"
        if scope["method"] not in ("GET", "HEAD"):
            origin = headers.get("origin")
            host = headers.get("host", "")
            if origin and origin not in (f"http://{host}", f"https://{host}"):
                return "a change must come from this server's own pages"
        return None


async def _refuse(send, reason: str) -> None:
    body = (reason + "\n").encode()
    await send({"type": "http.response.start", "status": 403,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
