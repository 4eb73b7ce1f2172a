"""Exact odds of the cards hidden from a player, by counting every deal consistent with their view (small positions).

The cards hidden from a player fall into classes of interchangeable cards: the same zones allowed
(:attr:`HiddenCards.strict`) and, when a payment proved something, the same Gold value and the same
side of each proof (whether the card entered the rival's hand after the auction they could not pay).
Every way of sharing each class among its zones that fills every zone exactly and keeps the proofs
is one set of deals, counted with its multinomial weight; each deal consistent with the view counts
once. This counts from the rules of the view, independently of how :class:`HiddenCards` deals.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

from biblios_kit.engine.compiled import KIND_GOLD
from biblios_kit.engine.hidden import HiddenCards


def compositions(total: int, caps: list[int]) -> Iterator[tuple[int, ...]]:
    """Every way to write ``total`` as ordered counts, the i-th between 0 and ``caps[i]``."""
    if len(caps) == 1:
        if total <= caps[0]:
            yield (total,)
        return
    room_after = sum(caps[1:])
    for first in range(max(0, total - room_after), min(total, caps[0]) + 1):
        for rest in compositions(total - first, caps[1:]):
            yield (first, *rest)


def pays(values: list[int], bid: int, exact: bool) -> bool:
    """Whether Gold cards of ``values`` pay ``bid`` (exactly, when ``exact``)."""
    if not exact:
        return sum(values) >= bid
    reach = 1
    for v in values:
        reach |= reach << v
    return bool(reach >> bid & 1)


Class = tuple[tuple[int, ...], int, tuple[bool, ...]]
"""Allowed zones, Gold value when a proof needs it (else 0), side of each proof."""


def enumerated_marginals(cards: HiddenCards, limit: int = 200_000) -> dict[tuple[int, int], float] | None:
    """(card, zone) -> the chance that hidden ``card`` is in ``zone``, every consistent deal counted once.

    ``None`` when sharing its classes among their zones takes more than ``limit`` steps (each class's counts
    are bounded by the room its zones have left, and a branch that cannot fill every zone is cut).
    """
    rules = cards.rules
    cons = cards.strict
    payment = cards.obs.payment
    owed = None
    if cards.payer >= 0 and payment is not None:
        owed = payment.bid - sum(rules.value[c] for c in payment.paid_gold)
    proofs = owed is not None or bool(cards.unpaid)
    classes: dict[Class, list[int]] = {}
    for c, options in zip(cons.cards, cons.candidates, strict=True):
        gold = rules.value[c] if proofs and rules.kind[c] == KIND_GOLD else 0
        sides = tuple(c in entered for _who, _bid, entered in cards.unpaid) if gold else ()
        classes.setdefault((tuple(sorted(options)), gold, sides), []).append(c)
    keys = list(classes)
    if math.prod(math.comb(len(classes[k]) + len(k[0]) - 1, len(k[0]) - 1) for k in keys) > 1000 * limit:
        return None  # far too many ways even to try (the count ignores the zones' sizes)
    exact = rules.overpay_forbidden

    def gold_in(config: tuple[tuple[int, ...], ...], zone: int, proof: int | None) -> list[int]:
        return [
            key[1]
            for key, parts in zip(keys, config)
            for z, count in zip(key[0], parts)
            if z == zone and key[1] and (proof is None or not key[2][proof])
            for _ in range(count)
        ]

    # What classes i... can still put in each zone: a sharing that leaves a zone more room than that is dead.
    reach = [[0] * len(cons.capacity) for _ in range(len(keys) + 1)]
    for i in range(len(keys) - 1, -1, -1):
        reach[i] = reach[i + 1][:]
        for z in keys[i][0]:
            reach[i][z] += len(classes[keys[i]])
    steps = 0

    def sharings(i: int, room: list[int]) -> Iterator[tuple[tuple[int, ...], ...]]:
        """Every way of sharing classes ``i``... among their zones that fills ``room`` exactly."""
        nonlocal steps
        if i == len(keys):
            yield ()
            return
        zones = keys[i][0]
        for parts in compositions(len(classes[keys[i]]), [room[z] for z in zones]):
            steps += 1
            if steps > limit:
                raise OverflowError
            for z, count in zip(zones, parts):
                room[z] -= count
            if all(r <= can for r, can in zip(room, reach[i + 1])):
                for rest in sharings(i + 1, room):
                    yield (parts, *rest)
            for z, count in zip(zones, parts):
                room[z] += count

    total = 0.0
    weights: dict[tuple[int, int], float] = {}
    try:
        configs = list(sharings(0, cons.capacity[:]))
    except OverflowError:
        return None
    for config in configs:
        if owed is not None and not pays(gold_in(config, cards.payer, None), owed, exact):
            continue
        if any(pays(gold_in(config, who, u), bid, exact) for u, (who, bid, _e) in enumerate(cards.unpaid)):
            continue
        weight = 1.0
        for key, parts in zip(keys, config):
            weight *= math.factorial(len(classes[key])) / math.prod(math.factorial(count) for count in parts)
        total += weight
        for key, parts in zip(keys, config):
            size = len(classes[key])
            for z, count in zip(key[0], parts):
                for c in classes[key] if count else ():
                    weights[c, z] = weights.get((c, z), 0.0) + weight * count / size
    return {key: weight / total for key, weight in weights.items()} if total else {}


def assert_dealt_with_odds(
    cards: HiddenCards, exact: dict[tuple[int, int], float], samples: int, seed: int, tolerance: float = 4.5
) -> None:
    """Deal ``samples`` times from ``cards``: no card where its chance is 0, and each card's frequency in each
    zone within ``tolerance`` standard errors of its ``exact`` chance."""
    counts: dict[tuple[int, int], int] = {}
    rng = random.Random(seed)
    for _ in range(samples):
        for z, zone in enumerate(cards.zones(rng)):
            for c in zone:
                counts[c, z] = counts.get((c, z), 0) + 1
    assert set(counts) <= {key for key, p in exact.items() if p > 0}, "a card dealt where it cannot be"
    for key, p in exact.items():
        freq = counts.get(key, 0) / samples
        error = math.sqrt(max(p * (1 - p), 1e-9) / samples)
        assert abs(freq - p) <= tolerance * error + 1e-9, (key, freq, p, cards.obs.phase)
