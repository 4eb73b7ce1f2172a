"""Re-deal what one player cannot know, keeping everything they do know (for search bots).

From a player's point of view the hidden zones are the other hands, the draw pile, the
auction pile, the cards removed at setup (one group per named removal, then the random
ones), the cards removed face down from hands during play, the rest of a short draw pile
discarded unseen, and another active player's drawn and kept cards. Their sizes are
public. Walking the event log once, we track for each zone the set of cards that may be
in it (a bitmask): a card the player sees lands in exactly one zone; a move they do not
see (a face-down placement, a random penalty draw between two others, a face-down
payment) lets every card that may have been in the source be in the destination; a
church card never enters a hand or a kept card, since it is resolved at once. A random
assignment of the hidden cards to zones that respects these sets and the zone sizes is
then found (randomised greedy with augmenting paths, which
always succeeds since the true deal is one such assignment).

The result respects every placement the player knows, every count, and every card seen
revealed, paid or discarded. It over-approximates the history (it does not, for
example, remember that a penalized player could not pay a bid), which search tolerates.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, NamedTuple

from biblios_kit.engine.compiled import CUR_GOLD, KIND_GOLD
from biblios_kit.engine.core import PH_PAYMENT
from biblios_kit.engine.events import EventKind, RawEvent, visible

if TYPE_CHECKING:
    from biblios_kit.engine.state import GameState

E = EventKind
# Event kinds as plain ints (an IntEnum attribute lookup is ~15 times slower, per event).
_DEALT = int(E.DEALT)
_DREW = int(E.DREW)
_KEPT = int(E.KEPT)
_PAID_CARD = int(E.PAID_CARD)
_PENALTY_REMOVED = int(E.PENALTY_REMOVED)
_PENALTY_TAKEN = int(E.PENALTY_TAKEN)
_PICKED = int(E.PICKED)
_SHORT_DRAW_DISCARDED = int(E.SHORT_DRAW_DISCARDED)
_TOOK = int(E.TOOK)
_TOOK_KEPT = int(E.TOOK_KEPT)
_TO_AUCTION_PILE = int(E.TO_AUCTION_PILE)


class Constraints:
    """Hidden cards of one player's view, with the zones each may be in and each zone's size."""

    __slots__ = ("candidates", "capacity", "cards")

    def __init__(self, cards: list[int], candidates: list[list[int]], capacity: list[int]) -> None:
        self.cards = cards
        """The hidden cards."""
        self.candidates = candidates
        """For each hidden card, the zones it may be in."""
        self.capacity = capacity
        """Size of each zone."""


def _zone_ids(n: int, groups: int) -> tuple[int, int, int, int, int, int, int, int]:
    """Zone numbering: hands 0..n-1, then draw, pile, buried, kept, drawn, visible, short, removed groups.

    ``buried`` holds the cards removed face down from hands, ``short`` the draw pile's last
    cards discarded unseen (``short_draw: discard``): only the latter may hold a church card.
    """
    return n, n + 1, n + 2, n + 3, n + 4, n + 5, n + 6, n + 7


def constraints(state: GameState, player: int) -> Constraints:
    """Compute (once per state and player) which hidden card may be in which hidden zone."""
    n = state.n
    rules = state.rules
    groups = len(state.removed)
    DRAW, PILE, BURIED, KEPT, DRAWN, VISIBLE, SHORT, REMOVED = _zone_ids(n, groups)
    n_zones = REMOVED + groups
    may = [0] * n_zones
    setup = rules.setups[n]
    everything = (1 << rules.n_cards) - 1
    may[DRAW] = everything
    may[REMOVED + groups - 1] = everything if setup.remove_random else 0
    for i, (_count, matches) in enumerate(setup.named):
        for c in matches:
            may[REMOVED + i] |= 1 << c
    # A church card never stays in a hand nor waits as a kept card (it is resolved at once), so
    # it never enters their sets: nor may it then leave them (a face-down payment or discard,
    # a penalty draw) for another zone.
    no_church = everything & ~sum(1 << c for c in range(rules.n_cards) if rules.is_church[c])
    if setup.starting_hand:
        for q in range(n):
            may[q] = no_church

    def seen(c: int, zone: int) -> None:
        mask = ~(1 << c)
        for z in range(n_zones):
            may[z] &= mask
        may[zone] |= 1 << c

    buried = 0  # cards in state.buried so far (each face-down removal appends one)
    short = (0, 0)
    for raw in state.log:
        kind, who, card = raw[0], raw[1], raw[2]
        shown = card >= 0 and visible(raw, player)
        if kind == _DEALT:
            if shown:
                seen(card, who)
        elif kind == _DREW:
            if shown:
                seen(card, DRAWN)
            else:
                may[DRAWN] |= may[DRAW]
        elif kind == _KEPT:
            if shown:
                seen(card, VISIBLE if rules.is_church[card] else KEPT)
            else:
                may[KEPT] |= may[DRAWN] & no_church
        elif kind == _TO_AUCTION_PILE:
            if shown:
                seen(card, PILE)
            else:
                may[PILE] |= may[DRAWN]
        elif kind == _TOOK_KEPT:
            if shown:
                seen(card, who)
            else:
                may[who] |= may[KEPT]
        elif kind in (_PICKED, _TOOK):
            seen(card, VISIBLE if rules.is_church[card] else who)
        elif kind == _SHORT_DRAW_DISCARDED:
            may[SHORT] |= may[DRAW]
            left = raw[3]  # state.buried[buried : buried + left] came from the draw pile
            assert isinstance(left, int)
            short = (buried, left)
        elif kind == _PAID_CARD:
            buried += 1
            if shown:
                seen(card, BURIED)
            else:
                may[BURIED] |= may[who]
        elif kind == _PENALTY_TAKEN:
            if shown:
                seen(card, who)
            else:
                may[who] |= may[raw[3]]  # type: ignore[index]
        elif kind == _PENALTY_REMOVED:
            buried += 1
            if shown:
                seen(card, BURIED)
            else:
                may[BURIED] |= may[raw[3]]  # type: ignore[index]
        elif card >= 0 and kind in _PUBLIC_KINDS:  # an IntEnum set: ints hash and compare equal
            seen(card, VISIBLE)

    # The hidden zones as they are now (their true contents give the cards and the sizes).
    content: list[list[int]] = [[] for _ in range(n_zones)]
    for q in range(n):
        if q != player:
            content[q] = state.hands[q]
    content[DRAW] = state.draw
    content[PILE] = state.pile
    start, count = short
    content[BURIED] = state.buried[:start] + state.buried[start + count :]
    content[SHORT] = state.buried[start : start + count]
    if state.active != player:
        if state.kept >= 0:
            content[KEPT] = [state.kept]
        if state.drawn >= 0:
            content[DRAWN] = [state.drawn]
    for i, group in enumerate(state.removed):
        content[REMOVED + i] = group
    cards: list[int] = []
    candidates: list[list[int]] = []
    capacity = [len(z) for z in content]
    for zone_cards in content:
        for c in zone_cards:
            cards.append(c)
            candidates.append([z for z in range(n_zones) if capacity[z] and may[z] >> c & 1])
    return Constraints(cards, candidates, capacity)


_PUBLIC_KINDS = frozenset(
    {
        E.TO_PUBLIC,
        E.CHURCH_USED,
        E.CHURCH_DECLINED,
        E.PUBLIC_DISCARDED,
        E.REVEALED,
        E.WON,
        E.ALL_PASSED,
        E.NO_BIDDERS,
        E.PAID_GOLD,
        E.DISCARDED,
    }
)


def assign(cons: Constraints, rng: random.Random) -> list[list[int]] | None:
    """A random assignment of the hidden cards to zones filling every zone exactly (None if impossible)."""
    capacity = cons.capacity
    members: list[list[int]] = [[] for _ in capacity]
    where: dict[int, int] = {}
    order = list(range(len(cons.cards)))
    rng.shuffle(order)
    order.sort(key=lambda i: len(cons.candidates[i]))
    cands = cons.candidates

    def place(i: int, visited: set[int]) -> bool:
        options = cands[i][:]
        rng.shuffle(options)
        for z in options:
            if len(members[z]) < capacity[z]:
                members[z].append(i)
                where[i] = z
                return True
        for z in options:
            if z in visited:
                continue
            visited.add(z)
            for j in members[z]:
                if place(j, visited):
                    members[z].remove(j)
                    members[z].append(i)
                    where[i] = z
                    return True
        return False

    for i in order:
        if not place(i, set()):
            return None
    return [[cons.cards[i] for i in zone] for zone in members]


class _Resampling(NamedTuple):
    """What :func:`resample` derives once per (state, player) and keeps in the state's cache."""

    constraints: Constraints
    redacted: list[RawEvent]


def pin(cons: Constraints, zone: int, cards: list[int]) -> Constraints:
    """A copy of ``cons`` where ``cards`` must be in ``zone`` and no other card may be."""
    fixed = set(cards)
    candidates = [
        [zone] if c in fixed else [z for z in options if z != zone] for c, options in zip(cons.cards, cons.candidates)
    ]
    return Constraints(cons.cards, candidates, cons.capacity)


def resample(state: GameState, player: int, rng: random.Random) -> GameState:
    """A full state consistent with ``player``'s knowledge of ``state`` (see the module docstring)."""
    key = (player, len(state.log))
    cached = state.cache.get(key) if state.cache is not None else None
    if not isinstance(cached, _Resampling):
        redacted = [
            raw if raw[2] < 0 or visible(raw, player) else (raw[0], raw[1], -1, raw[3], raw[4]) for raw in state.log
        ]
        cached = _Resampling(constraints(state, player), redacted)
        if state.cache is None:
            state.cache = {}
        state.cache[key] = cached  # search resamples the same state many times
    cons, redacted = cached.constraints, cached.redacted
    n = state.n
    groups = len(state.removed)
    DRAW, PILE, BURIED, KEPT, DRAWN, _VISIBLE, SHORT, REMOVED = _zone_ids(n, groups)
    rules = state.rules
    kind, value = rules.kind, rules.value
    world = state.clone()
    paying = state.ph == PH_PAYMENT and state.payer != player and state.auc_cur == CUR_GOLD
    zones: list[list[int]] | None = None
    for attempt in range(41):
        if attempt == 40:
            # Forty deals left the payer unable to pay what they are paying: keep their true
            # hand (what everyone saw implies they can pay; this is very rare).
            cons = pin(cons, state.payer, state.hands[state.payer])
        zones = assign(cons, rng)
        if zones is None:  # cannot happen: the true deal satisfies the constraints
            raise RuntimeError("no deal is consistent with the player's view")
        for q in range(n):
            if q != player:
                hand = zones[q][:]
                rng.shuffle(hand)
                world.hands[q] = hand
                world.gold[q] = sum(value[c] for c in hand if kind[c] == KIND_GOLD)
        if not paying or world.legal():
            break
    assert zones is not None
    for zone_ids, target in (((DRAW,), "draw"), ((PILE,), "pile"), ((BURIED, SHORT), "buried")):
        cards = [c for z in zone_ids for c in zones[z]]
        rng.shuffle(cards)
        setattr(world, target, cards)
    if state.active != player:
        if state.kept >= 0:
            world.kept = zones[KEPT][0]
        if state.drawn >= 0:
            world.drawn = zones[DRAWN][0]
    world.removed = [zones[REMOVED + i][:] for i in range(groups)]
    world.rng = random.Random(rng.getrandbits(64))
    world.log = redacted[:]
    world.history = []
    world.resampled_for = player
    return world
