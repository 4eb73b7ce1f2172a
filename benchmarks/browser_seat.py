"""One browser-client seat of the load benchmark, on a WebSocket written directly over an asyncio transport.

``benchmarks/network.py`` plays thousands of seats from one process. Each seat does what the
browser page does (see its docstring); this module only speaks the WebSocket protocol (RFC 6455)
with less machinery than a general client: the opening handshake written by hand (with the
``Origin`` a page on the server's own address sends, and the ``permessage-deflate`` offer a
browser makes, which the server declines), frames read in ``data_received`` as they arrive,
masked frames written straight to the transport, pings answered, and the seat's think time
kept with ``loop.call_later`` instead of a task per seat. What the seat measures and checks is
the same as before; the load generator spends less CPU per message, so that on a two-core
machine it leaves the server a core of its own.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
import time
from typing import Any

TEXT, CLOSE, PING, PONG = 0x1, 0x8, 0x9, 0xA


class Table:
    """The benchmark's side of one table: its seats' latest versions and the latency of each action."""

    def __init__(self, table: str, tokens: list[str], rng: random.Random) -> None:
        self.id = table
        self.tokens = tokens
        self.rng = rng
        self.seen = [-1] * len(tokens)  # latest version each seat received
        self.sent_at: dict[int, float] = {}  # version expected after the action -> when it was sent
        self.latencies: list[tuple[float, float]] = []  # (when the action was sent, seconds to every seat's view)
        self.first_view: list[float | None] = [None] * len(tokens)  # when each seat had its first view
        self.errors: list[str] = []
        self.actions = 0
        self.events: list[list[object]] = [[] for _ in tokens]  # each seat's copy of the event log


def frame(opcode: int, payload: bytes) -> bytes:
    """A whole client frame: FIN, ``opcode``, a fresh random mask, the masked ``payload``."""
    size = len(payload)
    if size < 126:
        head = bytes((0x80 | opcode, 0x80 | size))
    elif size < 65536:
        head = bytes((0x80 | opcode, 0x80 | 126)) + size.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + size.to_bytes(8, "big")
    mask = os.urandom(4)
    repeated = (mask * (size // 4 + 1))[:size]
    masked = (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(size, "big")
    return head + mask + masked


class BrowserSeat(asyncio.Protocol):
    """A seat's connection: the handshake, then views and updates in, hello and actions out.

    ``done`` is resolved when the seat stops: the game ended, the action limit or the time is
    up, the server closed the connection, or the seat found an error (noted in the table's
    ``errors``).
    """

    def __init__(self, *, host: str, table: Table, seat: int, think: float, limit: int | None, stop_at: float,
                 updates: bool) -> None:  # fmt: skip
        self.host = host
        self.table = table
        self.seat = seat
        self.think = think
        self.limit = limit
        self.stop_at = stop_at
        self.updates = updates
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.open = False
        self.view: dict[str, Any] | None = None

    # The WebSocket protocol.

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write(
            (
                f"GET /api/tables/{self.table.id}/ws HTTP/1.1\r\nHost: {self.host}\r\nOrigin: http://{self.host}\r\n"
                f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
                "\r\n"
            ).encode()
        )

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        if not self.open:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buffer[:end]).lower()
            del buffer[: end + 4]
            if not head.startswith(b"http/1.1 101"):
                return self.stop(f"handshake refused: {head.splitlines()[0].decode(errors='replace')}")
            if b"permessage-deflate" in head:
                return self.stop("the server accepted compression, which it declines")
            self.open = True
            self.send({"type": "hello", "token": self.table.tokens[self.seat], "updates": self.updates})
        while len(buffer) >= 2 and not self.done.done():
            first, second = buffer[0], buffer[1]
            size, start = second & 0x7F, 2
            if size == 126:
                if len(buffer) < 4:
                    return
                size, start = int.from_bytes(buffer[2:4], "big"), 4
            elif size == 127:
                if len(buffer) < 10:
                    return
                size, start = int.from_bytes(buffer[2:10], "big"), 10
            if len(buffer) < start + size:
                return
            payload = bytes(buffer[start : start + size])
            del buffer[: start + size]
            opcode = first & 0x0F
            if second & 0x80 or not first & 0x80:
                return self.stop("a masked or fragmented frame from the server")
            if opcode == TEXT:
                self.on_message(json.loads(payload))
            elif opcode == PING:
                self.write(PONG, payload)
            elif opcode == CLOSE:
                return self.stop(None)

    def connection_lost(self, exc: Exception | None) -> None:
        self.stop(None)

    def write(self, opcode: int, payload: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(frame(opcode, payload))

    def send(self, message: dict[str, object]) -> None:
        self.write(TEXT, json.dumps(message).encode())

    def stop(self, error: str | None) -> None:
        """End the seat (noting ``error`` if any) and close its connection."""
        if error is not None:
            self.table.errors.append(f"seat {self.seat}: {error}")
        if not self.done.done():
            self.done.set_result(None)
        if self.transport is not None and not self.transport.is_closing():
            self.write(CLOSE, (1000).to_bytes(2, "big"))
            self.transport.close()

    # What the page does with each message.

    def on_message(self, data: dict[str, Any]) -> None:
        table, seat = self.table, self.seat
        kind = data["type"]
        if kind == "error":
            table.errors.append(f"seat {seat}: {data['code']}: {data['message']}")
            return
        if kind == "update":  # the changed fields over the view the seat has, as the page applies them
            view = self.view
            if view is None or data["base"] != view["version"]:
                return self.stop(f"an update from version {data['base']} to a view it does not have")
            view["observation"].update(data.pop("observation"))
            view.update(data)
        elif kind == "view":
            if self.view is None:
                table.first_view[seat] = time.perf_counter()
            self.view = view = data
        else:
            return
        now = time.perf_counter()
        log = table.events[seat]
        if view["first_event"] != len(log):  # what a page checks before appending the new events
            return self.stop(f"events from {view['first_event']}, the page has {len(log)}")
        log.extend(view["events"])
        version = view["version"]
        table.seen[seat] = version
        # Every action whose version every seat now has (a view may bring several versions at once: a
        # server that learns of other processes' actions together, or a slow listener).
        everyone = min(table.seen)
        for done in [v for v in table.sent_at if v <= everyone]:
            sent = table.sent_at.pop(done)
            table.latencies.append((sent, now - sent))
        obs = view["observation"]
        if view["result"] is not None or (self.limit is not None and version >= self.limit) or now > self.stop_at:
            return self.stop(None)
        if obs["current_player"] == seat and obs["legal_actions"]:
            delay = self.think * (0.5 + table.rng.random()) if self.think else 0.0
            asyncio.get_running_loop().call_later(delay, self.act, version, obs["legal_actions"])

    def act(self, version: int, legal: list[object]) -> None:
        """The seat's turn, after its think time: a random legal action answering ``version``."""
        if self.done.done():
            return
        if time.perf_counter() > self.stop_at:
            return self.stop(None)
        table = self.table
        table.sent_at[version + 1] = time.perf_counter()
        table.actions += 1
        self.send({"type": "action", "action": table.rng.choice(legal), "version": version})
