"""The kernel's shared constants and helpers: action codes, phases, event codes, seat tables.

This module sits below :mod:`biblios_kit.engine.state` (which imports it, never the other
way round), so the engine has no import cycle. Everything here is plain ints, tuples and
small pure functions; the names marked ``Final`` are inlined where the kernel is compiled.
"""

from __future__ import annotations

import enum
import random
from typing import Final

from biblios_kit.engine.events import EventKind

# ---------------------------------------------------------------- actions (see engine.actions)

KEEP: Final = 0
TO_AUCTION: Final = 1
TO_PUBLIC: Final = 2
PASS: Final = 3
REFUSE: Final = 4
DECLINE: Final = 5
PICK: Final = 1_000
PAY: Final = 2_000
BID: Final = 10_000
CHURCH: Final = 1_000_000
BID_END: Final = CHURCH
"""Bids are ``BID + n`` for ``0 < n < BID_END - BID``."""


def is_action(action: object) -> bool:
    """Whether ``action`` is an int in one of the action blocks (legality is another matter)."""
    if not isinstance(action, int) or isinstance(action, bool):
        return False
    return 0 <= action <= DECLINE or PICK <= action < PAY + 1_000 or BID < action < BID_END or action >= CHURCH + 2


# ---------------------------------------------------------------- phases


class Phase(enum.IntEnum):
    """The kind of decision the current player faces."""

    GIFT = 0
    """Place the drawn card: keep it, put it on the auction pile, or in the public space."""
    PICK = 1
    """Take one card from the public space."""
    CHURCH = 2
    """Resolve an acquired church/bishop card: which dice and which sign, or decline."""
    BIDDING = 3
    """Bid on the revealed card, or pass."""
    PAYMENT = 4
    """Pay the winning bid, one card at a time (or refuse, when the option is on)."""
    GAME_OVER = 5
    """No decision left: see :meth:`GameState.result <biblios_kit.engine.state.GameState.result>`."""


PH_GIFT: Final = 0
PH_PICK: Final = 1
PH_CHURCH: Final = 2
PH_BIDDING: Final = 3
PH_PAYMENT: Final = 4
PH_OVER: Final = 5
"""The phases as plain ints (a state's ``ph``; :class:`Phase` is the public enum)."""

R_START_GIFT: Final = 0
R_GIFT: Final = 1
R_PICK: Final = 2
R_AUCTION: Final = 3
"""What follows once the church cards waiting for resolution are resolved (a state's ``resume``):
the first gift turn, the gift turn in progress, the picks in progress, the next auction card."""

NO_MIN: Final = 1 << 30
"""The smallest Gold value paid so far, before any is paid."""

# ---------------------------------------------------------------- event kinds as plain ints

EV_SETUP_REMOVED: Final = int(EventKind.SETUP_REMOVED)
EV_DEALT: Final = int(EventKind.DEALT)
EV_GIFT_TURN: Final = int(EventKind.GIFT_TURN)
EV_DREW: Final = int(EventKind.DREW)
EV_KEPT: Final = int(EventKind.KEPT)
EV_TO_AUCTION_PILE: Final = int(EventKind.TO_AUCTION_PILE)
EV_TO_PUBLIC: Final = int(EventKind.TO_PUBLIC)
EV_TOOK_KEPT: Final = int(EventKind.TOOK_KEPT)
EV_PICKED: Final = int(EventKind.PICKED)
EV_CHURCH_USED: Final = int(EventKind.CHURCH_USED)
EV_CHURCH_DECLINED: Final = int(EventKind.CHURCH_DECLINED)
EV_DIE_MOVED: Final = int(EventKind.DIE_MOVED)
EV_PUBLIC_DISCARDED: Final = int(EventKind.PUBLIC_DISCARDED)
EV_SHORT_DRAW_DISCARDED: Final = int(EventKind.SHORT_DRAW_DISCARDED)
EV_AUCTION_PHASE: Final = int(EventKind.AUCTION_PHASE)
EV_REVEALED: Final = int(EventKind.REVEALED)
EV_BID: Final = int(EventKind.BID)
EV_PASSED: Final = int(EventKind.PASSED)
EV_WON: Final = int(EventKind.WON)
EV_ALL_PASSED: Final = int(EventKind.ALL_PASSED)
EV_DISCARDED: Final = int(EventKind.DISCARDED)
EV_NO_BIDDERS: Final = int(EventKind.NO_BIDDERS)
EV_CANNOT_PAY: Final = int(EventKind.CANNOT_PAY)
EV_REFUSED: Final = int(EventKind.REFUSED)
EV_PAID_GOLD: Final = int(EventKind.PAID_GOLD)
EV_PAID_CARD: Final = int(EventKind.PAID_CARD)
EV_TOOK: Final = int(EventKind.TOOK)
EV_PENALTY_TAKEN: Final = int(EventKind.PENALTY_TAKEN)
EV_PENALTY_REMOVED: Final = int(EventKind.PENALTY_REMOVED)
EV_PENALTY_EMPTY: Final = int(EventKind.PENALTY_EMPTY)
EV_GAME_OVER: Final = int(EventKind.GAME_OVER)

# ---------------------------------------------------------------- tables

GIFT_LEGAL: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(a for a, on in ((KEEP, k), (TO_AUCTION, b), (TO_PUBLIC, p)) if on)
    for k in (0, 1)
    for b in (0, 1)
    for p in (0, 1)
)
"""Legal placements of a gift turn, indexed by the destinations owed: 4 keep + 2 auction pile + 1 public."""

MAX_SEATS: Final = 16
"""Seat tables are built for up to this many players (rulesets allow far fewer)."""

_SEAT_TABLES: dict[int, tuple[tuple[int, ...], ...]] = {}


def seat_tables(n: int) -> tuple[tuple[int, ...], ...]:
    """``table[out][p]``: the first seat clockwise after ``p`` whose bit is not set in ``out`` (``p`` itself last).

    Bidding and penalties walk round the table constantly; a lookup replaces a loop.
    """
    table = _SEAT_TABLES.get(n)
    if table is None:
        rows = []
        for out in range(1 << n):
            row = []
            for p in range(n):
                q = (p + 1) % n
                for _ in range(n):
                    if not out >> q & 1:
                        break
                    q = (q + 1) % n
                row.append(q)
            rows.append(tuple(row))
        table = _SEAT_TABLES[n] = tuple(rows)
    return table


_TAKERS: dict[int, tuple[tuple[int, ...], ...]] = {}


def takers(n: int) -> tuple[tuple[int, ...], ...]:
    """``takers(n)[w]``: the other seats clockwise from ``w``'s left (who draws a card in a standard penalty of ``w``)."""
    table = _TAKERS.get(n)
    if table is None:
        table = _TAKERS[n] = tuple(tuple((w + k) % n for k in range(1, n)) for w in range(n))
    return table


# ---------------------------------------------------------------- helpers


def shuffle(items: list[int], rnd: random.Random) -> None:
    """Shuffle ``items`` in place by sorting on one ``rnd.random()`` key per item.

    Every game's setup and auction pile go through here, so the draws (one per item, in
    order) are part of what a seed means: changing this changes every recorded game.
    """
    rand = rnd.random
    keys = [rand() for _ in items]
    order = sorted(range(len(items)), key=keys.__getitem__)
    items[:] = [items[i] for i in order]


def subset_sums(values: list[int]) -> int:
    """Bitset of every subset sum of ``values`` (bit s set when some subset adds up to s)."""
    reach = 1
    for v in values:
        reach |= reach << v
    return reach


def gold_completable(paid: int, paid_min: int, rest: list[int], bid: int, exact: bool) -> bool:
    """Whether Gold already paid (sum ``paid``, smallest card ``paid_min``) can be completed from ``rest``.

    A completed payment covers ``bid`` and has no pointless card (removing its smallest card
    would no longer cover the bid); with ``exact`` it must add up to ``bid`` exactly.
    """
    need = bid - paid
    if exact:
        return need >= 0 and bool(subset_sums(rest) >> need & 1)
    if need <= 0:
        return paid - paid_min < bid
    # The smallest card of the finished payment is ``paid_min`` or a smaller card of ``rest``;
    # for each candidate m, cards >= m must reach a total in [bid, bid + m - 1].
    candidates = {v for v in rest if v < paid_min}
    candidates.add(paid_min)
    for m in candidates:
        if subset_sums([v for v in rest if v >= m]) >> need & ((1 << m) - 1):
            return True
    return False


def one_per_class(cards: list[int], cls: tuple[int, ...], twin: tuple[bool, ...]) -> list[int]:
    """``cards`` sorted by id, keeping the lowest id of each identity class ``cls[c]``.

    ``twin[c]`` says whether another card of the deck shares ``c``'s class: only those
    classes are tracked (most cards are unique).
    """
    out: list[int] = []
    seen: list[int] = []
    for c in sorted(cards):
        if twin[c]:
            k = cls[c]
            if k in seen:
                continue
            seen.append(k)
        out.append(c)
    return out


_BID_ACTIONS: Final[dict[int, tuple[int, ...]]] = {}
"""(lowest bid << 20 | highest bid) -> :func:`bid_actions` of that range."""


def bid_actions(lo: int, hi: int) -> tuple[int, ...]:
    """A bidder's legal actions: pass, then every bid from ``lo`` to ``hi``, one shared tuple per range (the
    legal actions of every bidding decision would otherwise be new int objects, up to the deck's Gold)."""
    key = lo << 20 | hi
    actions = _BID_ACTIONS.get(key)
    if actions is None:
        actions = (PASS, *range(BID + lo, BID + hi + 1))
        if len(_BID_ACTIONS) >= 4096:  # a bound (bid ceilings are small: never reached in a game)
            _BID_ACTIONS.clear()
        _BID_ACTIONS[key] = actions
    return actions
