"""`cardc serve` without a browser: the guard, the project, a seat's view,
undo, and a simulation that gives the terminal's numbers."""
from __future__ import annotations

import asyncio
import html
import json
import random
import re

import pytest

pytest.importorskip("starlette")

from cardc.engine import Game  # noqa: E402
from cardc.project import build_folder  # noqa: E402
from cardc.serve.guard import Guard, is_loopback  # noqa: E402
from cardc.serve.play import Table  # noqa: E402
from cardc.serve.workbench import Workbench, find_project  # noqa: E402
from conftest import MINI, REPO, copy_game  # noqa: E402


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
    from cardc.sim.play import play
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

    from cardc.agents.basic import Agent

    class First(Agent):
        name = "first"

        def choose(self, view):
            return 0
    import cardc.sim.play as cp
    real = cp.make_agent
    cp.make_agent = lambda name, seed, tuned=None: First() if name == "first" else real(name, seed, tuned)
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
                     holes=str(tmp_path / "h1"), fixed=True)
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


def test_a_sweep_from_the_page_runs_until_decisive_as_the_terminal_does(tmp_path):
    """By default the page's sweep is the command's sequential sweep: the
    same looks, the same stop, the same answer; the record keeps the answer
    for the result page after a restart."""
    from cardc.cli import main
    from cardc.serve.simulate import Simulation
    sim = Simulation("mini", str(MINI), 20, "2", "random", 1, ["params.win_at=10,14"],
                     holes=str(tmp_path / "h1"), max_games=160)
    assert sim.command() == ("cardc sweep mini --games 20 --max-games 160 --players 2 --agents random "
                             "--seed 1 --set params.win_at=10,14")
    sim.run()
    assert sim.error is None, sim.error
    out = tmp_path / "s.json"
    assert main(["sweep", str(MINI), "--games", "20", "--max-games", "160", "--players", "2",
                 "--seed", "1", "--jobs", "1", "--set", "params.win_at=10,14", "--quiet",
                 "--holes", str(tmp_path / "h2"), "--json", str(out)]) == 0
    terminal = json.loads(out.read_text())
    assert sim.report["sequential"] == terminal["sequential"] and sim.report["games"] == terminal["games"]
    assert sim.answer == terminal["answer"] and sim.answer[-1] == terminal["stopped"]
    assert sim.progress.total == 3 * terminal["games"]      # the bar ended at the last look
    again = Simulation.saved(json.loads(json.dumps(sim.record())), sim.html)
    assert again.answer == sim.answer and not again.fixed and again.max_games == 160


def test_a_budget_out_of_range_is_said_on_the_page(tmp_path):
    from cardc.serve.simulate import Simulation
    sim = Simulation("mini", str(MINI), 20, "2", "random", 1, ["params.win_at=10,14"],
                     holes=str(tmp_path / "h"), max_games=200_000)
    sim.run()
    assert sim.state == "failed" and sim.error == "at most (a sweep's budget): give 1 to 100,000 games"


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


def asgi_client(app):
    import httpx
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 5000))
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000")


FORM = {"content-type": "application/x-www-form-urlencoded"}


def test_the_replay_is_refused_until_the_game_is_over_and_each_game_has_a_fresh_seed(game_copy):
    """A replay names the seed and every action, so mid-game it would deal
    every hidden hand: it is served only at the end, at the seat's own link."""

    from cardc.serve.app import make_app
    folder = game_copy()
    bench = Workbench(folder.parent, [folder])
    bench.build_all()
    app = make_app(bench, watch=False)

    async def requests():
        async with asgi_client(app) as client:
            seeds = []
            for _ in range(2):
                started = await client.post("/g/mini/play", headers=FORM,
                                            content=b"players=2&seat0=human&seat1=random&seed=")
                assert started.status_code == 303
                key = started.headers["location"]
                page = await client.get(key)
                seeds.append(int(re.search(r'id="seed">seed (\d+)<', page.text).group(1)))
            assert seeds[0] != seeds[1], "a blank seed is a fresh one"
            refused = await client.get(key + "/replay.json")
            assert refused.status_code == 403
            assert "the replay is served once the game is over" in refused.text
            assert (await client.get("/play/no-such-seat/replay.json")).status_code == 404
            for _ in range(300):
                if 'id="game-over"' in page.text:
                    break
                at = re.search(r'name="at" value="(\d+)"', page.text).group(1)
                await client.post(key + "/act", headers=FORM, content=f"at={at}&action=0".encode())
                page = await client.get(key)
            assert 'id="game-over"' in page.text and "game over after turn" in page.text
            replay = await client.get(key + "/replay.json")
            assert replay.status_code == 200 and replay.json()["seed"] == seeds[1]
            bad = await client.post("/g/mini/play", headers=FORM,
                                    content=b"players=2&seat0=human&seat1=random&seed=x7")
            assert bad.status_code == 400
            assert "seed: a whole number, or empty for a fresh one (not `x7`)" in bad.text
    asyncio.run(requests())


def test_the_table_leaves_out_bookkeeping_counters_and_heads_with_every_seats_score():
    """unicorn marks `plays` and the refusals remembered this turn as
    bookkeeping: the seat's table shows the partner and each valuation."""
    bundle = build_folder(REPO / "content" / "unicorn").bundle
    player = bundle["counters"]["player"]
    assert player["plays"]["bookkeeping"] is True and player["declined_alliance"]["bookkeeping"] is True
    assert "bookkeeping" not in player["partner"]
    table = Table(Game(bundle), 3, 11, ["human", "random", "greedy"])
    rng = random.Random(11)
    for _ in range(40):
        view = table.view()
        assert set(view["counters"]) == {"partner"}
        assert [s["score"] for s in view["seats"]] == table.st.scores()
        assert [s["to_play"] for s in view["seats"]] == [True, False, False]
        if view["terminal"]:
            break
        table.act(rng.randrange(len(view["decision"]["actions"])))
    assert any(s["score"] for s in table.view()["seats"]), "someone banked something in 40 moves"


def test_a_card_or_cell_takes_a_choice_only_when_one_action_names_it():
    """A picture or a board cell is a button only for a card (or cell) that
    exactly one option names; a player number that happens to equal a card
    instance is not a card (its option does not read as the card's name)."""
    from cardc.serve.board import card_choices, cell_choices
    st = Game(build_folder(REPO / "content" / "ipo").bundle).new_state(2, seed=1)
    g = st.game
    tile = next(i for i in range(len(g.instances)) if g.card_field["cell"][i] == "C3")
    other = next(i for i in range(len(g.instances)) if g.card_field["cell"][i] == "D4")
    values = [tile, other, other, 1, "E5", None]
    labels = ["C3", "D4", "D4", "P2", "E5", "Pass"]
    assert card_choices(st, values, labels) == {tile: 0}
    assert cell_choices(st, values, labels) == {"C3": 0, "E5": 4}


def test_with_host_other_computers_get_in_by_a_seat_link_only(game_copy):
    """--host: a seat's link answers another computer; the host's pages (seat
    links, step back, the saved runs) answer only the server's own."""
    import httpx

    from cardc.serve.app import make_app
    folder = game_copy()
    bench = Workbench(folder.parent, [folder])
    bench.build_all()
    app = make_app(bench, loopback_only=False, watch=False)

    async def requests():
        local = httpx.ASGITransport(app=app, client=("127.0.0.1", 5000))
        lan = httpx.ASGITransport(app=app, client=("192.168.1.20", 5000))
        async with httpx.AsyncClient(transport=local, base_url="http://box:8000") as host, \
                httpx.AsyncClient(transport=lan, base_url="http://box:8000") as guest:
            started = await host.post("/g/mini/play", headers=FORM,
                                      content=b"players=2&seat0=human&seat1=human&seed=3")
            assert started.headers["location"].startswith("/host/")
            page = await host.get(started.headers["location"])
            links = re.findall(r'class="seat-link" href="http://box:8000(/play/[\w-]+)"', page.text)
            assert len(links) == 2
            assert (await guest.get(links[1])).status_code == 200
            for path in (started.headers["location"], "/runs"):
                refused = await guest.get(path)
                assert refused.status_code == 403
                assert "the host's pages answer only the computer the server runs on" in html.unescape(refused.text)
            assert (await guest.post(started.headers["location"] + "/back")).status_code == 403
    asyncio.run(requests())


def test_each_person_reads_the_log_as_their_seat_and_undoes_only_their_own(game_copy, mini):
    """Two people: a line naming a card one of them cannot see is redacted
    for that one only; an undo past the other person's decision is refused;
    the host's step back goes to the last decision a person took."""
    folder = game_copy(edits={"rules.yaml": [("move c to discard", "move c to draw")]})
    hidden = Game(build_folder(folder).bundle)
    for seed in range(40):
        table = Table(hidden, 2, seed, ["human", "human"])
        rng = random.Random(seed)
        for _ in range(200):
            view = table.view(table.st.current_player())
            if view["terminal"] or table.hidden_lines:
                break
            table.act(rng.randrange(len(view["decision"]["actions"])), seat=view["seat"])
        if table.hidden_lines:
            break
    else:
        pytest.fail("nobody discarded into the hidden pile")
    (i, (text, blind)), = table.hidden_lines.items()
    decider = int(table.logger.lines[i].split(" · ")[0].strip()[1:]) - 1
    assert blind == {1 - decider} and text.endswith("→ a card you cannot see")
    assert table.log(decider)[i] == table.logger.lines[i] != text
    assert table.log(1 - decider)[i] == text
    assert table.view(1 - decider)["log"][i] == text

    table = Table(mini, 2, 4, ["human", "human"])
    for _ in range(3):
        view = table.view(table.st.current_player())
        table.act(len(view["decision"]["actions"]) - 1, seat=view["seat"])
    last = table.deciders[-1]
    assert table.points[1 - last], "both people have decided"
    table.undo(1 - last)
    assert table.notes[1 - last] == "cannot undo: another person has decided since"
    before = len(table.actions)
    assert table.step_back() == "stepped back"
    assert len(table.actions) == before - 1 and table.st.current_player() == last
    assert table.log(0)[-1] == "  (the host stepped back)"


def test_host_prints_a_warning_that_the_seat_links_are_the_tickets(game_copy):
    from browser.harness import Server
    folder = game_copy()
    server = Server(folder, cwd=folder.parent, extra=["--host", "127.0.0.1"])
    try:
        printed = "".join(server.output)
    finally:
        server.stop()
    assert "warning: --host 127.0.0.1: answering other computers too;" in printed
    assert "a game's seat links are its only tickets: send each person their own seat's link only" in printed


def test_a_saved_game_whose_game_is_gone_is_a_404_that_says_so(game_copy):
    from cardc.serve.app import make_app
    folder = game_copy()
    bench = Workbench(folder.parent, [folder])
    bench.build_all()

    async def start():
        async with asgi_client(make_app(bench, watch=False)) as client:
            started = await client.post("/g/mini/play", headers=FORM, content=b"players=2&seat0=human&seed=1")
            return started.headers["location"]
    seat = asyncio.run(start())
    moved = folder.rename(folder.parent / "renamed")
    bench = Workbench(moved.parent, [moved])
    bench.build_all()

    async def again():
        async with asgi_client(make_app(bench, watch=False)) as client:
            return await client.get(seat)
    page = asyncio.run(again())
    assert page.status_code == 404 and "its game `mini` is not served now" in page.text
