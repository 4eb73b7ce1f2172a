"""Garbage collection kept out of the frames drawn when a key is pressed."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Protocol

YOUNG_THRESHOLD = 10_000
"""The collector's first threshold while a table is shown (Python's default is 700).

A key at the table makes some 3,600 container objects at 120x40 (the view, the texts, Textual's strips and
messages): with the default, five young collections and, every other key, a collection of the middle
generation landed in the key's frame (about 2.5 ms of 23 at 120x40). Raised, a key's frame no longer
reaches it; the young objects are collected when the table is idle (:func:`collect_idle`)."""

IDLE_DELAY = 0.1
"""Seconds without a change after which the table collects its young objects (its last frame is written by then)."""

_default_threshold: tuple[int, int, int] | None = None


def settle_heap() -> None:
    """Collect now, then leave every object alive so far out of later collections (:func:`gc.freeze`), and let
    young objects wait for :func:`collect_idle` (:data:`YOUNG_THRESHOLD`).

    The objects of the app, its screens and the game live as long as the game: a full collection
    would scan all of them again, for some 40 ms at 120x40, whenever the collector's counters
    say so, including in the middle of drawing a key's frame. Frozen, they are no longer scanned;
    a full collection then looks only at what was made since. Called when a table is shown.
    """
    global _default_threshold
    gc.collect()
    gc.freeze()
    if _default_threshold is None:
        _default_threshold = gc.get_threshold()
        gc.set_threshold(YOUNG_THRESHOLD, *_default_threshold[1:])


def collect_idle() -> None:
    """The collections Python would have made during the last keys, made now that the table is idle: the young
    generation, and the older ones when their counters are due, as Python's own thresholds would decide
    (the frozen objects are never scanned)."""
    threshold = _default_threshold or gc.get_threshold()
    count = gc.get_count()  # objects made, then collections of the younger generation, since each was collected
    gc.collect(next((generation for generation in (2, 1) if count[generation] > threshold[generation]), 0))


def release_heap() -> None:
    """Undo :func:`settle_heap` (the table is gone): its objects may be collected again, at Python's thresholds."""
    global _default_threshold
    gc.unfreeze()
    if _default_threshold is not None:
        gc.set_threshold(*_default_threshold)
        _default_threshold = None


class _Timer(Protocol):
    def reset(self) -> None: ...


class IdleCollector:
    """Calls :func:`collect_idle` once the table has not changed for :data:`IDLE_DELAY` (never in a key's frame).

    ``set_timer(delay, callback)`` starts a one-off timer (Textual's ``set_timer``); :meth:`changed` is called
    after every change, and each change starts the wait again.
    """

    def __init__(self, set_timer: Callable[[float, Callable[[], None]], _Timer]) -> None:
        self._set_timer = set_timer
        self._timer: _Timer | None = None

    def changed(self) -> None:
        """The table changed: collect once it has been idle for :data:`IDLE_DELAY`."""
        if self._timer is None:
            self._timer = self._set_timer(IDLE_DELAY, self._collect)
        else:
            self._timer.reset()

    def _collect(self) -> None:
        self._timer = None
        collect_idle()
