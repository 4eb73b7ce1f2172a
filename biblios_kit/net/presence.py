"""Who is at a table: the ``table_info`` message sent to every connection of a table.

A seat is *connected* while at least one WebSocket follows the table with its token (a
terminal's ``join``, a browser's seat page, a bot of the API); the server's own bots are
always connected. Each connection that asks for it (``"table_info": true`` in its hello: the
messages of protocol 1 stay what they were for the clients that do not) gets the message
after its first view, and again
whenever someone connects or leaves or the table's settings change: every seat sees who is
there, how many watch, and the table's settings (so everyone knows whether hints are allowed).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from biblios_kit.i18n import _
from biblios_kit.net.protocol import dumps, error_message
from biblios_kit.net.views import SPECTATOR

if TYPE_CHECKING:
    from biblios_kit.net.settings import TableSettings
    from biblios_kit.net.tables import Listener, Table

HUMAN = "human"


def local_seats(table: Table) -> list[bool]:
    """Per seat, whether it is connected to this process now (a bot seat always is)."""
    present = {listener.seat for listener in table.listeners}
    return [spec != HUMAN or seat in present for seat, spec in enumerate(table.seats)]


def connected_seats(table: Table) -> list[bool]:
    """Per seat, whether it is connected now, to this process or (a shared store) another one (a bot seat always is)."""
    elsewhere = table.elsewhere
    return [here or seat in elsewhere for seat, here in enumerate(local_seats(table))]


def table_info(table: Table) -> dict[str, Any]:
    """The ``table_info`` message of ``table`` as it is now."""
    settings = table.settings
    return {
        "type": "table_info",
        "table": table.id,
        "connected": connected_seats(table),
        "spectators": sum(listener.seat == SPECTATOR for listener in table.listeners),
        "settings": settings.to_json(),
        "hints_allowed": settings.hints_allowed(table.seats),
    }


def announce(table: Table) -> None:
    """Queue the table's ``table_info`` for every connection of the table.

    Only connections that asked for it in their hello (``"table_info": true``) get it. A
    connection whose queue is full is about to be dropped as too slow (it gets the
    message again when it reconnects): it is skipped here.
    """
    wanting = [listener for listener in table.listeners if listener.info]
    if not wanting:
        return
    text = dumps(table_info(table))
    for listener in wanting:
        send_to(listener, text)


def send_to(listener: Listener, text: str | None) -> None:
    """Send ``text`` to ``listener`` (``None``: close the connection), the way its views go.

    The one way this module and :mod:`biblios_kit.net.lobby` reach a connection outside the
    hub's views. A listener with a direct writer (:attr:`Listener.write`, the server's
    WebSockets) gets the text at once, in order with its views; otherwise, and for the close,
    it waits in the listener's queue for its writer task (a full queue drops it).
    """
    if text is not None and listener.write is not None and listener.write(text):
        return
    with contextlib.suppress(asyncio.QueueFull):
        listener.queue.put_nowait(text)


def drop(table: Table, listeners: list[Listener], message: dict[str, Any]) -> None:
    """Tell ``listeners`` why with ``message``, then close them."""
    text = dumps(message)
    for listener in listeners:
        table.listeners.discard(listener)
        send_to(listener, text)
        send_to(listener, None)


def new_tokens(table: Table, digests: tuple[str, ...]) -> None:
    """``table``'s seats now answer to ``digests``: the connections of each seat whose token changed are closed."""
    changed = {seat for seat, (old, new) in enumerate(zip(table.token_digests, digests, strict=True)) if old != new}
    table.token_digests = digests
    message = error_message("token_revoked", _("this seat's link was issued again: the old one no longer works"))
    drop(table, [listener for listener in table.listeners if listener.seat in changed], message)
    announce(table)


def new_settings(table: Table, settings: TableSettings) -> None:
    """``table`` now has ``settings``: spectators turned away are disconnected, everyone is told."""
    table.settings = settings
    if not settings.spectators:
        watchers = [listener for listener in table.listeners if listener.seat == SPECTATOR]
        drop(table, watchers, error_message("no_spectators", _("this table does not accept spectators")))
    announce(table)


def closed(table: Table) -> None:
    """``table`` was closed: its bot stops, its connections are told and closed."""
    if table.bot_task is not None:
        table.bot_task.cancel()
    drop(table, list(table.listeners), error_message("table_closed", _("this table was closed by the server")))
