"""Safe to expose: secret tokens, Host and Origin checks, an access token for pages, rate limits.

One module used by both the game server (``biblios-kit host``) and ``play --web``:

* tokens come from :mod:`secrets` and are compared with :func:`hmac.compare_digest`
  (the server stores only their SHA-256);
* :func:`guard_middleware` refuses a ``Host`` that is neither an IP address, ``localhost``
  nor a name the operator allowed (DNS rebinding: a hostile name resolving to this
  machine fails), and an ``Origin`` other than the page's own (another site's page in
  the player's browser cannot open a WebSocket or post an action);
* :func:`access_middleware` asks for a secret token before serving pages (the printed
  URL carries it once; it is then kept in an HttpOnly, SameSite=Strict cookie), as
  Jupyter does;
* :class:`RateLimiter` slows (429) or drops clients that flood the server.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.typedefs import Middleware

from biblios_kit.i18n import _

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

LOOPBACK = "127.0.0.1"
"""The default address to bind: only this machine can connect."""


def new_token() -> str:
    """A fresh unguessable token (32 random bytes, URL-safe text)."""
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """The SHA-256 (hex) of ``token``: what the server stores instead of the token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def same_secret(given: str, expected: str) -> bool:
    """Compare two secrets (tokens or digests) in constant time."""
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), expected.encode("utf-8", "surrogatepass"))


def is_loopback(address: str) -> bool:
    """Whether ``address`` (an IP or ``localhost``) only accepts connections from this machine."""
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def bind_warning(address: str) -> str | None:
    """The one-line warning printed when the server is exposed beyond this machine (``None`` on loopback)."""
    if is_loopback(address):
        return None
    return _(
        "warning: listening on {address}: other machines can connect; anyone with a link can play its seat"
    ).format(address=address)


def bearer_token(request: web.Request) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, if any."""
    header = request.headers.get("Authorization", "")
    scheme, _sep, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


@dataclass(frozen=True)
class HostPolicy:
    """Which ``Host`` and ``Origin`` headers a server accepts.

    A host is accepted when it is an IP address literal, ``localhost``, or one of
    ``names`` (the names the operator publishes the server under, ``--allow-host``).
    An ``Origin``, when a browser sends one, must name the same host and port as the
    request's ``Host``.
    """

    names: frozenset[str] = frozenset()

    @staticmethod
    def of(names: Iterable[str]) -> HostPolicy:
        """A policy allowing ``names`` (case-insensitive) besides IP addresses and localhost."""
        return HostPolicy(frozenset(n.lower().strip() for n in names if n.strip()))

    def host_ok(self, host: str | None) -> bool:
        """Whether a ``Host`` header (``name`` or ``name:port``) is acceptable."""
        if not host or len(host) > 300:
            return False
        try:
            parts = urlsplit("//" + host)
            name = parts.hostname
            parts.port  # noqa: B018 - raises ValueError for a malformed port
        except ValueError:
            return False
        if not name:
            return False
        name = name.lower()
        if name == "localhost" or name in self.names:
            return True
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True

    def origin_ok(self, origin: str | None, host: str | None) -> bool:
        """Whether an ``Origin`` header is acceptable for a request to ``host`` (no header: not a browser page)."""
        if origin is None:
            return True
        try:
            parts = urlsplit(origin)
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return False  # "null" (sandboxed frames, files) and other schemes
        return host is not None and parts.netloc.lower() == host.lower() and self.host_ok(parts.netloc)


def json_error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> web.Response:
    """A JSON error reply: ``{"error": {"code": ..., "message": ...}}``."""
    return web.Response(
        status=status,
        text=json.dumps({"error": {"code": code, "message": message}}, ensure_ascii=False),
        content_type="application/json",
        headers=headers,
    )


def guard_middleware(policy: HostPolicy) -> Middleware:
    """An aiohttp middleware refusing bad ``Host`` (DNS rebinding) and foreign ``Origin`` (cross-site) requests."""

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        host = request.headers.get("Host")
        if not policy.host_ok(host):
            return json_error(421, "bad_host", _("this server does not answer to host {host}").format(host=repr(host)))
        if not policy.origin_ok(request.headers.get("Origin"), host):
            return json_error(
                403,
                "bad_origin",
                _("requests from {origin} are not allowed").format(origin=repr(request.headers.get("Origin"))),
            )
        response = await handler(request)
        if not response.prepared:
            response.headers.setdefault("Referrer-Policy", "no-referrer")
            response.headers.setdefault("X-Content-Type-Options", "nosniff")
            response.headers.setdefault("X-Frame-Options", "DENY")
        return response

    return guard


ACCESS_COOKIE = "biblios_kit_access"
"""The cookie holding the page access token once the printed URL was opened."""


def access_middleware(token: str, open_paths: tuple[str, ...] = ()) -> Middleware:
    """An aiohttp middleware that serves nothing without ``token``.

    The token comes as ``?token=...`` (the printed URL: the reply sets an HttpOnly,
    SameSite=Strict cookie and redirects to the same path without it), as the cookie,
    or as ``Authorization: Bearer``. Paths starting with one of ``open_paths`` are
    served without it (they check their own tokens).
    """

    @web.middleware
    async def access(request: web.Request, handler: Handler) -> web.StreamResponse:
        if any(request.path.startswith(prefix) for prefix in open_paths):
            return await handler(request)
        given = request.query.get("token")
        if given is not None:
            if not same_secret(given, token):
                return json_error(403, "bad_token", _("wrong access token"))
            query = {k: v for k, v in request.query.items() if k != "token"}
            target = request.rel_url.with_query(query)
            response = web.HTTPFound(str(target))
            response.set_cookie(ACCESS_COOKIE, token, httponly=True, samesite="Strict", path="/")
            raise response
        presented = request.cookies.get(ACCESS_COOKIE) or bearer_token(request)
        if presented is None or not same_secret(presented, token):
            return json_error(403, "bad_token", _("open the link printed by the server (it carries the access token)"))
        return await handler(request)

    return access


@dataclass
class RateLimiter:
    """A token bucket per key: ``rate`` requests a second on average, bursts of ``burst``.

    :meth:`allow` spends one token; when the bucket is empty the request is refused
    (the caller answers 429, or drops a WebSocket message and, after ``strikes``
    refusals in a row, the connection).
    """

    rate: float = 20.0
    burst: float = 40.0
    strikes: int = 50
    _buckets: dict[str, tuple[float, float, int]] = field(default_factory=dict)

    def allow(self, key: str) -> bool:
        """Spend one token of ``key``'s bucket; ``False`` when it is empty."""
        now = time.monotonic()
        tokens, stamp, refused = self._buckets.get(key, (self.burst, now, 0))
        tokens = min(self.burst, tokens + (now - stamp) * self.rate)
        if tokens >= 1:
            self._buckets[key] = (tokens - 1, now, 0)
            if len(self._buckets) > 10_000:
                self._forget(now)
            return True
        self._buckets[key] = (tokens, now, refused + 1)
        return False

    def exhausted(self, key: str) -> bool:
        """Whether ``key`` was refused ``strikes`` times in a row (a flood: drop it)."""
        entry = self._buckets.get(key)
        return entry is not None and entry[2] >= self.strikes

    def _forget(self, now: float) -> None:
        """Drop buckets that are full again (keeps memory bounded)."""
        full = [
            k for k, (tokens, stamp, _r) in self._buckets.items() if tokens + (now - stamp) * self.rate >= self.burst
        ]
        for key in full:
            del self._buckets[key]


def client_key(request: web.Request, verified: str | None = None) -> str:
    """The rate-limit key of a request: the digest of its ``verified`` token, else the peer address.

    Pass a token only once it was checked (a seat's or the admin's): a made-up token must
    not give its sender a fresh budget.
    """
    if verified:
        return "t:" + token_digest(verified)[:32]
    return "a:" + (request.remote or "?")


HTTP_LIMIT = web.AppKey("http_limit", RateLimiter)
"""The server's HTTP rate limiter (the API's and the seat page's requests share it)."""
