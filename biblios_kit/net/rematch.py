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

The votes and the new tokens (until their seat fetched them) live in the memory of the process
that serves the finished table: a server restarted before everyone opted in starts the votes
again, and with several processes on one database (``--db``) the players of a table ask the
same process (a reverse proxy may send them to different ones: then each process counts only
the votes it received).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import web

from biblios_kit.i18n import _
from biblios_kit.net.presence import send_to
from biblios_kit.net.protocol import dumps
from biblios_kit.net.views import SPECTATOR

if TYPE_CHECKING:
    from biblios_kit.net.tables import Rejected, Table, TableHub

HUMAN = "human"

REMATCHES: web.AppKey[dict[str, Rematch]] = web.AppKey("rematches", dict)
"""The rematch votes of the server's finished tables, by table id."""
LINKS: web.AppKey[Callable[[str, str], str]] = web.AppKey("rematch_links")
"""Table id, token -> the seat's invitation link (the server's ``--public-url``)."""


def rotated(seat: int, players: int) -> int:
    """The seat at the new table of the player who sat at ``seat``: one place on."""
    return (seat + 1) % players


@dataclass
class Rematch:
    """The votes of one finished table and, once everyone agreed, the new table."""

    table: str
    votes: list[bool | None]
    """Per seat: ``True`` (opted in; a bot always is), ``False`` (opted out), ``None`` (not yet, or a free seat)."""
    needed: frozenset[int]
    """The seats whose person must opt in (a person's seat with a token)."""
    new_table: str | None = None
    tokens: dict[int, str] = field(default_factory=dict)
    """Old seat -> its token at the new table (kept so that a seat that reconnects can fetch it)."""
    links: dict[int, str] = field(default_factory=dict)

    @classmethod
    def of(cls, table: Table) -> Rematch:
        """The votes of ``table`` before anyone voted."""
        needed = frozenset(s for s, spec in enumerate(table.seats) if spec == HUMAN and table.token_digests[s])
        votes: list[bool | None] = [True if spec != HUMAN else None for spec in table.seats]
        return cls(table.id, votes, needed)

    @property
    def agreed(self) -> bool:
        """Whether every person opted in."""
        return all(self.votes[seat] is True for seat in self.needed)

    def public(self) -> dict[str, Any]:
        """The ``rematch`` message every connection of the table gets: the votes, the new table's id."""
        return {"type": "rematch", "table": self.table, "votes": list(self.votes), "new_table": self.new_table}

    def for_seat(self, seat: int) -> dict[str, Any]:
        """The reply to ``seat``: the votes and, once the new table exists and the seat opted in, its place there."""
        reply = self.public()
        if self.new_table is not None and seat in self.tokens:
            ready = seat_ready(self, seat)
            reply.update(seat=ready["seat"], token=ready["token"], link=ready["link"])
        return reply


def seat_ready(rematch: Rematch, seat: int) -> dict[str, Any]:
    """The ``rematch_ready`` message of old seat ``seat``: its seat, token and link at the new table."""
    return {
        "type": "rematch_ready",
        "table": rematch.table,
        "new_table": rematch.new_table,
        "seat": rotated(seat, len(rematch.votes)),
        "token": rematch.tokens[seat],
        "link": rematch.links[seat],
    }


def start_rematch(hub: TableHub, table: Table, rematch: Rematch, link_of: Callable[[str, str], str]) -> None:
    """Create the new table of ``rematch`` (every person agreed): same game, seats rotated by one."""
    players = len(table.seats)
    seats = [HUMAN] * players
    names = [""] * players
    for seat in range(players):
        seats[rotated(seat, players)] = table.seats[seat]
        names[rotated(seat, players)] = table.names[seat]
    free = [
        rotated(seat, players) for seat, spec in enumerate(table.seats) if spec == HUMAN and seat not in rematch.needed
    ]
    invitation = hub.create(table.state.ruleset.id, table.options, players, seats, names, None, table.bot_delay,
                            table.settings, free)  # fmt: skip
    rematch.new_table = invitation.table
    for seat in rematch.needed:
        token = invitation.tokens[rotated(seat, players)]
        rematch.tokens[seat] = token
        rematch.links[seat] = link_of(invitation.table, token)


def tell(table: Table, rematch: Rematch) -> None:
    """Send the votes to every connection of ``table`` that takes ``table_info``; each seat its own new place."""
    public = dumps(rematch.public())
    for listener in list(table.listeners):
        if not listener.info:
            continue
        send_to(listener, public)
        if listener.seat != SPECTATOR and listener.seat in rematch.tokens:
            send_to(listener, dumps(seat_ready(rematch, listener.seat)))


def vote(hub: TableHub, table: Table, seat: int, accept: object, rematches: dict[str, Rematch],
         link_of: Callable[[str, str], str]) -> Rematch:  # fmt: skip
    """Record ``seat``'s vote (``Rejected`` before the end or for a vote that is not ``true``/``false``)."""
    from biblios_kit.net.tables import Rejected

    if not table.finished:
        raise not_finished(Rejected)
    if not isinstance(accept, bool):
        raise Rejected(400, "bad_request", _('"rematch" must be true or false'))
    rematch = rematches.get(table.id)
    if rematch is None:
        rematch = rematches[table.id] = Rematch.of(table)
    if rematch.new_table is not None:
        return rematch  # decided: the new table exists
    if seat in rematch.needed:
        rematch.votes[seat] = accept
    if rematch.agreed:
        start_rematch(hub, table, rematch, link_of)
    tell(table, rematch)
    return rematch


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

    app[REMATCHES] = {}
    app[LINKS] = link_of

    async def post(request: web.Request) -> web.Response:
        table, seat, _token = table_and_seat(request, required=True)
        data = await body(request)
        rematch = vote(hub, table, seat, data.get("rematch"), request.app[REMATCHES], link_of)
        return web.json_response(rematch.for_seat(seat), dumps=dumps)

    async def get(request: web.Request) -> web.Response:
        table, seat, _token = table_and_seat(request, required=False)
        if not table.finished:
            raise not_finished(Rejected)
        rematch = request.app[REMATCHES].get(table.id) or Rematch.of(table)
        return web.json_response(rematch.public() if seat == SPECTATOR else rematch.for_seat(seat), dumps=dumps)

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

    def seat_of_cookie(request: web.Request) -> tuple[Table, int]:
        table = hub.table(request.match_info["id"])
        token = request.cookies.get(seat_cookie(table.id))
        seat = table.seat_of(token)
        if token is None or seat is None:
            raise Rejected(403, "bad_token", _("open your invitation link (it carries your seat token)"))
        if not within_budget(request, token):
            raise Rejected(429, "rate_limited", _("too many requests; slow down"))
        return table, seat

    async def post(request: web.Request) -> web.Response:
        table, seat = seat_of_cookie(request)
        data = await body(request)
        rematch = vote(hub, table, seat, data.get("rematch"), request.app[REMATCHES], request.app[LINKS])
        return web.json_response(rematch.public(), dumps=dumps)

    async def go(request: web.Request) -> web.StreamResponse:
        table, seat = seat_of_cookie(request)
        rematch = request.app[REMATCHES].get(table.id)
        if rematch is None or rematch.new_table is None or seat not in rematch.tokens:
            return json_error(409, "no_rematch", _("there is no rematch table for this seat yet"))
        new = rematch.new_table
        response = web.HTTPFound(f"/play/{new}")
        response.set_cookie(
            seat_cookie(new), rematch.tokens[seat], httponly=True, samesite="Strict", path=f"/play/{new}"
        )
        raise response

    app.router.add_post("/play/{id}/rematch", post)
    app.router.add_get("/play/{id}/rematch/go", go)
