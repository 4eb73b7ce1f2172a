"""The admin's tables (listing, a seat's link issued again, settings, closing), presence, spectators, languages."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient
from net_helpers import ADMIN, NO_CLOCKS, bearer, create, running_server

from biblios_kit.net.protocol import validate
from biblios_kit.net.store import Store


async def _next(ws: Any, kind: str) -> dict[str, Any]:
    """The next message of type ``kind`` on ``ws`` (others skipped)."""
    while True:
        message: dict[str, Any] = json.loads((await asyncio.wait_for(ws.receive(), 5)).data)
        if message["type"] == kind:
            return message


async def _listing(client: TestClient[Any, Any]) -> dict[str, Any]:
    response = await client.get("/api/tables", headers=bearer(ADMIN))
    listing: dict[str, Any] = await response.json()
    assert response.status == 200, listing
    validate(listing, "tables")
    return listing


async def test_the_listing_shows_seats_presence_and_whose_turn(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "easy", "human"], names=["Ana", "", "Chloé"], seed=3,
                             bot_delay=5)  # fmt: skip
        table = reply["table"]
        assert reply["spectator_link"].endswith(f"/watch/{table}")
        assert reply["settings"] == {"hints": "bots-only", "spectators": True, "open": False, **NO_CLOCKS}
        (entry,) = (await _listing(client))["tables"]
        assert entry["table"] == table and entry["state"] == "playing" and entry["to_move"] == 0
        assert [s["connected"] for s in entry["seats"]] == [False, True, False]  # the bot is always there
        assert [s["kind"] for s in entry["seats"]] == ["human", "easy", "human"]
        ws = await client.ws_connect(f"/api/tables/{table}/ws")
        await ws.send_json({"type": "hello", "token": reply["seats"][2]["token"], "table_info": True})
        await _next(ws, "view")
        info = await _next(ws, "table_info")
        validate(info, "table_info")
        assert info["connected"] == [False, True, True] and info["hints_allowed"] is False
        (entry,) = (await _listing(client))["tables"]
        assert [s["connected"] for s in entry["seats"]] == [False, True, True]
        # Ana connects: Chloé is told; a spectator is counted.
        ana = await client.ws_connect(f"/api/tables/{table}/ws")
        await ana.send_json({"type": "hello", "token": reply["seats"][0]["token"]})
        assert (await _next(ws, "table_info"))["connected"] == [True, True, True]
        assert (await _next(ana, "view"))["seat"] == 0  # a client that did not ask gets no table_info
        watcher = await client.ws_connect(f"/api/tables/{table}/ws")
        await watcher.send_json({"type": "hello", "token": None})
        assert (await _next(ws, "table_info"))["spectators"] == 1
        await ana.close()
        assert (await _next(ws, "table_info"))["connected"] == [False, True, True]
        for other in (ws, watcher):
            await other.close()
        # Only the admin lists tables.
        for token in (None, reply["seats"][0]["token"], "guess"):
            refused = await client.get("/api/tables", headers=bearer(token))
            assert refused.status == 403 and (await refused.json())["error"]["code"] == "bad_token"


async def test_invite_issues_a_new_link_and_the_old_token_is_refused(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "human", "easy"], seed=3)
        table, old = reply["table"], reply["seats"][1]["token"]
        ws = await client.ws_connect(f"/api/tables/{table}/ws")
        await ws.send_json({"type": "hello", "token": old})
        await _next(ws, "view")
        response = await client.post(f"/api/tables/{table}/invite", json={"seat": 1}, headers=bearer(ADMIN))
        invitation = await response.json()
        assert response.status == 200, invitation
        validate(invitation, "invitation")
        new = invitation["token"]
        assert new != old and len(new) >= 40 and invitation["link"].endswith(f"/play/{table}?token={new}")
        revoked = await _next(ws, "error")
        assert revoked["code"] == "token_revoked"
        assert (await asyncio.wait_for(ws.receive(), 5)).type.name in ("CLOSE", "CLOSED", "CLOSING")
        stale = await client.get(f"/api/tables/{table}", headers=bearer(old))
        assert stale.status == 403 and (await stale.json())["error"]["code"] == "bad_token"
        assert (await client.get(f"/play/{table}?token={old}", allow_redirects=False)).status == 403
        fresh = await client.get(f"/api/tables/{table}", headers=bearer(new))
        assert fresh.status == 200 and (await fresh.json())["seat"] == 1
        for body, status, code in (({"seat": 2}, 400, "bad_seats"), ({"seat": 7}, 400, "bad_seats"),
                                   ({"seat": "1"}, 400, "bad_request"), ({"seat": True}, 400, "bad_request")):  # fmt: skip
            refused = await client.post(f"/api/tables/{table}/invite", json=body, headers=bearer(ADMIN))
            assert refused.status == status and (await refused.json())["error"]["code"] == code, body
        refused = await client.post(f"/api/tables/{table}/invite", json={"seat": 0}, headers=bearer(new))
        assert refused.status == 403
    # The new token survives a restart; the old one stays refused.
    async with running_server(tmp_path) as client:
        assert (await client.get(f"/api/tables/{table}", headers=bearer(new))).status == 200
        assert (await client.get(f"/api/tables/{table}", headers=bearer(old))).status == 403


async def test_spectators_can_be_turned_off(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        closed = await create(client, seats=["human", "human"], players=2, spectators=False, hints="on", seed=1)
        assert closed["spectator_link"] is None and closed["settings"] == {
            "hints": "on",
            "spectators": False,
            "open": False,
            **NO_CLOCKS,
        }
        table = closed["table"]
        for path in (f"/api/tables/{table}", f"/watch/{table}", f"/watch/{table}/texts"):
            refused = await client.get(path)
            assert refused.status == 403 and (await refused.json())["error"]["code"] == "no_spectators", path
        ws = await client.ws_connect(f"/api/tables/{table}/ws")
        await ws.send_json({"type": "hello", "token": None})
        assert (await _next(ws, "error"))["code"] == "no_spectators"
        seat = await client.get(f"/api/tables/{table}", headers=bearer(closed["seats"][0]["token"]))
        assert seat.status == 200  # the seats play on
        # Turned on, then off again while someone watches: the watcher is told and let go.
        opened = await client.post(f"/api/tables/{table}/settings", json={"spectators": True}, headers=bearer(ADMIN))
        summary = await opened.json()
        validate(summary, "table_summary")
        assert summary["spectator_link"].endswith(f"/watch/{table}")
        watcher = await client.ws_connect(f"/api/tables/{table}/ws")
        await watcher.send_json({"type": "hello", "token": None, "table_info": True})
        assert (await _next(watcher, "table_info"))["settings"]["spectators"] is True
        await client.post(f"/api/tables/{table}/settings", json={"spectators": False}, headers=bearer(ADMIN))
        assert (await _next(watcher, "error"))["code"] == "no_spectators"
        for token in (None, closed["seats"][0]["token"]):  # only the admin changes a table's settings
            refused = await client.post(f"/api/tables/{table}/settings", json={"hints": "off"}, headers=bearer(token))
            assert refused.status == 403 and (await refused.json())["error"]["code"] == "bad_token"
        foreign = await client.post(f"/api/tables/{table}/settings", json={"hints": "off"},
                                    headers={**bearer(ADMIN), "Origin": "http://attacker.example"})  # fmt: skip
        assert foreign.status == 403 and (await foreign.json())["error"]["code"] == "bad_origin"
        for body in ({"hints": "always"}, {"spectators": "no"}):
            refused = await client.post(f"/api/tables/{table}/settings", json=body, headers=bearer(ADMIN))
            assert refused.status == 400 and (await refused.json())["error"]["code"] == "bad_settings"
        bad = await client.post("/api/tables", json={"hints": "maybe"}, headers=bearer(ADMIN))
        assert bad.status == 400 and (await bad.json())["error"]["code"] == "bad_settings"
    async with running_server(tmp_path) as client:  # the settings are stored
        assert (await client.get(f"/api/tables/{table}")).status == 403
        (entry,) = (await _listing(client))["tables"]
        assert entry["settings"] == {"hints": "on", "spectators": False, "open": False, **NO_CLOCKS}


async def test_hints_follow_the_setting_and_the_number_of_people(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        cases = [(["human", "easy", "easy"], {}, True), (["human", "human", "easy"], {}, False),
                 (["human", "human", "easy"], {"hints": "on"}, True), (["human", "easy", "easy"], {"hints": "off"}, False)]  # fmt: skip
        for seats, fields, allowed in cases:
            reply = await create(client, seats=seats, bot_delay=5, **fields)
            ws = await client.ws_connect(f"/api/tables/{reply['table']}/ws")
            await ws.send_json({"type": "hello", "token": reply["seats"][0]["token"], "table_info": True})
            assert (await _next(ws, "table_info"))["hints_allowed"] is allowed, (seats, fields)
            await ws.close()


async def test_close_ends_the_table_and_tells_its_connections(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "human", "easy"], seed=3)
        keep = await create(client, seats=["human", "human", "easy"], seed=4)
        table = reply["table"]
        ws = await client.ws_connect(f"/api/tables/{table}/ws")
        await ws.send_json({"type": "hello", "token": reply["seats"][0]["token"]})
        await _next(ws, "view")
        refused = await client.delete(f"/api/tables/{table}", headers=bearer(reply["seats"][0]["token"]))
        assert refused.status == 403
        closed = await client.delete(f"/api/tables/{table}", headers=bearer(ADMIN))
        assert closed.status == 200 and (await closed.json()) == {"type": "closed", "table": table}
        assert (await _next(ws, "error"))["code"] == "table_closed"
        assert (await client.get(f"/api/tables/{table}", headers=bearer(reply["seats"][0]["token"]))).status == 404
        assert [t["table"] for t in (await _listing(client))["tables"]] == [keep["table"]]
        assert (await client.delete(f"/api/tables/{table}", headers=bearer(ADMIN))).status == 404
    async with running_server(tmp_path) as client:  # not loaded again; its actions stay in the database
        assert [t["table"] for t in (await _listing(client))["tables"]] == [keep["table"]]
    with sqlite3.connect(tmp_path / "tables.sqlite3") as db:
        assert db.execute("SELECT closed FROM tables WHERE id = ?", (table,)).fetchone() == (1,)


async def test_refusals_come_in_the_language_the_client_asks(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "human", "easy"], seed=3)
        ws = await client.ws_connect(f"/api/tables/{reply['table']}/ws")
        await ws.send_json({"type": "hello", "token": reply["seats"][1]["token"], "lang": "fr"})
        await _next(ws, "view")
        await ws.send_json({"type": "action", "action": "keep", "version": 0})
        french = await _next(ws, "error")
        assert french["code"] == "not_your_turn" and french["message"] == "ce n’est pas votre tour"
        await ws.send_json({"type": "action", "action": "keep", "version": 0, "lang": "es"})
        spanish = await _next(ws, "error")
        assert spanish["message"] == "no es su turno"
        await ws.send_json({"type": "action", "action": "keep", "version": 0, "lang": "xx"})
        assert (await _next(ws, "error"))["message"] == "ce n’est pas votre tour"  # unknown: the hello's
        english = await client.ws_connect(f"/api/tables/{reply['table']}/ws")
        await english.send_json({"type": "hello", "token": reply["seats"][1]["token"]})
        await _next(english, "view")
        await english.send_json({"type": "action", "action": "keep"})
        assert (await _next(english, "error"))["message"] == "it is not your turn"


def test_an_old_database_is_migrated_and_keeps_its_tables(tmp_path: Path) -> None:
    """A database made before settings existed (user_version 0) opens, gains the columns, and reads as the defaults."""
    from biblios_kit.net.store import MIGRATIONS, SCHEMA

    with sqlite3.connect(tmp_path / "tables.sqlite3") as db:
        db.executescript(SCHEMA)
        db.execute(
            "INSERT INTO tables (id, ruleset, options, players, seed, seats, names, token_digests, bot_delay, created)"
            " VALUES ('old', 'biblios', '[]', 2, 5, '[\"human\", \"human\"]', '[\"\", \"\"]', '[\"a\", \"b\"]', 0, 0)"
        )
        db.execute("INSERT INTO actions VALUES ('old', 0, 'keep')")
    store = Store(tmp_path)
    try:
        (stored,) = list(store.load_all())
        assert stored.id == "old" and stored.actions == ("keep",) and stored.settings == {}
        assert store.db.execute("PRAGMA user_version").fetchone() == (len(MIGRATIONS),)
        store.set_settings("old", {"hints": "on", "spectators": False})
        assert next(iter(store.load_all())).settings == {"hints": "on", "spectators": False}
    finally:
        store.close()
    Store(tmp_path).close()  # opened again: nothing to migrate, nothing fails


async def test_a_visitor_takes_a_free_seat_with_a_name_every_seat_sees_it(tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby=True) as client:
        reply = await create(client, seats=["human", "human", "easy"], names=["Ana"], free_seats=[1], open=True,
                             bot_delay=5)  # fmt: skip
        table = reply["table"]
        page = await (await client.get("/lobby", headers={"Accept-Language": "es"})).text()
        assert 'name="name" maxlength="40"' in page and "Su nombre (opcional)" in page
        ana = await client.ws_connect(f"/api/tables/{table}/ws")
        await ana.send_json({"type": "hello", "token": reply["seats"][0]["token"], "updates": True})
        assert [s["name"] for s in (await _next(ana, "view"))["seats"]] == ["Ana", "", ""]
        # A name the rule refuses: the seat stays free, in the visitor's language.
        bad = await client.post(f"/lobby/{table}/2", data={"name": "Zo\u202eé"}, headers={"Accept-Language": "fr"})
        assert bad.status == 400 and (await bad.json())["error"]["code"] == "bad_name"
        assert "caractère invisible" in (await bad.json())["error"]["message"]
        (entry,) = [t for t in (await _listing(client))["tables"] if t["table"] == table]
        assert [s["free"] for s in entry["seats"]] == [False, True, False]
        taken = await client.post(f"/lobby/{table}/2", data={"name": "  Zoé <i>  "}, allow_redirects=False)
        assert taken.status == 303
        # A browser (it asks for HTML) that was too slow gets a page saying so in its language, and the way back.
        browser = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8", "Accept-Language": "es"}
        late = await client.post(f"/lobby/{table}/2", data={"name": "Eva"}, headers=browser)
        assert late.status == 409 and late.content_type == "text/html"
        page = await late.text()
        assert '<html lang="es">' in page and "Volver a las mesas abiertas" in page and 'href="/lobby?lang=es"' in page
        assert "form-action 'self'" in late.headers["Content-Security-Policy"]
        unknown = await client.post("/lobby/nosuchtable/1", headers=browser)
        assert unknown.status == 404 and unknown.content_type == "text/html"
        view = await _next(ana, "view")  # Ana's seat sees the name at once
        assert [s["name"] for s in view["seats"]] == ["Ana", "Zoé <i>", ""]
        validate(view, "view")
        token = taken.headers["Location"].split("token=", 1)[1]
        mine = await (await client.get(f"/api/tables/{table}", headers=bearer(token))).json()
        assert mine["seat"] == 1 and mine["seats"][1]["name"] == "Zoé <i>"
        await ana.close()
    async with running_server(tmp_path, lobby=True) as client:  # kept: the server started again reads it
        (entry,) = [t for t in (await _listing(client))["tables"] if t["table"] == table]
        assert [s["name"] for s in entry["seats"]] == ["Ana", "Zoé <i>", ""]
        nameless = await create(client, seats=["human", "human"], players=2, free_seats=[1], open=True, bot_delay=5)
        taken = await client.post(f"/lobby/{nameless['table']}/2", data={"name": "   "}, allow_redirects=False)
        assert taken.status == 303  # nothing typed: the seat keeps its default name
        (entry,) = [t for t in (await _listing(client))["tables"] if t["table"] == nameless["table"]]
        assert [s["name"] for s in entry["seats"]] == ["", ""]


async def test_the_public_lobby_lists_open_tables_and_a_visitor_takes_a_free_seat(tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby=True) as client:
        hidden = await create(client, seats=["human", "human", "easy"], free_seats=[1], bot_delay=5)  # not open
        reply = await create(client, seats=["human", "human", "easy"], names=["Ana <b>", "", "B"], free_seats=[1],
                             open=True, bot_delay=5)  # fmt: skip
        table = reply["table"]
        assert reply["seats"][1]["token"] is None and reply["seats"][1]["link"] is None
        assert reply["settings"]["open"] is True
        page = await client.get("/lobby", headers={"Accept-Language": "fr"})
        assert page.status == 200 and "form-action 'self'" in page.headers["Content-Security-Policy"]
        text = await page.text()
        assert '<html lang="fr">' in text and "Prendre la place 2" in text and f'action="/lobby/{table}/2"' in text
        assert "Ana &lt;b&gt;" in text and "<b>" not in text  # a name is text, never markup
        assert hidden["table"] not in text
        (entry,) = [t for t in (await _listing(client))["tables"] if t["table"] == table]
        assert [s["free"] for s in entry["seats"]] == [False, True, False]
        # A visitor takes seat 2: sent to the seat's invitation link, which opens the seat page.
        taken = await client.post(f"/lobby/{table}/2", allow_redirects=False)
        assert taken.status == 303
        location = taken.headers["Location"]
        assert location.startswith(f"/play/{table}?token=")
        token = location.split("token=", 1)[1]
        view = await client.get(f"/api/tables/{table}", headers=bearer(token))
        assert view.status == 200 and (await view.json())["seat"] == 1
        again = await client.post(f"/lobby/{table}/2", allow_redirects=False, headers={"Accept-Language": "es"})
        assert again.status == 409 and (await again.json())["error"]["code"] == "seat_taken"
        assert table not in await (await client.get("/lobby")).text()  # no free seat left
        for path in (f"/lobby/{table}/1", f"/lobby/{table}/3", f"/lobby/{table}/9", f"/lobby/{hidden['table']}/2"):
            refused = await client.post(path, allow_redirects=False)
            assert refused.status in (404, 409), path
        foreign = await client.post(f"/lobby/{table}/2", headers={"Origin": "http://attacker.example"})
        assert foreign.status == 403  # a form on another site cannot take a seat
        # The admin fills the other table's free seat.
        invited = await client.post(f"/api/tables/{hidden['table']}/invite", json={"seat": 1}, headers=bearer(ADMIN))
        assert invited.status == 200
        bad = await client.post("/api/tables", json={"seats": ["human", "easy"], "players": 2, "free_seats": [1]},
                                headers=bearer(ADMIN))  # fmt: skip
        assert bad.status == 400 and (await bad.json())["error"]["code"] == "bad_seats"
    async with running_server(tmp_path) as client:  # a server without --lobby has none
        assert (await client.get("/lobby")).status == 404


async def test_a_connection_let_go_plays_nothing_more(tmp_path: Path) -> None:
    """An action sent on the old token's socket after its link was issued again is not played."""
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "human", "easy"], seed=3, bot_delay=5)
        table = reply["table"]
        ws = await client.ws_connect(f"/api/tables/{table}/ws")
        await ws.send_json({"type": "hello", "token": reply["seats"][0]["token"]})
        legal = (await _next(ws, "view"))["observation"]["legal_actions"]
        response = await client.post(f"/api/tables/{table}/invite", json={"seat": 0}, headers=bearer(ADMIN))
        assert response.status == 200
        await ws.send_json({"type": "action", "action": legal[0], "version": 0})
        kinds = []
        while True:
            message = await asyncio.wait_for(ws.receive(), 5)
            if message.type.name != "TEXT":
                break
            kinds.append(json.loads(message.data).get("code") or json.loads(message.data)["type"])
        assert kinds == ["token_revoked"], kinds
        spectator = await (await client.get(f"/api/tables/{table}")).json()
        assert spectator["version"] == 0
