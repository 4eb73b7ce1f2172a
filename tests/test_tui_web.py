"""``biblios-kit play --web``: the same app over textual-serve; a websocket client sees the setup screen and plays a key."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def printed_url(server: subprocess.Popen[bytes]) -> str:
    """The URL (with its access token) the server prints when it starts."""
    assert server.stderr is not None
    for _line in range(10):
        line = server.stderr.readline().decode()
        match = re.search(r"(http://\S+\?token=\S+)", line)
        if match:
            return match.group(1)
    raise AssertionError("the server printed no URL with a token")


async def _session(port: int, url: str) -> bytes:
    received = b""
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        for _attempt in range(100):  # the server needs a moment to start
            try:
                async with http.get(url) as response:  # the token becomes a cookie
                    assert response.status == 200
                    break
            except aiohttp.ClientConnectionError:
                await asyncio.sleep(0.1)
        else:
            raise AssertionError("the web server did not start")
        async with http.ws_connect(f"ws://127.0.0.1:{port}/ws?width=80&height=24") as ws:

            async def until(marker: bytes) -> None:
                nonlocal received
                while marker not in received:
                    try:
                        message = await asyncio.wait_for(ws.receive(), 30)
                    except TimeoutError:
                        raise AssertionError(f"no {marker!r} after 30 s; last output: {received[-600:]!r}") from None
                    if message.type == aiohttp.WSMsgType.BINARY:
                        received += message.data
                    elif message.type == aiohttp.WSMsgType.TEXT:
                        received += message.data.encode()
                    elif message.type in (aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                        raise AssertionError(f"websocket closed; got {received[-300:]!r}")

            await until(b"New game")  # the setup screen
            await ws.send_json(["stdin", "\x13"])  # Ctrl+S: start the game
            await until(b"Keep it")  # the table, waiting for the person's first placement
            await ws.send_json(["stdin", "\x11"])  # Ctrl+Q: quit the app
            await asyncio.sleep(0.5)
    return received


@pytest.mark.slow
def test_play_web_serves_the_app_over_a_websocket(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "BIBLIOS_KIT_DATA_DIR": str(tmp_path), "BIBLIOS_LANG": "en"}
    server = subprocess.Popen(
        [sys.executable, "-m", "biblios_kit", "play", "--web", "--port", str(port), "--seed", "3", "--bot-delay", "0"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    try:
        url = printed_url(server)
        received = asyncio.run(_session(port, url))
        assert b"Traceback" not in received
    finally:
        os.killpg(server.pid, signal.SIGINT)
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(5)
            raise AssertionError("the web server did not stop on Ctrl+C") from None
    assert f"127.0.0.1:{port}" in url
    # The browser's game is saved in that browser session's own file, not in the terminal's.
    saves = sorted(path.name for path in (tmp_path / "saves").glob("*.json"))
    assert len(saves) == 1 and saves[0].startswith("browser-"), saves
