"""Clocks and absent players: the stand-in bot for a timed-out, absent or voted-out seat, and the seat's return."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient
from net_helpers import ADMIN, bearer, create, running_server

from biblios_kit.net.protocol import validate


async def _next(ws: Any, kind: str, test: Any = None, limit: float = 15) -> dict[str, Any]:
    """The next message of type ``kind`` on ``ws`` (that passes ``test``, if given); others are skipped."""
    async with asyncio.timeout(limit):
        while True:
            message: dict[str, Any] = json.loads((await ws.receive()).data)
            if message["type"] == kind and (test is None or test(message)):
                return message


def _event(kind: str, seat: int) -> Any:
    return lambda m: m["event"]["kind"] == kind and m["event"]["seat"] == seat


async def _view(client: TestClient[Any, Any], table: str, token: str) -> dict[str, Any]:
    view: dict[str, Any] = await (await client.get(f"/api/tables/{table}", headers=bearer(token))).json()
    return view


async def _join(client: TestClient[Any, Any], table: str, token: str | None) -> Any:
    ws = await client.ws_connect(f"/api/tables/{table}/ws")
    await ws.send_json({"type": "hello", "token": token, "table_info": True})
    return ws


async def test_bad_clock_settings_are_refused_with_a_reason(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        for fields in ({"move_seconds": -1}, {"game_seconds": "60"}, {"absent_seconds": True},
                       {"move_seconds": 10**9}, {"stand_in": "human"}, {"stand_in": "grandmaster"},
                       {"stand_in": ""}):  # fmt: skip
            response = await client.post("/api/tables", json={"players": 2, **fields}, headers=bearer(ADMIN))
            reply = await response.json()
            assert response.status == 400 and reply["error"]["code"] == "bad_settings", (fields, reply)
        reply = await create(client, players=2, move_seconds=30, absent_seconds=120, stand_in="easy")
        validate(reply, "table_created")
        settings = reply["settings"]
        assert (settings["move_seconds"], settings["game_seconds"], settings["absent_seconds"]) == (30, 0, 120)
        assert settings["stand_in"] == "easy"
        changed = await client.post(f"/api/tables/{reply['table']}/settings", json={"game_seconds": -5},
                                    headers=bearer(ADMIN))  # fmt: skip
        assert changed.status == 400 and (await changed.json())["error"]["code"] == "bad_settings"


async def test_a_timed_out_seat_is_played_by_the_stand_in_until_its_person_comes_back(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, players=2, seats=["human", "easy"], seed=5, bot_delay=0.2, move_seconds=0.3,
                             stand_in="easy")  # fmt: skip
        table, token = reply["table"], reply["seats"][0]["token"]
        ws = await _join(client, table, token)
        out = await _next(ws, "table_event", _event("time_out", 0))
        validate(out, "table_event")
        assert out["event"]["clock"] == "move"
        taken = await _next(ws, "table_event", _event("stand_in", 0))
        assert taken["event"]["reason"] == "move_time" and taken["event"]["bot"] == "easy"
        clock = await _next(ws, "clock", lambda m: m["stand_in"][0] == "move_time")
        validate(clock, "clock")
        # The stand-in plays the seat: the game goes past a turn of seat 0 without its person.
        played = await _next(ws, "view", lambda m: m["version"] > taken["event"]["version"]
                             and any(e["player"] == 0 for e in m["events"]))  # fmt: skip
        assert played["seat"] == 0
        # The person asks for the seat back (with a longer clock, to have time to play).
        await client.post(f"/api/tables/{table}/settings", json={"move_seconds": 60}, headers=bearer(ADMIN))
        back = await client.post(f"/api/tables/{table}/back", headers=bearer(token))
        assert back.status == 200 and await back.json() == {"type": "back", "seat": 0}
        await _next(ws, "table_event", _event("back", 0))
        again = await client.post(f"/api/tables/{table}/back", headers=bearer(token))
        assert again.status == 409 and (await again.json())["error"]["code"] == "no_stand_in"
        async with asyncio.timeout(15):
            while (view := await _view(client, table, token))["observation"]["current_player"] != 0:
                await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)  # the stand-in no longer plays: the turn waits for the person
        assert (await _view(client, table, token))["version"] == view["version"]
        legal = view["observation"]["legal_actions"][0]
        accepted = await client.post(f"/api/tables/{table}/actions", json={"action": legal, "version": view["version"]},
                                     headers=bearer(token))  # fmt: skip
        assert accepted.status == 200, await accepted.json()
        await ws.close()


async def test_an_absent_seat_gets_the_stand_in_and_its_person_gets_it_back_on_return(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, players=2, seed=8, bot_delay=0.3, absent_seconds=0.2, stand_in="easy")
        table = reply["table"]
        other = await _join(client, table, reply["seats"][1]["token"])
        taken = await _next(other, "table_event", _event("stand_in", 0))
        assert taken["event"]["reason"] == "absent"
        person = await _join(client, table, reply["seats"][0]["token"])
        back = await _next(other, "table_event", _event("back", 0))
        assert back["event"]["version"] >= taken["event"]["version"]
        # The person who joins sees the past events too, in order.
        seen = [(await _next(person, "table_event"))["event"]["kind"] for _ in range(2)]
        assert seen == ["stand_in", "back"]
        clock = await _next(person, "clock", lambda m: m["stand_in"] == [None, None])
        assert clock["bot"] == "easy"
        for ws in (other, person):
            await ws.close()


async def test_a_majority_of_the_others_hands_an_absent_seat_to_the_stand_in(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, players=3, seed=2, bot_delay=5)
        table = reply["table"]
        tokens = [seat["token"] for seat in reply["seats"]]
        first = await _join(client, table, tokens[1])
        await _join(client, table, tokens[2])
        await first.send_json({"type": "stand_in_vote", "seat": 2})
        refused = await _next(first, "error")
        assert refused["code"] == "not_absent"
        await first.send_json({"type": "stand_in_vote", "seat": 0})
        vote = await _next(first, "vote")
        validate(vote, "vote")
        assert (vote["votes"], vote["needed"], vote["passed"]) == (1, 2, False)
        await first.send_json({"type": "stand_in_vote", "seat": 0})  # the same seat twice counts once
        assert (await _next(first, "vote"))["votes"] == 1
        second = await client.post(f"/api/tables/{table}/stand-in", json={"seat": 0}, headers=bearer(tokens[2]))
        assert await second.json() == {"type": "vote", "seat": 0, "votes": 2, "needed": 2, "passed": True}
        await _next(first, "table_event", _event("vote_passed", 0))
        taken = await _next(first, "table_event", _event("stand_in", 0))
        assert taken["event"]["reason"] == "vote" and taken["event"]["bot"] == "medium"
        watcher = await client.post(f"/api/tables/{table}/stand-in", json={"seat": 0})
        assert watcher.status == 401
        spectator = await _join(client, table, None)
        for message in ({"type": "back"}, {"type": "stand_in_vote", "seat": 0}):
            await spectator.send_json(message)
            assert (await _next(spectator, "error"))["code"] == "spectator"
        await spectator.close()
        await _join(client, table, tokens[0])
        await _next(first, "table_event", _event("back", 0))
        events = [event["kind"] for event in _saved(tmp_path, table)["events"]]
        assert events == ["vote", "vote", "vote", "vote_passed", "stand_in", "back"]


def _saved(data_dir: Path, table: str) -> dict[str, Any]:
    saved: dict[str, Any] = json.loads((data_dir / "records" / f"{table}.events.json").read_text(encoding="utf-8"))
    return saved


async def test_a_game_played_out_by_stand_ins_keeps_its_events_beside_the_record(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, players=2, seed=11, bot_delay=0, absent_seconds=0.1, stand_in="random")
        table = reply["table"]
        async with asyncio.timeout(60):
            while not (tmp_path / "records" / f"{table}.json").exists():
                await asyncio.sleep(0.1)
        record = await (await client.get(f"/api/tables/{table}/record")).json()
        saved = _saved(tmp_path, table)
        assert {(e["kind"], e["seat"], e.get("reason")) for e in saved["events"]} == {
            ("stand_in", 0, "absent"), ("stand_in", 1, "absent")}  # fmt: skip
        assert saved["stand_in"] == ["absent", "absent"] and len(record["actions"]) > 20


async def test_the_game_clock_is_kept_across_a_restart(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, players=2, seats=["human", "easy"], seed=4, bot_delay=0.1, game_seconds=1.0,
                             stand_in="random")  # fmt: skip
        table, token = reply["table"], reply["seats"][0]["token"]
        ws = await _join(client, table, token)
        clock = await _next(ws, "clock", lambda m: m["game_left"] is not None)
        assert 0 < clock["game_left"][0] <= 1 and clock["game_left"][1] == 1
        await asyncio.sleep(0.2)
        await ws.close()
    left = _saved(tmp_path, table)["game_left"][0]
    async with running_server(tmp_path) as client:
        ws = await _join(client, table, token)
        clock = await _next(ws, "clock")
        if clock["to_move"] == 0:
            assert clock["game_left"][0] <= left + 0.05  # (shown to a tenth of a second)
        out = await _next(ws, "table_event", _event("time_out", 0))
        assert out["event"]["clock"] == "game"
        taken = await _next(ws, "table_event", _event("stand_in", 0))
        assert taken["event"]["reason"] == "game_time"
        refused = await client.post(f"/api/tables/{table}/back", headers=bearer(token))
        assert refused.status == 409 and (await refused.json())["error"]["code"] == "out_of_time"
        await ws.close()


async def test_a_stand_in_still_plays_after_a_restart_until_its_person_returns(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, players=2, seed=3, bot_delay=2, absent_seconds=0.1, stand_in="easy")
        table = reply["table"]
        other = await _join(client, table, reply["seats"][1]["token"])
        await _next(other, "table_event", _event("stand_in", 0))
        await other.close()
    assert _saved(tmp_path, table)["stand_in"][0] == "absent"
    async with running_server(tmp_path) as client:
        person = await _join(client, table, reply["seats"][0]["token"])
        seen = [(await _next(person, "table_event"))["event"]["kind"] for _ in range(3)]
        assert seen[0] == "stand_in" and "back" in seen[1:]  # the stand-in was back after the restart, then left
        clock = await _next(person, "clock", lambda m: m["stand_in"][0] is None)
        assert clock["stand_in"][1] in (None, "absent")
        await person.close()
