"""Load benchmark of the game server: many tables of API clients against one ``biblios-kit host`` over loopback.

The server runs in its own process (``biblios-kit host`` on 127.0.0.1, a temporary data
folder); this process plays every seat of every table through the WebSocket API: each
seat, on its turn, waits ``--think`` seconds, then sends a random legal action. For
every action the benchmark notes when it was sent and when *every* seat of the table
had received the view of the new version; the difference is the action's latency.

Printed: actions per second (all tables together), latency median, p95 and max, the
errors (any error reply fails the run), and, with ``--to-the-end``, that every finished
table's game record replays.

Run: ``.venv/bin/python benchmarks/network.py [--tables 100] [--seats 4] [--think 0.5]
[--actions 150 | --to-the-end]``. Target: 100 tables of 4 seats, p95 < 100 ms, no error.
Figures go in docs/performance.md (network section).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Table:
    """The benchmark's side of one table: its seats' sockets and the latency of each action."""

    def __init__(self, table: str, tokens: list[str], rng: random.Random) -> None:
        self.id = table
        self.tokens = tokens
        self.rng = rng
        self.seen = [-1] * len(tokens)  # latest version each seat received
        self.sent_at: dict[int, float] = {}  # version expected after the action -> when it was sent
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.finished = asyncio.Event()
        self.actions = 0


async def play_seat(http: aiohttp.ClientSession, base: str, table: Table, seat: int, think: float,
                    limit: int | None) -> None:  # fmt: skip
    async with http.ws_connect(f"{base}/api/tables/{table.id}/ws", max_msg_size=0) as ws:
        await ws.send_json({"type": "hello", "token": table.tokens[seat]})
        async for message in ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            data = json.loads(message.data)
            kind = data["type"]
            if kind == "error":
                table.errors.append(f"seat {seat}: {data['code']}: {data['message']}")
                continue
            if kind != "view":
                continue
            now = time.perf_counter()
            version = data["version"]
            table.seen[seat] = version
            sent = table.sent_at.get(version)
            if sent is not None and min(table.seen) >= version:
                table.latencies.append(now - sent)
                del table.sent_at[version]
            obs = data["observation"]
            if data["result"] is not None or (limit is not None and version >= limit):
                table.finished.set()
                break
            if obs["current_player"] == seat and obs["legal_actions"]:
                if think:
                    await asyncio.sleep(think * (0.5 + table.rng.random()))
                action = table.rng.choice(obs["legal_actions"])
                table.sent_at[version + 1] = time.perf_counter()
                table.actions += 1
                await ws.send_json({"type": "action", "action": action, "version": version})


async def run(args: argparse.Namespace, base: str, admin: str) -> tuple[list[Table], float]:
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as http:
        tables = []
        for index in range(args.tables):
            async with http.post(
                f"{base}/api/tables",
                json={
                    "ruleset": args.ruleset,
                    "players": args.seats,
                    "seats": ["human"] * args.seats,
                    "seed": index,
                    "bot_delay": 0,
                },
                headers={"Authorization": f"Bearer {admin}"},
            ) as response:
                reply = await response.json()
                if response.status != 201:
                    raise SystemExit(f"cannot create a table: {reply}")
            tokens = [s["token"] for s in reply["seats"]]
            tables.append(Table(reply["table"], tokens, random.Random(index)))
        limit = None if args.to_the_end else args.actions
        started = time.perf_counter()
        await asyncio.gather(
            *(play_seat(http, base, table, seat, args.think, limit) for table in tables for seat in range(args.seats))
        )
        elapsed = time.perf_counter() - started
    return tables, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--think", type=float, default=0.5, help="mean seconds a seat waits before acting")
    parser.add_argument("--actions", type=int, default=150, help="actions per table (unless --to-the-end)")
    parser.add_argument("--to-the-end", action="store_true", help="play every game to the end; check the records")
    parser.add_argument("--ruleset", default="biblios")
    parser.add_argument("--durable", action="store_true", help="run the server with --durable (fsync per action)")
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="biblios-net-bench-"))
    port = free_port()
    command = [sys.executable, "-m", "biblios_kit", "host", "--port", str(port), "--data-dir", str(folder)]
    if args.durable:
        command.append("--durable")
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              start_new_session=True, env={**os.environ, "BIBLIOS_LANG": "en"})  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while not (folder / "admin-token").exists() or not _answers(base):
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit("the server did not start")
            time.sleep(0.1)
        admin = (folder / "admin-token").read_text().strip()
        cpu_before = _cpu(server.pid)
        tables, elapsed = asyncio.run(run(args, base, admin))
        cpu = _cpu(server.pid) - cpu_before
    finally:
        os.killpg(server.pid, signal.SIGINT)
        server.wait(15)
    latencies = sorted(x for t in tables for x in t.latencies)
    errors = [e for t in tables for e in t.errors]
    actions = sum(t.actions for t in tables)
    print(f"tables: {args.tables} x {args.seats} seats, think {args.think} s, "
          f"{'to the end' if args.to_the_end else f'{args.actions} actions per table'}")  # fmt: skip
    print(f"actions: {actions} in {elapsed:.1f} s = {actions / elapsed:.0f} actions/s (server CPU {cpu:.1f} s)")
    if latencies:
        p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))]
        print(f"latency action -> every seat's view: median {statistics.median(latencies) * 1000:.1f} ms, "
              f"p95 {p95 * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms ({len(latencies)} actions)")  # fmt: skip
    print(f"errors: {len(errors)}" + (f" (first: {errors[0]})" if errors else ""))
    if args.to_the_end:
        from biblios_kit.engine.records import load_record, replay

        records = sorted((folder / "records").glob("*.json"))
        for path in records:
            replay(load_record(path))
        print(f"records: {len(records)} finished tables, every one replays")


def _answers(base: str) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(base + "/api", timeout=1) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def _cpu(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux ``/proc``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


if __name__ == "__main__":
    main()
