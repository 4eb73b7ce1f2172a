"""The mutable game state: the one implementation of the rules, and the one engine API.

A game is a chain of decisions. After every applied action the state runs the automatic
steps of the rules itself (drawing the next card, ending a turn, revealing the next
auction card, random penalty draws, scoring) until a player must decide again, so
:attr:`GameState.current_player` always names a player with a decision, or ``None``
when the game is over. Chance comes only from the game's own ``random.Random``,
seeded from the game seed.

Every step of a turn (gift draw and placement, picks, church cards, reveal, bids,
payment, penalties, the end of the game) is written once, in the step methods below:
:meth:`GameState.apply` (checked), :meth:`GameState.step` (unchecked, for search),
replay, random simulations (:meth:`GameState.playout`) and bot playouts all run them.
The module is compiled with mypyc when a C compiler is available (see
``docs/performance.md``); it is written for that: typed locals, flat ints and lists, the
ruleset read from :class:`~biblios_kit.engine.compiled.CompiledRules`' tuples, events
built only when the game keeps a log.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

from biblios_kit.engine.actions import format_action, parse_action
from biblios_kit.engine.compiled import CUR_GOLD, KIND_GOLD, PEN_BLUFF, PEN_STANDARD, CompiledRules, compile_rules
from biblios_kit.engine.core import (
    BID,
    CHURCH,
    DECLINE,
    EV_ALL_PASSED,
    EV_AUCTION_PHASE,
    EV_CHURCH_DECLINED,
    EV_CHURCH_USED,
    EV_DEALT,
    EV_DIE_MOVED,
    EV_DISCARDED,
    EV_GAME_OVER,
    EV_GIFT_TURN,
    EV_KEPT,
    EV_NO_BIDDERS,
    EV_PAID_CARD,
    EV_PAID_GOLD,
    EV_PENALTY_EMPTY,
    EV_PENALTY_REMOVED,
    EV_PUBLIC_DISCARDED,
    EV_REFUSED,
    EV_REVEALED,
    EV_SETUP_REMOVED,
    EV_SHORT_DRAW_DISCARDED,
    EV_TOOK,
    EV_TOOK_KEPT,
    EV_WON,
    GIFT_LEGAL,
    NO_MIN,
    PASS,
    PAY,
    PH_BIDDING,
    PH_CHURCH,
    PH_GIFT,
    PH_OVER,
    PH_PAYMENT,
    PH_PICK,
    PICK,
    R_AUCTION,
    R_GIFT,
    R_PICK,
    R_START_GIFT,
    REFUSE,
    TO_AUCTION,
    TO_PUBLIC,
    Phase,
    bid_actions,
    gold_completable,
    is_action,
    one_per_class,
    seat_tables,
    shuffle,
    subset_sums,
    takers,
)
from biblios_kit.engine.events import ALL, Event, RawEvent, to_event
from biblios_kit.engine.observation import Observation, observe
from biblios_kit.errors import EngineError, IllegalActionError, InvalidActionError
from biblios_kit.rules.model import Ruleset

if TYPE_CHECKING:
    from biblios_kit.engine.compiled import EventTables
    from biblios_kit.engine.scoring import GameResult, Outcome

__all__ = ["GameState", "Phase", "new_game"]

Rand = Callable[[], float]
"""A source of uniform floats in [0, 1) (``random.Random.random``)."""

_PAY_OPTIONS: Final[dict[tuple[tuple[int, ...], int, int, bool], list[int]]] = {}
"""Memo of the Gold values that can continue a payment, by (hand Gold, left to pay, smallest paid, exact)."""


def _church_parts(action: int) -> tuple[list[int], int]:
    """The (die indices, sign) of a church action other than ``DECLINE``."""
    code = action - CHURCH
    mask = code >> 1
    dice = [d for d in range(mask.bit_length()) if mask >> d & 1]
    return dice, (-1 if code & 1 else 1)


class GameState:
    """One game in progress. Create it with :func:`new_game`; drive it with :meth:`apply`.

    The fields are plain data (read them freely; change them only through :meth:`apply`
    or :meth:`step`):

    * ``rules`` the :class:`CompiledRules`; ``n`` players; ``seed``; ``rng`` the game's RNG.
    * ``ph`` the phase (``PH_*`` ints, :attr:`phase` as an enum); ``cur`` the deciding seat (-1 at the end).
    * ``hands`` card ids per seat (unordered); ``gold`` Gold value per hand; ``draw`` the draw pile
      (top last); ``public`` the public space; ``pile`` the auction pile (top last);
      ``removed`` setup removals (one list per named removal, then the random ones);
      ``discard`` face-up discards; ``buried`` face-down discards.
    * ``dice`` the award dice faces; ``first`` the first player; ``active`` whose turn.
    * Gift turn: ``drawn`` the card to place (-1 if none); ``kept`` the kept card waiting for the
      end of the turn; ``q_keep``, ``q_auction``, ``q_public`` destinations still owed; ``to_draw``
      cards still to draw; ``picker`` and ``picks_left`` for the picks from the public space.
    * ``church_q`` (owner, card) waiting for resolution; ``resume`` what follows them (``R_*``).
    * Auction: ``auc_card``, ``auc_cur`` (currency), ``high``, ``high_bidder``, ``out`` (bitmask of
      players out of this round), ``excluded`` and ``pen_once`` (penalized on this card);
      ``payer``, ``pay_sum``, ``pay_min``, ``pay_n`` for a payment in progress.
    * ``log`` raw events (empty, and never grown, when ``logging`` is false); ``history`` actions
      applied; ``reseeds`` the chance points (actions applied before, new seed) where the game
      was reseeded (see :mod:`biblios_kit.engine.reseed`); ``resampled_for`` the player a
      resampled world was dealt for (-1 otherwise);
      ``cache`` derived data for an unchanged state.
    """

    rules: CompiledRules
    n: int
    seed: int
    _rng: random.Random
    _rand: Rand
    ph: int
    cur: int
    hands: list[list[int]]
    gold: list[int]
    draw: list[int]
    public: list[int]
    pile: list[int]
    removed: list[list[int]]
    discard: list[int]
    buried: list[int]
    dice: list[int]
    first: int
    active: int
    drawn: int
    kept: int
    q_keep: int
    q_auction: int
    q_public: int
    to_draw: int
    picker: int
    picks_left: int
    church_q: list[tuple[int, int]]
    resume: int
    auc_card: int
    auc_cur: int
    high: int
    high_bidder: int
    out: int
    excluded: int
    pen_once: int
    payer: int
    pay_sum: int
    pay_min: int
    pay_n: int
    log: list[RawEvent]
    logging: bool
    history: list[int]
    all_mask: int
    gift_cards: int
    short_discard: bool
    resampled_for: int
    reseeds: tuple[tuple[int, int], ...] = ()
    """The game's reseed points, oldest first: (number of actions applied before it, its seed)."""
    cache: dict[object, object] | None
    """Derived data kept for repeated queries on an unchanged state (cleared by every action)."""
    ev: EventTables
    """The rules' prebuilt frequent events for this number of players."""
    after: tuple[tuple[int, ...], ...]
    """:func:`~biblios_kit.engine.core.seat_tables` for this number of players."""
    takers: tuple[tuple[int, ...], ...]
    """:func:`~biblios_kit.engine.core.takers` for this number of players."""

    # ------------------------------------------------------------------ creation

    def _setup(self, rules: CompiledRules, players: int, seed: int, events: bool) -> None:
        if players not in rules.setups:
            raise EngineError(
                "unsupported-players",
                ruleset=rules.ruleset.id,
                players=players,
                supported=tuple(sorted(rules.setups)),
            )
        setup = rules.setups[players]
        self.rules = rules
        self.n = players
        self.seed = seed
        self.rng = rng = random.Random(seed)
        self.all_mask = (1 << players) - 1
        self.gift_cards = setup.gift_cards
        self.short_discard = setup.short_discard
        self.ev = rules.event_tables(players)
        self.after = seat_tables(players)
        self.takers = takers(players)
        self.hands = [[] for _ in range(players)]
        self.gold = [0] * players
        self.public = []
        self.pile = []
        self.discard = []
        self.buried = []
        self.dice = list(rules.die_start)
        self.first = 0
        self.active = 0
        self.drawn = -1
        self.kept = -1
        self.q_keep = 0
        self.q_auction = 0
        self.q_public = 0
        self.to_draw = 0
        self.picker = 0
        self.picks_left = 0
        self.church_q = []
        self.resume = R_START_GIFT
        self.auc_card = -1
        self.auc_cur = CUR_GOLD
        self.high = 0
        self.high_bidder = -1
        self.out = 0
        self.excluded = 0
        self.pen_once = 0
        self.payer = -1
        self.pay_sum = 0
        self.pay_n = 0
        self.pay_min = NO_MIN
        self.log = []
        self.logging = events
        self.history = []
        self.resampled_for = -1
        self.cache = None
        self.cur = -1
        self.ph = PH_GIFT

        taken: set[int] = set()
        self.removed = []
        for count, matches in setup.named:
            pool = [c for c in matches if c not in taken]
            if len(pool) < count:
                raise EngineError("setup-short-kind", players=players, count=count, available=len(pool))
            shuffle(pool, rng)
            group = pool[:count]
            taken.update(group)
            self.removed.append(group)
        # Named starting cards: each item's matching cards are shuffled once and dealt in seat
        # order. A ruleset without them draws nothing here (its games stay as they were).
        named_hands: list[list[int]] = [[] for _ in range(players)]
        for count, matches in setup.deal:
            pool = [c for c in matches if c not in taken]
            if len(pool) < count * players:
                raise EngineError("setup-short-deal", players=players, count=count * players, available=len(pool))
            shuffle(pool, rng)
            for p in range(players):
                group = pool[p * count : (p + 1) * count]
                taken.update(group)
                named_hands[p].extend(group)
        rest = [c for c in range(rules.n_cards) if c not in taken] if taken else list(range(rules.n_cards))
        shuffle(rest, rng)
        need = setup.remove_random + setup.starting_hand * players
        if need > len(rest):
            raise EngineError("setup-short-deck", players=players, need=need, left=len(rest))
        self.removed.append([rest.pop() for _ in range(setup.remove_random)])
        removed_count = sum(len(g) for g in self.removed)
        if removed_count and events:
            self.log.append((EV_SETUP_REMOVED, -1, -1, removed_count, ALL))
        is_church = rules.is_church
        for p in range(players):
            for c in named_hands[p]:  # dealt openly: every player knows them
                if events:
                    self.log.append((EV_DEALT, p, c, (), ALL))
                self._add(p, c)
            for _ in range(setup.starting_hand):
                c = rest.pop()
                if events:
                    self.log.append((EV_DEALT, p, c, (), 1 << p))
                if is_church[c]:
                    self.church_q.append((p, c))
                else:
                    self._add(p, c)
        self.draw = rest
        if self.church_q:
            self._church_next()
        else:
            self._start_gift()

    # ------------------------------------------------------------------ public API

    @property
    def rng(self) -> random.Random:
        """The game's own source of chance (the auction pile shuffle, random penalty draws)."""
        return self._rng

    @rng.setter
    def rng(self, rng: random.Random) -> None:
        self._rng = rng
        self._rand = rng.random

    @property
    def ruleset(self) -> Ruleset:
        """The ruleset this game follows."""
        return self.rules.ruleset

    @property
    def players(self) -> int:
        """Number of players (seats ``0 .. players-1``, clockwise)."""
        return self.n

    @property
    def current_player(self) -> int | None:
        """The seat that must decide now, or ``None`` when the game is over."""
        return None if self.cur < 0 else self.cur

    @property
    def phase(self) -> Phase:
        """The kind of decision the current player faces (``GAME_OVER`` at the end)."""
        return Phase(self.ph)

    @property
    def active_player(self) -> int:
        """Whose gift turn or auction turn it is (the player who draws or reveals)."""
        return self.active

    @property
    def decision_count(self) -> int:
        """Number of actions applied so far."""
        return len(self.history)

    @property
    def actions(self) -> tuple[int, ...]:
        """Every action applied so far, in order (the body of a game record)."""
        return tuple(self.history)

    def dice_values(self) -> tuple[int, ...]:
        """Current face of every award die (index order: categories in board order, then place)."""
        return tuple(self.dice)

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.cur < 0

    def legal_actions(self) -> list[int]:
        """The legal actions of the current player, sorted (empty when the game is over); a new list."""
        return list(self.legal())

    def legal(self) -> Sequence[int]:
        """The legal actions of the current player, sorted (empty when the game is over).

        The fast form of :meth:`legal_actions` for search: the sequence may be shared with
        the engine's memos, so never modify it.
        """
        ph = self.ph
        if ph == PH_GIFT:
            return GIFT_LEGAL[(self.q_keep > 0) * 4 + (self.q_auction > 0) * 2 + (self.q_public > 0)]
        if ph == PH_BIDDING:
            lo, hi = self.bid_range()
            return bid_actions(lo, hi)
        if ph == PH_PICK:
            return [PICK + c for c in one_per_class(self.public, self.rules.cls, self.rules.twin)]
        if ph == PH_CHURCH:
            return self._church_legal()
        if ph == PH_PAYMENT:
            return self._payment_legal()
        return ()

    def bid_range(self) -> tuple[int, int]:
        """The lowest and highest bid allowed now, in the revealed card's currency.

        Only meaningful while bidding; when the highest is below the lowest, passing is the
        only legal action. Search uses it to pick a few bids without listing every one.
        """
        lo = self.high + 1
        opening = self.rules.opening_bid
        if lo < opening:
            lo = opening
        return lo, self.bid_ceiling(self.cur)

    def bid_ceiling(self, player: int) -> int:
        """The highest bid ``player`` may make on the card under auction, in its currency.

        The ruleset's ceiling, or, when the ruleset sets it to what the bidder can pay
        (``ceiling: hand``), the total value of the Gold in ``player``'s hand (Gold bids)
        or the number of cards in it (card bids).
        """
        cur = self.auc_cur
        rules = self.rules
        if rules.ceiling_hand[cur]:
            return self.gold[player] if cur == CUR_GOLD else len(self.hands[player])
        return rules.ceiling[cur]

    def is_legal(self, action: object) -> bool:
        """Whether ``action`` is legal now."""
        if self.cur < 0 or not is_action(action):
            return False
        assert isinstance(action, int)
        if self.ph == PH_BIDDING:
            lo, hi = self.bid_range()
            return action == PASS or BID + lo <= action <= BID + hi
        return action in self.legal()

    def apply(self, action: object) -> None:
        """Apply ``action`` for the current player, then run the automatic steps that follow.

        Raises :class:`~biblios_kit.errors.InvalidActionError` when ``action`` is not an
        action at all, :class:`~biblios_kit.errors.IllegalActionError` when it is not legal
        now; in both cases the state is unchanged.
        """
        if not is_action(action):
            raise InvalidActionError("not-an-action", action=action)
        assert isinstance(action, int)
        if self.cur < 0:
            raise IllegalActionError("game-over", action=action)
        if not self.is_legal(action):
            try:
                text: object = format_action(self.rules, action)
            except InvalidActionError:
                text = action
            raise IllegalActionError("illegal", action=action, text=text, player=self.cur, phase=self.ph)
        self.step(action)

    def step(self, action: int) -> None:
        """Apply a legal ``action`` without checking it, then run the automatic steps that follow.

        The fast path for search and replays of trusted games (like python-chess's ``push``):
        ``action`` must be one of :meth:`legal`; anything else leaves the state undefined.
        """
        self.history.append(action)
        self.cache = None
        self._do(action)

    def apply_text(self, text: object) -> int:
        """Parse ``text`` (see :func:`~biblios_kit.engine.actions.parse_action`), apply it, return the action."""
        action = parse_action(self.rules, text)
        self.apply(action)
        return action

    def random_action(self, rng: random.Random) -> int:
        """A legal action drawn uniformly from ``rng`` (without building long lists of bids)."""
        return self._random_action(rng.random)

    def _random_action(self, rand: Rand) -> int:
        if self.ph == PH_BIDDING:
            lo, hi = self.bid_range()
            k = hi - lo + 1 if hi >= lo else 0
            r = int(rand() * float(k + 1))  # float * float: the same product, and no generic multiply
            return PASS if r == 0 else BID + lo + r - 1
        legal = self.legal()
        return legal[int(rand() * float(len(legal)))]

    def playout(self, rng: random.Random | Sequence[random.Random]) -> None:
        """Play uniformly random legal actions until the game is over.

        ``rng`` is one RNG for every seat, or one per seat. Draws exactly the actions that
        repeated ``apply(random_action(rng_of_current_player))`` would and leaves the same
        state: it runs the same step methods, only without the legality checks.
        """
        if isinstance(rng, random.Random):
            rands: list[Rand] = [rng.random] * self.n
        else:
            rands = [r.random for r in rng]
        if len(rands) != self.n:
            raise ValueError(f"expected one RNG or {self.n}, got {len(rands)}")
        self.random_playout(rands)

    def random_playout(self, rands: list[Rand]) -> None:
        """:meth:`playout` with one float source per seat (``random.Random.random``), as search uses it."""
        history = self.history
        while self.cur >= 0:
            a = self._random_action(rands[self.cur])
            history.append(a)
            self._do(a)
        self.cache = None

    def clone(self, events: bool = True, rng: random.Random | None = None) -> GameState:
        """An independent copy (lists are copied, nothing is deep-copied; the RNG state is copied).

        With ``events=False`` the copy keeps no event log (the log is neither copied nor grown;
        its observations, events and resampling are then unavailable). With ``rng`` the copy's
        chance (penalty draws, the auction pile shuffle) comes from that RNG instead of a copy
        of this game's, saving the time of copying its state: both are for search playouts.
        """
        s = GameState()
        s.rules = self.rules
        s.n = self.n
        s.seed = self.seed
        if rng is None:
            rng = random.Random.__new__(random.Random)  # unseeded (no draw from the OS): setstate fills it
            rng.setstate(self.rng.getstate())
        s.rng = rng
        s.ph = self.ph
        s.cur = self.cur
        s.hands = [h[:] for h in self.hands]
        s.gold = self.gold[:]
        s.draw = self.draw[:]
        s.public = self.public[:]
        s.pile = self.pile[:]
        s.removed = [g[:] for g in self.removed]
        s.discard = self.discard[:]
        s.buried = self.buried[:]
        s.dice = self.dice[:]
        s.first = self.first
        s.active = self.active
        s.drawn = self.drawn
        s.kept = self.kept
        s.q_keep = self.q_keep
        s.q_auction = self.q_auction
        s.q_public = self.q_public
        s.to_draw = self.to_draw
        s.picker = self.picker
        s.picks_left = self.picks_left
        s.church_q = self.church_q[:]
        s.resume = self.resume
        s.auc_card = self.auc_card
        s.auc_cur = self.auc_cur
        s.high = self.high
        s.high_bidder = self.high_bidder
        s.out = self.out
        s.excluded = self.excluded
        s.pen_once = self.pen_once
        s.payer = self.payer
        s.pay_sum = self.pay_sum
        s.pay_min = self.pay_min
        s.pay_n = self.pay_n
        s.logging = events and self.logging
        s.log = self.log[:] if s.logging else []
        s.history = self.history[:]
        s.all_mask = self.all_mask
        s.gift_cards = self.gift_cards
        s.short_discard = self.short_discard
        s.resampled_for = self.resampled_for
        s.reseeds = self.reseeds
        s.cache = None
        s.ev = self.ev
        s.after = self.after
        s.takers = self.takers
        return s

    @property
    def has_events(self) -> bool:
        """Whether this state keeps an event log (see ``new_game(..., events=False)``)."""
        return self.logging

    def _need_events(self) -> None:
        if not self.logging:
            raise ValueError("this game keeps no event log (created with events=False)")

    @property
    def events(self) -> list[Event]:
        """The full event log with every card shown (for replays and tests; never give it to a player)."""
        self._need_events()
        return [to_event(raw) for raw in self.log]

    def events_for(self, player: object) -> list[Event]:
        """The event log as ``player`` may see it: cards hidden from them are ``None``."""
        p = self._check_player(player)
        self._need_events()
        return [to_event(raw, p) for raw in self.log]

    def observation(self, player: object) -> Observation:
        """What ``player`` may know now, as a frozen :class:`~biblios_kit.engine.observation.Observation`."""
        p = self._check_player(player)
        self._need_events()
        return observe(self, p)

    def resample(self, player: object, rng: random.Random) -> GameState:
        """A full state consistent with what ``player`` knows, re-dealing only what they cannot know.

        Other hands, the draw pile, the auction pile and the cards out of the game are
        re-dealt from ``rng``; the new state has its own RNG seeded from ``rng`` and no
        record (its history and log hold no hidden card identities).
        """
        from biblios_kit.engine.resample import resample

        p = self._check_player(player)
        self._need_events()
        return resample(self, p, rng)

    def result(self) -> GameResult:
        """The final result (scores, awards, ranking); raises ``ValueError`` before the end."""
        if self.cur >= 0:
            raise ValueError("the game is not over yet")
        from biblios_kit.engine.scoring import score

        return score(self)

    def outcome(self) -> Outcome:
        """The final result's numbers (victory points, winners, each category's first place), without
        building the whole :class:`GameResult` (simulations and searches); ``ValueError`` before the end."""
        if self.cur >= 0:
            raise ValueError("the game is not over yet")
        from biblios_kit.engine.scoring import game_outcome

        return game_outcome(self)

    def hand(self, player: object) -> tuple[int, ...]:
        """The cards in ``player``'s hand, sorted (true state: use observations to show players)."""
        return tuple(sorted(self.hands[self._check_player(player)]))

    def zones(self) -> dict[str, list[int]]:
        """Every card's zone (true state): hands, piles, public space, removed, discards, in play."""
        zones: dict[str, list[int]] = {f"hand{p}": self.hands[p][:] for p in range(self.n)}
        zones.update(
            draw=self.draw[:],
            public=self.public[:],
            auction_pile=self.pile[:],
            removed=[c for g in self.removed for c in g],
            discard=self.discard[:],
            buried=self.buried[:],
            in_play=[c for c in (self.drawn, self.kept, self.auc_card) if c >= 0] + [c for _, c in self.church_q],
        )
        return zones

    def __repr__(self) -> str:
        return (
            f"<GameState {self.rules.ruleset.id} players={self.n} seed={self.seed} "
            f"phase={self.phase.name} current={self.current_player} decisions={len(self.history)}>"
        )

    def _check_player(self, player: object) -> int:
        if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < self.n:
            raise ValueError(f"expected a player 0..{self.n - 1}, got {player!r}")
        return player

    # ------------------------------------------------------------------ legal actions

    def _church_legal(self) -> list[int]:
        rules = self.rules
        card = self.church_q[0][1]
        key = (rules.cls[card], tuple(self.dice))
        memo = rules.church_memo
        legal = memo.get(key)
        if legal is None:
            dice, lo, hi = self.dice, rules.die_min, rules.die_max
            legal = []
            for sign in rules.church_signs[card]:
                for action, moved, step in rules.church_moves[(rules.church_group[card], sign)]:
                    fits = True
                    for d in moved:
                        if not lo[d] <= dice[d] + step <= hi[d]:
                            fits = False
                            break
                    if fits:
                        legal.append(action)
            legal.sort()
            if rules.church_optional or not legal:
                legal.insert(0, DECLINE)
            if len(memo) > 50_000:
                memo.clear()
            memo[key] = legal
        return legal

    def _payment_legal(self) -> list[int]:
        rules = self.rules
        hand = self.hands[self.payer]
        legal: list[int] = [REFUSE] if rules.refuse_to_pay and self.pay_n == 0 else []
        if self.auc_cur != CUR_GOLD:
            for c in one_per_class(hand, rules.cls, rules.twin):
                legal.append(PAY + c)
            return legal
        gold_value = rules.gold_value
        lowest: dict[int, int] = {}  # each Gold value's lowest card id
        values: list[int] = []  # the value of each Gold card in the hand (Gold values are >= 1)
        for c in hand:
            v = gold_value[c]
            if v:
                values.append(v)
                low = lowest.get(v, -1)
                if low < 0 or c < low:
                    lowest[v] = c
        values.sort()
        # What can still complete the payment depends on the bid only through what is left to pay.
        key = (tuple(values), self.high - self.pay_sum, self.pay_min, rules.overpay_forbidden)
        options = _PAY_OPTIONS.get(key)
        if options is None:
            options = []
            for v in sorted(lowest):
                rest = values[:]
                rest.remove(v)
                if gold_completable(self.pay_sum + v, min(self.pay_min, v), rest, self.high, rules.overpay_forbidden):
                    options.append(v)
            if len(_PAY_OPTIONS) > 50_000:
                _PAY_OPTIONS.clear()
            _PAY_OPTIONS[key] = options
        for v in options:
            legal.append(PAY + lowest[v])
        legal.sort()
        return legal

    # ------------------------------------------------------------------ steps

    def _add(self, p: int, c: int) -> None:
        self.hands[p].append(c)
        if self.rules.kind[c] == KIND_GOLD:
            self.gold[p] = self.gold[p] + self.rules.value[c]

    def _take(self, p: int, c: int) -> None:
        self.hands[p].remove(c)
        if self.rules.kind[c] == KIND_GOLD:
            self.gold[p] = self.gold[p] - self.rules.value[c]

    def _do(self, a: int) -> None:
        ph = self.ph
        if ph == PH_BIDDING:
            self._do_bid(a)
        elif ph == PH_GIFT:
            self._do_place(a)
        elif ph == PH_PICK:
            self._do_pick(a)
        elif ph == PH_PAYMENT:
            self._do_pay(a)
        else:
            self._do_church(a)

    # gift phase ---------------------------------------------------------

    def _start_gift(self) -> None:
        left = len(self.draw)
        if left == 0:
            self._start_auction()
            return
        k = self.gift_cards
        if left < k:
            if self.short_discard:
                self.buried.extend(self.draw)
                self.draw.clear()
                if self.logging:
                    self.log.append((EV_SHORT_DRAW_DISCARDED, -1, -1, left, ALL))
                self._start_auction()
                return
            k = left
        self.q_keep = 1
        self.q_auction = 1 if k >= 2 else 0
        self.q_public = k - 1 - self.q_auction
        self.to_draw = k
        if self.logging:
            self.log.append((EV_GIFT_TURN, self.active, -1, k, ALL))
        self._draw_next()

    def _draw_next(self) -> None:
        c = self.draw.pop()
        self.to_draw -= 1
        self.drawn = c
        p = self.active
        if self.logging:
            self.log.append(self.ev.drew[p][c])
        self.ph = PH_GIFT
        self.cur = p

    def _do_place(self, a: int) -> None:
        p = self.active
        c = self.drawn
        self.drawn = -1
        if a == TO_PUBLIC:
            self.q_public -= 1
            self.public.append(c)
            if self.logging:
                self.log.append(self.ev.to_public[p][c])
        elif a == TO_AUCTION:
            self.q_auction = 0
            self.pile.append(c)
            if self.logging:
                self.log.append(self.ev.to_pile[p][c])
        else:
            self.q_keep = 0
            if self.rules.is_church[c]:  # resolved at once; the turn goes on afterwards
                if self.logging:
                    self.log.append((EV_KEPT, p, c, (), ALL))
                self._resolve_church(p, c, R_GIFT)
                return
            self.kept = c
            if self.logging:
                self.log.append(self.ev.kept[p][c])
        self._gift_continue()

    def _gift_continue(self) -> None:
        if self.to_draw:
            self._draw_next()
        else:
            self._end_placements()

    def _end_placements(self) -> None:
        p = self.active
        if self.kept >= 0:
            c = self.kept
            self.kept = -1
            self._add(p, c)
            if self.logging:
                self.log.append((EV_TOOK_KEPT, p, c, (), 1 << p))
        self.picker = (p + 1) % self.n
        self.picks_left = self.n - 1
        self._pick_next()

    def _pick_next(self) -> None:
        if self.picks_left and self.public:
            self.ph = PH_PICK
            self.cur = self.picker
            return
        for c in self.public:
            self.discard.append(c)
            if self.logging:
                self.log.append((EV_PUBLIC_DISCARDED, -1, c, (), ALL))
        self.public.clear()
        self.active = (self.active + 1) % self.n
        self._start_gift()

    def _do_pick(self, a: int) -> None:
        p = self.picker
        c = a - PICK
        self.public.remove(c)
        if self.logging:
            self.log.append(self.ev.picked[p][c])
        self.picks_left -= 1
        self.picker = (p + 1) % self.n
        if self.rules.is_church[c]:
            self._resolve_church(p, c, R_PICK)
            return
        self._add(p, c)
        self._pick_next()

    def _resolve_church(self, p: int, c: int, resume: int) -> None:
        """Player ``p`` acquired church card ``c``: it waits for resolution, then the game goes on with ``resume``."""
        self.church_q.append((p, c))
        self.resume = resume
        self._church_next()

    def _church_next(self) -> None:
        self.ph = PH_CHURCH
        self.cur = self.church_q[0][0]

    def _do_church(self, a: int) -> None:
        p, c = self.church_q.pop(0)
        if a == DECLINE:
            if self.logging:
                self.log.append((EV_CHURCH_DECLINED, p, c, (), ALL))
        else:
            dice, sign = _church_parts(a)
            for d in dice:
                old = self.dice[d]
                self.dice[d] = old + sign
                if self.logging:
                    self.log.append((EV_DIE_MOVED, p, -1, (d, old, old + sign), ALL))
            if self.logging:
                self.log.append((EV_CHURCH_USED, p, c, (sign, *dice), ALL))
        self.discard.append(c)
        if self.church_q:
            self._church_next()
            return
        r = self.resume
        if r == R_GIFT:
            self._gift_continue()
        elif r == R_PICK:
            self._pick_next()
        elif r == R_AUCTION:
            self._next_auction_turn()
        else:
            self._start_gift()

    # auction phase ------------------------------------------------------

    def _start_auction(self) -> None:
        if self.logging:
            self.log.append((EV_AUCTION_PHASE, -1, -1, len(self.pile), ALL))
        shuffle(self.pile, self.rng)
        self.active = self.first
        self._reveal()

    def _reveal(self) -> None:
        if not self.pile:
            self.ph = PH_OVER
            self.cur = -1
            if self.logging:
                self.log.append((EV_GAME_OVER, -1, -1, (), ALL))
            return
        c = self.pile.pop()
        self.auc_card = c
        self.auc_cur = self.rules.currency[c]
        self.excluded = 0
        self.pen_once = 0
        if self.logging:
            self.log.append((EV_REVEALED, self.active, c, (), ALL))
        self._open_bidding()

    def _next_auction_turn(self) -> None:
        self.auc_card = -1
        self.active = (self.active + 1) % self.n
        self._reveal()

    def _open_bidding(self) -> None:
        out = self.excluded
        if out == self.all_mask:
            c = self.auc_card
            if self.logging:
                self.log.append((EV_NO_BIDDERS, -1, c, (), ALL))
            self.discard.append(c)
            self._next_auction_turn()
            return
        self.out = out
        self.high = 0
        self.high_bidder = -1
        active = self.active
        if self.rules.bid_from_left or out >> active & 1:
            p = self.after[out][active]
        else:
            p = active
        self.ph = PH_BIDDING
        self.cur = p

    def _do_bid(self, a: int) -> None:
        p = self.cur
        out = self.out
        if a == PASS:
            out |= 1 << p
            self.out = out
            if self.logging:
                self.log.append(self.ev.passed[p])
            remaining = self.all_mask & ~out
            hb = self.high_bidder
            if not remaining:
                self._all_passed()
            elif hb >= 0 and remaining == 1 << hb:
                self._won(hb)
            else:
                self.cur = self.after[out][p]
            return
        high = a - BID
        self.high = high
        self.high_bidder = p
        if self.logging:
            self.log.append(self.ev.bid[p][high])
        if self.all_mask & ~out == 1 << p:
            self._won(p)
        else:
            self.cur = self.after[out][p]

    def _all_passed(self) -> None:
        c = self.auc_card
        if self.logging:
            self.log.append((EV_ALL_PASSED, -1, c, (), ALL))
        if self.rules.all_pass_active_takes and not self.excluded >> self.active & 1:
            self._award(self.active)
            return
        if self.logging:
            self.log.append((EV_DISCARDED, -1, c, (), ALL))
        self.discard.append(c)
        self._next_auction_turn()

    def _can_pay(self, w: int, bid: int) -> bool:
        """Whether player ``w`` can pay ``bid`` for the card under auction."""
        if self.auc_cur != CUR_GOLD:
            return len(self.hands[w]) >= bid
        if not self.rules.overpay_forbidden:
            return self.gold[w] >= bid
        rules = self.rules
        values = [rules.value[c] for c in self.hands[w] if rules.kind[c] == KIND_GOLD]
        return bool(subset_sums(values) >> bid & 1)

    def _won(self, w: int) -> None:
        bid = self.high
        if self.logging:
            self.log.append((EV_WON, w, self.auc_card, bid, ALL))
        if self._can_pay(w, bid):
            self.payer = w
            self.pay_sum = 0
            self.pay_n = 0
            self.pay_min = NO_MIN
            self.ph = PH_PAYMENT
            self.cur = w
            return
        if self.logging:
            self.log.append(self.ev.cannot_pay[w][bid])
        self._penalize(w)
        self._open_bidding()

    def _do_pay(self, a: int) -> None:
        w = self.payer
        if a == REFUSE:
            if self.logging:
                self.log.append((EV_REFUSED, w, -1, self.high, ALL))
            self.payer = -1
            self._penalize(w)
            self._open_bidding()
            return
        c = a - PAY
        self._take(w, c)
        self.pay_n += 1
        if self.auc_cur == CUR_GOLD:
            v = self.rules.value[c]
            self.pay_sum += v
            if v < self.pay_min:
                self.pay_min = v
            self.discard.append(c)
            if self.logging:
                self.log.append((EV_PAID_GOLD, w, c, (), ALL))
            done = self.pay_sum >= self.high
        else:
            self.buried.append(c)
            if self.logging:
                self.log.append((EV_PAID_CARD, w, c, (), 1 << w))
            done = self.pay_n >= self.high
        if done:
            self.payer = -1
            self._award(w)

    def _award(self, w: int) -> None:
        c = self.auc_card
        if self.logging:
            self.log.append((EV_TOOK, w, c, (), ALL))
        if self.rules.is_church[c]:
            self.auc_card = -1
            self._resolve_church(w, c, R_AUCTION)
            return
        self._add(w, c)
        self._next_auction_turn()

    def _penalize(self, w: int) -> None:
        bit = 1 << w
        rules = self.rules
        if rules.exclude_penalized or self.pen_once & bit:
            self.excluded |= bit
        else:
            self.pen_once |= bit
        hand = self.hands[w]
        if rules.penalty == PEN_STANDARD:
            rand = self._rand
            order = self.takers[w]
            short = len(hand) < len(order)
            if short:
                order = order[: len(hand)]
            for q in order:
                c = hand.pop(int(rand() * float(len(hand))))  # a random card
                if rules.kind[c] == KIND_GOLD:
                    v = rules.value[c]
                    self.gold[w] = self.gold[w] - v
                    self.gold[q] = self.gold[q] + v
                self.hands[q].append(c)
                if self.logging:
                    self.log.append(self.ev.taken[w][q][c])
            if short and self.logging:
                self.log.append((EV_PENALTY_EMPTY, w, -1, (), ALL))  # the hand ran out: the last players get nothing
        elif rules.penalty == PEN_BLUFF:
            if not hand:
                if self.logging:
                    self.log.append((EV_PENALTY_EMPTY, w, -1, (), ALL))
                return
            d = (w + 1) % self.n
            c = hand.pop(int(self._rand() * float(len(hand))))
            if rules.kind[c] == KIND_GOLD:
                self.gold[w] = self.gold[w] - rules.value[c]
            self.buried.append(c)
            if self.logging:
                self.log.append((EV_PENALTY_REMOVED, d, c, w, bit | 1 << d))


def new_game(ruleset: Ruleset, players: object, seed: object, *, events: bool = True) -> GameState:
    """Start a game of ``ruleset`` (options already applied) for ``players`` players from ``seed``.

    Setup (removals, starting hands, the shuffle) happens at once from the game's RNG;
    seat 0 is the first player. The returned state waits for the first decision.
    ``events=False`` keeps no event log: the game plays the same and its record and result
    are the same, but observations, events and resampling are unavailable (for simulations
    of bots that need no observation: less memory, and no event is built at all).
    """
    if isinstance(players, bool) or not isinstance(players, int):
        raise EngineError("bad-players", value=players)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise EngineError("bad-seed", value=seed)
    state = GameState()
    state._setup(compile_rules(ruleset), players, seed, events)
    return state
