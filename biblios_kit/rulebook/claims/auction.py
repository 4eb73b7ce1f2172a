"""Claims of the auction and penalty sections: who bids, how much, who pays and what a penalty costs."""

from __future__ import annotations

from biblios_kit.engine import Event, EventKind, GameState, Phase
from biblios_kit.rulebook.claims.core import Checker, Claim, Tracker, claim
from biblios_kit.rules.model import CardKind, Currency

E = EventKind


# -- auction ---------------------------------------------------------------------------------------


def first_bidder(left_of_active: bool, exclude: bool) -> Claim:
    """The first bid on a revealed card comes from the active player's left neighbour, or from the active player;
    players out of the bidding after a penalty are skipped."""

    def event(t: Tracker, e: Event) -> bool:
        if e.kind in (E.BID, E.PASSED) and not t.bids_on_card and not t.passed and t.auction_active >= 0:
            out = t.excluded(exclude)
            first = t.auction_active if not left_of_active and t.auction_active not in out else t.auction_active + 1
            first %= t.players
            while first in out and len(out) < t.players:
                first = (first + 1) % t.players
            return e.player != first
        return False

    return claim("auction.first-bidder", ["auction.bidding_starts", "penalty.exclude_from_reauction"], event=event)


def bids_raise(opening: int) -> Claim:
    """Each bid beats the highest so far; the first is at least the opening bid; a player who passed bids no more."""

    def event(t: Tracker, e: Event) -> bool:
        if e.kind is E.BID:
            return e.args[0] < opening or e.args[0] <= t.high or e.player in t.passed
        return False

    def decision(state: GameState) -> bool:
        if state.phase is not Phase.BIDDING:
            return False
        lo, hi = state.bid_range()
        view = state.observation(state.current_player).auction
        high = view.high_bid if view is not None else 0
        return lo <= hi and lo != max(opening, high + 1)

    return claim("auction.raise", ["auction.opening_bid"], event=event, decision=decision)


def bid_ceiling(currency_of: dict[int, bool], gold_cap: int | None, cards_cap: int | None) -> Claim:
    """The most a player may bid, per currency: a fixed ceiling, or (``None``) what they can pay.

    ``currency_of`` maps a card kind index to whether its bids are in Gold. Checked at each
    bidding decision: the highest legal bid must be exactly the ceiling the rulebook states.
    """

    def decision(state: GameState) -> bool:
        if state.phase is not Phase.BIDDING:
            return False
        _lo, hi = state.bid_range()
        player = state.current_player
        assert player is not None
        observation = state.observation(player)
        auction = observation.auction
        if auction is None or auction.card is None:
            return False
        card = next(c for c in state.ruleset.deck if c.id == auction.card)
        in_gold = currency_of.get(list(CardKind).index(card.kind), True)
        cap = gold_cap if in_gold else cards_cap
        hand = state.hand(player)
        if cap is None:
            deck = {c.id: c for c in state.ruleset.deck}
            means = sum(deck[c].value for c in hand if deck[c].kind is CardKind.GOLD) if in_gold else len(hand)
            return hi != means
        return hi != cap

    return claim("auction.ceiling", ["auction.ceiling", "auction.currency"], decision=decision)


def payment(in_gold: dict[CardKind, bool], overpay_lost: bool) -> Claim:
    """A winner pays with Gold cards covering the bid (exactly, or without a needless card), or discards that many cards."""
    currency = dict(in_gold)

    def event(t: Tracker, e: Event) -> bool:
        if e.kind is E.CANNOT_PAY:  # only a winner who really cannot cover the bid
            bid = e.args[0]
            if not currency.get(t.kind(t.auction_card), True):
                return len(t.hands[e.player]) >= bid
            if overpay_lost:
                return t.gold(e.player) >= bid
            return _exact(sorted(t.card[c].value for c in t.hands[e.player] if t.kind(c) is CardKind.GOLD), bid)
        if e.kind is E.PAID_CARD:
            return e.card == t.auction_card
        if e.kind is not E.TOOK or t.winner < 0 or e.player != t.winner or e.card != t.auction_card:
            return False
        kind = t.kind(t.auction_card)
        if currency.get(kind, True):
            values = [t.card[c].value for c in t.paid if t.kind(c) is CardKind.GOLD]
            if len(values) != len(t.paid):
                return True
            paid = sum(values)
            if not overpay_lost:
                return paid != t.winning_bid
            return paid < t.winning_bid or any(paid - v >= t.winning_bid for v in values)
        return len(t.paid) != t.winning_bid

    return claim("auction.payment", ["auction.currency", "auction.overpay"], event=event)


def _exact(values: list[int], target: int) -> bool:
    """Whether some of ``values`` add up to exactly ``target``."""
    reachable = {0}
    for value in values:
        reachable |= {r + value for r in reachable if r + value <= target}
    return target in reachable


def winner_takes(has_church: bool) -> Claim:
    """The winner (after paying) takes the card into hand; a church card is used at once instead."""

    class _Check(Checker):
        def __init__(self) -> None:
            self.due = -1

        def event(self, t: Tracker, e: Event) -> bool:
            if e.kind is E.WON:
                self.due = e.player
                return False
            if e.kind in (E.CANNOT_PAY, E.REFUSED):
                self.due = -1
                return False
            if e.kind in (E.REVEALED, E.AUCTION_PHASE, E.GAME_OVER) and self.due >= 0:
                return True
            if e.kind is E.TOOK and self.due >= 0:
                wrong = e.player != self.due
                self.due = -1
                return wrong or (not has_church and t.kind(-1 if e.card is None else e.card) is CardKind.CHURCH)
            return False

    return Claim("auction.winner-takes", ("auction",), _Check)


def all_pass(discard: bool, exclude: bool) -> Claim:
    """When nobody bids, the card is removed from the game, or the active player takes it for free (unless a
    penalty has put them out of its bidding: then it is removed)."""

    class _Check(Checker):
        def __init__(self) -> None:
            self.after = False

        def event(self, t: Tracker, e: Event) -> bool:
            if e.kind is E.ALL_PASSED:
                self.after = True
                return False
            if not self.after:
                return False
            self.after = False
            if discard or t.auction_active in t.excluded(exclude):
                return e.kind is not E.DISCARDED
            return e.kind is not E.TOOK or e.player != t.auction_active

    return Claim("auction.all-pass", ("auction.all_pass", "penalty.exclude_from_reauction"), _Check)


def refusal(allowed: bool) -> Claim:
    """A winner who can pay refuses only where the rules allow it."""

    def decision(state: GameState) -> bool:
        if state.phase is not Phase.PAYMENT:
            return False
        from biblios_kit.engine import REFUSE

        player = state.current_player
        assert player is not None
        view = state.observation(player).payment
        if view is not None and view.paid_count:  # refusing is a choice made before paying anything
            return REFUSE in state.legal_actions()
        return (REFUSE in state.legal_actions()) != allowed

    return claim("auction.refuse", ["auction.refuse_to_pay"], decision=decision)


def never_penalized() -> Claim:
    """No winner ever fails to pay (bids never exceed the bidder's means)."""
    return claim("penalty.never", ["auction.ceiling"], event=lambda t, e: e.kind is E.CANNOT_PAY)


def no_bid_above_means(gold: bool, cards: bool) -> Claim:
    """No bid exceeds what the bidder can pay (in the currencies whose ceiling is the bidder's hand)."""

    def event(t: Tracker, e: Event) -> bool:
        if e.kind is not E.BID or t.auction_card < 0:
            return False
        in_gold = t.ruleset.auction.currency.get(t.kind(t.auction_card))
        if in_gold is Currency.GOLD:
            return gold and e.args[0] > t.gold(e.player)
        return cards and e.args[0] > len(t.hands[e.player])

    return claim("auction.within-means", ["auction.ceiling"], event=event)


# -- penalty ---------------------------------------------------------------------------------------


def penalty_kind(kind: str) -> Claim:
    """What a penalized player loses: each other player takes one card (standard), the left neighbour removes one
    (medieval bluff), or nothing."""

    class _Check(Checker):
        def __init__(self) -> None:
            self.victim = -1
            self.next_taker = -1
            self.acts = 0

        def event(self, t: Tracker, e: Event) -> bool:
            if e.kind in (E.CANNOT_PAY, E.REFUSED):
                self.victim, self.acts = e.player, 0
                self.next_taker = (e.player + 1) % t.players
                return False
            if self.victim < 0:
                return e.kind in (E.PENALTY_TAKEN, E.PENALTY_REMOVED, E.PENALTY_EMPTY)
            if e.kind is E.PENALTY_TAKEN:
                wrong = kind != "standard" or e.player != self.next_taker or e.args[0] != self.victim
                self.next_taker = (self.next_taker + 1) % t.players
                self.acts += 1
                return wrong
            if e.kind is E.PENALTY_REMOVED:
                self.acts += 1
                return kind != "medieval-bluff" or e.player != self.next_taker or self.acts > 1
            if e.kind is E.PENALTY_EMPTY:
                self.victim = -1
                return kind == "none" or bool(t.hands[e.player])
            # the penalty is over: check that it was complete
            victim, self.victim = self.victim, -1
            if kind == "standard":
                return self.acts != t.players - 1 and bool(t.hands[victim])
            if kind == "medieval-bluff":
                return self.acts != 1 and bool(t.hands[victim])
            return self.acts != 0

    return Claim("penalty.kind", ("penalty.kind",), _Check)


def reauction(exclude: bool) -> Claim:
    """After a penalty the same card is auctioned again; penalized players bid on it again only when allowed.

    When every player has been penalized on it (only possible when they are excluded), it is removed from the game.
    """

    class _Check(Checker):
        def __init__(self) -> None:
            self.card = -1
            self.no_bidders = False

        def event(self, t: Tracker, e: Event) -> bool:
            if self.no_bidders:  # the card left the game: nobody takes it
                self.no_bidders = False
                return e.kind is E.TOOK
            if e.kind in (E.CANNOT_PAY, E.REFUSED):
                self.card = t.auction_card
                return False
            if e.kind is E.NO_BIDDERS:
                self.no_bidders = True
                card, self.card = self.card, -1
                return e.card != card or len(t.excluded(exclude)) != t.players
            if e.kind in (E.WON, E.ALL_PASSED) and self.card >= 0:
                card, self.card = self.card, -1
                return e.card != card
            if e.kind is E.REVEALED:
                wrong = self.card >= 0
                self.card = -1
                return wrong
            if e.kind is E.BID:
                return e.player in t.excluded(exclude)
            return False

    return Claim("penalty.reauction", ("penalty.exclude_from_reauction",), _Check)
