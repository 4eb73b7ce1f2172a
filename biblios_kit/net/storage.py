"""What the server needs of a store of tables (:class:`Storage`, :class:`SharedStorage`), and the store ``host --db`` picks.

Two stores implement it: :class:`~biblios_kit.net.store.Store` (SQLite in the data folder,
one server process, the default) and :class:`~biblios_kit.net.pg_store.PgStore`
(PostgreSQL, shared by several server processes on one machine or several). A shared
store commits an action only when the table's stored version is the one the process
expected (:class:`VersionConflict` otherwise: two processes can never both accept version
N) and tells every process of every commit (:meth:`SharedStorage.changes`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Iterator, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable
from urllib.parse import urlsplit

from biblios_kit.engine.state import GameState
from biblios_kit.net.store import RematchRecord, StoredTable

DATABASE_SCHEMES = ("postgresql", "postgres")
"""URL schemes ``host --db`` accepts."""


TABLE_CHANGED = -1
"""The version :meth:`SharedStorage.changes` gives when a table's tokens or settings changed, or it was closed."""


REMATCH_CHANGED = -2
"""The version :meth:`SharedStorage.changes` gives when a finished table's rematch votes changed or its new table exists."""


PRESENCE_CHANGED = -3
"""The version :meth:`SharedStorage.changes` gives when the seats connected to a table through another process changed."""


class VersionConflict(Exception):
    """Another process committed an action of this table first: its stored version is not ``expected``."""

    def __init__(self, table_id: str, expected: int) -> None:
        super().__init__(f"table {table_id!r} is no longer at version {expected}")
        self.table_id = table_id
        self.expected = expected


class StorageError(Exception):
    """The database cannot be reached or refused a write (nothing was committed)."""


class Storage(Protocol):
    """A store of tables used by one server process (the SQLite store is one)."""

    records_dir: Path
    """Where finished games' records are written (one JSON file per table)."""

    def create(self, table: StoredTable) -> None:
        """Store a new table (with no action yet)."""

    def append(self, table_id: str, first: int, actions: Sequence[str], finished: bool = False) -> None:
        """Commit ``actions`` as numbers ``first, first + 1 ...`` of ``table_id`` (all or none)."""

    def load_all(self) -> Iterator[StoredTable]:
        """Every stored table that is not closed, with its actions, oldest first."""

    def set_token_digests(self, table_id: str, digests: Sequence[str]) -> None:
        """Replace a table's token digests (a link issued again, a free seat taken)."""

    def give_seat(self, table_id: str, digests: Sequence[str], names: Sequence[str]) -> None:
        """Replace a table's token digests and seat names together (a visitor took a free seat, with a name)."""

    def set_settings(self, table_id: str, settings: dict[str, object]) -> None:
        """Replace a table's settings (JSON)."""

    def close_table(self, table_id: str) -> None:
        """Mark a table closed: it is kept, but no longer loaded."""

    def record_path(self, table_id: str) -> Path:
        """Where the game record of a finished table is written."""

    def save_record(self, table_id: str, state: GameState, seats: Sequence[str]) -> Path:
        """Write the game record of ``state`` for ``table_id``; returns its path."""

    def rematch_table(self, table_id: str, candidate: str) -> str:
        """The id of ``table_id``'s rematch table: ``candidate`` when none was reserved yet (the first vote)."""

    def rematch_vote(self, table_id: str, seat: int, vote: bool, digest: str) -> None:
        """Record ``seat``'s rematch vote, with the digest of its token at the new table (a shared store announces it)."""

    def rematch_created(self, table_id: str) -> None:
        """Note that ``table_id``'s rematch table exists (a shared store announces it)."""

    def rematch_record(self, table_id: str) -> RematchRecord:
        """The stored rematch of ``table_id`` (no votes, no new table before the first vote)."""

    def checkpoint(self) -> None:
        """Housekeeping run now and then from a thread (the SQLite store copies its log into the database)."""

    def close(self) -> None:
        """Close the store."""


@runtime_checkable
class SharedStorage(Storage, Protocol):
    """A store that several server processes use at once: commits are checked and announced."""

    def load(self, table_id: str) -> StoredTable | None:
        """One stored table with its actions (``None`` when there is none or it is closed): a table another process created."""

    async def commit(self, table_id: str, first: int, actions: Sequence[str], finished: bool = False) -> None:
        """Commit ``actions`` as numbers ``first ...`` if the stored version is ``first``, else :class:`VersionConflict`.

        Every process (this one too) then hears of it through :meth:`changes`.
        """

    async def actions_since(self, table_id: str, first: int) -> list[str]:
        """The stored actions of ``table_id`` from number ``first`` on, in order."""

    async def access(self) -> dict[str, tuple[tuple[str, ...], tuple[str, ...], dict[str, object]]]:
        """The token digests, seat names and settings of every unfinished table that is not closed."""

    async def versions(self) -> dict[str, int]:
        """The stored version of every unfinished table."""

    async def hold_clocks(self, table_ids: Sequence[str]) -> set[str]:
        """Hold the clock lock of each of ``table_ids`` that no live process holds, release the others; returns those held."""

    async def share_presence(
        self, connected: dict[str, list[int]], announce: Sequence[str] = ()
    ) -> dict[str, set[int]]:
        """Say which seats of which tables are connected to this process (announcing the tables of ``announce``);
        returns the seats connected to the other live processes, by table."""

    relayed: Callable[[str, str], None] | None
    """Called with ``(table, message)`` for each message another process relayed (set by the hub)."""

    async def relay(self, table_id: str, text: str) -> None:
        """Pass ``text`` (a JSON message for ``table_id``'s connections) on to the other processes."""

    def changes(self) -> AsyncGenerator[tuple[str, int] | None, None]:
        """``(table, version)`` for each commit of any process; ``None`` when some may have been missed.

        ``version`` is :data:`TABLE_CHANGED` when the table's tokens or settings changed or it was closed,
        :data:`REMATCH_CHANGED` when its rematch votes changed or its rematch table exists,
        :data:`PRESENCE_CHANGED` when the seats connected to it through another process changed.

        ``None`` comes once listening starts and after each reconnection: the caller compares
        its tables with :meth:`versions` then.
        """

    async def aclose(self) -> None:
        """Close the connections opened in the event loop."""


def is_database_url(text: str) -> bool:
    """Whether ``text`` is a PostgreSQL URL (``postgresql://…``)."""
    return urlsplit(text).scheme in DATABASE_SCHEMES


def redacted(url: str) -> str:
    """``url`` without its password (in the user part or as a ``password=`` parameter), to print or log."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None:
        user, _at, host = netloc.rpartition("@")
        netloc = f"{user.partition(':')[0]}:***@{host}"
    query = "&".join(
        "password=***" if item.lower().startswith("password=") else item for item in parts.query.split("&")
    )
    if netloc == parts.netloc and query == parts.query:
        return url
    return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{query}" if query else "")
