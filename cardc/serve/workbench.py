"""What the server knows: the project's games, each one's last good build,
and the diagnostics of its latest build.

A `Workbench` builds every game once at start, then rebuilds a game whenever
a file in its folder changes (watchfiles), in a worker thread.  A build that
fails keeps the last good bundle and records the diagnostics exactly as
`cardc check` prints them, so the pages go on showing the last good cards
under the error.  Every finished build bumps `version`; the pages follow it
through server-sent events (see app.py).
"""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path

from cardc.load.diagnostics import SourceCache
from cardc.load.paths import project_of
from cardc.project import UsageError, build_folder, game_folders
from cardc.render.errors import RenderError
from cardc.render.layout import load_layout

from .pictures import Picture, PictureCache, pictures_of

#: files whose change rebuilds a game (editor swap files and the like are ignored)
CONTENT_SUFFIXES = (".yaml", ".yml", ".j2", ".md")


def find_project(target: str | None) -> tuple[Path, list[Path]]:
    """(project root, game folders) for `cardc serve [GAME|PATH]`.

    No target, or a project folder: every game of that project (found as
    every command finds it, from the working directory upward).  Anything
    else names games as every other command reads them: a game id or a
    folder with a game.yaml, served in the project that holds it."""
    from cardc.load.paths import find_project as project_at
    from cardc.load.paths import is_project_root
    from cardc.project import current_project
    if target is None or is_project_root(Path(target)):
        project = project_at(Path(target)) if target else current_project()
        folders = project.games()
        if not folders:
            raise UsageError(f"{project.content} holds no game (no */game.yaml): "
                             "run `cardc new NAME` to start one")
        return project.root.resolve(), [p.resolve() for p in folders]
    folders = [p.resolve() for p in game_folders([target])]
    return project_of(folders[0]).root.resolve(), folders


@dataclass
class GameView:
    """One game as the pages show it."""
    folder: Path
    name: str
    bundle: dict | None = None            # the last good build
    layout: object = None                 # its print layout (render.layout.Layout)
    pictures: dict[str, Picture] = field(default_factory=dict)
    report: str = ""                      # diagnostics of the latest build, as `cardc check` prints them
    failed: bool = False                  # the latest build had errors
    built_at: float = 0.0
    seconds: float = 0.0                  # how long the latest build took

    @property
    def title(self) -> str:
        return self.bundle["name"] if self.bundle else self.name


class Workbench:
    def __init__(self, root: Path, folders: list[Path]) -> None:
        self.root = root
        self.games: dict[str, GameView] = {}
        for folder in folders:
            self.games[folder.name] = GameView(folder, folder.name)
        self.pictures = PictureCache()
        self.version = 0                  # finished builds so far
        self.building: set[str] = set()   # games being rebuilt now
        self._changed = asyncio.Event()

    # ------------------------------------------------------------ builds
    def build(self, name: str) -> GameView:
        """Build one game (blocking); keep its last good bundle on failure."""
        view = self.games[name]
        t0 = time.perf_counter()
        built = build_folder(view.folder)
        report = built.diags.render(SourceCache()) if len(built.diags) else ""
        failed = built.bundle is None or built.diags.has_errors
        if failed:
            errors, warnings = len(built.diags.errors), len(built.diags.warnings)
            report += (f"\n\n{view.folder.name}: FAILED ({errors} error{'s' * (errors != 1)}, "
                       f"{warnings} warning{'s' * (warnings != 1)})")
        else:
            try:
                layout = load_layout(built.bundle)
                pictures = pictures_of(built.bundle, layout)
            except RenderError as exc:    # a layout the renderer refuses: say so, keep the last cards
                report += f"\n\nthe cards cannot be drawn: {exc}"
                failed = True
            else:
                view.bundle, view.layout, view.pictures = built.bundle, layout, pictures
        view.report, view.failed = report.strip("\n"), failed
        view.seconds = time.perf_counter() - t0
        view.built_at = time.time()
        return view

    def build_all(self) -> None:
        for name in self.games:
            self.build(name)

    def warm_pictures(self) -> None:
        """Draw every game's pictures ahead of the first request (blocking)."""
        for view in self.games.values():
            if view.bundle is not None:
                self.pictures.warm(view.bundle, view.layout, view.pictures.values())

    def bump(self, finished: bool = True) -> None:
        """A build started or finished: wake every page that waits for news."""
        if finished:
            self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    @property
    def status(self) -> tuple[int, tuple[str, ...]]:
        """What the pages follow: the build version and the games being rebuilt."""
        return self.version, tuple(sorted(self.building))

    async def wait_change(self, seen) -> tuple[int, tuple[str, ...]]:
        """Return the status once it differs from `seen`."""
        while self.status == seen:
            await self._changed.wait()
        return self.status

    # ------------------------------------------------------------ watching
    def game_of(self, path: str) -> str | None:
        """The game a changed file belongs to, if it is a content file."""
        p = Path(path)
        if p.suffix not in CONTENT_SUFFIXES:
            return None
        for name, view in self.games.items():
            if p.is_relative_to(view.folder):
                return name
        return None

    async def watch(self, stop: asyncio.Event | None = None) -> None:
        """Rebuild each game whose files change, until `stop` is set."""
        from watchfiles import awatch
        folders = [v.folder for v in self.games.values()]
        # step: how long the folder must stay quiet before a batch of changes
        # is reported (an editor's save is several writes)
        async for changes in awatch(*folders, stop_event=stop, step=30, debounce=400,
                                    ignore_permission_denied=True):
            names = {n for _, path in changes if (n := self.game_of(path))}
            self.building |= names
            self.bump(finished=False)           # the pages say "rebuilding" at once
            for name in sorted(names):
                view = await asyncio.to_thread(self.build, name)
                self.building.discard(name)
                self.bump()
                if view.bundle is not None and not view.failed:
                    await asyncio.to_thread(self.pictures.warm, view.bundle, view.layout,
                                            view.pictures.values())
