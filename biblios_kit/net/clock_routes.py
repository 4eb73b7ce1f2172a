"""The requests of a seat about stand-ins: its seat back, a vote to give an absent seat to the stand-in.

* ``POST /api/tables/{id}/back`` (a seat's token): the stand-in playing the seat steps aside;
* ``POST /api/tables/{id}/stand-in`` with ``{"seat": N}`` (a seat's token): a vote to give the
  absent seat ``N`` to the table's stand-in bot (:mod:`biblios_kit.net.clocks`).

The WebSocket takes the same requests as ``{"type": "back"}`` and ``{"type": "stand_in_vote", "seat": N}``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from biblios_kit.i18n import _
from biblios_kit.net.clocks import ClockError
from biblios_kit.net.tables import Rejected, Table, TableHub
from biblios_kit.net.views import SPECTATOR

TableAndSeat = Callable[..., tuple[Table, int, str | None]]


def clock_request(hub: TableHub, table: Table, seat: int, message: dict[str, Any]) -> dict[str, Any] | None:
    """The reply to a ``back`` or ``stand_in_vote`` message (``None`` for another type; ``Rejected`` when refused)."""
    kind = message.get("type")
    if seat == SPECTATOR:
        raise Rejected(403, "spectator", _("spectators cannot play"))
    try:
        if kind == "back":
            return hub.clocks.back(table, seat)
        if kind == "stand_in_vote":
            return hub.clocks.vote(table, seat, message.get("seat"))
    except ClockError as error:
        raise Rejected(error.status, error.code, error.message) from None
    return None


def add_clock_routes(app: web.Application, hub: TableHub, table_and_seat: TableAndSeat,
                     read_body: Callable[[web.Request], Awaitable[dict[str, Any]]]) -> None:  # fmt: skip
    """Add the ``back`` and ``stand-in`` routes to the server's ``app``."""

    async def back(request: web.Request) -> web.Response:
        table, seat, _token = table_and_seat(request, required=True)
        return web.json_response(clock_request(hub, table, seat, {"type": "back"}))

    async def stand_in(request: web.Request) -> web.Response:
        table, seat, _token = table_and_seat(request, required=True)
        body = await read_body(request)
        return web.json_response(clock_request(hub, table, seat, {"type": "stand_in_vote", "seat": body.get("seat")}))

    app.add_routes([web.post("/api/tables/{id}/back", back), web.post("/api/tables/{id}/stand-in", stand_in)])
