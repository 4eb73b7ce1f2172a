"""Re-deal what one player cannot know, from the game state (with :class:`~biblios_kit.engine.hidden.HiddenCards`).

:meth:`GameState.resample` asks the engine's one model of hidden information
(:class:`~biblios_kit.engine.hidden.HiddenCards`, the same the bots, hints and reviews use) for a
deal consistent with that player's observation, and puts it into a copy of the state: every
field the player can see is the state's own, the hidden zones are re-dealt, the log is the
player's view of the log (cards hidden from them redacted), and the world has its own RNG.
What the payments proved holds in every world: a rival paying a Gold bid can finish it, a rival
who could not pay could not (after a few deals, those rivals keep their true hands).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, NamedTuple

from biblios_kit.engine.compiled import KIND_GOLD
from biblios_kit.engine.events import RawEvent, visible
from biblios_kit.engine.hidden import HiddenCards

if TYPE_CHECKING:
    from biblios_kit.engine.state import GameState

__all__ = ["resample"]


class _Resampling(NamedTuple):
    """What :func:`resample` derives once per (state, player) and keeps in the state's cache."""

    worlds: HiddenCards
    redacted: list[RawEvent]


def resample(state: GameState, player: int, rng: random.Random) -> GameState:
    """A full state consistent with ``player``'s knowledge of ``state`` (see the module docstring)."""
    key = (player, len(state.log))
    cached = state.cache.get(key) if state.cache is not None else None
    if not isinstance(cached, _Resampling):
        redacted = [
            raw if raw[2] < 0 or visible(raw, player) else (raw[0], raw[1], -1, raw[3], raw[4]) for raw in state.log
        ]
        cached = _Resampling(HiddenCards(state.rules, state.observation(player)), redacted)
        if state.cache is None:
            state.cache = {}
        state.cache[key] = cached  # search resamples the same state many times
    worlds, redacted = cached.worlds, cached.redacted
    obs = worlds.obs
    zones = worlds.zones(rng, state.hands)
    rules = state.rules
    kind, value = rules.kind, rules.value
    world = state.clone()
    for q in range(state.n):
        if q != player:
            world.hands[q] = zones[q]
            world.gold[q] = sum(value[c] for c in zones[q] if kind[c] == KIND_GOLD)
    world.draw = zones[worlds.DRAW]
    pile = zones[worlds.PILE] + list(obs.my_auction_cards)
    rng.shuffle(pile)
    world.pile = pile
    world.buried = list(obs.my_buried) + zones[worlds.BURIED] + zones[worlds.SHORT]
    if zones[worlds.KEPT]:
        world.kept = zones[worlds.KEPT][0]
    if zones[worlds.DRAWN]:
        world.drawn = zones[worlds.DRAWN][0]
    world.removed = [zones[z] for z in range(worlds.REMOVED, len(worlds.capacity))]
    world.rng = random.Random(rng.getrandbits(64))
    world.log = redacted[:]
    world.history = []
    world.resampled_for = player
    return world
