"""`cardc serve [GAME|PATH] [--port N] [--host H] [--no-open]`.

Binds the socket itself (so `--port 0` takes a free port and the address
printed is the real one), builds every game once, then hands the socket to
uvicorn.  Without `--host` it listens on 127.0.0.1 and refuses any request
that is not from this computer.
"""
from __future__ import annotations

import argparse
import socket
import sys

from cardc.project import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", nargs="?", metavar="GAME|PATH",
                        help="a game id, a game folder, or a project folder with content/ "
                             "(default: every game of content/)")
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    parser.add_argument("--host", default=None,
                        help="listen on this address and answer other computers too "
                             "(default: 127.0.0.1, this computer only)")
    parser.add_argument("--no-open", action="store_true", help="do not open a browser")
    parser.add_argument("--jobs", type=int, default=1,
                        help="worker processes for simulations started from the page (default 1)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from cardc.serve.app import make_app
        from cardc.serve.workbench import Workbench, find_project
    except ImportError as exc:
        raise UsageError(f"`cardc serve` needs its extra dependencies ({exc.name} is missing): "
                         "pip install 'cardc[serve]' (in a checkout: pip install -e '.[serve]')") from None
    root, folders = find_project(args.target)
    bench = Workbench(root, folders)
    bench.build_all()
    for view in bench.games.values():
        state = "FAILED (the page shows why)" if view.failed else "ok"
        print(f"{view.name}: {state} ({view.seconds:.2f}s)", flush=True)
    host = args.host or "127.0.0.1"
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, args.port))
        sock.listen(128)
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{args.port}: {exc.strerror or exc}") from None
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    if args.host:
        print(f"warning: --host {host}: answering other computers too; anyone who can reach "
              f"{url} can read the cards, and a game's seat links are its only tickets: "
              "send each person their own seat's link only", file=sys.stderr)
    print(f"serving {root} at {url}  (Ctrl-C stops)", flush=True)
    app = make_app(bench, loopback_only=args.host is None, jobs=max(1, args.jobs))
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2, lifespan="on")
    server = uvicorn.Server(config)
    if not args.no_open:
        import threading
        import webbrowser
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    server.run(sockets=[sock])
    return 0
