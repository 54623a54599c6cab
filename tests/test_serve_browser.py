"""`cardc serve` driven by a real headless Chromium, as a designer uses it.

One server runs over a copy of the small test game in a temporary project
(the repository's content is never edited); the tests put every file they
change back as it was.  Every wait is on a condition with a deadline
(Playwright's auto-waiting, or the server printing its address), never a
fixed sleep.
"""
from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from browser.harness import Server, chromium_missing, launch, launch_browser
from conftest import MINI, copy_game

WHY_NOT = chromium_missing()
if WHY_NOT and os.environ.get("CI"):
    raise RuntimeError(f"CI runs the browser tests: {WHY_NOT}")
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")

WAIT_MS = 60_000          # the longest any one condition may take on a loaded machine


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A project folder holding a copy of the mini game; the server's cwd."""
    root = tmp_path_factory.mktemp("serve")
    copy_game(MINI, root / "mini")
    return root


@pytest.fixture(scope="module")
def server(project):
    srv = Server(project / "mini", cwd=project)
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def playwright():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright):
    context, profile = launch(playwright)
    context.set_default_timeout(WAIT_MS)
    yield context
    context.close()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(browser):
    page = browser.new_page()
    yield page
    page.close()


@pytest.fixture
def cards_file(project):
    """The mini game's card file, put back as it was after the test."""
    path = project / "mini" / "cards" / "cards.yaml"
    original = path.read_text()
    yield path
    if path.read_text() != original:
        path.write_text(original)


def mini_cards(project):
    from cardc.project import build_folder
    return build_folder(project / "mini").bundle["cards"]


def fetch(url, method="GET", headers=None, data=None):
    """(status, headers, body) of one request, errors included."""
    req = urllib.request.Request(url, method=method, headers=headers or {}, data=data)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


# ---------------------------------------------------------------- the gallery

def test_gallery_shows_every_card_as_a_picture(server, page, project):
    page.goto(server.url)
    shown = page.locator("a.card").evaluate_all("els => els.map(e => e.dataset.card)")
    cards = mini_cards(project)
    assert shown == [c["id"] for c in cards] or sorted(shown) == sorted(c["id"] for c in cards)
    for c in cards:
        tile = page.locator(f'a.card[data-card="{c["id"]}"]')
        assert tile.locator(".name").inner_text() == c["name"]
        assert tile.locator(".qty").inner_text() == f"×{c['count']}"
        src = tile.locator("img").get_attribute("src")
        response = page.request.get(server.url.rstrip("/") + src)
        assert response.headers["content-type"] == "image/png"
        assert response.body()[:8] == b"\x89PNG\r\n\x1a\n"
    page.fill("#filter", "rival")
    assert page.locator("a.card:visible").evaluate_all("els => els.map(e => e.dataset.card)") == ["thief"]
    page.fill("#filter", "")
    page.select_option("#kind-filter", "gem")
    assert sorted(page.locator("a.card:visible").evaluate_all("els => els.map(e => e.dataset.card)")) \
        == ["pearl", "ruby"]


def test_card_page_shows_source_and_compiled_form(server, page):
    page.goto(server.url + "g/mini/card/thief")
    link = page.locator("p.where a")
    assert re.fullmatch(r"mini/cards/cards\.yaml:\d+", link.inner_text())
    assert link.get_attribute("href").startswith("vscode://file/")
    assert link.get_attribute("href").endswith("/mini/cards/cards.yaml:" + link.inner_text().split(":")[-1])
    source = page.locator("pre.source").inner_text()
    assert "- id: thief" in source and "window steal" in source and "id: guard" not in source
    compiled = json.loads(page.locator("pre.compiled").text_content())
    assert compiled["id"] == "thief" and compiled["effect"]["ops"]


# ---------------------------------------------------------------- live reload

def test_an_edit_appears_in_the_open_page_without_a_reload(server, page, cards_file):
    page.goto(server.url)
    thief = page.locator('a.card[data-card="thief"]')
    old_src = thief.locator("img").get_attribute("src")
    page.evaluate("window.stillTheSamePage = true")
    cards_file.write_text(cards_file.read_text().replace(
        "text: Take a banked gem from a rival.", "text: Snatch a banked gem & run <fast>."))
    page.locator('a.card[data-card="thief"] .text').filter(
        has_text="Snatch a banked gem & run <fast>.").wait_for()
    assert page.evaluate("window.stillTheSamePage") is True, "the page was reloaded, not updated"
    assert thief.locator("img").get_attribute("src") != old_src, "the picture was not redrawn"
    assert page.locator('a.card[data-card="ruby"] img').get_attribute("src").startswith("/g/mini/pic/ruby.png")


def test_a_rebuild_keeps_what_the_designer_typed_into_the_page(server, page, cards_file):
    """A build that swaps the page in again keeps the fields filled in (a new
    game's seed and seats): the designer does not lose a half-filled form."""
    page.goto(server.url + "g/mini/play")
    page.fill('input[name="seed"]', "7")
    page.select_option('select[name="seat1"]', "human")
    version = page.evaluate("document.body.dataset.version")
    cards_file.write_text(cards_file.read_text().replace(
        "text: Take a banked gem from a rival.", "text: Take a banked gem from a rival, fast."))
    page.wait_for_function("v => document.body.dataset.version !== v", arg=version)
    assert page.locator('input[name="seed"]').input_value() == "7"
    assert page.locator('select[name="seat1"]').input_value() == "human"
    assert page.locator('select[name="seat0"]').input_value() == "human"     # untouched, as it was


def test_a_broken_file_shows_its_located_error_and_the_fix_brings_the_gallery_back(
        server, page, project, cards_file):
    page.goto(server.url)
    good = cards_file.read_text()
    cards_file.write_text(good.replace("kind: thief\n", "kind: theif\n", 1))
    expected = subprocess.run([sys.executable, "-m", "cardc", "check", "mini"], cwd=project,
                              capture_output=True, text=True).stderr.strip()
    assert re.search(r"mini/cards/cards\.yaml:\d+:\d+: error: ", expected) and "^" in expected
    diag = page.locator("#status pre.diag")
    diag.wait_for()
    page.wait_for_function("t => document.querySelector('#status pre.diag').textContent.includes(t)",
                           arg=expected)
    assert "hint: " in diag.text_content()
    # the last good build stays on the page under the error
    assert page.locator("a.card").count() == len(mini_cards_of(good))
    cards_file.write_text(good)
    page.locator("#status pre.diag").wait_for(state="detached")
    assert page.locator('a.card[data-card="thief"]').count() == 1


def mini_cards_of(text):
    return re.findall(r"^  - id: (\w+)", text, re.M)


def test_the_rulebook_preview_follows_edits(server, page, project):
    path = project / "mini" / "rulebook.md.j2"
    try:
        path.write_text("# Mini rules\n\nA **Thief** takes a gem from a rival.\n")
        page.goto(server.url + "g/mini/rulebook")
        page.locator("article.rulebook h1", has_text="Mini rules").wait_for()
        page.evaluate("window.stillTheSamePage = true")
        path.write_text("# Mini rules, second edition\n\nA **Thief** takes a gem from a rival.\n")
        page.locator("article.rulebook h1", has_text="second edition").wait_for()
        assert page.evaluate("window.stillTheSamePage") is True
        page.goto(server.url + "g/mini/card/thief")
        assert "takes a gem from a rival" in page.locator(".mentions").inner_text()
    finally:
        path.unlink()


# ---------------------------------------------------------------- play

def fill_new_game(page, fields):
    """Fill the new-game form, and see that it holds every value before it is
    sent. A rebuild set off by an earlier test's edit may still swap the page
    in: serve.js keeps what was typed into the page, but a value typed into
    the very element being replaced is lost (once, under load, the game
    started with seed 0)."""
    for _ in range(20):
        for selector, value in fields:
            if selector.startswith("select") or selector == "#players":
                page.select_option(selector, value)
            else:
                page.fill(selector, value)
        if all(page.locator(selector).input_value() == value for selector, value in fields):
            return
    pytest.fail("the new-game form would not keep its values")


def test_a_two_player_game_played_by_clicking_replays_identically(server, page, project, tmp_path):
    page.goto(server.url + "g/mini/play")
    fill_new_game(page, [("#players", "2"), ('select[name="seat0"]', "human"),
                         ('select[name="seat1"]', "random"), ('input[name="seed"]', "7")])
    page.click("#start")
    assert page.locator("#seed").inner_text() == "seed 7"
    refused = page.request.get(page.url + "/replay.json")
    assert refused.status == 403 and "served once the game is over" in refused.text()
    rng = random.Random(7)
    undone = False
    for _ in range(500):
        page.wait_for_selector("#decision, #game-over")
        if page.locator("#game-over").count():
            break
        buttons = page.locator("button.action")
        buttons.nth(rng.randrange(buttons.count())).click()
        if not undone and page.locator("#undo").count():
            before = page.locator("#log").inner_text()
            page.click("#undo")
            page.locator("#note").wait_for()
            undone = "undone" in page.locator("#note").inner_text()
            assert not undone or page.locator("#log").inner_text() != before
    else:
        pytest.fail("the game did not end in 500 clicks")
    assert page.locator("#where").inner_text().startswith("game over after turn")
    log = page.locator("#log").inner_text().splitlines()
    with page.expect_download() as download:
        page.click("#download-replay")
    replay_file = tmp_path / "game.json"
    download.value.save_as(replay_file)
    record = json.loads(replay_file.read_text())
    assert record["players"] == 2 and record["seed"] == 7 and record["agents"] == ["human", "random"]
    out = subprocess.run([sys.executable, "-m", "cardc", "replay", str(replay_file),
                          "--bundle", str(project / "mini")], cwd=project,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    replayed = out.stdout.splitlines()

    def engine_lines(lines):
        """What the game itself said (decision lines differ: the page hides
        the names of cards the person could not see)."""
        return [x for x in lines if " · " not in x and x.strip() != "(undone)"]
    assert engine_lines(log) == engine_lines(replayed)
    assert sum(" · " in x for x in replayed) == len(record["actions"])
    assert log[-1] == replayed[-1] and replayed[-1].startswith(("Winner", "No winner", "Game stopped"))


# ---------------------------------------------------------------- the guard

def test_only_project_files_only_loopback_only_post(server):
    base = server.url.rstrip("/")
    for path in ("/static/../../../../etc/passwd", "/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
                 "/static/..%2f..%2f..%2fpyproject.toml", "/g/..%2f..%2fetc/passwd",
                 "/g/mini/card/..%2f..%2fgame.yaml"):
        status, _, body = fetch(base + path)
        assert status == 404, path
        assert b"root:" not in body
    status, headers, _ = fetch(base + "/")
    csp = headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    assert fetch(base + "/g/mini/play", method="POST", data=b"players=2",
                 headers={"Origin": "http://evil.example"})[0] == 403
    assert fetch(base + "/", headers={"Host": "evil.example"})[0] == 403
    assert fetch(base + "/play/x/undo")[0] == 405            # changes only through POST
    assert fetch(base + "/g/mini/play", method="PUT", data=b"")[0] == 405


# ---------------------------------------------------------------- the table

def console_errors(page) -> list[str]:
    """Collects the page's console errors and uncaught exceptions from now on."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def test_the_hand_shows_card_pictures_and_a_larger_one_on_hover_and_tap(server, page):
    errors = console_errors(page)
    page.goto(server.url + "g/mini/play")
    fill_new_game(page, [("#players", "2"), ('select[name="seat0"]', "human"),
                         ('select[name="seat1"]', "random"), ('input[name="seed"]', "3")])
    page.click("#start")
    page.wait_for_selector("#decision")
    hand = page.locator('.zone[data-zone="hand@0"]')
    count = int(re.search(r"\((\d+)\)", hand.locator(".zname").inner_text()).group(1))
    pictures = hand.locator("button.pic img")
    assert count > 0 and pictures.count() == count
    for i in range(count):
        img = pictures.nth(i)
        img.scroll_into_view_if_needed()
        page.wait_for_function("img => img.complete && img.naturalWidth > 100", arg=img.element_handle())
        assert img.get_attribute("alt")
    # the rival's hand is not drawn, only counted
    assert page.locator('.zone[data-zone="hand@1"] button.pic').count() == 0
    assert "hidden" in page.locator('.zone[data-zone="hand@1"]').inner_text()
    first = hand.locator("button.pic").first
    preview = page.locator("#preview")
    assert preview.is_hidden()
    first.hover()
    preview.wait_for(state="visible")
    assert preview.locator("img").get_attribute("src") == first.get_attribute("data-big")
    assert preview.locator("img").evaluate("img => img.getBoundingClientRect().width") > 200
    page.mouse.move(5, 5)
    preview.wait_for(state="hidden")
    first.click()                           # a tap keeps it shown
    page.mouse.move(5, 5)
    assert preview.is_visible()
    page.keyboard.press("Escape")
    preview.wait_for(state="hidden")
    assert errors == []


@pytest.fixture(scope="module")
def ipo_server(tmp_path_factory):
    from conftest import REPO
    root = tmp_path_factory.mktemp("serve-ipo")
    copy_game(REPO / "content" / "ipo", root / "ipo")
    srv = Server(root / "ipo", cwd=root)
    yield srv
    srv.stop()


def test_the_ipo_board_shows_land_options_and_companies_and_takes_a_click(ipo_server, page):
    """The board is drawn from the grid and `display`: tiles shaded by
    company, a legend with each company's name and size, placed land options
    as markers; a tile or a space to choose is a button on its cell."""
    errors = console_errors(page)
    page.goto(ipo_server.url + "g/ipo/play")
    fill_new_game(page, [("#players", "2"), ('select[name="seat0"]', "human"),
                         ('select[name="seat1"]', "random"), ('input[name="seed"]', "5")])
    page.click("#start")
    clicked = []
    for _ in range(300):
        page.wait_for_selector("#decision, #game-over")
        if page.locator("#game-over").count():
            break
        if page.locator("table.legend tr[data-group]").count() and page.locator("td.marked").count() \
                and clicked:
            break
        cells = page.locator("button.cell-choice")
        option = page.locator("button.action", has_text="Place a land option")
        if cells.count():
            cell = cells.first.locator("xpath=ancestor::td").get_attribute("data-cell")
            cells.first.click()
            clicked.append(cell)
            page.locator("#log").filter(has_text=f"P1 places {cell}").or_(
                page.locator("#log").filter(has_text=f"P1 places a land option on {cell}")).wait_for()
        elif option.count():
            option.click()
        else:
            page.locator("button.action").first.click()
    else:
        pytest.fail("no company and no land option in 300 moves")
    assert clicked, "no cell was ever offered as a button"
    # a company: its name in the legend, its size = its shaded cells on the board
    row = page.locator("table.legend tr[data-group]").first
    name = row.locator("th").inner_text().strip()
    size = int(row.locator("td").first.inner_text())
    shade = row.locator(".swatch").get_attribute("class").split()[-1]
    assert page.locator(f"table.board td.{shade}").count() == size >= 2
    titles = page.locator(f"table.board td.{shade}").evaluate_all("els => els.map(e => e.title)")
    assert all(t.endswith(f"({name})") for t in titles)
    assert page.locator("table.legend th[scope=col]").all_inner_texts()[1:] == ["tiles", "price", "public", "safe"]
    # a land option: a marker on its cell, with its owner
    marked = page.locator("td.marked").first
    assert "Land Option, P" in marked.get_attribute("title")
    # the board zone's tiles are drawn on the board, not listed again
    assert page.locator('.zone[data-zone="board"]').count() == 0
    assert errors == []


# ---------------------------------------------------------------- runs that last

def play_moves(page, moves, rng):
    for _ in range(moves):
        page.wait_for_selector("#decision, #game-over")
        if page.locator("#game-over").count():
            return
        buttons = page.locator("button.action")
        buttons.nth(rng.randrange(buttons.count())).click()
        page.wait_for_selector("#decision, #game-over")


def test_a_game_survives_a_reload_and_a_server_restart(tmp_path, browser):
    """The game is saved under generated/serve/ after every move: a reload
    shows it as it was, and so does a new server on the same project, where
    the game goes on and is listed on the runs page."""
    copy_game(MINI, tmp_path / "mini")
    first = Server(tmp_path / "mini", cwd=tmp_path)
    page = browser.new_page()
    try:
        page.goto(first.url + "g/mini/play")
        fill_new_game(page, [("#players", "2"), ('select[name="seat0"]', "human"),
                             ('select[name="seat1"]', "random"), ('input[name="seed"]', "11")])
        page.click("#start")
        play_moves(page, 3, random.Random(1))
        assert page.locator("#decision").count(), "the game goes on"
        path = page.url.removeprefix(first.url.rstrip("/"))
        log = page.locator("#log").inner_text()
        page.reload()
        assert page.locator("#log").inner_text() == log
        saved = [json.loads(f.read_text()) for f in (tmp_path / "generated" / "serve" / "games").glob("*.json")]
        assert [list(r["seats"]) for r in saved] == [[path.rsplit("/", 1)[1]]]
        assert saved[0]["actions"] and saved[0]["seed"] == 11
    finally:
        first.stop()
    second = Server(tmp_path / "mini", cwd=tmp_path)
    try:
        page.goto(second.url.rstrip("/") + path)
        assert page.locator("#log").inner_text() == log
        assert page.locator("#seed").inner_text() == "seed 11"
        play_moves(page, 1, random.Random(2))
        assert page.locator("#log").inner_text().startswith(log.rstrip("\n"))
        assert page.locator("#log").inner_text() != log
        page.goto(second.url + "runs")
        row = page.locator("#saved-games tr[data-key]")
        assert row.count() == 1 and row.locator("td").first.inner_text() == "mini"
    finally:
        page.close()
        second.stop()


def test_a_simulation_waits_its_turn_and_can_be_cancelled(server, page):
    """One simulation runs at a time; the next says how many are ahead of it.
    Cancel stops the running one, and the waiting one starts."""
    errors = console_errors(page)
    keys = []
    for games in ("100000", "30"):
        page.goto(server.url + "g/mini/simulate")
        page.fill('input[name="games"]', games)
        page.click("#simulate")
        page.wait_for_url(re.compile(r"/sim/[\w-]+$"))
        keys.append(page.url.rsplit("/", 1)[1])
    page.locator("#sim-waiting").wait_for(state="visible")
    assert page.locator("#sim-ahead").inner_text() == "1"
    page.goto(server.url + "sim/" + keys[0])
    page.wait_for_function("() => +document.getElementById('sim-progress').value > 0")
    page.click("#sim-cancel")
    page.locator("#sim-cancelled").wait_for()
    done = int(re.search(r"after (\d+) games", page.locator("#sim-cancelled").inner_text()).group(1))
    assert 0 < done < 100000
    page.goto(server.url + "sim/" + keys[1])
    page.locator("#sim-done").wait_for()
    page.goto(server.url + "runs")
    states = {k: page.locator(f'#saved-sims tr[data-key="{k}"] td').nth(4).inner_text() for k in keys}
    assert states == {keys[0]: "cancelled", keys[1]: "done"}
    assert errors == []


def test_a_sweep_runs_until_decisive_and_its_page_opens_with_the_answer(server, page):
    """A sweep from the form plays until decided or out of budget (the
    command's sequential sweep) and the result page opens with its answer
    in words; "Fixed count" plays exactly the games asked for."""
    errors = console_errors(page)
    page.goto(server.url + "g/mini/simulate")
    page.fill('input[name="games"]', "20")
    page.fill('input[name="max_games"]', "40")
    page.fill('input[name="players"]', "2")
    page.fill('textarea[name="set"]', "params.win_at=10,14")
    assert not page.get_by_label("Fixed count").is_checked()
    page.click("#simulate")
    page.locator("#sim-done").wait_for()
    assert page.locator("h1").inner_text() == ("Mini: a sweep until decisive (first look 20 games, "
                                               "at most 40 per variant)")
    assert "--max-games 40" in page.locator("p.note code").inner_text()
    lines = page.locator("#sim-answer p").all_inner_texts()
    assert lines[0] == "Setting params.win_at from 12 (baseline) to 10, over 40 paired games (random; players 2):"
    assert lines[-1].startswith("The budget of 40 games is spent; still undecided: ")
    # the answer comes before the report, which holds the same words
    assert page.evaluate("""() => document.getElementById('sim-answer').compareDocumentPosition(
        document.getElementById('report')) === Node.DOCUMENT_POSITION_FOLLOWING""")
    key = page.url.rsplit("/", 1)[1]
    page.goto(server.url + "runs")
    assert page.locator(f'#saved-sims tr[data-key="{key}"] td').nth(1).inner_text() == \
        "20 to 40, until decisive"
    page.goto(server.url + "g/mini/simulate")
    page.fill('input[name="games"]', "20")
    page.fill('input[name="players"]', "2")
    page.fill('textarea[name="set"]', "params.win_at=10,14")
    page.get_by_label("Fixed count").check()
    page.click("#simulate")
    page.locator("#sim-done").wait_for()
    assert page.locator("h1").inner_text() == "Mini: 20 games per variant"
    assert "--games 20 --fixed" in page.locator("p.note code").inner_text()
    lines = page.locator("#sim-answer p").all_inner_texts()
    assert lines[0] == "Setting params.win_at from 12 (baseline) to 10, over 20 paired games (random; players 2):"
    assert not any(line.startswith(("The budget", "Stopped at look")) for line in lines)
    assert errors == []


def test_stopping_the_server_mid_simulation_says_so_and_a_restart_lists_it_interrupted(tmp_path, browser):
    copy_game(MINI, tmp_path / "mini")
    first = Server(tmp_path / "mini", cwd=tmp_path)
    page = browser.new_page()
    try:
        page.goto(first.url + "g/mini/simulate")
        page.fill('input[name="games"]', "100000")
        page.click("#simulate")
        page.wait_for_url(re.compile(r"/sim/[\w-]+$"))
        key = page.url.rsplit("/", 1)[1]
        page.wait_for_function("() => +document.getElementById('sim-progress').value > 0")
        first.stop()
        page.locator("#sim-lost").wait_for(state="visible")
        page.locator("#server-gone").wait_for(state="visible")
        second = Server(tmp_path / "mini", cwd=tmp_path)
        try:
            page.goto(second.url + "sim/" + key)
            assert "Interrupted: the server stopped before it finished" in page.locator("#sim-interrupted").inner_text()
            page.goto(second.url + "runs")
            assert page.locator(f'#saved-sims tr[data-key="{key}"] td').nth(4).inner_text() == "interrupted"
        finally:
            second.stop()
    finally:
        page.close()
        first.stop()


# ---------------------------------------------------------------- people at one table

@pytest.fixture(scope="module")
def unicorn_server(tmp_path_factory):
    from conftest import REPO
    root = tmp_path_factory.mktemp("serve-unicorn")
    copy_game(REPO / "content" / "unicorn", root / "unicorn")
    srv = Server(root / "unicorn", cwd=root)
    yield srv
    srv.stop()


def hand_pictures(page, seat):
    return page.locator(f'.zone[data-zone="hand@{seat}"] button.pic').count()


def test_two_people_and_a_bot_play_one_game_from_two_browsers(unicorn_server, playwright):
    """The host opens a unicorn game for two people and a bot and gets a link
    per person's seat; each browser sees its own hand and no other, the other
    person's moves arrive without a reload, a reload finds the game again, and
    the host's step back reaches both pages."""
    chromium = launch_browser(playwright)
    try:
        host, alice, bob = (chromium.new_context(viewport={"width": 1280, "height": 900})
                            for _ in range(3))
        for ctx in (host, alice, bob):
            ctx.set_default_timeout(WAIT_MS)
        page = host.new_page()
        page.goto(unicorn_server.url + "g/unicorn/play")
        fill_new_game(page, [("#players", "3"), ('select[name="seat0"]', "human"),
                             ('select[name="seat1"]', "human"), ('select[name="seat2"]', "random"),
                             ('input[name="seed"]', "5")])
        page.click("#start")
        page.wait_for_url(re.compile(r"/host/[\w-]+$"))
        links = page.locator("a.seat-link").evaluate_all("els => els.map(e => e.href)")
        assert len(links) == 2 and links[0] != links[1]
        assert page.locator('#seat-links tr[data-seat="2"] td').first.inner_text() == "random bot"
        pages = [alice.new_page(), bob.new_page()]
        errors = [console_errors(x) for x in pages]
        for seat, (x, link) in enumerate(zip(pages, links)):
            x.goto(link)
            assert hand_pictures(x, seat) == 5, "a person sees their own hand"
            assert hand_pictures(x, 1 - seat) == 0 and hand_pictures(x, 2) == 0
            assert "5 hidden" in x.locator(f'.zone[data-zone="hand@{1 - seat}"]').inner_text()
            x.evaluate("window.stillTheSamePage = true")
        rng = random.Random(5)
        moved = [0, 0]
        for _ in range(80):
            if min(moved) >= 3:
                break
            # whose decision it is, as the page that moved last shows it
            turn = pages[0].locator(".seat-score.to-play .who").all_inner_texts() or \
                pages[1].locator(".seat-score.to-play .who").all_inner_texts()
            if not turn:
                break                                   # the game is over
            seat = 0 if turn[0].startswith("P1") else 1
            x = pages[seat]
            x.locator("#decision").wait_for()           # arrived live, or it moved itself
            buttons = x.locator("#decision button.action")
            buttons.nth(rng.randrange(buttons.count())).click()
            x.wait_for_selector("#headline")
            moved[seat] += 1
            pages[1 - seat].evaluate("window.stillTheSamePage = true")
        assert min(moved) >= 3, f"both people played ({moved})"
        other = pages[1 - seat]
        # the page that did not just move followed without a reload
        other.wait_for_function("n => document.body.dataset.moves === n",
                                arg=pages[seat].evaluate("document.body.dataset.moves"))
        assert other.evaluate("window.stillTheSamePage") is True
        # a reload (a lost connection, a closed tab) finds the same seat's view
        log = pages[1].locator("#log").inner_text()
        pages[1].reload()
        assert pages[1].locator("#log").inner_text() == log
        assert hand_pictures(pages[1], 1) > 0 and hand_pictures(pages[1], 0) == 0
        # the host steps the game back; both pages follow
        page.reload()
        page.click("#step-back")
        page.locator("#host-note").filter(has_text="stepped back").wait_for()
        for x in pages:
            x.locator("#log").filter(has_text="(the host stepped back)").wait_for()
        assert errors == [[], []]
    finally:
        chromium.close()


# ---------------------------------------------------------------- the replay viewer

def test_the_replay_viewer_steps_through_a_finished_game_from_a_seat_or_all(server, page):
    errors = console_errors(page)
    page.goto(server.url + "g/mini/play")
    fill_new_game(page, [("#players", "2"), ('select[name="seat0"]', "human"),
                         ('select[name="seat1"]', "random"), ('input[name="seed"]', "9")])
    page.click("#start")
    seat_url = page.url
    refused = page.request.get(seat_url + "/replay?at=3")
    assert refused.status == 403, "no viewer mid-game"
    play_moves(page, 500, random.Random(9))
    page.locator("#game-over").wait_for()
    final_log = page.locator("#log").inner_text()
    page.click("#watch-replay")
    assert page.locator("#replay-at").inner_text().startswith("move 0 / ")
    total = int(page.locator("#replay-at").inner_text().split("/ ")[1])
    assert total > 2
    assert page.locator("#decision").count() == 0 and page.locator("button.action").count() == 0
    # one seat's view: its own hand and not the other's
    assert page.locator('.zone[data-zone="hand@0"] button.pic').count() > 0
    assert page.locator('.zone[data-zone="hand@1"] button.pic').count() == 0
    page.keyboard.press("ArrowRight")
    page.locator("#replay-at").filter(has_text=f"move 1 / {total}").wait_for()
    page.click("#replay-next")
    page.locator("#replay-at").filter(has_text=f"move 2 / {total}").wait_for()
    page.click("#replay-prev")
    page.locator("#replay-at").filter(has_text=f"move 1 / {total}").wait_for()
    # every seat's view: both hands
    page.click("#replay-all")
    page.locator("#replay-at").filter(has_text=f"move 1 / {total}").wait_for()
    assert page.locator('.zone[data-zone="hand@0"] button.pic').count() > 0
    assert page.locator('.zone[data-zone="hand@1"] button.pic').count() > 0
    # the end, from P1's seat, is the game as P1 read it; every seat's log
    # names every card
    page.click("#replay-last")
    page.locator("#replay-at").filter(has_text=f"move {total} / {total}").wait_for()
    every = page.locator("#log").inner_text()
    page.locator("nav.replay .views a", has_text="P1").click()
    page.locator("h1", has_text="as P1").wait_for()
    assert page.locator("#log").inner_text() == final_log
    assert "a card you cannot see" not in every
    assert errors == []


# ---------------------------------------------------------------- access

UNNAMED = """() => [...document.querySelectorAll('input:not([type=hidden]), select, textarea, button, a[href]')]
  .filter(el => el.offsetParent !== null || el.getClientRects().length)
  .filter(el => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')
                && !el.textContent.trim() && !el.querySelector('img[alt]:not([alt=""])'))
  .map(el => el.outerHTML.slice(0, 120))"""


def test_every_control_has_a_name_and_progress_is_announced(server, page):
    """A screen reader can name every field, button and link of the pages,
    and the gallery's count and a simulation's state are live regions."""
    page.goto(server.url + "g/mini/play")
    fill_new_game(page, [("#players", "2"), ('select[name="seat0"]', "human"),
                         ('select[name="seat1"]', "random"), ('input[name="seed"]', "4")])
    page.click("#start")
    page.wait_for_selector("#decision")
    table = page.url
    for url in (server.url, server.url + "g/mini/play", server.url + "g/mini/simulate", table,
                server.url + "runs"):
        page.goto(url)
        assert page.evaluate(UNNAMED) == [], url
    page.goto(server.url)
    assert page.get_by_label("Filter the cards by name, kind or text").count() == 1
    assert page.get_by_label("Show one kind of card").count() == 1
    page.fill("#filter", "rival")
    assert page.get_by_role("status").filter(has_text="1 of").count() == 1
    page.goto(server.url + "g/mini/simulate")
    page.fill('input[name="games"]', "20")
    page.click("#simulate")
    page.locator("#sim-done").wait_for()
    assert page.locator("#sim-state").get_attribute("role") == "status"


def test_a_second_tab_on_the_same_seat_follows_the_first(server, browser):
    """A table open in two tabs: a move in one shows in the other without a
    reload (the other is never left stale)."""
    first, second = browser.new_page(), browser.new_page()
    try:
        first.goto(server.url + "g/mini/play")
        fill_new_game(first, [("#players", "2"), ('select[name="seat0"]', "human"),
                              ('select[name="seat1"]', "random"), ('input[name="seed"]', "6")])
        first.click("#start")
        first.wait_for_selector("#decision")
        second.goto(first.url)
        second.evaluate("window.stillTheSamePage = true")
        moves = first.evaluate("document.body.dataset.moves")
        first.locator("button.action").first.click()
        first.wait_for_function("n => document.body.dataset.moves !== n", arg=moves)
        now = first.evaluate("document.body.dataset.moves")
        second.wait_for_function("n => document.body.dataset.moves === n", arg=now)
        assert second.evaluate("window.stillTheSamePage") is True
        assert second.locator("#log").inner_text() == first.locator("#log").inner_text()
    finally:
        first.close()
        second.close()


def test_four_tabs_on_one_table_all_follow_a_move(server, browser, cards_file):
    """Each page holds one event stream, so a designer's several tabs stay
    within the browser's six connections to the server and all follow a
    move, and a rebuild."""
    tabs = [browser.new_page() for _ in range(4)]
    try:
        first = tabs[0]
        first.goto(server.url + "g/mini/play")
        fill_new_game(first, [("#players", "2"), ('select[name="seat0"]', "human"),
                              ('select[name="seat1"]', "random"), ('input[name="seed"]', "12")])
        first.click("#start")
        first.wait_for_selector("#decision")
        for tab in tabs[1:]:
            tab.goto(first.url)
            tab.wait_for_selector("#decision")
        moves = first.evaluate("document.body.dataset.moves")
        first.locator("button.action").first.click()
        first.wait_for_function("n => document.body.dataset.moves !== n", arg=moves)
        now = first.evaluate("document.body.dataset.moves")
        for tab in tabs[1:]:
            tab.wait_for_function("n => document.body.dataset.moves === n", arg=now)
        version = tabs[1].evaluate("document.body.dataset.version")
        cards_file.write_text(cards_file.read_text().replace(
            "text: Take a banked gem from a rival.", "text: Take a banked gem from a rival, quietly."))
        tabs[1].wait_for_function("v => document.body.dataset.version !== v", arg=version)
    finally:
        for tab in tabs:
            tab.close()
