"""The game server's garbage collection, on a timer instead of in the middle of answering actions.

Nearly everything a server makes is freed by reference counting the moment its last reference
goes: observations replaced by the next version's, messages once written. Python's collector
still walks the objects it tracks, and starts a young collection whenever 700 more have been
made than freed. A server frees old objects about as fast as it makes new ones, so that count
grows slowly while the youngest generation fills with tens of thousands of live objects: at
1,000 tables of four seats (``benchmarks/network.py``), some 1,500 young collections a minute
of 4 ms each on average and up to 95 ms, about a sixth of the server's CPU, each one a pause in
the middle of an action's views (docs/performance.md).

:class:`ScheduledCollector` turns the automatic collector off while the server runs and
collects on a timer:

* every :data:`YOUNG_SECONDS`, the objects made since the previous collection, then freezes
  what survived (``gc.freeze``): later timed collections no longer walk them; reference
  counting still frees them as usual;
* every :data:`FULL_SECONDS`, everything, frozen objects included: the rare reference cycles
  among objects that were alive at one timed collection and became garbage since.

The collector then does in three pauses a minute what it did in some 1,500, and less of it: at
1,000 tables of four seats a timed collection walks the objects of every seat's current view
(about 0.15 s), and the table hub alone spends 14% less CPU per action than with Python's
thresholds (``benchmarks/hub.py``). A full collection of a large server takes longer, once
every ten minutes.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc

YOUNG_SECONDS = 20.0
"""Seconds between collections of the objects made since the previous one."""

FULL_SECONDS = 600.0
"""Seconds between full collections (every object, frozen ones included)."""


class ScheduledCollector:
    """Garbage collection on a timer for one server process: :meth:`start` in its event loop, :meth:`stop` when done.

    ``young_seconds`` and ``full_seconds`` default to :data:`YOUNG_SECONDS` and :data:`FULL_SECONDS`.
    """

    def __init__(self, young_seconds: float = YOUNG_SECONDS, full_seconds: float = FULL_SECONDS) -> None:
        self.young_seconds = young_seconds
        self.full_seconds = full_seconds
        self._task: asyncio.Task[None] | None = None
        self._was_enabled = True

    def start(self) -> None:
        """Collect and freeze what exists now (what the server loaded), switch the automatic collector off, start the timer."""
        self._was_enabled = gc.isenabled()
        gc.disable()
        self.collect_full()
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """Stop the timer and give the automatic collector back."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        gc.unfreeze()
        if self._was_enabled:
            gc.enable()

    @staticmethod
    def collect_young() -> int:
        """Collect the objects made since the last collection, then freeze the survivors; the number collected."""
        found = gc.collect(0)
        gc.freeze()
        return found

    @staticmethod
    def collect_full() -> int:
        """Collect every object, frozen ones included, then freeze the survivors; the number collected."""
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        return found

    async def _run(self) -> None:
        since_full = 0.0
        while True:
            await asyncio.sleep(self.young_seconds)
            since_full += self.young_seconds
            if since_full >= self.full_seconds:
                since_full = 0.0
                self.collect_full()
            else:
                self.collect_young()
