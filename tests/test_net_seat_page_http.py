"""The seat page's server side, without a browser: the invitation cookie, the page, its texts and its WebSocket."""

from __future__ import annotations

import json
from typing import Any

from aiohttp.test_utils import TestClient
from net_helpers import create, running_server

from biblios_kit.net.seat_page import seat_cookie


async def _seat_client(client: TestClient[Any, Any], link: str) -> dict[str, str]:
    """Open an invitation link as a browser does; returns the cookie it sets."""
    path = link.split("8765", 1)[1] if "8765" in link else link
    response = await client.get(path, allow_redirects=False)
    assert response.status == 302
    table = path.split("/")[2].split("?")[0]
    assert response.headers["Location"] == f"/play/{table}"
    cookie = response.cookies[seat_cookie(table)]
    assert cookie["httponly"] and cookie["samesite"] == "Strict" and cookie["path"] == f"/play/{table}"
    return {seat_cookie(table): cookie.value}


async def test_the_invitation_link_sets_the_cookie_and_the_page_needs_it(tmp_path: Any) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "human", "easy"], names=["Ana", "<i>Beto</i>", "C"], seed=4)
        table = reply["table"]
        assert (await client.get(f"/play/{table}")).status == 403  # no cookie
        assert (await client.get(f"/play/{table}?token=wrong")).status == 403
        assert (await client.get(f"/play/{table}/texts")).status == 403
        cookies = await _seat_client(client, reply["seats"][0]["link"])
        page = await client.get(f"/play/{table}", cookies=cookies, headers={"Accept-Language": "fr-FR,fr;q=0.9"})
        assert page.status == 200
        html = await page.text()
        assert '<html lang="fr">' in html and "Chargement" in html
        assert cookies[seat_cookie(table)] not in html  # the token never reaches the page
        assert "script-src 'self'" in page.headers["Content-Security-Policy"]
        assert (await client.get("/seat-page/seat.js")).status == 200
        assert (await client.get("/seat-page/../seat_page.py")).status == 404
        assert (await client.get("/seat-page/nothing.js")).status == 404


async def test_texts_are_the_seats_own_in_its_language(tmp_path: Any) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "human", "easy"], names=["Ana", "Beto", "C"], seed=4)
        table = reply["table"]
        giver = await _seat_client(client, reply["seats"][0]["link"])
        other = await _seat_client(client, reply["seats"][1]["link"])
        spanish = await (await client.get(f"/play/{table}/texts?lang=es&full=1", cookies=giver)).json()
        assert spanish["lang"] == "es" and spanish["ui"]["players"] == "Jugadores"
        assert spanish["actions"] and all(label != text for text, label in spanish["actions"].items())
        french = await (await client.get(f"/play/{table}/texts?lang=fr&full=1", cookies=giver)).json()
        assert french["ui"]["players"] == "Joueurs" and french["actions"] != spanish["actions"]
        watcher = await (await client.get(f"/play/{table}/texts?lang=en", cookies=other)).json()
        assert watcher["actions"] == {} and "ui" not in watcher
        # The card the giver drew is in the giver's "now" text only.
        english = await (await client.get(f"/play/{table}/texts?lang=en&full=1", cookies=giver)).json()
        drawn = [card["name"] for card in english["cards"] if card["name"] in english["focus"]]
        assert len(drawn) == 1 and "drew" in english["focus"], english["focus"]
        assert drawn[0] not in json.dumps(watcher, ensure_ascii=False)
        assert (await client.get(f"/play/{table}/texts?since=-1", cookies=giver)).status == 400
        assert (await client.get(f"/play/{table}/replay?step=0", cookies=giver)).status == 409  # not over yet


async def test_a_seat_without_a_name_has_its_default_name_in_the_pages_language(tmp_path: Any) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "human", "easy"], names=["Ana"], seed=4)
        cookies = await _seat_client(client, reply["seats"][0]["link"])
        for lang, names in (("es", ["Ana", "Jugador 2", "Jugador 3"]), ("fr", ["Ana", "Joueur 2", "Joueur 3"])):
            texts = await (await client.get(f"/play/{reply['table']}/texts?lang={lang}&full=1", cookies=cookies)).json()
            assert texts["seat_names"] == names


async def test_the_page_websocket_is_the_api_with_the_cookies_token(tmp_path: Any) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "human", "easy"], names=["Ana", "Beto", "C"], seed=4)
        table = reply["table"]
        cookies = await _seat_client(client, reply["seats"][0]["link"])
        client.session.cookie_jar.update_cookies(cookies)
        async with client.ws_connect(f"/play/{table}/ws") as ws:
            await ws.send_json({"type": "hello", "since": 0})
            view = await ws.receive_json()
            assert view["type"] == "view" and view["seat"] == 0
            action = view["observation"]["legal_actions"][0]
            await ws.send_json({"type": "action", "action": action, "version": view["version"]})
            replies = [await ws.receive_json(), await ws.receive_json()]
            assert "accepted" in {r["type"] for r in replies}
        client.session.cookie_jar.clear()
        response = await client.get(f"/play/{table}/ws")
        assert response.status == 403


def test_log_sentences_made_as_the_game_goes_are_those_of_the_whole_log(tmp_path: Any) -> None:
    """The page's log cache describes each event once; its sentences equal a fresh description of the log."""
    from concurrent.futures import ThreadPoolExecutor

    from biblios_kit.net.seat_page import LogSentences, seat_texts
    from biblios_kit.net.store import Store
    from biblios_kit.net.tables import TableHub
    from biblios_kit.rulebook.describe import describe_events

    store = Store(tmp_path)
    hub = TableHub(store, ThreadPoolExecutor(1))
    try:
        invitation = hub.create("biblios", [], 2, ["human", "human"], ["Ana", "Beto"], 5, 0.0)
        table = hub.table(invitation.table)
        logs = LogSentences(limit=1)
        for _step in range(40):
            seat = table.state.current_player
            assert seat is not None
            for viewer in (0, 1):
                seat_texts(table, viewer, "fr", 0, False, logs)  # the cache follows viewer 0, then 1 (limit 1)
            legal = seat_texts(table, seat, "es", 0, False, logs)["actions"]
            hub.act(table, seat, [sorted(legal)[_step % len(legal)]], table.version)
        for viewer in (0, 1):
            made = [line["text"] for line in seat_texts(table, viewer, "fr", 0, False, logs)["log"]]
            fresh = describe_events(table.state.ruleset, table.state.events_for(viewer), ["Ana", "Beto"], "fr")
            assert made == fresh and len(made) > 20
            later = seat_texts(table, viewer, "fr", 30, False, logs)["log"]
            assert later and all(line["n"] >= 30 for line in later)
    finally:
        store.close()


def test_the_texts_never_name_a_card_the_seats_view_does_not_show(tmp_path: Any) -> None:
    """Through a whole game, the page's words for a seat (log, "now", labels, warnings) name only cards its view shows.

    The cards a seat may know are those of its observation and of its redacted log; the
    texts are checked against the names of those (category cards: each name is unique).
    """
    import random
    from concurrent.futures import ThreadPoolExecutor

    from biblios_kit.net.seat_page import LogSentences, seat_texts
    from biblios_kit.net.store import Store
    from biblios_kit.net.tables import TableHub
    from biblios_kit.rulebook.describe import card_name
    from biblios_kit.rules.model import CardKind

    store = Store(tmp_path)
    hub = TableHub(store, ThreadPoolExecutor(1))
    try:
        invitation = hub.create("biblios", [], 3, ["human"] * 3, ["Ana", "Beto", "Carla"], 11, 0.0)
        table = hub.table(invitation.table)
        ruleset = table.state.ruleset
        named = {
            card: card_name(ruleset, card, "en") for card, c in enumerate(ruleset.deck) if c.kind is CardKind.CATEGORY
        }
        logs = LogSentences()
        chooser = random.Random(3)
        checked = 0
        while not table.finished:
            for seat in range(3):
                obs = table.state.observation(seat)
                shown = {*obs.hand, *obs.public, *obs.discard, *obs.my_kept, *obs.my_auction_cards, *obs.revealed,
                         *obs.my_buried, *(card for _p, card in obs.acquired)}  # fmt: skip
                shown |= {c for c in (obs.drawn, obs.kept, obs.auction.card if obs.auction else None) if c is not None}
                shown |= {e.card for e in table.state.events_for(seat) if e.card is not None}
                texts = seat_texts(table, seat, "en", 0, False, logs)
                words = json.dumps(
                    [texts["log"], texts["focus"], texts["actions"], texts["bluffs"]], ensure_ascii=False
                )
                hidden = [name for card, name in named.items() if card not in shown and name in words]
                assert not hidden, (seat, hidden)
                checked += 1
            seat = table.state.current_player
            assert seat is not None
            legal = seat_texts(table, seat, "en", 0, False, logs)["actions"]
            hub.act(table, seat, [chooser.choice(sorted(legal))], table.version)
        assert checked > 100
    finally:
        store.close()
