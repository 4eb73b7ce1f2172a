"""The spectator page of a table: ``/watch/{table}``, the seat page showing the public view, live, in any language.

The same page as a seat's (``net/page/seat.js``), with no hand and no choices: its
WebSocket is the API's without a token (the public view: what every seat sees, a card only
when every seat saw it), its texts are made for the spectator (``seat_texts`` with
``SPECTATOR``). No cookie, no token: the link is the table's address, returned as
``spectator_link`` by ``POST /api/tables`` and in the admin's listing. A table whose
settings say ``"spectators": false`` answers ``403 no_spectators`` here and on the API
without a token.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from aiohttp import web

from biblios_kit.bounded import count_of
from biblios_kit.i18n import _
from biblios_kit.net.security import HTTP_LIMIT, Handler, client_key, json_error
from biblios_kit.net.views import SPECTATOR

if TYPE_CHECKING:
    from biblios_kit.net.tables import Table, TableHub
    from biblios_kit.tui.replay_view import GameReplay


def add_spectator_page(app: web.Application, hub: TableHub, api_websocket: Handler) -> None:
    """Add ``/watch/{table}``, its WebSocket (``/watch/{table}/ws``), its texts, its replay and its game record."""
    from biblios_kit.net.seat_page import CONTENT_POLICY, LogSentences, page_html, page_language

    logs = LogSentences(limit=500)
    replays: OrderedDict[str, GameReplay] = OrderedDict()

    def watched(request: web.Request) -> Table | web.Response:
        """The table, or the refusal: no spectators there, or too many requests from this address."""
        table = hub.table(request.match_info["id"])
        if not table.settings.spectators:
            return json_error(403, "no_spectators", _("this table does not accept spectators"))
        if not request.app[HTTP_LIMIT].allow(client_key(request, None)):
            return json_error(429, "rate_limited", _("too many requests; slow down"))
        return table

    async def page(request: web.Request) -> web.StreamResponse:
        table = watched(request)
        if isinstance(table, web.Response):
            return table
        return web.Response(
            text=page_html(table.id, page_language(request), base=f"/watch/{table.id}"),
            content_type="text/html",
            headers={"Cache-Control": "no-store", "Content-Security-Policy": CONTENT_POLICY,
                     "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff"},
        )  # fmt: skip

    async def socket(request: web.Request) -> web.StreamResponse:
        table = watched(request)
        if isinstance(table, web.Response):
            return table
        headers = request.headers.copy()
        headers.popall("Authorization", None)  # a spectator: whatever the request carries, no seat
        return await api_websocket(request.clone(headers=headers))

    async def texts(request: web.Request) -> web.Response:
        from biblios_kit.net.seat_page import seat_texts

        table = watched(request)
        if isinstance(table, web.Response):
            return table
        since = count_of(request.query.get("since", "0"))
        if since is None:
            return json_error(400, "bad_request", _('"since" must be a non-negative integer'))
        data = seat_texts(table, SPECTATOR, page_language(request), since, request.query.get("full") == "1", logs)
        return _json(data, {"Cache-Control": "no-store"})

    async def replay(request: web.Request) -> web.Response:
        from biblios_kit.net.seat_page import replay_reply

        table = watched(request)
        if isinstance(table, web.Response):
            return table
        return replay_reply(request, table, replays, 16)

    async def record(request: web.Request) -> web.Response:
        from biblios_kit.net.seat_page import record_reply

        table = watched(request)
        return table if isinstance(table, web.Response) else record_reply(table)

    app.add_routes(
        [
            web.get("/watch/{id}/record", record),
            web.get("/watch/{id}", page),
            web.get("/watch/{id}/ws", socket),
            web.get("/watch/{id}/texts", texts),
            web.get("/watch/{id}/replay", replay),
        ]
    )


def _json(data: Any, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(
        text=json.dumps(data, ensure_ascii=False, separators=(",", ":")),
        content_type="application/json",
        headers=headers,
    )
