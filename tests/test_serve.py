"""`cardc serve` without a browser: the guard, the project, a seat's view,
undo, and a simulation that gives the terminal's numbers."""
from __future__ import annotations

import asyncio
import json
import random

import pytest

pytest.importorskip("starlette")

from cardc.engine import Game  # noqa: E402
from cardc.project import build_folder  # noqa: E402
from cardc.serve.guard import Guard, is_loopback  # noqa: E402
from cardc.serve.play import Table  # noqa: E402
from cardc.serve.workbench import Workbench, find_project  # noqa: E402
from conftest import MINI, copy_game  # noqa: E402


def call(app, method="GET", client="127.0.0.1", host="127.0.0.1:8000", origin=None):
    """(status, headers) of one request through the ASGI app, without a network."""
    headers = [(b"host", host.encode())] + ([(b"origin", origin.encode())] if origin else [])
    scope = {"type": "http", "method": method, "path": "/", "headers": headers,
             "client": (client, 5000), "query_string": b""}
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)
    asyncio.run(app(scope, receive, send))
    return sent[0]["status"], dict(sent[0]["headers"])


def guarded(loopback_only=True):
    """The guard in front of an app that always answers 200."""
    async def inner(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})
    return Guard(inner, loopback_only=loopback_only)


def test_the_guard_answers_loopback_only_unless_told():
    assert call(guarded())[0] == 200
    assert call(guarded(), client="::1", host="[::1]:8000")[0] == 200
    assert call(guarded(), client="192.168.1.20")[0] == 403
    assert call(guarded(), host="attacker.example:8000")[0] == 403, "DNS rebinding"
    assert call(guarded(loopback_only=False), client="192.168.1.20", host="box:8000")[0] == 200
    assert call(guarded(), method="POST", origin="http://evil.example")[0] == 403
    assert call(guarded(), method="POST", origin="http://127.0.0.1:8000")[0] == 200
    status, headers = call(guarded())
    assert b"script-src 'self'" in headers[b"content-security-policy"]
    assert is_loopback("127.0.0.2") and not is_loopback("10.0.0.1") and not is_loopback(None)


def test_find_project(tmp_path):
    (tmp_path / "content").mkdir()
    copy_game(MINI, tmp_path / "content" / "mini")
    root, folders = find_project(str(tmp_path))
    assert root == tmp_path.resolve() and [f.name for f in folders] == ["mini"]
    root, folders = find_project(str(tmp_path / "content" / "mini"))
    assert folders == [(tmp_path / "content" / "mini").resolve()]


def test_a_failed_build_keeps_the_last_good_one(game_copy):
    folder = game_copy()
    bench = Workbench(folder.parent, [folder])
    view = bench.build("mini")
    assert view.bundle is not None and not view.failed and view.report == ""
    good = view.bundle
    cards = folder / "cards" / "cards.yaml"
    cards.write_text(cards.read_text().replace("kind: thief\n", "kind: theif\n", 1))
    view = bench.build("mini")
    assert view.failed and view.bundle is good
    assert "error: " in view.report and "^" in view.report and "mini: FAILED (1 error" in view.report


@pytest.fixture(scope="module")
def mini():
    return Game(build_folder(MINI).bundle)


def test_the_seat_sees_its_observation_and_the_game_matches_cardc_play(mini):
    from cardc.play import play
    # always the first option: the same choices `cardc play` makes with this agent
    table = Table(mini, 2, 5, ["human", "random"])
    for _ in range(300):
        if table.view()["terminal"]:
            break
        view = table.view()
        assert view["obs"] == table.st.observation(0)
        hand = view["obs"]["zones"]["hand@1"]
        assert all(c is None for c in hand["cards"]), "the other seat's hand is hidden"
        table.act(0)
    assert table.view()["terminal"]

    class First:
        name = "first"

        def act(self, view):
            return 0
    import cardc.play as cp
    real = cp.make_agent
    cp.make_agent = lambda name, seed: First() if name == "first" else real(name, seed)
    try:
        played = play(mini, 2, 5, ["first", "random"])
    finally:
        cp.make_agent = real
    assert played.actions == table.actions


def test_a_bot_choosing_a_card_that_stays_hidden_is_not_named(game_copy):
    """Discarding down into a hidden pile: the person sees that P2 chose, not what
    (a card that lands face up, as in the real game, is named)."""
    folder = game_copy(edits={"rules.yaml": [("move c to discard", "move c to draw")]})
    hidden = Game(build_folder(folder).bundle)
    found = False
    for seed in range(40):
        table = Table(hidden, 2, seed, ["human", "random"])
        rng = random.Random(seed)
        for _ in range(200):
            if table.view()["terminal"]:
                break
            table.act(rng.randrange(len(table.view()["decision"]["actions"])))
        for line in table.view()["log"]:
            if line.startswith("  P2 · Discard down"):
                found = True
                assert line.endswith("→ a card you cannot see")
        if found:
            break
    assert found, "no game made P2 discard down"


def test_undo_returns_to_the_last_decision_unless_the_seat_saw_something_new(mini):
    for seed in range(60):
        table = Table(mini, 2, seed, ["human", "random"])
        rng = random.Random(seed)
        for _ in range(200):
            view = table.view()
            if view["terminal"] or view["decision"]["prompt"].startswith("Discard down"):
                break
            table.act(rng.randrange(len(view["decision"]["actions"])))
        if not view["terminal"]:
            break
    else:
        pytest.fail("no game made P1 discard down")
    # discard, then the turn's menu: nothing new seen in between, so undo works
    before, log = len(table.actions), list(view["log"])
    table.act(0)
    assert table.view()["decision"]["prompt"] == "Play a card"
    table.undo()
    assert table.note == "undone" and len(table.actions) == before
    assert table.view()["decision"]["prompt"].startswith("Discard down")
    assert table.view()["log"] == log + ["  (undone)"]
    # pass the turn: P1 draws a new card before deciding again, so no undo past it
    table.act(0)
    table.act(table.view()["decision"]["actions"].index("Pass"))
    if not table.view()["terminal"]:
        table.undo()
        assert table.note.startswith("cannot undo")


def test_a_simulation_from_the_page_gives_the_terminals_numbers(tmp_path):
    from cardc.cli import main
    from cardc.serve.simulate import Simulation
    sim = Simulation("mini", str(MINI), 30, "2,3", "random,greedy", 4, [], holes=str(tmp_path / "h1"))
    sim.run()
    assert sim.error is None and sim.progress.done == 30
    out = tmp_path / "r.json"
    assert main(["simulate", str(MINI), "--games", "30", "--players", "2,3", "--agents", "random,greedy",
                 "--seed", "4", "--jobs", "1", "--quiet", "--holes", str(tmp_path / "h2"),
                 "--json", str(out)]) == 0
    terminal = json.loads(out.read_text())
    page = dict(sim.report)
    for report in (terminal, page):
        report.pop("run")
        for h in report["holes"]:
            h.pop("replay", None), h.pop("file", None)
    assert page == terminal
    assert "<svg" in sim.html and "<script" not in sim.html


def test_a_sweep_from_the_page_gives_the_terminals_differences(tmp_path):
    from cardc.cli import main
    from cardc.serve.simulate import Simulation
    sim = Simulation("mini", str(MINI), 20, "2", "random", 1, ["params.win_at=10,14"],
                     holes=str(tmp_path / "h1"))
    assert sim.sweep
    sim.run()
    assert sim.error is None, sim.error
    out = tmp_path / "s.json"
    assert main(["sweep", str(MINI), "--games", "20", "--fixed", "--players", "2", "--seed", "1",
                 "--jobs", "1", "--set", "params.win_at=10,14", "--quiet", "--holes", str(tmp_path / "h2"),
                 "--json", str(out)]) == 0
    terminal = json.loads(out.read_text())
    assert [v["diffs"] for v in sim.report["variants"]] == [v["diffs"] for v in terminal["variants"]]
    assert "<svg" in sim.html


def test_pages_escape_content_and_serve_nothing_outside_the_project(game_copy):
    import httpx

    from cardc.serve.app import make_app
    evil = '<script>alert(1)</script> & "quotes"'
    folder = game_copy(edits={"cards/cards.yaml": [("text: Take a banked gem from a rival.",
                                                    f"text: '{evil}'")]})
    bench = Workbench(folder.parent, [folder])
    bench.build_all()
    assert not bench.games["mini"].failed, bench.games["mini"].report
    app = make_app(bench, watch=False)

    async def requests():
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 5000))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as client:
            for path in ("/", "/g/mini/card/thief"):
                page = await client.get(path)
                assert page.status_code == 200
                assert "<script>alert" not in page.text
                assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
                assert "script-src 'self'" in page.headers["content-security-policy"]
                # the only script is the static one
                assert page.text.count("<script") == 1
                assert '<script src="/static/serve.js" defer></script>' in page.text
            for path in ("/", "/g/mini/card/thief", "/g/mini/rulebook", "/g/mini/play"):
                page = await client.get(path)
                # the CSP allows no inline style either: alignment and the like are classes
                assert page.status_code == 200 and " style=" not in page.text, path
            for path in ("/static/../../pyproject.toml", "/static/..%2f..%2fpyproject.toml",
                         "/g/mini/pic/..%2fgame.yaml.png", "/g/nosuch", "/g/mini/card/nosuch"):
                assert (await client.get(path)).status_code == 404, path
            assert (await client.post("/")).status_code == 405
            assert (await client.get("/play/none/act")).status_code == 405
            refused = await client.post("/g/mini/play", content=b"players=999999999&seat0=human",
                                        headers={"content-type": "application/x-www-form-urlencoded"})
            assert refused.status_code == 400 and "is for 2 to 3 players" in refused.text
            started = await client.post("/g/mini/play", content=b"players=2&seat0=human&seat1=greedy")
            assert started.status_code == 303 and started.headers["location"].startswith("/play/")
            table = await client.get(started.headers["location"])
            assert table.status_code == 200 and "button" in table.text
            picture = await client.get((await client.get("/")).text.split('src="')[2].split('"')[0])
            assert picture.headers["content-type"] == "image/png"
    asyncio.run(requests())


def test_without_a_target_the_working_directory_is_the_project(tmp_path, monkeypatch):
    import shutil
    shutil.copytree(MINI, tmp_path / "content" / "mini")
    monkeypatch.chdir(tmp_path)
    root, folders = find_project(None)
    assert root == tmp_path.resolve() and [f.name for f in folders] == ["mini"]
