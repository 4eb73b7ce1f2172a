"""The game server's table hub alone, in one process: CPU per action and garbage-collector pauses, without a network.

``benchmarks/network.py`` measures the whole server with thousands of WebSocket clients, which
on a two-core machine share the CPU with the server. This benchmark isolates what the server
does per action once a message is parsed: check and commit the action (SQLite, in a temporary
folder), apply it, and build and write every seat's update (each seat a listener asking for
updates, whose ``write`` keeps the text, as the server's WebSocket does). Tables are played
round-robin, one random legal action at a time, as seats acting in turn would.

Printed: CPU time per action (``time.process_time``, steadier than wall time on a shared
machine), the collector's collections per generation and their total and longest times, and
the resident memory. ``--gc`` sets the collector's thresholds (``default`` for Python's,
``server`` for what ``biblios-kit host`` sets, or three numbers) to compare policies on the
same actions.

Run: ``PYTHONPATH=$PWD .venv/bin/python benchmarks/hub.py [--tables 1000] [--seats 4] [--actions 40000] [--gc server]``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

from biblios_kit.net.server import GC_THRESHOLDS
from biblios_kit.net.store import Store
from biblios_kit.net.tables import TableHub
from biblios_kit.net.views import legal_texts

POLICIES = {"default": (700, 10, 10), "server": GC_THRESHOLDS}


async def play(tables: int, seats: int, actions: int, folder: Path) -> tuple[float, int, list[float], list[int]]:
    """Play ``actions`` actions over ``tables`` tables; return CPU seconds, actions done, pauses and bytes written."""
    hub = TableHub(Store(folder))
    written = [0]

    def write(text: str) -> bool:
        written[0] += len(text)
        return True

    rng = random.Random(0)
    open_tables = []
    for index in range(tables):
        invitation = hub.create("biblios", [], seats, ["human"] * seats, seed=index, bot_delay=0)
        table = hub.tables[invitation.table]
        for seat in range(seats):
            hub.listen(table, seat, updates=True, write=write)
        open_tables.append(table)
    pauses: list[float] = []
    started_at = [0.0]

    def timer(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started_at[0] = time.perf_counter()
        elif info["generation"] >= 1:
            pauses.append(time.perf_counter() - started_at[0])

    gc.callbacks.append(timer)
    cpu = time.process_time()
    done = 0
    try:
        while done < actions and open_tables:
            for table in list(open_tables):
                seat = table.state.current_player
                if seat is None:
                    open_tables.remove(table)
                    continue
                await hub.submit(table, seat, [rng.choice(legal_texts(table.state, seat))], table.version)
                done += 1
                if done >= actions:
                    break
        cpu = time.process_time() - cpu
    finally:
        gc.callbacks.remove(timer)
    hub.store.close()
    return cpu, done, pauses, written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--actions", type=int, default=40_000)
    parser.add_argument("--gc", default="server", help="default, server, or three thresholds: 700,100,100")
    args = parser.parse_args()
    thresholds = POLICIES.get(args.gc) or tuple(int(n) for n in args.gc.split(","))
    gc.set_threshold(*thresholds)
    gc.freeze()  # as the server does once started
    with tempfile.TemporaryDirectory(prefix="biblios-hub-bench-") as folder:
        counts = [0, 0, 0]

        def count(phase: str, info: dict[str, int]) -> None:
            if phase == "stop":
                counts[info["generation"]] += 1

        gc.callbacks.append(count)
        cpu, done, pauses, written = asyncio.run(play(args.tables, args.seats, args.actions, Path(folder)))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"python {sys.version.split()[0]}, {args.tables} tables x {args.seats} seats, gc thresholds {thresholds}")
    print(f"actions: {done}; CPU {cpu:.2f} s = {cpu / done * 1000:.3f} ms per action; {written[0] / done:.0f} bytes "
          f"written per action; peak RSS {rss:.0f} MB")  # fmt: skip
    longest = max(pauses, default=0.0)
    print(f"collections: {counts[0]} young, {counts[1]} middle, {counts[2]} full; middle and full: "
          f"{sum(pauses) * 1000:.0f} ms in all, longest {longest * 1000:.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
