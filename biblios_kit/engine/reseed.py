"""Reseed a game in progress: new chance for everything nobody has seen yet, recorded so replay stays exact.

A saved game replayed from its seed has the same future as the first time it was played:
the draw pile's order, the cards removed face down at setup, the auction pile's order and
every later random draw all follow from the seed. Continuing the same save twice would
show what is coming. :func:`reseed` deals again, from a new seed, what no player has seen
(the draw pile together with the cards removed at setup, and the auction pile once it has
been shuffled) and gives the game a new random number generator, the way OpenSpiel
records a chance outcome: the point and the new seed go into
:attr:`~biblios_kit.engine.state.GameState.reseeds`, and the game record carries them so
that :func:`~biblios_kit.engine.records.replay` reseeds at the same points and reproduces
the game exactly.

Nothing any player knows changes: every card stays in the zone it was seen in (a card a
player put on the auction pile stays there), every count stays, and a named setup removal
(for example "two Gold cards of value 1") is dealt again only among the unseen cards it
names, the way setup chose it. Played from its start, the new deal is as likely as any
other deal consistent with what the players have seen.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from biblios_kit.engine.core import shuffle

if TYPE_CHECKING:
    from biblios_kit.engine.state import GameState

__all__ = ["reseed"]


def reseed(state: GameState, seed: int) -> None:
    """Deal again, from ``seed``, every card no player has seen, and give ``state`` a new RNG seeded from it.

    The point (the number of actions applied so far) and ``seed`` are appended to
    ``state.reseeds`` so the game's record replays it; a reseed at the same point as the
    last one replaces it (the new deal depends on ``seed`` alone, not on the order the
    unseen cards were in), so a game has at most one reseed per point. A resampled world (a bot's guess
    at the hidden cards) cannot be reseeded: it has no record.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"expected an integer seed, got {seed!r}")
    if state.resampled_for >= 0:
        raise ValueError("a resampled state cannot be reseeded (it has no record)")
    rng = random.Random(seed)
    setup = state.rules.setups[state.n]
    groups = state.removed
    named = setup.named
    # The cards nobody has seen: the draw pile and every setup removal (all face down).
    unseen = list(state.draw)
    for group in groups:
        unseen.extend(group)
    unseen.sort()  # the deal depends on the seed only, not on the order the cards were in
    taken: set[int] = set()
    new_groups: list[list[int]] = []
    for index, (_count, matches) in enumerate(named):
        size = len(groups[index])
        wanted = set(matches)
        pool = [c for c in unseen if c in wanted and c not in taken]
        shuffle(pool, rng)
        group = pool[:size]
        taken.update(group)
        new_groups.append(group)
    rest = [c for c in unseen if c not in taken]
    shuffle(rest, rng)
    random_size = len(groups[-1]) if len(groups) > len(named) else 0
    if len(groups) > len(named):
        new_groups.append([rest.pop() for _ in range(random_size)])
    state.removed = new_groups
    state.draw = rest
    # The auction pile: its order matters only once the auction phase has shuffled it, and
    # then nobody knows it; before that the shuffle to come draws from the new RNG anyway.
    pile = sorted(state.pile)
    shuffle(pile, rng)
    state.pile = pile
    state.rng = random.Random(rng.getrandbits(64))
    point = len(state.history)
    earlier = state.reseeds
    if earlier and earlier[-1][0] == point:  # the deal depends on this seed alone: the earlier one is void
        earlier = earlier[:-1]
    state.reseeds = (*earlier, (point, seed))
    state.cache = None
