"""The seat page at a table with clocks: a vote for a stand-in, the countdown, a time out, the seat taken back.

Chromium driven by Playwright, as in ``test_net_seat_page.py`` (skipped without Chromium, except under CI).
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from net_helpers import HostProcess
from test_net_seat_page import DESKTOP, _axe, _open, browser

__all__ = ["browser"]  # the module-scoped Chromium fixture, shared with the seat page's tests


def _post(host: HostProcess, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        host.url + path, data=json.dumps(body).encode(), method="POST",
        headers={"Authorization": f"Bearer {host.admin()}", "Content-Type": "application/json"},
    )  # fmt: skip
    with urllib.request.urlopen(request) as response:
        reply: dict[str, Any] = json.loads(response.read())
    return reply


def _has(page: Any, selector: str, text: str) -> None:
    """Wait until ``selector``'s text contains ``text``."""
    page.wait_for_function(
        f"(document.querySelector({json.dumps(selector)}) || {{}}).textContent?.includes({json.dumps(text)})"
    )


def test_the_seat_page_votes_counts_down_and_takes_its_seat_back(browser: Any, host: HostProcess) -> None:
    body = {"ruleset": "biblios", "players": 2, "names": ["Ana", "Beto"], "seed": 8, "bot_delay": 0.3}
    reply = _post(host, "/api/tables", body)
    table = reply["table"]
    ana = _open(browser, reply["seats"][0]["link"], DESKTOP)
    # Beto never came: Ana votes, and the stand-in plays for him (the event in the log, in the page's words).
    ana.click("#votes button:has-text('Let a stand-in play for Beto')")
    _has(ana, "#log", "The vote passed: a stand-in bot plays for Beto.")
    _has(ana, "#stand-in", "A stand-in bot plays for Beto.")
    assert ana.locator("#votes button").count() == 0
    # A move clock: Ana's countdown, then her time runs out and the stand-in plays for her.
    _post(host, f"/api/tables/{table}/settings", {"move_seconds": 3})
    _has(ana, "#clock", "Ana: Time left for this turn: 0:0")
    _has(ana, "#log", "Ana ran out of time for this turn.")
    _has(ana, "#stand-in", "A stand-in bot plays for you.")
    _post(host, f"/api/tables/{table}/settings", {"move_seconds": 0})
    ana.click("#back")
    _has(ana, "#log", "Ana is back and plays again.")
    ana.wait_for_selector("#back", state="hidden")
    assert "for you" not in ana.inner_text("#stand-in")
    assert _axe(ana) == []
