"""Rematch over the API: each person opts in at the end; then a new table, seats rotated, each token to its own seat."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

from net_helpers import bearer, create, running_server

from biblios_kit.engine.actions import format_action
from biblios_kit.net.protocol import validate
from biblios_kit.net.server import HUB


def _finish(hub: Any, table_id: str, seed: int = 3) -> None:
    """Play random legal actions for every seat until the game is over (through the hub, as the API would)."""
    table = hub.table(table_id)
    rng = random.Random(seed)
    while not table.state.is_terminal():
        state = table.state
        action = rng.choice(state.legal_actions())
        hub.act(table, state.current_player, [format_action(state.ruleset, action)], table.version)
    if table.bot_task is not None:  # a bot move scheduled along the way: the game is over
        table.bot_task.cancel()


async def _messages(ws: Any, wanted: str, limit: float = 5.0) -> list[dict[str, Any]]:
    """Every message up to and including the first of type ``wanted``."""
    seen = []
    while True:
        message = json.loads((await ws.receive(timeout=limit)).data)
        seen.append(message)
        if message["type"] == wanted:
            return seen


async def _quiet(ws: Any, limit: float = 0.3) -> list[dict[str, Any]]:
    """The messages that arrive within ``limit`` seconds."""
    seen = []
    try:
        while True:
            seen.append(json.loads((await ws.receive(timeout=limit)).data))
    except TimeoutError:
        return seen


async def _socket(client: Any, table: str, token: str | None) -> Any:
    ws = await client.ws_connect(f"/api/tables/{table}/ws")
    await ws.send_json({"type": "hello", "token": token, "since": 0, "table_info": True})
    await _messages(ws, "table_info")
    return ws


async def test_everyone_opts_in_and_each_seat_gets_its_own_new_seat(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "random", "human"], names=["Ana", "Bot", "Chloé"], seed=5,
                             hints="on", spectators=True)  # fmt: skip
        table = reply["table"]
        t0, t2 = reply["seats"][0]["token"], reply["seats"][2]["token"]
        rematch = f"/api/tables/{table}/rematch"
        early = await client.post(rematch, json={"rematch": True}, headers=bearer(t0))
        assert early.status == 409 and (await early.json())["error"]["code"] == "not_finished"
        assert (await client.get(f"/api/tables/{table}/record")).status == 409
        _finish(client.server.app[HUB], table)
        assert (await client.get(f"/api/tables/{table}/record")).status == 200

        ws0, ws2, watcher = [await _socket(client, table, token) for token in (t0, t2, None)]
        first = await client.post(rematch, json={"rematch": True}, headers=bearer(t0))
        body = await first.json()
        assert first.status == 200, body
        validate(body, "rematch")
        assert body == {"type": "rematch", "table": table, "votes": [True, True, None], "new_table": None}
        for ws in (ws0, ws2, watcher):  # everyone sees who opted in
            assert (await _messages(ws, "rematch"))[-1]["votes"] == [True, True, None]
        assert (await client.post(rematch, json={"rematch": "yes"}, headers=bearer(t2))).status == 400
        assert (await client.post(rematch, json={"rematch": True})).status == 401  # a spectator has no vote

        last = await client.post(rematch, json={"rematch": True}, headers=bearer(t2))
        mine = await last.json()
        assert last.status == 200, mine
        validate(mine, "rematch")
        new = mine["new_table"]
        assert new and new != table and mine["seat"] == 0  # seat 2 sits at seat 0 now
        assert mine["link"].endswith(f"/play/{new}?token={mine['token']}")

        got0 = await _messages(ws0, "rematch_ready")
        ready0 = got0[-1]
        validate(ready0, "rematch_ready")
        assert ready0["seat"] == 1 and ready0["new_table"] == new and ready0["token"] != mine["token"]
        assert any(m["type"] == "rematch" and m["new_table"] == new for m in got0)
        others = await _messages(ws2, "rematch_ready") + await _quiet(ws2)
        assert [m["token"] for m in others if m["type"] == "rematch_ready"] == [mine["token"]]  # its own only
        watched = await _messages(watcher, "rematch") + await _quiet(watcher)
        assert all(m["type"] != "rematch_ready" and "token" not in m for m in watched)
        assert ready0["token"] not in json.dumps(watched)

        for token, seat in ((ready0["token"], 1), (mine["token"], 0)):
            view = await (await client.get(f"/api/tables/{new}", headers=bearer(token))).json()
            assert view["seat"] == seat
            assert [s["name"] for s in view["seats"]] == ["Chloé", "Ana", "Bot"]
            assert [s["kind"] for s in view["seats"]] == ["human", "human", "random"]
            assert view["version"] == 0 and view["result"] is None
        again = await (await client.get(rematch, headers=bearer(t0))).json()
        assert again["token"] == ready0["token"]  # a seat that reconnects finds its place
        public = await (await client.get(rematch)).json()
        assert "token" not in public and public["new_table"] == new
        hub = client.server.app[HUB]
        assert hub.table(new).settings == hub.table(table).settings
        assert hub.table(new).options == hub.table(table).options
        for ws in (ws0, ws2, watcher):
            await ws.close()


async def test_one_person_declines_and_no_table_is_made(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "human", "human"], seed=8)
        table = reply["table"]
        tokens = [seat["token"] for seat in reply["seats"]]
        _finish(client.server.app[HUB], table, seed=4)
        tables = len(client.server.app[HUB].tables)
        ws1 = await _socket(client, table, tokens[1])
        rematch = f"/api/tables/{table}/rematch"
        for token, accept in zip(tokens, (True, True, False), strict=True):
            response = await client.post(rematch, json={"rematch": accept}, headers=bearer(token))
            assert response.status == 200
        state = await response.json()
        assert state["votes"] == [True, True, False] and state["new_table"] is None and "token" not in state
        seen = await asyncio.wait_for(_messages(ws1, "rematch"), 5)
        while seen[-1]["votes"] != [True, True, False]:
            seen = await _messages(ws1, "rematch")
        assert len(client.server.app[HUB].tables) == tables
        await ws1.close()


async def test_the_seat_page_opts_in_with_its_cookie_and_goes_to_its_new_seat(tmp_path: Path) -> None:
    from biblios_kit.net.seat_page import seat_cookie

    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "human"], players=2, seed=11)
        table = reply["table"]
        t0, t1 = reply["seats"][0]["token"], reply["seats"][1]["token"]
        cookie = {"Cookie": f"{seat_cookie(table)}={t0}"}
        early = await client.post(f"/play/{table}/rematch", json={"rematch": True}, headers=cookie)
        assert early.status == 409
        _finish(client.server.app[HUB], table, seed=2)
        assert (await client.post(f"/play/{table}/rematch", json={"rematch": True})).status == 403  # no cookie
        voted = await client.post(f"/play/{table}/rematch", json={"rematch": True}, headers=cookie)
        body = await voted.json()
        assert voted.status == 200 and body["votes"] == [True, None] and "token" not in body
        go = f"/play/{table}/rematch/go"
        assert (await client.get(go, headers=cookie, allow_redirects=False)).status == 409  # not yet
        last = await (
            await client.post(f"/api/tables/{table}/rematch", json={"rematch": True}, headers=bearer(t1))
        ).json()
        new = last["new_table"]
        moved = await client.get(go, headers=cookie, allow_redirects=False)
        assert moved.status == 302 and moved.headers["Location"] == f"/play/{new}"
        set_cookie = moved.cookies[seat_cookie(new)]
        assert set_cookie["path"] == f"/play/{new}" and set_cookie["httponly"] and set_cookie.value != last["token"]
        view = await (await client.get(f"/api/tables/{new}", headers=bearer(set_cookie.value))).json()
        assert view["seat"] == 1  # seat 0 moved one place on


async def test_hostile_rematch_requests_get_a_clear_4xx_and_change_nothing(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "human"], players=2, seed=12)
        table = reply["table"]
        token = reply["seats"][0]["token"]
        deep = b'{"rematch": ' + b"[" * 50 + b"]" * 50 + b"}"

        async def refused(method: str, path: str, body: Any, who: str | None, status: int, code: str) -> None:
            data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
            response = await client.request(method, path, data=data, headers=bearer(who), allow_redirects=False)
            error = (await response.json())["error"]
            assert (response.status, error["code"]) == (status, code), (path, body, error)
            assert error["message"] and "Traceback" not in error["message"]

        rematch = f"/api/tables/{table}/rematch"
        await refused("POST", rematch, deep, token, 400, "malformed_json")
        await refused("POST", rematch, {"rematch": True}, token, 409, "not_finished")
        await refused("GET", rematch, None, None, 409, "not_finished")
        await refused("POST", f"/play/{table}/rematch", {"rematch": True}, None, 403, "bad_token")
        _finish(client.server.app[HUB], table, seed=6)
        await refused("POST", rematch, {"rematch": True}, "made-up-token", 403, "bad_token")
        await refused("POST", "/api/tables/nope/rematch", {"rematch": True}, token, 404, "unknown_table")
        await refused("POST", rematch, {"rematch": 1}, token, 400, "bad_request")
        await refused("POST", rematch, {}, token, 400, "bad_request")
        await refused("POST", rematch, b"[true]", token, 400, "malformed_json")
        await refused("GET", f"/play/{table}/rematch/go", None, None, 403, "bad_token")
        state = await (await client.get(rematch, headers=bearer(token))).json()
        assert state["votes"] == [None, None] and state["new_table"] is None


def test_votes_are_stored_and_survive_a_restart(tmp_path: Path) -> None:
    """A vote is kept in the database: a server restarted before everyone opted in still counts it."""
    from biblios_kit.net.rematch import seat_ready, vote
    from biblios_kit.net.store import Store
    from biblios_kit.net.tables import TableHub

    def link(table: str, token: str) -> str:
        return f"/play/{table}?token={token}"

    hub = TableHub(Store(tmp_path))
    invitation = hub.create("biblios", [], 2, ["human", "human"], seed=12)
    _finish(hub, invitation.table, seed=1)
    first = vote(hub, hub.table(invitation.table), 0, invitation.tokens[0], True, {}, link)
    assert first.votes == [True, None]
    hub.store.close()

    hub = TableHub(Store(tmp_path))  # restarted
    hub.load()
    table = hub.table(invitation.table)
    last = vote(hub, table, 1, invitation.tokens[1], True, {}, link)
    assert last.votes == [True, True] and last.new_table is not None
    mine = seat_ready(hub, last, 0, invitation.tokens[0], link)
    assert mine is not None and hub.table(last.new_table).seat_of(mine["token"]) == 1
    assert seat_ready(hub, last, 0, invitation.tokens[1], link) is None  # another seat's token makes nothing
    hub.store.close()
