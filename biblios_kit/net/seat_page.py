"""The seat page of a game server: ``/play/{table}``, a browser client of the open API (no process per seat).

The page (static files in ``page/``: plain ES modules and CSS, no build step) opens the
API's WebSocket through ``/play/{table}/ws`` (the seat token stays in an HttpOnly cookie,
the page never sees it) and draws each view it receives. Its words come from the server,
in the seat's language, from the same gettext catalogs and grammar-aware helpers as the
terminal (:mod:`biblios_kit.rulebook.describe`): ``/play/{table}/texts`` gives the card and die
names, the page's labels, the sentences of the seat's redacted log, the label of each
legal action and the bluff warnings, and the end screen. Nothing is translated twice,
and nothing the seat may not see is sent: every text comes from ``state.observation(seat)``
and ``state.events_for(seat)``.
"""

from __future__ import annotations

import html
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

from biblios_kit.engine.actions import BID, CHURCH, parse_action
from biblios_kit.i18n import N_, SUPPORTED, _, in_language, ngettext
from biblios_kit.net.clock_texts import CLOCK_UI_TEXTS
from biblios_kit.net.security import Handler, json_error
from biblios_kit.net.views import SPECTATOR, legal_texts, public_event, public_observation
from biblios_kit.rulebook.describe import (
    EventDescriber,
    action_label,
    award_reason,
    bonus_award_text,
    card_name,
    die_name,
    placing_text,
    player_name,
    result_summary,
    term,
)
from biblios_kit.rulebook.grammar import capitalize
from biblios_kit.rules.model import CardKind

if TYPE_CHECKING:
    from biblios_kit.net.tables import Table, TableHub
    from biblios_kit.tui.replay_view import GameReplay

PAGE_DIR = Path(__file__).parent / "page"
"""The page's static files (served under ``/seat-page/``)."""
PAGE_FILES = {"seat.js": "text/javascript", "seat.css": "text/css"}
"""The files served from :data:`PAGE_DIR`, and nothing else (no listing)."""

CONTENT_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""The page loads its own script and style only, and talks to its own server only."""

UI_TEXTS: dict[str, str] = {
    "loading": N_("Loading the table…"),
    "reconnecting": N_("Connection lost: reconnecting…"),
    "caught_up": N_("Connected: the table is up to date."),
    "refused": N_("The server refused this action: {message}"),
    "your_turn": N_("Your turn"),
    "waiting": N_("Waiting for {player}."),
    "players": N_("Players"),
    "collection": N_("Cards seen in the collection of {player}"),
    "you": N_("(you)"),
    "now": N_("Now"),
    "actions": N_("Your choices"),
    "actions_help": N_("Keys 1 to 9 choose the first nine choices."),
    "log": N_("Game log"),
    "piles": N_("Piles"),
    "language": N_("Language"),
    "end": N_("Game over"),
    "ranking": N_("Ranking"),
    "awards": N_("Award dice"),
    "totals": N_("Totals"),
    "final_hands": N_("Final hands"),
    "record": N_("Download the game record (for biblios-kit replay)"),
    "rematch": N_("Rematch"),
    "rematch_yes": N_("Wants a rematch: {players}"),
    "rematch_no": N_("Does not want a rematch: {players}"),
    "replay": N_("Replay"),
    "previous": N_("Previous move"),
    "next": N_("Next move"),
    "empty": N_("No cards"),
    "watching": N_("You are watching this table: you see what every player sees, and no hand."),
    "connected": N_("connected"),
    "away": N_("away"),
    "spectators": N_("Spectators: {count}"),
    "hints_on": N_("Hints: allowed"),
    "hints_off": N_("Hints: not allowed"),
    "spectators_on": N_("Spectators: allowed"),
    "spectators_off": N_("Spectators: not allowed"),
    "notify": N_("Tell me when it is my turn"),
    "notify_body": N_("It is your turn at table {table}."),
    "closed": N_("This table was closed by the server."),
    "revoked": N_("This link no longer works: a new one was issued for this seat."),
    "no_spectators": N_("This table does not accept spectators."),
}
"""The page's own words (its headings, its connection notices), translated into the page's language."""
UI_TEXTS.update(CLOCK_UI_TEXTS)  # clocks, stand-ins and their events (net/clock_texts.py)


def seat_cookie(table: str) -> str:
    """The cookie that holds a browser's seat token for ``table`` (set by the invitation link)."""
    return f"biblios_kit_seat_{table}"


def page_language(request: web.Request) -> str:
    """The page's language: ``?lang=`` when supported, else the browser's (``Accept-Language``), else English."""
    from biblios_kit.net.web import browser_language

    asked = request.query.get("lang", "")
    if asked in SUPPORTED:
        return asked
    return browser_language(request) or "en"


def page_html(table: str, lang: str, base: str | None = None) -> str:
    """The seat page's HTML shell, in ``lang``; the script fills it from the views.

    ``base``: the path of the page's WebSocket, texts and replay (``/play/<table>`` by default;
    the spectator page's is ``/watch/<table>``).
    """
    with in_language(lang) as code:
        loading = _("Loading the table…")
        title = "biblios-kit"
    return f"""<!DOCTYPE html>
<html lang="{code}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>{title}</title>
<link rel="stylesheet" href="/seat-page/seat.css">
<script type="module" src="/seat-page/seat.js"></script>
</head>
<body data-table="{html.escape(table)}" data-lang="{code}" data-base="{html.escape(base or f"/play/{table}")}">
<main id="app"><p id="status" role="status" aria-live="polite">{html.escape(loading)}</p></main>
</body>
</html>
"""


class LogSentences:
    """The sentences of each seat's log in each language, described once: a log only grows.

    At most ``limit`` logs (table, seat, language) are kept; the oldest used goes first.
    """

    def __init__(self, limit: int = 2_000) -> None:
        self.limit = limit
        self._logs: OrderedDict[tuple[str, int, str], tuple[EventDescriber, list[dict[str, Any]], list[int]]] = (
            OrderedDict()
        )

    def lines(self, table: Table, seat: int, lang: str) -> list[dict[str, Any]]:
        """``{"n", "text", "heading"}`` for each event of ``seat``'s log worth a line, in ``lang`` (active)."""
        from biblios_kit.tui.render import LOG_HEADINGS

        key = (table.id, seat, lang)
        entry = self._logs.pop(key, None)
        if entry is None:
            entry = (EventDescriber(table.state.ruleset, list(table.names), lang), [], [0])
        self._logs[key] = entry
        while len(self._logs) > self.limit:
            self._logs.popitem(last=False)
        describer, lines, seen = entry
        first = seen[0]
        events = seat_events(table, seat, first)
        for number, event in enumerate(events, start=first):
            line = describer.describe(event)
            if line is not None:
                lines.append({"n": number, "text": line, "heading": event.kind in LOG_HEADINGS})
        seen[0] = first + len(events)
        return lines


def seat_events(table: Table, seat: int, start: int = 0) -> list[Any]:
    """``seat``'s redacted log from event ``start`` on, or the public log for ``SPECTATOR``.

    The public log is redacted from ``start`` only (a spectator page asks after every move).
    """
    state = table.state
    if seat == SPECTATOR:
        return [public_event(raw, state.players) for raw in state.log[start:]]
    return state.events_for(seat)[start:]


def seat_texts(
    table: Table, seat: int, lang: str, since: int, full: bool, logs: LogSentences | None = None
) -> dict[str, Any]:
    """Every text the page shows for ``seat`` at the table's current version, in ``lang``.

    ``since``: the first log sentence wanted (an index into the seat's events); ``full`` adds
    what does not change during a game (card and die names, the page's words). ``logs``
    keeps the sentences already made (a fresh one describes the whole log).
    """
    state = table.state
    ruleset = state.ruleset
    names = list(table.names)
    with in_language(lang) as code:
        from biblios_kit.tui.localize import seat_kind_label
        from biblios_kit.tui.render import bid_capacity, bluff_text, focus_text, phase_name

        obs = public_observation(state) if seat == SPECTATOR else state.observation(seat)
        texts: dict[str, Any] = {"lang": code, "version": table.version}
        if full:
            texts["ui"] = {key: _(text) for key, text in UI_TEXTS.items()}
            texts["cards"] = [_card(ruleset, card, code) for card in range(len(ruleset.deck))]
            texts["dice"] = [die_name(ruleset, die, code) for die in range(len(obs.dice))]
            texts["seat_kinds"] = [seat_kind_label(kind) for kind in table.seats]
            texts["seat_names"] = [player_name(name, number) for number, name in enumerate(table.names)]
            texts["terms"] = {
                key: capitalize(term(ruleset, key, code))
                for key in ("board", "hand", "draw_pile", "auction_pile", "public_space")
            }
        lines = (logs or LogSentences()).lines(table, seat, code)
        texts["log"] = [line for line in lines if line["n"] >= since]
        texts["events"] = len(state.log) if seat == SPECTATOR else len(state.events_for(seat))
        texts["phase"] = phase_name(ruleset, obs.phase)
        texts["hand_sizes"] = [
            ngettext("{count} card in hand", "{count} cards in hand", size).format(count=size)
            for size in obs.hand_sizes
        ]
        texts["focus"] = focus_text(ruleset, obs, names, None if seat == SPECTATOR else seat).plain
        currency = obs.auction.currency if obs.auction is not None else "gold"
        labels: dict[str, str] = {}
        bluffs: dict[str, str] = {}
        for text in legal_texts(state, seat):
            action = parse_action(ruleset, text)
            labels[text] = action_label(ruleset, action, obs.dice, currency, code)
            bluffing = BID <= action < CHURCH and action - BID > bid_capacity(ruleset, obs.hand, currency)
            if obs.auction is not None and bluffing:
                bluffs[text] = bluff_text(ruleset, obs, names, action - BID).plain
        texts["actions"] = labels
        texts["bluffs"] = bluffs
        texts["end"] = _end_texts(table, code) if table.finished else None
    return texts


def _card(ruleset: Any, card: int, lang: str) -> dict[str, Any]:
    c = ruleset.deck[card]
    kind = c.category if c.kind is CardKind.CATEGORY else c.kind.name.lower()
    return {"name": card_name(ruleset, card, lang), "kind": kind}


def _end_texts(table: Table, lang: str) -> dict[str, Any]:
    """The end screen: who won, the ranking, each award die and why, each player's final hand."""
    state = table.state
    ruleset = state.ruleset
    names = list(table.names)
    result = state.result()
    awards = []
    for category in result.categories:
        for award in category.awards:
            reason = award_reason(ruleset, award, category.totals, category.best_letters, names, lang)
            awards.append({"die": die_name(ruleset, award.die, lang), "value": award.value, "reason": reason})
    totals = [
        {"category": _category_name(ruleset, c.category, lang), "totals": list(c.totals)} for c in result.categories
    ]
    return {
        "summary": result_summary(ruleset, result, names, lang),
        "ranking": [placing_text(ruleset, placing, names, lang) for placing in result.ranking],
        "victory_points": list(result.victory_points),
        "vp": capitalize(term(ruleset, "victory_points", lang)),
        "awards": awards,
        "bonuses": [bonus_award_text(ruleset, bonus, names, lang) for bonus in result.bonuses],
        "totals": totals,
        "hands": [[card_name(ruleset, card, lang) for card in sorted(hand)] for hand in state.hands],
    }


def replay_reply(request: web.Request, table: Table, replays: OrderedDict[str, GameReplay], keep: int) -> web.Response:
    """The replay of finished ``table`` after the ``step`` moves the request asks for, as JSON in the page's
    language (409 before the end: its record names hidden cards). ``replays`` keeps the ``keep`` tables
    replayed last (the most recent last), so that stepping through one game replays it once."""
    import json

    from biblios_kit.bounded import count_of

    if not table.finished:
        return json_error(409, "not_finished", _("the game is not over; its record names hidden cards"))
    step = count_of(request.query.get("step", "0"))
    if step is None:
        return json_error(400, "bad_request", _('"step" must be a non-negative integer'))
    game = replays.pop(table.id, None)
    if game is None:
        from biblios_kit.tui.replay_view import GameReplay

        game = GameReplay(table.state)
    replays[table.id] = game
    while len(replays) > keep:
        replays.popitem(last=False)
    data = replay_texts(game, step, list(table.names), page_language(request))
    return web.Response(
        text=json.dumps(data, ensure_ascii=False, separators=(",", ":")), content_type="application/json"
    )


def replay_texts(replay: GameReplay, step: int, names: list[str], lang: str) -> dict[str, Any]:
    """The finished game after ``step`` moves, in ``lang``: the move and what it caused, the dice, the totals.

    The same position and words as the terminal's end screen (:mod:`biblios_kit.tui.replay_view`);
    the game is over, so every card may be named.
    """
    from biblios_kit.engine.events import EventKind
    from biblios_kit.rulebook.describe import card_currency
    from biblios_kit.tui.render import phase_name

    ruleset = replay.ruleset
    step = max(0, min(step, replay.moves))
    with in_language(lang) as code:
        move = ""
        if step > 0:
            actor = replay.actors[step - 1]
            before = replay.position(step - 1).observation(actor)
            currency = before.auction.currency if before.auction is not None else "gold"
            label = action_label(ruleset, replay.actions[step - 1], before.dice, currency, code)
            move = _("{player}: {action}").format(player=names[actor], action=label)
        describer = EventDescriber(ruleset, names, code)
        earlier = replay.events[: replay.marks[step - 1]] if step > 0 else []
        revealed = next(
            (e.card for e in reversed(earlier) if e.kind is EventKind.REVEALED and e.card is not None), None
        )
        if revealed is not None:  # bids are counted in the currency of the card under auction
            describer.currency = card_currency(ruleset, revealed)
        sentences = describer.describe_all(replay.events_of(step))
        state = replay.position(step)
        columns = [_category_name(ruleset, c.id, code) for c in ruleset.categories]
        columns += [capitalize(term(ruleset, "gold", code)), _("Cards")]
        rows = []
        for player, name in enumerate(names):
            hand = [ruleset.deck[c] for c in state.hand(player)]
            cells = [sum(c.value for c in hand if c.category == category.id) for category in ruleset.categories]
            cells += [sum(c.value for c in hand if c.kind is CardKind.GOLD), len(hand)]
            rows.append({"name": name, "cells": cells})
        return {
            "step": step,
            "moves": replay.moves,
            "head": _("Move {step} of {moves}").format(step=step, moves=replay.moves),
            "phase": phase_name(ruleset, state.phase),
            "move": move,
            "sentences": sentences,
            "dice": [[die_name(ruleset, die, code), value] for die, value in enumerate(state.dice_values())],
            "public": [card_name(ruleset, card, code) for card in state.zones()["public"]],
            "public_space": capitalize(term(ruleset, "public_space", code)),
            "columns": columns,
            "rows": rows,
        }


def _category_name(ruleset: Any, category: str, lang: str) -> str:
    """A category's glyph and name (``† Monks``), as the terminal's tables show it."""
    found = ruleset.category(category)
    return f"{found.glyph} {found.name.get(lang)}"


def record_reply(table: Table) -> web.Response:
    """The game record of a finished table (``409 not_finished`` before: it names hidden cards)."""
    if not table.finished:
        return json_error(409, "not_finished", _("the game is not over; its record names hidden cards"))
    import json

    from biblios_kit.engine.records import record_of

    return web.Response(
        text=json.dumps(record_of(table.state, bots=list(table.seats)).to_json(), ensure_ascii=False),
        content_type="application/json",
    )


def within_budget(request: web.Request, token: str) -> bool:
    """Spend one request of the seat's HTTP budget (the API's: ``docs/network.md``, "Limits")."""
    from biblios_kit.net.security import HTTP_LIMIT, client_key

    return request.app[HTTP_LIMIT].allow(client_key(request, token))


def add_seat_page(app: web.Application, hub: TableHub, api_websocket: Handler) -> None:
    """Add ``/play/{table}`` (the invitation link in a browser), its WebSocket, its texts and its static files.

    ``api_websocket`` is the API's WebSocket handler: the page's socket is that one, served under
    the page's path with the seat cookie's token.
    """
    logs = LogSentences()
    replays: OrderedDict[str, GameReplay] = OrderedDict()

    def seat_of_cookie(request: web.Request) -> tuple[Table, int, str] | None:
        table = hub.table(request.match_info["id"])
        token = request.cookies.get(seat_cookie(table.id))
        seat = table.seat_of(token)
        if token is None or seat is None:
            return None
        return table, seat, token

    def no_seat() -> web.Response:
        return json_error(403, "bad_token", _("open your invitation link (it carries your seat token)"))

    async def page(request: web.Request) -> web.StreamResponse:
        table = hub.table(request.match_info["id"])
        given = request.query.get("token")
        if given is not None:
            if table.seat_of(given) is None:
                return json_error(
                    403, "bad_token", _("this token is not a seat of table {table}").format(table=table.id)
                )
            response = web.HTTPFound(f"/play/{table.id}")
            response.set_cookie(
                seat_cookie(table.id), given, httponly=True, samesite="Strict", path=f"/play/{table.id}"
            )
            raise response
        if seat_of_cookie(request) is None:
            return no_seat()
        return web.Response(
            text=page_html(table.id, page_language(request)),
            content_type="text/html",
            headers={"Cache-Control": "no-store", "Content-Security-Policy": CONTENT_POLICY,
                     "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff"},
        )  # fmt: skip

    async def socket(request: web.Request) -> web.StreamResponse:
        found = seat_of_cookie(request)
        if found is None:
            return no_seat()
        # The API's own WebSocket, with the cookie's token as if sent in an Authorization header:
        # the page's hello carries no token.
        headers = request.headers.copy()
        headers["Authorization"] = f"Bearer {found[2]}"
        return await api_websocket(request.clone(headers=headers))

    async def texts(request: web.Request) -> web.Response:
        found = seat_of_cookie(request)
        if found is None:
            return no_seat()
        from biblios_kit.bounded import count_of

        since = count_of(request.query.get("since", "0"))
        if since is None:
            return json_error(400, "bad_request", _('"since" must be a non-negative integer'))
        table, seat, token = found
        if not within_budget(request, token):
            return json_error(429, "rate_limited", _("too many requests; slow down"))
        data = seat_texts(table, seat, page_language(request), since, request.query.get("full") == "1", logs)
        import json

        return web.Response(
            text=json.dumps(data, ensure_ascii=False, separators=(",", ":")),
            content_type="application/json",
            headers={"Cache-Control": "no-store"},
        )

    async def replay(request: web.Request) -> web.Response:
        found = seat_of_cookie(request)
        if found is None:
            return no_seat()

        table, _seat, token = found
        if not within_budget(request, token):
            return json_error(429, "rate_limited", _("too many requests; slow down"))
        return replay_reply(request, table, replays, 32)

    async def record(request: web.Request) -> web.Response:
        found = seat_of_cookie(request)
        if found is None:
            return no_seat()
        table, _seat, token = found
        if not within_budget(request, token):
            return json_error(429, "rate_limited", _("too many requests; slow down"))
        return record_reply(table)

    async def static(request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if name not in PAGE_FILES:
            raise web.HTTPNotFound()
        return web.FileResponse(
            PAGE_DIR / name, headers={"Content-Type": PAGE_FILES[name], "Cache-Control": "no-cache"}
        )

    app.add_routes(
        [
            web.get("/play/{id}", page),
            web.get("/play/{id}/ws", socket),
            web.get("/play/{id}/texts", texts),
            web.get("/play/{id}/replay", replay),
            web.get("/play/{id}/record", record),
            web.get("/seat-page/{name}", static),
        ]
    )
