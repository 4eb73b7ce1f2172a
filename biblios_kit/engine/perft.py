"""Perft: count the leaves of the legal-action tree below a position (a test and a benchmark).

As in chess engines (python-chess ships perft files), walking every line of play to a fixed
depth exercises every rule reachable from a position, and the count is a fingerprint of
them: a change in what is legal anywhere in the tree changes the number. Chance is part of
the position (a state carries its own random generator, so the penalty draws and the
auction pile shuffle below a position are fixed), which makes the tree, and its count,
deterministic. The walk uses the public search API: :meth:`GameState.legal`,
:meth:`GameState.clone` and :meth:`GameState.step`.
"""

from __future__ import annotations

import random

from biblios_kit.engine.state import GameState


def perft(state: GameState, depth: int) -> int:
    """The number of action sequences of length ``depth`` from ``state`` (fewer where the game ends first).

    A finished game counts as one leaf, whatever the depth left.
    """
    if depth <= 0 or state.is_terminal():
        return 1
    legal = state.legal()
    if depth == 1:
        return len(legal)
    total = 0
    for action in legal:
        child = state.clone(events=False)
        child.step(action)
        total += perft(child, depth - 1)
    return total


def divide(state: GameState, depth: int) -> dict[int, int]:
    """:func:`perft` split by first action (to find where two builds disagree)."""
    counts: dict[int, int] = {}
    for action in state.legal():
        child = state.clone(events=False)
        child.step(action)
        counts[action] = perft(child, depth - 1)
    return counts


def position(state: GameState, seed: int, phase: str, occurrence: int) -> GameState:
    """``state`` after uniformly random legal actions drawn from ``random.Random(seed)``, stopped the
    ``occurrence``-th time (from 0) a decision of ``phase`` (a :class:`Phase` name) comes up.

    The positions of ``tests/data/perft.txt`` are named this way. Raises ``ValueError`` if the
    game ends first.
    """
    rng = random.Random(seed)
    seen = 0
    while not state.is_terminal():
        if state.phase.name == phase:
            if seen == occurrence:
                return state
            seen += 1
        state.apply(state.random_action(rng))
    raise ValueError(f"the game ended before decision {occurrence} of phase {phase}")
