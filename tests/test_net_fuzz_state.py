"""A hypothesis state machine drives the game server with random valid and invalid messages from every seat.

Each example starts a server (in-process, on 127.0.0.1) with one table of people, a WebSocket
open for every seat and one for a spectator, then runs random rules: legal actions over HTTP or
the WebSocket (with the view's ``version`` or without), whole payments in one request, the same
request sent again, stale and future versions, out-of-turn actions, made-up action texts (digits
of other scripts included), made-up tokens, raw garbage and deep JSON, payment questions, pings,
and reconnections with good and bad hello messages.

After every step it checks what the server promises (docs/network.md):

* no answer is a 500, a traceback or a dropped WebSocket (every WebSocket message gets a reply);
* every action answered 2xx is in the table's history exactly once, in order, in memory and in
  the SQLite store, and nothing else is there;
* the version grows by one per accepted action and by nothing else, and a request that named a
  version was accepted only at that version;
* a request sent again with the version it was accepted at is refused (``stale_version``) with
  the current view;
* the views a socket receives have increasing versions.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from conftest import SHIPPED_CHOICES
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from net_helpers import ADMIN, bearer, create, running_server

from biblios_kit.engine.actions import format_action
from biblios_kit.net.server import HUB
from biblios_kit.net.tables import Table

pytestmark = pytest.mark.slow

DEEP_HTTP = "[" * 5000 + "]" * 5000
DEEP_WS = "[" * 4000 + "]" * 4000

REFUSALS = {
    "invalid_action",
    "illegal_action",
    "not_your_turn",
    "bad_request",
    "malformed_json",
    "game_over",
    "stale_version",
    "spectator",
    "bad_token",
    "no_token",
}
"""The codes a request of this machine may be refused with (anything else fails the test)."""

made_up_actions = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["keep", "auction", "public", "pass", "refuse", "church decline", "church", "bid", "pay 1 2"]),
    st.builds(
        "{} {}".format,
        st.sampled_from(["pick", "pay", "bid"]),
        st.one_of(
            st.integers(min_value=-5, max_value=300).map(str),
            st.text(alphabet="0123456789\u00b2\u00b9\u2070\u0661\u0663\u096a\uff13", min_size=1, max_size=4),
        ),
    ),
    st.builds(
        "church {}{}".format,
        st.sampled_from(["monks", "pigments", "scrolls", "manuscripts", "forbidden", "MONKS", "x"]),
        st.sampled_from(["+1", "-1", "+2", "", "+\u00b9"]),
    ),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | st.floats() | made_up_actions,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["type", "action", "actions", "version", "pay", "token", "since", "seed", "players"]),
            inner,
            max_size=4,
        )
    ),
    max_leaves=10,
)
message_types = st.sampled_from(["action", "payment_options", "ping", "hello", "view", None])
raw_messages = st.one_of(
    st.builds(
        lambda kind, body: json.dumps({"type": kind, **body} if isinstance(body, dict) else body),
        message_types,
        json_values,
    ),
    json_values.map(json.dumps),
    st.binary(max_size=80).map(lambda raw: raw.decode("utf-8", "replace")),
    st.sampled_from(
        [
            '{"type": "action", "action": "keep", "version": 1e400}',
            '{"type": "action", "version": NaN, "action": "keep"}',
            '{"type": "action", "action": "keep", "version": ' + "9" * 39 + "}",
            '{"type": "action", "action": "keep", "version": ' + "9" * 41 + "}",
            '{"type": "action", "actions": ["keep", "keep"], "version": 0}',
            '{"type": "ping"',
            "",
        ]
    ),
)


class ServerMachine(RuleBasedStateMachine):
    """One server, one table of people, and a model of what it accepted."""

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.folder = Path(tempfile.mkdtemp(prefix="biblios-state-"))
        self.server: contextlib.AbstractAsyncContextManager[Any] | None = None
        self.client: Any = None
        self.table = ""
        self.players = 0
        self.tokens: list[str | None] = []
        """Seat tokens, then ``None`` for the spectator's socket."""
        self.sockets: list[aiohttp.ClientWebSocketResponse] = []
        self.seen: list[int] = []
        """The latest view version each socket received."""
        self.accepted: list[str] = []
        """Every action answered 2xx, in order: the model of the table's history."""
        self.last: tuple[str, int, dict[str, Any]] | None = None
        """The last accepted request that named its version: (how, seat, body)."""

    # ------------------------------------------------------------------ plumbing

    def run(self, work: Any) -> Any:
        return self.loop.run_until_complete(asyncio.wait_for(work, 30))

    def teardown(self) -> None:
        try:
            for ws in self.sockets:
                self.run(ws.close())
            if self.server is not None:
                self.run(self.server.__aexit__(None, None, None))
        finally:
            self.loop.close()
            shutil.rmtree(self.folder, ignore_errors=True)

    async def _http(self, method: str, path: str, token: str | None, data: str | bytes | None = None,
                    body: object = None) -> tuple[int, dict[str, Any]]:  # fmt: skip
        kwargs: dict[str, Any] = {"json": body} if body is not None else {"data": data}
        response = await self.client.request(method, path, headers=bearer(token), **kwargs)
        text = await response.text()
        assert response.status < 500, (method, path, response.status, text)
        assert "Traceback" not in text
        reply = json.loads(text)
        if response.status >= 400:
            assert set(reply) <= {"error", "view"}, reply
        return response.status, reply

    def http(self, method: str, path: str, token: str | None, data: str | bytes | None = None,
             body: object = None) -> tuple[int, dict[str, Any]]:  # fmt: skip
        result: tuple[int, dict[str, Any]] = self.run(self._http(method, path, token, data, body))
        return result

    async def _next(self, index: int) -> dict[str, Any]:
        """The next message of socket ``index`` that is not a view (checking the views on the way)."""
        ws = self.sockets[index]
        while True:
            message = await asyncio.wait_for(ws.receive(), 10)
            assert message.type == aiohttp.WSMsgType.TEXT, f"socket {index} was dropped: {message}"
            data: dict[str, Any] = json.loads(message.data)
            if data["type"] != "view":
                return data
            assert data["version"] > self.seen[index], (data["version"], self.seen[index])
            self.seen[index] = data["version"]

    def ws(self, index: int, message: str) -> dict[str, Any]:
        """Send ``message`` on socket ``index``; its reply (every message gets exactly one)."""
        self.run(self.sockets[index].send_str(message))
        reply: dict[str, Any] = self.run(self._next(index))
        assert reply["type"] in ("accepted", "error", "pong", "payment_options"), reply
        if reply["type"] == "error":
            assert reply["code"] in REFUSALS, reply
        return reply

    async def _connect(self, token: str | None, since: object = 0) -> tuple[aiohttp.ClientWebSocketResponse, Any]:
        ws = await self.client.ws_connect(f"/api/tables/{self.table}/ws")
        await ws.send_json({"type": "hello", "token": token, "since": since})
        first = await asyncio.wait_for(ws.receive(), 10)
        return ws, first

    def act(self, how: str, seat: int, body: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """Send an action request from ``seat`` over ``how``; returns ("accepted", reply) or (code, view)."""
        if how == "http":
            status, reply = self.http("POST", f"/api/tables/{self.table}/actions", self.tokens[seat], body=body)
            if status == 200:
                self.note(reply, body)
                return "accepted", reply
            code = reply["error"]["code"]
            assert code in REFUSALS, reply
            assert status == (409 if code in ("stale_version", "not_your_turn", "illegal_action", "game_over")
                              else 400 if code != "bad_token" else 403), (status, reply)  # fmt: skip
            return code, reply.get("view")
        reply = self.ws(seat, json.dumps({"type": "action", **body}))
        if reply["type"] == "accepted":
            self.note(reply, body)
            return "accepted", reply
        return reply["code"], reply.get("view")

    def note(self, reply: dict[str, Any], body: object) -> None:
        """An accepted reply: its actions go to the model; the version grew by exactly their number."""
        assert reply["type"] == "accepted" and reply["actions"], reply
        before = len(self.accepted)
        assert reply["version"] == before + len(reply["actions"]), (reply, before)
        if isinstance(body, dict) and "version" in body:
            assert body["version"] == before, (body, before)  # accepted only at the version it named
        self.accepted.extend(reply["actions"])

    def current(self) -> tuple[int | None, list[str], int]:
        """(seat to play or ``None``, their legal actions, version), through the API."""
        _status, public = self.http("GET", f"/api/tables/{self.table}", None)
        seat = public["observation"]["current_player"]
        if seat is None or public["result"] is not None:
            return None, [], public["version"]
        _status, view = self.http("GET", f"/api/tables/{self.table}?since=1000000", self.tokens[seat])
        return seat, view["observation"]["legal_actions"], view["version"]

    @property
    def hub_table(self) -> Table:
        table: Table = self.client.server.app[HUB].tables[self.table]
        return table

    # ------------------------------------------------------------------ rules

    @initialize(choice=st.sampled_from(SHIPPED_CHOICES), count=st.integers(0, 9),
                seed=st.integers(min_value=0, max_value=2**63 - 1),
                warm_up=st.sampled_from([0, 0, 40, 120, 100_000]))  # fmt: skip
    def start(self, choice: tuple[str, tuple[str, ...]], count: int, seed: int, warm_up: int) -> None:
        """The server, a table of people, a socket per seat and one for a spectator; ``warm_up`` actions
        are played first through the hub, as the server's bots play (100,000: to the end of the game)."""
        from biblios_kit.rules import load_ruleset

        counts = load_ruleset(*choice).player_counts
        self.players = counts[count % len(counts)]
        self.server = running_server(self.folder, http_rate=1e9, http_burst=1e9, ws_rate=1e9, ws_burst=1e9)
        self.client = self.run(self.server.__aenter__())
        reply = self.run(create(self.client, ruleset=choice[0], options=list(choice[1]), players=self.players,
                                seats=["human"] * self.players, seed=seed))  # fmt: skip
        self.table = reply["table"]
        self.tokens = [seat["token"] for seat in reply["seats"]] + [None]
        table = self.hub_table
        hub = self.client.server.app[HUB]
        rng = random.Random(seed)
        while len(self.accepted) < warm_up and not table.finished:
            seat = table.state.current_player
            assert seat is not None
            self.accepted += hub.act(table, seat, [rng.choice(table.view(seat, 10**6)["observation"]["legal_actions"])])
        for token in self.tokens:
            ws, first = self.run(self._connect(token))
            assert first.type == aiohttp.WSMsgType.TEXT and json.loads(first.data)["version"] == len(self.accepted)
            self.sockets.append(ws)
            self.seen.append(len(self.accepted))

    @precondition(lambda self: self.table)
    @rule(
        plays=st.lists(
            st.tuples(st.integers(0, 10**6), st.sampled_from(["http", "ws"]), st.booleans(), st.booleans()),
            min_size=1,
            max_size=12,
        )
    )
    def play_legal_actions(self, plays: list[tuple[int, str, bool, bool]]) -> None:
        """Legal actions, one request each, over HTTP or the WebSocket, with the version or without
        (a list of one action, or during a payment, now and then the whole payment in one request)."""
        for pick, how, versioned, as_list in plays:
            seat, legal, version = self.current()
            if seat is None:
                return
            if as_list and pick % 2 and self.hub_table.state.phase.name == "PAYMENT":
                self._pay(seat, legal, version, [pick // 3**n for n in range(1, 9)], how)
                continue
            text = legal[pick % len(legal)]
            body: dict[str, Any] = {"actions": [text]} if as_list else {"action": text}
            if versioned:
                body["version"] = version
            outcome, _reply = self.act(how, seat, body)
            assert outcome == "accepted", (outcome, body)
            if versioned:
                self.last = (how, seat, body)

    @precondition(lambda self: self.table)
    @rule(picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=8), how=st.sampled_from(["http", "ws"]))
    def pay_in_one_request(self, picks: list[int], how: str) -> None:
        """A payment, card by card, asking the server for the options after each card; sent all at once."""
        seat, legal, version = self.current()
        if seat is None or self.hub_table.state.phase.name != "PAYMENT":
            return
        self._pay(seat, legal, version, picks, how)

    def _pay(self, seat: int, legal: list[str], version: int, picks: list[int], how: str) -> None:
        chosen = [legal[picks[0] % len(legal)]]
        for pick in picks[1:]:
            body = {"pay": chosen}
            if how == "http":
                status, reply = self.http("POST", f"/api/tables/{self.table}/payment-options", self.tokens[seat],
                                          body=body)  # fmt: skip
                assert status == 200, reply
            else:
                reply = self.ws(seat, json.dumps({"type": "payment_options", **body}))
                assert reply["type"] == "payment_options", reply
            if not reply["options"]:
                break
            chosen.append(reply["options"][pick % len(reply["options"])])
        outcome, _reply = self.act(how, seat, {"actions": chosen, "version": version})
        assert outcome == "accepted", (outcome, chosen)
        self.last = (how, seat, {"actions": chosen, "version": version})

    @precondition(lambda self: self.last is not None)
    @rule(how=st.sampled_from(["same", "http", "ws"]))
    def send_the_last_request_again(self, how: str) -> None:
        """A client that lost the reply sends again: refused, with the view showing where the game is."""
        assert self.last is not None
        first_how, seat, body = self.last
        outcome, view = self.act(first_how if how == "same" else how, seat, body)
        assert outcome == "stale_version", outcome
        assert view is not None and view["version"] == len(self.accepted) and view["seat"] == seat

    @precondition(lambda self: self.table)
    @rule(
        offset=st.integers(-3, 5).filter(lambda n: n != 0),
        pick=st.integers(0, 100),
        how=st.sampled_from(["http", "ws"]),
    )
    def send_a_stale_or_future_version(self, offset: int, pick: int, how: str) -> None:
        seat, legal, version = self.current()
        seat = 0 if seat is None else seat
        text = legal[pick % len(legal)] if legal else "keep"
        outcome, view = self.act(how, seat, {"action": text, "version": version + offset})
        if version + offset < 0:
            assert outcome == "bad_request"
        else:
            assert outcome == "stale_version" and view is not None and view["version"] == version

    @precondition(lambda self: self.table)
    @rule(shift=st.integers(1, 3), how=st.sampled_from(["http", "ws"]), versioned=st.booleans())
    def play_out_of_turn(self, shift: int, how: str, versioned: bool) -> None:
        seat, legal, version = self.current()
        if seat is None:
            return
        other = (seat + shift) % self.players
        if other == seat:
            return
        body: dict[str, Any] = {"action": legal[0]}
        if versioned:
            body["version"] = version
        outcome, _view = self.act(how, other, body)
        assert outcome == "not_your_turn", outcome

    @precondition(lambda self: self.table)
    @rule(text=made_up_actions, seat=st.integers(0, 7), how=st.sampled_from(["http", "ws"]),
          versioned=st.sampled_from([None, "current", "stale"]))  # fmt: skip
    def send_a_made_up_action(self, text: str, seat: int, how: str, versioned: str | None) -> None:
        """Anything may happen (a made-up text may be legal) except a 500; an accepted one is noted."""
        current, _legal, version = self.current()
        seat = seat % self.players if seat < self.players or current is None else current
        body: dict[str, Any] = {"action": text}
        if versioned is not None:
            body["version"] = version if versioned == "current" else version + 1
        self.act(how, seat, body)

    @precondition(lambda self: self.table)
    @rule(message=raw_messages, index=st.integers(0, 8))
    def send_garbage_on_a_socket(self, message: str, index: int) -> None:
        index %= len(self.sockets)
        reply = self.ws(index, message)
        if reply["type"] == "accepted":
            self.note(reply, json.loads(message))

    @precondition(lambda self: self.table)
    @rule(message=raw_messages, path=st.sampled_from(["actions", "payment-options", "", "/api/tables"]),
          who=st.integers(0, 9))  # fmt: skip
    def post_garbage(self, message: str, path: str, who: int) -> None:
        token = ADMIN if who == 9 else self.tokens[who] if who < self.players else f"made-up-{who}"
        url = path if path.startswith("/") else f"/api/tables/{self.table}/{path}".rstrip("/")
        status, reply = self.http("POST" if path else "GET", url, token, data=message.encode())
        if status == 200 and path == "actions":
            self.note(reply, json.loads(message))

    @precondition(lambda self: self.table)
    @rule(how=st.sampled_from(["http", "ws"]), path=st.sampled_from(["actions", "payment-options"]))
    def send_deep_json(self, how: str, path: str) -> None:
        if how == "http":
            status, reply = self.http("POST", f"/api/tables/{self.table}/{path}", self.tokens[0], data=DEEP_HTTP)
            assert (status, reply["error"]["code"]) == (400, "malformed_json")
        else:
            assert self.ws(0, DEEP_WS)["code"] == "malformed_json"

    @precondition(lambda self: self.table)
    @rule(token=st.text(min_size=1, max_size=60).filter(lambda t: t.isprintable() and t.strip()),
          how=st.sampled_from(["view", "act", "socket"]))  # fmt: skip
    def use_a_made_up_token(self, token: str, how: str) -> None:
        token = token.strip()
        if how == "socket":
            ws, first = self.run(self._connect(token))
            assert first.type == aiohttp.WSMsgType.TEXT and json.loads(first.data)["code"] == "bad_token"
            self.run(ws.close())
            return
        method, path = ("GET", "") if how == "view" else ("POST", "/actions")
        try:
            status, reply = self.http(method, f"/api/tables/{self.table}{path}", token, body={"action": "keep"})
        except ValueError:
            return  # a header the client library refuses to send
        assert status == 403 and reply["error"]["code"] == "bad_token", reply

    @precondition(lambda self: self.table)
    @rule(
        index=st.integers(0, 8), since=st.one_of(st.integers(0, 10**9), st.sampled_from([-1, True, 1.5, "3", 10**12]))
    )
    def reconnect(self, index: int, since: object) -> None:
        """A seat's socket closes and opens again (a bad hello is refused with a message, then a good one)."""
        index %= len(self.sockets)
        self.run(self.sockets[index].close())
        ws, first = self.run(self._connect(self.tokens[index], since))
        assert first.type == aiohttp.WSMsgType.TEXT
        data = json.loads(first.data)
        if isinstance(since, int) and not isinstance(since, bool) and 0 <= since < 10**9:
            assert data["type"] == "view" and data["version"] == len(self.accepted)
        else:
            assert data["code"] == "bad_request", data
            self.run(ws.close())
            ws, first = self.run(self._connect(self.tokens[index]))
            data = json.loads(first.data)
        self.sockets[index] = ws
        self.seen[index] = data["version"]

    @precondition(lambda self: self.table)
    @rule(index=st.integers(0, 8))
    def ping(self, index: int) -> None:
        assert self.ws(index % len(self.sockets), '{"type": "ping"}') == {"type": "pong"}

    # ------------------------------------------------------------------ invariants

    @invariant()
    def the_history_is_every_accepted_action_once(self) -> None:
        if not self.table:
            return
        table = self.hub_table
        assert table.version == len(self.accepted)
        rules = table.state.ruleset
        assert [format_action(rules, action) for action in table.state.actions] == self.accepted
        with contextlib.closing(sqlite3.connect(self.folder / "tables.sqlite3")) as db:
            rows = db.execute("SELECT number, action FROM actions WHERE table_id = ? ORDER BY number", (self.table,))
            stored = list(rows)
        assert stored == list(enumerate(self.accepted))


def test_the_server_never_fails_and_never_loses_an_accepted_action() -> None:
    run_state_machine_as_test(
        ServerMachine,
        settings=settings(
            max_examples=20,
            stateful_step_count=30,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )
