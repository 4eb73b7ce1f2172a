"""Textual apps in the browser, safely: ``play --web`` (a game server's seats have their own page: :mod:`.seat_page`).

textual-serve 1.1.3 starts one fixed command per WebSocket, with no limit and no Host
or Origin check, and lists its static folder. This module reuses its ``AppService``
(one Textual process per browser tab) and its page and scripts inside our own aiohttp
application: Host/Origin checks and access tokens come from
:mod:`biblios_kit.net.security`, the number of processes is capped, the static folder
is served without an index, and the command (and a secret for it, passed in the
child's environment, never on its command line) is chosen per request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from biblios_kit.i18n import N_, SUPPORTED, _, current_language, normalize_language, translator
from biblios_kit.lifeline import child_environment
from biblios_kit.net.security import HostPolicy, access_middleware, guard_middleware, json_error

log = logging.getLogger("biblios_kit.net")

SESSION_COOKIE = "biblios_kit_session"
"""The ``play --web`` cookie naming a browser's session: its own saved game (a random secret)."""
SESSION_COOKIE_DAYS = 365
"""How long a browser keeps its session cookie (and so finds its saved game again)."""
END_SECONDS = 5.0
"""How long a browser session's game may take to quit once asked (then to end) before it is killed."""


def _textual_serve_dir() -> Path:
    import textual_serve

    return Path(textual_serve.__file__).resolve().parent


PAGE_TEXTS: dict[str, str] = {
    "start": N_("Start"),
    "ended": N_("Session ended."),
    "restart": N_("Restart"),
}
"""The page's own texts (its button and its end-of-session notice), translated into the page's language."""


def page_html(socket_url: str, static_url: str, title: str, lang: str) -> str:
    """The browser page (our copy of textual-serve's, in ``templates/``): ``<html lang>`` and its texts in ``lang``."""
    import jinja2

    code = lang if lang in SUPPORTED else "en"
    tr = translator(code)
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"), autoescape=True)
    return env.get_template("app_index.html").render(
        lang=code,
        texts={key: tr.gettext(text) for key, text in PAGE_TEXTS.items()},
        font_size=16,
        app_websocket_url=socket_url,
        config={"static": {"url": static_url}},
        application={"name": title},
    )


def _page(request: web.Request, socket_path: str, title: str, lang: str) -> web.Response:
    """The page, in ``lang``, pointing its terminal at ``socket_path`` on this very host."""
    scheme = "wss" if request.secure else "ws"
    base = f"{request.scheme}://{request.host}"
    html = page_html(f"{scheme}://{request.host}{socket_path}", f"{base}/static/", title, lang)
    return web.Response(text=html, content_type="text/html", headers={"Cache-Control": "no-store"})


def _size(request: web.Request, name: str, default: int) -> int:
    try:
        return max(10, min(500, int(request.query.get(name, default))))
    except ValueError:
        return default


def browser_language(request: web.Request) -> str | None:
    """The first supported language of the browser's ``Accept-Language``, if any."""
    for part in request.headers.get("Accept-Language", "").split(",")[:10]:
        code = normalize_language(part.split(";")[0].strip()) if part.strip() else ""
        if code in SUPPORTED:
            return code
    return None


class Sessions:
    """The Textual processes served to browsers, at most ``limit`` at once."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0
        self.endings: set[asyncio.Task[None]] = set()
        """Sessions being ended: their games asked to quit, then killed (see :meth:`run`)."""

    async def ended(self) -> None:
        """Wait until every session being ended is over (the server's clean-up)."""
        while self.endings:
            await asyncio.gather(*self.endings, return_exceptions=True)

    async def run(self, request: web.Request, command: str, secret: dict[str, str] | None = None) -> web.StreamResponse:
        """Serve one browser terminal over a WebSocket: start ``command``, relay keys and screen until either ends.

        ``command`` is a ``shlex``-quoted command line, run without a shell; the process
        ends with this one (:mod:`biblios_kit.lifeline`).
        """
        from textual_serve.app_service import AppService
        from textual_serve.download_manager import DownloadManager

        if self.count >= self.limit:
            return json_error(503, "too_many_sessions", _("too many browser sessions at once; try again later"))
        secret_env = dict(secret or {})

        class _Service(AppService):
            """AppService with extra variables in the child's environment (a secret stays off its command line).

            The child is started without a shell, bound to this process (see
            :mod:`biblios_kit.lifeline`): it ends when this server ends, even by ``kill -9``.
            """

            def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
                environment: dict[str, str] = super()._build_environment(width=width, height=height)
                environment.update(secret_env)
                environment.update(child_environment())
                return environment

            async def _open_app_process(self, width: int = 80, height: int = 24) -> asyncio.subprocess.Process:
                # textual-serve runs the command through /bin/sh, which stays between us and
                # the game (dash does not exec it): started directly, the game is our child
                # and sees our death.
                self._process = process = await asyncio.create_subprocess_exec(
                    *shlex.split(self.command),
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                    env=self._build_environment(width=width, height=height),
                )
                assert process.stdin is not None
                self._stdin = process.stdin
                return process

            async def end(self) -> None:
                """Ask the game to quit, wait for its process (killed after :data:`END_SECONDS` each), close its pipes.

                textual-serve waits as long as the game takes to quit, and leaves the pipes open for the
                garbage collector, which may only come after the event loop is closed.
                """
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self.stop(), END_SECONDS)  # asks the game to quit, reads it out
                process = self._process
                if process is None:
                    return
                try:
                    await asyncio.wait_for(process.wait(), END_SECONDS)
                except TimeoutError:
                    process.kill()
                    await process.wait()
                transport = getattr(process, "_transport", None)  # asyncio's Process has no public close()
                if transport is not None:
                    transport.close()

        ws = web.WebSocketResponse(heartbeat=15, max_msg_size=64 * 1024)
        await ws.prepare(request)
        self.count += 1

        async def close() -> None:
            await ws.close()

        service = _Service(command, write_bytes=ws.send_bytes, write_str=ws.send_str, close=close,
                           download_manager=DownloadManager())  # fmt: skip
        try:
            await service.start(_size(request, "width", 80), _size(request, "height", 24))
            async for message in ws:
                if message.type != WSMsgType.TEXT:
                    continue
                envelope = _envelope(message.data)
                if envelope is None:
                    continue
                kind, data = envelope
                if kind == "stdin" and isinstance(data, str):
                    await service.send_bytes(data.encode("utf-8"))
                elif kind == "resize" and isinstance(data, dict):
                    width, height = data.get("width"), data.get("height")
                    if isinstance(width, int) and isinstance(height, int):
                        await service.set_terminal_size(max(10, min(500, width)), max(5, min(300, height)))
                elif kind == "ping":
                    await ws.send_json(["pong", data])
                elif kind == "blur":
                    await service.blur()
                elif kind == "focus":
                    await service.focus()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("browser session failed")
        finally:
            self.count -= 1
            # Its own task, shielded: aiohttp cancels this handler when the browser goes, and a cancelled
            # clean-up would leave the game running.
            ending = asyncio.ensure_future(service.end())
            self.endings.add(ending)
            ending.add_done_callback(self.endings.discard)
            with contextlib.suppress(Exception):
                await asyncio.shield(ending)
            with contextlib.suppress(Exception):
                await ws.close()
        return ws


def _envelope(data: str) -> tuple[str, Any] | None:
    """A textual-serve client message ``[type, data]``, or ``None`` when malformed."""
    import json

    try:
        value = json.loads(data)
    except ValueError:
        return None
    if not isinstance(value, list) or len(value) != 2 or not isinstance(value[0], str):
        return None
    return value[0], value[1]


def _static_routes() -> list[web.AbstractRouteDef]:
    """textual-serve's scripts and styles: files of its static folder only, no listing, a 404 for anything else."""
    folder = (_textual_serve_dir() / "static").resolve()

    async def static(request: web.Request) -> web.StreamResponse:
        try:
            path = (folder / request.match_info["path"]).resolve()
            found = folder in path.parents and path.is_file()
        except (OSError, ValueError):  # a name the file system refuses (too long, a NUL byte ...)
            found = False
        if not found:
            raise web.HTTPNotFound()
        return web.FileResponse(path)

    return [web.get("/static/{path:.+}", static)]


# ---------------------------------------------------------------------- play --web


def make_play_app(command: Callable[[web.Request], str], access_token: str, *, allowed_hosts: tuple[str, ...] = (),
                  max_sessions: int = 4,
                  page_language: Callable[[web.Request], str] | None = None) -> web.Application:  # fmt: skip
    """The ``play --web`` application: the page, its WebSocket (one game process each) and the scripts.

    Nothing is served without ``access_token`` (the printed URL carries it once, then a
    cookie); Host and Origin are checked; at most ``max_sessions`` processes run at once.
    ``command(request)`` gives the command line of each session, ``shlex``-quoted and run
    without a shell (the language of the browser can go into it). Each browser gets a
    session cookie (a random secret) on its first page; its games run with that secret in
    the environment, so they save to that browser's own file (see :func:`biblios_kit.resources.saved_game_path`).
    The page speaks ``page_language(request)`` (by default the browser's language, else the
    active one): give the game's language so the page and the game agree.
    """
    import secrets

    from biblios_kit.resources import SAVE_SESSION_VARIABLE

    sessions = Sessions(max_sessions)
    app = web.Application(
        client_max_size=16 * 1024,
        middlewares=[guard_middleware(HostPolicy.of(allowed_hosts)), access_middleware(access_token)],
    )

    async def index(request: web.Request) -> web.Response:
        lang = page_language(request) if page_language else browser_language(request) or current_language()
        response = _page(request, "/ws", "biblios-kit", lang)
        if not request.cookies.get(SESSION_COOKIE):
            response.set_cookie(SESSION_COOKIE, secrets.token_urlsafe(24), httponly=True, samesite="Strict",
                                max_age=SESSION_COOKIE_DAYS * 86400, path="/")  # fmt: skip
        return response

    async def socket(request: web.Request) -> web.StreamResponse:
        # Without the cookie (it was refused or cleared) the game gets a save of its own that
        # nothing will offer again, rather than another browser's.
        session = request.cookies.get(SESSION_COOKIE) or secrets.token_urlsafe(24)
        return await sessions.run(request, command(request), {SAVE_SESSION_VARIABLE: session[:200]})

    async def end_sessions(_app: web.Application) -> None:
        await sessions.ended()

    app.add_routes([web.get("/", index), web.get("/ws", socket), *_static_routes()])
    app.on_cleanup.append(end_sessions)
    return app
