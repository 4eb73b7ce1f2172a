"""The mutable game state: whose decision it is, legal actions, apply, clone (the one engine API).

A game is a chain of decisions. After every applied action the state runs the automatic
steps of the rules itself (drawing the next card, ending a turn, revealing the next
auction card, random penalty draws, scoring) until a player must decide again, so
:attr:`GameState.current_player` always names a player with a decision, or ``None``
when the game is over. Chance comes only from the game's own ``random.Random``,
seeded from the game seed.

Speed matters (simulations play thousands of games): the state is a flat object of
ints and lists reading :class:`~biblios_kit.engine.compiled.CompiledRules`; hands are
lists of card ids; events are plain tuples until someone asks for them.
"""

from __future__ import annotations

import enum
import random
from collections import deque
from collections.abc import Iterable, Sequence
from itertools import repeat, starmap
from math import floor
from typing import TYPE_CHECKING

from biblios_kit.engine import actions as A
from biblios_kit.engine.actions import BID, DECLINE, KEEP, PASS, PAY, PICK, REFUSE, TO_AUCTION, TO_PUBLIC
from biblios_kit.engine.compiled import CUR_GOLD, KIND_GOLD, PEN_BLUFF, PEN_STANDARD, CompiledRules, compile_rules
from biblios_kit.engine.events import ALL, Event, EventKind, RawEvent, to_event
from biblios_kit.errors import IllegalActionError, InvalidActionError
from biblios_kit.i18n import N_, _
from biblios_kit.rules.model import Ruleset

if TYPE_CHECKING:
    from biblios_kit.engine.observation import Observation
    from biblios_kit.engine.scoring import GameResult

E = EventKind
# Event kinds as plain ints: an IntEnum attribute lookup costs ~170 ns, a global ~10 ns.
_ALL_PASSED = int(E.ALL_PASSED)
_AUCTION_PHASE = int(E.AUCTION_PHASE)
_CHURCH_DECLINED = int(E.CHURCH_DECLINED)
_CHURCH_USED = int(E.CHURCH_USED)
_DEALT = int(E.DEALT)
_DIE_MOVED = int(E.DIE_MOVED)
_DISCARDED = int(E.DISCARDED)
_GAME_OVER = int(E.GAME_OVER)
_GIFT_TURN = int(E.GIFT_TURN)
_KEPT = int(E.KEPT)
_NO_BIDDERS = int(E.NO_BIDDERS)
_PAID_CARD = int(E.PAID_CARD)
_PAID_GOLD = int(E.PAID_GOLD)
_PENALTY_EMPTY = int(E.PENALTY_EMPTY)
_PENALTY_REMOVED = int(E.PENALTY_REMOVED)
_PUBLIC_DISCARDED = int(E.PUBLIC_DISCARDED)
_REFUSED = int(E.REFUSED)
_REVEALED = int(E.REVEALED)
_SETUP_REMOVED = int(E.SETUP_REMOVED)
_SHORT_DRAW_DISCARDED = int(E.SHORT_DRAW_DISCARDED)
_TOOK = int(E.TOOK)
_TOOK_KEPT = int(E.TOOK_KEPT)
_WON = int(E.WON)


class Phase(enum.IntEnum):
    """The kind of decision the current player faces."""

    GIFT = 0
    """Place the drawn card: keep it, put it on the auction pile, or in the public space."""
    PICK = 1
    """Take one card from the public space."""
    CHURCH = 2
    """Resolve an acquired church/bishop card: which dice and which sign, or decline."""
    BIDDING = 3
    """Bid on the revealed card, or pass."""
    PAYMENT = 4
    """Pay the winning bid, one card at a time (or refuse, when the option is on)."""
    GAME_OVER = 5
    """No decision left: see :meth:`GameState.result`."""


PH_GIFT, PH_PICK, PH_CHURCH, PH_BIDDING, PH_PAYMENT, PH_OVER = range(6)
"""The phases as plain ints (the state's ``ph``), for speed."""
_PHASE_WORDS = (N_("gift"), N_("pick"), N_("church"), N_("bidding"), N_("payment"), N_("game over"))
"""A word for each phase in error messages (translated when shown)."""

# What to do once the church cards waiting for resolution are all resolved.
_R_START_GIFT, _R_GIFT, _R_PICK, _R_AUCTION = range(4)

_NO_MIN = 1 << 30

# Every random choice below is ``options[floor(rand() * len(options))]``: for these non-negative
# floats ``math.floor`` is ``int`` (the draw of RandomBot and random_action), but calls far
# cheaper (~60 ns against ~170 ns: ``int`` is a type, called through a tuple of arguments),
# which matters at ~800 draws per random game.

# Legal placements by (keep owed, auction owed, public owed); precomputed for speed.
_GIFT_LEGAL: tuple[tuple[int, ...], ...] = tuple(
    tuple(a for a, on in ((KEEP, k), (TO_AUCTION, b), (TO_PUBLIC, p)) if on)
    for k in (0, 1)
    for b in (0, 1)
    for p in (0, 1)
)


def _shuffle(items: list[int], rnd: random.Random) -> None:
    """Shuffle ``items`` in place by sorting on one ``rnd.random()`` key per item.

    Three times faster than ``Random.shuffle`` in pure Python (12 us against 35 us for a
    deck, part of every game's setup); ties between keys have probability ~0.
    """
    keys = list(starmap(rnd.random, repeat((), len(items))))  # one draw per item, in order
    items[:] = [items[i] for i in sorted(range(len(items)), key=keys.__getitem__)]


def _sums(values: Iterable[int]) -> int:
    """Bitset of every subset sum of ``values`` (bit s set when some subset adds up to s)."""
    reach = 1
    for v in values:
        reach |= reach << v
    return reach


def gold_completable(paid: int, paid_min: int, rest: Sequence[int], bid: int, exact: bool) -> bool:
    """Whether Gold already paid (sum ``paid``, smallest card ``paid_min``) can be completed from ``rest``.

    A completed payment covers ``bid`` and has no pointless card (removing its smallest card
    would no longer cover the bid); with ``exact`` it must add up to ``bid`` exactly.
    """
    need = bid - paid
    if exact:
        return need >= 0 and bool(_sums(rest) >> need & 1)
    if need <= 0:
        return paid - paid_min < bid
    # The smallest card of the finished payment is ``paid_min`` or a smaller card of ``rest``;
    # for each candidate m, cards >= m must reach a total in [bid, bid + m - 1].
    for m in {v for v in rest if v < paid_min} | {paid_min}:
        if _sums(v for v in rest if v >= m) >> need & ((1 << m) - 1):
            return True
    return False


def _one_per_class(cards: list[int], cls: Sequence[int]) -> list[int]:
    """``cards`` sorted by id, keeping the lowest id of each identity class ``cls[c]``.

    A plain loop: for the few cards of a hand or the public space it beats any detour through
    ``map(cls.__getitem__, ...)``, whose calls go through a slot wrapper.
    """
    seen: set[int] = set()
    out = []
    for c in sorted(cards):
        k = cls[c]
        if k not in seen:
            seen.add(k)
            out.append(c)
    return out


def seat_tables(n: int) -> tuple[tuple[int, ...], ...]:
    """``table[out][p]``: the first seat clockwise after ``p`` whose bit is not set in ``out`` (``p`` itself last).

    Bidding and penalties walk round the table constantly; a lookup replaces a loop.
    """
    if n not in _SEAT_TABLES:
        rows = []
        for out in range(1 << n):
            row = []
            for p in range(n):
                q = (p + 1) % n
                for _ in range(n):
                    if not out >> q & 1:
                        break
                    q = (q + 1) % n
                row.append(q)
            rows.append(tuple(row))
        _SEAT_TABLES[n] = tuple(rows)
    return _SEAT_TABLES[n]


_SEAT_TABLES: dict[int, tuple[tuple[int, ...], ...]] = {}

_TAKERS: dict[int, tuple[tuple[int, ...], ...]] = {
    n: tuple(tuple((w + k) % n for k in range(1, n)) for w in range(n)) for n in range(1, 17)
}
"""``_TAKERS[n][w]``: the other seats clockwise from ``w``'s left (who draws in a standard penalty)."""


_NO_EVENTS: deque[RawEvent] = deque(maxlen=0)
"""The event log of a game created with ``events=False``: appending to it keeps nothing."""

_PAY_OPTIONS: dict[tuple[object, ...], list[int]] = {}
"""Memo of the Gold values that can continue a payment, by (hand Gold, left to pay, smallest paid, exact)."""


class GameState:
    """One game in progress. Create it with :func:`new_game`; drive it with :meth:`apply`.

    The fields are plain data (read them freely; change them only through :meth:`apply`):

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
    * ``church_q`` (owner, card) waiting for resolution; ``resume`` what follows them.
    * Auction: ``auc_card``, ``auc_cur`` (currency), ``high``, ``high_bidder``, ``out`` (bitmask of
      players out of this round), ``excluded`` and ``pen_once`` (penalized on this card);
      ``payer``, ``pay_sum``, ``pay_min``, ``pay_n`` for a payment in progress.
    * ``log`` raw events; ``history`` actions applied; ``resampled_for`` the player a resampled
      world was dealt for (-1 otherwise); ``cache`` derived data for an unchanged state.
    """

    __slots__ = (
        "active",
        "all_mask",
        "auc_card",
        "auc_cur",
        "buried",
        "cache",
        "church_q",
        "cur",
        "dice",
        "discard",
        "draw",
        "drawn",
        "excluded",
        "first",
        "gift_cards",
        "gold",
        "hands",
        "high",
        "high_bidder",
        "history",
        "kept",
        "log",
        "n",
        "out",
        "pay_min",
        "pay_n",
        "pay_sum",
        "payer",
        "pen_once",
        "ph",
        "picker",
        "picks_left",
        "pile",
        "public",
        "q_auction",
        "q_keep",
        "q_public",
        "removed",
        "resampled_for",
        "resume",
        "rng",
        "rules",
        "seed",
        "short_discard",
        "to_draw",
    )  # fmt: skip

    rules: CompiledRules
    n: int
    seed: int
    rng: random.Random
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
    history: list[int]
    all_mask: int
    gift_cards: int
    short_discard: bool
    resampled_for: int
    cache: dict[object, object] | None
    """Derived data kept for repeated queries on an unchanged state (cleared by apply)."""

    # ------------------------------------------------------------------ creation

    def _setup(self, rules: CompiledRules, players: int, seed: int, events: bool = True) -> None:
        if players not in rules.setups:
            raise ValueError(
                _("ruleset {ruleset!r} has no setup for {players} players (supported: {supported})").format(
                    ruleset=rules.ruleset.id, players=players, supported=", ".join(map(str, sorted(rules.setups)))
                )
            )
        setup = rules.setups[players]
        self.rules = rules
        self.n = players
        self.seed = seed
        self.rng = rng = random.Random(seed)
        self.all_mask = (1 << players) - 1
        self.gift_cards = setup.gift_cards
        self.short_discard = setup.short_discard
        self.hands = [[] for _ in range(players)]
        self.gold = [0] * players
        self.public = []
        self.pile = []
        self.discard = []
        self.buried = []
        self.dice = list(rules.die_start)
        self.first = self.active = 0
        self.drawn = self.kept = -1
        self.q_keep = self.q_auction = self.q_public = self.to_draw = 0
        self.picker = self.picks_left = 0
        self.church_q = []
        self.resume = _R_START_GIFT
        self.auc_card = -1
        self.auc_cur = CUR_GOLD
        self.high = 0
        self.high_bidder = -1
        self.out = self.excluded = self.pen_once = 0
        self.payer = -1
        self.pay_sum = self.pay_n = 0
        self.pay_min = _NO_MIN
        self.log = log = [] if events else _NO_EVENTS
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
                raise ValueError(
                    _("setup for {players} players removes {count} cards of a kind the deck has {available} of").format(
                        players=players, count=count, available=len(pool)
                    )
                )
            _shuffle(pool, rng)
            group = pool[:count]
            taken.update(group)
            self.removed.append(group)
        rest = [c for c in range(rules.n_cards) if c not in taken] if taken else list(range(rules.n_cards))
        _shuffle(rest, rng)
        need = setup.remove_random + setup.starting_hand * players
        if need > len(rest):
            raise ValueError(
                _("setup for {players} players needs {need} cards, the deck has {left} left").format(
                    players=players, need=need, left=len(rest)
                )
            )
        self.removed.append([rest.pop() for _ in range(setup.remove_random)])
        removed_count = sum(len(g) for g in self.removed)
        if removed_count:
            log.append((_SETUP_REMOVED, -1, -1, removed_count, ALL))
        is_church = rules.is_church
        for p in range(players):
            for _dealt in range(setup.starting_hand):
                c = rest.pop()
                log.append((_DEALT, p, c, (), 1 << p))
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
        """The legal actions of the current player (empty when the game is over)."""
        if self.ph == PH_BIDDING:
            lo, hi = self._bid_bounds()
            return [PASS, *range(BID + lo, BID + hi + 1)]
        return list(self._legal())

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` is legal now."""
        if self.cur < 0 or not A.is_well_formed(action):
            return False
        if self.ph == PH_BIDDING:
            lo, hi = self._bid_bounds()
            return action == PASS or BID + lo <= action <= BID + hi
        return action in self._legal()

    def apply(self, action: int) -> None:
        """Apply ``action`` for the current player, then run the automatic steps that follow.

        Raises :class:`~biblios_kit.errors.InvalidActionError` when ``action`` is not an
        action at all, :class:`~biblios_kit.errors.IllegalActionError` when it is not legal
        now; in both cases the state is unchanged.
        """
        if not A.is_well_formed(action):
            raise InvalidActionError(_("not an action: {action!r}").format(action=action))
        if self.cur < 0:
            raise IllegalActionError(_("the game is over; no action is legal (got {action!r})").format(action=action))
        if not self.is_legal(action):
            try:
                text: object = A.format_action(self.rules, action)
            except InvalidActionError:
                text = action
            raise IllegalActionError(
                _("illegal action {action!r} for player {player} at this point ({phase})").format(
                    action=text, player=self.cur + 1, phase=_(_PHASE_WORDS[self.ph])
                )
            )
        self.history.append(action)
        self.cache = None
        self._do(action)

    def apply_text(self, text: str) -> int:
        """Parse ``text`` (see :func:`~biblios_kit.engine.actions.parse_action`), apply it, return the action."""
        action = A.parse_action(self.rules, text)
        self.apply(action)
        return action

    def random_action(self, rng: random.Random) -> int:
        """A legal action drawn uniformly from ``rng`` (without building long lists of bids)."""
        if self.ph == PH_BIDDING:
            lo, hi = self._bid_bounds()
            k = hi - lo + 1 if hi >= lo else 0
            r = floor(rng.random() * (k + 1))
            return PASS if r == 0 else BID + lo + r - 1
        legal = self._legal()
        return legal[floor(rng.random() * len(legal))]

    def playout(self, rng: random.Random | Sequence[random.Random]) -> None:
        """Play uniformly random legal actions until the game is over (fast path).

        ``rng`` is one RNG for every seat, or one per seat. Draws exactly the actions that
        repeated ``apply(random_action(rng_of_current_player))`` would and leaves the same
        state (a test checks it); see :mod:`biblios_kit.engine.playout`.
        """
        from biblios_kit.engine.playout import random_playout

        rands = [r.random for r in rng] if isinstance(rng, (list, tuple)) else [rng.random] * self.n
        if len(rands) != self.n:
            raise ValueError(f"expected one RNG or {self.n}, got {len(rands)}")
        self.cache = None
        random_playout(self, rands)

    def clone(self, events: bool = True, rng: random.Random | None = None) -> GameState:
        """An independent copy (lists are copied, nothing is deep-copied; the RNG state is copied).

        With ``events=False`` the copy keeps no event log (the log is neither copied nor grown;
        its observations, events and resampling are then unavailable). With ``rng`` the copy's
        chance (penalty draws, the auction pile shuffle) comes from that RNG instead of a copy
        of this game's, saving the ~20 us of copying its state: both are for search playouts.
        """
        s = GameState.__new__(GameState)
        s.rules = self.rules
        s.n = self.n
        s.seed = self.seed
        if rng is None:
            rng = random.Random.__new__(random.Random)  # unseeded: setstate fills it
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
        s.log = self.log[:] if events and self.log is not _NO_EVENTS else _NO_EVENTS
        s.history = self.history[:]
        s.all_mask = self.all_mask
        s.gift_cards = self.gift_cards
        s.short_discard = self.short_discard
        s.resampled_for = self.resampled_for
        s.cache = None
        return s

    @property
    def has_events(self) -> bool:
        """Whether this state keeps an event log (see ``new_game(..., events=False)``)."""
        return self.log is not _NO_EVENTS

    def _need_events(self) -> None:
        if self.log is _NO_EVENTS:
            raise ValueError("this game keeps no event log (created with events=False)")

    @property
    def events(self) -> list[Event]:
        """The full event log with every card shown (for replays and tests; never give it to a player)."""
        self._need_events()
        return [to_event(raw) for raw in self.log]

    def events_for(self, player: int) -> list[Event]:
        """The event log as ``player`` may see it: cards hidden from them are ``None``."""
        self._check_player(player)
        self._need_events()
        return [to_event(raw, player) for raw in self.log]

    def observation(self, player: int) -> Observation:
        """What ``player`` may know now, as a frozen :class:`~biblios_kit.engine.observation.Observation`."""
        from biblios_kit.engine.observation import observe

        self._check_player(player)
        self._need_events()
        return observe(self, player)

    def resample(self, player: int, rng: random.Random) -> GameState:
        """A full state consistent with what ``player`` knows, re-dealing only what they cannot know.

        Other hands, the draw pile, the auction pile and the cards out of the game are
        re-dealt from ``rng``; the new state has its own RNG seeded from ``rng`` and no
        record (its history and log hold no hidden card identities).
        """
        from biblios_kit.engine.resample import resample

        self._check_player(player)
        self._need_events()
        return resample(self, player, rng)

    def result(self) -> GameResult:
        """The final result (scores, awards, ranking); raises ``ValueError`` before the end."""
        if self.cur >= 0:
            raise ValueError("the game is not over yet")
        from biblios_kit.engine.scoring import score

        return score(self)

    def hand(self, player: int) -> tuple[int, ...]:
        """The cards in ``player``'s hand, sorted (true state: use observations to show players)."""
        self._check_player(player)
        return tuple(sorted(self.hands[player]))

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

    def _check_player(self, player: int) -> None:
        if not isinstance(player, int) or not 0 <= player < self.n:
            raise ValueError(f"expected a player 0..{self.n - 1}, got {player!r}")

    # ------------------------------------------------------------------ legal actions

    def _bid_bounds(self) -> tuple[int, int]:
        lo = self.high + 1
        opening = self.rules.opening_bid
        return (lo if lo > opening else opening), self.rules.ceiling[self.auc_cur]

    def _legal(self) -> Sequence[int]:
        ph = self.ph
        if ph == PH_GIFT:
            return _GIFT_LEGAL[(self.q_keep > 0) * 4 + (self.q_auction > 0) * 2 + (self.q_public > 0)]
        if ph == PH_PICK:
            return self._distinct(self.public, PICK)
        if ph == PH_BIDDING:
            return self.legal_actions()
        if ph == PH_CHURCH:
            return self._church_legal()
        if ph == PH_PAYMENT:
            return self._payment_legal()
        return ()

    def _distinct(self, cards: list[int], base: int) -> list[int]:
        """``base + c`` for each card, one per identity class (the lowest id), sorted by card id."""
        return [base + c for c in _one_per_class(cards, self.rules.cls)]

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
                for action, moved, step in rules.church_moves[(rules.church_ndice[card], sign)]:
                    for d in moved:
                        if not lo[d] <= dice[d] + step <= hi[d]:
                            break
                    else:
                        legal.append(action)
            legal.sort()
            if rules.church_optional or not legal:
                legal.insert(0, DECLINE)
            if len(memo) > 50_000:
                memo.clear()
            memo[key] = legal
        return legal[:]

    def _payment_legal(self) -> list[int]:
        rules = self.rules
        hand = self.hands[self.payer]
        legal: list[int] = [REFUSE] if rules.refuse_to_pay and self.pay_n == 0 else []
        if self.auc_cur != CUR_GOLD:
            legal.extend(self._distinct(hand, PAY))
            return legal
        gold_value = rules.gold_value
        lowest: dict[int, int] = {}  # each Gold value's lowest card id
        values = []  # the value of each Gold card in the hand (Gold values are >= 1)
        for c in sorted(hand):
            v = gold_value[c]
            if v:
                values.append(v)
                if v not in lowest:
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

    def _add(self, p: int, c: int) -> None:
        self.hands[p].append(c)
        if self.rules.kind[c] == KIND_GOLD:
            self.gold[p] += self.rules.value[c]

    def _take(self, p: int, c: int) -> None:
        self.hands[p].remove(c)
        if self.rules.kind[c] == KIND_GOLD:
            self.gold[p] -= self.rules.value[c]

    def _take_random(self, p: int) -> int:
        c = self.hands[p].pop(floor(self.rng.random() * len(self.hands[p])))
        if self.rules.kind[c] == KIND_GOLD:
            self.gold[p] -= self.rules.value[c]
        return c

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
                self.log.append((_SHORT_DRAW_DISCARDED, -1, -1, left, ALL))
                self._start_auction()
                return
            k = left
        self.q_keep = 1
        self.q_auction = 1 if k >= 2 else 0
        self.q_public = k - 1 - self.q_auction
        self.to_draw = k
        self.log.append((_GIFT_TURN, self.active, -1, k, ALL))
        self._draw_next()

    def _draw_next(self) -> None:
        c = self.draw.pop()
        self.to_draw -= 1
        self.drawn = c
        p = self.active
        self.log.append(self.rules.event_tables(self.n).drew[p][c])
        self.ph = PH_GIFT
        self.cur = p

    def _do_place(self, a: int) -> None:
        p, c = self.active, self.drawn
        self.drawn = -1
        tables = self.rules.event_tables(self.n)
        if a == TO_PUBLIC:
            self.q_public -= 1
            self.public.append(c)
            self.log.append(tables.to_public[p][c])
        elif a == TO_AUCTION:
            self.q_auction = 0
            self.pile.append(c)
            self.log.append(tables.to_pile[p][c])
        else:
            self.q_keep = 0
            if self.rules.is_church[c]:  # resolved at once; the turn goes on afterwards
                self.log.append((_KEPT, p, c, (), ALL))
                self._resolve_church(p, c, _R_GIFT)
                return
            self.kept = c
            self.log.append(tables.kept[p][c])
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
            self.log.append((_TOOK_KEPT, p, c, (), 1 << p))
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
            self.log.append((_PUBLIC_DISCARDED, -1, c, (), ALL))
        self.public.clear()
        self.active = (self.active + 1) % self.n
        self._start_gift()

    def _do_pick(self, a: int) -> None:
        p, c = self.picker, a - PICK
        self.public.remove(c)
        self.log.append(self.rules.event_tables(self.n).picked[p][c])
        self.picks_left -= 1
        self.picker = (p + 1) % self.n
        if self.rules.is_church[c]:
            self._resolve_church(p, c, _R_PICK)
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
        log = self.log
        if a == DECLINE:
            log.append((_CHURCH_DECLINED, p, c, (), ALL))
        else:
            dice, sign = A.church_parts(a)
            for d in dice:
                old = self.dice[d]
                self.dice[d] = old + sign
                log.append((_DIE_MOVED, p, -1, (d, old, old + sign), ALL))
            log.append((_CHURCH_USED, p, c, (sign, *dice), ALL))
        self.discard.append(c)
        if self.church_q:
            self._church_next()
            return
        r = self.resume
        if r == _R_GIFT:
            self._gift_continue()
        elif r == _R_PICK:
            self._pick_next()
        elif r == _R_AUCTION:
            self._next_auction_turn()
        else:
            self._start_gift()

    # auction phase ------------------------------------------------------

    def _start_auction(self) -> None:
        self.log.append((_AUCTION_PHASE, -1, -1, len(self.pile), ALL))
        _shuffle(self.pile, self.rng)
        self.active = self.first
        self._reveal()

    def _reveal(self) -> None:
        if not self.pile:
            self.ph = PH_OVER
            self.cur = -1
            self.log.append((_GAME_OVER, -1, -1, (), ALL))
            return
        c = self.pile.pop()
        self.auc_card = c
        self.auc_cur = self.rules.currency[c]
        self.excluded = self.pen_once = 0
        self.log.append((_REVEALED, self.active, c, (), ALL))
        self._open_bidding()

    def _next_auction_turn(self) -> None:
        self.auc_card = -1
        self.active = (self.active + 1) % self.n
        self._reveal()

    def _open_bidding(self) -> None:
        out = self.excluded
        if out == self.all_mask:
            c = self.auc_card
            self.log.append((_NO_BIDDERS, -1, c, (), ALL))
            self.discard.append(c)
            self._next_auction_turn()
            return
        self.out = out
        self.high = 0
        self.high_bidder = -1
        active = self.active
        if self.rules.bid_from_left:
            p = seat_tables(self.n)[out][active]
        else:
            p = active if not out >> active & 1 else seat_tables(self.n)[out][active]
        self.ph = PH_BIDDING
        self.cur = p

    def _do_bid(self, a: int) -> None:
        """Apply one bid or pass ``a`` (the random playout plays bids in :mod:`biblios_kit.engine.playout`)."""
        p, out, hb = self.cur, self.out, self.high_bidder
        tables = self.rules.event_tables(self.n)
        if a == PASS:
            out |= 1 << p
            self.out = out
            self.log.append(tables.passed[p])
            remaining = self.all_mask & ~out
            if not remaining:
                self._all_passed()
            elif hb >= 0 and remaining == 1 << hb:
                self._won(hb)
            else:
                self.cur = seat_tables(self.n)[out][p]
            return
        self.high = high = a - BID
        self.high_bidder = p
        self.log.append(tables.bid[p][high])
        if self.all_mask & ~out == 1 << p:
            self._won(p)
        else:
            self.cur = seat_tables(self.n)[out][p]

    def _all_passed(self) -> None:
        c = self.auc_card
        self.log.append((_ALL_PASSED, -1, c, (), ALL))
        if self.rules.all_pass_active_takes and not self.excluded >> self.active & 1:
            self._award(self.active)
            return
        self.log.append((_DISCARDED, -1, c, (), ALL))
        self.discard.append(c)
        self._next_auction_turn()

    def _won(self, w: int) -> None:
        bid = self.high
        log = self.log
        log.append((_WON, w, self.auc_card, bid, ALL))
        if self.auc_cur == CUR_GOLD:
            if self.rules.overpay_forbidden:
                rules = self.rules
                values = [rules.value[c] for c in self.hands[w] if rules.kind[c] == KIND_GOLD]
                can = bool(_sums(values) >> bid & 1)
            else:
                can = self.gold[w] >= bid
        else:
            can = len(self.hands[w]) >= bid
        if can:
            self.payer = w
            self.pay_sum = self.pay_n = 0
            self.pay_min = _NO_MIN
            self.ph = PH_PAYMENT
            self.cur = w
            return
        log.append(self.rules.event_tables(self.n).cannot_pay[w][bid])
        self._penalize(w)
        self._open_bidding()

    def _do_pay(self, a: int) -> None:
        w = self.payer
        if a == REFUSE:
            self.log.append((_REFUSED, w, -1, self.high, ALL))
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
            self.log.append((_PAID_GOLD, w, c, (), ALL))
            done = self.pay_sum >= self.high
        else:
            self.buried.append(c)
            self.log.append((_PAID_CARD, w, c, (), 1 << w))
            done = self.pay_n >= self.high
        if done:
            self.payer = -1
            self._award(w)

    def _award(self, w: int) -> None:
        c = self.auc_card
        self.log.append((_TOOK, w, c, (), ALL))
        if self.rules.is_church[c]:
            self.auc_card = -1
            self._resolve_church(w, c, _R_AUCTION)
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
            hands, log_append, rand = self.hands, self.log.append, self.rng.random
            card_kind, value, gold = rules.kind, rules.value, self.gold
            taken = rules.event_tables(self.n).taken[w]
            takers = _TAKERS[self.n][w]
            short = len(hand) < len(takers)
            if short:
                takers = takers[: len(hand)]
            for q in takers:
                c = hand.pop(floor(rand() * len(hand)))  # a random card (~180 draws per random game)
                if card_kind[c] == KIND_GOLD:
                    v = value[c]
                    gold[w] -= v
                    gold[q] += v
                hands[q].append(c)
                log_append(taken[q][c])
            if short:
                log_append((_PENALTY_EMPTY, w, -1, (), ALL))  # the hand ran out: the last players get nothing
        elif rules.penalty == PEN_BLUFF:
            if not hand:
                self.log.append((_PENALTY_EMPTY, w, -1, (), ALL))
                return
            d = (w + 1) % self.n
            c = self._take_random(w)
            self.buried.append(c)
            self.log.append((_PENALTY_REMOVED, d, c, w, bit | 1 << d))


def new_game(ruleset: Ruleset, players: int, seed: int, *, events: bool = True) -> GameState:
    """Start a game of ``ruleset`` (options already applied) for ``players`` players from ``seed``.

    Setup (removals, starting hands, the shuffle) happens at once from the game's RNG;
    seat 0 is the first player. The returned state waits for the first decision.
    ``events=False`` keeps no event log: the game plays the same and its record and result
    are the same, but observations, events and resampling are unavailable (for simulations
    of bots that need no observation: a finished 4-player game holds ~10 KiB less, and the
    random playout, which then builds no events, is about 10% faster).
    """
    if isinstance(players, bool) or not isinstance(players, int):
        raise ValueError(f"expected a number of players, got {players!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"expected an integer seed, got {seed!r}")
    state = GameState.__new__(GameState)
    state._setup(compile_rules(ruleset), players, seed, events)
    return state
