"""Load benchmark of the game server: many tables of browser-client seats against one ``biblios-kit host`` over loopback.

The server runs in its own process (``biblios-kit host`` on 127.0.0.1, a temporary data
folder); this process (the load generator, a second process with its own CPU) plays every
seat of every table as a browser page does: one WebSocket per seat (``browser_seat.py``, spoken
directly over an asyncio transport so that the generator costs less CPU than the server; it sends
the ``Origin`` of a page on the server's address and offers permessage-deflate, as browsers do,
which the server declines), a ``hello`` with the
seat's token asking for updates (``--whole-views``: not, as the first clients of protocol 1),
then a whole view and updates pushed by the server (each applied to the view the seat holds,
as the page does, and carrying only the events the seat has not seen yet: the seat keeps the
log and checks that ``first_event`` continues it), and
on its turn, after a think time drawn uniformly between half and one and a half times
``--think``, a random legal action with the ``version`` it answers. For every action the
benchmark notes when it was sent and when *every* seat of the table had received the view
of the new version; the difference is the action's latency.

Tables are created with the admin token; a ``429 rate_limited`` reply is retried after a
short wait (creating 1,000 tables takes longer than the admin's burst of requests).

Printed: actions per second (all tables together), the server process's CPU per action
(user + system, from ``/proc/PID/stat``, with the kernel's share) and its resident memory, the load generator's
own CPU, the load average, latency median, p95 and max, the errors (any error reply
fails the run), and, with ``--to-the-end``, that every finished table's game record
replays.

With ``--db postgresql``, the tables are kept in PostgreSQL (a throwaway server started
from the machine's binaries, as the tests do, with ``fsync`` on; or ``--db-url``), and
``--processes N`` runs N ``host --db`` processes on it: seat S of table T connects to process
(T * seats + S) mod N, so most actions reach some seats through another process (``NOTIFY``).
The server CPU printed is then that of every ``host`` process, and PostgreSQL's own is
printed apart.

Run: ``.venv/bin/python benchmarks/network.py [--tables 1000] [--seats 4] [--think 0.5]
[--seconds 60 | --actions 150 | --to-the-end] [--whole-views] [--db sqlite|postgresql [--processes 2]]
[--profile FILE]``. Target: 1,000 tables of 4 seats at a think time of 0.5 s, p95 < 100 ms,
no error. Figures go in docs/performance.md (network section).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import aiohttp
from browser_seat import BrowserSeat, Table

ROOT = Path(__file__).resolve().parent.parent

PROFILED = """
import cProfile, runpy, sys, time
out = sys.argv.pop(1)
profile = cProfile.Profile(time.process_time)  # CPU time: the machine is shared
profile.enable()
try:
    runpy.run_module("biblios_kit", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
finally:
    profile.disable()
    profile.dump_stats(out)
"""
"""The server's command with ``--profile``: ``python -m biblios_kit`` under cProfile, counting CPU time."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def create_table(http: aiohttp.ClientSession, base: str, admin: str, body: dict[str, object]) -> dict:
    """``POST /api/tables``, waiting and retrying while the server answers ``429 rate_limited``."""
    wait = 0.05
    while True:
        async with http.post(f"{base}/api/tables", json=body, headers={"Authorization": f"Bearer {admin}"}) as response:
            reply = await response.json()
            if response.status == 201:
                return dict(reply)
            if response.status != 429:
                raise SystemExit(f"cannot create a table: {reply}")
        await asyncio.sleep(wait)
        wait = min(1.0, wait * 2)


async def run(
    args: argparse.Namespace, bases: list[str], admin: str, on_start: Callable[[], None]
) -> tuple[list[Table], float, float, list[float]]:
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as http:
        tables = []
        for index in range(args.tables):
            body = {"ruleset": args.ruleset, "players": args.seats, "seats": ["human"] * args.seats, "seed": index,
                    "bot_delay": 0}  # fmt: skip
            reply = await create_table(http, bases[index % len(bases)], admin, body)
            tokens = [s["token"] for s in reply["seats"]]
            tables.append(Table(reply["table"], tokens, random.Random(index)))
        limit = None if args.to_the_end or args.seconds else args.actions
        # No collection of this process's growing heap in the middle of the play (a full one took over a
        # second at 1,000 tables, and the latencies measured here would include it): it runs briefly.
        gc.collect()
        gc.freeze()
        gc.disable()
        on_start()
        started = time.perf_counter()
        stop_at = started + args.seconds if args.seconds else float("inf")
        loop = asyncio.get_running_loop()
        seats = []
        for index, table in enumerate(tables):
            for seat in range(args.seats):
                host = bases[(index * args.seats + seat) % len(bases)].removeprefix("http://")
                seats.append(BrowserSeat(host=host, table=table, seat=seat, think=args.think, limit=limit,
                                         stop_at=stop_at, updates=not args.whole_views))  # fmt: skip
        for first in range(0, len(seats), 100):  # a hundred connections opened at a time
            await asyncio.gather(*(_connect(loop, seat) for seat in seats[first : first + 100]))
        lags: list[float] = []
        monitor = asyncio.create_task(_loop_lags(lags))
        # With --seconds, a seat waiting for a view when the time is up is stopped a little later
        # (views of the last actions still arrive meanwhile).
        timeout = args.seconds + 2 * args.think + 5 if args.seconds else None
        await asyncio.wait([seat.done for seat in seats], timeout=timeout)
        for protocol in seats:
            protocol.stop(None)
        monitor.cancel()
        gc.enable()
        elapsed = time.perf_counter() - started
        if args.seconds:
            elapsed = min(elapsed, args.seconds)  # no action is sent after that
    return tables, started, elapsed, lags


async def _loop_lags(lags: list[float], period: float = 0.01) -> None:
    """Note how late this process's event loop wakes a task that sleeps ``period`` (its own delays, which the
    latencies it measures include)."""
    while True:
        before = time.perf_counter()
        await asyncio.sleep(period)
        lags.append(time.perf_counter() - before - period)


async def _connect(loop: asyncio.AbstractEventLoop, seat: BrowserSeat) -> None:
    address, port = seat.host.rsplit(":", 1)
    await loop.create_connection(lambda: seat, address, int(port))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--think", type=float, default=0.5, help="mean seconds a seat waits before acting")
    parser.add_argument("--actions", type=int, default=150, help="actions per table (unless --to-the-end)")
    parser.add_argument("--seconds", type=float, default=0, help="play for this long (instead of --actions)")
    parser.add_argument("--to-the-end", action="store_true", help="play every game to the end; check the records")
    parser.add_argument("--ruleset", default="biblios")
    parser.add_argument("--durable", action="store_true", help="run the server with --durable (fsync per action)")
    parser.add_argument(
        "--whole-views", action="store_true", help="ask for whole views, not updates (protocol 1's first clients)"
    )
    parser.add_argument("--profile", metavar="FILE", help="run the server under cProfile, its statistics to FILE")
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite", help="where the tables are kept")
    parser.add_argument("--db-url", help="an existing PostgreSQL database (default: a throwaway server)")
    parser.add_argument("--processes", type=int, default=1, help="host processes sharing the tables (PostgreSQL)")
    parser.add_argument(
        "--async-commit",
        action="store_true",
        help="PostgreSQL: synchronous_commit=off in the URL (no wait for the disk, like SQLite's default)",
    )
    args = parser.parse_args()
    if args.processes > 1 and args.db != "postgresql":
        parser.error("--processes above 1 needs --db postgresql")

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # stop the server too (the finally clause below)
    folder = Path(tempfile.mkdtemp(prefix="biblios-net-bench-"))
    try:
        report(args, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def report(args: argparse.Namespace, folder: Path) -> None:
    """Run the benchmark with the servers' data in ``folder`` (and maybe a PostgreSQL server) and print its figures."""
    with contextlib.ExitStack() as stack:
        database: object = None
        url = args.db_url
        if args.db == "postgresql" and url is None:
            sys.path.insert(0, str(ROOT / "tests"))
            from pg_cluster import cluster

            database = stack.enter_context(cluster(fsync=True))
            url = database.url()  # type: ignore[attr-defined]
        if url is not None and args.async_commit:
            url += ("&" if "?" in url else "?") + "options=-c%20synchronous_commit%3Doff"
        measure(args, folder, url, database.pid() if database is not None else None)  # type: ignore[attr-defined]


def measure(args: argparse.Namespace, folder: Path, url: str | None, database_pid: int | None) -> None:
    """Start the ``host`` processes, play, stop them, print the figures."""
    servers = []
    bases = []
    for number in range(args.processes):
        port = free_port()
        command = [sys.executable, "-m", "biblios_kit", "host", "--port", str(port), "--data-dir", str(folder)]
        if args.profile and number == 0:
            command[1:3] = ["-c", PROFILED, str(Path(args.profile).resolve())]
        if args.durable:
            command.append("--durable")
        if url is not None:
            command += ["--db", url]
        servers.append(subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        start_new_session=True, env={**os.environ, "BIBLIOS_LANG": "en"}))  # fmt: skip
        bases.append(f"http://127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + 30
        while not (folder / "admin-token").exists() or not all(_answers(base) for base in bases):
            if time.monotonic() > deadline or any(server.poll() is not None for server in servers):
                raise SystemExit("the server did not start")
            time.sleep(0.1)
        admin = (folder / "admin-token").read_text().strip()
        marks: dict[str, object] = {}

        def server_cpu() -> tuple[float, float]:
            times = [_cpu(server.pid) for server in servers]
            return sum(user for user, _system in times), sum(system for _user, system in times)

        def on_start() -> None:
            marks.update(cpu=server_cpu(), mine=_own_cpu(), load=os.getloadavg()[0], db=_tree_cpu(database_pid))

        tables, started, elapsed, lags = asyncio.run(run(args, bases, admin, on_start))
        user, system = (now - then for now, then in zip(server_cpu(), marks["cpu"]))  # type: ignore[call-overload]
        cpu = user + system
        client_cpu = _own_cpu() - float(marks["mine"])  # type: ignore[arg-type]
        db_cpu = _tree_cpu(database_pid) - float(marks["db"])  # type: ignore[arg-type]
        memory = [_memory(server.pid) for server in servers]
        rss, peak = max(m[0] for m in memory), max(m[1] for m in memory)
        loads = (float(marks["load"]), os.getloadavg()[0])  # type: ignore[arg-type]
    finally:
        for server in servers:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGINT)
        for server in servers:
            server.wait(30)
    sent = [x for t in tables for x in t.latencies]  # (when sent, latency)
    errors = [e for t in tables for e in t.errors]
    actions = sum(t.actions for t in tables)
    span = (
        "to the end"
        if args.to_the_end
        else f"{args.seconds:g} s"
        if args.seconds
        else f"{args.actions} actions per table"
    )
    store = (
        "SQLite" if url is None else f"PostgreSQL, {args.processes} host process{'es' if args.processes > 1 else ''}"
    )
    if args.async_commit:
        store += ", synchronous_commit=off"
    kind = "whole views" if args.whole_views else "updates"
    print(f"tables: {args.tables} x {args.seats} browser-client seats ({kind}), think {args.think} s, {span}; {store}")
    print(f"load average: {loads[0]:.2f} at the start, {loads[1]:.2f} at the end (2-core machine: os.cpu_count() = "
          f"{os.cpu_count()})")  # fmt: skip
    print(f"actions: {actions} in {elapsed:.1f} s = {actions / elapsed:.0f} actions/s")
    per_action = cpu / actions * 1000 if actions else 0.0
    print(f"server process{'es' if len(servers) > 1 else ''}: CPU {cpu:.1f} s = {per_action:.3f} ms per action "
          f"({cpu / elapsed:.0%} of a core; {system / cpu if cpu else 0:.0%} of it in the kernel); RSS {rss / 1e6:.0f} MB (peak {peak / 1e6:.0f} MB; the largest process)")  # fmt: skip
    if database_pid is not None:
        print(f"PostgreSQL server: CPU {db_cpu:.1f} s = {db_cpu / max(actions, 1) * 1000:.3f} ms per action "
              f"({db_cpu / elapsed:.0%} of a core)")  # fmt: skip
    print(f"load generator (this process): CPU {client_cpu:.1f} s ({client_cpu / elapsed:.0%} of a core)")
    _print_latency("latency action -> every seat's view", [latency for _when, latency in sent])
    first_views = [when for t in tables for when in t.first_view]
    if sent and None not in first_views:
        # Connecting thousands of seats (a handshake and a whole view each) keeps the server busy
        # for the first seconds; the figures after that are the steady state.
        ready = max(when for when in first_views if when is not None)
        _print_latency(f"  once every seat had its first view ({ready - started:.1f} s in)",
                       [latency for when, latency in sent if when >= ready])  # fmt: skip
        windows: dict[int, list[float]] = {}
        for when, latency in sent:
            windows.setdefault(int((when - started) // 10), []).append(latency)
        print(
            "  p95 per 10 s: " + ", ".join(f"{_p95(sorted(w)) * 1000:.0f}" for _k, w in sorted(windows.items())) + " ms"
        )
    if lags:
        ordered = sorted(lags)
        print(f"load generator's event loop, late by: median {statistics.median(ordered) * 1000:.1f} ms, "
              f"p95 {_p95(ordered) * 1000:.1f} ms, max {ordered[-1] * 1000:.1f} ms")  # fmt: skip
    print(f"errors: {len(errors)}" + (f" (first: {errors[0]})" if errors else ""))
    if args.to_the_end:
        from biblios_kit.engine.records import load_record, replay

        records = sorted((folder / "records").glob("*.json"))
        for path in records:
            replay(load_record(path))
        print(f"records: {len(records)} finished tables, every one replays")


def _p95(ordered: list[float]) -> float:
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def _print_latency(label: str, latencies: list[float]) -> None:
    """Median, p95 and max of ``latencies`` (seconds), in milliseconds."""
    if latencies:
        ordered = sorted(latencies)
        print(f"{label}: median {statistics.median(ordered) * 1000:.1f} ms, p95 {_p95(ordered) * 1000:.1f} ms, "
              f"max {ordered[-1] * 1000:.1f} ms ({len(ordered)} actions)")  # fmt: skip


def _answers(base: str) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(base + "/api", timeout=1) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def _own_cpu() -> float:
    times = os.times()
    return times.user + times.system


def _memory(pid: int) -> tuple[int, int]:
    """Resident memory of a process now and at its peak, in bytes (``VmRSS``, ``VmHWM`` of ``/proc/PID/status``)."""
    found = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _sep, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0]) * 1024
    except (OSError, ValueError):
        pass
    return found.get("VmRSS", 0), found.get("VmHWM", 0)


def _tree_cpu(pid: int | None) -> float:
    """User + system CPU seconds of a process and its children now alive (PostgreSQL: the server and its backends)."""
    if pid is None:
        return 0.0
    total = sum(_cpu(pid))
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                total += sum(_cpu(int(stat.parent.name)))
        except (OSError, IndexError, ValueError):
            continue
    return total


def _cpu(pid: int) -> tuple[float, float]:
    """User and system CPU seconds of a process so far (Linux ``/proc``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        tick = os.sysconf("SC_CLK_TCK")
        return int(fields[11]) / tick, int(fields[12]) / tick
    except (OSError, IndexError, ValueError):
        return 0.0, 0.0


if __name__ == "__main__":
    main()
