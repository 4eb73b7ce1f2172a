"""The table's idle collector, without Textual: one timer per quiet spell, restarted by every change."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from biblios_kit.tui import heap


class FakeTimer:
    def __init__(self, delay: float, callback: Callable[[], None]) -> None:
        self.delay, self.callback, self.resets = delay, callback, 0

    def reset(self) -> None:
        self.resets += 1


def test_changes_restart_one_timer_and_the_idle_table_collects_once(monkeypatch: pytest.MonkeyPatch) -> None:
    timers: list[FakeTimer] = []
    collections: list[None] = []
    monkeypatch.setattr(heap, "collect_idle", lambda: collections.append(None))

    def set_timer(delay: float, callback: Callable[[], None]) -> FakeTimer:
        timers.append(FakeTimer(delay, callback))
        return timers[-1]

    collector = heap.IdleCollector(set_timer)
    collector.changed()
    collector.changed()
    collector.changed()
    assert len(timers) == 1 and timers[0].delay == heap.IDLE_DELAY and timers[0].resets == 2
    assert collections == []
    timers[0].callback()  # the table stayed idle
    assert collections == [None]
    collector.changed()  # a change after the collection waits again, on a new timer
    assert len(timers) == 2 and collections == [None]
