"""Tables kept in PostgreSQL (``host --db postgresql://…``), shared by several server processes.

The driver is psycopg 3: its asyncio connections run the commits and deliver ``LISTEN``
notifications to the event loop, and its blocking connection serves start-up and the
rare table creation. An action is committed by one statement (one transaction) that
moves the table's ``version`` from the expected value to the new one and inserts the
actions; when the stored version is not the expected one, nothing is written and
:class:`VersionConflict` is raised. ``(table_id, number)`` is also the actions' primary
key, a second guard. ``NOTIFY`` with ``"<table> <version>"`` follows in the same round
trip (a pipeline), as a transaction of its own: PostgreSQL serializes the commits of
transactions that notify, flush to disk included, so a notification inside the commit
would forbid group commit (measured: 216-311 against 240-560 commits a second with eight
connections on this machine's disk).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import psycopg

from biblios_kit.engine.records import record_of, save_record
from biblios_kit.engine.state import GameState
from biblios_kit.net.storage import (
    PRESENCE_CHANGED,
    REMATCH_CHANGED,
    TABLE_CHANGED,
    StorageError,
    VersionConflict,
    redacted,
)
from biblios_kit.net.store import RematchRecord, StoredTable, TableExists, settings_from_json, stored_table

log = logging.getLogger("biblios_kit.net")

T = TypeVar("T")

CHANNEL = "biblios_kit_actions"
"""The ``LISTEN``/``NOTIFY`` channel of committed actions."""

SCHEMA_LOCK = 0x6269626C696F73
"""Advisory lock key held while the schema is created (two processes starting together)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    ruleset TEXT NOT NULL,
    options TEXT NOT NULL,
    players INTEGER NOT NULL,
    seed BIGINT NOT NULL,
    seats TEXT NOT NULL,
    names TEXT NOT NULL,
    token_digests TEXT NOT NULL,
    bot_delay DOUBLE PRECISION NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    finished BOOLEAN NOT NULL DEFAULT FALSE,
    version INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS actions (
    table_id TEXT NOT NULL REFERENCES tables(id),
    number INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (table_id, number)
);
ALTER TABLE tables ADD COLUMN IF NOT EXISTS settings TEXT NOT NULL DEFAULT '{}';
ALTER TABLE tables ADD COLUMN IF NOT EXISTS closed BOOLEAN NOT NULL DEFAULT FALSE;
CREATE TABLE IF NOT EXISTS rematches (
    table_id TEXT PRIMARY KEY,
    new_table TEXT NOT NULL,
    created BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE TABLE IF NOT EXISTS rematch_votes (
    table_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    vote BOOLEAN NOT NULL,
    digest TEXT NOT NULL,
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE IF NOT EXISTS presence (
    process TEXT NOT NULL,
    table_id TEXT NOT NULL,
    seats TEXT NOT NULL,
    seen TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (process, table_id)
);
"""
"""The SQLite store's two tables (``docs/network.md``), plus each table's ``version`` (its number of actions);
``settings`` and ``closed`` are added to a database made before they existed; the rematch votes
(:mod:`biblios_kit.net.rematch`); the seats connected to each process (``presence``, to judge absence)."""

COMMIT = """
WITH bump AS (
    UPDATE tables SET version = %(last)s, finished = finished OR %(finished)s
    WHERE id = %(id)s AND version = %(first)s
    RETURNING id
), added AS (
    INSERT INTO actions (table_id, number, action)
    SELECT bump.id, %(first)s + item.ord::integer - 1, item.action
    FROM bump, unnest(%(actions)s::text[]) WITH ORDINALITY AS item(action, ord)
)
SELECT id FROM bump
"""
"""The version check and the actions in one statement: a row back means they were committed."""

NOTIFY = "SELECT pg_notify(%(channel)s, %(payload)s) FROM tables WHERE id = %(id)s AND version = %(last)s"
"""The announcement of a commit, sent after it (nothing when it lost to another process's)."""

RESYNC_SECONDS = 5.0
"""How often :meth:`PgStore.changes` also asks for a comparison of versions (a commit whose process died
before its notification went out is seen then)."""

COLUMNS = "id, ruleset, options, players, seed, seats, names, token_digests, bot_delay, finished, settings"

CHANGED = "changed"
"""The version word of a notification that a table's tokens or settings changed, or that it was closed."""

REMATCH = "rematch"
"""The version word of a notification that a finished table's rematch votes changed or its new table exists."""

PRESENCE = "presence"
"""The version word of a notification that the seats connected to a table through some process changed."""

RELAY = "relay"
"""The word of a notification ``"<table> relay <process> <message>"``: a clock message or event of a table, passed on
to the other processes' connections."""

MAX_RELAY = 7_900
"""The longest notification payload relayed (PostgreSQL's limit is 8,000 bytes)."""

PRESENCE_SECONDS = 15.0
"""How long the seats a process said were connected count without that process saying it again (it says it
every :data:`RESYNC_SECONDS`, and whenever they change): a process that died stops counting then."""

CLOCK_LOCK = "SELECT pg_try_advisory_lock(('x' || substr(md5(%s), 1, 16))::bit(64)::bigint)"
"""Take a table's clock lock (a session-level advisory lock keyed by 64 bits of the table id's MD5)."""

CLOCK_UNLOCK = "SELECT pg_advisory_unlock(('x' || substr(md5(%s), 1, 16))::bit(64)::bigint)"

POOL_SIZE = 4
"""Connections the event loop commits through (a commit waits for PostgreSQL's flush of its log)."""


class PgStore:
    """The tables of every server process using database ``url``; game records in ``<data_dir>/records``."""

    def __init__(self, url: str, data_dir: Path, *, pool_size: int = POOL_SIZE) -> None:
        self.url = url
        self.data_dir = data_dir
        self.records_dir = data_dir / "records"
        self.pool_size = pool_size
        try:
            self.db = psycopg.connect(url, autocommit=True)
            with self.db.transaction():
                self.db.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
                self.db.execute(SCHEMA)
        except psycopg.Error as error:
            raise StorageError(f"{redacted(url)}: {_reason(error)}") from None
        self._idle: list[psycopg.AsyncConnection[Any]] = []
        self._slots: asyncio.Semaphore | None = None
        self._locker: psycopg.AsyncConnection[Any] | None = None
        """The connection that holds this process's clock locks (they go with it when it closes or dies)."""
        self._held: set[str] = set()
        self._holding: asyncio.Lock | None = None
        """One :meth:`hold_clocks` at a time: two at once would each open a locker, and the lock taken on the
        one dropped would go when it is collected, while this process still believed it held it."""
        self.process = secrets.token_hex(8)
        """This process's id among the processes sharing the database (its ``presence`` rows)."""
        self.relayed: Callable[[str, str], None] | None = None
        """Called with ``(table, message)`` for each message another process relayed (:meth:`relay`)."""

    def __repr__(self) -> str:
        return f"PgStore({redacted(self.url)!r})"

    # ------------------------------------------------------------------ blocking (start-up, new tables)

    def _blocking(self, work: Callable[[psycopg.Connection[Any]], T]) -> T:
        """``work(connection)`` on the blocking connection, opened again (once) when it was lost."""
        for attempt in (1, 2):
            try:
                if self.db.closed or self.db.broken:
                    self.db = psycopg.connect(self.url, autocommit=True)
                return work(self.db)
            except psycopg.OperationalError as error:
                if attempt == 2 or not (self.db.closed or self.db.broken):
                    raise StorageError(_reason(error)) from error
            except psycopg.Error as error:
                raise StorageError(_reason(error)) from error
        raise AssertionError("unreachable")  # pragma: no cover

    def create(self, table: StoredTable) -> None:
        """Store a new table (with no action yet); :class:`TableExists` when another process stored its id first."""
        inserted = self._blocking(lambda db: db.execute(
            "INSERT INTO tables (id, ruleset, options, players, seed, seats, names, token_digests, bot_delay,"
            " created, settings) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (id) DO NOTHING RETURNING id",
            (table.id, table.ruleset, json.dumps(list(table.options)), table.players, table.seed,
             json.dumps(list(table.seats)), json.dumps(list(table.names), ensure_ascii=False),
             json.dumps(list(table.token_digests)), table.bot_delay, time.time(), json.dumps(table.settings)),
        ).fetchone())  # fmt: skip
        if inserted is None:
            raise TableExists(table.id)

    def rematch_table(self, table_id: str, candidate: str) -> str:
        """The id of ``table_id``'s rematch table: ``candidate`` when no process reserved one yet."""

        def work(db: psycopg.Connection[Any]) -> str:
            db.execute("INSERT INTO rematches (table_id, new_table) VALUES (%s, %s) ON CONFLICT (table_id) DO NOTHING",
                       (table_id, candidate))  # fmt: skip
            row = db.execute("SELECT new_table FROM rematches WHERE table_id = %s", (table_id,)).fetchone()
            assert row is not None
            return str(row[0])

        return self._blocking(work)

    def rematch_vote(self, table_id: str, seat: int, vote: bool, digest: str) -> None:
        """Record ``seat``'s rematch vote (with its new token's digest); every process hears of it."""

        def work(db: psycopg.Connection[Any]) -> None:
            db.execute(
                "INSERT INTO rematch_votes (table_id, seat, vote, digest) VALUES (%s, %s, %s, %s)"
                " ON CONFLICT (table_id, seat) DO UPDATE SET vote = excluded.vote, digest = excluded.digest",
                (table_id, seat, vote, digest),
            )
            db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{table_id} {REMATCH}"))

        self._blocking(work)

    def rematch_created(self, table_id: str) -> None:
        """Note that ``table_id``'s rematch table exists; every process hears of it (once)."""

        def work(db: psycopg.Connection[Any]) -> None:
            if db.execute("UPDATE rematches SET created = TRUE WHERE table_id = %s AND NOT created RETURNING 1",
                          (table_id,)).fetchone():  # fmt: skip
                db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{table_id} {REMATCH}"))

        self._blocking(work)

    def rematch_record(self, table_id: str) -> RematchRecord:
        """The stored rematch of ``table_id``."""

        def work(db: psycopg.Connection[Any]) -> RematchRecord:
            row = db.execute("SELECT new_table, created FROM rematches WHERE table_id = %s", (table_id,)).fetchone()
            votes = {seat: (bool(vote), digest) for seat, vote, digest in db.execute(
                "SELECT seat, vote, digest FROM rematch_votes WHERE table_id = %s", (table_id,))}  # fmt: skip
            return RematchRecord(None if row is None else row[0], bool(row and row[1]), votes)

        return self._blocking(work)

    def append(self, table_id: str, first: int, actions: Sequence[str], finished: bool = False) -> None:
        """:meth:`commit`, blocking (for callers outside the event loop)."""
        parameters = _commit_parameters(table_id, first, actions, finished)

        def work(db: psycopg.Connection[Any]) -> tuple[Any, ...] | None:
            row = db.execute(COMMIT, parameters).fetchone()
            db.execute(NOTIFY, parameters)
            return row

        if self._blocking(work) is None:
            raise VersionConflict(table_id, first)

    def set_token_digests(self, table_id: str, digests: Sequence[str]) -> None:
        """Replace a table's token digests; every process hears of it (:data:`CHANGED`)."""
        self._change_table(table_id, "token_digests = %s", json.dumps(list(digests)))

    def give_seat(self, table_id: str, digests: Sequence[str], names: Sequence[str]) -> None:
        """Replace a table's token digests and seat names together; every process hears of it."""
        self._change_table(table_id, "token_digests = %s, names = %s", json.dumps(list(digests)),
                           json.dumps(list(names), ensure_ascii=False))  # fmt: skip

    def set_settings(self, table_id: str, settings: dict[str, object]) -> None:
        """Replace a table's settings (JSON); every process hears of it."""
        self._change_table(table_id, "settings = %s", json.dumps(settings))

    def close_table(self, table_id: str) -> None:
        """Mark a table closed (kept, no longer loaded); every process hears of it."""
        self._change_table(table_id, "closed = %s", True)

    def _change_table(self, table_id: str, assignment: str, *values: object) -> None:
        def work(db: psycopg.Connection[Any]) -> None:
            db.execute(f"UPDATE tables SET {assignment} WHERE id = %s", (*values, table_id))
            db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{table_id} {CHANGED}"))

        self._blocking(work)

    def load_all(self) -> Iterator[StoredTable]:
        """Every stored table that is not closed, with its actions, oldest first."""

        def work(db: psycopg.Connection[Any]) -> tuple[list[tuple[Any, ...]], dict[str, list[str]]]:
            rows = db.execute(f"SELECT {COLUMNS} FROM tables WHERE NOT closed ORDER BY created").fetchall()
            actions: dict[str, list[str]] = {}
            for table_id, text in db.execute("SELECT table_id, action FROM actions ORDER BY table_id, number"):
                actions.setdefault(table_id, []).append(text)
            return rows, actions

        rows, actions = self._blocking(work)
        for row in rows:
            yield stored_table(row, actions.get(row[0], []))

    def load(self, table_id: str) -> StoredTable | None:
        """One stored table with its actions (``None`` when there is none)."""

        def work(db: psycopg.Connection[Any]) -> StoredTable | None:
            row = db.execute(f"SELECT {COLUMNS} FROM tables WHERE id = %s AND NOT closed", (table_id,)).fetchone()
            if row is None:
                return None
            texts = [text for (text,) in db.execute(
                "SELECT action FROM actions WHERE table_id = %s ORDER BY number", (table_id,))]  # fmt: skip
            return stored_table(row, texts)

        return self._blocking(work)

    def record_path(self, table_id: str) -> Path:
        """Where the game record of a finished table is written (in this process's data folder)."""
        return self.records_dir / f"{table_id}.json"

    def save_record(self, table_id: str, state: GameState, seats: Sequence[str]) -> Path:
        """Write the game record of ``state`` (atomically) for ``table_id``; returns its path."""
        return save_record(record_of(state, bots=list(seats)), self.record_path(table_id))

    def checkpoint(self) -> None:
        """Nothing to do: PostgreSQL runs its own checkpoints."""

    def close(self) -> None:
        """Close the blocking connection (:meth:`aclose` closes the event loop's)."""
        self.db.close()

    # ------------------------------------------------------------------ in the event loop

    async def _run(self, work: Callable[[psycopg.AsyncConnection[Any]], Awaitable[T]]) -> T:
        """``await work(connection)`` on one of at most ``pool_size`` connections (opened on demand).

        A connection that fails is dropped. When it had waited in the pool (the server may have
        restarted meanwhile), the work is tried once more on a new one: a commit that had in
        fact gone through then meets its own version, a :class:`VersionConflict`, and the hub
        reads the table again, as for another process's commit.
        """
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.pool_size)
        for attempt in (1, 2):
            async with self._slots:
                pooled = bool(self._idle)
                try:
                    connection = (
                        self._idle.pop() if pooled else await psycopg.AsyncConnection.connect(self.url, autocommit=True)
                    )
                except psycopg.Error as error:
                    raise StorageError(_reason(error)) from error
                try:
                    result = await work(connection)
                except psycopg.Error as error:
                    if connection.broken or connection.closed:
                        await connection.close()
                        if pooled and attempt == 1 and isinstance(error, psycopg.OperationalError):
                            continue
                    else:
                        self._idle.append(connection)
                    raise StorageError(_reason(error)) from error
                except BaseException:
                    await connection.close()  # cancelled mid-statement: its state is unknown
                    raise
                self._idle.append(connection)
                return result
        raise AssertionError("unreachable")  # pragma: no cover

    async def commit(self, table_id: str, first: int, actions: Sequence[str], finished: bool = False) -> None:
        """Commit ``actions`` as numbers ``first ...`` if the stored version is ``first``, else :class:`VersionConflict`."""
        parameters = _commit_parameters(table_id, first, actions, finished)

        async def work(connection: psycopg.AsyncConnection[Any]) -> tuple[Any, ...] | None:
            async with connection.pipeline():  # one round trip, two transactions
                cursor = await connection.execute(COMMIT, parameters)
                await connection.execute(NOTIFY, parameters)
            return await cursor.fetchone()

        if await self._run(work) is None:
            raise VersionConflict(table_id, first)

    async def actions_since(self, table_id: str, first: int) -> list[str]:
        """The stored actions of ``table_id`` from number ``first`` on, in order."""

        async def work(connection: psycopg.AsyncConnection[Any]) -> list[tuple[Any, ...]]:
            cursor = await connection.execute(
                "SELECT number, action FROM actions WHERE table_id = %s AND number >= %s ORDER BY number",
                (table_id, first),
            )
            return await cursor.fetchall()

        texts = []
        for expected, (number, text) in enumerate(await self._run(work), start=first):
            if number != expected:  # never: numbers are committed in order with the version
                raise StorageError(f"table {table_id}: action {expected} is missing")
            texts.append(text)
        return texts

    async def access(self) -> dict[str, tuple[tuple[str, ...], tuple[str, ...], dict[str, object]]]:
        """The token digests, seat names and settings of every unfinished table that is not closed."""

        async def work(connection: psycopg.AsyncConnection[Any]) -> list[tuple[Any, ...]]:
            cursor = await connection.execute(
                "SELECT id, token_digests, names, settings FROM tables WHERE NOT finished AND NOT closed"
            )
            return await cursor.fetchall()

        rows = await self._run(work)
        return {table_id: (tuple(json.loads(digests)), tuple(json.loads(names)), settings_from_json(settings))
                for table_id, digests, names, settings in rows}  # fmt: skip

    async def versions(self) -> dict[str, int]:
        """The stored version of every unfinished table."""

        async def work(connection: psycopg.AsyncConnection[Any]) -> dict[str, int]:
            cursor = await connection.execute("SELECT id, version FROM tables WHERE NOT finished")
            return dict(await cursor.fetchall())

        return await self._run(work)

    async def hold_clocks(self, table_ids: Sequence[str]) -> set[str]:
        """Hold the clock lock of each of ``table_ids`` this process can, release the others; returns those held.

        The locks are PostgreSQL session-level advisory locks on one connection of their own: a
        process that dies (or loses that connection) lets them go, and another process takes
        them at its next call. So exactly one live process holds a table's lock.
        """
        if self._holding is None:
            self._holding = asyncio.Lock()
        async with self._holding:
            return await self._hold_clocks(set(table_ids))

    async def _hold_clocks(self, wanted: set[str]) -> set[str]:
        try:
            if self._locker is None or self._locker.closed or self._locker.broken:
                self._held.clear()  # the locks went with the connection
                if self._locker is not None:
                    await self._locker.close()
                self._locker = None
                self._locker = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
            for table_id in sorted(self._held - wanted):
                await self._locker.execute(CLOCK_UNLOCK, (table_id,))
                self._held.discard(table_id)
            for table_id in sorted(wanted - self._held):
                cursor = await self._locker.execute(CLOCK_LOCK, (table_id,))
                row = await cursor.fetchone()
                if row is not None and row[0]:
                    self._held.add(table_id)
        except psycopg.Error as error:
            if self._locker is not None and (self._locker.closed or self._locker.broken):
                self._held.clear()
            raise StorageError(_reason(error)) from error
        return set(self._held)

    async def share_presence(
        self, connected: dict[str, list[int]], announce: Sequence[str] = ()
    ) -> dict[str, set[int]]:
        """Say which seats of which tables are connected to this process; returns those connected to the others.

        ``connected`` replaces what this process said before. The tables of ``announce`` are
        notified (``"<table> presence"``): their seats changed here. Only what a process said
        in the last :data:`PRESENCE_SECONDS` counts.
        """

        async def work(connection: psycopg.AsyncConnection[Any]) -> list[tuple[Any, ...]]:
            async with connection.transaction():
                await connection.execute(
                    "DELETE FROM presence WHERE process = %s OR seen < now() - %s * interval '4 seconds'",
                    (self.process, PRESENCE_SECONDS),
                )
                async with connection.cursor() as cursor:
                    await cursor.executemany(
                        "INSERT INTO presence (process, table_id, seats) VALUES (%s, %s, %s)",
                        [(self.process, table_id, json.dumps(seats)) for table_id, seats in connected.items()],
                    )
                cursor = await connection.execute(
                    "SELECT table_id, seats FROM presence WHERE process <> %s AND seen > now() - %s * interval '1 second'",
                    (self.process, PRESENCE_SECONDS),
                )
                rows = await cursor.fetchall()
                for table_id in announce:
                    await connection.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{table_id} {PRESENCE}"))
            return rows

        elsewhere: dict[str, set[int]] = {}
        for table_id, seats in await self._run(work):
            elsewhere.setdefault(table_id, set()).update(seat for seat in json.loads(seats) if isinstance(seat, int))
        return elsewhere

    async def relay(self, table_id: str, text: str) -> None:
        """Pass ``text`` (a JSON message for ``table_id``'s connections) on to the other processes."""
        payload = f"{table_id} {RELAY} {self.process} {text}"
        if len(payload.encode()) > MAX_RELAY:
            log.warning("table %s: a message too long to relay to the other processes", table_id)
            return

        async def work(connection: psycopg.AsyncConnection[Any]) -> None:
            await connection.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))

        await self._run(work)

    async def changes(self) -> AsyncGenerator[tuple[str, int] | None, None]:
        """``(table, version)`` for each commit of any process; ``None`` when some may have been missed.

        ``None`` comes once listening starts (again) and every :data:`RESYNC_SECONDS`. A lost
        connection is reopened (after 0.1 s, then twice as long each time, at most 5 s).
        """
        wait = 0.1
        while True:
            try:
                connection = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
            except psycopg.Error as error:
                log.warning(
                    "cannot listen to %s (%s); trying again in %.1f s", redacted(self.url), _reason(error), wait
                )
                await asyncio.sleep(wait)
                wait = min(5.0, wait * 2)
                continue
            try:
                async with connection:
                    await connection.execute(f"LISTEN {CHANNEL}")
                    wait = 0.1
                    while True:
                        yield None
                        async for note in connection.notifies(timeout=RESYNC_SECONDS):
                            self._relayed(note.payload)
                            change = _change(note.payload)
                            if change is not None:
                                yield change
            except psycopg.Error as error:
                log.warning("lost the notifications of %s (%s); listening again", redacted(self.url), _reason(error))

    def _relayed(self, payload: str) -> None:
        """Hand a message another process relayed to :attr:`relayed` (this process's own are dropped)."""
        table_id, _space, rest = payload.partition(" ")
        word, _space, rest = rest.partition(" ")
        process, _space, text = rest.partition(" ")
        if word == RELAY and process != self.process and self.relayed is not None:
            self.relayed(table_id, text)

    async def aclose(self) -> None:
        """Close the event loop's connections (the clock locks go with them)."""
        if self._locker is not None:
            await self._locker.close()
            self._locker = None
            self._held.clear()
        idle, self._idle = self._idle, []
        for connection in idle:
            await connection.close()


def _commit_parameters(table_id: str, first: int, actions: Sequence[str], finished: bool) -> dict[str, object]:
    last = first + len(actions)
    return {"id": table_id, "first": first, "last": last, "finished": finished, "actions": list(actions),
            "channel": CHANNEL, "payload": f"{table_id} {last}"}  # fmt: skip


def _change(payload: str) -> tuple[str, int] | None:
    """``(table, version)`` from a notification's ``"<table> <version>"`` (``None`` for anything else)."""
    table_id, _space, version = payload.partition(" ")
    if table_id and version == CHANGED:
        return table_id, TABLE_CHANGED
    if table_id and version == REMATCH:
        return table_id, REMATCH_CHANGED
    if table_id and version == PRESENCE:
        return table_id, PRESENCE_CHANGED
    return (table_id, int(version)) if table_id and version.isdigit() else None


def _reason(error: psycopg.Error) -> str:
    """The first line of a driver error (never the connection string: psycopg does not echo passwords)."""
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
