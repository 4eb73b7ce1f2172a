"""Garbage collection kept out of the frames drawn when a key is pressed."""

from __future__ import annotations

import gc


def settle_heap() -> None:
    """Collect now, then leave every object alive so far out of later collections (:func:`gc.freeze`).

    The objects of the app, its screens and the game live as long as the game: a full collection
    would scan all of them again, for some 40 ms at 120x40, whenever the collector's counters
    say so, including in the middle of drawing a key's frame. Frozen, they are no longer scanned;
    a full collection then looks only at what was made since. Called when a table is shown.
    """
    gc.collect()
    gc.freeze()


def release_heap() -> None:
    """Undo :func:`settle_heap` (the table is gone): its objects may be collected again."""
    gc.unfreeze()
