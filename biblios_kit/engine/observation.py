"""What one player may know: a frozen :class:`Observation` built from the state and the event log.

An observation holds plain ints and tuples only (no reference to the state), and no
card identity hidden from its player: other hands appear as sizes, face-down cards
as counts, except the cards this player saw (their own placements and payments, the
cards they took or lost in a penalty).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from biblios_kit.engine.compiled import CUR_GOLD
from biblios_kit.engine.core import PH_BIDDING, PH_GIFT, PH_OVER, PH_PAYMENT, Phase
from biblios_kit.engine.events import EventKind, RawEvent, visible

if TYPE_CHECKING:
    from biblios_kit.engine.state import GameState

E = EventKind
# Event kinds as plain ints (an IntEnum attribute lookup is ~15 times slower, per event), ``Final``:
# compiled, a plain module-level name is a dictionary look-up at every use, a ``Final`` one a C static.
_BID: Final = int(E.BID)
_CANNOT_PAY: Final = int(E.CANNOT_PAY)
_DEALT: Final = int(E.DEALT)
_KEPT: Final = int(E.KEPT)
_PAID_CARD: Final = int(E.PAID_CARD)
_PAID_GOLD: Final = int(E.PAID_GOLD)
_PASSED: Final = int(E.PASSED)
_PENALTY_REMOVED: Final = int(E.PENALTY_REMOVED)
_PENALTY_TAKEN: Final = int(E.PENALTY_TAKEN)
_PICKED: Final = int(E.PICKED)
_TOOK_KEPT: Final = int(E.TOOK_KEPT)
_REFUSED: Final = int(E.REFUSED)
_REVEALED: Final = int(E.REVEALED)
_TOOK: Final = int(E.TOOK)
_TO_AUCTION_PILE: Final = int(E.TO_AUCTION_PILE)


@dataclass(frozen=True, slots=True, init=False)
class AuctionView:
    """The card under auction and the bidding on it."""

    card: int
    currency: str
    """``"gold"`` (bids are Gold) or ``"cards"`` (bids are numbers of cards)."""
    high_bid: int
    """0 when nobody has bid yet in this round."""
    high_bidder: int | None
    bids: tuple[tuple[int, int], ...]
    """This round's (player, amount) in order; amount 0 is a pass."""
    out: tuple[int, ...]
    """Players who passed in this round or are excluded from it."""
    excluded: tuple[int, ...]
    """Players penalized on this card (out of its re-auctions)."""
    min_bid: int
    """The lowest legal bid now."""
    max_bid: int
    """The highest bid this player may make on the card: the ruleset's ceiling for this currency,
    or, when the ruleset bounds each bid by what the bidder can pay, what this player can pay."""

    def __init__(
        self,
        card: int,
        currency: str,
        high_bid: int,
        high_bidder: int | None,
        bids: tuple[tuple[int, int], ...],
        out: tuple[int, ...],
        excluded: tuple[int, ...],
        min_bid: int,
        max_bid: int,
    ) -> None:
        # Written out (``init=False``): compiled, each line is a plain store (the dataclass's own
        # ``__init__`` would run interpreted); interpreted, it is what the dataclass's does.
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "currency", currency)
        object.__setattr__(self, "high_bid", high_bid)
        object.__setattr__(self, "high_bidder", high_bidder)
        object.__setattr__(self, "bids", bids)
        object.__setattr__(self, "out", out)
        object.__setattr__(self, "excluded", excluded)
        object.__setattr__(self, "min_bid", min_bid)
        object.__setattr__(self, "max_bid", max_bid)


@dataclass(frozen=True, slots=True, init=False)
class PaymentView:
    """A winning bid being paid, one card at a time."""

    payer: int
    bid: int
    currency: str
    paid_gold: tuple[int, ...]
    """Gold cards paid so far (shown to everyone)."""
    paid_count: int
    """Number of cards paid so far (their identity is hidden in a Gold auction)."""

    def __init__(
        self,
        payer: int,
        bid: int,
        currency: str,
        paid_gold: tuple[int, ...],
        paid_count: int,
    ) -> None:
        # Written out (``init=False``): compiled, each line is a plain store (the dataclass's own
        # ``__init__`` would run interpreted); interpreted, it is what the dataclass's does.
        object.__setattr__(self, "payer", payer)
        object.__setattr__(self, "bid", bid)
        object.__setattr__(self, "currency", currency)
        object.__setattr__(self, "paid_gold", paid_gold)
        object.__setattr__(self, "paid_count", paid_count)


@dataclass(frozen=True, slots=True, init=False)
class Observation:
    """Everything ``player`` may know at this moment, and their legal actions if they must decide."""

    player: int
    players: int
    ruleset_id: str
    ruleset_hash: str
    """Content hash of the ruleset with its options (see :func:`~biblios_kit.engine.compiled.compiled_for_hash`)."""
    phase: Phase
    current_player: int | None
    active_player: int
    """Whose gift turn or auction turn it is."""
    hand: tuple[int, ...]
    """This player's cards, sorted."""
    hand_sizes: tuple[int, ...]
    """Every player's number of cards in hand (a kept card joins at the end of the turn)."""
    public: tuple[int, ...]
    """The public space, in placement order."""
    dice: tuple[int, ...]
    """Face of every award die (categories in board order, then place)."""
    draw_pile: int
    auction_pile: int
    removed: int
    """Cards out of the game face down (setup removals, face-down payments and discards)."""
    discard: tuple[int, ...]
    """Cards out of the game face up, in order (Gold paid, church cards used, unsold cards)."""
    drawn: int | None
    """The card this player just drew and must place (their gift turn only)."""
    kept: int | None
    """The card this player placed in front of themself this turn, not yet in hand."""
    kept_hidden: bool
    """Another active player has a face-down kept card waiting to join their hand."""
    owed: tuple[int, int, int]
    """Gift turn: destinations still to fill (keep, auction pile, public space)."""
    church: tuple[int, int] | None
    """(owner, card) of the church/bishop card being resolved."""
    auction: AuctionView | None
    payment: PaymentView | None
    my_kept: tuple[int, ...]
    """Every card this player kept on their gift turns (church cards included)."""
    my_auction_cards: tuple[int, ...]
    """Cards this player put on the auction pile that are still unrevealed there."""
    revealed: tuple[int, ...]
    """Cards revealed in the auction phase so far, in order."""
    gold_paid: tuple[tuple[int, int], ...]
    """(player, Gold card) of every Gold payment."""
    cards_paid: tuple[int, ...]
    """Per player, number of cards discarded face down to pay for Gold cards."""
    cards_lost: tuple[int, ...]
    """Per player, number of cards that left their hand in a penalty this player did not see (taken
    at random by another player, or drawn and removed): which card, this player does not know."""
    acquired: tuple[tuple[int, int], ...]
    """(player, card) for cards this player saw go into a hand: picks, auction takes, penalties they
    took part in, their own kept cards. A card may have left that hand since: paid face down
    (:attr:`cards_paid`), or lost in a penalty this player did not see (:attr:`cards_lost`)."""
    my_buried: tuple[int, ...]
    """Cards this player saw removed face down (their own face-down payments, Medieval Bluff draws)."""
    legal_actions: tuple[int, ...]
    """This player's legal actions if they must decide now, else empty."""
    unpaid: tuple[tuple[int, int, int, tuple[int, ...]], ...]
    """What everyone saw a winner prove by not paying: (player, card under auction, bid, cards) for
    each winner who could not pay their bid, while every card that entered their hand since is
    known to this player (``cards``, in order; the fact is dropped once a card enters unseen).
    The cards of that hand then could not pay the bid: nor can the cards of their hand now that
    are not among ``cards`` (see :class:`~biblios_kit.engine.worlds.Worlds`)."""

    def __init__(
        self,
        player: int,
        players: int,
        ruleset_id: str,
        ruleset_hash: str,
        phase: Phase,
        current_player: int | None,
        active_player: int,
        hand: tuple[int, ...],
        hand_sizes: tuple[int, ...],
        public: tuple[int, ...],
        dice: tuple[int, ...],
        draw_pile: int,
        auction_pile: int,
        removed: int,
        discard: tuple[int, ...],
        drawn: int | None,
        kept: int | None,
        kept_hidden: bool,
        owed: tuple[int, int, int],
        church: tuple[int, int] | None,
        auction: AuctionView | None,
        payment: PaymentView | None,
        my_kept: tuple[int, ...],
        my_auction_cards: tuple[int, ...],
        revealed: tuple[int, ...],
        gold_paid: tuple[tuple[int, int], ...],
        cards_paid: tuple[int, ...],
        cards_lost: tuple[int, ...],
        acquired: tuple[tuple[int, int], ...],
        my_buried: tuple[int, ...],
        legal_actions: tuple[int, ...],
        unpaid: tuple[tuple[int, int, int, tuple[int, ...]], ...] = (),
    ) -> None:
        # Written out (``init=False``): compiled, each line is a plain store (the dataclass's own
        # ``__init__`` would run interpreted); interpreted, it is what the dataclass's does.
        object.__setattr__(self, "player", player)
        object.__setattr__(self, "players", players)
        object.__setattr__(self, "ruleset_id", ruleset_id)
        object.__setattr__(self, "ruleset_hash", ruleset_hash)
        object.__setattr__(self, "phase", phase)
        object.__setattr__(self, "current_player", current_player)
        object.__setattr__(self, "active_player", active_player)
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "hand_sizes", hand_sizes)
        object.__setattr__(self, "public", public)
        object.__setattr__(self, "dice", dice)
        object.__setattr__(self, "draw_pile", draw_pile)
        object.__setattr__(self, "auction_pile", auction_pile)
        object.__setattr__(self, "removed", removed)
        object.__setattr__(self, "discard", discard)
        object.__setattr__(self, "drawn", drawn)
        object.__setattr__(self, "kept", kept)
        object.__setattr__(self, "kept_hidden", kept_hidden)
        object.__setattr__(self, "owed", owed)
        object.__setattr__(self, "church", church)
        object.__setattr__(self, "auction", auction)
        object.__setattr__(self, "payment", payment)
        object.__setattr__(self, "my_kept", my_kept)
        object.__setattr__(self, "my_auction_cards", my_auction_cards)
        object.__setattr__(self, "revealed", revealed)
        object.__setattr__(self, "gold_paid", gold_paid)
        object.__setattr__(self, "cards_paid", cards_paid)
        object.__setattr__(self, "cards_lost", cards_lost)
        object.__setattr__(self, "acquired", acquired)
        object.__setattr__(self, "my_buried", my_buried)
        object.__setattr__(self, "legal_actions", legal_actions)
        object.__setattr__(self, "unpaid", unpaid)

    @property
    def my_turn(self) -> bool:
        """Whether this player must decide now."""
        return self.current_player == self.player

    @property
    def key(self) -> tuple[object, ...]:
        """A hashable information-state key: equal for states this player cannot tell apart now."""
        return (
            self.player,
            int(self.phase),
            self.current_player,
            self.active_player,
            self.hand,
            self.hand_sizes,
            self.public,
            self.dice,
            self.draw_pile,
            self.auction_pile,
            self.removed,
            self.discard,
            self.drawn,
            self.kept,
            self.kept_hidden,
            self.owed,
            self.church,
            self.auction,
            self.payment,
            self.my_kept,
            self.my_auction_cards,
            self.revealed,
            self.gold_paid,
            self.cards_paid,
            self.cards_lost,
            self.acquired,
            self.my_buried,
            self.unpaid,
        )


_Pairs = tuple[tuple[int, int], ...]
_Unpaid = tuple[tuple[int, int, int, tuple[int, ...]], ...]
_Parts = tuple[
    tuple[int, ...],
    tuple[int, ...],
    tuple[int, ...],
    _Pairs,
    tuple[int, ...],
    _Pairs,
    tuple[int, ...],
    _Pairs,
    _Unpaid,
    tuple[int, ...],
]
"""What :meth:`_Scan.frozen` returns."""


class _Scan:
    """What one player has learnt from a prefix of one game's log (see :func:`observe`)."""

    __slots__ = (
        "acquired",
        "cards_lost",
        "cards_paid",
        "gold_paid",
        "hand",
        "hand_of",
        "last",
        "log",
        "my_buried",
        "my_kept",
        "my_pile",
        "pile_of",
        "pos",
        "revealed",
        "round_bids",
        "tuples",
        "unpaid",
    )

    def __init__(self, log: list[RawEvent], players: int) -> None:
        self.log = log
        """The log scanned (held, so that its identity cannot be reused while cached)."""
        self.pos = 0
        """How many events of ``log`` were read."""
        self.my_kept: list[int] = []
        self.my_pile: list[int] = []
        self.revealed: list[int] = []
        self.gold_paid: list[tuple[int, int]] = []
        self.cards_paid = [0] * players
        self.cards_lost = (0,) * players
        """Per player, cards lost in penalties this player did not see (a tuple: it changes seldom)."""
        self.acquired: list[tuple[int, int]] = []
        self.my_buried: list[int] = []
        self.round_bids: list[tuple[int, int]] = []
        self.unpaid: list[tuple[int, int, int, list[int]]] = []
        """(player, card, bid, cards seen entering their hand since) of each winner who could not pay."""
        self.tuples: _Parts | None = None
        """The lists above as tuples, kept until an event changes them."""
        self.last: _Parts = ((), (), (), (), (), (), (), (), (), ())
        """The last :attr:`tuples` made (its parts reused by :meth:`frozen` where nothing changed)."""
        self.pile_of = (0, 0)
        """The lengths of ``my_pile`` and ``revealed`` when ``last``'s auction cards were worked out."""
        self.hand_of: list[int] = []
        self.hand: tuple[int, ...] = ()
        """The player's hand sorted, as last made from a hand equal to ``hand_of`` (see :meth:`sorted_hand`)."""

    def read(self, p: int, is_church: Sequence[bool]) -> None:
        """Read the events added to the log since the last call, as ``player`` ``p`` sees them."""
        log = self.log
        stop = len(log)
        if self.pos == stop:
            return
        my_kept, my_pile, revealed = self.my_kept, self.my_pile, self.revealed
        gold_paid, cards_paid, acquired = self.gold_paid, self.cards_paid, self.acquired
        my_buried, round_bids, unpaid = self.my_buried, self.round_bids, self.unpaid
        for i in range(self.pos, stop):
            raw = log[i]
            kind, who, card = raw[0], raw[1], raw[2]
            if unpaid and (kind in _INTO_HAND or kind == _PENALTY_TAKEN):
                if card >= 0 and visible(raw, p):
                    for fact in unpaid:
                        if fact[0] == who:
                            fact[3].append(card)
                else:  # a card entered their hand unseen: what they held then is no longer known
                    self.unpaid = unpaid = [fact for fact in unpaid if fact[0] != who]
            if kind == _PAID_CARD:
                cards_paid[who] += 1
            elif (kind == _PENALTY_TAKEN or kind == _PENALTY_REMOVED) and (card < 0 or not visible(raw, p)):  # noqa: SIM109 (compiled: two int compares)
                penalized = raw[3]
                assert isinstance(penalized, int)
                lost = list(self.cards_lost)
                lost[penalized] += 1
                self.cards_lost = tuple(lost)
            elif kind == _BID:
                round_bids.append((who, raw[3]))  # type: ignore[arg-type]
            elif kind == _PASSED:
                round_bids.append((who, 0))
            elif kind in (_CANNOT_PAY, _REFUSED):
                round_bids.clear()
                if kind == _CANNOT_PAY and revealed:
                    bid = raw[3]
                    assert isinstance(bid, int)
                    unpaid.append((who, revealed[-1], bid, []))
            if card < 0:  # no card, or one hidden in a resampled world's log
                continue
            if kind == _KEPT:
                if who == p:
                    my_kept.append(card)
                    if not is_church[card]:
                        acquired.append((p, card))
            elif kind == _TO_AUCTION_PILE:
                if who == p:
                    my_pile.append(card)
            elif kind in (_PICKED, _TOOK):
                if not is_church[card]:  # a church card is resolved, never kept in hand
                    acquired.append((who, card))
            elif kind == _REVEALED:
                revealed.append(card)
                round_bids.clear()
            elif kind == _PAID_GOLD:
                gold_paid.append((who, card))
            elif kind == _PAID_CARD:
                if who == p:
                    my_buried.append(card)
            elif kind == _PENALTY_TAKEN:
                if visible(raw, p):
                    acquired.append((who, card))
            elif kind == _PENALTY_REMOVED:
                if visible(raw, p):
                    my_buried.append(card)
            elif kind == _DEALT and visible(raw, p) and not is_church[card]:
                acquired.append((who, card))  # own cards, and named starting cards dealt openly
        self.pos = stop
        self.tuples = None

    def sorted_hand(self, hand: list[int]) -> tuple[int, ...]:
        """``tuple(sorted(hand))``: the last one while the hand holds the same cards in the same order."""
        if hand != self.hand_of:
            self.hand_of = hand[:]
            self.hand = tuple(sorted(hand))
        return self.hand

    def frozen(self) -> _Parts:
        """(my_kept, my auction cards still unrevealed, revealed, gold_paid, cards_paid, acquired,
        my_buried, round_bids, unpaid, cards_lost) as tuples.

        The lists that only grow (my_kept, revealed, gold_paid, acquired, my_buried) keep their
        last tuple while no event added to them: the same tuple object from one observation to the
        next (cheaper to make, and compared by identity first)."""
        if self.tuples is None:
            last = self.last
            revealed = self.revealed
            my_pile = self.my_pile
            if not my_pile:
                pile: tuple[int, ...] = ()
            elif len(my_pile) == self.pile_of[0] and len(revealed) == self.pile_of[1]:
                pile = last[1]  # (both lists only grow: the same cards)
            else:
                revealed_set = set(revealed)
                pile = tuple([c for c in my_pile if c not in revealed_set])
                self.pile_of = (len(my_pile), len(revealed))
            my_kept = last[0] if len(last[0]) == len(self.my_kept) else tuple(self.my_kept)
            revealed_t = last[2] if len(last[2]) == len(revealed) else tuple(revealed)
            gold_paid = last[3] if len(last[3]) == len(self.gold_paid) else tuple(self.gold_paid)
            acquired = last[5] if len(last[5]) == len(self.acquired) else tuple(self.acquired)
            my_buried = last[6] if len(last[6]) == len(self.my_buried) else tuple(self.my_buried)
            unpaid = self.unpaid
            self.last = self.tuples = (
                my_kept,
                pile,
                revealed_t,
                gold_paid,
                tuple(self.cards_paid),
                acquired,
                my_buried,
                tuple(self.round_bids),
                tuple([(who, card, bid, tuple(cards)) for who, card, bid, cards in unpaid]) if unpaid else (),
                self.cards_lost,
            )
        return self.tuples


_INTO_HAND: Final = frozenset({_DEALT, _TOOK_KEPT, _PICKED, _TOOK})
"""Events that put a card into ``who``'s hand (a penalty puts one into the taker's, ``who`` too)."""

_SCANS: Final[dict[tuple[int, int], _Scan]] = {}
"""(id of a log, player) -> what that player learnt from it so far; the most recent first out."""
_SCANS_LIMIT = 64
_SCANS_LOCK: Final = threading.Lock()


def keep_scans(count: int) -> None:
    """Keep what players learnt from event logs for at least ``count`` (log, player) pairs.

    :func:`observe` reads only the events added since its last call for the same log and
    player, from a cache of 64 pairs by default (a game and its bots). A server holding a
    thousand tables raises it to every seat of every open table, or each observation would
    read its whole log again. The cache never shrinks.
    """
    global _SCANS_LIMIT
    with _SCANS_LOCK:
        _SCANS_LIMIT = max(_SCANS_LIMIT, count)


def observe(state: GameState, player: int) -> Observation:
    """Build ``player``'s observation of ``state``.

    The event log only grows, so what ``player`` learnt from it is kept between calls
    (per log and player, for the last :data:`_SCANS_LIMIT` of them) and only the new events
    are read: the cost of an observation no longer grows with the length of the game.
    :func:`observe_full` reads the whole log every time and gives the same observation.
    """
    log = state.log
    key = (id(log), player)
    with _SCANS_LOCK:
        scan = _SCANS.get(key)
        if scan is None or scan.log is not log or scan.pos > len(log):
            scan = _Scan(log, state.n)
            if len(_SCANS) >= _SCANS_LIMIT:
                del _SCANS[next(iter(_SCANS))]
            _SCANS[key] = scan
        scan.read(player, state.rules.is_church)
        parts = scan.frozen()
        hand = scan.sorted_hand(state.hands[player])
    return _build(state, player, parts, hand)


def observe_full(state: GameState, player: int) -> Observation:
    """Build ``player``'s observation of ``state`` from the whole log (the reference for :func:`observe`)."""
    scan = _Scan(state.log, state.n)
    scan.read(player, state.rules.is_church)
    return _build(state, player, scan.frozen(), tuple(sorted(state.hands[player])))


def _build(state: GameState, p: int, parts: _Parts, hand: tuple[int, ...]) -> Observation:
    """The observation from the state's public fields and what ``p`` learnt from the log (``hand``:
    ``p``'s cards, sorted)."""
    my_kept, my_pile, revealed, gold_paid, cards_paid, acquired, my_buried, round_bids, unpaid, cards_lost = parts
    n = state.n
    ph = state.ph
    rules = state.rules
    auction = None
    if state.auc_card >= 0 and ph in (PH_BIDDING, PH_PAYMENT):
        lo = state.bid_range()[0]
        hi = state.bid_ceiling(p)  # the viewer's own ceiling: another bidder's may depend on their hidden hand
        out = state.out
        excluded = state.excluded
        auction = AuctionView(
            card=state.auc_card,
            currency="gold" if state.auc_cur == CUR_GOLD else "cards",
            high_bid=state.high,
            high_bidder=None if state.high_bidder < 0 else state.high_bidder,
            bids=round_bids,
            out=tuple(q for q in range(n) if out >> q & 1) if out else (),
            excluded=tuple(q for q in range(n) if excluded >> q & 1) if excluded else (),
            min_bid=lo,
            max_bid=hi,
        )
    payment = None
    if ph == PH_PAYMENT:
        pay_n = state.pay_n
        payer = state.payer
        is_gold = state.auc_cur == CUR_GOLD
        paid_gold = tuple(c for who, c in gold_paid[len(gold_paid) - pay_n :] if who == payer) if is_gold else ()
        payment = PaymentView(
            payer=payer,
            bid=state.high,
            currency="gold" if is_gold else "cards",
            paid_gold=paid_gold,
            paid_count=pay_n,
        )
    active = state.active
    in_gift = ph == PH_GIFT or (ph != PH_OVER and state.to_draw > 0)
    cur = state.cur
    mine = cur == p and ph != PH_OVER
    hands = state.hands
    removed = len(state.buried)
    for group in state.removed:
        removed += len(group)
    drawn = state.drawn
    kept = state.kept
    return Observation(
        player=p,
        players=n,
        ruleset_id=rules.ruleset.id,
        ruleset_hash=rules.ruleset.content_hash,
        phase=_PHASES[ph],
        current_player=None if cur < 0 else cur,
        active_player=active,
        hand=hand,
        hand_sizes=tuple([len(h) for h in hands]),
        public=tuple(state.public),
        dice=tuple(state.dice),
        draw_pile=len(state.draw),
        auction_pile=len(state.pile),
        removed=removed,
        discard=tuple(state.discard),
        drawn=drawn if drawn >= 0 and active == p else None,
        kept=kept if kept >= 0 and active == p else None,
        kept_hidden=kept >= 0 and active != p,
        owed=(state.q_keep, state.q_auction, state.q_public) if in_gift else (0, 0, 0),
        church=state.church_q[0] if state.church_q else None,
        auction=auction,
        payment=payment,
        my_kept=my_kept,
        my_auction_cards=my_pile,
        revealed=revealed,
        gold_paid=gold_paid,
        cards_paid=cards_paid,
        acquired=acquired,
        my_buried=my_buried,
        legal_actions=tuple(state.legal()) if mine else (),  # (a bidder's: the engine's shared tuple, not copied)
        unpaid=unpaid,
        cards_lost=cards_lost,
    )


_PHASES: Final = {int(ph): ph for ph in Phase}
