"""Worlds for search: full game states drawn from the engine's one model of hidden information.

:class:`~biblios_kit.engine.hidden.HiddenCards` deals the cards hidden from one player
consistently with their observation and with what the public events prove; :class:`Worlds`
adds the game state for each deal (:class:`ObservedWorld`), so that no module outside the
engine writes a state's fields. The bots' determinizations, hints and reviews use it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from biblios_kit.engine.compiled import CUR_GOLD, KIND_GOLD, CompiledRules
from biblios_kit.engine.core import (
    EV_PICKED,
    EV_REVEALED,
    NO_MIN,
    PH_CHURCH,
    PH_GIFT,
    PH_PICK,
    R_AUCTION,
    R_GIFT,
    R_PICK,
    R_START_GIFT,
)
from biblios_kit.engine.events import ALL, RawEvent
from biblios_kit.engine.hidden import (
    TRIES,
    Constraints,
    HiddenCards,
    InconsistentView,
    assign,
    identified_cards,
    pin,
    shuffle_fast,
)
from biblios_kit.engine.observation import Observation
from biblios_kit.engine.state import GameState, new_game

__all__ = [
    "TRIES",
    "Constraints",
    "HiddenCards",
    "InconsistentView",
    "ObservedWorld",
    "Worlds",
    "assign",
    "identified_cards",
    "pin",
]


class Worlds(HiddenCards):
    """Full game states consistent with ``obs``: a deal of :class:`HiddenCards` made a state
    at the observation's decision point (build once per decision, sample many times)."""

    def __init__(self, rules: CompiledRules, obs: Observation) -> None:
        super().__init__(rules, obs)
        self._world: ObservedWorld | None = None

    @property
    def world(self) -> ObservedWorld:
        """The builder of states at the observation's decision point (made on first use)."""
        if self._world is None:
            self._world = ObservedWorld(self.rules, self.obs)
        return self._world

    def sample(self, rng: random.Random) -> GameState:
        """A full state consistent with the observation, drawn from ``rng``."""
        zones = self.zones(rng)
        obs = self.obs
        seed = rng.getrandbits(64)
        pile = zones[self.PILE] + list(obs.my_auction_cards)
        shuffle_fast(pile, rng)
        kept = zones[self.KEPT][0] if zones[self.KEPT] else -1
        drawn = zones[self.DRAWN][0] if zones[self.DRAWN] else -1
        removed = [zones[z] for z in range(self.REMOVED, len(self.capacity))]
        # hand order never matters (penalties draw at random); the draw pile is already in random order
        buried = zones[self.BURIED] + zones[self.SHORT]
        return self.world.deal(zones[: obs.players], zones[self.DRAW], pile, buried, kept, removed, seed, drawn)


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
        drawn: int = -1,
    ) -> GameState:
        """A copy of the template completed with a deal of the hidden cards.

        ``hands[q]`` is rival ``q``'s hand (the observer's own entry is ignored), ``draw``
        and ``pile`` are the draw and auction piles (top last; ``pile`` includes the cards
        the observer put there), ``buried`` the face-down discards the observer did not
        make, ``kept`` and ``drawn`` the active rival's kept and drawn cards (-1 if none), ``removed`` the setup
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
        if drawn >= 0:
            s.drawn = drawn
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
                rules.n_cards
                - sum(c for c, _ in setup.named)
                - setup.remove_random
                - (setup.dealt_named + setup.starting_hand) * n
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
        setup = self.rules.setups[obs.players]
        named = setup.dealt_named  # our named starting cards were dealt openly, before the random ones
        dealt = setup.starting_hand
        log: list[RawEvent] = []
        for who, card in obs.acquired:
            if who == obs.player:
                if named > 0:
                    named -= 1
                elif dealt > 0:
                    dealt -= 1
                    continue
                if card in private:
                    private.discard(card)
                    continue
            log.append((EV_PICKED, who, card, (), ALL))
        log.extend((EV_REVEALED, -1, card, (), ALL) for card in obs.revealed)
        return log
