"""Determinizations for search: full game states consistent with one player's observation.

A bot only has its :class:`~biblios_kit.engine.Observation`, never the game state, so it
cannot call :meth:`GameState.resample` itself. :class:`Determinizer` does the same job
from the observation alone: every card whose place the player knows stays there (own
hand, public space, discards, the card under auction, the cards they put on the auction
pile or saw removed), and the hidden cards are dealt at random into the hidden zones
(other hands, draw pile, auction pile, setup removals, face-down discards, another
player's kept card) with the engine's own constrained assignment
(:func:`biblios_kit.engine.resample.assign`):

* zone sizes are the public counts;
* a card seen going into a rival's hand stays in that hand (or, if that rival has since
  discarded cards face down, in a hand or the face-down discards);
* setup removals of a named kind (e.g. two Gold of each value) only receive unseen cards
  of that kind; no card ever seen lands in a setup removal, the draw or auction pile.

The world is then a real :class:`~biblios_kit.engine.GameState` at the same decision
point, with its own RNG, an empty history and an empty log (it is never recorded).
"""

from __future__ import annotations

import random

from biblios_kit.bots.context import identified_cards
from biblios_kit.engine.compiled import CUR_GOLD, KIND_GOLD, CompiledRules
from biblios_kit.engine.events import ALL, EventKind
from biblios_kit.engine.observation import Observation
from biblios_kit.engine.resample import Constraints, assign
from biblios_kit.engine.state import PH_CHURCH, PH_GIFT, PH_PICK, GameState, new_game

# GameState.resume codes (what follows a church card's resolution), mirrored from the engine.
_R_START_GIFT, _R_GIFT, _R_PICK, _R_AUCTION = range(4)
_NO_MIN = 1 << 30


def _shuffle(items: list[int], rng: random.Random) -> None:
    """Fisher-Yates driven by ``rng.random()`` (about 3x faster than ``Random.shuffle``)."""
    r = rng.random
    for i in range(len(items) - 1, 0, -1):
        j = int(r() * (i + 1))
        items[i], items[j] = items[j], items[i]


class DeterminizationError(RuntimeError):
    """The observation's counts do not add up (a bug: the true deal always fits)."""


class Determinizer:
    """Deals random worlds consistent with ``obs`` (build once per decision, sample many times)."""

    def __init__(self, rules: CompiledRules, obs: Observation) -> None:
        self.rules = rules
        self.obs = obs
        n, me = obs.players, obs.player
        setup = rules.setups[n]
        known = self.known = identified_cards(obs)
        holder: dict[int, int] = {}
        for q, c in obs.acquired:
            if c not in known:
                holder[c] = q
        self.holder = holder
        """Hidden cards we saw go into a rival's hand."""
        self.DRAW, self.PILE, self.BURIED, self.KEPT = n, n + 1, n + 2, n + 3
        groups = len(setup.named) + 1
        self.REMOVED = n + 4
        capacity = [0] * (n + 4 + groups)
        for q in range(n):
            capacity[q] = 0 if q == me else obs.hand_sizes[q]
        capacity[self.DRAW] = obs.draw_pile
        capacity[self.PILE] = obs.auction_pile - len(obs.my_auction_cards)
        capacity[self.KEPT] = 1 if obs.kept_hidden else 0
        setup_removed = 0
        for i, (count, _matches) in enumerate(setup.named):
            capacity[self.REMOVED + i] = count
            setup_removed += count
        capacity[self.REMOVED + groups - 1] = setup.remove_random
        setup_removed += setup.remove_random
        capacity[self.BURIED] = obs.removed - setup_removed - len(obs.my_buried)
        self.capacity = capacity
        hidden = [c for c in range(rules.n_cards) if c not in known]
        if any(x < 0 for x in capacity) or len(hidden) != sum(capacity):
            raise DeterminizationError(
                f"{len(hidden)} hidden cards for zones of sizes {capacity} (player {me}, phase {obs.phase.name})"
            )
        self.hidden = hidden
        named_sets = [frozenset(matches) for _count, matches in setup.named]
        open_zones = [z for z in range(len(capacity)) if capacity[z] and z not in range(self.REMOVED, len(capacity))]
        lost_face_down = [obs.cards_paid[q] > 0 for q in range(n)]
        visible_count = [0] * n
        for q in holder.values():
            visible_count[q] += 1
        strict: list[list[int]] = []
        loose: list[list[int]] = []
        free: list[bool] = []
        """Whether each hidden card was never seen (it may go to any zone that takes its kind)."""
        hands_and_buried = [z for z in range(n) if capacity[z]] + ([self.BURIED] if capacity[self.BURIED] else [])
        for c in hidden:
            q = holder.get(c)
            free.append(q is None)
            if q is not None and q != me:
                if not lost_face_down[q] and visible_count[q] <= obs.hand_sizes[q]:
                    strict.append([q])
                else:
                    strict.append([q] + [z for z in hands_and_buried if z != q])
                loose.append(hands_and_buried[:])
            elif q is not None:  # seen going into our hand, since left it face down to a rival
                strict.append(hands_and_buried[:])
                loose.append(hands_and_buried[:])
            else:
                zones = open_zones[:]
                for i, matches in enumerate(named_sets):
                    if capacity[self.REMOVED + i] and c in matches:
                        zones.append(self.REMOVED + i)
                if capacity[self.REMOVED + groups - 1]:
                    zones.append(self.REMOVED + groups - 1)
                strict.append(zones)
                loose.append(zones)
        self._strict = Constraints(hidden, strict, capacity)
        self._named_sets = named_sets
        self._free = free
        self._loose = Constraints(hidden, loose, capacity)
        everything = [z for z in range(len(capacity)) if capacity[z]]
        self._any = Constraints(hidden, [everything[:] for _ in hidden], capacity)
        self.template = self._template()

    def _template(self) -> GameState:
        """A state with every known field set and the hidden zones left empty."""
        rules, obs = self.rules, self.obs
        n, me = obs.players, obs.player
        setup = rules.setups[n]
        # Start from a fresh game so that every engine field exists (and any the engine adds
        # later gets its initial value), then overwrite what the observation tells.
        s = new_game(rules.ruleset, n, 0)
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
        s.to_draw = (
            owed - 1
            if s.ph == PH_GIFT
            else (owed if obs.church is not None and obs.church[0] == obs.active_player and not obs.revealed else 0)
        )
        s.picker = s.cur if s.ph == PH_PICK else (obs.church[0] + 1) % n if obs.church is not None else 0
        s.picks_left = (obs.active_player - s.picker) % n if s.ph in (PH_PICK, PH_CHURCH) else 0
        s.church_q = [obs.church] if obs.church is not None else []
        s.resume = _R_GIFT
        if obs.church is not None:
            initial_draw = (
                rules.n_cards - sum(c for c, _ in setup.named) - setup.remove_random - setup.starting_hand * n
            )
            if obs.revealed:
                s.resume = _R_AUCTION
            elif obs.draw_pile == initial_draw and not obs.public and obs.owed == (0, 0, 0):
                s.resume = _R_START_GIFT
            elif obs.church[0] == obs.active_player:
                s.resume = _R_GIFT
            else:
                s.resume = _R_PICK
        if s.resume != _R_PICK:
            s.picks_left = 0 if s.ph != PH_PICK else s.picks_left
        auction = obs.auction
        s.auc_card = -1 if auction is None else auction.card
        s.auc_cur = CUR_GOLD if auction is None else rules.currency[auction.card]
        s.high = 0 if auction is None else auction.high_bid
        s.high_bidder = -1 if auction is None or auction.high_bidder is None else auction.high_bidder
        mask = 0
        excluded = 0
        if auction is not None:
            for q in auction.out:
                mask |= 1 << q
            for q in auction.excluded:
                excluded |= 1 << q
        s.out = mask
        s.excluded = excluded
        s.pen_once = excluded
        payment = obs.payment
        s.payer = -1 if payment is None else payment.payer
        s.pay_sum = 0 if payment is None else sum(rules.value[c] for c in payment.paid_gold)
        s.pay_min = min((rules.value[c] for c in payment.paid_gold), default=_NO_MIN) if payment else _NO_MIN
        s.pay_n = 0 if payment is None else payment.paid_count
        s.log = self._public_log()
        s.history = []
        s.all_mask = (1 << n) - 1
        s.gift_cards = setup.gift_cards
        s.short_discard = setup.short_discard
        s.resampled_for = me
        return s

    def _public_log(self) -> list[tuple[int, int, int, tuple[int, ...], int]]:
        """The public part of the history, so that a rival deciding in a world remembers it.

        A world is dealt without history, yet what the other players know shapes their
        decisions (medium values Gold by the phase and reads every card it saw going into a
        hand). Every player saw the cards that went into hands openly (picked from the public
        space or won at auction) and the cards revealed for auction; the cards this player
        kept or was dealt face down stay out.
        """
        obs = self.obs
        private = set(obs.my_kept)  # each entered our hand face down once (it may come back openly later)
        dealt = self.rules.setups[obs.players].starting_hand
        log: list[tuple[int, int, int, tuple[int, ...], int]] = []
        for who, card in obs.acquired:
            if who == obs.player:
                if dealt > 0:
                    dealt -= 1
                    continue
                if card in private:
                    private.discard(card)
                    continue
            log.append((int(EventKind.PICKED), who, card, (), ALL))
        log.extend((int(EventKind.REVEALED), -1, card, (), ALL) for card in obs.revealed)
        return log

    def _fast_zones(self, rng: random.Random) -> list[list[int]] | None:
        """The common case in a few list operations: cards with restricted zones first, then the rest.

        Each restricted card goes to a random one of its zones with room left; the free cards
        (never seen: any zone) are shuffled into what is left, the named setup removals first
        from the cards of their kind. Returns None when this greedy deal gets stuck (the
        caller falls back to the engine's augmenting-path assignment). ~5x faster than it.
        """
        cons = self._strict
        room = cons.capacity[:]
        zones: list[list[int]] = [[] for _ in room]
        free: list[int] = []
        for c, options, is_free in zip(cons.cards, cons.candidates, self._free):
            if is_free:
                free.append(c)
                continue
            open_ = [z for z in options if room[z]]
            if not open_:
                return None
            z = open_[int(rng.random() * len(open_))] if len(open_) > 1 else open_[0]
            zones[z].append(c)
            room[z] -= 1
        _shuffle(free, rng)
        for i, matches in enumerate(self._named_sets):
            z = self.REMOVED + i
            need = room[z]
            if not need:
                continue
            picked = [c for c in free if c in matches][:need]
            if len(picked) < need:
                return None
            chosen = set(picked)
            free = [c for c in free if c not in chosen]
            zones[z].extend(picked)
            room[z] = 0
        start = 0
        for z, r in enumerate(room):
            if r:
                zones[z].extend(free[start : start + r])
                start += r
        return zones if start == len(free) else None

    def zones(self, rng: random.Random) -> list[list[int]]:
        """A random deal of the hidden cards: one list per zone (see the module docstring)."""
        fast = self._fast_zones(rng)
        if fast is not None:
            return fast
        for cons in (self._strict, self._loose, self._any):
            zones = assign(cons, rng)
            if zones is not None:
                for zone in zones:
                    _shuffle(zone, rng)
                return zones
        raise DeterminizationError("no deal fits the observation's zone sizes")

    def sample(self, rng: random.Random) -> GameState:
        """A full state consistent with the observation, drawn from ``rng``."""
        zones = self.zones(rng)
        rules, obs = self.rules, self.obs
        kind, value = rules.kind, rules.value
        s = self.template.clone()
        s.rng = random.Random(rng.getrandbits(64))
        for q in range(obs.players):
            if q != obs.player:
                s.hands[q] = zones[q]  # hand order never matters: penalties draw at random
        s.gold = [sum(value[c] for c in h if kind[c] == KIND_GOLD) for h in s.hands]
        s.draw = zones[self.DRAW]  # already in random order
        pile = zones[self.PILE] + list(obs.my_auction_cards)
        _shuffle(pile, rng)
        s.pile = pile
        s.buried = list(obs.my_buried) + zones[self.BURIED]
        if zones[self.KEPT]:
            s.kept = zones[self.KEPT][0]
        s.removed = [zones[z] for z in range(self.REMOVED, len(self.capacity))]
        return s
