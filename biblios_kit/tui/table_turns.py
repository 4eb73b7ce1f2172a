"""What the table does after each change (no Textual): end, a forced move, the curtain, a person, a bot."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from biblios_kit.engine.observation import Observation
from biblios_kit.engine.state import Phase
from biblios_kit.rules.model import Ruleset
from biblios_kit.tui.config import DEFAULT_AUTOPLAY
from biblios_kit.tui.table_session import TableSession
from biblios_kit.tui.table_view import Perspective

PRIVATE_PHASES = frozenset({Phase.GIFT, Phase.PAYMENT})
"""Decisions that always need the decider's private cards (the drawn card, the cards to pay with):
in hot-seat play these bring the curtain down. A pick or a church card is decided in public, and
so is a bid unless the ruleset limits each bid to what the bidder's hand can pay
(:func:`needs_private_cards`)."""

AUTOPLAY_PHASES: dict[str, frozenset[Phase]] = {
    "off": frozenset(),
    "picks-payments": frozenset({Phase.PICK, Phase.PAYMENT}),
    "all": frozenset({Phase.PICK, Phase.PAYMENT, Phase.GIFT, Phase.CHURCH}),
}
"""The *automatic moves* setting: in which phases a person's only legal move is played for them."""


def needs_private_cards(ruleset: Ruleset, obs: Observation) -> bool:
    """Whether the decision ``obs`` waits for needs its decider's private cards on screen (hot-seat: the curtain).

    A gift turn (the card drawn) and a payment (the cards to pay with) do. A bid does only
    when the most the bidder may bid is what their hand can pay in Gold (a ruleset whose Gold
    ceiling is ``hand``): the bids offered would show their Gold. Otherwise bids are public,
    the ceiling is the same for everyone and the number of cards in a hand is seen by all, so
    the bidder bids on the public table (and may show their hand with ``h``).
    """
    if obs.phase in PRIVATE_PHASES:
        return True
    if obs.phase is Phase.BIDDING:
        return obs.auction is not None and obs.auction.currency == "gold" and ruleset.auction.gold_ceiling_hand
    return False


def autoplay_mode(session: TableSession) -> str:
    """The game's *forced moves* setting (see :data:`AUTOPLAY_PHASES`), saved with the game."""
    return session.autoplay if session.autoplay in AUTOPLAY_PHASES else DEFAULT_AUTOPLAY


@dataclass(frozen=True, slots=True)
class Turn:
    """What happens next, and the perspective to show while it does."""

    kind: Literal["end", "forced", "curtain", "person", "bot", "elsewhere"]
    """``end``: the game is over; ``forced``: :attr:`action` is played for the person (their only legal move);
    ``curtain``: the next person needs their private cards and must take the keyboard first; ``person``: a
    person decides on the table; ``bot``: a bot of this machine thinks; ``elsewhere``: a player at another
    terminal decides."""
    seen: Perspective
    seat: int | None = None
    """Who decides."""
    action: int | None = None
    """The forced move."""


def next_turn(session: TableSession, seen: Perspective) -> Turn:
    """What the table does now that the game has reached its current position, seen from ``seen``."""
    current = session.current
    if session.over or current is None:
        return Turn("end", seen)
    if session.is_human(current):
        legal = session.legal_actions()  # empty while a move sent to a server is on its way
        if session.phase in AUTOPLAY_PHASES[autoplay_mode(session)] and len(legal) == 1:
            return Turn("forced", seen, current, legal[0])
        if seen.viewer != current and len(session.humans) > 1:
            if needs_private_cards(session.ruleset, session.observation(current)):
                return Turn("curtain", seen, current)
            # a pick, a church card or a bid needs nobody's private cards: decided in view of everyone
            return Turn("person", replace(seen, viewer=None, actor=current), current)
        return Turn("person", replace(seen, viewer=current, actor=None), current)
    viewer = session.humans[0] if seen.viewer is None and len(session.humans) == 1 else seen.viewer
    return Turn("bot" if current in session.bots else "elsewhere", replace(seen, viewer=viewer, actor=None), current)
