"""The server's garbage collection on a timer (net/collector.py)."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from biblios_kit.net.collector import ScheduledCollector


class Node:
    """An object that can be put in a reference cycle and watched with a weak reference."""

    other: Node | None = None


def cycle() -> weakref.ref[Node]:
    """A two-object reference cycle nobody else refers to (only the collector can free it)."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


@pytest.fixture(autouse=True)
def restore_collector() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    if enabled:
        gc.enable()


def test_a_young_collection_frees_new_cycles_and_freezes_what_survives() -> None:
    gc.disable()
    fresh = cycle()
    ScheduledCollector.collect_young()
    assert fresh() is None
    kept = Node()
    kept.other = Node()
    kept.other.other = kept  # alive (we hold it) at the collection: frozen
    ScheduledCollector.collect_young()
    assert gc.get_freeze_count() > 0
    watched = weakref.ref(kept)
    del kept
    ScheduledCollector.collect_young()
    assert watched() is not None  # garbage now, but frozen: young collections no longer look at it
    ScheduledCollector.collect_full()
    assert watched() is None  # a full collection does


def test_the_timer_collects_while_the_automatic_collector_is_off() -> None:
    async def scenario() -> None:
        collector = ScheduledCollector(young_seconds=0.02, full_seconds=0.06)
        collector.start()
        try:
            assert not gc.isenabled()
            fresh = cycle()
            for _ in range(100):
                if fresh() is None:
                    break
                await asyncio.sleep(0.01)
            assert fresh() is None
        finally:
            await collector.stop()
        assert gc.isenabled() and gc.get_freeze_count() == 0

    asyncio.run(scenario())
