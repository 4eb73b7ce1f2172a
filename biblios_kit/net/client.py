"""A client of the game server's API: invitation links, HTTP calls, and the WebSocket stream of views.

Used by ``biblios-kit join``, ``biblios-kit host new``, the example bot
(``examples/api_bot.py``) and the load benchmark. :class:`SeatConnection` keeps a
WebSocket open to one table, reconnecting by itself (with the events it already has,
so nothing is received twice or lost) and handing every view to a callback.

A client does not trust its server: every reply and WebSocket message is read up to
:data:`MAX_REPLY_BYTES` (a larger or unreadable one is an :class:`ApiError` with code
``bad_reply`` and a translated message, never a traceback), and the server's error
messages and the names of the tables it creates lose their control characters
(:mod:`biblios_kit.names`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp

from biblios_kit.i18n import _
from biblios_kit.names import clean_name, clean_text
from biblios_kit.net.protocol import ProtocolError

MAX_REPLY_BYTES = 1 << 20
"""Largest server reply or WebSocket message read, in bytes. The largest message of a real game, the view of
a finished game with its whole event log, measured 61 KB (4 players, random moves)."""
RATE_LIMIT_PAUSES: tuple[float, ...] = (0.25, 0.5, 1.0, 2.0)
"""Seconds :class:`ApiClient` waits before sending a request the server refused as too fast (429)."""


class ApiError(Exception):
    """An error reply of the server (``code`` as in docs/network.md), a connection problem (``code``
    ``"network"``), or a reply this client refuses (``"bad_reply"``: too large, not JSON, malformed).

    ``message`` is safe to print: it never holds a control character, whatever the server sent.
    """

    def __init__(self, code: str, message: str, status: int = 0) -> None:
        message = clean_text(message)
        super().__init__(message)
        self.code = clean_text(code, limit=40)
        self.message = message
        self.status = status


def too_large_reply(server: str) -> ApiError:
    """The error of a reply or message over :data:`MAX_REPLY_BYTES`."""
    return ApiError("bad_reply", _("{server}: the server sent a message larger than {size} MB; it was not read")
                    .format(server=server, size=MAX_REPLY_BYTES >> 20))  # fmt: skip


def unreadable_reply(server: str, status: int = 0) -> ApiError:
    """The error of a reply or message that is not what the protocol says (not JSON, a field missing ...)."""
    message = _("{server}: the server sent a message this client cannot read").format(server=server)
    return ApiError("bad_reply", message, status)


def payment_options_of(reply: object, server: str) -> list[str] | None:
    """The ``options`` of a payment-options reply: a list of action texts, or ``None`` once the payment is complete."""
    if not isinstance(reply, dict) or "options" not in reply:
        raise unreadable_reply(server)
    options = reply["options"]
    if options is not None and not (isinstance(options, list) and all(isinstance(o, str) for o in options)):
        raise unreadable_reply(server)
    return options


def server_error(problem: object, status: int) -> ApiError:
    """The :class:`ApiError` of an error reply's ``error`` object (``{"code": ..., "message": ...}``)."""
    fields = problem if isinstance(problem, dict) else {}
    return ApiError(str(fields.get("code", "http_error")), str(fields.get("message", status)), status)


@dataclass(frozen=True)
class Invitation:
    """A parsed invitation link: ``<server>/play/<table>?token=<token>``, or a spectator link ``<server>/watch/<table>``."""

    server: str
    """The server's base URL (``http://host:port``)."""
    table: str
    token: str | None
    watch: bool = False
    """A spectator link: the public view, no token (a token it carries is not used)."""


def parse_link(link: str) -> Invitation:
    """Parse an invitation link (``ValueError`` with the reason when it is not one)."""
    parts = urlsplit(link.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"expected an http:// or https:// link, got {link!r}")
    segments = [s for s in parts.path.split("/") if s]
    if len(segments) != 2 or segments[0] not in ("play", "watch"):
        raise ValueError(f"expected a link ending in /play/<table>?token=... or /watch/<table>, got {link!r}")
    if segments[0] == "watch":
        return Invitation(f"{parts.scheme}://{parts.netloc}", segments[1], None, watch=True)
    token = parse_qs(parts.query).get("token", [None])[0]
    return Invitation(f"{parts.scheme}://{parts.netloc}", segments[1], token)


class ApiClient:
    """HTTP calls to one server (an ``aiohttp.ClientSession`` inside; use ``async with``)."""

    def __init__(self, server: str, token: str | None = None, session: aiohttp.ClientSession | None = None) -> None:
        self.server = server.rstrip("/")
        self.token = token
        self._own = session is None
        self.session = session or aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30))

    async def __aenter__(self) -> ApiClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the HTTP session (when this client made it)."""
        if self._own:
            await self.session.close()

    def _headers(self, token: str | None = None) -> dict[str, str]:
        token = token or self.token
        return {"Authorization": f"Bearer {token}"} if token else {}

    async def _call(self, method: str, path: str, body: object = None, token: str | None = None) -> Any:
        """One request; a reply of 429 (too many requests) is sent again after a pause, a few times."""
        for pause in RATE_LIMIT_PAUSES:
            try:
                return await self._call_once(method, path, body, token)
            except ApiError as error:
                if error.status != 429:
                    raise
                await asyncio.sleep(pause)
        return await self._call_once(method, path, body, token)

    async def _call_once(self, method: str, path: str, body: object, token: str | None) -> Any:
        try:
            async with self.session.request(
                method, self.server + path, json=body, headers=self._headers(token)
            ) as response:
                status = response.status
                if (response.content_length or 0) > MAX_REPLY_BYTES:
                    raise too_large_reply(self.server)
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.content.iter_any():
                    size += len(chunk)
                    if size > MAX_REPLY_BYTES:  # a server that does not say its length, or lies about it
                        raise too_large_reply(self.server)
                    chunks.append(chunk)
        except (aiohttp.ClientError, TimeoutError, OSError) as error:
            raise ApiError("network", f"{self.server}: {error}") from None
        try:
            data = json.loads(b"".join(chunks))
        except ValueError:  # not JSON, or not UTF-8
            raise unreadable_reply(self.server, status) from None
        if status >= 400:
            raise server_error(data.get("error") if isinstance(data, dict) else None, status)
        return data

    async def create_table(self, admin_token: str, **fields: Any) -> dict[str, Any]:
        """``POST /api/tables`` (fields: ruleset, options, players, seats, names, seed, bot_delay)."""
        result = await self._call("POST", "/api/tables", fields, admin_token)
        try:  # printed to a terminal by ``host new``: names, kinds, links and the table id are cleaned
            result["table"] = clean_text(result["table"], limit=100)
            for seat in result["seats"]:
                seat["name"] = clean_name(seat["name"])  # "": the seat's default name, in the reader's language
                seat["kind"] = clean_text(seat["kind"], limit=100)
                seat["link"] = clean_text(seat.get("link"), limit=500) or None
                if not isinstance(seat["seat"], int):
                    raise TypeError(seat["seat"])
            result["spectator_link"] = clean_text(result.get("spectator_link"), limit=500) or None
        except (KeyError, TypeError):
            raise unreadable_reply(self.server) from None
        return dict(result)

    async def tables(self, admin_token: str) -> dict[str, Any]:
        """``GET /api/tables`` (admin): every table, with names, kinds and links cleaned for a terminal."""
        result = await self._call("GET", "/api/tables", token=admin_token)
        try:
            for table in result["tables"]:
                _clean_summary(table)
            if not isinstance(result["broken"], dict):
                raise TypeError(result["broken"])
            result["broken"] = {clean_text(k, limit=100): clean_text(v) for k, v in result["broken"].items()}
        except (KeyError, TypeError, AttributeError):
            raise unreadable_reply(self.server) from None
        return dict(result)

    async def invite(self, admin_token: str, table: str, seat: int) -> dict[str, Any]:
        """``POST /api/tables/{table}/invite`` (admin): a new token and link for ``seat`` (from 0)."""
        result = await self._call("POST", f"/api/tables/{table}/invite", {"seat": seat}, admin_token)
        try:
            result["link"] = clean_text(result["link"], limit=500)
        except (KeyError, TypeError):
            raise unreadable_reply(self.server) from None
        return dict(result)

    async def change_settings(self, admin_token: str, table: str, **settings: Any) -> dict[str, Any]:
        """``POST /api/tables/{table}/settings`` (admin): ``hints``, ``spectators``; returns the table's summary."""
        result = await self._call("POST", f"/api/tables/{table}/settings", settings, admin_token)
        try:
            _clean_summary(result)
        except (KeyError, TypeError, AttributeError):
            raise unreadable_reply(self.server) from None
        return dict(result)

    async def close_table(self, admin_token: str, table: str) -> None:
        """``DELETE /api/tables/{table}`` (admin): close the table."""
        await self._call("DELETE", f"/api/tables/{table}", token=admin_token)

    async def view(self, table: str, since: int = 0) -> dict[str, Any]:
        """``GET /api/tables/{table}``: this seat's view (the public view without a token)."""
        result: dict[str, Any] = await self._call("GET", f"/api/tables/{table}?since={since}")
        return result

    async def act(self, table: str, *actions: str, version: int | None = None) -> dict[str, Any]:
        """``POST /api/tables/{table}/actions``: play one action (or several: a payment) in text form.

        ``version`` is that of the view the actions answer: sent again after a lost reply, they
        are refused (``stale_version``) instead of being played twice.
        """
        body: dict[str, Any] = {"action": actions[0]} if len(actions) == 1 else {"actions": list(actions)}
        if version is not None:
            body["version"] = version
        result: dict[str, Any] = await self._call("POST", f"/api/tables/{table}/actions", body)
        return result

    async def payment_options(self, table: str, pay: list[str]) -> list[str] | None:
        """The payer's options after paying ``pay`` (``None`` once the payment is complete)."""
        result = await self._call("POST", f"/api/tables/{table}/payment-options", {"pay": pay})
        return payment_options_of(result, self.server)

    async def record(self, table: str) -> dict[str, Any]:
        """``GET /api/tables/{table}/record``: the game record of a finished game."""
        result: dict[str, Any] = await self._call("GET", f"/api/tables/{table}/record")
        return result

    async def rematch(self, table: str, accept: bool) -> dict[str, Any]:
        """``POST /api/tables/{table}/rematch``: this seat opts in to (or out of) a rematch at the end."""
        result: dict[str, Any] = await self._call("POST", f"/api/tables/{table}/rematch", {"rematch": accept})
        return result


def _clean_summary(table: dict[str, Any]) -> None:
    """Clean a table summary of ``GET /api/tables`` in place, for a terminal (``KeyError``/``TypeError`` if malformed)."""
    table["table"] = clean_text(table["table"], limit=100)
    table["ruleset"] = clean_text(table["ruleset"], limit=100)
    table["state"] = clean_text(table["state"], limit=20)
    table["spectator_link"] = clean_text(table.get("spectator_link"), limit=500) or None
    if not (table["to_move"] is None or isinstance(table["to_move"], int)) or not isinstance(table["version"], int):
        raise TypeError(table["to_move"])
    settings = table["settings"]
    settings["hints"] = clean_text(settings["hints"], limit=20)
    if not isinstance(settings["spectators"], bool) or not isinstance(settings["open"], bool):
        raise TypeError(settings)
    for seat in table["seats"]:
        seat["name"] = clean_name(seat["name"])
        seat["kind"] = clean_text(seat["kind"], limit=100)
        if not isinstance(seat["seat"], int) or not all(isinstance(seat[k], bool) for k in ("connected", "free")):
            raise TypeError(seat)


ViewCallback = Callable[[dict[str, Any]], Awaitable[None] | None]


def unreachable_reason(error: BaseException) -> str:
    """Why a server could not be reached, in a sentence of the active language."""
    if isinstance(error, aiohttp.WSServerHandshakeError):
        return _("the server refused the connection (HTTP {status})").format(status=error.status)
    if isinstance(error, aiohttp.ClientConnectorError):
        return _("nothing answers at this address (is the server running?)")
    if isinstance(error, TimeoutError | aiohttp.ServerTimeoutError):
        return _("the server does not answer")
    return _("the connection failed ({reason})").format(
        reason=clean_text(str(error), limit=200) or type(error).__name__
    )


class SeatConnection:
    """A WebSocket to one table for one seat (or a spectator), reconnecting by itself.

    It asks for updates (docs/network.md) and applies each to the last view, so every
    view (whole, with only the events not received yet) goes to ``on_view``; error
    replies go to ``on_error``; ``on_status(connected)`` tells when the link is lost or
    back; ``on_info`` gets each ``table_info`` message (who is connected, the table's
    settings: asked for in the hello only when given), the ``table_event`` and ``clock``
    messages of a table with clocks or stand-ins and, at the end, the ``rematch`` and
    ``rematch_ready`` messages; ``on_unreachable(reason, delay)``
    tells each failed attempt to connect (``reason`` a sentence of the active language) and
    the seconds until the next. ``lang`` asks for the server's error messages in that
    language. :meth:`send_actions` plays; :meth:`run` runs until :meth:`close`, or until the
    server sends a message larger than :data:`MAX_REPLY_BYTES` or one that is not JSON:
    then it raises :class:`ApiError` (``bad_reply``) instead of reconnecting to more of the same.
    """

    def __init__(self, server: str, table: str, token: str | None, on_view: ViewCallback,
                 on_error: Callable[[str, str], None] | None = None,
                 on_status: Callable[[bool], None] | None = None, *, lang: str | None = None,
                 on_info: Callable[[dict[str, Any]], None] | None = None,
                 on_unreachable: Callable[[str, float], None] | None = None) -> None:  # fmt: skip
        self.server = server.rstrip("/")
        self.lang = lang
        """The language of the server's error messages (sent in the hello and with each action)."""
        self.on_info = on_info
        self.on_unreachable = on_unreachable
        self.table = table
        self.token = token
        self.on_view = on_view
        self.on_error = on_error
        self.on_status = on_status
        self.events = 0
        """Events received so far (asked for again from here after a reconnection)."""
        self.view: dict[str, Any] | None = None
        """The last view, whole (``update`` messages apply to it); ``None`` until the first one."""
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._closing = False
        self._pending: dict[str, asyncio.Future[Any]] = {}
        self.connected = asyncio.Event()

    @property
    def url(self) -> str:
        """The WebSocket URL of the table."""
        base = self.server.replace("https://", "wss://", 1).replace("http://", "ws://", 1)
        return f"{base}/api/tables/{self.table}/ws"

    async def run(self, retry: float = 0.5, max_retry: float = 10.0) -> None:
        """Connect, receive views until closed, and reconnect after a drop (waiting up to ``max_retry`` seconds).

        ``ApiError`` (``bad_reply``) when the server sends a message too large or not JSON, and
        (``unknown_table``) when the server has no such table (it was closed, or the link is wrong).
        """
        delay = retry
        async with aiohttp.ClientSession() as session:
            while not self._closing:
                try:
                    async with session.ws_connect(self.url, heartbeat=20, max_msg_size=MAX_REPLY_BYTES) as ws:
                        self._ws = ws
                        self.view = None  # a whole view comes first, then updates to it
                        hello: dict[str, Any] = {"type": "hello", "token": self.token, "since": self.events,
                                                 "updates": True}  # fmt: skip
                        if self.lang:
                            hello["lang"] = self.lang
                        if self.on_info is not None:
                            hello["table_info"] = True
                        await ws.send_json(hello)
                        delay = retry
                        async for message in ws:
                            if message.type != aiohttp.WSMsgType.TEXT:
                                error = message.data if message.type == aiohttp.WSMsgType.ERROR else None
                                if getattr(error, "code", None) == aiohttp.WSCloseCode.MESSAGE_TOO_BIG:
                                    raise too_large_reply(self.server)
                                break
                            await self._receive(message.data)
                            if not self.connected.is_set():
                                self.connected.set()
                                if self.on_status:
                                    self.on_status(True)
                except aiohttp.WSServerHandshakeError as error:
                    if error.status == 404:
                        gone = _("the server has no table {table} (it was closed, or the link is wrong)")
                        raise ApiError("unknown_table", gone.format(table=self.table), 404) from None
                    if self.on_unreachable and not self.connected.is_set():
                        self.on_unreachable(unreachable_reason(error), delay)
                except (aiohttp.ClientError, TimeoutError, OSError) as error:
                    if self.on_unreachable and not self.connected.is_set() and self._ws is None:
                        self.on_unreachable(unreachable_reason(error), delay)
                except ProtocolError:
                    pass
                finally:
                    self._ws = None
                    for future in self._pending.values():
                        if not future.done():
                            future.set_exception(ApiError("network", "connection lost"))
                    self._pending.clear()
                if self._closing:
                    break
                if self.connected.is_set():
                    self.connected.clear()
                    if self.on_status:
                        self.on_status(False)
                await asyncio.sleep(delay)
                delay = min(max_retry, delay * 2)

    async def _receive(self, data: str) -> None:
        try:
            message = json.loads(data)
        except ValueError:
            raise unreadable_reply(self.server) from None
        if not isinstance(message, dict):
            raise unreadable_reply(self.server)
        kind = message.get("type")
        if kind == "update":
            message = self._updated(message)
            kind = "view"
        if kind == "view":
            if not isinstance(message.get("first_event"), int) or not isinstance(message.get("events"), list):
                raise unreadable_reply(self.server)
            self.view = message
            if message["first_event"] > self.events:
                raise ProtocolError("events missing from the server's view")
            skip = self.events - message["first_event"]
            message["events"] = message["events"][skip:]
            message["first_event"] = self.events
            self.events += len(message["events"])
            result = self.on_view(message)
            if result is not None:
                await result
        elif kind in (
            "table_info",
            "table_event",
            "clock",
            "rematch",
            "rematch_ready",
        ):  # net/clocks.py, net/rematch.py
            if self.on_info is not None:
                self.on_info(message)
        elif kind in ("accepted", "payment_options", "pong", "error", "back", "vote"):
            future = self._pending.pop(kind if kind != "error" else next(iter(self._pending), ""), None)
            if kind == "error" and future is None and self.on_error:
                self.on_error(clean_text(message.get("code"), limit=40), clean_text(message.get("message")))
            if future is not None and not future.done():
                if kind == "error":
                    future.set_exception(ApiError(str(message.get("code", "")), str(message.get("message", ""))))
                else:
                    future.set_result(message)

    def _updated(self, update: dict[str, Any]) -> dict[str, Any]:
        """The whole view an ``update`` message makes of :attr:`view` (docs/network.md).

        ``ProtocolError`` (the connection starts again, with a whole view) for an update to
        another version than the view's; :func:`unreadable_reply` for a malformed one.
        """
        view = self.view
        changes = update.get("observation")
        if not isinstance(changes, dict) or not isinstance(update.get("version"), int):
            raise unreadable_reply(self.server)
        if view is None or update.get("base") != view["version"]:
            raise ProtocolError("an update to a view this client does not have")
        result = update["result"] if "result" in update else view["result"]
        return {**view, "version": update["version"], "observation": {**view["observation"], **changes},
                "first_event": update.get("first_event"), "events": update.get("events"), "result": result}  # fmt: skip

    async def _request(self, message: dict[str, Any], reply: str, timeout: float = 15.0) -> Any:
        ws = self._ws
        if ws is None or ws.closed:
            raise ApiError("network", "not connected")
        if self._pending:
            raise ApiError("busy", "a request is already waiting for its reply")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[reply] = future
        await ws.send_json(message)
        try:
            return await asyncio.wait_for(future, timeout)
        finally:
            self._pending.pop(reply, None)

    async def send_actions(self, actions: list[str], version: int | None = None) -> dict[str, Any]:
        """Play ``actions`` (text form) for this seat; returns the ``accepted`` reply (``ApiError`` if refused).

        ``version`` is that of the view the actions answer (a stale one is refused, never played twice).
        """
        body: dict[str, Any] = {"type": "action"}
        if len(actions) == 1:
            body["action"] = actions[0]
        else:
            body["actions"] = actions
        if version is not None:
            body["version"] = version
        if self.lang:
            body["lang"] = self.lang
        result: dict[str, Any] = await self._request(body, "accepted")
        return result

    async def take_seat_back(self) -> dict[str, Any]:
        """Ask for this seat back from the stand-in bot playing it (``ApiError`` when none does)."""
        result: dict[str, Any] = await self._request(self._with_lang({"type": "back"}), "back")
        return result

    async def vote_stand_in(self, seat: int) -> dict[str, Any]:
        """Vote to let the stand-in bot play the absent ``seat``; returns the ``vote`` reply (``ApiError`` if refused)."""
        result: dict[str, Any] = await self._request(self._with_lang({"type": "stand_in_vote", "seat": seat}), "vote")
        return result

    def _with_lang(self, message: dict[str, Any]) -> dict[str, Any]:
        return {**message, "lang": self.lang} if self.lang else message

    async def payment_options(self, pay: list[str]) -> list[str] | None:
        """The payer's options after paying ``pay`` (``None`` once complete)."""
        result = await self._request({"type": "payment_options", "pay": pay}, "payment_options")
        return payment_options_of(result, self.server)

    async def close(self) -> None:
        """Stop reconnecting and close the WebSocket."""
        self._closing = True
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()
