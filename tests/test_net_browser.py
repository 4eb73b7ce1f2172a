"""Browser seats: an invitation link opened in a browser serves that seat's table (``biblios-kit join`` in the page).

The WebSocket test speaks textual-serve's protocol as the page's script does (no browser
needed); the headless-browser test runs only where Chromium is installed.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path

import aiohttp
import pytest
from net_helpers import HostProcess, free_port

from biblios_kit.net.client import ApiClient


async def _table(host: HostProcess) -> dict[str, object]:
    async with ApiClient(host.url) as admin:
        return await admin.create_table(host.admin(), players=2, seats=["human", "human"], seed=8, bot_delay=0,
                                        names=["Ana", "Beto"])  # fmt: skip


@pytest.mark.slow
def test_an_invitation_opened_in_a_browser_serves_that_seat(host: HostProcess) -> None:
    async def scenario() -> bytes:
        reply = await _table(host)
        seats = reply["seats"]
        assert isinstance(seats, list)
        link = seats[1]["link"]
        table = reply["table"]
        jar = aiohttp.CookieJar(unsafe=True)
        async with aiohttp.ClientSession(cookie_jar=jar, headers={"Accept-Language": "es-ES,es;q=0.9"}) as http:
            async with http.get(f"{host.url}/play/{table}") as response:
                assert response.status == 403  # no token yet
            async with http.get(link, allow_redirects=False) as response:
                assert response.status == 302 and response.headers["Location"] == f"/play/{table}"
            async with http.get(f"{host.url}/play/{table}") as response:
                assert response.status == 200
                assert f"ws://127.0.0.1:{host.port}/play/{table}/ws" in await response.text()
            async with http.get(f"{host.url}/play/{table}?token=wrong") as response:
                assert response.status == 403
            received = b""
            async with http.ws_connect(f"{host.url.replace('http', 'ws')}/play/{table}/ws?width=100&height=32") as ws:
                while b"Beto" not in received or b"Esperando" not in received:
                    try:
                        message = await asyncio.wait_for(ws.receive(), 30)
                    except TimeoutError:
                        raise AssertionError(f"no table after 30 s: {received[-500:]!r}") from None
                    if message.type == aiohttp.WSMsgType.BINARY:
                        received += message.data
                    elif message.type == aiohttp.WSMsgType.TEXT:
                        received += message.data.encode()
                    else:
                        raise AssertionError(f"closed: {received[-500:]!r}")
                await ws.send_json(["stdin", "\x11"])  # Ctrl+Q
        return received

    received = asyncio.run(scenario())
    assert b"Traceback" not in received


def _chromium() -> str | None:
    return next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None)


@pytest.mark.slow
@pytest.mark.skipif(_chromium() is None, reason="no Chromium on this machine (apt-get install chromium to run it)")
def test_a_headless_browser_plays_in_the_seat_page(host: HostProcess, tmp_path: Path) -> None:
    """Chromium opens the invitation link: cookie, redirect, Host/Origin checks, WebSocket, the seat's screen."""
    reply = asyncio.run(_table(host))
    seats = reply["seats"]
    assert isinstance(seats, list)
    browser = _chromium()
    assert browser is not None
    port = free_port()
    process = subprocess.Popen(
        [browser, "--headless=new", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'profile'}",
         f"--remote-debugging-port={port}", "--lang=fr", seats[0]["link"]],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        state = asyncio.run(_watch_page(port))
    finally:
        process.kill()
        process.wait(10)
    assert "-first-byte" in state["body"], state  # the seat's Textual process is drawing in the page
    assert "-connected" in state["terminal"], state
    assert state["path"] == f"/play/{reply['table']}" and "token" not in state["search"]  # out of the address bar


async def _watch_page(port: int) -> dict[str, str]:
    """Follow the page through Chrome's DevTools protocol until the terminal receives its first bytes."""
    expression = (
        "JSON.stringify({body: document.body ? document.body.className : '', path: location.pathname, "
        "search: location.search, terminal: (document.getElementById('terminal') || {}).className || ''})"
    )
    async with aiohttp.ClientSession() as http:
        for _attempt in range(100):
            try:
                async with http.get(f"http://127.0.0.1:{port}/json") as response:
                    pages = [p for p in await response.json() if p.get("type") == "page"]
                if pages:
                    break
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.2)
        else:
            raise AssertionError("Chromium did not start")
        state: dict[str, str] = {}
        async with http.ws_connect(pages[0]["webSocketDebuggerUrl"], max_msg_size=0) as ws:
            for number in range(1, 150):
                await ws.send_json({"id": number, "method": "Runtime.evaluate", "params": {"expression": expression}})
                while True:
                    message = json.loads((await asyncio.wait_for(ws.receive(), 10)).data)
                    if message.get("id") == number:
                        break
                value = message.get("result", {}).get("result", {}).get("value")
                if value:
                    state = json.loads(value)
                    if "-first-byte" in state.get("body", ""):
                        return state
                await asyncio.sleep(0.2)
        return state
