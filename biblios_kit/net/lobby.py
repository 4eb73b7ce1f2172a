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

import asyncio
import contextlib
import sqlite3
from typing import TYPE_CHECKING, Any

from aiohttp import web

from biblios_kit.bounded import count_of
from biblios_kit.i18n import _
from biblios_kit.net.presence import announce, connected_seats
from biblios_kit.net.protocol import dumps, error_message
from biblios_kit.net.security import bearer_token, new_token, same_secret, token_digest
from biblios_kit.net.tables import HUMAN, Listener, Rejected, Table, TableHub
from biblios_kit.net.views import SPECTATOR

if TYPE_CHECKING:
    from biblios_kit.net.server import ServerConfig


def spectator_link(config: ServerConfig, table: Table) -> str | None:
    """The read-only link of ``table`` (``<public-url>/watch/<table>``), ``None`` when it has no spectators."""
    if not table.settings.spectators:
        return None
    return f"{config.public_url.rstrip('/')}/watch/{table.id}"


def table_summary(table: Table, config: ServerConfig) -> dict[str, Any]:
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
            {"seat": seat, "name": name, "kind": kind, "connected": connected[seat]}
            for seat, (name, kind) in enumerate(zip(table.names, table.seats))
        ],
        "spectators": sum(listener.seat == SPECTATOR for listener in table.listeners),
        "settings": table.settings.to_json(),
        "spectator_link": spectator_link(config, table),
    }


def reissue(hub: TableHub, table: Table, seat: int) -> str:
    """A new token for human ``seat`` of ``table``; the old one is refused from now on. Returns the new token."""
    if not 0 <= seat < len(table.seats) or table.seats[seat] != HUMAN:
        raise Rejected(400, "bad_seats", _("seat {seat} is not a person's seat of this table").format(seat=seat + 1))
    token = new_token()
    digests = list(table.token_digests)
    digests[seat] = token_digest(token)
    _stored(lambda: hub.store.set_token_digests(table.id, digests))
    table.token_digests = tuple(digests)
    message = error_message("token_revoked", _("this seat's link was issued again: the old one no longer works"))
    _drop(table, [listener for listener in table.listeners if listener.seat == seat], message)
    announce(table)
    return token


def change_settings(hub: TableHub, table: Table, body: dict[str, Any]) -> None:
    """Change ``table``'s settings from a request body; spectators turned away are disconnected."""
    try:
        settings = table.settings.changed(body)
    except ValueError as error:
        raise Rejected(400, "bad_settings", str(error)) from None
    _stored(lambda: hub.store.set_settings(table.id, settings.to_json()))
    table.settings = settings
    if not settings.spectators:
        watchers = [listener for listener in table.listeners if listener.seat == SPECTATOR]
        _drop(table, watchers, error_message("no_spectators", _("this table does not accept spectators")))
    announce(table)


def close(hub: TableHub, table: Table) -> None:
    """Close ``table``: marked closed in the database, its bot stopped, its connections told and closed."""
    _stored(lambda: hub.store.close_table(table.id))
    hub.tables.pop(table.id, None)
    hub.playing -= not table.finished
    if table.bot_task is not None:
        table.bot_task.cancel()
    _drop(table, list(table.listeners), error_message("table_closed", _("this table was closed by the server")))


def _stored(write: Any) -> None:
    try:
        write()
    except (sqlite3.Error, OSError) as error:
        raise Rejected(503, "storage_error", _("the server cannot save the game right now")) from error


def _drop(table: Table, listeners: list[Listener], message: dict[str, Any]) -> None:
    """Tell ``listeners`` why with ``message``, then close them."""
    text = dumps(message)
    for listener in listeners:
        table.listeners.discard(listener)
        with contextlib.suppress(asyncio.QueueFull):
            listener.queue.put_nowait(text)
        with contextlib.suppress(asyncio.QueueFull):
            listener.queue.put_nowait(None)


# ---------------------------------------------------------------------- routes


def _admin(request: web.Request) -> None:
    """Refuse (403) a request without the server's admin token; spend its budget."""
    from biblios_kit.net.server import ADMIN, _limit

    token = bearer_token(request)
    admin = token is not None and same_secret(token, request.app[ADMIN])
    _limit(request, token if admin else None)
    if not admin:
        raise Rejected(403, "bad_token", _("this request needs the server's admin token"))


async def _list(request: web.Request) -> web.Response:
    """``GET /api/tables`` (admin): every table, oldest first, and the stored tables that could not be resumed."""
    from biblios_kit.net.server import CONFIG, HUB, _json

    _admin(request)
    hub = request.app[HUB]
    config = request.app[CONFIG]
    return _json(
        {
            "type": "tables",
            "tables": [table_summary(table, config) for table in hub.tables.values()],
            "broken": dict(hub.broken),
        }
    )


async def _invite(request: web.Request) -> web.Response:
    """``POST /api/tables/{id}/invite`` (admin) with ``{"seat": N}`` (from 0): the seat's new token and link."""
    from biblios_kit.net.server import CONFIG, HUB, _body, _json, invitation_link

    _admin(request)
    hub = request.app[HUB]
    table = hub.table(request.match_info["id"])
    seat = (await _body(request)).get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise Rejected(400, "bad_request", _('"seat" must be an integer'))
    token = reissue(hub, table, seat)
    link = invitation_link(request.app[CONFIG], table.id, token)
    return _json({"type": "invitation", "table": table.id, "seat": seat, "token": token, "link": link})


async def _settings(request: web.Request) -> web.Response:
    """``POST /api/tables/{id}/settings`` (admin): change ``hints`` and ``spectators``; returns the table."""
    from biblios_kit.net.server import CONFIG, HUB, _body, _json

    _admin(request)
    hub = request.app[HUB]
    table = hub.table(request.match_info["id"])
    change_settings(hub, table, await _body(request))
    return _json(table_summary(table, request.app[CONFIG]))


async def _close(request: web.Request) -> web.Response:
    """``DELETE /api/tables/{id}`` (admin): close the table."""
    from biblios_kit.net.server import HUB, _json

    _admin(request)
    hub = request.app[HUB]
    table = hub.table(request.match_info["id"])
    close(hub, table)
    return _json({"type": "closed", "table": table.id})


def seat_number(text: str) -> int | None:
    """A seat number as people write it (from 1) to the API's (from 0); ``None`` when not a number from 1."""
    number = count_of(text.strip())
    return None if number is None or number < 1 else number - 1


def add_lobby_routes(app: web.Application) -> None:
    """Add the admin's routes (see the module's docstring)."""
    app.add_routes(
        [
            web.get("/api/tables", _list),
            web.post("/api/tables/{id}/invite", _invite),
            web.post("/api/tables/{id}/settings", _settings),
            web.delete("/api/tables/{id}", _close),
        ]
    )
