"""Persistence of the server's tables: SQLite from the standard library, one row per accepted action.

Every accepted action is committed before anyone is told it was accepted, so a server
killed at any moment (even with SIGKILL) loses no accepted action: SQLite's write-ahead
log makes each commit atomic, and a commit survives the death of the process
(``synchronous=NORMAL``; ``durable=True`` also survives a power cut, at the cost of an
``fsync`` per action). A finished game is also written as a game record
(``records/<table>.json``, atomically) that ``biblios-kit replay`` checks.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biblios_kit.engine.records import record_of, save_record
from biblios_kit.engine.state import GameState

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    ruleset TEXT NOT NULL,
    options TEXT NOT NULL,       -- JSON list of option ids
    players INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,         -- JSON list: "human" or a bot spec per seat
    names TEXT NOT NULL,         -- JSON list of seat names
    token_digests TEXT NOT NULL, -- JSON list: SHA-256 of each seat's token ("" for bot seats)
    bot_delay REAL NOT NULL,
    created REAL NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0
    -- settings and closed: added by MIGRATIONS[0] (user_version 1)
);
CREATE TABLE IF NOT EXISTS actions (
    table_id TEXT NOT NULL REFERENCES tables(id),
    number INTEGER NOT NULL,     -- 0, 1, 2 ... in the order applied
    action TEXT NOT NULL,        -- text form (docs/engine.md)
    PRIMARY KEY (table_id, number)
) WITHOUT ROWID;
"""


MIGRATIONS: tuple[str, ...] = (
    # 1: table settings (hints, spectators: JSON, see net/lobby.py) and closed tables (``host close``)
    "ALTER TABLE tables ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';"
    " ALTER TABLE tables ADD COLUMN closed INTEGER NOT NULL DEFAULT 0;",
    # 2: rematch votes (net/rematch.py): the new table's id, reserved at the first vote, and each seat's vote
    "CREATE TABLE rematches (table_id TEXT PRIMARY KEY, new_table TEXT NOT NULL, created INTEGER NOT NULL DEFAULT 0);"
    " CREATE TABLE rematch_votes (table_id TEXT NOT NULL, seat INTEGER NOT NULL, vote INTEGER NOT NULL,"
    " digest TEXT NOT NULL, PRIMARY KEY (table_id, seat)) WITHOUT ROWID;",
)
"""Schema changes, in order: a database at ``PRAGMA user_version`` N runs ``MIGRATIONS[N:]`` when opened."""

MAX_SEED = 2**63 - 1
"""The largest seed a table can have: SQLite's ``INTEGER`` holds signed 64-bit numbers."""


@dataclass(frozen=True)
class StoredTable:
    """A table as stored: how it was created and every action accepted since."""

    id: str
    ruleset: str
    options: tuple[str, ...]
    players: int
    seed: int
    seats: tuple[str, ...]
    names: tuple[str, ...]
    token_digests: tuple[str, ...]
    bot_delay: float
    finished: bool
    actions: tuple[str, ...]
    settings: dict[str, object] = field(default_factory=dict)
    """The table's settings as JSON (:class:`biblios_kit.net.lobby.TableSettings`); ``{}``: the defaults."""


class TableExists(Exception):
    """A table with this id is already stored (a rematch's table that another process created first)."""


@dataclass(frozen=True)
class RematchRecord:
    """The stored rematch of a finished table (:mod:`biblios_kit.net.rematch`)."""

    new_table: str | None
    """The new table's id, reserved at the first vote (``None``: nobody voted yet)."""
    created: bool
    """Whether the new table exists."""
    votes: dict[int, tuple[bool, str]]
    """Seat -> its vote and the digest of its token at the new table (``""`` when it opted out)."""


class Store:
    """The SQLite database of a server's data folder (``<data-dir>/tables.sqlite3``), plus finished game records."""

    def __init__(self, data_dir: Path, *, durable: bool = False) -> None:
        self.data_dir = data_dir
        data_dir.mkdir(parents=True, exist_ok=True)
        self.records_dir = data_dir / "records"
        self.path = data_dir / "tables.sqlite3"
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        # Checkpoints (copying the log into the database, with an fsync) would otherwise run inside
        # a commit now and then, in the event loop; :meth:`checkpoint` runs them in a thread.
        self.db.execute("PRAGMA wal_autocheckpoint=0")
        self.db.executescript(SCHEMA)
        self._migrate()
        self._checkpointer: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        """Checkpoints (in a thread) and closing never run at the same time."""
        self._closed = False

    def _migrate(self) -> None:
        """Bring a database made by an older version up to :data:`MIGRATIONS` (each step one transaction)."""
        (version,) = self.db.execute("PRAGMA user_version").fetchone()
        for number in range(version, len(MIGRATIONS)):
            with self._transaction():
                for statement in MIGRATIONS[number].split(";"):
                    if statement.strip():
                        self.db.execute(statement)
                self.db.execute(f"PRAGMA user_version = {number + 1}")

    def close(self) -> None:
        """Close the database (after a last checkpoint; waits for one running in another thread)."""
        with self._lock:
            if self._closed:
                return
            self._checkpoint()
            if self._checkpointer is not None:
                self._checkpointer.close()
            self.db.close()
            self._closed = True

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the database file (from any thread; writers are not blocked)."""
        with self._lock:
            if not self._closed:
                self._checkpoint()

    def _checkpoint(self) -> None:
        if self._checkpointer is None:
            self._checkpointer = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def create(self, table: StoredTable) -> None:
        """Store a new table (with no action yet); :class:`TableExists` when its id is taken."""
        with self._transaction(), _taken(table.id):
            self.db.execute(
                "INSERT INTO tables (id, ruleset, options, players, seed, seats, names, token_digests, bot_delay,"
                " created, settings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (table.id, table.ruleset, json.dumps(list(table.options)), table.players, table.seed,
                 json.dumps(list(table.seats)), json.dumps(list(table.names), ensure_ascii=False),
                 json.dumps(list(table.token_digests)), table.bot_delay, time.time(), json.dumps(table.settings)),
            )  # fmt: skip

    def append(self, table_id: str, first: int, actions: Sequence[str], finished: bool = False) -> None:
        """Commit ``actions`` as numbers ``first, first + 1 ...`` of ``table_id`` in one transaction."""
        if len(actions) == 1 and not finished:
            # One statement outside BEGIN ... COMMIT is a transaction of its own, committed when it
            # returns: one call into SQLite instead of three (the common case: one action).
            self.db.execute("INSERT INTO actions (table_id, number, action) VALUES (?, ?, ?)",
                            (table_id, first, actions[0]))  # fmt: skip
            return
        with self._transaction():
            self.db.executemany(
                "INSERT INTO actions (table_id, number, action) VALUES (?, ?, ?)",
                [(table_id, first + i, text) for i, text in enumerate(actions)],
            )
            if finished:
                self.db.execute("UPDATE tables SET finished = 1 WHERE id = ?", (table_id,))

    def set_token_digests(self, table_id: str, digests: Sequence[str]) -> None:
        """Replace the token digests of a table's seats (a seat's link issued again: its old token stops working)."""
        self.db.execute("UPDATE tables SET token_digests = ? WHERE id = ?", (json.dumps(list(digests)), table_id))

    def give_seat(self, table_id: str, digests: Sequence[str], names: Sequence[str]) -> None:
        """Replace a table's token digests and seat names together (a visitor took a free seat, with a name)."""
        self.db.execute(
            "UPDATE tables SET token_digests = ?, names = ? WHERE id = ?",
            (json.dumps(list(digests)), json.dumps(list(names), ensure_ascii=False), table_id),
        )

    def set_settings(self, table_id: str, settings: dict[str, object]) -> None:
        """Replace a table's settings (JSON)."""
        self.db.execute("UPDATE tables SET settings = ? WHERE id = ?", (json.dumps(settings), table_id))

    def close_table(self, table_id: str) -> None:
        """Mark a table closed: it is kept in the database, but no longer loaded."""
        self.db.execute("UPDATE tables SET closed = 1 WHERE id = ?", (table_id,))

    def rematch_table(self, table_id: str, candidate: str) -> str:
        """The id of ``table_id``'s rematch table: ``candidate`` when none was reserved yet."""
        self.db.execute("INSERT OR IGNORE INTO rematches (table_id, new_table) VALUES (?, ?)", (table_id, candidate))
        (new_table,) = self.db.execute("SELECT new_table FROM rematches WHERE table_id = ?", (table_id,)).fetchone()
        return str(new_table)

    def rematch_vote(self, table_id: str, seat: int, vote: bool, digest: str) -> None:
        """Record ``seat``'s rematch vote, with the digest of its token at the new table."""
        self.db.execute(
            "INSERT INTO rematch_votes (table_id, seat, vote, digest) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (table_id, seat) DO UPDATE SET vote = excluded.vote, digest = excluded.digest",
            (table_id, seat, int(vote), digest),
        )

    def rematch_created(self, table_id: str) -> None:
        """Note that ``table_id``'s rematch table exists."""
        self.db.execute("UPDATE rematches SET created = 1 WHERE table_id = ?", (table_id,))

    def rematch_record(self, table_id: str) -> RematchRecord:
        """The stored rematch of ``table_id``."""
        row = self.db.execute("SELECT new_table, created FROM rematches WHERE table_id = ?", (table_id,)).fetchone()
        votes = {seat: (bool(vote), digest) for seat, vote, digest in self.db.execute(
            "SELECT seat, vote, digest FROM rematch_votes WHERE table_id = ?", (table_id,))}  # fmt: skip
        return RematchRecord(None if row is None else row[0], bool(row and row[1]), votes)

    def load_all(self) -> Iterator[StoredTable]:
        """Every stored table that is not closed, with its actions, oldest first."""
        rows = self.db.execute(
            "SELECT id, ruleset, options, players, seed, seats, names, token_digests, bot_delay, finished, settings"
            " FROM tables WHERE closed = 0 ORDER BY created"
        ).fetchall()
        for row in rows:
            actions = tuple(
                text
                for (text,) in self.db.execute(
                    "SELECT action FROM actions WHERE table_id = ? ORDER BY number", (row[0],)
                )
            )
            yield stored_table(row, actions)

    def record_path(self, table_id: str) -> Path:
        """Where the game record of a finished table is written."""
        return self.records_dir / f"{table_id}.json"

    def save_record(self, table_id: str, state: GameState, seats: Sequence[str]) -> Path:
        """Write the game record of ``state`` (atomically) for ``table_id``; returns its path."""
        return save_record(record_of(state, bots=list(seats)), self.record_path(table_id))

    def _transaction(self) -> _Transaction:
        return _Transaction(self.db)


def stored_table(row: Sequence[Any], actions: Sequence[str]) -> StoredTable:
    """A :class:`StoredTable` from a row of the ``tables`` columns ``id, ruleset, options, players, seed, seats,
    names, token_digests, bot_delay, finished, settings`` (both stores read them in that order) and its actions."""
    return StoredTable(
        id=row[0],
        ruleset=row[1],
        options=tuple(json.loads(row[2])),
        players=row[3],
        seed=row[4],
        seats=tuple(json.loads(row[5])),
        names=tuple(json.loads(row[6])),
        token_digests=tuple(json.loads(row[7])),
        bot_delay=float(row[8]),
        finished=bool(row[9]),
        actions=tuple(actions),
        settings=settings_from_json(row[10]),
    )


def settings_from_json(text: str) -> dict[str, object]:
    """A stored settings column (a JSON object; anything else reads as the defaults)."""
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


@contextlib.contextmanager
def _taken(table_id: str) -> Iterator[None]:
    """Turn the primary key's refusal of a second table ``table_id`` into :class:`TableExists`."""
    try:
        yield
    except sqlite3.IntegrityError as error:
        if "tables.id" not in str(error):
            raise
        raise TableExists(table_id) from None


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (or ``ROLLBACK`` on an exception)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")
