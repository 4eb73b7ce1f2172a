"""Tables in PostgreSQL (``host --db``): the store's contract on both backends, and several server processes on one database.

The server is a real PostgreSQL started for the session from the machine's binaries
(``pg_cluster.py``: as the ``postgres`` user when the tests run as root); pytest-postgresql's
``postgresql_noproc`` points at it, and its ``postgresql`` fixture gives each test a new
database (made from a template, dropped after the test, its connections ended first).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import random
import sqlite3
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import aiohttp
import psycopg
import pytest
from net_helpers import HostProcess, bearer, create, running_server
from pg_cluster import binary, cluster
from pytest_postgresql import factories

from biblios_kit.engine.records import from_json, replay
from biblios_kit.engine.state import new_game
from biblios_kit.net.client import ApiClient
from biblios_kit.net.open_store import open_store
from biblios_kit.net.pg_store import PgStore
from biblios_kit.net.server import HUB
from biblios_kit.net.storage import SharedStorage, VersionConflict, redacted
from biblios_kit.net.store import RematchRecord, Store, StoredTable, TableExists
from biblios_kit.net.tables import TAKEOVER_SECONDS, Listener, Rejected, Table, TableHub
from biblios_kit.net.views import SPECTATOR
from biblios_kit.rules import load_ruleset

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def pg_server() -> Iterator[SimpleNamespace]:
    """A PostgreSQL server for the session, described as pytest-postgresql's fixtures expect.

    Without the server's binaries the tests are skipped, except under CI (``.ci/run`` installs them).
    """
    if binary("initdb") is None and not os.environ.get("CI"):
        pytest.skip("PostgreSQL's server binaries (initdb, pg_ctl) are not installed")
    with cluster() as server:
        yield SimpleNamespace(host="127.0.0.1", port=server.port, user="postgres", password=None, options="",
                              maintenance_dbname="postgres", template_dbname=None)  # fmt: skip


pg_noproc = factories.postgresql_noproc(dbname="biblios_test", depends_on="pg_server")
pg_database = factories.postgresql("pg_noproc")


@pytest.fixture
def db_url(pg_database: psycopg.Connection[Any], pg_noproc: Any) -> str:
    """The URL of this test's own new database."""
    return f"postgresql://postgres@127.0.0.1:{pg_noproc.port}/{pg_database.info.dbname}"


def _stored(table_id: str = "t1", seed: int = 7) -> StoredTable:
    return StoredTable(table_id, "biblios", (), 3, seed, ("human", "human", "easy"), ("Ana", "Élise", ""),
                       ("a" * 64, "b" * 64, ""), 0.0, False, ())  # fmt: skip


class Processes:
    """Two hubs on one database, as two server processes, each with its own data folder.

    ``bots``: each has a thread for its bots. ``running``: each also runs its clocks and follows the
    other's changes, as ``host --db`` does; otherwise a test asks for what it needs (:meth:`follow`).
    :meth:`end` stops one (a process that dies); :func:`run_two_processes` ends both after the test,
    whatever happened.
    """

    def __init__(self, db_url: str, tmp_path: Path, *, bots: bool = False, running: bool = False) -> None:
        self.hubs = [TableHub(PgStore(db_url, tmp_path / name), ThreadPoolExecutor(1) if bots or running else None)
                     for name in ("a", "b")]  # fmt: skip
        self.following: dict[int, asyncio.Task[None]] = {}
        self.ended: set[int] = set()
        if running:
            for index, hub in enumerate(self.hubs):
                hub.start()
                self.follow(index)

    def follow(self, index: int) -> None:
        """Hub ``index`` hears the other's changes from now on."""
        self.following[index] = asyncio.create_task(self.hubs[index].follow())

    async def end(self, index: int) -> None:
        """Hub ``index`` stops following, stops its timers and bots, and closes its database connections."""
        task = self.following.pop(index, None)
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if index not in self.ended:
            self.ended.add(index)
            hub = self.hubs[index]
            await hub.stop()
            assert hub.shared is not None
            await hub.shared.aclose()
            hub.store.close()


def run_two_processes(db_url: str, tmp_path: Path, scenario: Callable[[Processes], Awaitable[None]], *,
                      bots: bool = False, running: bool = False) -> None:  # fmt: skip
    """Run ``scenario`` with two :class:`Processes`, ended afterwards."""

    async def main() -> None:
        processes = Processes(db_url, tmp_path, bots=bots, running=running)
        try:
            await scenario(processes)
        finally:
            for index in range(len(processes.hubs)):
                await processes.end(index)

    asyncio.run(main())


# ---------------------------------------------------------------------- the store's contract, both backends


@pytest.fixture(params=["sqlite", "postgresql"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store | PgStore]:
    url = request.getfixturevalue("db_url") if request.param == "postgresql" else None
    store = open_store(tmp_path, db=url)
    assert isinstance(store, Store | PgStore)
    yield store
    store.close()


def test_store_contract(any_store: Store | PgStore) -> None:
    store = any_store
    store.create(_stored("t1", seed=2**63 - 1))
    store.create(_stored("t2"))
    store.append("t1", 0, ["auction"])
    store.append("t1", 1, ["public", "keep C1"], finished=True)
    duplicate = VersionConflict if isinstance(store, PgStore) else sqlite3.IntegrityError
    with pytest.raises(duplicate):  # a number already stored is refused, and nothing of the batch is written
        store.append("t1", 2, ["pass", "pass"])
    loaded = {table.id: table for table in store.load_all()}
    assert list(loaded) == ["t1", "t2"]  # oldest first
    assert loaded["t1"] == StoredTable(**{**_stored("t1", 2**63 - 1).__dict__, "finished": True,
                                          "actions": ("auction", "public", "keep C1")})  # fmt: skip
    assert loaded["t2"] == _stored("t2")
    assert store.record_path("t1") == store.records_dir / "t1.json"
    assert isinstance(store, SharedStorage) == (type(store) is PgStore)


def test_store_contract_of_links_settings_and_closing(any_store: Store | PgStore) -> None:
    store = any_store
    store.create(_stored("t1"))
    store.create(_stored("t2"))
    store.set_token_digests("t1", ["c" * 64, "b" * 64, ""])
    store.set_settings("t1", {"hints": "on", "spectators": False})
    store.close_table("t2")
    (loaded,) = store.load_all()  # a closed table is kept but no longer loaded
    assert loaded.id == "t1" and loaded.token_digests == ("c" * 64, "b" * 64, "")
    assert loaded.settings == {"hints": "on", "spectators": False}
    store.give_seat("t1", ["c" * 64, "d" * 64, ""], ["Ana", "Zoé", ""])  # a visitor took seat 2, with a name
    (loaded,) = store.load_all()
    assert loaded.token_digests == ("c" * 64, "d" * 64, "") and loaded.names == ("Ana", "Zoé", "")


def test_links_settings_and_closing_reach_the_other_processes(db_url: str, tmp_path: Path) -> None:
    """A link issued again, new settings, new names or a closed table on one process: the other follows at once."""
    from biblios_kit.net.lobby import change_settings, close, reissue

    async def scenario(processes: Processes) -> None:
        hubs = processes.hubs
        processes.follow(1)
        invitation = hubs[0].create("biblios", [], 3, ["human"] * 3, seed=5)
        mine, theirs = hubs[0].table(invitation.table), hubs[1].table(invitation.table)
        old = invitation.tokens[0]
        assert theirs.seat_of(old) == 0
        new = reissue(hubs[0], mine, 0)
        await _until(lambda: theirs.seat_of(old) is None)
        assert theirs.seat_of(new) == 0
        change_settings(hubs[0], mine, {"spectators": False, "open": True})
        await _until(lambda: not theirs.settings.spectators)
        on_b = hubs[1].listen(theirs, 0)
        hubs[0].store.give_seat(mine.id, mine.token_digests, ("Ana", "Zoé", ""))  # as a lobby visitor's seat does
        await _until(lambda: theirs.names == ("Ana", "Zoé", ""))  # b's seats see the names at once
        seen: list[dict[str, Any]] = []
        await _until(lambda: any(m["type"] == "view" and m["seats"][1]["name"] == "Zoé" for m in _drain(on_b, seen)))
        close(hubs[0], mine)
        await _until(lambda: invitation.table not in hubs[1].tables)
        with pytest.raises(Rejected):
            hubs[1].table(invitation.table)  # not read again from the database either

    run_two_processes(db_url, tmp_path, scenario)


def test_postgres_store_checks_versions_and_announces_commits(db_url: str, tmp_path: Path) -> None:
    async def scenario() -> None:
        one, two = PgStore(db_url, tmp_path), PgStore(db_url, tmp_path)
        one.create(_stored("t1"))
        heard: list[tuple[str, int] | None] = []
        changes = two.changes()
        heard.append(await anext(changes))  # listening (None: compare versions now)
        await one.commit("t1", 0, ["auction", "public"])
        with pytest.raises(VersionConflict):
            await two.commit("t1", 0, ["public"])  # two thought the table was still at version 0
        with pytest.raises(VersionConflict):
            await two.commit("t1", 3, ["public"])  # nor may a process skip a version
        await two.commit("t1", 2, ["pass"], finished=True)
        heard.append(await asyncio.wait_for(anext(changes), 5))
        heard.append(await asyncio.wait_for(anext(changes), 5))
        assert heard == [None, ("t1", 2), ("t1", 3)]
        assert await one.actions_since("t1", 1) == ["public", "pass"]
        assert two.load("t1") is not None and two.load("t1").actions == ("auction", "public", "pass")  # type: ignore[union-attr]
        assert two.load("nope") is None
        assert await one.versions() == {}  # t1 is finished
        await changes.aclose()
        for store in (one, two):
            await store.aclose()
            store.close()

    asyncio.run(scenario())


def test_concurrent_commits_of_one_version_exactly_one_wins(db_url: str, tmp_path: Path) -> None:
    async def scenario() -> None:
        stores = [PgStore(db_url, tmp_path) for _ in range(2)]
        for number in range(20):
            stores[0].create(_stored(f"t{number}"))
        outcomes = await asyncio.gather(
            *(
                store.commit(f"t{number}", 0, [text])
                for number in range(20)
                for store, text in zip(stores, ["auction", "public"])
            ),
            return_exceptions=True,
        )
        for number in range(20):
            pair = outcomes[2 * number : 2 * number + 2]
            assert sum(outcome is None for outcome in pair) == 1, pair
            assert sum(isinstance(outcome, VersionConflict) for outcome in pair) == 1, pair
            winner = ["auction", "public"][pair.index(None)]
            assert await stores[1].actions_since(f"t{number}", 0) == [winner]
        for store in stores:
            await store.aclose()
            store.close()

    asyncio.run(scenario())


def test_two_hubs_double_commit_one_is_stale_and_catches_up(db_url: str, tmp_path: Path) -> None:
    """Two server processes (two hubs here) accept the same version: one wins, the other answers 409 with the new view."""

    async def scenario(processes: Processes) -> None:
        hubs = processes.hubs
        invitation = hubs[0].create("biblios", [], 3, ["human"] * 3, seed=5)
        tables = [hub.table(invitation.table) for hub in hubs]  # the second reads it from the database
        assert tables[1].version == 0 and tables[1].seat_of(invitation.tokens[0]) == 0
        legal = tables[0].view(0)["observation"]["legal_actions"]
        results = await asyncio.gather(
            *(hub.submit(table, 0, [legal[0]], 0) for hub, table in zip(hubs, tables)), return_exceptions=True
        )
        accepted = [r for r in results if isinstance(r, list)]
        refused = [r for r in results if isinstance(r, Rejected)]
        assert len(accepted) == 1 and len(refused) == 1, results
        assert refused[0].code == "stale_version" and refused[0].view is not None
        assert refused[0].view["version"] == 1  # the loser caught up with the winner's action
        assert [table.version for table in tables] == [1, 1]
        assert tables[0].view(1, 0)["events"] == tables[1].view(1, 0)["events"]

    run_two_processes(db_url, tmp_path, scenario)


def test_a_commit_whose_notification_never_came_is_seen_at_the_next_comparison(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that died between its commit and its NOTIFY: the others compare versions now and then."""
    from biblios_kit.net import pg_store

    monkeypatch.setattr(pg_store, "RESYNC_SECONDS", 0.2)

    async def scenario(processes: Processes) -> None:
        hubs = processes.hubs
        invitation = hubs[0].create("biblios", [], 3, ["human"] * 3, seed=5)
        tables = [hub.table(invitation.table) for hub in hubs]
        processes.follow(1)
        text = tables[0].view(0)["observation"]["legal_actions"][0]
        with psycopg.connect(db_url, autocommit=True) as db:  # the commit alone, as the dead process left it
            db.execute(pg_store.COMMIT, pg_store._commit_parameters(invitation.table, 0, [text], False))
        deadline = time.monotonic() + 5
        while tables[1].version == 0 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert tables[1].version == 1

    run_two_processes(db_url, tmp_path, scenario)


def test_lost_database_connections_are_opened_again(db_url: str, tmp_path: Path) -> None:
    """Every connection of both servers cut (a database restart, a failover): creating, acting and following go on."""

    async def scenario(processes: Processes) -> None:
        hubs = processes.hubs
        invitation = hubs[0].create("biblios", [], 3, ["human"] * 3, seed=5)
        tables = [hub.table(invitation.table) for hub in hubs]
        processes.follow(1)
        await hubs[0].submit(tables[0], 0, [tables[0].view(0)["observation"]["legal_actions"][0]], 0)
        await _until(lambda: tables[1].version == 1)
        with psycopg.connect(db_url, autocommit=True) as db:
            cut = db.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                             " WHERE datname = current_database() AND pid <> pg_backend_pid()").fetchone()  # fmt: skip
        assert cut is not None and cut[0] >= 4  # each hub's blocking connection, a's commit one, b's listener
        another = hubs[0].create("biblios", [], 3, ["human"] * 3, seed=6)  # the blocking connection, opened again
        assert hubs[1].table(another.table).version == 0  # b's too
        seat = tables[0].state.current_player
        assert seat is not None
        legal = tables[0].view(seat)["observation"]["legal_actions"]
        await hubs[0].submit(tables[0], seat, [legal[0]], 1)  # through a new pool connection
        await _until(lambda: tables[1].version == 2)  # b listens again and catches up

    run_two_processes(db_url, tmp_path, scenario)


def test_a_bot_move_left_by_a_dead_process_is_played_by_another(db_url: str, tmp_path: Path) -> None:
    """The process that made the change plays the next bot move; when it dies first, another one takes over."""

    async def scenario(processes: Processes) -> None:
        hubs = processes.hubs
        # A bot delay, so that a's move is still waiting when a "dies" (with none, a's bot could already be
        # committing its move, which no death stops once the database has it).
        invitation = hubs[0].create("biblios", [], 3, ["human", "easy", "human"], seed=8, bot_delay=0.2)
        tables = [hub.table(invitation.table) for hub in hubs]
        processes.follow(1)
        for _ in range(200):
            seat = tables[0].state.current_player
            assert seat is not None
            if seat == 1:  # the bot: a plays it (it made the change), b follows
                version = tables[0].version
                await _until(lambda: tables[1].version > version)  # noqa: B023
                continue
            await hubs[0].submit(tables[0], seat, [tables[0].view(seat)["observation"]["legal_actions"][0]])
            if tables[0].state.current_player == 1:
                break
        version = tables[0].version
        await hubs[0].stop()  # a "dies" before its bot could play (its pending move is cancelled)
        await _until(lambda: tables[1].version == version)
        started = time.monotonic()
        await _until(lambda: tables[1].version == version + 1)  # b waited, then played the bot's move
        assert time.monotonic() - started >= TAKEOVER_SECONDS * 0.8
        with psycopg.connect(db_url) as db:
            stored = db.execute("SELECT version FROM tables WHERE id = %s", (invitation.table,)).fetchone()
        assert stored == (version + 1,)

    run_two_processes(db_url, tmp_path, scenario, bots=True)


def test_store_contract_of_rematch_votes(any_store: Store | PgStore) -> None:
    store = any_store
    store.create(_stored("t1"))
    assert store.rematch_record("t1") == RematchRecord(None, False, {})
    assert store.rematch_table("t1", "new1") == "new1"
    assert store.rematch_table("t1", "new2") == "new1"  # reserved once, by the first vote
    store.rematch_vote("t1", 0, True, "d" * 64)
    store.rematch_vote("t1", 1, True, "e" * 64)
    store.rematch_vote("t1", 1, False, "")  # a seat changes its mind
    assert store.rematch_record("t1") == RematchRecord("new1", False, {0: (True, "d" * 64), 1: (False, "")})
    store.create(replace(_stored("new1"), token_digests=("", "d" * 64, "")))
    with pytest.raises(TableExists):  # a second process making the same rematch table: refused, nothing written
        store.create(_stored("new1"))
    store.rematch_created("t1")
    assert store.rematch_record("t1").created
    assert {table.id: table.token_digests for table in store.load_all()}["new1"] == ("", "d" * 64, "")


async def _until(condition: Callable[[], bool], limit: float = 10.0) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


# ---------------------------------------------------------------------- several servers, one database


class Watcher:
    """One seat's WebSocket on one server: the views it receives, checked to continue each other."""

    def __init__(self, http: aiohttp.ClientSession, url: str, table: str, token: str) -> None:
        self.http, self.url, self.table, self.token = http, url, table, token
        self.events: list[Any] = []
        self.version = -1
        self.observation: dict[str, Any] = {}
        self.changed = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def connect(self, url: str | None = None) -> None:
        """(Re)connect, to ``url`` when given, asking for the events it has not seen."""
        self.url = url or self.url
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        with contextlib.suppress(aiohttp.ClientError):
            async with self.http.ws_connect(f"{self.url}/api/tables/{self.table}/ws") as ws:
                await ws.send_json({"type": "hello", "token": self.token, "since": len(self.events)})
                async for message in ws:
                    data = json.loads(message.data)
                    assert data["type"] == "view", data
                    assert data["first_event"] == len(self.events), (data["first_event"], len(self.events))
                    assert data["version"] >= self.version
                    self.events.extend(data["events"])
                    self.version, self.observation = data["version"], data["observation"]
                    self.changed.set()

    async def reach(self, version: int, limit: float = 10.0) -> None:
        """Wait until this seat has the view of ``version`` (or later)."""
        deadline = time.monotonic() + limit
        while self.version < version:
            assert time.monotonic() < deadline, f"seat stuck at version {self.version}, expected {version}"
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), 0.5)

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task


async def _turn(client: ApiClient, watcher: Watcher, table: str, rng: random.Random) -> list[str]:
    """Play the watcher's seat's turn (a whole payment when it pays) with the version it saw; the actions sent."""
    observation = watcher.observation
    if observation["phase"] == "payment":
        pay: list[str] = []
        while (options := await client.payment_options(table, pay)) is not None:
            pay.append(options[0])
        chosen = pay
    else:
        chosen = [rng.choice(observation["legal_actions"])]
    reply = await client.act(table, *chosen, version=watcher.version)
    return list(reply["actions"])


async def _play(watchers: list[Watcher], clients: dict[int, ApiClient], table: str, rng: random.Random,
                actions: int) -> list[str]:  # fmt: skip
    """Play the human seats' turns (bots play on the servers) until ``actions`` were sent or the game ends."""
    sent: list[str] = []
    while len(sent) < actions:
        version = max(0, *(w.version for w in watchers))
        for watcher in watchers:  # every seat gets every change, through its own server
            await watcher.reach(version)
        seat, now = watchers[0].observation["current_player"], watchers[0].version  # bots may have moved on
        if seat is None:
            break
        if seat not in clients:  # a bot's turn: one of the servers plays it
            await watchers[0].reach(now + 1)
            continue
        await watchers[seat].reach(now)  # nothing moves until that seat acts
        version = now
        sent += await _turn(clients[seat], watchers[seat], table, rng)
        for watcher in watchers:
            await watcher.reach(version + 1)
    return sent


class _Counted:
    """A bot that counts its decisions (in ``counts[number]``)."""

    def __init__(self, bot: Any, counts: list[int], number: int) -> None:
        self.bot, self.counts, self.number = bot, counts, number

    def choose(self, observation: Any) -> int:
        self.counts[self.number] += 1
        return int(self.bot.choose(observation))


def _turns_of(seat: int, db_url: str, table: str, *, seed: int, players: int) -> int:
    """How many of the stored actions of ``table`` ``seat`` played (replayed from the database)."""
    with psycopg.connect(db_url) as db:
        texts = [t for (t,) in db.execute("SELECT action FROM actions WHERE table_id = %s ORDER BY number", (table,))]
    state = new_game(load_ruleset("biblios", []), players, seed)
    turns = 0
    for text in texts:
        turns += state.current_player == seat
        state.apply_text(text)
    return turns


def test_seats_on_two_servers_see_every_change(db_url: str, tmp_path: Path) -> None:
    """Two servers on one database (in one event loop here): each seat acts and is told through its own."""

    async def scenario() -> None:
        async with (
            running_server(tmp_path / "a", db=db_url) as one,
            running_server(tmp_path / "b", db=db_url) as two,
            aiohttp.ClientSession() as http,
        ):
            reply = await create(one, players=4, seats=["human", "human", "human", "easy"], seed=3)
            table = reply["table"]
            decisions = [0, 0]  # the bot's decisions made by each server: each move is made by one only
            for number, server in enumerate((one, two)):
                hosted = server.app[HUB].table(table)
                hosted.bots[3] = _Counted(hosted.bots[3], decisions, number)  # type: ignore[assignment]
            urls = [str(server.make_url("")).rstrip("/") for server in (one, two, one)]
            watchers = [Watcher(http, urls[s], table, reply["seats"][s]["token"]) for s in range(3)]
            for watcher in watchers:
                watcher.connect()
            clients = {s: ApiClient(urls[s], reply["seats"][s]["token"]) for s in range(3)}
            try:
                sent = await _play(watchers, clients, table, random.Random(4), 40)
            finally:
                for client in clients.values():
                    await client.close()
                for watcher in watchers:
                    await watcher.close()
            assert len(sent) >= 40
            assert sum(decisions) == _turns_of(3, db_url, table, seed=3, players=4) > 0, decisions
            # Both servers hold the same game: the same public view.
            views = [await (await s.get(f"/api/tables/{table}?since=0")).json() for s in (one, two)]
            assert views[0]["version"] == views[1]["version"] == watchers[0].version
            assert views[0]["events"] == views[1]["events"] and views[0]["observation"] == views[1]["observation"]
            # The same version sent to both servers at once: exactly one accepts it.
            seat = views[0]["observation"]["current_player"]
            mine = await (await one.get(f"/api/tables/{table}", headers=bearer(reply["seats"][seat]["token"]))).json()
            action = mine["observation"]["legal_actions"][0]
            if mine["observation"]["phase"] != "payment" and seat != 3:
                body = {"action": action, "version": mine["version"]}
                headers = bearer(reply["seats"][seat]["token"])
                answers = await asyncio.gather(
                    one.post(f"/api/tables/{table}/actions", json=body, headers=headers),
                    two.post(f"/api/tables/{table}/actions", json=body, headers=headers),
                )
                assert sorted(a.status for a in answers) == [200, 409]
                stale = await next(a for a in answers if a.status == 409).json()
                assert stale["error"]["code"] == "stale_version" and stale["view"]["version"] == mine["version"] + 1

    asyncio.run(scenario())


@pytest.mark.slow
def test_killing_one_of_two_processes_the_game_goes_on(db_url: str, tmp_path: Path) -> None:
    """Two ``host --db`` processes; one is killed with SIGKILL mid-game; its seats go to the other; nothing is lost."""
    folder = tmp_path / "data"  # one data folder: one admin token, one records folder
    first = HostProcess(folder, None, "--db", db_url)
    first.wait_ready()
    second = HostProcess(folder, None, "--db", db_url)
    second.wait_ready()
    sent: list[str] = []

    async def scenario() -> str:
        async with ApiClient(first.url) as admin:
            reply = await admin.create_table(first.admin(), players=3, seats=["human", "human", "easy"], seed=11,
                                             bot_delay=0, ruleset="biblios")  # fmt: skip
        table = reply["table"]
        tokens = [s["token"] for s in reply["seats"]]
        urls = [first.url, second.url]
        async with aiohttp.ClientSession() as http:
            watchers = [Watcher(http, urls[s], table, tokens[s]) for s in range(2)]
            for watcher in watchers:
                watcher.connect()
            clients = {s: ApiClient(urls[s], tokens[s]) for s in range(2)}
            rng = random.Random(2)
            try:
                sent.extend(await _play(watchers, clients, table, rng, 30))
                first.stop(kill=True)  # SIGKILL: seat 0's connection and server are gone
                await watchers[0].close()
                await clients[0].close()
                watchers[0].connect(second.url)  # the seat reconnects to the other process
                clients[0] = ApiClient(second.url, tokens[0])
                sent.extend(await _play(watchers, clients, table, rng, 10**6))
                record = await clients[1].record(table)
            finally:
                for client in clients.values():
                    await client.close()
                for watcher in watchers:
                    await watcher.close()
        game = replay(from_json(record))  # the whole game, checked move by move
        assert game.is_terminal()
        return table

    try:
        table = asyncio.run(scenario())
    finally:
        for process in (first, second):
            if process.process.poll() is None:
                process.stop()
    with psycopg.connect(db_url) as db:
        stored = [text for (text,) in db.execute("SELECT action FROM actions WHERE table_id = %s ORDER BY number",
                                                 (table,))]  # fmt: skip
        version, finished = db.execute("SELECT version, finished FROM tables WHERE id = %s", (table,)).fetchone()  # type: ignore[misc]
    assert finished and version == len(stored)
    remaining = iter(stored)
    assert all(any(text == other for other in remaining) for text in sent)  # every accepted action, in order
    assert (folder / "records" / f"{table}.json").is_file()


# ---------------------------------------------------------------------- the command line


def _host(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "biblios_kit", "host", *args], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "BIBLIOS_LANG": "en"}, timeout=60)  # fmt: skip


def test_host_db_refuses_other_urls_and_never_prints_the_password(tmp_path: Path) -> None:
    done = _host("--data-dir", str(tmp_path), "--db", "sqlite:///x.db")
    assert done.returncode == 2 and "expected a PostgreSQL URL" in done.stderr and "Traceback" not in done.stderr
    done = _host("--data-dir", str(tmp_path), "--db", "postgresql://ana:s3cret@127.0.0.1:1/games?password=s3cret")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "cannot use the database postgresql://ana:***@127.0.0.1:1/games" in done.stderr
    assert "s3cret" not in done.stderr


def test_redacted() -> None:
    assert redacted("postgresql://ana:pw@db.example:5432/g") == "postgresql://ana:***@db.example:5432/g"
    assert (
        redacted("postgresql://ana@db/g?sslmode=require&password=pw")
        == "postgresql://ana@db/g?sslmode=require&password=***"
    )
    assert redacted("postgresql:///g") == "postgresql:///g"


def test_host_serves_from_postgres_and_says_where(db_url: str, tmp_path: Path) -> None:
    server = HostProcess(tmp_path, None, "--db", db_url)
    try:
        server.wait_ready()

        async def create_and_view() -> int:
            async with ApiClient(server.url) as admin:
                reply = await admin.create_table(server.admin(), players=2, seed=1, bot_delay=0, ruleset="biblios")
            async with ApiClient(server.url) as client:
                return int((await client.view(reply["table"]))["version"])

        assert asyncio.run(create_and_view()) == 0
    finally:
        _out, err = server.stop()
    assert f"tables in {db_url}" in err.decode()
    assert not (tmp_path / "tables.sqlite3").exists()


async def _person_against_a_bot(hubs: list[TableHub]) -> list[Table]:
    """A two-seat table (a person, then an easy bot) made on a and read by b; the person plays through a until
    the bot has moved and it is their turn again, b up to date."""
    invitation = hubs[0].create("biblios", [], 2, ["human", "easy"], seed=8, bot_delay=0.05)
    tables = [hub.table(invitation.table) for hub in hubs]
    while tables[0].version < 3 or tables[0].state.current_player != 0 or tables[1].version != tables[0].version:
        if tables[0].state.current_player == 0:
            await hubs[0].submit(tables[0], 0, [tables[0].view(0)["observation"]["legal_actions"][0]])
        await asyncio.sleep(0.05)
    return tables


def test_a_clock_lock_taken_by_two_calls_at_once_is_held_until_released(db_url: str, tmp_path: Path) -> None:
    """Two calls at once (the follower's comparison and a change's claim) hold the lock on one connection: another
    process cannot take it, even once unused connections are collected, and takes it once it is let go."""

    async def main() -> None:
        a, b = PgStore(db_url, tmp_path / "a"), PgStore(db_url, tmp_path / "b")
        try:
            assert await asyncio.gather(a.hold_clocks(["t1"]), a.hold_clocks(["t1"])) == [{"t1"}, {"t1"}]
            gc.collect()  # a connection opened by one of the calls and dropped would let its lock go here
            await asyncio.sleep(0.1)
            assert await b.hold_clocks(["t1"]) == set()
            assert await a.hold_clocks([]) == set()
            assert await b.hold_clocks(["t1"]) == {"t1"}
        finally:
            for store in (a, b):
                await store.aclose()
                store.close()

    asyncio.run(main())


def test_only_the_process_that_made_the_last_change_runs_the_clocks(db_url: str, tmp_path: Path) -> None:
    """Two processes follow a table whose move clock runs out: one takeover, by the process that made the change
    (it took the table's clock lock at once; the other finds it held)."""
    from biblios_kit.net.lobby import change_settings

    async def scenario(processes: Processes) -> None:
        hubs = processes.hubs
        tables = await _person_against_a_bot(hubs)
        on_b = hubs[1].listen(tables[1], 0, info=True)  # the person's connection is on b
        change_settings(hubs[0], tables[0], {"move_seconds": 0.3, "stand_in": "random"})
        await _until(lambda: tables[1].settings.move_seconds == 0.3)
        await _until(lambda: any(e["kind"] == "stand_in" for e in hubs[0].clocks.events(tables[0])))
        seen: list[dict[str, Any]] = []
        await _until(lambda: any(m["type"] == "table_event" and m["event"]["kind"] == "stand_in"
                                 for m in _drain(on_b, seen)))  # fmt: skip
        clocks = [m for m in seen if m["type"] == "clock"]
        # b's connection was told the clock a runs (b's own would have said none runs), then a's events.
        assert clocks and clocks[0]["running"] and 0 < clocks[0]["move_left"] <= 0.3, clocks
        assert [m["event"]["kind"] for m in seen if m["type"] == "table_event"] == ["time_out", "stand_in"]
        version = tables[0].version
        await _until(lambda: tables[1].version > version + 4)  # the stand-in and the bot play on, b follows
        kinds = [event["kind"] for event in hubs[0].clocks.events(tables[0])]
        assert kinds == ["time_out", "stand_in"], kinds
        assert 0 not in tables[1].bots  # b never took the seat over; it passed a's events on to its connections
        assert hubs[1].clocks.events(tables[1]) == hubs[0].clocks.events(tables[0])

    run_two_processes(db_url, tmp_path, scenario, running=True)


def _drain(listener: Listener, into: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Move the messages waiting in a hub listener's queue (one without a writer) into ``into``; returns ``into``."""
    while not listener.queue.empty():
        text = listener.queue.get_nowait()
        if text is not None:
            into.append(json.loads(text))
    return into


async def _finish(hub: TableHub, table: Table, seed: int) -> None:
    """Random legal actions for every person's seat (through ``hub``) until the game is over; the bots play theirs."""
    rng = random.Random(seed)
    while not table.finished:
        seat = table.state.current_player
        if seat is None or seat in table.bots:
            await asyncio.sleep(0.01)
            continue
        legal = table.view(seat)["observation"]["legal_actions"]
        await hub.submit(table, seat, [rng.choice(legal)], table.version)


def test_rematch_votes_through_two_processes_make_one_table_each_token_to_its_seat(db_url: str, tmp_path: Path) -> None:
    """Seats voting through different processes complete one rematch; each seat's connections get only its token."""
    from aiohttp import web

    from biblios_kit.net.rematch import REMATCHES, Rematch, add_rematch_routes, seat_ready, start_rematch, vote

    def link(table: str, token: str) -> str:
        return f"http://x/play/{table}?token={token}"

    async def unused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("no request in this test")

    async def scenario(processes: Processes) -> None:
        hubs = processes.hubs
        told = []
        for hub in hubs:
            app = web.Application()
            add_rematch_routes(app, hub, unused, unused, link)  # what a server does: hears the others' votes
            told.append(app[REMATCHES])
            hub.start()
        for index in range(len(hubs)):
            processes.follow(index)
        invitation = hubs[0].create("biblios", [], 3, ["human", "human", "easy"], seed=9, bot_delay=0.0)
        tables = [hub.table(invitation.table) for hub in hubs]
        await _finish(hubs[0], tables[0], seed=3)
        await _until(lambda: tables[1].finished)
        t0, t1 = invitation.tokens[0], invitation.tokens[1]
        on_a = hubs[0].listen(tables[0], 0, info=True, token=t0)  # seat 0 is connected to a
        on_b = hubs[1].listen(tables[1], 1, info=True, token=t1)  # seat 1 to b
        watcher = hubs[1].listen(tables[1], SPECTATOR, info=True)
        seen_a: list[dict[str, Any]] = []
        seen_b: list[dict[str, Any]] = []
        watched: list[dict[str, Any]] = []
        for listener, seen in ((on_a, seen_a), (on_b, seen_b), (watcher, watched)):
            _drain(listener, seen).clear()

        first = vote(hubs[0], tables[0], 0, t0, True, told[0], link)
        assert first.votes == [True, None, True] and first.new_table is None
        # b counts it, told at once (well before the comparison every 5 s)
        await _until(lambda: any(m.get("votes") == [True, None, True] for m in _drain(on_b, seen_b)), limit=2)

        last = vote(hubs[1], tables[1], 1, t1, True, told[1], link)  # the last vote, on b: b makes the table
        new = last.new_table
        assert new is not None
        await _until(lambda: any(m["type"] == "rematch_ready" for m in _drain(on_a, seen_a)), limit=2)  # a tells seat 0
        await asyncio.sleep(0.3)  # anything more that would come
        for listener, seen in ((on_a, seen_a), (on_b, seen_b), (watcher, watched)):
            _drain(listener, seen)
        ready_a = [m for m in seen_a if m["type"] == "rematch_ready"]
        ready_b = [m for m in seen_b if m["type"] == "rematch_ready"]
        assert len(ready_a) == 1 and len(ready_b) == 1, (seen_a, seen_b)
        assert ready_a[0]["seat"] == 1 and ready_b[0]["seat"] == 2 and ready_a[0]["token"] != ready_b[0]["token"]
        assert ready_a[0]["new_table"] == ready_b[0]["new_table"] == new
        assert ready_b[0]["token"] not in json.dumps(seen_a) and ready_a[0]["token"] not in json.dumps(seen_b)
        assert all(m["type"] != "rematch_ready" for m in watched) and "token" not in json.dumps(watched)
        assert any(m["type"] == "rematch" and m["new_table"] == new for m in watched)
        for hub in hubs:  # each process seats each new token where it belongs
            assert hub.table(new).seat_of(ready_a[0]["token"]) == 1
            assert hub.table(new).seat_of(ready_b[0]["token"]) == 2
            assert hub.table(new).seats == ("easy", "human", "human")
        # Another seat's old token never makes this seat's new one.
        rematch = Rematch.of(tables[0], hubs[0].store.rematch_record(tables[0].id))
        assert seat_ready(hubs[0], rematch, 1, t0, link) is None
        assert seat_ready(hubs[0], rematch, 0, t1, link) is None
        mine = seat_ready(hubs[0], rematch, 0, t0, link)
        assert mine is not None and mine["token"] == ready_a[0]["token"]  # a seat that asks again finds its place
        # A process that saw the votes complete before the table existed also tries to make it: it reads it instead.
        late = Rematch.of(tables[0], replace(hubs[0].store.rematch_record(tables[0].id), created=False))
        start_rematch(hubs[0], tables[0], late, new)
        with psycopg.connect(db_url) as db:
            assert db.execute("SELECT count(*) FROM tables").fetchone() == (2,)  # exactly one new table
        assert vote(hubs[0], tables[0], 0, t0, False, told[0], link).new_table == new  # decided: a late "no"

    run_two_processes(db_url, tmp_path, scenario, bots=True)


def test_the_clocks_of_a_dead_process_are_taken_over_by_another(db_url: str, tmp_path: Path) -> None:
    """The process that runs a table's clocks dies: another takes its clock lock, and the timed-out seat's stand-in plays."""
    from biblios_kit.net.lobby import change_settings

    async def scenario(processes: Processes) -> None:
        hubs = processes.hubs
        tables = await _person_against_a_bot(hubs)
        change_settings(hubs[0], tables[0], {"move_seconds": 2.0, "stand_in": "random"})
        await _until(lambda: hubs[0].clocks.tables[tables[0].id].owner)  # a took the clock lock
        await _until(lambda: tables[1].settings.move_seconds == 2.0)
        assert not hubs[1].clocks.tables[tables[0].id].owner
        version = tables[0].version
        # a dies before the seat's time runs out: its timers stop, its connections close (and its lock with them).
        await processes.end(0)
        assert hubs[0].clocks.events(tables[0]) == []
        await _until(lambda: hubs[1].clocks.tables[tables[0].id].owner, limit=15)  # at b's next comparison
        await _until(lambda: any(e["kind"] == "stand_in" for e in hubs[1].clocks.events(tables[1])))
        assert [e["kind"] for e in hubs[1].clocks.events(tables[1])] == ["time_out", "stand_in"]
        await _until(lambda: tables[1].version > version + 2)  # b's stand-in and bot play on
        with psycopg.connect(db_url) as db:
            stored = db.execute("SELECT version FROM tables WHERE id = %s", (tables[0].id,)).fetchone()
        assert stored is not None and stored[0] > version + 2

    run_two_processes(db_url, tmp_path, scenario, running=True)


def test_a_seat_connected_to_another_process_is_not_absent(db_url: str, tmp_path: Path) -> None:
    """The process that runs the clocks counts a seat connected to another process as present; gone, it is absent."""
    from biblios_kit.net.settings import TableSettings

    async def scenario(processes: Processes) -> None:
        hubs = processes.hubs
        settings = TableSettings(absent_seconds=2.5, stand_in="random")
        invitation = hubs[0].create("biblios", [], 3, ["human", "human", "easy"], seed=8, bot_delay=0.05,
                                    settings=settings)  # fmt: skip
        tables = [hub.table(invitation.table) for hub in hubs]
        hubs[0].listen(tables[0], 0, info=True)  # seat 0 on a (which runs the clocks), seat 1 on b only
        on_b = hubs[1].listen(tables[1], 1, info=True)
        await _until(lambda: hubs[0].clocks.tables[invitation.table].owner)
        await asyncio.sleep(3.5)  # longer than the absence limit
        assert hubs[0].clocks.events(tables[0]) == [] and 1 not in tables[0].bots  # seat 1 is not absent
        hubs[1].forget(tables[1], on_b)  # seat 1 leaves b: a hears it and counts the absence
        await _until(lambda: any(e["kind"] == "stand_in" for e in hubs[0].clocks.events(tables[0])), limit=8)
        (event,) = [e for e in hubs[0].clocks.events(tables[0]) if e["kind"] == "stand_in"]
        assert event["seat"] == 1 and event["reason"] == "absent"
        hubs[1].listen(tables[1], 1, info=True)  # back, through b: a gives the seat back
        await _until(lambda: any(e["kind"] == "back" for e in hubs[0].clocks.events(tables[0])), limit=8)
        assert 1 not in tables[0].bots

    run_two_processes(db_url, tmp_path, scenario, running=True)


def test_every_seat_sees_who_is_connected_to_any_process(db_url: str, tmp_path: Path) -> None:
    """A table without clocks: seat 0 follows it through a, seat 1 comes and goes through b; a's table_info says so."""

    async def scenario(processes: Processes) -> None:
        hubs = processes.hubs
        invitation = hubs[0].create("biblios", [], 3, ["human", "human", "easy"], seed=8, bot_delay=0.05)
        tables = [hub.table(invitation.table) for hub in hubs]
        on_a = hubs[0].listen(tables[0], 0, info=True)

        def connected_on_a() -> list[bool] | None:
            last = None
            while not on_a.queue.empty():
                text = on_a.queue.get_nowait()
                message = json.loads(text) if text else {}
                if message.get("type") == "table_info":
                    last = message["connected"]
            return last

        seen: list[list[bool]] = []

        def a_says(expected: list[bool]) -> bool:
            now = connected_on_a()
            if now is not None:
                seen.append(now)
            return bool(seen) and seen[-1] == expected

        await _until(lambda: a_says([True, False, True]))
        on_b = hubs[1].listen(tables[1], 1, info=True)
        await _until(lambda: a_says([True, True, True]))  # seat 1 is connected to b: a's seat sees it
        hubs[1].forget(tables[1], on_b)
        try:
            await _until(lambda: a_says([True, False, True]))  # and sees it leave
        except AssertionError:
            raise AssertionError(f"table_info on a: {seen}; a: {tables[0].elsewhere} elsewhere") from None

    run_two_processes(db_url, tmp_path, scenario, running=True)


def test_who_is_connected_is_written_in_order(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A comparison that read the seats before one left, and is slow to write them, does not land after the leaving's
    own write: the store ends with the seat gone (one process writes one at a time, each reading the seats as it runs)."""

    async def a_reads(tables: list[Table], hubs: list[TableHub], seats: frozenset[int]) -> None:
        deadline = time.monotonic() + 10
        while True:
            await hubs[0].share_presence()  # a reads who is connected to b
            if tables[0].elsewhere == seats:
                return
            assert time.monotonic() < deadline, f"a reads {set(tables[0].elsewhere)} connected to b"
            await asyncio.sleep(0.05)

    async def scenario(processes: Processes) -> None:
        hubs = processes.hubs
        invitation = hubs[0].create("biblios", [], 3, ["human", "human", "easy"], seed=8, bot_delay=0.05)
        tables = [hub.table(invitation.table) for hub in hubs]
        hubs[0].listen(tables[0], 0)  # a follows the table
        on_b = hubs[1].listen(tables[1], 1, info=True)
        await a_reads(tables, hubs, frozenset({1}))
        store = hubs[1].shared
        assert store is not None
        write = store.share_presence
        held, release = asyncio.Event(), asyncio.Event()

        async def slow_first(connected: dict[str, list[int]], announce: Sequence[str] = ()) -> dict[str, set[int]]:
            if not held.is_set():
                held.set()
                await release.wait()  # a slow database: this write would land after the next one
            return await write(connected, announce)

        monkeypatch.setattr(store, "share_presence", slow_first)
        comparison = asyncio.create_task(hubs[1].share_presence())  # the periodic comparison, seat 1 still here
        await held.wait()
        hubs[1].forget(tables[1], on_b)  # seat 1 leaves: b says so at once
        await asyncio.sleep(0.2)
        release.set()
        await comparison
        await a_reads(tables, hubs, frozenset())

    run_two_processes(db_url, tmp_path, scenario)
