"""The game server's API against a real server on 127.0.0.1: creating, viewing, acting, WebSocket, errors, persistence."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from net_helpers import ADMIN, bearer, create, running_server

from biblios_kit.engine.records import load_record, replay
from biblios_kit.net.protocol import validate


async def _view(client: Any, table: str, token: str | None) -> dict[str, Any]:
    response = await client.get(f"/api/tables/{table}", headers=bearer(token))
    assert response.status == 200
    view: dict[str, Any] = await response.json()
    validate(view, "view")
    return view


async def test_create_view_act_flow(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "random", "human"], names=["Ana", "Bot", "Chloé"], seed=5)
        validate(reply, "table_created")
        table = reply["table"]
        tokens = [seat["token"] for seat in reply["seats"]]
        assert tokens[1] is None and reply["seats"][1]["link"] is None
        assert reply["seats"][0]["link"].endswith(f"/play/{table}?token={tokens[0]}")
        assert len({tokens[0], tokens[2]}) == 2 and len(tokens[0]) >= 40

        view = await _view(client, table, tokens[0])
        assert view["seat"] == 0 and view["version"] == 0
        assert [s["name"] for s in view["seats"]] == ["Ana", "Bot", "Chloé"]
        assert view["observation"]["legal_actions"] == ["keep", "auction", "public"]
        other = await _view(client, table, tokens[2])
        assert other["observation"]["legal_actions"] == []  # not seat 2's turn
        assert other["observation"]["hand"] != view["observation"]["hand"] or not view["observation"]["hand"]

        response = await client.post(f"/api/tables/{table}/actions", json={"action": "keep"}, headers=bearer(tokens[0]))
        accepted = await response.json()
        assert response.status == 200, accepted
        validate(accepted, "accepted")
        assert accepted == {"type": "accepted", "actions": ["keep"], "version": 1}
        after = await _view(client, table, tokens[0])
        assert after["version"] == 1 and "keep" not in after["observation"]["legal_actions"]
        trimmed = await client.get(f"/api/tables/{table}?since={len(after['events']) - 1}", headers=bearer(tokens[0]))
        assert len((await trimmed.json())["events"]) == 1

        spectator = await _view(client, table, None)
        assert spectator["seat"] is None and spectator["observation"]["hand"] == []
        assert spectator["observation"]["legal_actions"] == []


async def test_errors_are_clear_and_change_nothing(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "human", "human"], seed=9)
        table = reply["table"]
        t0, t1 = reply["seats"][0]["token"], reply["seats"][1]["token"]

        async def error(method: str, path: str, status: int, code: str, **kwargs: Any) -> None:
            response = await client.request(method, path, **kwargs)
            body = await response.json()
            assert response.status == status, body
            validate(body, "http_error")
            assert body["error"]["code"] == code
            assert "Traceback" not in body["error"]["message"]

        actions = f"/api/tables/{table}/actions"
        await error("POST", actions, 409, "not_your_turn", json={"action": "keep"}, headers=bearer(t1))
        await error("POST", actions, 400, "invalid_action", json={"action": "dance"}, headers=bearer(t0))
        await error("POST", actions, 409, "illegal_action", json={"action": "bid 3"}, headers=bearer(t0))
        await error("POST", actions, 400, "malformed_json", data=b"{not json", headers=bearer(t0))
        await error("POST", actions, 400, "malformed_json", data=b"[1, 2]", headers=bearer(t0))
        await error("POST", actions, 400, "bad_request", json={"action": 7}, headers=bearer(t0))
        await error("POST", actions, 400, "bad_request", json={"actions": []}, headers=bearer(t0))
        await error("POST", actions, 401, "no_token", json={"action": "keep"})
        await error("POST", actions, 403, "bad_token", json={"action": "keep"}, headers=bearer("x" * 43))
        await error("POST", actions, 413, "too_large", data=b'{"action": "' + b"k" * 40_000 + b'"}', headers=bearer(t0))
        await error("GET", "/api/tables/nope", 404, "unknown_table", headers=bearer(t0))
        await error("POST", "/api/tables/nope/actions", 404, "unknown_table", json={"action": "keep"})
        await error("GET", f"/api/tables/{table}?since=-1", 400, "bad_request")
        await error("GET", f"/api/tables/{table}/record", 409, "not_finished")
        await error("GET", "/no/such/page", 404, "not_found")
        await error("POST", "/api/tables", 403, "bad_token", json={"players": 3}, headers=bearer(t0))
        await error("POST", "/api/tables", 400, "bad_ruleset", json={"ruleset": "chess"}, headers=bearer(ADMIN))
        await error("POST", "/api/tables", 400, "bad_players", json={"players": 9}, headers=bearer(ADMIN))
        await error(
            "POST", "/api/tables", 400, "bad_seats", json={"seats": ["human", "grandmaster"]}, headers=bearer(ADMIN)
        )
        # A payment of three actions where the second is not legal: none is applied.
        await error("POST", actions, 409, "illegal_action", json={"actions": ["keep", "keep"]}, headers=bearer(t0))
        view = await _view(client, table, t0)
        assert view["version"] == 0  # nothing above changed the game


async def test_websocket_pushes_views_to_every_seat(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "human", "human"], seed=2)
        table = reply["table"]
        tokens = [seat["token"] for seat in reply["seats"]]
        sockets = [await client.ws_connect(f"/api/tables/{table}/ws") for _ in range(4)]
        for ws, token in zip(sockets, [*tokens, None]):
            await ws.send_json({"type": "hello", "token": token})
        first = [json.loads((await ws.receive()).data) for ws in sockets]
        for seat, view in enumerate(first):
            validate(view, "view")
            assert view["seat"] == (seat if seat < 3 else None)
        await sockets[0].send_json({"type": "action", "action": "public"})
        for index, ws in enumerate(sockets):
            message = json.loads((await asyncio.wait_for(ws.receive(), 5)).data)
            assert message["type"] == "view" and message["version"] == 1
            assert message["first_event"] == len(first[index]["events"])  # only the new events
        # The reply comes after the views the action caused: the actor already sees the new version.
        reply = json.loads((await asyncio.wait_for(sockets[0].receive(), 5)).data)
        assert reply == {"type": "accepted", "actions": ["public"], "version": 1}
        await sockets[1].send_json({"type": "action", "action": "keep"})
        error = json.loads((await sockets[1].receive()).data)
        validate(error, "error")
        assert error["code"] == "not_your_turn"
        await sockets[1].send_str("{oops")
        assert json.loads((await sockets[1].receive()).data)["code"] == "malformed_json"
        await sockets[3].send_json({"type": "action", "action": "keep"})
        assert json.loads((await sockets[3].receive()).data)["code"] == "spectator"
        await sockets[2].send_json({"type": "ping"})
        assert json.loads((await sockets[2].receive()).data) == {"type": "pong"}
        for ws in sockets:
            await ws.close()


async def test_websocket_hello_must_carry_a_seat_token(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        table = (await create(client))["table"]
        ws = await client.ws_connect(f"/api/tables/{table}/ws")
        await ws.send_json({"type": "hello", "token": "wrong"})
        assert json.loads((await ws.receive()).data)["code"] == "bad_token"
        assert (await ws.receive()).type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        ws = await client.ws_connect(f"/api/tables/{table}/ws")
        await ws.send_str("not json")
        assert json.loads((await ws.receive()).data)["code"] == "malformed_json"


async def test_websocket_oversized_and_flooding_clients_are_dropped(tmp_path: Path) -> None:
    async with running_server(tmp_path, ws_rate=5, ws_burst=5) as client:
        reply = await create(client, seats=["human", "human", "human"])
        table, token = reply["table"], reply["seats"][0]["token"]
        ws = await client.ws_connect(f"/api/tables/{table}/ws")
        await ws.send_json({"type": "hello", "token": token})
        await ws.receive()
        await ws.send_str(json.dumps({"type": "ping", "pad": "x" * 20_000}))
        message = await ws.receive()
        assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        assert message.data == aiohttp.WSCloseCode.MESSAGE_TOO_BIG

        ws = await client.ws_connect(f"/api/tables/{table}/ws")
        await ws.send_json({"type": "hello", "token": token})
        await ws.receive()
        codes = []
        for _ in range(200):
            await ws.send_json({"type": "ping"})
        while True:
            message = await asyncio.wait_for(ws.receive(), 5)
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            codes.append(json.loads(message.data).get("code"))
        assert "rate_limited" in codes  # slowed first
        assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)  # then dropped
        # The server is still fine.
        assert (await client.get(f"/api/tables/{table}")).status == 200


async def test_http_flooding_is_slowed(tmp_path: Path) -> None:
    async with running_server(tmp_path, http_rate=1, http_burst=5) as client:
        table = (await create(client))["table"]
        statuses = [(await client.get(f"/api/tables/{table}")).status for _ in range(12)]
        assert statuses.count(429) >= 5 and statuses[0] == 200


async def test_bots_play_on_the_server_and_the_record_replays(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["random", "easy", "random"], seed=4)
        table = reply["table"]
        for _ in range(600):
            view = await _view(client, table, None)
            if view["result"] is not None:
                break
            await asyncio.sleep(0.02)
        assert view["result"] is not None, "the bots did not finish their game"
        record = await (await client.get(f"/api/tables/{table}/record")).json()
        assert len(record["actions"]) == view["version"]
    path = tmp_path / "records" / f"{table}.json"
    state = replay(load_record(path))
    assert state.is_terminal() and list(state.result().winners) == view["result"]["winners"]


async def test_a_restarted_server_resumes_every_table(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "human", "human"], seed=11)
        table, token = reply["table"], reply["seats"][0]["token"]
        for action in ("keep", "auction"):
            response = await client.post(f"/api/tables/{table}/actions", json={"action": action}, headers=bearer(token))
            assert response.status == 200
        before = await _view(client, table, token)
    async with running_server(tmp_path) as client:
        after = await _view(client, table, token)
        assert after["version"] == 2
        assert after["observation"] == before["observation"]
        assert after["events"] == before["events"]
        other = (await _view(client, table, reply["seats"][1]["token"]))["seat"]
        assert other == 1  # the tokens still work


@pytest.mark.parametrize(
    ("headers", "status", "code"),
    [
        ({"Host": "evil.example:8765"}, 421, "bad_host"),  # DNS rebinding: a foreign name for this address
        ({"Origin": "http://evil.example"}, 403, "bad_origin"),  # another site's page
        ({"Origin": "null"}, 403, "bad_origin"),
        ({"Host": "127.0.0.1:1", "Origin": "http://127.0.0.1:2"}, 403, "bad_origin"),
    ],
)
async def test_host_and_origin_checks(tmp_path: Path, headers: dict[str, str], status: int, code: str) -> None:
    async with running_server(tmp_path) as client:
        table = (await create(client))["table"]
        response = await client.get(f"/api/tables/{table}", headers=headers)
        assert response.status == status
        assert (await response.json())["error"]["code"] == code
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await client.ws_connect(f"/api/tables/{table}/ws", headers=headers)
        assert refused.value.status == status


async def test_same_origin_and_allowed_names_pass(tmp_path: Path) -> None:
    async with running_server(tmp_path, allowed_hosts=("biblios.example",)) as client:
        table = (await create(client))["table"]
        host = f"127.0.0.1:{client.port}"
        ok = await client.get(f"/api/tables/{table}", headers={"Origin": f"http://{host}"})
        assert ok.status == 200
        named = await client.get(f"/api/tables/{table}", headers={"Host": "biblios.example"})
        assert named.status == 200


async def test_a_listener_too_slow_to_read_is_dropped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from biblios_kit.net import tables
    from biblios_kit.net.store import Store
    from biblios_kit.net.tables import TableHub

    monkeypatch.setattr(tables, "QUEUE_LIMIT", 20)
    QUEUE_LIMIT = 20
    hub = TableHub(Store(tmp_path))
    invitation = hub.create("biblios", [], 4, ["human"] * 4, seed=1, bot_delay=0)
    table = hub.table(invitation.table)
    slow = hub.listen(table, 0)  # never read
    fast = hub.listen(table, 1)
    played = 0
    while slow in table.listeners:
        seat = table.state.current_player
        assert seat is not None
        hub.act(table, seat, [table.view(seat, 10**6)["observation"]["legal_actions"][0]])
        while not fast.queue.empty():
            fast.queue.get_nowait()
        played += 1
        assert played <= QUEUE_LIMIT + 1
    assert fast in table.listeners
    assert slow.queue.qsize() == QUEUE_LIMIT and None in [slow.queue.get_nowait() for _ in range(QUEUE_LIMIT)]
    hub.store.close()


async def test_names_must_be_printable(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        response = await client.post("/api/tables", json={"players": 2, "names": ["Ana\nBeto"]}, headers=bearer(ADMIN))
        assert response.status == 400 and (await response.json())["error"]["code"] == "bad_names"


async def test_the_api_client_waits_and_sends_again_when_slowed(tmp_path: Path) -> None:
    """A 429 is not an error for the project's own client: it pauses and sends the request again."""
    from biblios_kit.net.client import ApiClient

    async with running_server(tmp_path, http_rate=4, http_burst=2) as client:
        reply = await create(client)
        server = str(client.make_url("")).rstrip("/")
        async with ApiClient(server, reply["seats"][0]["token"]) as api:
            views = [await api.view(reply["table"]) for _ in range(8)]
        assert all(view["table"] == reply["table"] for view in views)
        raw = [
            (await client.get(f"/api/tables/{reply['table']}", headers=bearer(reply["seats"][0]["token"]))).status
            for _ in range(6)
        ]
        assert 429 in raw  # the same pace without waiting is refused


async def test_made_up_tokens_are_limited_by_address_and_a_real_seat_keeps_its_own_budget(tmp_path: Path) -> None:
    """A token is a rate-limit key only once verified: a new made-up token per request is still one address."""
    import secrets

    async with running_server(tmp_path, http_rate=1, http_burst=5) as client:
        reply = await create(client, seats=["human", "human", "human"])  # the admin's budget, not the address's
        table, token = reply["table"], reply["seats"][0]["token"]
        statuses = []
        for _ in range(12):
            made_up = bearer(secrets.token_urlsafe(32))
            statuses.append((await client.get(f"/api/tables/{table}", headers=made_up)).status)
        assert statuses[0] == 403 and statuses.count(429) >= 5, statuses
        wrong_admin = await client.post("/api/tables", json={}, headers=bearer(secrets.token_urlsafe(32)))
        assert wrong_admin.status == 429  # the same address, whatever it pretends
        # A verified seat token is its own key: the flood from its address does not lock it out.
        assert (await client.get(f"/api/tables/{table}", headers=bearer(token))).status == 200


async def test_a_replayed_action_is_refused_with_the_current_view(tmp_path: Path) -> None:
    """``version`` makes an action idempotent: sent again after a lost reply, it is refused, never played twice."""
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "human", "human"], seed=3)
        table, t0 = reply["table"], reply["seats"][0]["token"]
        actions = f"/api/tables/{table}/actions"
        first = await client.post(actions, json={"action": "auction", "version": 0}, headers=bearer(t0))
        assert first.status == 200 and (await first.json())["version"] == 1
        again = await client.post(actions, json={"action": "auction", "version": 0}, headers=bearer(t0))
        body = await again.json()
        assert again.status == 409, body
        validate(body, "http_error")
        assert body["error"]["code"] == "stale_version"
        validate(body["view"], "view")
        assert body["view"]["version"] == 1 and body["view"]["seat"] == 0
        assert [e["kind"] for e in body["view"]["events"]].count("to_auction_pile") == 1
        # A version from the future is refused too; the right one is played.
        ahead = await client.post(actions, json={"action": "keep", "version": 5}, headers=bearer(t0))
        assert ahead.status == 409 and (await ahead.json())["error"]["code"] == "stale_version"
        view = await _view(client, table, t0)
        assert view["version"] == 1

        # The WebSocket takes the same field.
        current = view["observation"]["current_player"]
        token = reply["seats"][current]["token"]
        ws = await client.ws_connect(f"/api/tables/{table}/ws")
        await ws.send_json({"type": "hello", "token": token, "since": 10**6})
        assert json.loads((await ws.receive()).data)["type"] == "view"
        choice = (
            view["observation"]["legal_actions"] or (await _view(client, table, token))["observation"]["legal_actions"]
        )
        for _ in range(2):
            await ws.send_json({"type": "action", "action": choice[0], "version": 1})
        answers: list[dict[str, Any]] = []
        while len([a for a in answers if a["type"] != "view"]) < 2:
            answers.append(json.loads((await asyncio.wait_for(ws.receive(), 5)).data))
        replies = [a for a in answers if a["type"] != "view"]
        assert replies[0]["type"] == "accepted" and replies[0]["version"] == 2
        assert replies[1]["code"] == "stale_version"
        validate(replies[1], "error")
        assert replies[1]["view"]["version"] == 2
        await ws.close()
        # Without "version" an action is still played (third-party clients of protocol 1 keep working).
        view = await _view(client, table, None)
        seat = view["observation"]["current_player"]
        legal = (await _view(client, table, reply["seats"][seat]["token"]))["observation"]["legal_actions"]
        plain = await client.post(actions, json={"action": legal[0]}, headers=bearer(reply["seats"][seat]["token"]))
        assert plain.status == 200
    rows = _stored_actions(tmp_path, table)
    assert len(rows) == 3 and rows[0] == "auction"  # each accepted action stored once


def _stored_actions(data_dir: Path, table: str) -> list[str]:
    import sqlite3

    with contextlib.closing(sqlite3.connect(data_dir / "tables.sqlite3")) as db:
        return [
            text for (text,) in db.execute("SELECT action FROM actions WHERE table_id = ? ORDER BY number", (table,))
        ]


async def test_the_api_client_sends_the_version_so_a_resend_cannot_play_twice(tmp_path: Path) -> None:
    from biblios_kit.net.client import ApiClient, ApiError

    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "human", "human"], seed=3)
        server = str(client.make_url("")).rstrip("/")
        async with ApiClient(server, reply["seats"][0]["token"]) as api:
            view = await api.view(reply["table"])
            accepted = await api.act(reply["table"], "public", version=view["version"])
            assert accepted["version"] == 1
            with pytest.raises(ApiError) as refused:
                await api.act(reply["table"], "public", version=view["version"])
            assert refused.value.code == "stale_version" and refused.value.status == 409


def _random_play(hub: Any, table: Any, rng: Any, steps: int) -> None:
    """Play ``steps`` random legal actions at ``table`` through the hub (a payment paid card by card)."""
    from biblios_kit.engine.actions import format_action

    for _ in range(steps):
        state = table.state
        if state.is_terminal():
            return
        action = rng.choice(state.legal_actions())
        hub.act(table, state.current_player, [format_action(state.ruleset, action)], table.version)


def test_assembled_view_texts_are_the_views_of_the_whole_log(tmp_path: Path) -> None:
    """The incremental, pre-serialized views say exactly what the engine's whole-log views say, at every version."""
    import random

    from biblios_kit.engine.observation import observe_full
    from biblios_kit.net.protocol import event_text, event_to_json, observation_to_json
    from biblios_kit.net.store import Store
    from biblios_kit.net.tables import TableHub
    from biblios_kit.net.views import SPECTATOR, legal_texts

    hub = TableHub(Store(tmp_path))
    table = hub.table(hub.create("biblios", [], 4, ["human"] * 4, seed=3).table)
    state = table.state
    rng = random.Random(3)
    sent = dict.fromkeys((0, 1, 2, 3, SPECTATOR), 0)  # events each reader already has, as a listener's
    while not table.finished:
        _random_play(hub, table, rng, rng.randint(1, 7))
        assert table.state is state  # changed in place: the engine's observations stay incremental
        logs = [state.events_for(p) for p in range(4)]
        public = [
            event_to_json(
                e if e.card is None or all(log[i].card is not None for log in logs) else e._replace(card=None)
            )
            for i, e in enumerate(logs[0])
        ]
        for seat in sent:
            text, count = table.view_text(seat, sent[seat])
            message = json.loads(text)
            assert message == table.view(seat, sent[seat])
            validate(message, "view")
            whole = public if seat == SPECTATOR else [event_to_json(e) for e in logs[seat]]
            assert [json.loads(event_text(e)) for e in logs[seat % 4]] == [event_to_json(e) for e in logs[seat % 4]]
            assert message["first_event"] == sent[seat] and message["events"] == whole[sent[seat] :]
            assert count == len(whole)
            sent[seat] = count
            if seat != SPECTATOR:
                assert message["observation"] == observation_to_json(
                    observe_full(state, seat), legal_texts(state, seat)
                )
    assert json.loads(table.view_text(0)[0])["result"] == table.view(0)["result"] is not None


def test_the_engine_keeps_the_observations_of_every_seat_of_every_table(tmp_path: Path) -> None:
    """With hundreds of tables, each seat's observation still reads only the new events (the engine's cache holds them)."""
    from biblios_kit.engine import observation
    from biblios_kit.net.store import Store
    from biblios_kit.net.tables import TableHub

    hub = TableHub(Store(tmp_path))
    for seed in range(120):
        hub.create("biblios", [], 4, ["human"] * 4, seed=seed)
    assert observation._SCANS_LIMIT >= 120 * 4
    for table in hub.tables.values():
        for seat in range(4):
            table.view(seat)
    assert len(observation._SCANS) >= 120 * 4  # none evicted before its next use


def test_open_tables_are_counted_as_they_finish(tmp_path: Path) -> None:
    """The limit on open tables counts games not over: a finished one frees its place."""
    import random

    from biblios_kit.net.store import Store
    from biblios_kit.net.tables import Rejected, TableHub

    hub = TableHub(Store(tmp_path), max_tables=2)
    first = hub.table(hub.create("biblios", [], 2, ["human"] * 2, seed=1).table)
    hub.create("biblios", [], 2, ["human"] * 2, seed=2)
    with pytest.raises(Rejected) as refused:
        hub.create("biblios", [], 2, ["human"] * 2, seed=3)
    assert refused.value.status == 503 and refused.value.code == "too_many_tables"
    _random_play(hub, first, random.Random(1), 10_000)
    assert first.finished and hub.playing == 1
    hub.create("biblios", [], 2, ["human"] * 2, seed=3)
    assert TableHub(Store(tmp_path), max_tables=2).load() == 3


def test_client_messages_within_bounds_parse_and_others_are_refused_located() -> None:
    """The fast path for small client messages accepts exactly what the bounded parser accepts."""
    from biblios_kit.net.protocol import MAX_JSON_DEPTH, ProtocolError, parse_json_object

    assert parse_json_object('{"type": "action", "action": "bid 3", "version": 12}')["version"] == 12
    assert parse_json_object(b'{"t": [[["\\u00e9"]]]}') == {"t": [[["é"]]]}
    deep = '{"a":' + "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH + "}"
    for text, reason in [
        (deep, "nesting"),
        ('{"version": ' + "9" * 41 + "}", "digits"),
        ('{"a": 1,}', "line 1"),
        ("[1]", "object"),
    ]:
        with pytest.raises(ProtocolError, match=reason):
            parse_json_object(text)
