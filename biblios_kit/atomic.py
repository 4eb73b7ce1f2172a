"""Atomic file writes: readers see the old file or the new one, never a partial one.

A write goes through a temporary file named ``.<target name>.<8 random characters>.tmp``
in the target's folder. A process killed between creating it and renaming it leaves it
behind; :func:`remove_stale_temporaries` deletes such leftovers, and only those: files
with exactly that name shape, regular files owned by the current user, older than
:data:`STALE_AFTER` seconds (so a write in progress in another process is never touched).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
import time
from pathlib import Path

TEMP_SUFFIX = ".tmp"
"""Suffix of the temporary files of atomic writes."""
STALE_AFTER = 3600.0
"""Seconds after which an atomic write's temporary file is taken as abandoned (a write takes milliseconds)."""
# mkstemp's random part: 8 characters from [a-z0-9_] (tempfile._RandomNameSequence).
_TEMP_NAME = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")


def write_text_atomic(path: str | os.PathLike[str], text: str, *, durable: bool = True) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file in the same folder, then rename.

    With ``durable`` the data is flushed to disk (``fsync``) before the rename; batch
    writers that can afford to lose the last file on a power cut may skip it.
    """
    target = Path(path)
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return target


def is_temporary_name(name: str) -> bool:
    """Whether ``name`` has the shape of an atomic write's temporary file (``.<name>.<random>.tmp``)."""
    return _TEMP_NAME.match(name) is not None


def remove_stale_temporaries(folder: str | os.PathLike[str], *, older_than: float = STALE_AFTER) -> list[Path]:
    """Delete the temporary files that interrupted atomic writes left in ``folder``; return those removed.

    Only names of the shape :func:`write_text_atomic` creates, only regular files (never a
    symbolic link, a folder or anything else), only the current user's, and only those not
    modified for ``older_than`` seconds. A missing or unreadable folder removes nothing.
    """
    removed: list[Path] = []
    now = time.time()
    uid = os.getuid() if hasattr(os, "getuid") else None
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        if not is_temporary_name(entry.name):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode) or (uid is not None and info.st_uid != uid):
            continue
        if now - info.st_mtime < older_than:
            continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed.append(Path(entry.path))
    return removed
