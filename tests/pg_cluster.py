"""A throwaway PostgreSQL server for the tests and the network benchmark, started from the machine's binaries.

PostgreSQL refuses to run as root (as CI does): as root, the cluster's folder is given to
the ``postgres`` system user and ``initdb``/``pg_ctl`` run as that user (``runuser``);
otherwise they run as the current user. The binaries are taken from the PATH, or from
Debian's ``/usr/lib/postgresql/<version>/bin`` (the ``postgresql`` package puts only
wrappers on the PATH). The server listens on 127.0.0.1 only, with trust authentication
for the ``postgres`` role, and its socket in its own folder.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


def binary(name: str) -> str | None:
    """The path of a PostgreSQL server program (``initdb``, ``pg_ctl``), or ``None``."""
    found = shutil.which(name)
    if found:
        return found
    for folder in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (folder / name).is_file():
            return str(folder / name)
    return None


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class Cluster:
    """A running server: where it listens and the URL of a database on it."""

    port: int
    folder: Path
    data: Path

    def pid(self) -> int:
        """The process id of the server's main process (``postmaster.pid``'s first line)."""
        return int((self.data / "postmaster.pid").read_text().split()[0])

    def url(self, database: str = "postgres") -> str:
        """``postgresql://postgres@127.0.0.1:PORT/DATABASE``."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"


def _as_server_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@contextlib.contextmanager
def cluster(*, fsync: bool = False) -> Iterator[Cluster]:
    """Start a new cluster in a temporary folder; stop it and remove the folder on exit.

    Without ``fsync`` (tests) the server never waits for the disk; a benchmark keeps it, as in production.
    """
    initdb, pg_ctl = binary("initdb"), binary("pg_ctl")
    if initdb is None or pg_ctl is None:
        raise RuntimeError("PostgreSQL's initdb and pg_ctl are not installed (apt-get install postgresql)")
    folder = Path(tempfile.mkdtemp(prefix="biblios-pg-"))  # in /tmp, which the postgres user can reach
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    data = folder / "data"
    port = free_port()
    try:
        subprocess.run(
            _as_server_user([initdb, "-D", str(data), "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"]),
            check=True,
            capture_output=True,
        )
        options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections=200"
        if not fsync:
            options += " -c fsync=off"
        subprocess.run(
            _as_server_user([pg_ctl, "-D", str(data), "-o", options, "-l", str(folder / "log"), "-w", "start"]),
            check=True,
            capture_output=True,
        )
        try:
            yield Cluster(port, folder, data)
        finally:
            subprocess.run(
                _as_server_user([pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"]), capture_output=True
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
