"""The server admin's view of its tables: the listing, a seat's link issued again, settings, closing a table.

Every route here needs the server's admin token (``Authorization: Bearer ADMIN``):

* ``GET /api/tables``: every table with its state, seats (who is connected), whose turn it
  is, its settings and its spectator link (``biblios-kit host tables``);
* ``POST /api/tables/{id}/invite`` with ``{"seat": N}``: a new token and link for a human
  seat; the old token stops working at once and its connections are closed
  (``host invite TABLE SEAT``);
* ``POST /api/tables/{id}/settings`` with ``{"hints": ..., "spectators": ...}``: change the
  table's settings; every connection is told (``host settings``);
* ``DELETE /api/tables/{id}``: close the table; its connections are told and closed, and
  it is no longer loaded (its actions stay in the database) (``host close TABLE``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from biblios_kit.i18n import _
from biblios_kit.net.presence import connected_seats, new_settings, new_tokens
from biblios_kit.net.protocol import dumps
from biblios_kit.net.security import bearer_token, new_token, same_secret, token_digest
from biblios_kit.net.storage import StorageError
from biblios_kit.net.tables import HUMAN, Rejected, Table, TableHub
from biblios_kit.net.views import SPECTATOR


def spectator_link(public_url: str, table: Table) -> str | None:
    """The read-only link of ``table`` (``<public-url>/watch/<table>``), ``None`` when it has no spectators."""
    if not table.settings.spectators:
        return None
    return f"{public_url.rstrip('/')}/watch/{table.id}"


def table_summary(table: Table, public_url: str) -> dict[str, Any]:
    """One table of the listing: its state, seats and who is connected, whose turn it is, its settings."""
    connected = connected_seats(table)
    return {
        "table": table.id,
        "ruleset": table.state.ruleset.id,
        "options": list(table.options),
        "players": len(table.seats),
        "state": "finished" if table.finished else "playing",
        "version": table.version,
        "to_move": None if table.finished else table.state.current_player,
        "seats": [
            {"seat": seat, "name": name, "kind": kind, "connected": connected[seat], "free": is_free(table, seat)}
            for seat, (name, kind) in enumerate(zip(table.names, table.seats))
        ],
        "spectators": sum(listener.seat == SPECTATOR for listener in table.listeners),
        "settings": table.settings.to_json(),
        "spectator_link": spectator_link(public_url, table),
    }


def is_free(table: Table, seat: int) -> bool:
    """Whether ``seat`` is a person's seat that has no token yet (left free when the table was created)."""
    return table.seats[seat] == HUMAN and not table.token_digests[seat]


def reissue(hub: TableHub, table: Table, seat: int) -> str:
    """A new token for human ``seat`` of ``table``; the old one is refused from now on. Returns the new token."""
    if not 0 <= seat < len(table.seats) or table.seats[seat] != HUMAN:
        raise Rejected(400, "bad_seats", _("seat {seat} is not a person's seat of this table").format(seat=seat + 1))
    token = new_token()
    digests = list(table.token_digests)
    digests[seat] = token_digest(token)
    store_or_refuse(lambda: hub.store.set_token_digests(table.id, digests))
    new_tokens(table, tuple(digests))
    return token


def change_settings(hub: TableHub, table: Table, body: dict[str, Any]) -> None:
    """Change ``table``'s settings from a request body; spectators turned away are disconnected."""
    try:
        settings = table.settings.changed(body)
    except ValueError as error:
        raise Rejected(400, "bad_settings", str(error)) from None
    store_or_refuse(lambda: hub.store.set_settings(table.id, settings.to_json()))
    new_settings(table, settings)
    hub.clocks.settings_changed(table)


def close(hub: TableHub, table: Table) -> None:
    """Close ``table``: marked closed in the database, its bot stopped, its connections told and closed."""
    store_or_refuse(lambda: hub.store.close_table(table.id))
    hub.forget_table(table)


def store_or_refuse(write: Any) -> None:
    """Run ``write`` (a change of the store); a failing disk is ``Rejected`` 503 ``storage_error``."""
    try:
        write()
    except (sqlite3.Error, OSError, StorageError) as error:
        raise Rejected(503, "storage_error", _("the server cannot save the game right now")) from error


# ---------------------------------------------------------------------- routes


def add_lobby_routes(app: web.Application, hub: TableHub, admin_token: str, public_url: str,
                     limit: Callable[[web.Request, str | None], None],
                     read_body: Callable[[web.Request], Awaitable[dict[str, Any]]],
                     link: Callable[[str, str], str]) -> None:  # fmt: skip
    """Add the admin's routes (see the module's docstring).

    ``limit(request, verified_token)`` spends a request of the client's budget, ``read_body``
    reads a JSON object (both the server's, with its limits and errors), ``link(table, token)``
    is a seat's invitation link.
    """

    def admin(request: web.Request) -> Table | None:
        """Refuse (403) a request without the admin token, spend its budget; the table it names, if any."""
        token = bearer_token(request)
        allowed = token is not None and same_secret(token, admin_token)
        limit(request, token if allowed else None)
        if not allowed:
            raise Rejected(403, "bad_token", _("this request needs the server's admin token"))
        return hub.table(request.match_info["id"]) if "id" in request.match_info else None

    async def listing(request: web.Request) -> web.Response:
        admin(request)
        tables = [table_summary(table, public_url) for table in hub.tables.values()]
        return _json({"type": "tables", "tables": tables, "broken": dict(hub.broken)})

    async def invite(request: web.Request) -> web.Response:
        table = admin(request)
        assert table is not None
        seat = (await read_body(request)).get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise Rejected(400, "bad_request", _('"seat" must be an integer'))
        token = reissue(hub, table, seat)
        return _json({"type": "invitation", "table": table.id, "seat": seat, "token": token,
                      "link": link(table.id, token)})  # fmt: skip

    async def settings(request: web.Request) -> web.Response:
        table = admin(request)
        assert table is not None
        change_settings(hub, table, await read_body(request))
        return _json(table_summary(table, public_url))

    async def closing(request: web.Request) -> web.Response:
        table = admin(request)
        assert table is not None
        close(hub, table)
        return _json({"type": "closed", "table": table.id})

    app.add_routes(
        [
            web.get("/api/tables", listing),
            web.post("/api/tables/{id}/invite", invite),
            web.post("/api/tables/{id}/settings", settings),
            web.delete("/api/tables/{id}", closing),
        ]
    )


def _json(data: object) -> web.Response:
    return web.Response(text=dumps(data), content_type="application/json")
