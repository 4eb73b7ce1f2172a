"""Which save a game may write: an exclusive lock per save, so two ``play`` windows never share one.

A window holds an operating-system lock on a small file next to its save,
``.<save name>.lock``, for as long as it runs (``fcntl.flock``; ``msvcrt.locking`` on
Windows). The system releases the lock when the process ends, even when it crashes, so a
lock file left behind never blocks anyone: only a running window holds a save. Where no
such lock exists (or the file system refuses it) saves are not locked, as before.

:func:`claim_save` picks the save of a window. The usual one (``current-game.json``) when
no other window holds it; otherwise a numbered one next to it (``current-game-2.json``,
``current-game-3.json`` ...), so a second window plays in its own file and neither game
overwrites the other. A free numbered save with a game waiting to be continued is
preferred to an empty one, so a game played in a second window can be continued later.

This module imports neither the engine nor the saves (the setup screen's first frame must
not wait for them).
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MAX_SLOTS = 99
"""How many saves one base name has (``current-game.json`` and ``current-game-2.json`` to ``-99``)."""


def slot_path(base: Path, number: int) -> Path:
    """Save number ``number`` of ``base``: ``base`` itself for 1, ``<stem>-<number><suffix>`` next to it after."""
    if number == 1:
        return base
    return base.with_name(f"{base.stem}-{number}{base.suffix}")


def lock_path(save: Path) -> Path:
    """The lock file of ``save``: ``.<save name>.lock`` in the same folder."""
    return save.with_name(f".{save.name}.lock")


class SaveLock:
    """An exclusive lock on one save, held until :meth:`release` (or the end of the process)."""

    def __init__(self, save: Path, fd: int | None) -> None:
        self.save = save
        """The save this lock protects."""
        self._fd = fd

    @property
    def enforced(self) -> bool:
        """Whether the operating system enforces the lock (``False`` where locks are not available)."""
        return self._fd is not None

    @classmethod
    def acquire(cls, save: Path) -> SaveLock | None:
        """Lock ``save`` without waiting; ``None`` when another process (or another lock here) holds it.

        A folder that cannot be created or a file system without locks gives a lock that
        protects nothing (:attr:`enforced` is ``False``): saving then works, or fails, as before.
        """
        try:
            save.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock_path(save), os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return cls(save, None)
        try:
            held = _lock(fd)
        except OSError:  # no locks on this file system (ENOLCK ...): degrade to no lock
            os.close(fd)
            return cls(save, None)
        if not held:
            os.close(fd)
            return None
        return cls(save, fd)

    def release(self) -> None:
        """Release the lock (closing its file; the lock file stays, harmless)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def __del__(self) -> None:
        self.release()


_BUSY = {errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK, errno.EDEADLK}


def _lock(fd: int) -> bool:
    """Take an exclusive lock on ``fd`` without waiting: ``True`` if taken, ``False`` if held elsewhere.

    Any other failure is raised (the caller then goes without a lock).
    """
    if sys.platform == "win32":
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError as error:
            if error.errno in _BUSY:
                return False
            raise
        return True
    try:
        import fcntl
    except ImportError:  # pragma: no cover - a platform with neither
        raise OSError(errno.ENOLCK, "no file locks") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        if error.errno in _BUSY:
            return False
        raise
    return True


@dataclass
class Claim:
    """The save a window plays in, and what the player should know about it."""

    path: Path | None
    """The save this window writes (``None``: every numbered save is held by another window)."""
    lock: SaveLock | None
    base: Path
    """The save asked for (``current-game.json``, or the file given to the app)."""
    base_in_use: bool
    """Whether another window holds ``base`` (so this window plays elsewhere)."""

    def release(self) -> None:
        """Release the lock (when the window closes)."""
        if self.lock is not None:
            self.lock.release()


def claim_save(base: Path, waiting: Callable[[Path], bool]) -> Claim:
    """Lock the save this window will use: the first free one with a game ``waiting`` to be continued, else the
    first free one (``base`` when no other window holds it).

    ``waiting(path)`` is asked only about saves that exist and that no other window holds.
    """
    first_free: SaveLock | None = None
    base_in_use = False
    for number in range(1, MAX_SLOTS + 1):
        path = slot_path(base, number)
        exists = path.exists()
        if first_free is not None and not exists:
            continue
        lock = SaveLock.acquire(path)
        if lock is None:
            base_in_use = base_in_use or number == 1
            continue
        if exists and waiting(path):
            if first_free is not None:
                first_free.release()
            return Claim(path, lock, base, base_in_use)
        if first_free is None:
            first_free = lock
        else:
            lock.release()
    return Claim(first_free.save if first_free else None, first_free, base, base_in_use)
