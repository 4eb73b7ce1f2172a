"""A rematch: once a game is over, its people may ask for another game at a new table, seats rotated by one.

Each person's seat opts in or out (``POST /api/tables/{id}/rematch`` with ``{"rematch": true}``
or ``false``; a bot always agrees, and a free seat nobody took is carried over free). Every
connection of the table that asked for ``table_info`` messages is sent the votes (``rematch``),
so opting out is shown to everyone; leaving is the ``table_info`` that follows. When every
person has opted in, the server creates a new table with the same ruleset, options, settings,
bot delay and bots, each seat moved one place on (seat ``s`` sits at ``(s + 1) mod n``), and
sends each seat its new token and link (``rematch_ready``) over that seat's own connections
only, and in the reply of ``POST``/``GET /api/tables/{id}/rematch`` made with that seat's token:
never another seat's token, never a token to a spectator.

The votes go through the store (``rematches`` and ``rematch_votes``, beside the tables), so
they survive a restart, and with several processes on one database (``--db``) every process
counts every vote and tells its own connections (a notification ``"<table> rematch"``; the
5-second comparison reads the votes again). The first vote reserves the new table's id. A
seat that opts in gives, with its vote, the digest of its token at the new table: that token
is made from the seat's own token at the finished table (an HMAC of the table ids keyed by
it, :func:`rematch_token`), so no new token is ever stored or passed between processes, and
any process that serves the seat makes it again from the token the seat presents (with its
request or its connection); no one without a seat's token can make that seat's new one.
Once every person opted in, any process that sees it creates the new table under the
reserved id with those digests: the id's primary key lets exactly one of them store it, the
others read it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import web

from biblios_kit.i18n import _
from biblios_kit.net.presence import send_to
from biblios_kit.net.protocol import dumps
from biblios_kit.net.security import token_digest
from biblios_kit.net.storage import StorageError
from biblios_kit.net.store import RematchRecord, TableExists
from biblios_kit.net.views import SPECTATOR

if TYPE_CHECKING:
    from biblios_kit.net.tables import Rejected, Table, TableHub

log = logging.getLogger("biblios_kit.net")

HUMAN = "human"

REMATCHES: web.AppKey[dict[str, dict[str, Any]]] = web.AppKey("rematches", dict)
"""The last ``rematch`` message told to each finished table's connections, by table id."""
LINKS: web.AppKey[Callable[[str, str], str]] = web.AppKey("rematch_links")
"""Table id, token -> the seat's invitation link (the server's ``--public-url``)."""


def rotated(seat: int, players: int) -> int:
    """The seat at the new table of the player who sat at ``seat``: one place on."""
    return (seat + 1) % players


def rematch_token(token: str, table: str, new_table: str) -> str:
    """The token at ``new_table`` of the seat whose token at the finished ``table`` is ``token`` (43 URL-safe characters)."""
    mac = hmac.new(token.encode("utf-8", "surrogatepass"), f"biblios-kit rematch {table} {new_table}".encode(),
                   hashlib.sha256).digest()  # fmt: skip
    return base64.urlsafe_b64encode(mac).decode("ascii").rstrip("=")


def needed_seats(table: Table) -> frozenset[int]:
    """The seats whose person must opt in: a person's seat with a token."""
    return frozenset(s for s, spec in enumerate(table.seats) if spec == HUMAN and table.token_digests[s])


@dataclass
class Rematch:
    """The votes of one finished table and, once everyone agreed and it exists, the new table."""

    table: str
    votes: list[bool | None]
    """Per seat: ``True`` (opted in; a bot always is), ``False`` (opted out), ``None`` (not yet, or a free seat)."""
    needed: frozenset[int]
    """The seats whose person must opt in (a person's seat with a token)."""
    new_table: str | None = None
    """The new table's id once it exists."""
    digests: dict[int, str] = field(default_factory=dict)
    """Old seat -> the digest of its token at the new table, as voted."""

    @classmethod
    def of(cls, table: Table, record: RematchRecord | None = None) -> Rematch:
        """The votes of ``table`` as stored (``record``; ``None``: before anyone voted)."""
        needed = needed_seats(table)
        votes: list[bool | None] = [True if spec != HUMAN else None for spec in table.seats]
        rematch = cls(table.id, votes, needed)
        if record is not None:
            for seat, (vote, digest) in record.votes.items():
                if seat in needed:
                    votes[seat] = vote
                    rematch.digests[seat] = digest
            rematch.new_table = record.new_table if record.created else None
        return rematch

    @property
    def agreed(self) -> bool:
        """Whether every person opted in."""
        return all(self.votes[seat] is True for seat in self.needed)

    def public(self) -> dict[str, Any]:
        """The ``rematch`` message every connection of the table gets: the votes, the new table's id."""
        return {"type": "rematch", "table": self.table, "votes": list(self.votes), "new_table": self.new_table}


def seat_ready(hub: TableHub, rematch: Rematch, seat: int, token: str | None,
               link_of: Callable[[str, str], str]) -> dict[str, Any] | None:  # fmt: skip
    """The ``rematch_ready`` message of old seat ``seat`` holding ``token``: its seat, token and link at the new table.

    ``None`` before the new table exists, for a seat that has no place there, or for a token
    that does not make the seat's new one (a link issued again after the vote).
    """
    from biblios_kit.net.tables import Rejected

    if rematch.new_table is None or token is None or seat not in rematch.needed:
        return None
    new_token = rematch_token(token, rematch.table, rematch.new_table)
    try:
        new = hub.table(rematch.new_table)
    except Rejected:
        return None
    place = rotated(seat, len(rematch.votes))
    if new.seat_of(new_token) != place:
        return None
    return {"type": "rematch_ready", "table": rematch.table, "new_table": rematch.new_table, "seat": place,
            "token": new_token, "link": link_of(rematch.new_table, new_token)}  # fmt: skip


def for_seat(hub: TableHub, rematch: Rematch, seat: int, token: str | None,
             link_of: Callable[[str, str], str]) -> dict[str, Any]:  # fmt: skip
    """The reply to ``seat``: the votes and, once the new table exists and the seat opted in, its place there."""
    reply = rematch.public()
    ready = seat_ready(hub, rematch, seat, token, link_of)
    if ready is not None:
        reply.update(seat=ready["seat"], token=ready["token"], link=ready["link"])
    return reply


def settle(hub: TableHub, table: Table) -> Rematch:
    """The stored votes of ``table``; once every person opted in, the new table made (here, or read: made once)."""
    record = hub.store.rematch_record(table.id)
    rematch = Rematch.of(table, record)
    if rematch.new_table is None and record.new_table is not None and rematch.agreed:
        start_rematch(hub, table, rematch, record.new_table)
    return rematch


def start_rematch(hub: TableHub, table: Table, rematch: Rematch, new_id: str) -> None:
    """Create the new table of ``rematch`` (every person agreed): same game, seats rotated by one.

    Whichever process gets here first stores it; another one meets :class:`TableExists` and
    reads it from the store instead.
    """
    from biblios_kit.net.tables import Rejected

    players = len(table.seats)
    seats = [HUMAN] * players
    names = [""] * players
    digests = [""] * players
    for seat in range(players):
        seats[rotated(seat, players)] = table.seats[seat]
        names[rotated(seat, players)] = table.names[seat]
        digests[rotated(seat, players)] = rematch.digests.get(seat, "") if seat in rematch.needed else ""
    if new_id not in hub.tables:
        try:
            hub.create(table.state.ruleset.id, table.options, players, seats, names, None, table.bot_delay,
                       table.settings, table_id=new_id, digests=digests)  # fmt: skip
        except TableExists:
            try:
                hub.table(new_id)  # another process made it: read it
            except Rejected:
                log.warning("table %s: its rematch table %s exists but cannot be opened", table.id, new_id)
    hub.store.rematch_created(table.id)
    rematch.new_table = new_id


def tell(hub: TableHub, table: Table, rematch: Rematch, link_of: Callable[[str, str], str]) -> None:
    """Send the votes to every connection of ``table`` that takes ``table_info``; each seat its own new place."""
    public = dumps(rematch.public())
    for listener in list(table.listeners):
        if not listener.info:
            continue
        send_to(listener, public)
        if listener.seat != SPECTATOR:
            ready = seat_ready(hub, rematch, listener.seat, listener.token, link_of)
            if ready is not None:
                send_to(listener, dumps(ready))


def vote(hub: TableHub, table: Table, seat: int, token: str, accept: object, told: dict[str, dict[str, Any]],
         link_of: Callable[[str, str], str]) -> Rematch:  # fmt: skip
    """Record ``seat``'s vote (``Rejected`` before the end or for a vote that is not ``true``/``false``)."""
    from biblios_kit.net.tables import Rejected, new_table_id

    if not table.finished:
        raise not_finished(Rejected)
    if not isinstance(accept, bool):
        raise Rejected(400, "bad_request", _('"rematch" must be true or false'))
    try:
        rematch = settle(hub, table)
        if rematch.new_table is not None:
            return rematch  # decided: the new table exists
        if seat in rematch.needed:
            new_id = hub.store.rematch_table(table.id, new_table_id())
            digest = token_digest(rematch_token(token, table.id, new_id)) if accept else ""
            hub.store.rematch_vote(table.id, seat, accept, digest)
            rematch = settle(hub, table)
    except (StorageError, sqlite3.Error) as error:
        log.error("table %s: cannot store a rematch vote: %s", table.id, error)
        raise Rejected(503, "storage_error", _("the server cannot save the game right now")) from None
    told_now(hub, table, rematch, told, link_of)
    return rematch


def told_now(hub: TableHub, table: Table, rematch: Rematch, told: dict[str, dict[str, Any]],
             link_of: Callable[[str, str], str]) -> None:  # fmt: skip
    """:func:`tell`, unless the connections were already told these votes (the notification of one's own vote)."""
    public = rematch.public()
    if told.get(table.id) != public:
        told[table.id] = public
        tell(hub, table, rematch, link_of)


def stored(hub: TableHub, table: Table) -> Rematch:
    """:func:`settle`, with a storage failure refused as ``503 storage_error``."""
    from biblios_kit.net.tables import Rejected

    try:
        return settle(hub, table)
    except (StorageError, sqlite3.Error) as error:
        log.error("table %s: cannot read its rematch: %s", table.id, error)
        raise Rejected(503, "storage_error", _("the server cannot read the game right now")) from None


def not_finished(rejected: type[Rejected]) -> Rejected:
    """The refusal of a rematch asked before the game is over."""
    return rejected(409, "not_finished", _("the game is not over: a rematch is asked at the end"))


def add_rematch_routes(
    app: web.Application,
    hub: TableHub,
    table_and_seat: Callable[..., tuple[Table, int, str | None]],
    body: Callable[[web.Request], Awaitable[dict[str, Any]]],
    link_of: Callable[[str, str], str],
) -> None:
    """``POST /api/tables/{id}/rematch`` (a seat's token) and ``GET`` (a seat, or anyone when spectators may watch)."""
    from biblios_kit.net.tables import Rejected

    told: dict[str, dict[str, Any]] = {}
    app[REMATCHES] = told
    app[LINKS] = link_of

    def heard(table: Table) -> None:  # another process changed the votes (or the comparison every 5 s)
        try:
            told_now(hub, table, settle(hub, table), told, link_of)
        except (StorageError, sqlite3.Error, Rejected) as error:
            log.error("table %s: cannot read its rematch: %s", table.id, error)

    hub.rematch_heard = heard

    async def post(request: web.Request) -> web.Response:
        table, seat, token = table_and_seat(request, required=True)
        data = await body(request)
        assert token is not None
        rematch = vote(hub, table, seat, token, data.get("rematch"), told, link_of)
        return web.json_response(for_seat(hub, rematch, seat, token, link_of), dumps=dumps)

    async def get(request: web.Request) -> web.Response:
        table, seat, token = table_and_seat(request, required=False)
        if not table.finished:
            raise not_finished(Rejected)
        rematch = stored(hub, table)
        reply = rematch.public() if seat == SPECTATOR else for_seat(hub, rematch, seat, token, link_of)
        return web.json_response(reply, dumps=dumps)

    app.router.add_post("/api/tables/{id}/rematch", post)
    app.router.add_get("/api/tables/{id}/rematch", get)


def add_seat_page_rematch(app: web.Application, hub: TableHub,
                          body: Callable[[web.Request], Awaitable[dict[str, Any]]]) -> None:  # fmt: skip
    """The seat page's rematch, with the seat cookie's token (the page never handles a token itself).

    ``POST /play/{id}/rematch`` with ``{"rematch": true}`` votes (the reply carries no token);
    ``GET /play/{id}/rematch/go``, once the new table exists, sets the cookie of the seat's new
    place and sends the browser there (``409 no_rematch`` before).
    """
    from biblios_kit.net.seat_page import seat_cookie, within_budget
    from biblios_kit.net.security import json_error
    from biblios_kit.net.tables import Rejected

    def seat_of_cookie(request: web.Request) -> tuple[Table, int, str]:
        table = hub.table(request.match_info["id"])
        token = request.cookies.get(seat_cookie(table.id))
        seat = table.seat_of(token)
        if token is None or seat is None:
            raise Rejected(403, "bad_token", _("open your invitation link (it carries your seat token)"))
        if not within_budget(request, token):
            raise Rejected(429, "rate_limited", _("too many requests; slow down"))
        return table, seat, token

    async def post(request: web.Request) -> web.Response:
        table, seat, token = seat_of_cookie(request)
        data = await body(request)
        rematch = vote(hub, table, seat, token, data.get("rematch"), request.app[REMATCHES], request.app[LINKS])
        return web.json_response(rematch.public(), dumps=dumps)

    async def go(request: web.Request) -> web.StreamResponse:
        table, seat, token = seat_of_cookie(request)
        ready = seat_ready(hub, stored(hub, table), seat, token, request.app[LINKS])
        if ready is None:
            return json_error(409, "no_rematch", _("there is no rematch table for this seat yet"))
        new = ready["new_table"]
        response = web.HTTPFound(f"/play/{new}")
        response.set_cookie(seat_cookie(new), ready["token"], httponly=True, samesite="Strict", path=f"/play/{new}")
        raise response

    app.router.add_post("/play/{id}/rematch", post)
    app.router.add_get("/play/{id}/rematch/go", go)
