"""The web application: routes, pages and the guard around them.

Starlette (an ASGI toolkit) maps URLs to small functions; every page is a
jinja2 template with autoescape on, so content text is always escaped, and
no page carries inline script: the one script is static/app.js, and the
Content-Security-Policy header forbids any other.  GET never changes
anything; starting a game, moving, undoing and simulating are POSTs.

    /                         card gallery of the first game
    /g/{game}                 card gallery (grouped by deck and kind, filterable)
    /g/{game}/card/{id}       one card: picture, fields, source, compiled form, rulebook text
    /g/{game}/pic/{id}.png    a card's picture (print renderer -> pypdfium2)
    /g/{game}/rulebook        the rulebook as HTML from the same template
    /g/{game}/play            start a game against bots (POST)  -> /play/{id}
    /play/{seat}              a person's seat: its view; POST /act, /undo;
                              GET /replay.json and /replay (the viewer) once the
                              game is over; /events
    /host/{game}              the host's page: a link per person's seat, POST /back
    /g/{game}/simulate        start a simulation (POST)  -> /sim/{id}
    /sim/{id}                 progress, then the report; /sim/{id}/report.html
                              POST /sim/{id}/cancel
    /runs                     every saved game and simulation (generated/serve/)
    /events                   server-sent events: the build version and what is being rebuilt
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from pathlib import Path
from urllib.parse import parse_qs

import jinja2

# imported before the server starts: it hooks uvicorn's exit so open event
# streams end at once on Ctrl-C
from sse_starlette import EventSourceResponse
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from cardc.agents import AGENTS, parse_agent
from cardc.engine import EngineError, Game
from cardc.serve.guard import Guard
from cardc.serve.play import Table
from cardc.serve.runs import Games, Store
from cardc.serve.simulate import Simulation, SimulationQueue
from cardc.serve.views import card_details, gallery_groups, rulebook_html, table_pictures
from cardc.serve.workbench import Workbench
from cardc.sim.sequential import BUDGET

HERE = Path(__file__).parent
MAX_FORM = 64 * 1024
BOTS = [name for name in AGENTS if name != "human"]


def _templates() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson_pretty"] = lambda v: json.dumps(v, indent=1, sort_keys=True, ensure_ascii=False)
    return env


class Pages:
    """The route handlers, over one Workbench."""

    def __init__(self, bench: Workbench, jobs: int = 1, shared: bool = False) -> None:
        self.bench = bench
        self.shared = shared          # --host: other computers reach the server too
        self.jobs = jobs
        self.env = _templates()
        self.games: dict[str, Game] = {}          # engine games by bundle hash
        self.store = Store(bench.root)
        self.tables = Games(self.store, self.engine)
        self.changed: dict[str, asyncio.Event] = {}   # by host key: set when the table moves
        self.host_notes: dict[str, str] = {}
        self.queue = SimulationQueue()
        self.sims: dict[str, Simulation] = {key: Simulation.saved(record, self.store.sim_html(key))
                                            for key, record in self.store.sims().items()}

    # ------------------------------------------------------------ helpers
    def page(self, template: str, request: Request, view=None, status: int = 200, **context):
        bench = self.bench
        html = self.env.get_template(template).render(
            bench=bench, games=bench.games, view=view, version=bench.version,
            path=request.url.path, **context)
        return HTMLResponse(html, status_code=status)

    def view(self, request: Request):
        name = request.path_params.get("game") or next(iter(self.bench.games))
        view = self.bench.games.get(name)
        if view is None:
            raise HTTPException(404, f"no game `{name}` in this project")
        return view

    def served(self, name: str):
        """The GameView of a saved game or simulation's game: gone from the
        project since, it is a 404 that says so."""
        view = self.bench.games.get(name)
        if view is None:
            raise HTTPException(404, f"its game `{name}` is not served now")
        return view

    def engine(self, bundle: dict) -> Game:
        game = self.games.get(bundle["source_hash"])
        if game is None:
            game = self.games[bundle["source_hash"]] = Game(bundle)
            while len(self.games) > 8:
                self.games.pop(next(iter(self.games)))
        return game

    @staticmethod
    async def form(request: Request) -> dict[str, str]:
        body = await request.body()
        if len(body) > MAX_FORM:
            raise HTTPException(413, "form too large")
        return {k: v[-1] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}

    # ------------------------------------------------------------ cards
    async def gallery(self, request: Request):
        view = self.view(request)
        groups = gallery_groups(view) if view.bundle else []
        return self.page("gallery.html", request, view, groups=groups)

    async def card(self, request: Request):
        view = self.view(request)
        details = card_details(self.bench, view, request.path_params["card"])
        if details is None:
            raise HTTPException(404, "no such card in the last good build")
        return self.page("card.html", request, view, card=details)

    async def picture(self, request: Request):
        view = self.view(request)
        picture = view.pictures.get(request.path_params["card"])
        if picture is None or view.bundle is None:
            raise HTTPException(404, "no such card")
        data = await asyncio.to_thread(self.bench.pictures.png, view.bundle, view.layout, picture)
        # the URL names the picture's key, so a cached copy is never stale
        return Response(data, media_type="image/png",
                        headers={"Cache-Control": "private, max-age=86400"})

    async def rulebook(self, request: Request):
        view = self.view(request)
        html, error = rulebook_html(view.bundle) if view.bundle else ("", None)
        return self.page("rulebook.html", request, view, rulebook=html, error=error)

    # ------------------------------------------------------------ play
    async def play_form(self, request: Request):
        view = self.view(request)
        return self.page("play_new.html", request, view, error=None, bots=BOTS)

    async def play_start(self, request: Request):
        view = self.view(request)
        form = await self.form(request)
        if view.bundle is None:
            raise HTTPException(409, "the game has no good build yet")
        try:
            players = int(form.get("players", ""))
            seed = _seed(form.get("seed", ""))
            low, high = view.bundle["players"]["min"], view.bundle["players"]["max"]
            if not low <= players <= high:
                raise ValueError(f"{view.title} is for {low} to {high} players")
            agents = [form.get(f"seat{i}", "random").strip() for i in range(players)]
            for agent in agents:
                parse_agent(agent)          # a ValueError names the agents there are
            table = await asyncio.to_thread(Table, self.engine(view.bundle), players, seed, agents)
        except (ValueError, EngineError) as exc:
            return self.page("play_new.html", request, view, error=str(exc), status=400, bots=BOTS)
        host = await asyncio.to_thread(self.tables.add, view.name, table)
        seats = self.tables.seats_of(host)
        if len(seats) == 1:                 # one person: straight to their seat
            return RedirectResponse(f"/play/{seats[table.humans[0]]}", status_code=303)
        return RedirectResponse(f"/host/{host}", status_code=303)

    def current_bundles(self) -> dict[str, dict]:
        return {n: v.bundle for n, v in self.bench.games.items() if v.bundle}

    async def seat(self, request: Request):
        """(host key, game name, Table, seat) of the URL's seat key: a saved
        game is resumed."""
        try:
            found = await asyncio.to_thread(self.tables.seat, request.path_params["table"],
                                            self.current_bundles())
        except (ValueError, EngineError) as exc:
            raise HTTPException(409, f"this game cannot be resumed: {exc}") from None
        if found is None:
            raise HTTPException(404, "no such game")
        return found

    def host_only(self, request: Request) -> None:
        """The host's pages (seat links, step back, the saved runs) answer
        only the computer the server runs on, even with --host: other
        computers get in by a seat's link only."""
        from cardc.serve.guard import is_loopback
        if self.shared and not is_loopback((request.client or (None,))[0]):
            raise HTTPException(403, "the host's pages answer only the computer the server runs on")

    async def hosted(self, request: Request):
        """(game name, Table) of the URL's host key."""
        self.host_only(request)
        try:
            found = await asyncio.to_thread(self.tables.get, request.path_params["host"],
                                            self.current_bundles())
        except (ValueError, EngineError) as exc:
            raise HTTPException(409, f"this game cannot be resumed: {exc}") from None
        if found is None:
            raise HTTPException(404, "no such game")
        return found

    def moved(self, host: str) -> None:
        """A table changed: every page open on it fetches itself again."""
        self.changed.setdefault(host, asyncio.Event()).set()
        self.changed[host] = asyncio.Event()

    async def play_view(self, request: Request):
        host, name, table, seat = await self.seat(request)
        view = self.served(name)
        seen = await asyncio.to_thread(table.view, seat)
        pics = table_pictures(view)
        return self.page("play.html", request, view, table=table, t=seen, pics=pics,
                         key=request.path_params["table"], replay=None)

    async def play_act(self, request: Request):
        host, name, table, seat = await self.seat(request)
        form = await self.form(request)
        key = request.path_params["table"]
        try:
            # a form sent twice (or from an old page) names a position that has passed
            await asyncio.to_thread(table.act, int(form.get("action", "-1")), int(form.get("at", "-1")), seat)
        except (ValueError, EngineError) as exc:       # an engine fault names card, effect and line
            table.notes[seat] = str(exc)
        await asyncio.to_thread(self.tables.save, host)
        self.moved(host)
        return RedirectResponse(f"/play/{key}", status_code=303)

    async def play_undo(self, request: Request):
        host, name, table, seat = await self.seat(request)
        await asyncio.to_thread(table.undo, seat)
        await asyncio.to_thread(self.tables.save, host)
        self.moved(host)
        return RedirectResponse(f"/play/{request.path_params['table']}", status_code=303)

    async def play_replay(self, request: Request):
        host, name, table, seat = await self.seat(request)
        if not table.over:
            # mid-game the seed and the actions would deal every hidden card
            raise HTTPException(403, "the replay is served once the game is over")
        with table.lock:
            data = json.dumps(table.replay(), indent=1) + "\n"
        filename = f"{table.game.id}-seed{table.seed}.json"
        return Response(data, media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{filename}"'})

    async def play_replayer(self, request: Request):
        """The replay viewer: ?at=N (moves taken), ?seat=P1..Pn or all."""
        from cardc.serve.replay import frame
        host, name, table, seat = await self.seat(request)
        if not table.over:
            raise HTTPException(403, "the replay is served once the game is over")
        query = request.query_params
        try:
            at = int(query.get("at", "0"))
            who = query.get("seat", f"P{seat + 1}")
            shown = None if who == "all" else int(who.removeprefix("P")) - 1
            if shown is not None and not 0 <= shown < table.players:
                raise ValueError
        except ValueError:
            raise HTTPException(400, "at: a number of moves; seat: P1, P2, ... or all") from None
        with table.lock:
            actions = list(table.actions)
        shot = await asyncio.to_thread(frame, table.game, table.players, table.seed, actions, at, shown)
        view = self.served(name)
        pics = table_pictures(view)
        return self.page("play.html", request, view, table=shot.table, t=shot.view, pics=pics,
                         key=request.path_params["table"], replay=shot)

    async def table_events(self, request: Request):
        """Server-sent events of one table: its move count at every change,
        and the builds as /events gives them (one stream a page: a browser
        opens at most six connections to a server, and each open stream
        holds one)."""
        if "host" in request.path_params:
            host = request.path_params["host"]
            await self.hosted(request)
        else:
            host = (await self.seat(request))[0]
        bench = self.bench

        async def stream():
            while True:
                moved = self.changed.setdefault(host, asyncio.Event())
                # the table in memory now (a game forgotten to save memory is read back anew)
                found = await asyncio.to_thread(self.tables.get, host, self.current_bundles())
                yield {"event": "moved", "data": json.dumps({"moves": len(found[1].actions)})}
                version, building = seen = bench.status
                yield {"event": "build", "data": json.dumps({"version": str(version),
                                                             "building": list(building)})}
                waits = [asyncio.ensure_future(moved.wait()), asyncio.ensure_future(bench.wait_change(seen))]
                try:
                    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for task in waits:
                        task.cancel()
        return EventSourceResponse(stream(), ping=10)

    # ------------------------------------------------------------ the host
    async def host_view(self, request: Request):
        host = request.path_params["host"]
        name, table = await self.hosted(request)
        view = self.served(name)
        base = str(request.base_url).rstrip("/")
        links = {seat: f"{base}/play/{key}" for seat, key in self.tables.seats_of(host).items()}
        with table.lock:
            st = table.st
            seats = [{"name": st.player_name(p), "agent": table.agents[p], "link": links.get(p),
                      "to_play": not st.is_terminal() and st.current_player() == p}
                     for p in range(table.players)]
            state = {"over": st.is_terminal(), "turn": st.turn, "moves": len(table.actions),
                     "winners": [st.player_name(w) for w in st.winners],
                     "can_step_back": any(d in table.humans for d in table.deciders)}
        return self.page("host.html", request, view, table=table, seats=seats, s=state, host=host,
                         note=self.host_notes.get(host, ""))

    async def host_back(self, request: Request):
        host = request.path_params["host"]
        name, table = await self.hosted(request)
        self.host_notes[host] = await asyncio.to_thread(table.step_back)
        await asyncio.to_thread(self.tables.save, host)
        self.moved(host)
        return RedirectResponse(f"/host/{host}", status_code=303)

    # ------------------------------------------------------------ simulate
    async def sim_form(self, request: Request):
        view = self.view(request)
        return self.page("simulate_new.html", request, view, error=None, bots=BOTS, budget=BUDGET)

    async def sim_start(self, request: Request):
        view = self.view(request)
        form = await self.form(request)
        try:
            games = int(form.get("games", "200"))
            seed = int(form.get("seed", "0") or 0)
            budget = int(form.get("max_games") or BUDGET)
        except ValueError:
            return self.page("simulate_new.html", request, view, status=400, bots=BOTS, budget=BUDGET,
                             error="games, the budget and seed are whole numbers")
        sets = [line.strip() for line in form.get("set", "").splitlines() if line.strip()]
        sim = Simulation(view.name, str(view.folder), games, form.get("players") or None,
                         form.get("agents") or "random", seed, sets,
                         holes=str(self.bench.root / "generated" / "holes" / view.name), jobs=self.jobs,
                         fixed=form.get("fixed") == "on", max_games=max(budget, games))
        key = secrets.token_urlsafe(12)
        sim.on_end = lambda s: self.store.save_sim(key, s.record(), s.html)
        self.sims[key] = sim
        self.store.save_sim(key, sim.record())
        self.queue.submit(sim)
        return RedirectResponse(f"/sim/{key}", status_code=303)

    async def sim_cancel(self, request: Request):
        sim = self.sim(request)
        sim.cancel()
        return RedirectResponse(f"/sim/{request.path_params['sim']}", status_code=303)

    # ------------------------------------------------------------ saved runs
    async def runs(self, request: Request):
        """Every saved game and simulation, newest first."""
        self.host_only(request)
        games = sorted(self.tables.saved.items(), key=lambda kv: -kv[1].get("started", 0))
        sims = sorted(self.sims.items(), key=lambda kv: -kv[1].started)
        return self.page("runs.html", request, None, saved_games=games, sims=sims, queue=self.queue)

    def sim(self, request: Request) -> Simulation:
        sim = self.sims.get(request.path_params["sim"])
        if sim is None:
            raise HTTPException(404, "no such simulation")
        return sim

    async def sim_view(self, request: Request):
        sim = self.sim(request)
        return self.page("simulate.html", request, self.served(sim.game), sim=sim,
                         key=request.path_params["sim"], ahead=self.queue.ahead_of(sim))

    async def sim_progress(self, request: Request):
        sim = self.sim(request)
        p = sim.progress
        return JSONResponse({"done": p.done, "total": p.total or sim.games, "rate": p.rate,
                             "state": sim.state, "ahead": self.queue.ahead_of(sim),
                             "finished": sim.finished, "error": sim.error})

    async def sim_report(self, request: Request):
        sim = self.sim(request)
        if sim.html is None:
            raise HTTPException(404, "the report is not ready")
        # the report styles itself inline and has no script at all
        return HTMLResponse(sim.html, headers={"Content-Security-Policy": REPORT_CSP})

    # ------------------------------------------------------------ live reload
    async def events(self, request: Request):
        bench = self.bench

        async def stream():
            seen = None
            while True:
                seen = await bench.wait_change(seen)
                version, building = seen
                yield {"event": "build", "data": json.dumps({"version": str(version),
                                                             "building": list(building)})}
        return EventSourceResponse(stream(), ping=10)

    async def health(self, request: Request):
        return JSONResponse({"version": self.bench.version,
                             "games": {n: {"ok": not v.failed, "built": v.bundle is not None}
                                       for n, v in self.bench.games.items()}})

    async def not_found(self, request: Request, exc: HTTPException):
        return self.page("error.html", request, None, status=exc.status_code,
                         message=exc.detail or "not found")


def _seed(text: str) -> int:
    """The seed typed into the form, or a fresh one: a seed everyone knows
    (0, say) would let a person work out the deal."""
    text = text.strip()
    if not text:
        return secrets.randbelow(2**31)
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"seed: a whole number, or empty for a fresh one (not `{text}`)") from None


REPORT_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; "
              "frame-ancestors 'self'; base-uri 'none'; form-action 'none'")


def make_app(bench: Workbench, loopback_only: bool = True, jobs: int = 1,
             watch: bool = True) -> Starlette:
    pages = Pages(bench, jobs, shared=not loopback_only)
    name = r"{game:str}"
    routes = [
        Route("/", pages.gallery),
        Route("/health", pages.health),
        Route("/events", pages.events),
        Route(f"/g/{name}", pages.gallery),
        Route(f"/g/{name}/card/{{card:str}}", pages.card),
        Route(f"/g/{name}/pic/{{card:str}}.png", pages.picture),
        Route(f"/g/{name}/rulebook", pages.rulebook),
        Route(f"/g/{name}/play", pages.play_form, methods=["GET"]),
        Route(f"/g/{name}/play", pages.play_start, methods=["POST"]),
        Route("/play/{table:str}", pages.play_view, methods=["GET"]),
        Route("/play/{table:str}/act", pages.play_act, methods=["POST"]),
        Route("/play/{table:str}/undo", pages.play_undo, methods=["POST"]),
        Route("/play/{table:str}/replay.json", pages.play_replay, methods=["GET"]),
        Route("/play/{table:str}/events", pages.table_events, methods=["GET"]),
        Route("/play/{table:str}/replay", pages.play_replayer, methods=["GET"]),
        Route("/host/{host:str}", pages.host_view, methods=["GET"]),
        Route("/host/{host:str}/back", pages.host_back, methods=["POST"]),
        Route("/host/{host:str}/events", pages.table_events, methods=["GET"]),
        Route(f"/g/{name}/simulate", pages.sim_form, methods=["GET"]),
        Route(f"/g/{name}/simulate", pages.sim_start, methods=["POST"]),
        Route("/sim/{sim:str}", pages.sim_view, methods=["GET"]),
        Route("/sim/{sim:str}/progress", pages.sim_progress, methods=["GET"]),
        Route("/sim/{sim:str}/report.html", pages.sim_report, methods=["GET"]),
        Route("/sim/{sim:str}/cancel", pages.sim_cancel, methods=["POST"]),
        Route("/runs", pages.runs, methods=["GET"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app):
        stop = asyncio.Event()
        tasks = []
        if watch:
            tasks.append(asyncio.create_task(bench.watch(stop)))
        tasks.append(asyncio.create_task(asyncio.to_thread(bench.warm_pictures)))
        try:
            yield
        finally:
            stop.set()
            bench.pictures.stopping.set()
            for task in tasks:
                task.cancel()

    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={HTTPException: pages.not_found})
    return Guard(app, loopback_only=loopback_only)

