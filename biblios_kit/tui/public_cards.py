"""What a player may know of every hand: the cards seen going into it in public, from an event stream.

In the physical game a card taken from the public space or won at auction goes into a hand
in front of everyone, so the table remembers it. A card can leave a hand unseen (paid face
down for a Gold card, drawn at random in a penalty the reader had no part in): from then on
some of the remembered cards may be gone, and :attr:`Collection.unseen_losses` says how many
left that way. Kept cards and dealt cards are private and never counted here.

The functions read events already redacted for one reader (``GameState.events_for``) or the
public projection of the log (:func:`public_events`), never the hidden state.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from biblios_kit.engine.events import ALL, Event, EventKind, RawEvent, raw_args

E = EventKind


@dataclass(frozen=True, slots=True)
class Collection:
    """The cards a reader knows to be in one player's hand, seen going in in public."""

    cards: tuple[int, ...]
    """Card ids in the order they went into the hand (none seen leaving it since)."""
    unseen_losses: int
    """Cards that left this hand without the reader seeing which: any of :attr:`cards` may be gone."""


def public_events(log: Iterable[RawEvent]) -> list[Event]:
    """The log as somebody who holds no cards sees it: every card not shown to all is ``None``."""
    events = []
    for raw in log:
        card = raw[2] if raw[2] >= 0 and raw[4] == ALL else None
        events.append(Event(EventKind(raw[0]), raw[1], card, raw_args(raw)))
    return events


PRIVATE_MOVES = frozenset({E.PAID_CARD, E.PENALTY_TAKEN, E.PENALTY_REMOVED})
"""The ways a card leaves a hand that only some players see (the payer; the players in the penalty)."""


def collections(events: Sequence[Event], players: int, is_church: Sequence[bool],
                public: bool = False) -> tuple[Collection, ...]:  # fmt: skip
    """Per player, the cards seen going into their hand in public and still known to be there.

    ``events`` are redacted for the reader: a card they may not see is ``None``. A card the
    reader sees moving (a penalty they took part in) moves between collections; one they do
    not see counts as an unseen loss of the player who lost it. With ``public``, what the
    reader alone saw of :data:`PRIVATE_MOVES` is set aside: the collections as everybody
    knows them (what the others know of the reader's hand).
    """
    held: list[list[int]] = [[] for _ in range(players)]
    unseen = [0] * players
    for event in events:
        kind, who, card = event.kind, event.player, event.card
        if public and kind in PRIVATE_MOVES:
            card = None
        if kind in (E.PICKED, E.TOOK):
            if card is not None and not is_church[card]:
                _drop(held, card)
                held[who].append(card)
        elif kind == E.PAID_GOLD or kind == E.PAID_CARD:
            if card is None:
                unseen[who] += 1
            else:
                _drop(held, card)
        elif kind == E.PENALTY_TAKEN:
            victim = event.args[0]
            if card is None:
                unseen[victim] += 1
            else:
                _drop(held, card)
                held[who].append(card)
        elif kind == E.PENALTY_REMOVED:
            victim = event.args[0]
            if card is None:
                unseen[victim] += 1
            else:
                _drop(held, card)
    return tuple(Collection(tuple(cards), lost) for cards, lost in zip(held, unseen, strict=True))


def _drop(held: list[list[int]], card: int) -> None:
    """Forget ``card`` wherever it was remembered (it left that hand in view)."""
    for cards in held:
        if card in cards:
            cards.remove(card)
            return


def penalties(events: Sequence[Event]) -> list[tuple[int, list[Event]]]:
    """Every penalty so far: (index of its ``CANNOT_PAY``/``REFUSED`` event, that event and the draws that followed)."""
    found: list[tuple[int, list[Event]]] = []
    for index, event in enumerate(events):
        if event.kind in (E.CANNOT_PAY, E.REFUSED):
            found.append((index, [event]))
        elif event.kind in (E.PENALTY_TAKEN, E.PENALTY_REMOVED, E.PENALTY_EMPTY) and found:
            found[-1][1].append(event)
    return found
