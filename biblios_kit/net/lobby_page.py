"""The public lobby of a game server (``host --lobby``): ``/lobby`` lists the open tables, where a visitor takes a free seat.

A table is listed when its creator marked it open (``"open": true``) and it still has a free
seat (a person's seat created without a token, ``"free_seats"``). Taking one
(``POST /lobby/{table}/{seat}``, a form of the page: same-origin only, like every request)
issues the seat's token and sends the visitor to its invitation link, which opens the seat
page (and which ``biblios-kit join`` accepts too). The page is plain HTML made on the
server, in the visitor's language, with no script; names are escaped, never markup.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from aiohttp import web

from biblios_kit.i18n import _, in_language, ngettext
from biblios_kit.names import MAX_NAME_LENGTH, clean_name, name_problem
from biblios_kit.net.lobby import is_free, store_or_refuse
from biblios_kit.net.presence import connected_seats, new_tokens
from biblios_kit.net.security import HTTP_LIMIT, client_key, json_error, new_token, token_digest
from biblios_kit.net.tables import HUMAN, Rejected

if TYPE_CHECKING:
    from biblios_kit.net.tables import Table, TableHub

LOBBY_POLICY = "default-src 'none'; style-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
"""The lobby loads its style only, runs no script, and posts its forms to its own server only."""


def open_tables(hub: TableHub) -> list[Table]:
    """The tables the lobby lists: open, not over, with a free seat."""
    return [
        table
        for table in hub.tables.values()
        if table.settings.open and not table.finished and any(is_free(table, s) for s in range(len(table.seats)))
    ]


def lobby_html(hub: TableHub, lang: str) -> str:
    """The lobby page in ``lang``: each open table, its players (who is connected), its free seats as buttons."""
    from biblios_kit.rulebook.describe import bot_note, player_name, ruleset_label

    escape = html.escape
    with in_language(lang) as code:
        name_label = escape(_("Your name (optional)"))
        items = []
        for table in open_tables(hub):
            connected = connected_seats(table)
            players = len(table.seats)
            seats = []
            for seat, (name, kind) in enumerate(zip(table.names, table.seats)):
                shown = escape(player_name(name, seat))
                if is_free(table, seat):
                    label = escape(_("Take seat {seat}").format(seat=seat + 1))
                    form = (
                        f'<form class="take" method="post" action="/lobby/{escape(table.id)}/{seat + 1}">'
                        f'<label>{name_label} <input name="name" maxlength="{MAX_NAME_LENGTH}" autocomplete="nickname">'
                        f'</label> <button class="choice" type="submit">{label}</button></form>'
                    )
                    free = escape(_("free seat"))
                    seats.append(f"<li>{shown}: {free} {form}</li>")
                elif kind != HUMAN:
                    seats.append(f"<li>{shown} {escape(bot_note(kind))}</li>")
                else:
                    presence = _("connected") if connected[seat] else _("away")
                    seats.append(f"<li>{shown}: {escape(presence)}</li>")
            settings = table.settings
            rules = [_("Hints: allowed") if settings.hints_allowed(table.seats) else _("Hints: not allowed")]
            watch = ""
            if settings.spectators:
                watch_label = escape(_("Watch"))
                watch = f' · <a href="/watch/{escape(table.id)}">{watch_label}</a>'
            count = ngettext("{count} player", "{count} players", players).format(count=players)
            title = f"{ruleset_label(table.state.ruleset, code)} · {count}"
            items.append(
                f'<section aria-labelledby="t-{escape(table.id)}"><h2 id="t-{escape(table.id)}">{escape(title)}</h2>'
                f'<ul class="players">{"".join(seats)}</ul>'
                f'<p class="phase">{escape(" · ".join(rules))}{watch}</p></section>'
            )
        intro = escape(_("Tables open to visitors: take a free seat to play in this browser."))
        nothing = escape(_("No table has a free seat right now."))
        empty = "" if items else f"<p>{nothing}</p>"
        return _lobby_page(code, f'<p>{intro}</p>{empty}<div class="table">{"".join(items)}</div>')


def refusal_html(message: str, lang: str) -> str:
    """The page a browser shows when taking a seat was refused: why (``message``, translated), and the way back."""
    escape = html.escape
    with in_language(lang) as code:
        back = escape(_("Back to the open tables"))
        return _lobby_page(code, f'<p role="alert">{escape(message)}</p><p><a href="/lobby?lang={code}">{back}</a></p>')


def _lobby_page(code: str, main: str) -> str:
    """A page of the lobby in language ``code`` (the current one) around ``main`` (HTML made here, names escaped)."""
    escape = html.escape
    heading = escape(_("Open tables"))
    language = escape(_("Language"))
    languages = " · ".join(
        f'<a href="/lobby?lang={other}" lang="{other}">{name}</a>'
        for other, name in (("en", "English"), ("fr", "Français"), ("es", "Español"))
    )
    return f"""<!DOCTYPE html>
<html lang="{code}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>{heading} · biblios-kit</title>
<link rel="stylesheet" href="/seat-page/seat.css">
</head>
<body>
<header><h1>{heading}</h1><nav class="lang" aria-label="{language}">{languages}</nav></header>
<main id="app">{main}</main>
</body>
</html>
"""


def take_seat(hub: TableHub, table: Table, seat: int, name: str = "") -> str:
    """Give a visitor free ``seat`` of open ``table``, called ``name`` when they typed one; returns its new token.

    ``Rejected`` 409 when the seat was taken, 400 ``bad_name`` for a name the rule of every
    entry point refuses (:func:`~biblios_kit.names.name_problem`). Every connection of the
    table sees the new name at once (its whole view again).
    """
    if not table.settings.open or table.finished:
        raise Rejected(404, "not_found", _("this table is not open to visitors"))
    if not 0 <= seat < len(table.seats) or not is_free(table, seat):
        raise Rejected(409, "seat_taken", _("this seat is not free any more; go back to the list of tables"))
    names = list(table.names)
    if name.strip(" "):  # nothing typed: the seat keeps the name it was given (by default "Player N")
        problem = name_problem(name)
        if problem is not None:
            raise Rejected(400, "bad_name", problem)
        names[seat] = clean_name(name)
    token = new_token()
    digests = list(table.token_digests)
    digests[seat] = token_digest(token)
    store_or_refuse(lambda: hub.store.give_seat(table.id, digests, names))
    new_tokens(table, tuple(digests))
    hub.rename(table, names)
    return token


def add_lobby_page(app: web.Application, hub: TableHub) -> None:
    """Add ``/lobby`` and ``POST /lobby/{table}/{seat}`` (a server started with ``--lobby`` only)."""
    from biblios_kit.bounded import count_of
    from biblios_kit.net.seat_page import page_language

    def within_budget(request: web.Request) -> bool:
        return bool(request.app[HTTP_LIMIT].allow(client_key(request, None)))

    def html_page(text: str, status: int = 200) -> web.Response:
        return web.Response(
            status=status,
            text=text,
            content_type="text/html",
            # same-origin, not no-referrer: under no-referrer a browser posts the page's forms with "Origin: null",
            # which the server refuses as it refuses every foreign origin
            headers={
                "Cache-Control": "no-store",
                "Content-Security-Policy": LOBBY_POLICY,
                "Referrer-Policy": "same-origin",
            },
        )

    async def page(request: web.Request) -> web.StreamResponse:
        if not within_budget(request):
            return json_error(429, "rate_limited", _("too many requests; slow down"))
        return html_page(lobby_html(hub, page_language(request)))

    async def take(request: web.Request) -> web.StreamResponse:
        if not within_budget(request):
            return json_error(429, "rate_limited", _("too many requests; slow down"))
        number = count_of(request.match_info["seat"])
        form = await request.post()  # within the server's request size limit
        name = form.get("name")
        lang = page_language(request)
        try:
            with in_language(lang):
                table = hub.table(request.match_info["id"])
                token = take_seat(
                    hub, table, -1 if number is None else number - 1, name if isinstance(name, str) else ""
                )
        except Rejected as error:
            if "text/html" not in request.headers.get("Accept", ""):
                raise  # a program: the JSON error of every route
            return html_page(refusal_html(error.message, lang), error.status)  # a browser: a page, and the way back
        # The seat's invitation link: it sets the seat's cookie and opens the seat page (303: a GET follows the form).
        raise web.HTTPSeeOther(f"/play/{table.id}?token={token}")

    app.add_routes([web.get("/lobby", page), web.post("/lobby/{id}/{seat}", take)])
