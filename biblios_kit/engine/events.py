"""Game events as data (a kind and numbers, never sentences), with per-player redaction.

The engine appends plain tuples ``(kind, player, card, args, visibility)`` in its hot
path; :class:`Event` objects are made only when a caller asks for them. ``visibility``
is ``ALL`` (-1) or a bitmask of the players who may see ``card``; for the others the
card is ``None`` (the event itself, e.g. "P2 placed a card on the auction pile", is
always public).
"""

from __future__ import annotations

import enum
from typing import Final, NamedTuple

ALL: Final = -1
"""Visibility of a card every player sees."""


class EventKind(enum.IntEnum):
    """What happened. ``player``, ``card`` and ``args`` of each kind are listed per member."""

    SETUP_REMOVED = 1
    """Cards removed face down at setup; args = (count,)."""
    DEALT = 2
    """``player`` was dealt ``card`` before play: face down, or openly (seen by all) for a named starting card."""
    GIFT_TURN = 3
    """``player`` starts a gift turn; args = (cards to draw,)."""
    DREW = 4
    """``player`` drew ``card`` (seen by them only)."""
    KEPT = 5
    """``player`` placed ``card`` face down in front of themself (a church card is shown)."""
    TO_AUCTION_PILE = 6
    """``player`` placed ``card`` face down on the auction pile."""
    TO_PUBLIC = 7
    """``player`` placed ``card`` face up in the public space."""
    TOOK_KEPT = 8
    """``player`` took their kept ``card`` into hand at the end of their turn."""
    PICKED = 9
    """``player`` took ``card`` from the public space."""
    CHURCH_USED = 10
    """``player`` used church/bishop ``card``; args = (sign, die, die, ...)."""
    CHURCH_DECLINED = 11
    """``player`` declined to use church/bishop ``card``."""
    DIE_MOVED = 12
    """A die moved; args = (die index, old value, new value)."""
    PUBLIC_DISCARDED = 13
    """``card`` left in the public space at the end of a gift turn was discarded."""
    SHORT_DRAW_DISCARDED = 14
    """A short draw pile was discarded face down; args = (count,)."""
    AUCTION_PHASE = 15
    """The auction phase starts; args = (cards in the auction pile,)."""
    REVEALED = 16
    """``player`` (the active player) revealed ``card`` for auction."""
    BID = 17
    """``player`` bid; args = (amount,)."""
    PASSED = 18
    """``player`` passed."""
    WON = 19
    """``player`` won the auction of ``card``; args = (bid,)."""
    ALL_PASSED = 20
    """Nobody bid on ``card``."""
    NO_BIDDERS = 21
    """Nobody is left to bid on ``card`` (everyone was penalized on it)."""
    CANNOT_PAY = 22
    """``player`` cannot pay their bid; args = (bid,)."""
    REFUSED = 23
    """``player`` refused to pay their bid; args = (bid,)."""
    PAID_GOLD = 24
    """``player`` paid with Gold ``card`` (shown, then discarded)."""
    PAID_CARD = 25
    """``player`` discarded ``card`` face down to pay for a Gold card."""
    TOOK = 26
    """``player`` took the auctioned ``card`` into hand (won, or took it when everyone passed)."""
    DISCARDED = 27
    """The auctioned ``card`` was discarded (removed from the game)."""
    PENALTY_TAKEN = 28
    """``player`` took ``card`` at random from the penalized player's hand; args = (penalized,)."""
    PENALTY_REMOVED = 29
    """``player`` drew ``card`` at random from the penalized hand and removed it; args = (penalized,)."""
    PENALTY_EMPTY = 30
    """The penalized ``player`` had no card left to take."""
    GAME_OVER = 31
    """The game is over."""


class Event(NamedTuple):
    """One event: its kind, the player it concerns (or -1), the card (or ``None`` if hidden), numbers."""

    kind: EventKind
    player: int
    card: int | None
    args: tuple[int, ...]


RawEvent = tuple[int, int, int, "tuple[int, ...] | int", int]
"""The engine's internal form: (kind, player, card or -1, args, visibility); a single
argument is stored as a bare int (one tuple less per bid or penalty draw)."""


def raw_args(raw: RawEvent) -> tuple[int, ...]:
    """The arguments of a raw event as a tuple."""
    args = raw[3]
    return args if args.__class__ is tuple else (args,)  # type: ignore[return-value]


def visible(raw: RawEvent, player: int | None) -> bool:
    """Whether ``player`` (``None`` = an omniscient reader) sees the card of ``raw``."""
    vis = raw[4]
    return player is None or vis == ALL or bool(vis >> player & 1)


def to_event(raw: RawEvent, player: int | None = None) -> Event:
    """Turn a raw event into an :class:`Event`, hiding the card from ``player`` if they may not see it."""
    card = raw[2]
    shown = None if card < 0 or not visible(raw, player) else card
    return Event(EventKind(raw[0]), raw[1], shown, raw_args(raw))
