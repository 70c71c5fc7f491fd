"""End to end: ``awale serve`` in a subprocess, the page in Debian's headless chromium driven by Selenium.

Selenium is given Debian's chromedriver and chromium binaries, so it never downloads a browser. Without them the
test is skipped, except in CI (CI=true), where .ci/run installs them and the test must run.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
    "--window-size=1200,900",
)

#: A folder to save the docs' screenshots in (AWALE_SCREENSHOTS=docs), or None.
SCREENSHOTS = os.environ.get("AWALE_SCREENSHOTS")

if not (CHROMIUM and CHROMEDRIVER) and os.environ.get("CI", "").lower() not in ("true", "1"):
    pytest.skip(
        "Debian's chromium and chromium-driver are not installed (apt-get install chromium chromium-driver); "
        "CI installs them and runs this test",
        allow_module_level=True,
    )

from selenium import webdriver  # noqa: E402  (after the skip: selenium is a dev extra)
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402
from test_web_database import write_fault_match  # noqa: E402


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def write_records(path: Path) -> list[dict]:
    """A records file (JSON lines) of two short games, greedy against random: the two-colour Awale and Oware, with
    the players' names and the seconds of each move; the games as JSON objects."""
    from agents import make
    from awale_env import GameRecord
    from awale_env.games import get_game

    games = []
    for name, plies in (("awale16", 40), ("oware", 40)):
        state = get_game(name).initial(max_plies=plies, seed=0)
        options = {"first_player": state.to_move} if "first_player" in get_game(name).rule_options else {}
        agents = [make("greedy", seed=1), make("random", seed=2)]
        moves = []
        while not state.is_terminal:
            moves.append(int(agents[state.to_move].act(state)))
            state = state.play(moves[-1])
        data = json.loads(GameRecord(moves, plies, name, options).to_json())
        data |= {"players": ["greedy", "random"], "seconds": [0.01 * (i % 5) for i in range(len(moves))]}
        games.append(data)
    path.write_text("".join(json.dumps(game) + "\n" for game in games))
    return games


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real server (``awale serve``, uvicorn) on a free loopback port, replaying a records file
    (:func:`write_records`) and a results store (a referee match lost by a fault); its base URL."""
    port = free_port()
    records = tmp_path_factory.mktemp("records") / "games.jsonl"
    write_records(records)
    db = records.with_name("results.db")
    write_fault_match(db)
    command = [sys.executable, "-m", "awale_apps", "serve", "--port", str(port), "--records", str(records),
               "--db", str(db)]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/config", timeout=2) as response:
                    json.load(response)
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    output = process.stdout.read() if process.poll() is not None else "(still running)"
                    pytest.fail(f"awale serve did not start on port {port}: {output}")
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)


@pytest.fixture(scope="module")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[webdriver.Chrome]:
    """One headless Chromium for the module's tests (each start costs about 1.7 CPU-s); :func:`browser` hands it to
    each test as a new profile would be."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path_factory.mktemp('chromium') / 'profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def browser(chromium: webdriver.Chrome, server: str) -> Iterator[webdriver.Chrome]:
    """The module's Chromium with nothing left of an earlier test: the server origin's storage and cookies emptied
    (the page keeps its game's id in localStorage), the window at its first size, on a blank page."""
    size = chromium.get_window_size()
    chromium.get(f"{server}/api/config")
    chromium.execute_script("localStorage.clear(); sessionStorage.clear()")
    chromium.delete_all_cookies()
    chromium.get("about:blank")
    yield chromium
    chromium.set_window_size(size["width"], size["height"])  # a test may resize it (the docs' screenshot)


def history(driver: webdriver.Chrome) -> list[str]:
    return [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#history li")]


def stores(driver: webdriver.Chrome) -> tuple[int, int]:
    return tuple(
        int(driver.find_element(By.CSS_SELECTOR, f"#store-{side} .store-count").text) for side in ("left", "right")
    )


def idle(driver: webdriver.Chrome) -> bool:
    return "busy" not in driver.find_element(By.TAG_NAME, "body").get_attribute("class")


def test_play_against_greedy_by_clicking(server: str, browser: webdriver.Chrome, tmp_path: Path) -> None:
    wait = WebDriverWait(browser, 300)  # the server's first game waits for its warm-up
    browser.get(server)
    wait.until(lambda d: idle(d) and "Your move" in d.find_element(By.ID, "status").text)
    presets = [o.get_attribute("value") for o in browser.find_elements(By.CSS_SELECTOR, "#presets option")]
    assert {"random", "greedy", "alphabeta:depth=6", "ppo:pretrained", "alphazero:pretrained"} <= set(presets)

    opponent = browser.find_element(By.ID, "opponent")
    opponent.clear()
    opponent.send_keys("greedy:seed=1")
    browser.find_element(By.ID, "new-game-button").click()
    wait.until(lambda d: idle(d) and "vs greedy" in d.find_element(By.ID, "game-title").text)
    assert history(browser) == [] and stores(browser) == (0, 0)

    # Only the person's legal moves are offered: player 0 owns the odd holes, each starting with red and blue.
    enabled = [b.get_attribute("data-move") for b in browser.find_elements(By.CSS_SELECTOR, "button.move:enabled")]
    assert sorted(enabled) == sorted(f"{h}{c}" for h in range(1, 17, 2) for c in "RB")

    moves = 0
    while stores(browser) == (0, 0) or moves < 3:
        assert moves < 40, "no capture in 40 moves against greedy"
        button = browser.find_elements(By.CSS_SELECTOR, "button.move:enabled")[0]
        played = button.get_attribute("data-move")
        button.click()
        moves += 1
        wait.until(lambda d, n=moves: idle(d) and len(history(d)) >= 2 * n)
        entries = history(browser)
        assert entries[-2].split()[1] == played  # "3. 1R" then the agent's reply
        reply = entries[-1].split()[1]
        last = browser.find_element(By.CSS_SELECTOR, ".hole.last")
        assert last.get_attribute("data-hole") == reply[:-1]  # the agent's move is highlighted
        assert "greedy played " + reply in browser.find_element(By.ID, "status").text
    assert sum(stores(browser)) > 0

    browser.save_screenshot(str(tmp_path / "awale_web.png"))
    assert (tmp_path / "awale_web.png").stat().st_size > 10_000

    before_undo = history(browser)
    browser.find_element(By.ID, "undo").click()
    wait.until(lambda d: idle(d) and len(history(d)) == len(before_undo) - 2)

    # A typed move the server refuses is explained and changes nothing.
    browser.find_element(By.ID, "move-text").send_keys("2R")
    browser.find_element(By.CSS_SELECTOR, "#type-move button").click()
    wait.until(lambda d: d.find_element(By.ID, "error").is_displayed())
    assert "hole 2 belongs to player 1" in browser.find_element(By.ID, "error").text
    assert history(browser) == before_undo[:-2]


def test_a_restored_game_plays_to_its_end_and_shows_the_result(server: str, browser: webdriver.Chrome) -> None:
    """The page picks up its game after a reload (here one made through the API, with a 3-ply limit)."""
    body = json.dumps({"opponent": "random", "max_plies": 3, "seed": 1}).encode()
    request = urllib.request.Request(f"{server}/api/games", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        game = json.load(response)
    wait = WebDriverWait(browser, 300)  # the server's first game waits for its warm-up
    browser.get(server)
    wait.until(idle)
    browser.execute_script("localStorage.setItem('awale.gameId', arguments[0])", game["id"])
    browser.refresh()
    wait.until(lambda d: idle(d) and d.find_element(By.ID, "opponent").get_attribute("value") == "random")
    for plies in (2, 3):
        browser.find_elements(By.CSS_SELECTOR, "button.move:enabled")[0].click()
        wait.until(lambda d, n=plies: idle(d) and len(history(d)) == n)
    status = browser.find_element(By.ID, "status").text
    assert status.startswith("Game over:") and "ply limit was reached" in status
    assert browser.find_elements(By.CSS_SELECTOR, "button.move:enabled") == []
    assert browser.find_element(By.ID, "undo").is_enabled()


def test_play_hawalis_and_oware_by_clicking_pits(server: str, browser: webdriver.Chrome) -> None:
    """The game picker: Hawalis on its 4 x 7 board (your two rows below), then Oware on 2 x 6 with its rules."""
    wait = WebDriverWait(browser, 300)  # the server's first game waits for its warm-up
    browser.get(server)
    wait.until(idle)
    Select(browser.find_element(By.ID, "game")).select_by_value("hawalis")
    assert browser.find_element(By.ID, "rules-label").is_displayed()
    Select(browser.find_element(By.ID, "seat")).select_by_value("1")  # North: the board is turned round
    opponent = browser.find_element(By.ID, "opponent")
    opponent.clear()
    opponent.send_keys("greedy:seed=3")
    browser.find_element(By.ID, "new-game-button").click()
    wait.until(lambda d: idle(d) and "Hawalis" in d.find_element(By.ID, "game-title").text and len(history(d)) == 1)

    rows = browser.find_elements(By.CSS_SELECTOR, "#rows .row")
    assert [len(row.find_elements(By.CSS_SELECTOR, ".hole")) for row in rows] == [7, 7, 7, 7]
    # The person's rows are the lower two, their pits numbered as their moves: the outer row 0-6 from their left,
    # the inner row 7-13 back from their right (rule 3, the board turned round for North).
    labels = [[cell.get_attribute("data-hole") for cell in row.find_elements(By.CSS_SELECTOR, ".hole")] for row in rows]
    assert labels[2] == [str(k) for k in range(7, 14)][::-1] and labels[3] == [str(k) for k in range(7)]
    assert all(row.find_elements(By.CSS_SELECTOR, "button.move") == [] for row in rows[:2])
    assert "greedy played" in browser.find_element(By.ID, "status").text
    assert browser.find_element(By.CSS_SELECTOR, "#store-left .store-note").text == "captured"

    game = json.load(urllib.request.urlopen(f"{server}/api/games/{browser.execute_script('return game.id')}"))
    enabled = [b.get_attribute("data-move") for b in browser.find_elements(By.CSS_SELECTOR, "button.move:enabled")]
    assert sorted(enabled, key=int) == game["legal_moves"]
    for moves in (3, 5):
        browser.find_elements(By.CSS_SELECTOR, "button.move:enabled")[-1].click()
        wait.until(lambda d, n=moves: idle(d) and len(history(d)) >= n)
        assert len(browser.find_elements(By.CSS_SELECTOR, "#rows .hole.last")) == 1
    captured = stores(browser)
    game = json.load(urllib.request.urlopen(f"{server}/api/games/{game['id']}"))
    assert captured == (game["state"]["captured"][0], game["state"]["captured"][1]) and sum(captured) > 0

    Select(browser.find_element(By.ID, "game")).select_by_value("oware")
    rules = Select(browser.find_element(By.ID, "rules"))
    rules.select_by_index(1)
    assert rules.first_selected_option.text.startswith("openspiel")
    Select(browser.find_element(By.ID, "seat")).select_by_value("0")
    browser.find_element(By.ID, "new-game-button").click()
    wait.until(lambda d: idle(d) and "Oware" in d.find_element(By.ID, "game-title").text)
    rows = browser.find_elements(By.CSS_SELECTOR, "#rows .row")
    assert [len(row.find_elements(By.CSS_SELECTOR, ".hole")) for row in rows] == [6, 6]
    pits = browser.find_elements(By.CSS_SELECTOR, "button.move:enabled")
    assert [p.get_attribute("data-move") for p in pits] == [str(a) for a in range(6)]  # openspiel: player 0 first
    pits[2].click()
    wait.until(lambda d: idle(d) and len(history(d)) == 2)
    history_before = history(browser)
    assert history_before[0] == "1. 2"
    counts = [int(c.text) for c in browser.find_elements(By.CSS_SELECTOR, "#rows .row:last-child .count")]
    assert sum(counts) > 0 and counts[2] <= 1  # the pit sown is empty unless the reply reached it

    browser.refresh()  # the page picks up its game, and the form the game's settings
    wait.until(lambda d: idle(d) and history(d) == ["1. 2", history_before[1]])
    assert Select(browser.find_element(By.ID, "game")).first_selected_option.get_attribute("value") == "oware"
    assert Select(browser.find_element(By.ID, "rules")).first_selected_option.text.startswith("openspiel")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#rows .hole")) == 12


def test_the_api_reference_renders_from_the_servers_own_files(server: str, browser: webdriver.Chrome) -> None:
    """Swagger UI at /api/docs draws the API in the browser, every file it loads coming from this server."""
    browser.get(f"{server}/api/docs")
    wait = WebDriverWait(browser, 60)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".swagger-ui .opblock"))
    assert "awale_env web" in browser.find_element(By.CSS_SELECTOR, ".swagger-ui .title").text
    paths = {element.text for element in browser.find_elements(By.CSS_SELECTOR, ".opblock-summary-path")}
    assert "/api/games" in {path.replace("\u200b", "") for path in paths}
    loaded = browser.execute_script("return performance.getEntriesByType('resource').map(entry => entry.name)")
    assert loaded and all(url.startswith(f"{server}/") for url in loaded), loaded


def eval_score(driver: webdriver.Chrome) -> str | None:
    """The expected score the evaluation shows (None while the engine thinks)."""
    return driver.find_element(By.ID, "eval-text").get_attribute("data-score")


@pytest.mark.parametrize("key, game", [("1", "awale16"), ("2", "oware")])
def test_replay_evaluate_and_review_a_recorded_game(server: str, browser: webdriver.Chrome, key: str, game: str):
    """The analysis board: open a game of the records file, step through it with the evaluation following, then
    review it: the graph, the marked moves with the best move beside them."""
    wait = WebDriverWait(browser, 300)  # the server's first game waits for its warm-up
    browser.get(server)
    wait.until(lambda d: idle(d) and "Your move" in d.find_element(By.ID, "status").text)
    Select(browser.find_element(By.ID, "replay-source")).select_by_value("records")
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#replay-game option")) == 2)
    Select(browser.find_element(By.ID, "replay-game")).select_by_value(key)
    engine = browser.find_element(By.ID, "engine")
    engine.clear()
    engine.send_keys("alphabeta:depth=6")
    browser.find_element(By.ID, "open-replay").click()
    wait.until(lambda d: "replay" in d.find_element(By.ID, "game-title").text)
    recorded = json.load(urllib.request.urlopen(f"{server}/api/sources/records/games/{key}"))
    assert recorded["game"] == game
    total = len(recorded["moves"])
    assert f"position {total} of {total}" in browser.find_element(By.ID, "status").text
    assert "Game over: greedy wins" in browser.find_element(By.ID, "status").text
    assert len(history(browser)) == total

    browser.find_element(By.ID, "step-first").click()
    wait.until(lambda d: eval_score(d) is not None)
    first = browser.find_element(By.ID, "eval-text").text
    assert "to move" in first and "depth 6" in first
    assert browser.find_element(By.ID, "eval-line").text.startswith("Best line: 1. ")
    scores = [eval_score(browser)]
    for ply in range(1, 13):  # stepping faster than the engine answers: only the last answer counts
        browser.find_element(By.ID, "step-forward").click()
        assert browser.find_element(By.ID, "ply-label").text == f"{ply} / {total}"
    wait.until(lambda d: eval_score(d) is not None)
    assert browser.find_element(By.ID, "eval-line").text.startswith("Best line: 13. ")
    scores.append(eval_score(browser))
    assert scores[0] != scores[1]
    if SCREENSHOTS and game == "awale16":  # the docs' picture of the analysis board
        browser.set_window_size(1200, 1700)
        browser.save_screenshot(str(Path(SCREENSHOTS) / "web_analysis.png"))
    # The board shows the position stepped to: its stores are the recorded game's after 12 plies.
    position = recorded["positions"][12]
    assert stores(browser) == (position["stores"][1], position["stores"][0])
    assert "played " + recorded["moves"][11]["move"] in browser.find_element(By.ID, "status").text

    browser.find_element(By.ID, "review-button").click()
    wait.until(lambda d: d.find_element(By.ID, "review-box").get_attribute("data-status") == "done")
    assert f"Reviewed: {total} of {total} positions" in browser.find_element(By.ID, "review-status").text
    marks = browser.find_elements(By.CSS_SELECTOR, "#review-graph circle.graph-mark")
    marked = browser.find_elements(By.CSS_SELECTOR, "#history li[data-class]")
    assert browser.find_element(By.ID, "review-graph").is_displayed()
    assert len(marks) == len(marked) > 0  # random plays badly
    assert all(" best " in item.text for item in marked)
    assert browser.find_element(By.CSS_SELECTOR, "#review-graph polyline").get_attribute("points").count(",") > total
    ply = int(marks[0].get_attribute("data-ply"))
    marks[0].click()  # a mark on the graph jumps to its move
    assert browser.find_element(By.ID, "ply-label").text == f"{ply} / {total}"
    if SCREENSHOTS and game == "awale16":  # the docs' picture of a review
        browser.save_screenshot(str(Path(SCREENSHOTS) / "web_review.png"))

    # A position pasted as JSON is analysed on its own; a move clicked then plays a variation from it.
    browser.find_element(By.CSS_SELECTOR, "#position-box summary").click()
    pasted = recorded["positions"][5]
    browser.execute_script("document.getElementById('position-text').value = arguments[0]", json.dumps(pasted["state"]))
    browser.find_element(By.ID, "open-position").click()
    wait.until(lambda d: "position: position 0 of 0" in d.find_element(By.ID, "status").text and eval_score(d))
    assert stores(browser) == (pasted["stores"][1], pasted["stores"][0]) and history(browser) == []
    browser.find_elements(By.CSS_SELECTOR, "#rows button.move:enabled")[0].click()
    wait.until(
        lambda d: len(history(d)) == 1 and "(variation): position 1 of 1" in d.find_element(By.ID, "status").text
    )


def unless_redrawn(check) -> bool:
    """``check()``, or False when an element it reads was redrawn meanwhile."""
    try:
        return check()
    except (StaleElementReferenceException, NoSuchElementException, IndexError):
        return False


def texts(driver: webdriver.Chrome, selector: str) -> list[str]:
    return [element.text for element in driver.find_elements(By.CSS_SELECTOR, selector)]


def click_until(wait: WebDriverWait, selector: str, done) -> None:
    """Click ``selector`` until ``done(driver)`` (a click on an element being redrawn is lost)."""

    def attempt(driver: webdriver.Chrome) -> bool:
        return unless_redrawn(lambda: done(driver) or driver.find_element(By.CSS_SELECTOR, selector).click()
                              or done(driver))  # fmt: skip

    wait.until(attempt)


def test_the_standings_of_a_results_store_and_each_game_one_click_away(server: str, browser: webdriver.Chrome):
    """``--db``: the standings table; a player's name lists its games, and a click on a game opens its replay, the
    fault shown at its end."""
    wait = WebDriverWait(browser, 300)
    browser.get(server)
    wait.until(lambda d: idle(d) and d.find_elements(By.CSS_SELECTOR, "#replay-source option[value='db']"))
    Select(browser.find_element(By.ID, "replay-source")).select_by_value("db")
    wait.until(lambda d: d.find_element(By.ID, "standings").is_displayed()
               and d.find_elements(By.CSS_SELECTOR, "#source-games tbody tr"))  # fmt: skip
    standings = json.load(urllib.request.urlopen(f"{server}/api/sources/db/standings"))
    names = [row["player"] for row in standings]
    wait.until(lambda d: unless_redrawn(lambda: texts(d, "button.player-games") == names))
    wait.until(lambda d: unless_redrawn(lambda: "1 illegal" in d.find_element(By.CSS_SELECTOR, "#standings").text))
    if SCREENSHOTS:
        browser.execute_script("arguments[0].scrollIntoView()", browser.find_element(By.ID, "replay-source"))
        browser.save_screenshot(str(Path(SCREENSHOTS) / "web_standings.png"))
    # The page reloads a source's tables when its list gets the focus: click again until the click has held.
    caption = "#source-games caption"
    click_until(wait, "#standings tbody tr:last-child button.player-games",
                lambda d: "1 game of cheat" in d.find_element(By.CSS_SELECTOR, caption).text)  # fmt: skip
    games = "#source-games tbody tr"
    wait.until(
        lambda d: unless_redrawn(lambda: texts(d, games) == ["match game 1 cheat vs honest honest won 0–0 6 illegal"])
    )
    click_until(wait, "#source-games button.open-game", lambda d: "replay" in d.find_element(By.ID, "game-title").text)
    status = browser.find_element(By.ID, "status").text
    assert "position 6 of 6" in status and "Fault: cheat illegal" in status
    assert len(history(browser)) == 6
