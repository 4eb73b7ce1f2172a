"""Which store a server opens: SQLite in its data folder (the default) or PostgreSQL at a ``--db`` URL.

Apart from :mod:`biblios_kit.net.storage` (the protocol both stores implement) so that the PostgreSQL
store, which imports that protocol, is imported only here and only when asked for.
"""

from __future__ import annotations

from pathlib import Path

from biblios_kit.net.storage import Storage, StorageError
from biblios_kit.net.store import Store


def open_store(data_dir: Path, *, db: str | None = None, durable: bool = False) -> Storage:
    """The store of a server: PostgreSQL at ``db`` when given (records still in ``data_dir``), else SQLite in ``data_dir``.

    Raises :class:`StorageError` when the database cannot be reached or the driver is missing.
    """
    if db is None:
        return Store(data_dir, durable=durable)
    try:
        from biblios_kit.net.pg_store import PgStore
    except ImportError as error:
        raise StorageError(f"{error} (pip install 'biblios-kit[postgres]')") from None
    return PgStore(db, data_dir)
