"""The seat page's "Rematch" button in Chromium (Playwright) against a real ``host`` process.

The game is played to its end through the API; the page shows the end screen with the button;
another person declines, then agrees; the page shows each vote, and once everyone opted in it
moves to its own seat at the new table (its cookie set by the server, the page never handling
a token).
"""

from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.request
from typing import Any

import pytest
from net_helpers import HostProcess
from test_net_seat_page import DESKTOP, _open, _table, browser  # noqa: F401 - the browser fixture

pytestmark = pytest.mark.slow


def _call(host: HostProcess, token: str, path: str, body: object = None) -> Any:
    """One API call with a seat token (sent again after a pause when rate-limited)."""
    data = None if body is None else json.dumps(body).encode()
    for _attempt in range(20):
        request = urllib.request.Request(
            f"{host.url}{path}", data=data, method="GET" if body is None else "POST",
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )  # fmt: skip
        try:
            with urllib.request.urlopen(request) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            if error.code != 429:
                raise
            time.sleep(0.5)
    raise AssertionError("rate-limited too long")


def _play_to_the_end(host: HostProcess, table: str, tokens: list[str]) -> None:
    """Random legal actions for each person's seat (a payment paid with its first options) until the end."""
    rng = random.Random(5)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for token in tokens:
            view = _call(host, token, f"/api/tables/{table}")
            if view["result"] is not None:
                return
            obs = view["observation"]
            if not obs["legal_actions"]:
                continue
            if obs["phase"] == "payment":
                pay: list[str] = []
                while True:
                    options = _call(host, token, f"/api/tables/{table}/payment-options", {"pay": pay})["options"]
                    if options is None:
                        break
                    pay.append(options[0])
                body: dict[str, Any] = {"actions": pay, "version": view["version"]}
            else:
                body = {"action": rng.choice(obs["legal_actions"]), "version": view["version"]}
            try:
                _call(host, token, f"/api/tables/{table}/actions", body)
            except urllib.error.HTTPError as error:
                assert error.code == 409, error  # a stale version: the bot moved first
        time.sleep(0.01)
    raise AssertionError("the game did not end")


def test_the_rematch_button_moves_the_page_to_its_new_seat(browser: Any, host: HostProcess) -> None:  # noqa: F811
    created = _table(host, ["human", "human", "random"], ["Ana", "Beto", "Bot"], seed=3)
    table = created["table"]
    tokens = [created["seats"][0]["token"], created["seats"][1]["token"]]
    _play_to_the_end(host, table, tokens)
    page = _open(browser, created["seats"][0]["link"], DESKTOP)
    page.wait_for_selector("#end:not([hidden]) button.rematch:not([hidden])")
    _call(host, tokens[1], f"/api/tables/{table}/rematch", {"rematch": False})
    page.wait_for_function("document.querySelector('.rematch-note').textContent.includes('Beto')")
    assert "Does not want a rematch: Beto" in page.inner_text(".rematch-note")
    page.click("button.rematch")
    page.wait_for_function("document.querySelector('.rematch-note').textContent.includes('Wants a rematch: Ana')")
    assert page.is_disabled("button.rematch")
    assert page.url.endswith(f"/play/{table}")
    reply = _call(host, tokens[1], f"/api/tables/{table}/rematch", {"rematch": True})
    new = reply["new_table"]
    page.wait_for_url(f"**/play/{new}")
    page.wait_for_selector("#status[data-state=ok]")
    page.wait_for_function("document.querySelector('#players').textContent.includes('Ana')")
    view = _call(host, reply["token"], f"/api/tables/{new}")
    assert view["seat"] == 2 and [s["name"] for s in view["seats"]] == ["Bot", "Ana", "Beto"]
    assert reply["token"] not in page.content()
    page.context.close()
