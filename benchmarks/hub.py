"""The game server's table hub alone, in one process: CPU per action and garbage-collector pauses, without a network.

``benchmarks/network.py`` measures the whole server with thousands of WebSocket clients, which
on a two-core machine share the CPU with the server. This benchmark isolates what the server
does per action once a message is parsed: check and commit the action (SQLite, in a temporary
folder), apply it, and build and write every seat's update (each seat a listener asking for
updates, whose ``write`` keeps the text, as the server's WebSocket does). Tables are played
round-robin, one random legal action at a time, as seats acting in turn would.

Printed: CPU time per action (``time.process_time``, steadier than wall time on a shared
machine), and for each tenth of the run (an action costs more as a game goes on), the collector's collections per generation and their total and longest times, and
the resident memory. ``--gc`` chooses the collector's policy, to compare them on the same
actions: ``server`` (what ``biblios-kit host`` does, ``net/collector.py``: the automatic collector
off, the objects made since the last collection collected every ``--young-every`` actions, about
its 20 s at 1,400 actions a second), ``default`` (Python's thresholds), ``off``, or three
thresholds for the automatic collector.

Run: ``PYTHONPATH=$PWD .venv/bin/python benchmarks/hub.py [--tables 1000] [--seats 4] [--actions 40000] [--gc server]``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

from biblios_kit.net.collector import ScheduledCollector
from biblios_kit.net.store import Store
from biblios_kit.net.tables import TableHub
from biblios_kit.net.views import legal_texts

POLICIES = {"default": (700, 10, 10)}

CHECKPOINT_EVERY = 7_000
"""Actions between SQLite checkpoints: the server's 5 s at 1,400 actions a second."""


async def play(
    tables: int, seats: int, actions: int, folder: Path, young_every: int | None
) -> tuple[float, int, list[float], list[int], list[float]]:
    """Play ``actions`` actions over ``tables`` tables (a timed collection every ``young_every`` actions, if given);
    return CPU seconds, actions done, pauses, bytes written, and the CPU seconds of each tenth of the actions."""
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
        else:
            pauses.append(time.perf_counter() - started_at[0])

    gc.callbacks.append(timer)
    cpu = time.process_time()
    tenths = [cpu]
    tenth = max(1, actions // 10)
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
                if young_every and done % young_every == 0:
                    ScheduledCollector.collect_young()
                if done % CHECKPOINT_EVERY == 0:
                    hub.store.checkpoint()  # as the server does every 5 s, in a thread
                if done % tenth == 0:
                    tenths.append(time.process_time())
                if done >= actions:
                    break
        cpu = time.process_time() - cpu
    finally:
        gc.callbacks.remove(timer)
    hub.store.close()
    return cpu, done, pauses, written, [b - a for a, b in itertools.pairwise(tenths)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--actions", type=int, default=40_000)
    parser.add_argument("--gc", default="server", help="server, default, off, or three thresholds: 700,100,100")
    parser.add_argument("--young-every", type=int, default=28_000, help="with --gc server: actions between collections")
    args = parser.parse_args()
    young_every = None
    if args.gc in ("server", "off"):
        gc.disable()
        young_every = args.young_every if args.gc == "server" else None
        policy = f"server: collections every {young_every} actions" if young_every else "off"
    else:
        thresholds = POLICIES.get(args.gc) or tuple(int(n) for n in args.gc.split(","))
        gc.set_threshold(*thresholds)
        policy = f"thresholds {thresholds}"
    gc.collect()
    gc.freeze()  # what exists once started, as the server does
    with tempfile.TemporaryDirectory(prefix="biblios-hub-bench-") as folder:
        counts = [0, 0, 0]

        def count(phase: str, info: dict[str, int]) -> None:
            if phase == "stop":
                counts[info["generation"]] += 1

        gc.callbacks.append(count)
        cpu, done, pauses, written, stages = asyncio.run(
            play(args.tables, args.seats, args.actions, Path(folder), young_every)
        )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"python {sys.version.split()[0]}, {args.tables} tables x {args.seats} seats, collector: {policy}")
    print(f"actions: {done}; CPU {cpu:.2f} s = {cpu / done * 1000:.3f} ms per action; {written[0] / done:.0f} bytes "
          f"written per action; peak RSS {rss:.0f} MB")  # fmt: skip
    tenth = max(1, args.actions // 10)
    print(f"CPU per action by tenth of the run (each {tenth / args.tables:g} more actions per table): "
          + ", ".join(f"{stage / tenth * 1000:.3f}" for stage in stages) + " ms")  # fmt: skip
    longest = max(pauses, default=0.0)
    print(f"collections: {counts[0]} young, {counts[1]} middle, {counts[2]} full: "
          f"{sum(pauses) * 1000:.0f} ms in all, longest {longest * 1000:.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
