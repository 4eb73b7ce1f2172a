"""Re-deal what one player cannot know, keeping everything they do know (for search bots).

From a player's point of view the hidden zones are the other hands, the draw pile, the
auction pile, the cards removed at setup (one group per named removal, then the random
ones), the cards removed face down during play, and another active player's drawn and
kept cards. Their sizes are public. Walking the event log once, we track for each zone
the set of cards that may be in it (a bitmask): a card the player sees lands in exactly
one zone; a move they do not see (a face-down placement, a random penalty draw between
two others, a face-down payment) lets every card that may have been in the source be in
the destination. A random assignment of the hidden cards to zones that respects these
sets and the zone sizes is then found (randomised greedy with augmenting paths, which
always succeeds since the true deal is one such assignment).

The result respects every placement the player knows, every count, and every card seen
revealed, paid or discarded. It over-approximates the history (it does not, for
example, remember that a penalized player could not pay a bid), which search tolerates.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import NamedTuple

from biblios_kit.engine.compiled import CUR_GOLD, KIND_GOLD, CompiledRules
from biblios_kit.engine.core import (
    NO_MIN,
    PH_CHURCH,
    PH_GIFT,
    PH_PAYMENT,
    PH_PICK,
    R_AUCTION,
    R_GIFT,
    R_PICK,
    R_START_GIFT,
)
from biblios_kit.engine.events import ALL, EventKind, RawEvent, visible
from biblios_kit.engine.observation import Observation
from biblios_kit.engine.state import GameState, new_game

E = EventKind
# Event kinds as plain ints (an IntEnum attribute lookup is ~15 times slower, per event).
_DEALT = int(E.DEALT)
_DREW = int(E.DREW)
_KEPT = int(E.KEPT)
_PAID_CARD = int(E.PAID_CARD)
_PENALTY_REMOVED = int(E.PENALTY_REMOVED)
_PENALTY_TAKEN = int(E.PENALTY_TAKEN)
_PICKED = int(E.PICKED)
_REVEALED = int(E.REVEALED)
_SHORT_DRAW_DISCARDED = int(E.SHORT_DRAW_DISCARDED)
_TOOK = int(E.TOOK)
_TOOK_KEPT = int(E.TOOK_KEPT)
_TO_AUCTION_PILE = int(E.TO_AUCTION_PILE)


class Constraints:
    """Hidden cards of one player's view, with the zones each may be in and each zone's size."""

    __slots__ = ("candidates", "capacity", "cards")

    def __init__(self, cards: list[int], candidates: list[list[int]], capacity: list[int]) -> None:
        self.cards = cards
        """The hidden cards."""
        self.candidates = candidates
        """For each hidden card, the zones it may be in."""
        self.capacity = capacity
        """Size of each zone."""


def _zone_ids(n: int, groups: int) -> tuple[int, int, int, int, int, int, int]:
    """Zone numbering: hands 0..n-1, then draw, pile, buried, kept, drawn, visible, removed groups."""
    return n, n + 1, n + 2, n + 3, n + 4, n + 5, n + 6


def constraints(state: GameState, player: int) -> Constraints:
    """Compute (once per state and player) which hidden card may be in which hidden zone."""
    n = state.n
    rules = state.rules
    groups = len(state.removed)
    DRAW, PILE, BURIED, KEPT, DRAWN, VISIBLE, REMOVED = _zone_ids(n, groups)
    n_zones = REMOVED + groups
    may = [0] * n_zones
    setup = rules.setups[n]
    everything = (1 << rules.n_cards) - 1
    may[DRAW] = everything
    may[REMOVED + groups - 1] = everything if setup.remove_random else 0
    for i, (_count, matches) in enumerate(setup.named):
        for c in matches:
            may[REMOVED + i] |= 1 << c
    if setup.starting_hand:
        for q in range(n):
            may[q] = everything

    def seen(c: int, zone: int) -> None:
        mask = ~(1 << c)
        for z in range(n_zones):
            may[z] &= mask
        may[zone] |= 1 << c

    for raw in state.log:
        kind, who, card = raw[0], raw[1], raw[2]
        shown = card >= 0 and visible(raw, player)
        if kind == _DEALT:
            if shown:
                seen(card, who)
        elif kind == _DREW:
            if shown:
                seen(card, DRAWN)
            else:
                may[DRAWN] |= may[DRAW]
        elif kind == _KEPT:
            if shown:
                seen(card, VISIBLE if rules.is_church[card] else KEPT)
            else:
                may[KEPT] |= may[DRAWN]
        elif kind == _TO_AUCTION_PILE:
            if shown:
                seen(card, PILE)
            else:
                may[PILE] |= may[DRAWN]
        elif kind == _TOOK_KEPT:
            if shown:
                seen(card, who)
            else:
                may[who] |= may[KEPT]
        elif kind in (_PICKED, _TOOK):
            seen(card, VISIBLE if rules.is_church[card] else who)
        elif kind == _SHORT_DRAW_DISCARDED:
            may[BURIED] |= may[DRAW]
        elif kind == _PAID_CARD:
            if shown:
                seen(card, BURIED)
            else:
                may[BURIED] |= may[who]
        elif kind == _PENALTY_TAKEN:
            if shown:
                seen(card, who)
            else:
                may[who] |= may[raw[3]]  # type: ignore[index]
        elif kind == _PENALTY_REMOVED:
            if shown:
                seen(card, BURIED)
            else:
                may[BURIED] |= may[raw[3]]  # type: ignore[index]
        elif card >= 0 and kind in _PUBLIC_KINDS:  # an IntEnum set: ints hash and compare equal
            seen(card, VISIBLE)

    # A church card never stays in a hand nor waits as a kept card (it is resolved at once).
    no_church = ~sum(1 << c for c in range(rules.n_cards) if rules.is_church[c])
    for z in (*range(n), KEPT):
        may[z] &= no_church

    # The hidden zones as they are now (their true contents give the cards and the sizes).
    content: list[list[int]] = [[] for _ in range(n_zones)]
    for q in range(n):
        if q != player:
            content[q] = state.hands[q]
    content[DRAW] = state.draw
    content[PILE] = state.pile
    content[BURIED] = state.buried
    if state.active != player:
        if state.kept >= 0:
            content[KEPT] = [state.kept]
        if state.drawn >= 0:
            content[DRAWN] = [state.drawn]
    for i, group in enumerate(state.removed):
        content[REMOVED + i] = group
    cards: list[int] = []
    candidates: list[list[int]] = []
    capacity = [len(z) for z in content]
    for zone_cards in content:
        for c in zone_cards:
            cards.append(c)
            candidates.append([z for z in range(n_zones) if capacity[z] and may[z] >> c & 1])
    return Constraints(cards, candidates, capacity)


_PUBLIC_KINDS = frozenset(
    {
        E.TO_PUBLIC,
        E.CHURCH_USED,
        E.CHURCH_DECLINED,
        E.PUBLIC_DISCARDED,
        E.REVEALED,
        E.WON,
        E.ALL_PASSED,
        E.NO_BIDDERS,
        E.PAID_GOLD,
        E.DISCARDED,
    }
)


def assign(cons: Constraints, rng: random.Random) -> list[list[int]] | None:
    """A random assignment of the hidden cards to zones filling every zone exactly (None if impossible)."""
    capacity = cons.capacity
    members: list[list[int]] = [[] for _ in capacity]
    where: dict[int, int] = {}
    order = list(range(len(cons.cards)))
    rng.shuffle(order)
    order.sort(key=lambda i: len(cons.candidates[i]))
    cands = cons.candidates

    def place(i: int, visited: set[int]) -> bool:
        options = cands[i][:]
        rng.shuffle(options)
        for z in options:
            if len(members[z]) < capacity[z]:
                members[z].append(i)
                where[i] = z
                return True
        for z in options:
            if z in visited:
                continue
            visited.add(z)
            for j in members[z]:
                if place(j, visited):
                    members[z].remove(j)
                    members[z].append(i)
                    where[i] = z
                    return True
        return False

    for i in order:
        if not place(i, set()):
            return None
    return [[cons.cards[i] for i in zone] for zone in members]


class _Resampling(NamedTuple):
    """What :func:`resample` derives once per (state, player) and keeps in the state's cache."""

    constraints: Constraints
    redacted: list[RawEvent]


def pin(cons: Constraints, zone: int, cards: list[int]) -> Constraints:
    """A copy of ``cons`` where ``cards`` must be in ``zone`` and no other card may be."""
    fixed = set(cards)
    candidates = [
        [zone] if c in fixed else [z for z in options if z != zone] for c, options in zip(cons.cards, cons.candidates)
    ]
    return Constraints(cons.cards, candidates, cons.capacity)


def resample(state: GameState, player: int, rng: random.Random) -> GameState:
    """A full state consistent with ``player``'s knowledge of ``state`` (see the module docstring)."""
    key = (player, len(state.log))
    cached = state.cache.get(key) if state.cache is not None else None
    if not isinstance(cached, _Resampling):
        redacted = [
            raw if raw[2] < 0 or visible(raw, player) else (raw[0], raw[1], -1, raw[3], raw[4]) for raw in state.log
        ]
        cached = _Resampling(constraints(state, player), redacted)
        if state.cache is None:
            state.cache = {}
        state.cache[key] = cached  # search resamples the same state many times
    cons, redacted = cached.constraints, cached.redacted
    n = state.n
    groups = len(state.removed)
    DRAW, PILE, BURIED, KEPT, DRAWN, _VISIBLE, REMOVED = _zone_ids(n, groups)
    rules = state.rules
    kind, value = rules.kind, rules.value
    world = state.clone()
    paying = state.ph == PH_PAYMENT and state.payer != player and state.auc_cur == CUR_GOLD
    zones: list[list[int]] | None = None
    for attempt in range(41):
        if attempt == 40:
            # Forty deals left the payer unable to pay what they are paying: keep their true
            # hand (what everyone saw implies they can pay; this is very rare).
            cons = pin(cons, state.payer, state.hands[state.payer])
        zones = assign(cons, rng)
        if zones is None:  # cannot happen: the true deal satisfies the constraints
            raise RuntimeError("no deal is consistent with the player's view")
        for q in range(n):
            if q != player:
                hand = zones[q][:]
                rng.shuffle(hand)
                world.hands[q] = hand
                world.gold[q] = sum(value[c] for c in hand if kind[c] == KIND_GOLD)
        if not paying or world.legal():
            break
    assert zones is not None
    for zone_id, target in ((DRAW, "draw"), (PILE, "pile"), (BURIED, "buried")):
        cards = zones[zone_id][:]
        rng.shuffle(cards)
        setattr(world, target, cards)
    if state.active != player:
        if state.kept >= 0:
            world.kept = zones[KEPT][0]
        if state.drawn >= 0:
            world.drawn = zones[DRAWN][0]
    world.removed = [zones[REMOVED + i][:] for i in range(groups)]
    world.rng = random.Random(rng.getrandbits(64))
    world.log = redacted[:]
    world.history = []
    world.resampled_for = player
    return world


class ObservedWorld:
    """Full game states at the decision point of one observation, for a search that has only that view.

    The state's fields that the observation tells (own hand, public space, dice, discards,
    the auction and payment in progress, whose decision it is and what follows it) are set
    once, from the observation alone; :meth:`deal` then completes a copy with one
    assignment of the hidden cards. This is the engine's side of determinization: a bot
    decides *which* hidden cards go where (``biblios_kit.bots.determinize``), the engine
    builds the state, so nothing outside the engine writes a state's fields.

    The world's log holds the public part of the history (cards that went into hands
    openly and cards revealed for auction), so a rival modelled inside the world remembers
    what every player saw; its history is empty and it is never recorded.
    """

    def __init__(self, rules: CompiledRules, obs: Observation) -> None:
        self.rules = rules
        self.obs = obs
        self.template = self._template()
        """The state with every known field set and the hidden zones left empty."""

    def deal(
        self,
        hands: Sequence[list[int]],
        draw: list[int],
        pile: list[int],
        buried: list[int],
        kept: int,
        removed: list[list[int]],
        seed: int,
    ) -> GameState:
        """A copy of the template completed with a deal of the hidden cards.

        ``hands[q]`` is rival ``q``'s hand (the observer's own entry is ignored), ``draw``
        and ``pile`` are the draw and auction piles (top last; ``pile`` includes the cards
        the observer put there), ``buried`` the face-down discards the observer did not
        make, ``kept`` the active rival's kept card (-1 if none), ``removed`` the setup
        removals (one list per named removal, then the random ones). The world's chance
        comes from ``random.Random(seed)``. The lists are taken over, not copied.
        """
        obs = self.obs
        rules = self.rules
        kind, value = rules.kind, rules.value
        s = self.template.clone()
        s.rng = random.Random(seed)
        for q in range(obs.players):
            if q != obs.player:
                s.hands[q] = hands[q]
        s.gold = [sum(value[c] for c in h if kind[c] == KIND_GOLD) for h in s.hands]
        s.draw = draw
        s.pile = pile
        s.buried = list(obs.my_buried) + buried
        if kept >= 0:
            s.kept = kept
        s.removed = removed
        return s

    def _template(self) -> GameState:
        rules, obs = self.rules, self.obs
        n, me = obs.players, obs.player
        setup = rules.setups[n]
        # Start from a fresh game so that every field exists with its initial value, then
        # overwrite what the observation tells.
        s = new_game(rules.ruleset, n, 0, events=True)
        s.ph = int(obs.phase)
        s.cur = -1 if obs.current_player is None else obs.current_player
        s.hands = [[] for _ in range(n)]
        s.hands[me] = list(obs.hand)
        s.gold = [0] * n
        s.draw = []
        s.public = list(obs.public)
        s.pile = []
        s.removed = []
        s.discard = list(obs.discard)
        s.buried = []
        s.dice = list(obs.dice)
        s.first = 0
        s.active = obs.active_player
        s.drawn = -1 if obs.drawn is None else obs.drawn
        s.kept = -1 if obs.kept is None else obs.kept
        s.q_keep, s.q_auction, s.q_public = obs.owed
        owed = sum(obs.owed)
        church = obs.church
        if s.ph == PH_GIFT:
            s.to_draw = owed - 1
        elif church is not None and church[0] == obs.active_player and not obs.revealed:
            s.to_draw = owed
        else:
            s.to_draw = 0
        if s.ph == PH_PICK:
            s.picker = s.cur
        elif church is not None:
            s.picker = (church[0] + 1) % n
        else:
            s.picker = 0
        s.picks_left = (obs.active_player - s.picker) % n if s.ph in (PH_PICK, PH_CHURCH) else 0
        s.church_q = [church] if church is not None else []
        s.resume = R_GIFT
        if church is not None:
            initial_draw = (
                rules.n_cards - sum(c for c, _ in setup.named) - setup.remove_random - setup.starting_hand * n
            )
            if obs.revealed:
                s.resume = R_AUCTION
            elif obs.draw_pile == initial_draw and not obs.public and obs.owed == (0, 0, 0):
                s.resume = R_START_GIFT
            elif church[0] == obs.active_player:
                s.resume = R_GIFT
            else:
                s.resume = R_PICK
        if s.resume != R_PICK and s.ph != PH_PICK:
            s.picks_left = 0
        auction = obs.auction
        s.auc_card = -1 if auction is None else auction.card
        s.auc_cur = CUR_GOLD if auction is None else rules.currency[auction.card]
        s.high = 0 if auction is None else auction.high_bid
        s.high_bidder = -1 if auction is None or auction.high_bidder is None else auction.high_bidder
        out = 0
        excluded = 0
        if auction is not None:
            for q in auction.out:
                out |= 1 << q
            for q in auction.excluded:
                excluded |= 1 << q
        s.out = out
        s.excluded = excluded
        s.pen_once = excluded
        payment = obs.payment
        s.payer = -1 if payment is None else payment.payer
        s.pay_sum = 0 if payment is None else sum(rules.value[c] for c in payment.paid_gold)
        s.pay_min = min((rules.value[c] for c in payment.paid_gold), default=NO_MIN) if payment else NO_MIN
        s.pay_n = 0 if payment is None else payment.paid_count
        s.log = self._public_log()
        s.history = []
        s.resampled_for = me
        return s

    def _public_log(self) -> list[RawEvent]:
        """The public part of the history, so that a rival deciding in a world remembers it.

        Every player saw the cards that went into hands openly (picked from the public space
        or won at auction) and the cards revealed for auction; the cards this player kept or
        was dealt face down stay out.
        """
        obs = self.obs
        private = set(obs.my_kept)  # each entered our hand face down once (it may come back openly later)
        dealt = self.rules.setups[obs.players].starting_hand
        log: list[RawEvent] = []
        for who, card in obs.acquired:
            if who == obs.player:
                if dealt > 0:
                    dealt -= 1
                    continue
                if card in private:
                    private.discard(card)
                    continue
            log.append((_PICKED, who, card, (), ALL))
        log.extend((_REVEALED, -1, card, (), ALL) for card in obs.revealed)
        return log
