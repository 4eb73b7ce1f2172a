"""The seat page in a real browser: Playwright drives the system's Chromium against a real ``host`` process.

Two browser seats and a bot play a whole game (one seat by taps at phone size, the other by
keys at desktop size), the page survives the server being killed and restarted, switches
language, shows the end screen, passes axe-core's checks, and stays light. Without Chromium
or Playwright these tests skip, except under CI (``CI=true``), where they fail: ``.ci/run``
installs both.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from net_helpers import HostProcess

pytestmark = pytest.mark.slow

CHROMIUM = next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser")) if p), None)
AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
PHONE = {"width": 360, "height": 640}
DESKTOP = {"width": 1280, "height": 900}


def _playwright() -> Any:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    missing = "Playwright (pip install playwright)" if sync_playwright is None else None
    if CHROMIUM is None:
        missing = "Chromium (apt-get install chromium)"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing} is needed for the browser tests in CI (.ci/run installs it)")
        pytest.skip(f"no {missing} on this machine")
    return sync_playwright


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_playwright = _playwright()
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--no-first-run", "--disable-sync"],
        )  # fmt: skip
        yield chromium
        chromium.close()


def _table(host: HostProcess, seats: list[str], names: list[str], seed: int = 8) -> dict[str, Any]:
    """Create a table through the API (plain HTTP: Playwright's sync API holds this thread's event loop)."""
    body = {"ruleset": "biblios", "players": len(seats), "seats": seats, "names": names, "seed": seed, "bot_delay": 0}
    request = urllib.request.Request(
        f"{host.url}/api/tables", data=json.dumps(body).encode(), method="POST",
        headers={"Authorization": f"Bearer {host.admin()}", "Content-Type": "application/json"},
    )  # fmt: skip
    with urllib.request.urlopen(request) as response:
        created: dict[str, Any] = json.loads(response.read())
    return created


RECEIVED: dict[Any, list[str]] = {}
"""Page -> the type of each WebSocket message it received, in order."""


def _kind(frame: Any) -> str:
    payload = frame if isinstance(frame, str | bytes) else frame.get("payload", "")
    try:
        return str(json.loads(payload).get("type"))
    except (ValueError, AttributeError):
        return "?"


def _open(browser: Any, link: str, viewport: dict[str, int], locale: str = "en-GB") -> Any:
    # The page's Content-Security-Policy forbids eval, which Playwright's waits use (test_the_first_load_is_light checks the header).
    context = browser.new_context(viewport=viewport, locale=locale, has_touch=viewport is PHONE, bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    kinds = RECEIVED[page] = []  # the type of every WebSocket message the page received
    page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: kinds.append(_kind(frame))))
    page.goto(link)
    page.wait_for_selector("#status[data-state=ok]")
    return page


def _axe(page: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is now."""
    page.evaluate(AXE.read_text(encoding="utf-8"))
    result = page.evaluate("async () => (await axe.run(document)).violations")
    return [v for v in result if v["impact"] in ("serious", "critical")]


def _ready(page: Any) -> bool:
    """Whether the seat has enabled choices to act on (its turn, its view drawn with the server's labels)."""
    return bool(
        page.evaluate(
            "!!document.querySelector('#actions:not([hidden]) #choices[data-labelled=true] button:not([disabled])')"
        )
    )


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux ``/proc``; empty elsewhere)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = entry.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid and fields[0] not in ("Z", "X"):
            found.append(int(entry.parent.name))
    return found


def _fits(page: Any) -> bool:
    """Whether the page needs no sideways scrolling."""
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_two_browser_seats_and_a_bot_play_a_whole_game(browser: Any, host: HostProcess) -> None:
    reply = _table(host, ["human", "human", "easy"], ["Ana", "Beto <b>x</b>", "Bot"])
    links = [s["link"] for s in reply["seats"][:2]]
    started = time.monotonic()
    phone = _open(browser, links[0], PHONE)
    paint = phone.evaluate(
        "performance.getEntriesByType('paint').filter(e => e.name === 'first-contentful-paint')[0]?.startTime ?? -1"
    )
    assert 0 <= paint < 1000, paint
    drawn = phone.evaluate("performance.getEntriesByName('table-drawn')[0]?.startTime ?? -1")
    assert 0 <= drawn < 1000, drawn  # the whole table (hand, dice, players, choices), not only a first word
    desktop = _open(browser, links[1], DESKTOP)
    assert "token" not in phone.url and "token" not in desktop.url  # out of the address bar
    # A name is text, never markup; the table screen passes axe-core.
    desktop.wait_for_selector("#players strong")
    assert "Beto <b>x</b>" in desktop.inner_text("#players")
    assert desktop.locator("#players b").count() == 0
    assert "(Bot: easy)" in desktop.inner_text("#players")  # who plays each seat
    assert _axe(phone) == [] and _axe(desktop) == []
    assert _fits(phone) and _fits(desktop)
    assert _children(host.process.pid) == []  # no process per seat
    assert phone.evaluate("document.querySelectorAll('#choices button').length") > 0  # seat 0 gives first
    moves = {"phone": 0, "desktop": 0}
    warnings: set[str] = set()
    while not (phone.is_visible("#end") and desktop.is_visible("#end")):
        assert time.monotonic() - started < 240, "the game did not end in 4 minutes"
        acted = False
        for name, page in (("phone", phone), ("desktop", desktop)):
            if not _ready(page):
                continue
            buttons = page.locator("#choices button:not(.bluff)")
            if page.locator("#choices button.bluff").count():
                warnings.add(page.inner_text("#bluff"))
            count = buttons.count() or page.locator("#choices button").count()
            index = moves[name] % min(count, 9)
            before = page.evaluate("document.body.dataset.version")
            if name == "phone":
                target = (buttons if buttons.count() else page.locator("#choices button")).nth(index)
                target.tap()
            else:
                label = page.locator("#choices button").nth(index).get_attribute("data-action")
                key = [b.get_attribute("data-action") for b in page.locator("#choices button").all()].index(label)
                page.keyboard.press(str(key + 1))
            page.wait_for_function(f"document.body.dataset.version !== {json.dumps(before)}")
            moves[name] += 1
            acted = True
        if not acted:
            time.sleep(0.05)
    assert moves["phone"] > 5 and moves["desktop"] > 5, moves
    for page in (phone, desktop):  # a whole view on connecting, then updates only (what changed)
        kinds = [kind for kind in RECEIVED[page] if kind in ("view", "update")]
        assert kinds[0] == "view" and kinds.count("update") > 20 and kinds.count("view") == 1, kinds[:5]
    # Bids beyond the hand were offered with the warning of the penalty in force.
    assert warnings and all(w.startswith("⚠") or "Bluff" in w for w in warnings), warnings
    assert any("If you win" in w for w in warnings), warnings
    for page in (phone, desktop):
        page.wait_for_selector("#end .summary:not(:empty)")
        assert page.locator("#end .ranking li").count() >= 1
        assert page.locator("#end .hands ul").count() == 3
        assert page.locator("#log li").count() > 20
        assert page.evaluate("document.cookie") == ""  # the seat token is HttpOnly
        assert page.evaluate("localStorage.length + sessionStorage.length") == 0
    # The replay, move by move: buttons on the phone, the slider's keys on the desktop.
    phone.wait_for_selector("#replay .replay-head")
    assert "Move 0 of" in phone.inner_text("#replay .replay-head")
    phone.locator("#end button.step").nth(1).tap()
    phone.wait_for_function("document.querySelector('#replay .replay-head').textContent.startsWith('Move 1 of')")
    assert phone.locator("#replay .sentences li").count() >= 1 and phone.locator("#replay table tr").count() == 4
    desktop.wait_for_selector("#replay .replay-head")
    desktop.focus("#end input[type=range]")
    desktop.keyboard.press("End")
    desktop.wait_for_function("document.querySelector('#replay .replay-head').textContent.includes('Move ') && "
                              "document.querySelector('#end button.step:last-of-type').disabled")  # fmt: skip
    assert _axe(phone) == [] and _axe(desktop) == []
    assert _fits(phone) and _fits(desktop)
    href = desktop.get_attribute("#end a[download]", "href")
    record = desktop.request.get(host.url + href)  # the record, for biblios-kit replay (with the seat's cookie)
    assert record.status == 200 and record.json()["actions"]
    with pytest.raises(urllib.error.HTTPError):  # not without it: the table might not accept spectators
        urllib.request.urlopen(host.url + href)


def test_the_page_reconnects_after_the_server_is_killed_and_restarted(browser: Any, tmp_path: Path) -> None:
    host = HostProcess(tmp_path / "server")
    host.wait_ready()
    try:
        reply = _table(host, ["human", "human"], ["Ana", "Beto"])
        page = _open(browser, reply["seats"][0]["link"], PHONE)
        page.wait_for_selector("#choices button")
        host.stop(kill=True)
        page.wait_for_selector("#status[data-state=lost]")
        assert "reconnecting" in page.inner_text("#status")
        host = HostProcess(tmp_path / "server", host.port)
        host.wait_ready()
        page.wait_for_selector("#status[data-state=ok]", timeout=20_000)
        assert "up to date" in page.inner_text("#status")
        before = page.evaluate("document.body.dataset.version")
        page.locator("#choices button").first.click()  # the new server takes the action
        page.wait_for_function(f"document.body.dataset.version !== {json.dumps(before)}")
    finally:
        host.stop()


def test_the_language_follows_the_browser_and_the_switch(browser: Any, host: HostProcess) -> None:
    reply = _table(host, ["human", "easy", "easy"], ["Ana", "B", "C"])
    page = _open(browser, reply["seats"][0]["link"], DESKTOP, locale="es-ES")
    assert page.get_attribute("html", "lang") == "es"
    page.wait_for_selector("#log li")
    assert page.inner_text("#players-h") == "Jugadores"
    spanish = page.inner_text("#choices")
    page.select_option("#lang", "fr")
    page.wait_for_function("document.querySelector('#players-h').textContent === 'Joueurs'")
    assert page.get_attribute("html", "lang") == "fr"
    assert page.inner_text("#choices") != spanish  # the labels of the actions too
    assert "lang=fr" in page.url
    page.reload()  # the choice survives a reload (in the address, nothing stored)
    page.wait_for_function("document.querySelector('#players-h').textContent === 'Joueurs'")
    page.select_option("#lang", "en")
    page.wait_for_function("document.querySelector('#players-h').textContent === 'Players'")
    assert page.get_attribute("html", "lang") == "en"
    # Keyboard only, without the digit keys: Tab reaches the choices, Enter plays one.
    page.wait_for_selector("#choices[data-labelled=true] button:not([disabled])")
    before = page.evaluate("document.body.dataset.version")
    for _press in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('#choices button')"):
            break
    else:
        raise AssertionError("Tab never reached a choice")
    page.keyboard.press("Enter")
    page.wait_for_function(f"document.body.dataset.version !== {json.dumps(before)}")


def test_the_first_load_is_light(host: HostProcess) -> None:
    """The page, its script and style and its first texts weigh under 150 KB compressed."""
    reply = _table(host, ["human", "easy", "easy"], ["Ana", "B", "C"])
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    total = 0
    table = reply["table"]
    for path in (reply["seats"][0]["link"] + "#link", f"{host.url}/seat-page/seat.js", f"{host.url}/seat-page/seat.css",
                 f"{host.url}/play/{table}/texts?lang=en&since=0&full=1"):  # fmt: skip
        with opener.open(path) as response:
            assert response.status == 200
            if path.endswith("link"):
                assert "script-src 'self'" in response.headers["Content-Security-Policy"]
            total += len(gzip.compress(response.read()))
    assert total < 150_000, total
