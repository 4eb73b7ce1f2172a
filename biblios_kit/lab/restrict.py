"""Restricted play (Jaffe et al., AIIDE 2012): bots that obey one restriction, as policy wrappers.

A restriction removes some of a bot's legal actions. :class:`RestrictedBot` asks the wrapped bot
for its choice on the unchanged observation; when that choice breaks the restriction, it takes
the restriction's fallback instead. The wrapper, like every bot, sees only its observation.
Pitting a restricted bot against the same bot unrestricted measures how much the forbidden part
of the game matters: a large win-rate gap means that part decides games.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from biblios_kit.bots.base import Bot
from biblios_kit.engine import BID, CHURCH, DECLINE, KEEP, PASS, PAY, PICK, TO_AUCTION, TO_PUBLIC, Action, Observation
from biblios_kit.engine.actions import bid_amount, card_of
from biblios_kit.engine.state import Phase
from biblios_kit.i18n import N_
from biblios_kit.rules.model import CardKind, Ruleset

Allowed = Callable[[Ruleset, Observation, Action], bool]
"""Whether an action obeys the restriction, seen from the observation of the restricted player."""


@dataclass(frozen=True)
class Restriction:
    """One registered restriction: a name, a description (a gettext message id) and its rule."""

    name: str
    description: str
    allowed: Allowed


def _is_bid(action: Action) -> bool:
    return BID <= action < CHURCH


def _gold_in_hand(ruleset: Ruleset, observation: Observation) -> int:
    deck = ruleset.deck
    return sum(deck[c].value for c in observation.hand if deck[c].kind is CardKind.GOLD)


def _no_church(ruleset: Ruleset, observation: Observation, action: Action) -> bool:
    return action < CHURCH


def _no_bluff(ruleset: Ruleset, observation: Observation, action: Action) -> bool:
    if not _is_bid(action) or observation.auction is None:
        return True
    if observation.auction.currency == "gold":
        means = _gold_in_hand(ruleset, observation)
    else:
        means = len(observation.hand)
    return bid_amount(action) <= means


def _no_overbid(ruleset: Ruleset, observation: Observation, action: Action) -> bool:
    if not _is_bid(action) or observation.auction is None:
        return True
    card = ruleset.deck[observation.auction.card]
    return bid_amount(action) <= max(1, card.value)


def _no_gold_keep(ruleset: Ruleset, observation: Observation, action: Action) -> bool:
    if action != KEEP or observation.phase is not Phase.GIFT or observation.drawn is None:
        return True
    return ruleset.deck[observation.drawn].kind is not CardKind.GOLD


def _take_highest(ruleset: Ruleset, observation: Observation, action: Action) -> bool:
    if observation.phase is not Phase.PICK or not PICK <= action < PAY:
        return True
    deck = ruleset.deck
    best = max(deck[c].value for c in observation.public)
    return deck[card_of(action)].value == best


def _never_bid(ruleset: Ruleset, observation: Observation, action: Action) -> bool:
    return not _is_bid(action)


RESTRICTIONS: dict[str, Restriction] = {
    r.name: r
    for r in (
        Restriction("no-church", N_("declines every card that moves the dice"), _no_church),
        Restriction("no-bluff", N_("never bids more than it can pay"), _no_bluff),
        Restriction("no-overbid", N_("never bids more than the value of the card under auction"), _no_overbid),
        Restriction("no-gold-keep", N_("never keeps a Gold card on its gift turn"), _no_gold_keep),
        Restriction("take-highest", N_("always takes the highest-value card from the public space"), _take_highest),
        Restriction("never-bid", N_("never bids (passes every auction)"), _never_bid),
    )
}
"""Every restriction ``--restrict`` accepts, by name."""


class UnknownRestrictionError(ValueError):
    """A restriction name that is not registered."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(name)


def restriction(name: str) -> Restriction:
    """The registered restriction ``name``; raise :class:`UnknownRestrictionError` if there is none."""
    try:
        return RESTRICTIONS[name]
    except KeyError:
        raise UnknownRestrictionError(name) from None


def _fallback(allowed: Sequence[Action]) -> Action:
    """The action taken instead of a forbidden choice: pass or decline when possible, else a placement, else the first."""
    for preferred in (PASS, DECLINE, TO_AUCTION, TO_PUBLIC):
        if preferred in allowed:
            return preferred
    return allowed[0]


class RestrictedBot:
    """A bot that plays like ``inner`` except where ``restriction`` forbids its choice."""

    def __init__(self, inner: Bot, restriction: Restriction, ruleset: Ruleset) -> None:
        self.inner = inner
        self.restriction = restriction
        self.ruleset = ruleset
        self.name = f"{inner.name}[{restriction.name}]"
        self.overridden = 0
        """How many of the inner bot's choices the restriction replaced."""
        self.choices = 0
        """How many decisions this bot made."""

    def choose(self, observation: Observation) -> Action:
        """The inner bot's choice if the restriction allows it, else the restriction's fallback."""
        self.choices += 1
        choice = self.inner.choose(observation)
        rule = self.restriction.allowed
        if rule(self.ruleset, observation, choice):
            return choice
        allowed = [a for a in observation.legal_actions if rule(self.ruleset, observation, a)]
        if not allowed:  # the restriction cannot be obeyed here: play as the inner bot does
            return choice
        self.overridden += 1
        return _fallback(allowed)
