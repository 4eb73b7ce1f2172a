"""Text messages written straight to a WebSocket's transport as whole frames, at once or held together."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiohttp import web

WRITE_BUFFER_LIMIT = 1 << 20
"""Bytes written to a WebSocket and not yet taken by its client before the connection is dropped as too slow."""


def text_frame(data: bytes) -> bytes:
    """A whole server frame (RFC 6455: FIN, text opcode, the payload's length, unmasked, uncompressed) for ``data``."""
    size = len(data)
    if size < 126:
        return bytes((0x81, size)) + data
    if size < 65536:
        return bytes((0x81, 126)) + size.to_bytes(2, "big") + data
    return bytes((0x81, 127)) + size.to_bytes(8, "big") + data


class FrameWriter:
    """Writes text messages to one WebSocket as whole frames on its transport, without a task or a queue.

    The hub calls it (as a listener's ``write``) for every view and update, from the event loop:
    at 1,000 tables of four seats, ``await ws.send_str`` in a writer task per connection (a
    queue, a wake-up and a coroutine per message) was about a fifth of the server's CPU per
    action (docs/performance.md). Each frame goes out in one ``transport.write``, as aiohttp
    writes its own uncompressed frames, so they never interleave with aiohttp's (pings, the
    close). A call returns ``False``, writing nothing, once the connection closes or when more
    than :data:`WRITE_BUFFER_LIMIT` bytes wait for the client (the hub then drops the listener).

    Between :meth:`hold` and :meth:`release`, frames are kept and then written together, in
    order, in one ``transport.write``: the server holds them while it answers a message of this
    connection, so that the views an action causes for its own seat and the reply to it leave
    in one write (one system call, one packet) instead of two.
    """

    def __init__(self, ws: web.WebSocketResponse, transport: asyncio.Transport) -> None:
        self._ws = ws
        self._transport = transport
        self._held: list[bytes] | None = None

    @classmethod
    def of(cls, ws: web.WebSocketResponse, request: web.BaseRequest) -> FrameWriter | None:
        """The writer of ``ws`` (``None`` when the request has no transport left)."""
        transport = request.transport
        return None if transport is None else cls(ws, transport)

    def __call__(self, text: str) -> bool:
        transport = self._transport
        if self._ws.closed or transport.is_closing() or transport.get_write_buffer_size() > WRITE_BUFFER_LIMIT:
            return False
        frame = text_frame(text.encode())
        if self._held is None:
            transport.write(frame)
        else:
            self._held.append(frame)
        return True

    def hold(self) -> None:
        """Keep the frames written from now on until :meth:`release`."""
        if self._held is None:
            self._held = []

    def release(self) -> None:
        """Write the frames kept since :meth:`hold`, in one write, and write at once again."""
        held, self._held = self._held, None
        if held and not (self._ws.closed or self._transport.is_closing()):
            self._transport.write(b"".join(held))
