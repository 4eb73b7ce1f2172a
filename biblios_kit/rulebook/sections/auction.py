"""The auction and penalty sections of the rulebook: bids, ceilings, payment, the bluff and what a penalty costs."""

from __future__ import annotations

from biblios_kit.i18n import N_, _, format_list, pgettext
from biblios_kit.rulebook import claims as c
from biblios_kit.rulebook.grammar import capitalize
from biblios_kit.rulebook.model import Block, Paragraph, Section, Subheading
from biblios_kit.rulebook.sections.base import RendererBase
from biblios_kit.rules.model import AllPass, BiddingStart, CardKind, Currency, Overpay, PenaltyKind


def penalty_name(kind: PenaltyKind) -> str:
    """The name of a penalty kind in the active language."""
    names = {
        PenaltyKind.STANDARD: N_("Standard penalty"),
        PenaltyKind.MEDIEVAL_BLUFF: N_("Medieval Bluff"),
        PenaltyKind.NONE: N_("No penalty"),
    }
    return _(names[kind])


class AuctionSections(RendererBase):
    """The ``auction`` and ``penalty`` sections, a part of the renderer."""

    def kinds_phrase(self, kinds: list[CardKind]) -> str:
        nouns = {
            CardKind.CATEGORY: _("a category card"),
            CardKind.CHURCH: _("a {church}"),
            CardKind.GOLD: _("a {gold} card"),
        }
        return format_list([nouns[kind].format(**self.t) for kind in kinds], style="or")

    def auction(self) -> Section:
        a = self.r.auction
        blocks: list[Block] = [
            self.p(
                _(
                    "When {the_gift_phase} is over, {the_auction_pile} is shuffled and placed face down. The first "
                    "player of the game is the first active player; after each card, the next player clockwise "
                    "becomes the active player."
                ),
                (c.gift_phase_ends(), c.clockwise_turns()),
            ),
            self.p(_("The active player turns up the top card, and the bidding begins."), (c.clockwise_turns(),)),
        ]
        if a.bidding_starts is BiddingStart.LEFT_OF_ACTIVE:
            blocks.append(
                self.p(
                    _(
                        "The player on the active player's left bids first, then bidding goes clockwise, round the "
                        "table as many times as needed; the active player bids too."
                    ),
                    (c.first_bidder(True, self.r.penalty.exclude_from_reauction),),
                )
            )
        else:
            blocks.append(
                self.p(
                    _(
                        "The active player bids first, then bidding goes clockwise, round the table as many times as needed."
                    ),
                    (c.first_bidder(False, self.r.penalty.exclude_from_reauction),),
                )
            )
        blocks.append(
            self.p(
                _(
                    "Each bid must be higher than the current highest bid, and the first bid must be at least "
                    "{opening}. A player who passes is out of the bidding for this card. The bidding ends when only "
                    "one bidder is left: they win the card."
                ),
                (c.bids_raise(a.opening_bid),),
                opening=a.opening_bid,
            )
        )
        order = [CardKind.CATEGORY, CardKind.CHURCH, CardKind.GOLD]
        present = {card.kind for card in self.r.deck}
        for currency in (Currency.GOLD, Currency.CARDS):
            kinds = [k for k in order if k in present and a.currency.get(k) is currency]
            if kinds:
                blocks.extend(self.currency_blocks(currency, self.kinds_phrase(kinds)))
        if self.church_cards():
            blocks.append(
                self.p(
                    _("The winner adds the card to their {hand}; a {church} is used at once instead."),
                    (c.winner_takes(True), c.church_never_in_hand()),
                )
            )
        else:
            blocks.append(self.p(_("The winner adds the card to their {hand}."), (c.winner_takes(False),)))
        if a.all_pass is AllPass.DISCARD:
            blocks.append(
                self.p(
                    _("If nobody bids, the card is removed from the game and the turn ends."),
                    (c.all_pass(True, self.r.penalty.exclude_from_reauction),),
                )
            )
        elif self.penalty_possible():
            blocks.append(
                self.p(
                    _(
                        "If nobody bids, the active player takes the card for free, unless a penalty on this card "
                        "has put them out of its bidding (see {section}): then it is removed from the game."
                    ),
                    (c.all_pass(False, self.r.penalty.exclude_from_reauction),),
                    section=self.title("penalty"),
                )
            )
        else:
            blocks.append(
                self.p(
                    _("If nobody bids, the active player takes the card for free."),
                    (c.all_pass(False, self.r.penalty.exclude_from_reauction),),
                )
            )
        blocks.append(self.bluff_paragraph())
        if a.refuse_to_pay:
            blocks.append(
                self.p(
                    _("A winner who could pay may also refuse to pay and take the penalty instead."),
                    (c.refusal(True),),
                )
            )
        else:
            refusal = [
                option
                for option in self.r.options.values()
                if isinstance(auction_changes := option.changes.get("auction"), dict)
                and auction_changes.get("refuse_to_pay") is True
            ]
            if refusal:
                blocks.append(
                    self.p(
                        _(
                            "A winner who can pay must pay, unless the option {option} is on (see {section}): "
                            "then they may refuse and take the penalty."
                        ),
                        (c.refusal(False),),
                        option=pgettext("quotation", "“{text}”").format(text=refusal[0].title.get(self.lang)),
                        section=self.title("options"),
                    )
                )
            else:
                blocks.append(self.p(_("A winner who can pay must pay."), (c.refusal(False),)))
        blocks.append(
            self.p(
                _(
                    "{the_auction_phase} ends when the last card of {the_auction_pile} has been auctioned; scoring follows."
                ),
                (c.gift_phase_ends(),),
            )
        )
        return Section("auction", self.title("auction"), tuple(blocks))

    def currency_blocks(self, currency: Currency, what: str) -> list[Block]:
        """How bids in one currency work: the amounts allowed (a ceiling only when it limits anyone), the payment."""
        a = self.r.auction
        claims = (self.ceiling_claim(), self.payment_claim())
        exact = a.overpay is Overpay.FORBIDDEN
        if currency is Currency.CARDS:
            if a.cards_ceiling_hand:
                amounts = _(
                    "For {cards}, bids are numbers of cards, from {opening} up to what the bidder can pay: no one "
                    "may bid more cards than their own {hand} holds."
                )
            elif self.ceiling_is_rule(Currency.CARDS):
                amounts = _("For {cards}, bids are numbers of cards, from {opening} to {ceiling}.")
            else:
                amounts = _("For {cards}, bids are numbers of cards, at least {opening}.")
            pays = _(
                "The winner discards that many cards of any kind from their {hand}, face down: the others only learn "
                "how many. The card being auctioned cannot pay for itself."
            )
            text = amounts.format(cards=what, opening=a.opening_bid, ceiling=a.cards_ceiling, **self.t)
            return [Paragraph(capitalize(text) + " " + pays.format(**self.t), claims)]
        if a.gold_ceiling_hand:
            amounts = _(
                "For {cards}, bids are amounts of {gold}, from {opening} up to what the bidder can pay: no one may "
                "bid more than the total value of the {gold} cards in their own {hand}."
            )
        elif self.ceiling_is_rule(Currency.GOLD):
            amounts = _("For {cards}, bids are amounts of {gold}, from {opening} to {ceiling}.")
        else:
            amounts = _("For {cards}, bids are amounts of {gold}, at least {opening}.")
        if exact:
            pays = _(
                "The winner pays with {gold} cards from their {hand} whose values add up to exactly the bid; a "
                "winner who cannot make the exact amount cannot pay."
            )
        else:
            pays = _(
                "The winner pays with {gold} cards from their {hand} whose values add up to at least the bid. No "
                "change is given: anything paid above the bid is lost, but a payment may not include a card that "
                "could be left out while still covering the bid."
            )
        text = amounts.format(cards=what, opening=a.opening_bid, ceiling=a.gold_ceiling, **self.t)
        return [
            Paragraph(capitalize(text) + " " + pays.format(**self.t), claims),
            self.p(_("The {gold} cards paid are shown to everyone, then discarded."), (self.payment_claim(),)),
        ]

    def bluff_paragraph(self) -> Paragraph:
        """Whether a bid may exceed what the bidder can pay, as the ceilings make it true (the bluff, or not)."""
        a = self.r.auction
        used = {currency for kind, currency in a.currency.items() if any(card.kind is kind for card in self.deck)}
        capped = {Currency.GOLD: a.gold_ceiling_hand, Currency.CARDS: a.cards_ceiling_hand}
        within = c.no_bid_above_means(a.gold_ceiling_hand, a.cards_ceiling_hand)
        section = self.title("penalty")
        if used and all(capped[currency] for currency in used):
            if self.bids_always_payable():
                return self.p(
                    _("Nobody may bid more than they can pay, so a winner can always pay."),
                    (within, c.never_penalized(), self.ceiling_claim()),
                )
            return self.p(
                _(
                    "Nobody may bid more than the total value of the {gold} cards in their {hand}, but a winner who "
                    "cannot make the exact amount cannot pay and is penalized (see {section})."
                ),
                (within, self.ceiling_claim()),
                section=section,
            )
        if any(capped[currency] for currency in used):
            return self.p(
                _(
                    "Where bids are not limited to what the bidder can pay, players may bid more than they can pay: "
                    "that is the bluff. A winner who cannot pay is penalized (see {section})."
                ),
                (within, self.ceiling_claim(), c.penalty_kind(self.r.penalty.kind.value)),
                section=section,
            )
        return self.p(
            _(
                "Players may bid more than they can pay: that is the bluff. A winner who cannot pay is penalized (see {section})."
            ),
            (self.ceiling_claim(), c.penalty_kind(self.r.penalty.kind.value)),
            section=section,
        )

    def penalty(self) -> Section:
        r = self.r
        kind = r.penalty.kind
        if r.auction.refuse_to_pay:
            intro = _(
                "A player who wins an auction but does not pay, whether they cannot or they refuse, is penalized."
            )
        else:
            intro = _("A player who wins an auction but cannot pay is penalized.")
        pk = c.penalty_kind(kind.value)
        blocks: list[Block] = [self.p(intro, (pk,))]
        if self.bids_always_payable():
            if r.auction.refuse_to_pay:
                blocks.append(
                    self.p(
                        _(
                            "Since nobody may bid more than they can pay, a winner can always pay: only a winner who "
                            "refuses to pay is penalized."
                        ),
                        (c.never_penalized(),),
                    )
                )
            else:
                blocks.append(
                    self.p(
                        _(
                            "Since nobody may bid more than they can pay, a winner can always pay, so this penalty "
                            "never arises."
                        ),
                        (c.never_penalized(),),
                    )
                )
        blocks.append(Subheading(penalty_name(kind)))
        if kind is PenaltyKind.STANDARD:
            blocks.append(
                self.p(
                    _(
                        "Each other player in turn, clockwise starting on the penalized player's left, draws one card "
                        "at random from the penalized player's {hand} and adds it to their own. If that {hand} runs "
                        "out, the remaining players get nothing."
                    ),
                    (pk,),
                )
            )
        elif kind is PenaltyKind.MEDIEVAL_BLUFF:
            blocks.append(
                self.p(
                    _(
                        "The player on the penalized player's left draws one card at random from the penalized "
                        "player's {hand}. That card is removed from the game: nobody gets it."
                    ),
                    (pk,),
                )
            )
        else:
            blocks.append(self.p(_("The penalized player loses no card."), (pk,)))
        if kind is not PenaltyKind.NONE:
            blocks.append(self.p(_("A player whose {hand} is empty loses nothing."), (pk,)))
        from_options = [
            option.title.get(self.lang)
            for option_id, option in r.options.items()
            if option_id in r.active_options and "penalty" in option.changes
        ]
        if from_options:
            blocks.append(
                self.p(
                    _("This penalty comes from the option in force: {option}."),
                    note=True,
                    option=format_list(from_options),
                )
            )
        if r.penalty.exclude_from_reauction:
            blocks.append(
                self.p(
                    _(
                        "Then the same card is auctioned again, with the same active player. The penalized player may "
                        "not bid on it again, nor may anyone already penalized on this card. If nobody bids, the card "
                        "is handled like any card nobody bids on; once every player has been penalized on it, it is "
                        "removed from the game."
                    ),
                    (c.reauction(True), c.all_pass(self.r.auction.all_pass is AllPass.DISCARD, True)),
                )
            )
        else:
            blocks.append(
                self.p(
                    _(
                        "Then the same card is auctioned again, with the same active player; the penalized player "
                        "may bid on it again, but a player penalized a second time on the same card may not. Once "
                        "nobody is left who may bid, the card is removed from the game."
                    ),
                    (
                        c.reauction(False),
                        c.first_bidder(self.r.auction.bidding_starts is BiddingStart.LEFT_OF_ACTIVE, False),
                    ),
                )
            )
        return Section("penalty", self.title("penalty"), tuple(blocks))
