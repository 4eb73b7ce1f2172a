"""The spectator page and the seat page's table signals in a real browser (Playwright and the system's Chromium).

A spectator follows a game live in French with no hand and no choices; the seats see who is
connected and how many watch; the tab's title says whose turn it is; a closed table stops
the page with a translated message. Skipped without Chromium or Playwright, except under CI.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from net_helpers import HostProcess
from test_net_seat_page import DESKTOP, PHONE, _axe, _fits, _open, _table, browser

pytestmark = pytest.mark.slow
__all__ = ["browser"]  # the module-scoped Chromium fixture, shared with the seat page's tests


def _act(host: HostProcess, table: str, token: str) -> None:
    """Play the seat's first legal action through the HTTP API."""
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    with urllib.request.urlopen(urllib.request.Request(f"{host.url}/api/tables/{table}", headers=headers)) as reply:
        view = json.loads(reply.read())
    body = json.dumps({"action": view["observation"]["legal_actions"][0], "version": view["version"]}).encode()
    request = urllib.request.Request(f"{host.url}/api/tables/{table}/actions", data=body, headers=headers)
    with urllib.request.urlopen(request) as reply:
        assert reply.status == 200


def _admin(host: HostProcess, method: str, path: str) -> None:
    request = urllib.request.Request(
        host.url + path, method=method, headers={"Authorization": f"Bearer {host.admin()}"}
    )
    with urllib.request.urlopen(request) as reply:
        assert reply.status == 200


def test_a_spectator_follows_the_game_live_and_the_seats_see_who_is_there(browser: Any, host: HostProcess) -> None:
    reply = _table(host, ["human", "human", "easy"], ["Ana", "Beto", "Bot"])
    table = reply["table"]
    assert reply["spectator_link"].endswith(f"/watch/{table}")
    ana = _open(browser, reply["seats"][0]["link"], DESKTOP)
    watcher = _open(browser, reply["spectator_link"], PHONE, locale="fr-FR")
    assert watcher.get_attribute("html", "lang") == "fr"
    watcher.wait_for_selector("#status[data-state=ok]")
    assert "Vous regardez" in watcher.inner_text("#status")
    assert watcher.is_hidden("#hand") and watcher.is_hidden("#actions")
    assert watcher.locator("#choices button").count() == 0
    # Who is connected, in each page's language; the seat sees that someone watches.
    watcher.wait_for_function("document.querySelector('#players').textContent.includes('connecté')")
    assert "absent" in watcher.inner_text("#players")  # Beto has not opened his link
    ana.wait_for_function("document.querySelector('#settings').textContent.includes('Spectators: 1')")
    assert "Hints: not allowed" in ana.inner_text("#settings")
    # Ana's turn: her tab's title says so; the spectator's does not.
    ana.wait_for_function("document.title.startsWith('▶')")
    assert "Your turn" in ana.title() and watcher.title() == "biblios-kit"
    # A move is seen live, without a card hidden from anyone.
    before = watcher.evaluate("document.body.dataset.version")
    _act(host, table, reply["seats"][0]["token"])
    watcher.wait_for_function(f"document.body.dataset.version !== {json.dumps(before)}")
    watcher.wait_for_selector("#log li")
    assert _axe(watcher) == [] and _fits(watcher)
    assert _axe(ana) == []


def test_a_closed_table_stops_the_page_with_a_message(browser: Any, host: HostProcess) -> None:
    reply = _table(host, ["human", "human"], ["Ana", "Beto"])
    page = _open(browser, reply["seats"][0]["link"], PHONE, locale="es-ES")
    _admin(host, "DELETE", f"/api/tables/{reply['table']}")
    page.wait_for_selector("#status[data-state=error]")
    assert "ha cerrado esta mesa" in page.inner_text("#status")
    page.wait_for_timeout(1500)  # it does not try again: the message stays
    assert page.get_attribute("#status", "data-state") == "error"


def test_a_visitor_takes_a_free_seat_from_the_lobby(browser: Any, tmp_path: Any) -> None:
    host = HostProcess(tmp_path / "server", None, "--lobby")
    host.wait_ready()
    try:
        body = {"players": 3, "seats": ["human", "human", "easy"], "names": ["Ana", "", "Bot"], "free_seats": [1],
                "open": True, "bot_delay": 5, "seed": 3}  # fmt: skip
        request = urllib.request.Request(
            f"{host.url}/api/tables", data=json.dumps(body).encode(), method="POST",
            headers={"Authorization": f"Bearer {host.admin()}", "Content-Type": "application/json"},
        )  # fmt: skip
        with urllib.request.urlopen(request) as reply:
            created = json.loads(reply.read())
        table = created["table"]
        ana = _open(browser, created["seats"][0]["link"], DESKTOP, locale="fr-FR")  # Ana's seat, open meanwhile
        assert "Joueur 2" in ana.inner_text("#players")
        context = browser.new_context(viewport=PHONE, locale="es-ES", has_touch=True)
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.goto(f"{host.url}/lobby")
        assert page.get_attribute("html", "lang") == "es" and "Mesas abiertas" in page.inner_text("h1")
        assert _axe(page) == [] and _fits(page)
        page.get_by_label("Su nombre (opcional)").fill("Zoé")
        page.get_by_role("button", name="Tomar el asiento 2").tap()
        page.wait_for_selector("#status[data-state=ok]")
        assert page.url.endswith(f"/play/{table}")  # the seat page, the token out of the address bar
        page.wait_for_function("document.querySelector('#players').textContent.includes('(usted)')")
        assert "Zoé" in page.inner_text("#players")
        ana.wait_for_function("document.querySelector('#players').textContent.includes('Zoé')")  # told at once
        page.goto(f"{host.url}/lobby")
        assert "ninguna mesa" in page.inner_text("main")  # no free seat left
    finally:
        host.stop()


FAKE_NOTIFICATIONS = """
// A stand-in for the browser's notifications (a headless browser shows none) and a hidden tab.
window.__notes = [];
class FakeNotification {
  constructor(title, options) { window.__notes.push([title, options && options.body]); }
  static requestPermission() { FakeNotification.permission = "granted"; return Promise.resolve("granted"); }
}
FakeNotification.permission = "default";
window.Notification = FakeNotification;
Object.defineProperty(document, "hidden", { get: () => true });
"""


def test_the_seats_turn_comes_with_a_notification_once_allowed(browser: Any, host: HostProcess) -> None:
    reply = _table(host, ["human", "human"], ["Ana", "Beto"])
    table, ana = reply["table"], reply["seats"][0]["token"]
    context = browser.new_context(viewport=DESKTOP, locale="fr-FR", bypass_csp=True)
    context.add_init_script(FAKE_NOTIFICATIONS)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(reply["seats"][1]["link"])
    page.wait_for_selector("#status[data-state=ok]")
    button = page.locator("header button")
    button.wait_for(state="visible")
    assert button.inner_text() == "Me prévenir quand c’est à moi"
    button.click()
    button.wait_for(state="hidden")
    for _move in range(40):  # Ana plays until it is Beto's turn
        if page.evaluate("window.__notes.length"):
            break
        try:
            _act(host, table, ana)
        except IndexError:  # no legal action: not Ana's turn any more
            page.wait_for_timeout(100)
    page.wait_for_function("window.__notes.length === 1")
    title, body = page.evaluate("window.__notes[0]")
    assert title == "À vous de jouer" and table in body
    assert page.title().startswith("▶ À vous de jouer")
