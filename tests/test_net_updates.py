"""Update messages (only what changed since the connection's last view) and the server's frame writer."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from net_helpers import create, running_server

from biblios_kit.net.protocol import ProtocolError, validate
from biblios_kit.net.store import Store
from biblios_kit.net.tables import Listener, Table, TableHub
from biblios_kit.net.views import SPECTATOR


def _apply(view: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """What a client does with an update: the changed fields over the view it holds (events appended)."""
    assert update["base"] == view["version"]
    return {**view, "version": update["version"], "observation": {**view["observation"], **update["observation"]},
            "events": view["events"] + update["events"], "result": update.get("result", view["result"])}  # fmt: skip


def _messages(listener: Listener) -> list[dict[str, Any]]:
    found = []
    while not listener.queue.empty():
        text = listener.queue.get_nowait()
        assert text is not None
        found.append(json.loads(text))
    return found


def _play(hub: TableHub, table: Table, rng: random.Random) -> None:
    """One request: a random legal action, or a whole payment (several actions, one new version) when paying."""
    from biblios_kit.engine.actions import format_action
    from biblios_kit.engine.state import Phase

    state = table.state
    seat = state.current_player
    assert seat is not None
    trial = state.clone()
    texts = []
    while trial.current_player == seat and not trial.is_terminal():
        action = rng.choice(trial.legal_actions())
        texts.append(format_action(state.ruleset, action))
        trial.apply(action)
        if state.phase is not Phase.PAYMENT:
            break
    hub.act(table, seat, texts, table.version)


@pytest.mark.parametrize("ruleset", ["biblios", "scripts-and-scribes"])
def test_updates_make_exactly_the_whole_views(tmp_path: Path, ruleset: str) -> None:
    """Every seat and a spectator, following a whole game by updates, hold the whole view of every version."""
    hub = TableHub(Store(tmp_path))
    table = hub.table(hub.create(ruleset, [], 4, ["human"] * 4, seed=5).table)
    rng = random.Random(5)
    readers = (0, 1, 2, 3, SPECTATOR)
    listeners = {seat: hub.listen(table, seat, updates=True) for seat in readers}
    held = {seat: _messages(listeners[seat])[0] for seat in readers}
    assert all(view["type"] == "view" for view in held.values())
    late: Listener | None = None
    jumps = 0
    while not table.finished:
        before = table.version
        _play(hub, table, rng)
        jumps += table.version > before + 1
        for seat in readers:
            (update,) = _messages(listeners[seat])
            assert update["type"] == "update" and update["base"] == before and update["version"] == table.version
            assert update["first_event"] == len(held[seat]["events"])
            validate(update, "update")
            held[seat] = _apply(held[seat], update)
            whole = table.view(seat)
            assert held[seat]["observation"] == whole["observation"]
            assert held[seat]["events"] == whole["events"] and held[seat]["result"] == whole["result"]
        if late is None and table.version >= 40:  # a connection opened mid-game: a whole view, then updates
            late = hub.listen(table, 2, updates=True)
            assert [m["type"] for m in _messages(late)] == ["view"]
        elif late is not None:
            assert [m["type"] for m in _messages(late)] == ["update"]
    assert jumps > 0  # payments of several cards: one update over several versions
    assert held[0]["result"] is not None
    hub.store.close()


def test_an_update_is_only_made_from_the_version_the_views_were_built_at(tmp_path: Path) -> None:
    hub = TableHub(Store(tmp_path))
    table = hub.table(hub.create("biblios", [], 3, ["human"] * 3, seed=1).table)
    whole_views = hub.listen(table, 0)  # a client that did not ask for updates gets whole views, as before
    hub.listen(table, 1, updates=True)
    rng = random.Random(1)
    for _ in range(3):
        _play(hub, table, rng)
    assert table.update_text(1, table.version - 1, 0) is not None
    assert table.update_text(1, table.version - 2, 0) is None  # a connection that missed a version: a whole view
    assert table.update_text(2, table.version - 1, 0) is None  # no view of that version was built for seat 2
    assert [m["type"] for m in _messages(whole_views)] == ["view"] * 4
    hub.store.close()


async def test_a_websocket_asks_for_updates_in_its_hello(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "human", "human"], seed=2)
        table, tokens = reply["table"], [seat["token"] for seat in reply["seats"]]
        ws = await client.ws_connect(f"/api/tables/{table}/ws")
        await ws.send_json({"type": "hello", "token": tokens[0], "updates": True})
        view = json.loads((await ws.receive()).data)
        assert view["type"] == "view"
        await ws.send_json({"type": "action", "action": "public", "version": 0})
        update = json.loads((await asyncio.wait_for(ws.receive(), 5)).data)
        validate(update, "update")
        assert (update["type"], update["base"], update["version"]) == ("update", 0, 1)
        response = await client.get(f"/api/tables/{table}", headers={"Authorization": f"Bearer {tokens[0]}"})
        whole = (await response.json())["observation"]
        assert {**view["observation"], **update["observation"]} == whole
        assert update["observation"] and all(view["observation"][k] != v for k, v in update["observation"].items())
        assert json.loads((await asyncio.wait_for(ws.receive(), 5)).data)["type"] == "accepted"

        bad = await client.ws_connect(f"/api/tables/{table}/ws")
        await bad.send_json({"type": "hello", "token": tokens[1], "updates": "yes"})
        assert json.loads((await bad.receive()).data)["code"] == "bad_request"
        assert (await bad.receive()).type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)


def test_the_project_client_applies_updates_and_starts_again_on_a_gap() -> None:
    from biblios_kit.net.client import ApiError, SeatConnection

    seen: list[dict[str, Any]] = []
    connection = SeatConnection("http://127.0.0.1:1", "t", None, seen.append)
    view = {"type": "view", "version": 4, "observation": {"phase": "gift", "hand": [1, 2]}, "first_event": 0,
            "events": [{"kind": "dealt"}], "result": None}  # fmt: skip
    update = {"type": "update", "version": 5, "base": 4, "observation": {"phase": "bidding"}, "first_event": 1,
              "events": [{"kind": "bid"}]}  # fmt: skip
    asyncio.run(connection._receive(json.dumps(view)))
    asyncio.run(connection._receive(json.dumps(update)))
    assert seen[1]["observation"] == {"phase": "bidding", "hand": [1, 2]} and seen[1]["version"] == 5
    assert seen[1]["events"] == [{"kind": "bid"}] and connection.events == 2
    with pytest.raises(ProtocolError):  # an update to a version it does not hold: reconnect for a whole view
        asyncio.run(connection._receive(json.dumps({**update, "base": 9, "version": 10})))
    with pytest.raises(ApiError):
        asyncio.run(connection._receive(json.dumps({**update, "observation": [1]})))
    assert len(seen) == 2


class _Transport:
    def __init__(self, buffered: int = 0) -> None:
        self.written = b""
        self.buffered = buffered

    def is_closing(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def write(self, data: bytes) -> None:
        self.written += data


class _Socket:
    closed = False


class _Request:
    def __init__(self, transport: _Transport) -> None:
        self.transport = transport


@pytest.mark.parametrize(("size", "header"), [(5, b"\x81\x05"), (200, b"\x81\x7e\x00\xc8"),
                                              (70_000, b"\x81\x7f" + (70_000).to_bytes(8, "big"))])  # fmt: skip
def test_the_frame_writer_writes_whole_text_frames(size: int, header: bytes) -> None:
    from biblios_kit.net.frames import FrameWriter

    transport = _Transport()
    write = FrameWriter.of(_Socket(), _Request(transport))  # type: ignore[arg-type]
    assert write is not None
    text = "é" + "x" * (size - 2)  # two bytes in UTF-8
    assert write(text)
    assert transport.written == header + text.encode()


def test_the_frame_writer_refuses_a_client_that_does_not_read() -> None:
    from biblios_kit.net.frames import WRITE_BUFFER_LIMIT, FrameWriter

    transport = _Transport(buffered=WRITE_BUFFER_LIMIT + 1)
    write = FrameWriter.of(_Socket(), _Request(transport))  # type: ignore[arg-type]
    assert write is not None and not write("{}") and transport.written == b""


def test_held_frames_leave_in_one_write_in_order() -> None:
    from biblios_kit.net.frames import FrameWriter

    class Counting(_Transport):
        writes = 0

        def write(self, data: bytes) -> None:
            self.writes += 1
            super().write(data)

    transport = Counting()
    write = FrameWriter.of(_Socket(), _Request(transport))  # type: ignore[arg-type]
    assert write is not None
    write.hold()
    assert write('{"type":"update"}') and write('{"type":"accepted"}')
    assert transport.writes == 0  # held
    write.release()
    assert transport.writes == 1
    assert transport.written == b"\x81\x11" + b'{"type":"update"}' + b"\x81\x13" + b'{"type":"accepted"}'
    write.release()  # nothing held: nothing written
    assert write("{}") and transport.writes == 2  # at once again
