"""The game server: the aiohttp application, its routes (see ``docs/network.md``), and :func:`serve`.

Every reply to a bad request is a JSON error with a stable code (``unknown_table``,
``bad_token``, ``not_your_turn``, ``illegal_action``, ``malformed_json``, ``too_large``,
``rate_limited`` ...) and never a traceback; an unexpected exception is logged and
answered with ``internal``, and the server goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from biblios_kit.bounded import count_of
from biblios_kit.i18n import SUPPORTED, _, in_language, ngettext
from biblios_kit.net.collector import ScheduledCollector
from biblios_kit.net.frames import FrameWriter
from biblios_kit.net.open_store import open_store
from biblios_kit.net.protocol import (
    MAX_BODY_BYTES,
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    ProtocolError,
    action_texts,
    dumps,
    error_message,
    expected_version,
    is_count,
    parse_json_object,
)
from biblios_kit.net.security import (
    HTTP_LIMIT,
    HostPolicy,
    RateLimiter,
    bearer_token,
    client_key,
    guard_middleware,
    json_error,
    new_token,
    same_secret,
)
from biblios_kit.net.tables import Listener, Rejected, Table, TableHub
from biblios_kit.net.views import SPECTATOR

log = logging.getLogger("biblios_kit.net")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

CHECKPOINT_SECONDS = 5.0
"""How often the database's write-ahead log is copied into it (in a thread, off the event loop)."""

HELLO_TIMEOUT = 10.0
"""Seconds a WebSocket client has to say hello (with its token) before it is dropped."""


@dataclass
class ServerConfig:
    """How a server runs (the ``biblios-kit host`` options)."""

    data_dir: Path
    public_url: str = "http://127.0.0.1:8765"
    """The base URL printed in invitation links."""
    allowed_hosts: tuple[str, ...] = ()
    """Host names (besides IP addresses and localhost) the server answers to."""
    admin_token: str | None = None
    """The token that may create tables; read from (or written to) ``<data-dir>/admin-token`` when ``None``."""
    max_tables: int = 10_000
    max_listeners: int = 4_000
    """Open WebSocket connections, all tables together."""
    http_rate: float = 50.0
    http_burst: float = 100.0
    ws_rate: float = 50.0
    ws_burst: float = 200.0
    bot_threads: int = 2
    durable: bool = False
    db: str | None = None
    """A PostgreSQL URL: tables kept there, shared with the other processes using it (``None``: SQLite in ``data_dir``)."""
    lobby: bool = False
    """Serve the public lobby (``/lobby``: the open tables, where visitors take free seats)."""
    extra: dict[str, Any] = field(default_factory=dict)


def admin_token_of(data_dir: Path) -> str:
    """The admin token of a data folder, created (readable by its owner only) on first use."""
    path = data_dir / "admin-token"
    if path.is_file():
        return path.read_text(encoding="utf-8").strip()
    data_dir.mkdir(parents=True, exist_ok=True)
    token = new_token()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    return token


HUB = web.AppKey("hub", TableHub)
CONFIG = web.AppKey("config", ServerConfig)
ADMIN = web.AppKey("admin", str)
SOCKETS = web.AppKey("sockets", set[web.WebSocketResponse])


def make_app(config: ServerConfig) -> web.Application:
    """The aiohttp application of a game server (tables resumed from ``config.data_dir`` or ``config.db`` at start-up).

    Raises :class:`~biblios_kit.net.storage.StorageError` when the database cannot be reached.
    """
    store = open_store(config.data_dir, db=config.db, durable=config.durable)
    executor = ThreadPoolExecutor(max_workers=config.bot_threads, thread_name_prefix="bot")
    hub = TableHub(store, executor, max_tables=config.max_tables)
    hub.load()
    app = web.Application(
        client_max_size=MAX_BODY_BYTES,
        middlewares=[guard_middleware(HostPolicy.of(config.allowed_hosts)), _errors_middleware],
    )
    app[HUB] = hub
    app[CONFIG] = config
    app[ADMIN] = config.admin_token or admin_token_of(config.data_dir)
    app[HTTP_LIMIT] = RateLimiter(config.http_rate, config.http_burst)
    sockets: set[web.WebSocketResponse] = set()
    app[SOCKETS] = sockets
    app.add_routes(
        [
            web.get("/api", _info),
            web.post("/api/tables", _create),
            web.get("/api/tables/{id}", _view),
            web.post("/api/tables/{id}/actions", _actions),
            web.post("/api/tables/{id}/payment-options", _payment_options),
            web.get("/api/tables/{id}/record", _record),
            web.get("/api/tables/{id}/ws", _websocket),
        ]
    )
    from biblios_kit.net.lobby import add_lobby_routes
    from biblios_kit.net.seat_page import add_seat_page
    from biblios_kit.net.spectate import add_spectator_page

    add_seat_page(app, hub, _websocket)
    add_lobby_routes(app, hub, app[ADMIN], config.public_url, _limit, _body,
                     lambda table, token: invitation_link(config, table, token))  # fmt: skip
    add_spectator_page(app, hub, _websocket)
    from biblios_kit.net.rematch import add_rematch_routes, add_seat_page_rematch

    add_rematch_routes(app, hub, _table_and_seat, _body, lambda table, token: invitation_link(config, table, token))
    add_seat_page_rematch(app, hub, _body)
    from biblios_kit.net.clock_routes import add_clock_routes

    add_clock_routes(app, hub, _table_and_seat, _body)
    if config.lobby:
        from biblios_kit.net.lobby_page import add_lobby_page

        add_lobby_page(app, hub)

    async def checkpoints() -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(CHECKPOINT_SECONDS)
            try:
                await loop.run_in_executor(None, store.checkpoint)
            except Exception:
                log.exception("checkpoint failed")

    background: list[asyncio.Task[None]] = []

    async def started(_app: web.Application) -> None:
        hub.start()
        background.append(asyncio.create_task(checkpoints()))
        if hub.shared is not None:
            background.append(asyncio.create_task(hub.follow()))

    async def stopping(_app: web.Application) -> None:
        for task in background:
            task.cancel()
        await asyncio.gather(*background, return_exceptions=True)
        for ws in list(sockets):
            with contextlib.suppress(Exception):
                await ws.close(code=1001, message=b"server shutdown")
        await hub.stop()

    async def cleanup(_app: web.Application) -> None:
        executor.shutdown(wait=False, cancel_futures=True)
        if hub.shared is not None:
            await hub.shared.aclose()
        store.close()

    app.on_startup.append(started)
    app.on_shutdown.append(stopping)
    app.on_cleanup.append(cleanup)
    return app


# ---------------------------------------------------------------------- errors


@web.middleware
async def _errors_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Turn every failure into a JSON error reply; nothing escapes as a traceback."""
    try:
        return await handler(request)
    except Rejected as error:
        return _rejected(error)
    except ProtocolError as error:
        return json_error(400, "bad_request", str(error))
    except web.HTTPRequestEntityTooLarge:
        message = ngettext(
            "the request is too large (at most {size} byte)",
            "the request is too large (at most {size} bytes)",
            MAX_BODY_BYTES,
        ).format(size=MAX_BODY_BYTES)
        return json_error(413, "too_large", message)
    except web.HTTPException as error:
        if error.status < 400:
            raise
        code = {404: "not_found", 405: "method_not_allowed"}.get(error.status, "http_error")
        return json_error(error.status, code, error.reason)
    except (asyncio.CancelledError, ConnectionResetError):
        raise
    except Exception:
        log.exception("unexpected error on %s %s", request.method, request.path)
        return json_error(500, "internal", _("internal error (the server goes on; see its log)"))


def _rejected(error: Rejected) -> web.Response:
    """The JSON reply of a refused request (with the requester's current view when the error carries one)."""
    if error.view is None:
        return json_error(error.status, error.code, error.message)
    return _json({"error": {"code": error.code, "message": error.message}, "view": error.view}, error.status)


def _limit(request: web.Request, verified: str | None) -> None:
    """Spend one request of the client's budget: its token's once ``verified`` (checked), else its address's.

    A token is only a key once it proved to be a seat's (or the admin's): a client making up
    a new token for each request is still one address.
    """
    limiter = request.app[HTTP_LIMIT]
    if not limiter.allow(client_key(request, verified)):
        raise Rejected(429, "rate_limited", _("too many requests; slow down"))


async def _body(request: web.Request) -> dict[str, Any]:
    if request.content_length is not None and request.content_length > MAX_BODY_BYTES:
        raise web.HTTPRequestEntityTooLarge(max_size=MAX_BODY_BYTES, actual_size=request.content_length)
    data = await request.read()
    try:
        return parse_json_object(data)
    except ProtocolError as error:
        raise Rejected(400, "malformed_json", str(error)) from None


def _json(data: object, status: int = 200) -> web.Response:
    return web.Response(text=dumps(data), status=status, content_type="application/json")


# ---------------------------------------------------------------------- routes


async def _info(request: web.Request) -> web.Response:
    """``GET /api``: what this server is."""
    return _json({"server": "biblios-kit", "protocol": PROTOCOL_VERSION})


def invitation_link(config: ServerConfig, table: str, token: str) -> str:
    """The join link of a seat: ``<public-url>/play/<table>?token=<token>`` (a browser opens it too)."""
    return f"{config.public_url.rstrip('/')}/play/{table}?token={token}"


async def _create(request: web.Request) -> web.Response:
    """``POST /api/tables`` (admin token): create a table; returns its id and the tokens and links of its human seats."""
    token = bearer_token(request)
    admin = token is not None and same_secret(token, request.app[ADMIN])
    _limit(request, token if admin else None)
    if not admin:
        raise Rejected(403, "bad_token", _("creating a table needs the server's admin token"))
    body = await _body(request)
    ruleset = body.get("ruleset", "biblios")
    options = body.get("options", [])
    players = body.get("players")
    seats = body.get("seats", [])
    names = body.get("names", [])
    seed = body.get("seed")
    bot_delay = body.get("bot_delay", 0.5)
    if not isinstance(ruleset, str) or not _strings(options) or not _strings(seats) or not _strings(names):
        raise Rejected(
            400, "bad_request", _('"ruleset" must be a string; "options", "seats" and "names" lists of strings')
        )
    if players is None:
        players = len(seats) if seats else 3
    if (
        not _int(players)
        or (seed is not None and not _int(seed))
        or isinstance(bot_delay, bool)
        or not isinstance(bot_delay, int | float)
    ):
        raise Rejected(400, "bad_request", _('"players" and "seed" must be integers, "bot_delay" a number'))
    from biblios_kit.net.lobby import spectator_link
    from biblios_kit.net.settings import TableSettings

    try:
        settings = TableSettings().changed(body)
    except ValueError as error:
        raise Rejected(400, "bad_settings", str(error)) from None
    free = body.get("free_seats", [])
    if not isinstance(free, list) or not all(_int(seat) for seat in free):
        raise Rejected(400, "bad_request", _('"free_seats" must be a list of seat numbers'))
    hub = request.app[HUB]
    invitation = hub.create(ruleset, options, players, seats, names, seed, float(bot_delay), settings, free)
    table = hub.table(invitation.table)
    config = request.app[CONFIG]
    return _json(
        {
            "table": table.id,
            "settings": settings.to_json(),
            "spectator_link": spectator_link(config.public_url, table),
            "seats": [
                {
                    "seat": seat,
                    "name": table.names[seat],
                    "kind": table.seats[seat],
                    "token": invitation.tokens.get(seat),
                    "link": invitation_link(config, table.id, invitation.tokens[seat])
                    if seat in invitation.tokens
                    else None,
                }
                for seat in range(len(table.seats))
            ],
        },
        status=201,
    )


def _table_and_seat(request: web.Request, *, required: bool) -> tuple[Table, int, str | None]:
    token = bearer_token(request)
    hub = request.app[HUB]
    known = hub.tables.get(request.match_info["id"])
    verified = token if known is not None and known.seat_of(token) is not None else None
    _limit(request, verified)
    table = hub.table(request.match_info["id"])
    if token is None and not required:
        if not table.settings.spectators:
            raise Rejected(403, "no_spectators", _("this table does not accept spectators"))
        return table, SPECTATOR, None
    return table, hub.seat(table, token), token


async def _view(request: web.Request) -> web.Response:
    """``GET /api/tables/{id}``: that seat's view (the public view without a token); ``?since=N`` trims the events."""
    table, seat, _token = _table_and_seat(request, required=False)
    since = count_of(request.query.get("since", "0"))
    if since is None:
        raise Rejected(400, "bad_request", _('"since" must be a non-negative integer'))
    return _json(table.view(seat, since))


async def _actions(request: web.Request) -> web.Response:
    """``POST /api/tables/{id}/actions`` with ``{"action": "...", "version": V}`` or ``{"actions": [...], ...}``.

    With ``version`` (the version of the view the client chose from), a stale or replayed
    request is refused with ``409 stale_version`` and the current view.
    """
    table, seat, _token = _table_and_seat(request, required=True)
    body = await _body(request)
    try:
        texts = action_texts(body)
        expected = expected_version(body)
    except ProtocolError as error:
        raise Rejected(400, "bad_request", str(error)) from None
    accepted = await request.app[HUB].submit(table, seat, texts, expected)
    request.app[HUB].clocks.acted(table, seat)  # a stand-in playing for this person steps aside
    return _json({"type": "accepted", "actions": accepted, "version": table.version})


async def _payment_options(request: web.Request) -> web.Response:
    """``POST /api/tables/{id}/payment-options`` with ``{"pay": [...]}``: the payer's options after those cards."""
    table, seat, _token = _table_and_seat(request, required=True)
    body = await _body(request)
    pay = body.get("pay", [])
    if not _strings(pay) or len(pay) > 64:
        raise Rejected(400, "bad_request", _('"pay" must be a list of actions in text form'))
    options = request.app[HUB].payment_options(table, seat, pay)
    return _json({"type": "payment_options", "pay": pay, "options": options})


async def _record(request: web.Request) -> web.Response:
    """``GET /api/tables/{id}/record``: the game record, once the game is over."""
    table, _seat, _token = _table_and_seat(request, required=False)
    if not table.finished:
        raise Rejected(409, "not_finished", _("the game is not over; its record names hidden cards"))
    from biblios_kit.engine.records import record_of

    return _json(record_of(table.state, bots=list(table.seats)).to_json())


# ---------------------------------------------------------------------- the WebSocket


async def _websocket(request: web.Request) -> web.StreamResponse:
    """``GET /api/tables/{id}/ws``: hello with a token (or none: spectator), then views pushed, actions sent."""
    hub = request.app[HUB]
    table = hub.table(request.match_info["id"])
    sockets = request.app[SOCKETS]
    if len(sockets) >= request.app[CONFIG].max_listeners:
        raise Rejected(503, "too_many_connections", _("too many connections; try again later"))
    # No permessage-deflate, though browsers ask for it: compressing each view for each
    # connection cost more CPU than building it (views are 1-2 KB; docs/performance.md).
    ws = web.WebSocketResponse(heartbeat=20, max_msg_size=MAX_MESSAGE_BYTES, compress=False)
    await ws.prepare(request)
    sockets.add(ws)
    config = request.app[CONFIG]
    limiter = RateLimiter(config.ws_rate, config.ws_burst)
    listener: Listener | None = None
    writer: asyncio.Task[None] | None = None
    try:
        seat = await _hello(ws, request, table)
        if seat is None:
            return ws
        since, hello = seat[1], seat[2]
        lang = _language(hello)
        token = None if seat[0] == SPECTATOR else hello.get("token", bearer_token(request))  # its rematch place
        frames = FrameWriter.of(ws, request)
        listener = hub.listen(table, seat[0], since, info=hello.get("table_info") is True,
                              updates=hello.get("updates") is True, write=frames, token=token)  # fmt: skip
        writer = asyncio.create_task(_write(ws, listener))
        async for message in ws:
            if message.type == WSMsgType.ERROR:
                break
            if message.type != WSMsgType.TEXT:
                await _send(ws, error_message("bad_request", _("messages must be JSON text")))
                continue
            if not limiter.allow("ws"):
                if limiter.exhausted("ws"):
                    await ws.close(code=1008, message=b"flooding")
                    break
                await _send(ws, error_message("rate_limited", _("too many messages; slow down")))
                continue
            if listener not in table.listeners:
                continue  # let go (a closed table, a link issued again, too slow): its writer tells why and closes
            # The views the message causes for this connection and the reply after them leave in one write.
            if frames is not None:
                frames.hold()
            try:
                reply = await _handle(hub, table, listener.seat, message.data, lang)
                sent = reply is None or (frames is not None and frames(dumps(reply)))
            finally:
                if frames is not None:
                    frames.release()
            if reply is not None and not sent:
                await _send(ws, reply)
    except (asyncio.CancelledError, ConnectionResetError):
        raise
    except Exception:
        # The socket is upgraded: an error reply of the middleware cannot be written into it any more.
        log.exception("unexpected error on the WebSocket of table %s", table.id)
        with contextlib.suppress(Exception):
            await ws.close(code=1011, message=b"internal error")
    finally:
        sockets.discard(ws)
        if listener is not None:
            hub.forget(table, listener)
            with contextlib.suppress(asyncio.QueueFull):
                listener.queue.put_nowait(None)
        if writer is not None:
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer
    return ws


async def _hello(
    ws: web.WebSocketResponse, request: web.Request, table: Table
) -> tuple[int, int, dict[str, Any]] | None:
    """Read the hello message; returns (seat, first event wanted, the hello), or ``None`` after closing a bad client."""
    try:
        message = await ws.receive(timeout=HELLO_TIMEOUT)
    except TimeoutError:
        await ws.close(code=1008, message=b"no hello")
        return None
    if message.type != WSMsgType.TEXT:
        await ws.close(code=1008, message=b"expected a hello message")
        return None
    try:
        hello = parse_json_object(message.data)
    except ProtocolError as error:
        await _send(ws, error_message("malformed_json", str(error)))
        await ws.close(code=1008, message=b"malformed hello")
        return None
    token = hello.get("token", bearer_token(request))
    since = hello.get("since", 0)
    updates = hello.get("updates", False)
    if (
        hello.get("type") != "hello"
        or not (token is None or isinstance(token, str))
        or not is_count(since)
        or not isinstance(updates, bool)
    ):
        await _send(
            ws, error_message("bad_request", _("the first message must be a hello message with the seat's token"))
        )
        await ws.close(code=1008, message=b"bad hello")
        return None
    if token is None:
        if not table.settings.spectators:
            await _send(ws, error_message("no_spectators", _("this table does not accept spectators")))
            await ws.close(code=1008, message=b"no spectators")
            return None
        return SPECTATOR, since, hello
    seat = table.seat_of(token)
    if seat is None:
        await _send(
            ws, error_message("bad_token", _("this token is not a seat of table {table}").format(table=table.id))
        )
        await ws.close(code=1008, message=b"bad token")
        return None
    return seat, since, hello


def _language(message: dict[str, Any]) -> str | None:
    """The ``lang`` a client message asks its error messages in (``None``: the server's)."""
    lang = message.get("lang")
    return lang if isinstance(lang, str) and lang in SUPPORTED else None


async def _handle(hub: TableHub, table: Table, seat: int, data: str, lang: str | None = None) -> dict[str, Any] | None:
    """One client message: an action, a payment question or a ping; returns the reply (``None``: the view says it).

    Nothing a client sends ends its connection: every failure, even an unexpected one, is an
    error reply. Error messages are in ``lang`` (the hello's), or the message's own ``lang``.
    """
    if lang is None:
        return await _handle_in(hub, table, seat, data)
    with in_language(lang):
        return await _handle_in(hub, table, seat, data)


async def _handle_in(hub: TableHub, table: Table, seat: int, data: str) -> dict[str, Any] | None:
    try:
        return await _reply(hub, table, seat, data)
    except Rejected as error:
        reply = error_message(error.code, error.message)
        if error.view is not None:
            reply["view"] = error.view
        return reply
    except Exception:
        log.exception("unexpected error on a WebSocket message to table %s", table.id)
        return error_message("internal", _("internal error (the server goes on; see its log)"))


async def _reply(hub: TableHub, table: Table, seat: int, data: str) -> dict[str, Any] | None:
    """The reply to one client message (``Rejected`` for a refused one)."""
    try:
        message = parse_json_object(data)
    except ProtocolError as error:
        return error_message("malformed_json", str(error))
    lang = _language(message)
    if lang is None:
        return await _answer(hub, table, seat, message)
    with in_language(lang):
        return await _answer(hub, table, seat, message)


async def _answer(hub: TableHub, table: Table, seat: int, message: dict[str, Any]) -> dict[str, Any] | None:
    """The reply to one parsed client message (``Rejected`` for a refused one)."""
    kind = message.get("type")
    if kind == "ping":
        return {"type": "pong"}
    if kind == "action":
        if seat == SPECTATOR:
            raise Rejected(403, "spectator", _("spectators cannot play"))
        try:
            texts = action_texts(message)
            expected = expected_version(message)
        except ProtocolError as error:
            raise Rejected(400, "bad_request", str(error)) from None
        accepted = await hub.submit(table, seat, texts, expected)
        hub.clocks.acted(table, seat)  # a stand-in playing for this person steps aside
        return {"type": "accepted", "actions": accepted, "version": table.version}
    if kind == "payment_options":
        if seat == SPECTATOR:
            raise Rejected(403, "spectator", _("spectators cannot play"))
        pay = message.get("pay", [])
        if not _strings(pay) or len(pay) > 64:
            raise Rejected(400, "bad_request", _('"pay" must be a list of actions in text form'))
        return {"type": "payment_options", "pay": pay, "options": hub.payment_options(table, seat, pay)}
    if kind in ("back", "stand_in_vote"):
        from biblios_kit.net.clock_routes import clock_request

        return clock_request(hub, table, seat, message)
    return error_message("bad_request", _("unknown message type {type}").format(type=repr(kind)[:40]))


async def _write(ws: web.WebSocketResponse, listener: Listener) -> None:
    """Send the listener's queued messages in order; ``None`` closes the connection."""
    while True:
        text = await listener.queue.get()
        if text is None:
            await ws.close(code=1013, message=b"too slow")
            return
        await ws.send_str(text)


async def _send(ws: web.WebSocketResponse, message: dict[str, Any]) -> None:
    if not ws.closed:
        await ws.send_str(dumps(message))


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# ---------------------------------------------------------------------- running


def serve(config: ServerConfig, bind: str, port: int, ready: Callable[[], None] | None = None) -> None:
    """Run the server until Ctrl+C (or SIGTERM)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
    app = make_app(config)
    # Garbage collection on a timer, not in the middle of an action's views (net/collector.py).
    collector = ScheduledCollector()

    async def start_collector(_app: web.Application) -> None:
        collector.start()

    async def stop_collector(_app: web.Application) -> None:
        await collector.stop()

    app.on_startup.append(start_collector)
    app.on_cleanup.append(stop_collector)

    async def announce(_app: web.Application) -> None:
        if ready is not None:
            ready()

    app.on_startup.append(announce)
    web.run_app(app, host=bind, port=port, print=None, access_log=None, shutdown_timeout=5)
