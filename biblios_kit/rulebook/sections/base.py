"""What every section renderer shares: titles, the terms, small helpers and the claims built from ruleset fields."""

from __future__ import annotations

from collections import Counter

from biblios_kit.i18n import N_, _, in_language
from biblios_kit.rulebook import claims as c
from biblios_kit.rulebook.claims import Claim
from biblios_kit.rulebook.grammar import capitalize, term_values
from biblios_kit.rulebook.model import Paragraph
from biblios_kit.rules.model import (
    AwardDie,
    Card,
    CardKind,
    CategoryTie,
    ChurchTargets,
    Currency,
    Overpay,
    Removal,
    Ruleset,
    ShortDraw,
)

FIXED_TITLES: dict[str, str] = {
    "overview": N_("Overview"),
    "components": N_("Components"),
    "setup": N_("Setup"),
    "penalty": N_("Penalties"),
    "scoring": N_("Scoring"),
    "ties": N_("Final ties"),
    "options": N_("Options"),
}
"""Section titles that do not depend on the edition (``gift``, ``church`` and ``auction`` use its terms)."""

TERM_TITLES: dict[str, str] = {"gift": "gift_phase", "church": "church", "auction": "auction_phase"}
"""Sections titled with an edition term (the term key for each)."""


def section_title(section_id: str, ruleset: Ruleset | None, lang: str) -> str:
    """The title of a section in ``lang`` (edition-term titles need the ruleset; without it a generic word)."""
    with in_language(lang):
        if section_id in TERM_TITLES and ruleset is not None:
            return capitalize(ruleset.term(TERM_TITLES[section_id], lang))
        generic = {"gift": N_("Gift phase"), "church": N_("Church cards"), "auction": N_("Auction phase")}
        return _(FIXED_TITLES.get(section_id) or generic[section_id])


class RendererBase:
    """The state and shared helpers of a renderer of one ruleset in the active language.

    The claim builders here turn ruleset fields into the :mod:`..claims` that the sections'
    sentences assert, so a sentence and its claim are made from the same fields.
    """

    def __init__(self, ruleset: Ruleset, lang: str) -> None:
        self.r = ruleset
        self.lang = lang
        self.t = term_values(ruleset, lang)
        self.deck = ruleset.deck

    # -- small helpers -------------------------------------------------------------------------

    def p(self, template: str, claims: tuple[Claim, ...] = (), note: bool = False, **values: object) -> Paragraph:
        """A paragraph from a translated template filled with the terms and ``values``.

        ``claims`` are what it asserts about every game (see :mod:`.claims`); a paragraph that
        states no rule of play (an introduction, a summary, a cross-reference) is a ``note``.
        """
        return Paragraph(capitalize(template.format(**{**self.t, **values})), claims, note)

    def f(self, template: str, **values: object) -> str:
        """A translated template filled with the terms and ``values`` (first letter capitalized)."""
        return capitalize(template.format(**{**self.t, **values}))

    def title(self, section_id: str) -> str:
        return section_title(section_id, self.r, self.lang)

    def category_name(self, category_id: str) -> str:
        return self.r.category(category_id).name.get(self.lang)

    def church_cards(self) -> list[Card]:
        return [card for card in self.deck if card.kind is CardKind.CHURCH]

    def uniform_dice(self) -> tuple[AwardDie, ...] | None:
        """The dice every category shares, or ``None`` when categories differ."""
        dice = {category.dice for category in self.r.categories}
        return next(iter(dice)) if len(dice) == 1 else None

    def max_dice(self) -> int:
        return max((len(category.dice) for category in self.r.categories), default=1)

    def penalty_possible(self) -> bool:
        """Whether a winner can ever be penalized (bids beyond their means, an exact payment, or refusing)."""
        return not self.bids_always_payable() or self.r.auction.refuse_to_pay

    def bids_always_payable(self) -> bool:
        """Whether every bid is capped by what the bidder can pay and any covering payment is accepted."""
        a = self.r.auction
        used = set(a.currency.values())
        capped = {Currency.GOLD: a.gold_ceiling_hand, Currency.CARDS: a.cards_ceiling_hand}
        exact = Currency.GOLD in used and a.overpay is Overpay.FORBIDDEN
        return bool(used) and all(capped[currency] for currency in used) and not exact

    # -- claims built from the same fields as the sentences ------------------------------------

    def turns(self, players: int) -> int:
        """How many gift turns a game of ``players`` has (a short last turn counts, a discarded rest does not)."""
        setup = self.r.setups[players]
        turns, left = divmod(self.cards_in_play(players), setup.gift_cards)
        return turns + (1 if left and setup.short_draw is not ShortDraw.DISCARD else 0)

    def setup_claims(self) -> tuple[Claim, ...]:
        """What the setup table states: the cards removed and dealt, the cards in play, the turns."""
        setups = self.r.setups
        return (
            c.setup_removed({n: sum(x.count for x in s.remove) + s.remove_random for n, s in setups.items()}),
            c.setup_dealt(
                {n: s.starting_cards for n, s in setups.items()}, {n: s.starting_hand for n, s in setups.items()}
            ),
            c.cards_in_play({n: self.cards_in_play(n) for n in setups}),
            c.gift_turns({n: self.turns(n) for n in setups}),
            self.draw_claim(),
        )

    def named_counts(self) -> dict[int, int]:
        return {n: sum(item.count for item in s.starting_cards) for n, s in self.r.setups.items()}

    def dealt_counts(self) -> tuple[dict[int, tuple[Removal, ...]], dict[int, int]]:
        setups = self.r.setups
        return {n: s.starting_cards for n, s in setups.items()}, {n: s.starting_hand for n, s in setups.items()}

    def draw_claim(self) -> Claim:
        setups = self.r.setups
        return c.gift_draw(
            {n: s.gift_cards for n, s in setups.items()},
            {n: s.short_draw is ShortDraw.DISCARD for n, s in setups.items()},
        )

    def church_claim(self) -> Claim:
        effects = {card.effect.id: card.effect for card in self.church_cards() if card.effect is not None}
        return c.church_use(effects, self.r.church.targets is ChurchTargets.FIRST_PLACE)

    def dice_claims(self) -> tuple[Claim, ...]:
        dice = [die for category in self.r.categories for die in category.dice]
        return (c.dice_start([d.start for d in dice]), c.dice_bounds([(d.min, d.max) for d in dice]))

    def gold_cap(self, currency: Currency) -> int | None:
        """The bid ceiling of a currency: a number, or ``None`` for what the bidder can pay."""
        a = self.r.auction
        if currency is Currency.GOLD:
            return None if a.gold_ceiling_hand else a.gold_ceiling
        return None if a.cards_ceiling_hand else a.cards_ceiling

    def ceiling_is_rule(self, currency: Currency) -> bool:
        """Whether a fixed ceiling limits bids below what the deck allows anyone to pay (so the rulebook states it)."""
        if currency is Currency.GOLD:
            return self.r.auction.gold_ceiling < sum(card.value for card in self.deck if card.kind is CardKind.GOLD)
        return self.r.auction.cards_ceiling < len(self.deck)

    def deck_claim(self) -> Claim:
        return c.deck_composition(dict(Counter(card.kind for card in self.deck)))

    def ceiling_claim(self) -> Claim:
        kinds = list(CardKind)
        in_gold = {kinds.index(kind): currency is Currency.GOLD for kind, currency in self.r.auction.currency.items()}
        return c.bid_ceiling(in_gold, self.gold_cap(Currency.GOLD), self.gold_cap(Currency.CARDS))

    def payment_claim(self) -> Claim:
        a = self.r.auction
        in_gold = {kind: currency is Currency.GOLD for kind, currency in a.currency.items()}
        return c.payment(in_gold, a.overpay is Overpay.LOST)

    def scoring_claims(self) -> tuple[Claim, ...]:
        places = {category.id: len(category.dice) for category in self.r.categories}
        scoring = self.r.scoring
        return (
            c.category_winners(scoring.category_tie is CategoryTie.EARLIEST_LETTER, places),
            c.die_points(scoring.points, scoring.bonus),
        )

    def cards_in_play(self, players: int) -> int:
        setup = self.r.setups[players]
        removed = sum(removal.count for removal in setup.remove) + setup.remove_random
        dealt = sum(item.count for item in setup.starting_cards) + setup.starting_hand
        return len(self.deck) - removed - dealt * players
