"""Shared helpers of the network tests: a real server on 127.0.0.1 in the test's event loop."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from biblios_kit.net.server import ServerConfig, make_app

ADMIN = "admin-token-for-tests"


@contextlib.asynccontextmanager
async def running_server(data_dir: Path, **options: Any) -> AsyncIterator[TestClient[Any, Any]]:
    """A game server on 127.0.0.1 (a free port) over ``data_dir``, and an HTTP client to it."""
    config = ServerConfig(data_dir, admin_token=ADMIN, **options)
    async with TestClient(TestServer(make_app(config), host="127.0.0.1")) as client:
        yield client


def bearer(token: str | None) -> dict[str, str]:
    """The ``Authorization`` header of a token."""
    return {"Authorization": f"Bearer {token}"} if token else {}


async def create(client: TestClient[Any, Any], **fields: Any) -> dict[str, Any]:
    """Create a table (201 expected) and return the reply."""
    body = {"ruleset": "biblios", "players": 3, "bot_delay": 0, **fields}
    response = await client.post("/api/tables", json=body, headers=bearer(ADMIN))
    reply: dict[str, Any] = await response.json()
    assert response.status == 201, reply
    return reply


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class HostProcess:
    """``biblios-kit host`` in a subprocess (its own event loop, as in real use)."""

    def __init__(self, data_dir: Path, port: int | None = None, *extra: str) -> None:
        import os
        import subprocess
        import sys

        self.data_dir = data_dir
        self.port = port or free_port()
        env = {**os.environ, "BIBLIOS_LANG": "en"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "biblios_kit", "host", "--port", str(self.port), "--data-dir", str(data_dir), *extra],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        )  # fmt: skip
        self.url = f"http://127.0.0.1:{self.port}"

    def wait_ready(self, limit: float = 30.0) -> None:
        """Wait until the server answers."""
        import time
        import urllib.request

        deadline = time.monotonic() + limit
        while True:
            try:
                with urllib.request.urlopen(self.url + "/api", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the server did not start: {self.process.communicate()[1][-2000:]!r}")
            time.sleep(0.1)

    def admin(self) -> str:
        """The server's admin token (from its data folder)."""
        return (self.data_dir / "admin-token").read_text(encoding="utf-8").strip()

    def stop(self, kill: bool = False) -> tuple[bytes, bytes]:
        """Stop the server (Ctrl+C, or SIGKILL with ``kill``); returns its output."""
        import os
        import signal
        import subprocess

        os.killpg(self.process.pid, signal.SIGKILL if kill else signal.SIGINT)
        try:
            out, err = self.process.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            out, err = self.process.communicate(timeout=5)
        return out, err


NO_CLOCKS = {"move_seconds": 0.0, "game_seconds": 0.0, "absent_seconds": 0.0, "stand_in": "medium"}
"""The clock settings of a table that has none (the default)."""
