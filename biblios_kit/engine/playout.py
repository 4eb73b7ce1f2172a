"""The random playout: a whole game of uniformly random legal actions, fast.

:meth:`GameState.playout <biblios_kit.engine.state.GameState.playout>` plays here. It draws
exactly the actions that repeated ``state.apply(state.random_action(rng))`` would, and leaves
exactly the same state, event log and RNG state behind (``tests/test_engine_playout.py``
compares every field of both, decision by decision, for every shipped ruleset and option
and for auction variants the shipped rulesets do not use). So the rules are written once,
in :mod:`biblios_kit.engine.state`; this module replays their common paths with the game's
fields in local variables, and hands every rare step back to the state's own methods:

* a gift turn and its picks run in :func:`_gift_turns`, from one turn to the next, until
  the draw pile is used up;
* the auction runs in :func:`_auction`, bid after bid and round after round, with the
  standard penalty inline; a winner who can pay pays in :func:`_pay` and the next card is
  revealed in :func:`_next_card`; an all-pass, an exact payment, the other penalties and
  a refusal go through the state's methods;
* church cards are resolved through the state's methods (:func:`_resolve_church_cards`),
  after which the loop that met them takes the game up again from the state;
* when the game keeps no event log (``events=False``) no event is built at all.

A random four-player game is about 470 decisions (two thirds of them bids and passes) and
180 random penalty draws, and simulations play thousands of them: each line in the loops
below runs hundreds of times per game, which is why they read like this.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from math import floor

from biblios_kit.engine.actions import BID, PASS, PAY, PICK, REFUSE, TO_AUCTION, TO_PUBLIC
from biblios_kit.engine.compiled import CUR_GOLD, MAX_CARDS, PEN_STANDARD, CompiledRules
from biblios_kit.engine.events import ALL, EventKind, RawEvent
from biblios_kit.engine.state import (
    _GIFT_LEGAL,
    _NO_MIN,
    _R_GIFT,
    _R_PICK,
    _TAKERS,
    PH_BIDDING,
    PH_CHURCH,
    PH_GIFT,
    PH_OVER,
    PH_PAYMENT,
    PH_PICK,
    GameState,
    _one_per_class,
    seat_tables,
)

Rand = Callable[[], float]
"""A seat's source of uniform floats in [0, 1) (``random.Random.random``)."""

# Every random choice is ``options[floor(rand() * len(options))]``: for these non-negative
# floats ``math.floor`` is ``int`` (the draw of RandomBot and ``random_action``), but calls
# far cheaper (``int`` is a type, called through a tuple of arguments). In the loops below
# the count is first looked up as a float (``as_float[len(options)]``): a float times a
# float takes the interpreter's fast path, a float times an int does not (~20 ns a draw).

_GIFT_TURN = int(EventKind.GIFT_TURN)
_KEPT = int(EventKind.KEPT)
_NO_BIDDERS = int(EventKind.NO_BIDDERS)
_PAID_CARD = int(EventKind.PAID_CARD)
_PAID_GOLD = int(EventKind.PAID_GOLD)
_PENALTY_EMPTY = int(EventKind.PENALTY_EMPTY)
_PUBLIC_DISCARDED = int(EventKind.PUBLIC_DISCARDED)
_REVEALED = int(EventKind.REVEALED)
_TOOK = int(EventKind.TOOK)
_TOOK_KEPT = int(EventKind.TOOK_KEPT)
_WON = int(EventKind.WON)

_GIFT_COUNT = tuple(float(len(options)) for options in _GIFT_LEGAL)
"""The number of legal placements by destinations owed (the index into ``_GIFT_LEGAL``), as a float
(``rand() * count`` multiplies two floats, a faster path than a float by an int)."""

_TURN_START = ((0, 0), (4, 0), *((7 if k > 2 else 6, k - 2) for k in range(2, MAX_CARDS)))
"""``_TURN_START[k]``: the destinations owed and ``q_public`` when a gift turn of ``k`` cards starts
(keep one; with two or more, one to the auction pile; the rest to the public space)."""


class PlayoutTables:
    """Lookups for one (ruleset, player count) that the random auction reads instead of computing.

    Within a bidding round the playout tracks ``k``, the number of options of the player to
    act (pass, or each bid from the lowest legal one to the ceiling): a bid of option ``r``
    leaves ``k - r`` options to the next player, and the bid is the ceiling + 1 - (``k - r``).
    """

    __slots__ = ("alone", "as_float", "bid_action", "bid_event", "bits", "has_twin", "k_open", "rest_without")

    def __init__(self, rules: CompiledRules, n: int) -> None:
        opening = rules.opening_bid
        bid_events = rules.event_tables(n).bid
        self.k_open = tuple(hi - opening + 2 if hi >= opening else 1 for hi in rules.ceiling)
        """Options of a round's first bidder, per currency."""
        self.bid_action = tuple(tuple(BID + hi + 1 - k for k in range(hi + 2)) for hi in rules.ceiling)
        """``bid_action[currency][k]``: the bid that leaves ``k`` options (``k`` >= 1)."""
        self.bid_event: tuple[tuple[tuple[RawEvent | None, ...], ...], ...] = tuple(
            tuple(tuple(bid_events[p][hi + 1 - k] if k else None for k in range(hi + 2)) for p in range(n))
            for hi in rules.ceiling
        )
        """``bid_event[currency][p][k]``: player ``p``'s bid that leaves ``k`` options (``k`` >= 1)."""
        full = (1 << n) - 1
        self.alone = tuple(tuple(full & ~out == 1 << p for p in range(n)) for out in range(1 << n))
        """``alone[out][p]``: with the players in ``out`` out of the round, ``p`` is the only one left."""
        self.rest_without = (*(full ^ 1 << p for p in range(n)), -1)
        """``rest_without[p]``: the ``out`` mask once everybody but ``p`` has passed (-1 for ``p`` == -1, nobody)."""
        self.bits = tuple(1 << p for p in range(n))
        """``bits[p]``: player ``p``'s bit in the ``out`` mask."""
        self.as_float = tuple(map(float, range(max(*rules.ceiling, rules.n_cards) + 2)))
        """``as_float[i]`` is ``float(i)``, for every count of options, bids or cards."""
        class_size = Counter(rules.cls)
        self.has_twin = tuple(int(class_size[k] > 1) for k in rules.cls)
        """``has_twin[c]``: 1 when another card of the deck is interchangeable with ``c`` (0 otherwise)."""


def playout_tables(rules: CompiledRules, n: int) -> PlayoutTables:
    """The :class:`PlayoutTables` of ``rules`` for ``n`` players (built once, kept with the rules)."""
    tables = rules.playout_memo.get(n)
    if tables is None:
        tables = rules.playout_memo[n] = PlayoutTables(rules, n)
    return tables  # type: ignore[no-any-return]


def random_playout(s: GameState, rands: Sequence[Rand]) -> None:
    """Play ``s`` to its end with uniformly random legal actions; seat ``p`` draws from ``rands[p]``."""
    record = s.history.append
    while True:
        ph = s.ph
        if ph == PH_BIDDING:
            _auction(s, rands)
        elif ph in (PH_GIFT, PH_PICK):
            _gift_turns(s, rands)
        elif ph == PH_OVER:
            return
        else:  # a church card to resolve, or a payment (when a playout starts in the middle of one)
            options = s._legal()
            a = options[floor(rands[s.cur]() * len(options))]
            record(a)
            s._do(a)


def _gift_turns(s: GameState, rands: Sequence[Rand]) -> None:
    """From a placement or a pick, play gift turns (church cards included) until the auction starts.

    The destinations still owed are one bit field ``st`` (4: keep, 2: auction pile,
    1: public space, while ``q_public`` cards are owed there), the index of the legal
    placements in ``_GIFT_LEGAL``. A church card kept or picked is resolved by the state's
    methods; the loop then takes the turn up again from the state.
    """
    rules, n = s.rules, s.n
    playout = playout_tables(rules, n)
    as_float, has_twin = playout.as_float, playout.has_twin
    tables = rules.event_tables(n)
    drew_t, to_public_t, to_pile_t, kept_t, picked_t = (
        tables.drew,
        tables.to_public,
        tables.to_pile,
        tables.kept,
        tables.picked,
    )
    is_church, cls, gold_value = rules.is_church, rules.cls, rules.gold_value
    draw, public, hands, gold, discard = s.draw, s.public, s.hands, s.gold, s.discard
    draw_pop, public_append, public_remove, pile_append = draw.pop, public.append, public.remove, s.pile.append
    log_append, record, logging = s.log.append, s.history.append, s.has_events
    gift_cards = s.gift_cards
    while s.ph == PH_GIFT or s.ph == PH_PICK:  # once, and again after each church card
        p, kept, q_public, to_draw = s.active, s.kept, s.q_public, s.to_draw
        st = (s.q_keep > 0) * 4 + (s.q_auction > 0) * 2 + (q_public > 0)
        picker, left = s.picker, s.picks_left
        placing = s.ph == PH_GIFT
        c = s.drawn
        s.drawn = -1
        twins = sum([has_twin[c] for c in public]) if public else 0  # public cards with a twin in the deck
        church = False
        while True:
            if placing:
                rand, drew, to_public, to_pile = rands[p], drew_t[p], to_public_t[p], to_pile_t[p]
                while True:
                    a = _GIFT_LEGAL[st][floor(rand() * _GIFT_COUNT[st])]
                    record(a)
                    if a == TO_PUBLIC:
                        q_public -= 1
                        if not q_public:
                            st -= 1
                        public_append(c)
                        twins += has_twin[c]
                        if logging:
                            log_append(to_public[c])
                    elif a == TO_AUCTION:
                        st -= 2
                        pile_append(c)
                        if logging:
                            log_append(to_pile[c])
                    else:
                        st -= 4
                        if is_church[c]:  # resolved at once; the turn goes on afterwards
                            _leave_turn(s, p, kept, st, q_public, to_draw, picker, left)
                            if logging:
                                log_append((_KEPT, p, c, (), ALL))
                            s._resolve_church(p, c, _R_GIFT)
                            church = True
                            break
                        kept = c
                        if logging:
                            log_append(kept_t[p][c])
                    if not to_draw:
                        break
                    c = draw_pop()
                    to_draw -= 1
                    if logging:
                        log_append(drew[c])
                if church:
                    break
                if kept >= 0:  # the kept card joins the hand at the end of the placements
                    hands[p].append(kept)
                    if gold_value[kept]:
                        gold[p] += gold_value[kept]
                    if logging:
                        log_append((_TOOK_KEPT, p, kept, (), 1 << p))
                    kept = -1
                picker = p + 1 if p + 1 < n else 0
                left = n - 1
            while left and public:  # the others pick, from the active player's left
                # One option per class of interchangeable cards: only twins can make two alike.
                options = _one_per_class(public, cls) if twins > 1 else sorted(public)
                c = options[floor(rands[picker]() * as_float[len(options)])]
                twins -= has_twin[c]
                record(PICK + c)
                public_remove(c)
                if logging:
                    log_append(picked_t[picker][c])
                left -= 1
                taker = picker
                picker = picker + 1 if picker + 1 < n else 0
                if is_church[c]:
                    _leave_turn(s, p, kept, st, q_public, to_draw, picker, left)
                    s._resolve_church(taker, c, _R_PICK)
                    church = True
                    break
                hands[taker].append(c)
                if gold_value[c]:
                    gold[taker] += gold_value[c]
            if church:
                break
            if public:  # what nobody took is discarded
                for c in public:
                    discard.append(c)
                    if logging:
                        log_append((_PUBLIC_DISCARDED, -1, c, (), ALL))
                public.clear()
                twins = 0
            p = p + 1 if p + 1 < n else 0
            k = len(draw)
            if k >= gift_cards:
                k = gift_cards
            elif not k or s.short_discard:  # the auction starts (the state's method discards a short pile)
                _leave_turn(s, p, kept, st, q_public, to_draw, picker, left)
                s._start_gift()
                return
            st, q_public = _TURN_START[k]
            to_draw = k - 1
            if logging:
                log_append((_GIFT_TURN, p, -1, k, ALL))
            c = draw_pop()
            if logging:
                log_append(drew_t[p][c])
            placing = True
        _resolve_church_cards(s, rands)


def _resolve_church_cards(s: GameState, rands: Sequence[Rand]) -> None:
    """Resolve the church cards waiting, at random, through the state's methods."""
    record = s.history.append
    while s.ph == PH_CHURCH:
        options = s._church_legal()
        a = options[floor(rands[s.cur]() * len(options))]
        record(a)
        s._do_church(a)


def _leave_turn(s: GameState, p: int, kept: int, st: int, q_public: int, to_draw: int, picker: int, left: int) -> None:
    """Write a gift turn's local variables back to the state (before calling one of its methods)."""
    s.active, s.kept, s.q_keep, s.q_auction, s.q_public, s.to_draw = p, kept, st >> 2, st >> 1 & 1, q_public, to_draw
    s.picker, s.picks_left = picker, left


def _auction(s: GameState, rands: Sequence[Rand]) -> None:
    """From a bid, play the auction (church cards included) until the game ends.

    Bidding rounds, the standard penalty of a winner who cannot pay, a payment the winner
    can make and the next card run here; every other end of a round goes through the state's
    methods, after which the loop picks the new round up again.
    """
    rules, n = s.rules, s.n
    all_mask, after = s.all_mask, seat_tables(n)
    t = playout_tables(rules, n)
    alone_t, rest_without, bits, as_float = t.alone, t.rest_without, t.bits, t.as_float
    events = rules.event_tables(n)
    passed_ev, taken_ev, cannot_pay = events.passed, events.taken, events.cannot_pay
    log_append, record, logging = s.log.append, s.history.append, s.has_events
    hands, gold, gold_value = s.hands, s.gold, rules.gold_value
    quick_penalty = rules.penalty == PEN_STANDARD
    exclude, from_left, opening = rules.exclude_penalized, rules.bid_from_left, rules.opening_bid
    # Per penalized player w: their hand, its pop, and who takes a card, in order: (q, q's append, the event row).
    penalty_rows = []
    for w, takers in enumerate(_TAKERS[n]):
        penalty_rows.append((hands[w], hands[w].pop, [(q, hands[q].append, taken_ev[w][q]) for q in takers]))
    rng_rand = s.rng.random
    payment_legal, do_pay, exact = s._payment_legal, s._do_pay, rules.overpay_forbidden
    while True:  # once per card or round handed back by the state's methods
        p, out, high, hb, currency, active = s.cur, s.out, s.high, s.high_bidder, s.auc_cur, s.active
        hi = rules.ceiling[currency]
        lo = high + 1 if high >= opening else opening
        k = hi - lo + 2 if hi >= lo else 1
        k_open, bid_action, bid_event = t.k_open[currency], t.bid_action[currency], t.bid_event[currency]
        nxt, alone = after[out], alone_t[out]
        funds = gold if currency == CUR_GOLD else None  # None: the bid counts cards
        while True:
            # Player p passes or makes one of the k - 1 bids, uniformly: r == 0 passes
            # (the draw of random_action; only a pass is left when k == 1).
            r = floor(rands[p]() * as_float[k])
            if r:
                k -= r
                hb = p
                record(bid_action[k])
                if logging:
                    log_append(bid_event[p][k])
                if not alone[p]:
                    p = nxt[p]
                    continue
            else:
                record(PASS)
                out |= bits[p]
                if logging:
                    log_append(passed_ev[p])
                if out == all_mask:  # everybody passed
                    s.out, s.high, s.high_bidder, s.cur = out, 0, hb, p
                    s._all_passed()
                    break
                if out != rest_without[hb]:  # somebody besides the high bidder is left
                    nxt, alone = after[out], alone_t[out]
                    p = nxt[p]
                    continue
            # The round is over: the high bidder won it.
            w, high = hb, hi + 1 - k
            short_of_bid = (funds[w] if funds is not None else len(hands[w])) < high
            if quick_penalty and short_of_bid:
                # The winner cannot pay: the state's _won(), _penalize() and _open_bidding()
                # for this case (about 60 times per random 4-player game). Less Gold (or
                # fewer cards) than the bid cannot pay under either overpay rule.
                if logging:
                    log_append((_WON, w, s.auc_card, high, ALL))
                    log_append(cannot_pay[w][high])
                bit = bits[w]
                if exclude or s.pen_once & bit:
                    s.excluded |= bit
                else:
                    s.pen_once |= bit
                hand, take, takers = penalty_rows[w]
                left = len(hand)
                short = left < n - 1
                if short:
                    takers = takers[:left]
                for q, give, taken in takers:
                    c = take(floor(rng_rand() * as_float[left]))  # a random card
                    left -= 1
                    give(c)
                    if gold_value[c]:
                        gold[w] -= gold_value[c]
                        gold[q] += gold_value[c]
                    if logging:
                        log_append(taken[c])
                if short and logging:
                    log_append((_PENALTY_EMPTY, w, -1, (), ALL))  # the hand ran out: the last players get nothing
                if s.excluded != all_mask:  # a new round among the players not excluded
                    out, hb, k = s.excluded, -1, k_open
                    nxt, alone = after[out], alone_t[out]
                    p = nxt[active] if from_left or out >> active & 1 else active
                    continue
                s.out, s.high, s.high_bidder, s.cur = out, high, hb, p
                if logging:  # nobody may bid: what _open_bidding() does, the card is discarded
                    log_append((_NO_BIDDERS, -1, s.auc_card, (), ALL))
                s.discard.append(s.auc_card)
                _next_card(s, logging)
                break
            s.out, s.high, s.high_bidder, s.cur = out, high, hb, p
            if exact or short_of_bid:
                s._won(w)  # an exact payment, or a winner who cannot pay under another penalty: the state decides
                while s.ph == PH_PAYMENT:
                    options = payment_legal()
                    a = options[floor(rands[w]() * len(options))]
                    record(a)
                    do_pay(a)
            else:  # the winner can pay: _won(), then _payment_legal() and _do_pay() card by card
                if logging:
                    log_append((_WON, w, s.auc_card, high, ALL))
                s.payer, s.pay_sum, s.pay_n, s.pay_min, s.ph, s.cur = w, 0, 0, _NO_MIN, PH_PAYMENT, w
                _pay(s, w, high, rands[w], funds is not None, t, logging)
            break
        if s.ph == PH_CHURCH:  # a church card won at auction
            _resolve_church_cards(s, rands)
        if s.ph != PH_BIDDING:
            return


def _pay(s: GameState, w: int, bid: int, rand: Rand, in_gold: bool, t: PlayoutTables, logging: bool) -> None:
    """Player ``w`` pays ``bid`` (they can) at random, one card at a time, then takes the card.

    Gold: the options come from the state's ``_payment_legal()``. Cards: one option per
    class of interchangeable cards in the hand, after a refusal when the ruleset allows it.
    A refusal goes through the state's ``_do_pay()``.
    """
    rules = s.rules
    hand, gold, gold_value, cls = s.hands[w], s.gold, rules.gold_value, rules.cls
    log_append, record, as_float = s.log.append, s.history.append, t.as_float
    if in_gold:
        while True:
            options = s._payment_legal()
            a = options[floor(rand() * as_float[len(options)])]
            record(a)
            if a == REFUSE:
                s._do_pay(a)
                return
            c = a - PAY
            hand.remove(c)
            v = gold_value[c]
            gold[w] -= v
            s.pay_n += 1
            s.pay_sum += v
            if v < s.pay_min:
                s.pay_min = v
            s.discard.append(c)
            if logging:
                log_append((_PAID_GOLD, w, c, (), ALL))
            if s.pay_sum >= bid:
                break
    else:
        refuse, paid, bury = rules.refuse_to_pay, 0, s.buried.append
        has_twin = t.has_twin
        cards = _one_per_class(hand, cls)
        while True:
            if refuse and not paid:  # REFUSE sorts before every PAY action
                r = floor(rand() * as_float[len(cards) + 1])
                if not r:
                    record(REFUSE)
                    s._do_pay(REFUSE)
                    return
                c = cards[r - 1]
            else:
                c = cards[floor(rand() * as_float[len(cards)])]
            record(PAY + c)
            hand.remove(c)
            if gold_value[c]:
                gold[w] -= gold_value[c]
            paid += 1
            bury(c)
            if logging:
                log_append((_PAID_CARD, w, c, (), 1 << w))
            if paid >= bid:
                s.pay_n = paid
                break
            if has_twin[c]:  # another card of its class may stand for it now
                cards = _one_per_class(hand, cls)
            else:
                cards.remove(c)
    s.payer = -1
    c = s.auc_card
    if rules.is_church[c]:
        s._award(w)  # resolved at once
        return
    if logging:  # what _award() does with any other card
        log_append((_TOOK, w, c, (), ALL))
    hand.append(c)
    if gold_value[c]:
        gold[w] += gold_value[c]
    _next_card(s, logging)


def _next_card(s: GameState, logging: bool) -> None:
    """The state's ``_next_auction_turn()``: the next player reveals the next card and bidding opens."""
    rules, n = s.rules, s.n
    s.active = active = s.active + 1 if s.active + 1 < n else 0
    if not s.pile:
        s.auc_card = -1
        s._reveal()  # the game ends
        return
    s.auc_card = c = s.pile.pop()
    s.auc_cur = rules.currency[c]
    s.excluded = s.pen_once = s.out = s.high = 0
    s.high_bidder = -1
    if logging:
        s.log.append((_REVEALED, active, c, (), ALL))
    s.cur = seat_tables(n)[0][active] if rules.bid_from_left else active  # nobody is excluded from a new card
    s.ph = PH_BIDDING
