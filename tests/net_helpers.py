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
