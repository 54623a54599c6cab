"""Games and simulations that outlast the server, saved under the project's
`generated/serve/`.

A game is saved as its replay record (bundle hash, players, seed, agents,
actions) plus who holds which seat: the engine is deterministic, so applying
the actions to a fresh state gives the game back exactly.  The bundle it was
played with is saved once by its hash (`bundles/`), so a game started before
an edit to the content resumes on the rules it was started with.  A
simulation is saved as its options, its outcome and its HTML report.

Every file is written atomically (render.atomic), and a key read back from
a file name or a URL is checked against `KEY` before it becomes a path.
"""
from __future__ import annotations

import json
import re
import secrets
import time
from pathlib import Path

from cardc.render.atomic import write_atomic

#: what a game's or simulation's key looks like (secrets.token_urlsafe)
KEY = re.compile(r"^[A-Za-z0-9_-]{8,40}$")
#: saved games and simulations read back at start, newest first
LIST_LIMIT = 200


class Store:
    def __init__(self, root: Path) -> None:
        self.folder = root / "generated" / "serve"

    # ------------------------------------------------------------ games
    def save_game(self, key: str, record: dict) -> None:
        write_atomic(self._path("games", key, ".json"), json.dumps(record, indent=1) + "\n")

    def save_bundle(self, bundle: dict) -> None:
        path = self.folder / "bundles" / f"{bundle['source_hash']}.json"
        if not path.exists():
            write_atomic(path, json.dumps(bundle))

    def bundle(self, source_hash: str) -> dict | None:
        if not re.fullmatch(r"[0-9a-f]{64}", source_hash or ""):
            return None
        path = self.folder / "bundles" / f"{source_hash}.json"
        return json.loads(path.read_text()) if path.is_file() else None

    def games(self) -> dict[str, dict]:
        return self._records("games")

    # ------------------------------------------------------------ simulations
    def save_sim(self, key: str, record: dict, html: str | None = None) -> None:
        if html is not None:
            write_atomic(self._path("sims", key, ".html"), html)
        write_atomic(self._path("sims", key, ".json"), json.dumps(record, indent=1) + "\n")

    def sims(self) -> dict[str, dict]:
        return self._records("sims")

    def sim_html(self, key: str) -> str | None:
        path = self._path("sims", key, ".html")
        return path.read_text(encoding="utf-8") if path.is_file() else None

    # ------------------------------------------------------------ files
    def _path(self, kind: str, key: str, suffix: str) -> Path:
        if not KEY.match(key):
            raise ValueError(f"not a key: {key!r}")
        return self.folder / kind / (key + suffix)

    def _records(self, kind: str) -> dict[str, dict]:
        """{key: record} of the saved files, newest first; a file that cannot
        be read (cut short by a crash, edited by hand) is skipped."""
        folder = self.folder / kind
        if not folder.is_dir():
            return {}
        paths = sorted((p for p in folder.glob("*.json") if KEY.match(p.stem)),
                       key=lambda p: p.stat().st_mtime, reverse=True)[:LIST_LIMIT]
        out = {}
        for path in paths:
            try:
                record = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(record, dict):
                out[path.stem] = record
        return out


class Games:
    """The games of the tables: in memory while played, on disk always.

    A game has a host key (the host's page: seat links, step back) and a
    seat key for each person's seat (that seat's view, and nothing else);
    keys are unguessable tokens, so a link is the seat's ticket.  A game not
    in memory (after a restart, or forgotten to save memory) is rebuilt from
    its saved record on first use."""

    MEMORY = 50

    def __init__(self, store: Store, engine) -> None:
        self.store = store
        self.engine = engine                      # bundle -> Game (cached by hash)
        self.live: dict[str, tuple[str, object]] = {}
        self.saved = store.games()
        self.seat_keys: dict[str, tuple[str, int]] = {
            key: (host, int(seat)) for host, record in self.saved.items()
            for key, seat in (record.get("seats") or {}).items() if KEY.match(key)}

    def add(self, name: str, table) -> str:
        """Keep a new game; its host key."""
        host = secrets.token_urlsafe(12)
        self.store.save_bundle(table.game.bundle)
        self.live[host] = (name, table)
        seats = {secrets.token_urlsafe(12): seat for seat in table.humans}
        self.seat_keys.update({key: (host, seat) for key, seat in seats.items()})
        self.saved[host] = {"started": time.time(), "seats": seats}
        self.save(host)
        while len(self.live) > self.MEMORY:
            self.live.pop(next(iter(self.live)))
        return host

    def seats_of(self, host: str) -> dict[int, str]:
        """{seat: its key} of a game's people."""
        return {int(seat): key for key, seat in (self.saved[host].get("seats") or {}).items()}

    def save(self, host: str) -> None:
        name, table = self.live[host]
        with table.lock:
            record = {**table.replay(), "title": name, "over": table.over, "turn": table.st.turn,
                      "winners": [table.st.player_name(w) for w in table.st.winners] if table.over else []}
        self.saved[host] = {**self.saved.get(host, {}), **record}
        self.store.save_game(host, self.saved[host])

    def seat(self, key: str, current: dict[str, dict]):
        """(host key, game name, Table, seat) of a seat key, or None."""
        if key not in self.seat_keys:
            return None
        host, seat = self.seat_keys[key]
        name, table = self.get(host, current)
        return host, name, table, seat

    def get(self, host: str, current: dict[str, dict]):
        """(game name, Table) or None; `current` holds each game's bundle now."""
        from cardc.serve.play import Table
        if host in self.live:
            return self.live[host]
        record = self.saved.get(host)
        if record is None or "actions" not in record:
            return None
        bundle = current.get(record.get("title"))
        if bundle is None or bundle["source_hash"] != record.get("bundle"):
            bundle = self.store.bundle(record.get("bundle", ""))
        if bundle is None:
            raise ValueError("this game's rules were not saved: it cannot be resumed")
        table = Table(self.engine(bundle), record["players"], record["seed"], record["agents"],
                      actions=record["actions"])
        self.live[host] = (record["title"], table)
        return self.live[host]
