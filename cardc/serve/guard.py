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

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; form-action 'self'; frame-src 'self'; frame-ancestors 'self'; "
       "base-uri 'none'")
HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),   # (no-referrer would make Origin "null")
    (b"cross-origin-opener-policy", b"same-origin"),
]
LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "[::1]"}


def is_loopback(host: str | None) -> bool:
    if not host:
        return False
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host == "localhost"


def _host_name(value: str) -> str:
    """`127.0.0.1:8000` -> `127.0.0.1`; `[::1]:8000` -> `[::1]`."""
    if value.startswith("["):
        return value.split("]")[0] + "]"
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


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
            if _host_name(headers.get("host", "")) not in LOOPBACK_NAMES:
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
