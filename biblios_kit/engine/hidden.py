"""The engine's one model of hidden information: deals of the hidden cards consistent with one player's observation.

A player (a bot, a hint, a review, :meth:`GameState.resample`) has only an
:class:`~biblios_kit.engine.observation.Observation`. :class:`HiddenCards` deals the cards hidden
from it into the hidden zones (other hands, the draw pile, the auction pile, the setup
removals, the face-down discards, another active player's drawn or kept card), keeping
everything the observation and the public events prove:

* every card whose place the player knows stays there (own hand, public space, discards,
  the card under auction, the cards they put on the auction pile or saw removed);
* zone sizes are the public counts;
* a card seen going into a rival's hand stays in that hand (or, if that rival has since
  discarded cards face down, in a hand or the face-down discards); named starting cards are
  dealt openly, so they stay with their owner in the same way;
* setup removals of a named kind (e.g. two Gold of each value) only receive unseen cards
  of that kind; no card ever seen lands in a setup removal, the draw or auction pile;
* a church card never lands in a hand or as a kept card (it is resolved as soon as it is
  acquired), nor among the face-down discards, except those of a short draw pile discarded
  unseen at the end of the gift phase (the only cards there that did not leave a hand);
* a rival paying a Gold bid holds Gold that can finish the payment (the engine let them pay);
* a rival who won a Gold auction and could not pay holds no Gold that could have paid it, among
  the cards of their hand that were there then (``Observation.unpaid``).

Every deal consistent with all of that is equally likely: a fast greedy deal is mixed by random swaps
where its own odds could stray (:meth:`HiddenCards._mixed`).

This is the only model: :class:`~biblios_kit.engine.worlds.Worlds` (the bots' determinizations,
hints and reviews) builds game states from its deals, and
:func:`biblios_kit.engine.resample.resample` fills a copy of the true state with them. It
imports no game state, so the state can call it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from biblios_kit.engine.compiled import CUR_GOLD, KIND_GOLD, CompiledRules
from biblios_kit.engine.core import PH_GIFT, subset_sums
from biblios_kit.engine.observation import Observation

__all__ = [
    "MIX_SWEEPS",
    "REPAIR_SWEEPS",
    "TRIES",
    "Constraints",
    "HiddenCards",
    "InconsistentView",
    "assign",
    "identified_cards",
    "pin",
    "shuffle_fast",
]

TRIES = 40
"""Deals tried for one that keeps what the payments prove (see :meth:`HiddenCards.zones`)."""

MIX_SWEEPS = 4
"""Swaps tried per hidden card when a deal is mixed (:meth:`HiddenCards._mixed`)."""

REPAIR_SWEEPS = 50
"""Swaps tried per hidden card to bring a deal to keep the payments' proofs (:meth:`HiddenCards._repaired`)."""


class InconsistentView(RuntimeError):
    """The observation's counts do not add up (a bug: the true deal always fits)."""


def shuffle_fast(items: list[int], rng: random.Random) -> None:
    """Fisher-Yates driven by ``rng.random()`` (about 3x faster than ``Random.shuffle``)."""
    r = rng.random
    for i in range(len(items) - 1, 0, -1):
        j = int(r() * (i + 1))
        items[i], items[j] = items[j], items[i]


def identified_cards(obs: Observation) -> frozenset[int]:
    """Cards whose place this player knows exactly now: own hand, public space, face-up
    discards, own unrevealed auction-pile cards and face-down losses, the card in hand to
    place or kept this turn, the card under auction and the church card being resolved."""
    known = set(obs.hand)
    known.update(obs.public)
    known.update(obs.discard)
    known.update(obs.my_auction_cards)
    known.update(obs.my_buried)
    if obs.drawn is not None:
        known.add(obs.drawn)
    if obs.kept is not None:
        known.add(obs.kept)
    if obs.auction is not None:
        known.add(obs.auction.card)
    if obs.church is not None:
        known.add(obs.church[1])
    return frozenset(known)


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


def assign(cons: Constraints, rng: random.Random) -> list[list[int]] | None:
    """A random assignment of the hidden cards to zones filling every zone exactly (None if impossible).

    Randomised greedy with augmenting paths: it always succeeds when an assignment exists.
    """
    capacity = cons.capacity
    members: list[list[int]] = [[] for _ in capacity]
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
                return True
        for z in options:
            if z in visited:
                continue
            visited.add(z)
            for j in members[z]:
                if place(j, visited):
                    members[z].remove(j)
                    members[z].append(i)
                    return True
        return False

    for i in order:
        if not place(i, set()):
            return None
    return [[cons.cards[i] for i in zone] for zone in members]


def pin(cons: Constraints, zone: int, cards: Sequence[int]) -> Constraints:
    """A copy of ``cons`` where ``cards`` must be in ``zone`` and no other card may be."""
    fixed = set(cards)
    candidates = [
        [zone] if c in fixed else [z for z in options if z != zone] for c, options in zip(cons.cards, cons.candidates)
    ]
    return Constraints(cons.cards, candidates, cons.capacity)


def _paying(items: list[int], values: list[int], owed: int, exact: bool) -> list[int] | None:
    """Some of ``items`` whose ``values`` pay ``owed``: at least (the first ones in order), or exactly
    (a subset found by dynamic programming, early items first); None when none does."""
    if not exact:
        chosen: list[int] = []
        total = 0
        for item, value in zip(items, values):
            if total >= owed:
                break
            chosen.append(item)
            total += value
        return chosen if total >= owed else None
    reach: dict[int, list[int]] = {0: []}
    for item, value in zip(items, values):
        for total, picked in list(reach.items()):
            if total + value <= owed and total + value not in reach:
                reach[total + value] = [*picked, item]
        if owed in reach:
            return reach[owed]
    return reach.get(owed)


class HiddenCards:
    """Deals of the hidden cards consistent with ``obs`` (build once per decision, deal many times).

    Zones are numbered: the hands ``0 .. n-1`` (the observer's own is empty), then
    :attr:`DRAW`, :attr:`PILE`, :attr:`BURIED` (face-down discards the observer did not
    see), :attr:`KEPT` (another active player's kept card), :attr:`SHORT` (a short draw
    pile discarded unseen), :attr:`DRAWN` (another active player's drawn card) and one zone
    per setup removal from :attr:`REMOVED` on (one per named removal, then the random ones).
    """

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
        self.DRAW, self.PILE, self.BURIED, self.KEPT, self.SHORT, self.DRAWN = n, n + 1, n + 2, n + 3, n + 4, n + 5
        groups = len(setup.named) + 1
        self.REMOVED = n + 6
        capacity = [0] * (self.REMOVED + groups)
        for q in range(n):
            capacity[q] = 0 if q == me else obs.hand_sizes[q]
        capacity[self.DRAW] = obs.draw_pile
        capacity[self.PILE] = obs.auction_pile - len(obs.my_auction_cards)
        capacity[self.KEPT] = 1 if obs.kept_hidden else 0
        # Another player placing the card they drew: it is out of the draw pile, unseen.
        capacity[self.DRAWN] = 1 if int(obs.phase) == PH_GIFT and obs.drawn is None else 0
        setup_removed = 0
        for i, (count, _matches) in enumerate(setup.named):
            capacity[self.REMOVED + i] = count
            setup_removed += count
        capacity[self.REMOVED + groups - 1] = setup.remove_random
        setup_removed += setup.remove_random
        short = 0
        if setup.short_discard and obs.draw_pile == 0 and capacity[self.DRAWN] == 0:
            dealt = (setup.dealt_named + setup.starting_hand) * n
            short = (rules.n_cards - setup_removed - dealt) % setup.gift_cards
        capacity[self.SHORT] = short
        capacity[self.BURIED] = obs.removed - setup_removed - len(obs.my_buried) - short
        self.capacity = capacity
        hidden = [c for c in range(rules.n_cards) if c not in known]
        if any(x < 0 for x in capacity) or len(hidden) != sum(capacity):
            raise InconsistentView(
                f"{len(hidden)} hidden cards for zones of sizes {capacity} (player {me}, phase {obs.phase.name})"
            )
        self.hidden = hidden
        named_sets = [frozenset(matches) for _count, matches in setup.named]
        removals = range(self.REMOVED, len(capacity))
        open_zones = [z for z in range(len(capacity)) if capacity[z] and z not in removals]
        left_unseen = [obs.cards_paid[q] > 0 or obs.cards_lost[q] > 0 for q in range(n)]
        visible_count = [0] * n
        for q in holder.values():
            visible_count[q] += 1
        is_church = rules.is_church
        # Where a church card can be without anyone seeing it: never in a hand, a kept card, nor
        # among the cards discarded face down from hands.
        no_church = set(range(n)) | {self.KEPT, self.BURIED}
        strict: list[list[int]] = []
        loose: list[list[int]] = []
        free: list[bool] = []
        """Whether each hidden card was never seen and is no church card (it may go to any zone taking its kind)."""
        hands_and_buried = [z for z in range(n) if capacity[z]] + ([self.BURIED] if capacity[self.BURIED] else [])
        for c in hidden:
            seen_by = holder.get(c)
            free.append(seen_by is None and not is_church[c])
            if seen_by is not None and seen_by != me:
                if not left_unseen[seen_by] and visible_count[seen_by] <= obs.hand_sizes[seen_by]:
                    strict.append([seen_by])
                else:
                    strict.append([seen_by] + [z for z in hands_and_buried if z != seen_by])
                loose.append(hands_and_buried[:])
            elif seen_by is not None:  # seen going into our hand, since left it face down to a rival
                strict.append(hands_and_buried[:])
                loose.append(hands_and_buried[:])
            else:
                zones = open_zones[:]
                for i, matches in enumerate(named_sets):
                    if capacity[self.REMOVED + i] and c in matches:
                        zones.append(self.REMOVED + i)
                if capacity[self.REMOVED + groups - 1]:
                    zones.append(self.REMOVED + groups - 1)
                if is_church[c]:
                    zones = [z for z in zones if z not in no_church]
                strict.append(zones)
                loose.append(zones)
        self.strict = Constraints(hidden, strict, capacity)
        """What the view proves about each hidden card (the loosest fallbacks drop the memory of hands)."""
        self._named_sets = named_sets
        self._free = free
        self._loose = Constraints(hidden, loose, capacity)
        everything = [z for z in range(len(capacity)) if capacity[z]]
        churchless = [z for z in everything if z not in no_church]
        self.any_zone = Constraints(hidden, [(churchless if is_church[c] else everything)[:] for c in hidden], capacity)
        """The loosest: every hidden card in any zone of the right size that may hold its kind."""
        payment = obs.payment
        self.payer = payment.payer if payment is not None and payment.payer != me and payment.currency == "gold" else -1
        """The rival paying a Gold bid now (their hand must be able to finish the payment), or -1."""
        self.unpaid = tuple(
            (who, bid, frozenset(entered))
            for who, card, bid, entered in obs.unpaid
            if who != me and rules.currency[card] == CUR_GOLD
        )
        """(rival, bid, cards that entered their hand since) of each rival who could not pay a Gold bid."""
        self._options = [frozenset(options) for options in strict]
        self._loose_options = [frozenset(options) for options in loose]
        self._needs_mixing = (
            self.payer >= 0
            or bool(self.unpaid)
            or any(not f and not is_church[c] and len(o) > 1 for c, f, o in zip(hidden, free, strict))
        )
        """Whether a greedy deal's odds can stray from the view's (:meth:`_mixed`): a card seen going into a hand
        that may have left it, or a payment's proof to keep. Otherwise the greedy deal has the exact odds."""

    def _fast_zones(self, rng: random.Random) -> list[list[int]] | None:
        """The common case in a few list operations: cards with restricted zones first, then the rest.

        Each restricted card goes to a random one of its zones with room left (a never-seen
        church card to a random place left in its zones, so larger zones are likelier); the free cards
        (never seen: any zone) are shuffled, the named setup removals take the first cards of their
        kind, and the rest, shuffled again, fill what is left. Returns None when this greedy deal gets stuck (the
        caller falls back to the augmenting-path assignment). ~5x faster than it.
        """
        cons = self.strict
        is_church = self.rules.is_church
        room = cons.capacity[:]
        zones: list[list[int]] = [[] for _ in room]
        free: list[int] = []
        for c, options, is_free in zip(cons.cards, cons.candidates, self._free):
            if is_free:
                free.append(c)
                continue
            if is_church[c]:  # never seen: a random free place among the zones that can hold it
                slot = int(rng.random() * sum(room[z] for z in options))
                for z in options:
                    if slot < room[z]:
                        break
                    slot -= room[z]
                else:
                    return None
            else:
                open_ = [z for z in options if room[z]]
                if not open_:
                    return None
                z = open_[int(rng.random() * len(open_))] if len(open_) > 1 else open_[0]
            zones[z].append(c)
            room[z] -= 1
        shuffle_fast(free, rng)
        named = False
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
            named = True
        if named:
            # The cards of a named kind left over sit late in the list (the first ones were taken):
            # shuffle again, or they would land more often in the last zones filled.
            shuffle_fast(free, rng)
        start = 0
        for z, r in enumerate(room):
            if r:
                zones[z].extend(free[start : start + r])
                start += r
        if start != len(free):
            return None
        # The cards placed first (unseen church cards) sit at the start of their zone: the draw pile's order is
        # drawn, so shuffle it, or they would all be at its bottom.
        shuffle_fast(zones[self.DRAW], rng)
        return zones

    def _deal(self, rng: random.Random) -> list[list[int]]:
        fast = self._fast_zones(rng)
        if fast is not None:
            return fast
        for cons in (self.strict, self._loose, self.any_zone):
            zones = assign(cons, rng)
            if zones is not None:
                for zone in zones:
                    shuffle_fast(zone, rng)
                return zones
        raise InconsistentView("no deal fits the observation's zone sizes")

    def can_finish_payment(self, hand: Sequence[int]) -> bool:
        """Whether the rival paying a Gold bid now could finish it with ``hand`` (True when nobody is)."""
        payer = self.payer
        payment = self.obs.payment
        if payer < 0 or payment is None:
            return True
        owed = payment.bid - sum(self.rules.value[c] for c in payment.paid_gold)
        return self._can_pay(hand, owed)

    def _can_pay(self, cards: Sequence[int], bid: int) -> bool:
        """Whether the Gold among ``cards`` can pay ``bid`` (exactly, when the ruleset forbids overpaying)."""
        rules = self.rules
        values = [rules.value[c] for c in cards if rules.kind[c] == KIND_GOLD]
        if rules.overpay_forbidden:
            return bool(subset_sums(values) >> bid & 1)
        return sum(values) >= bid

    def keeps_the_proofs(self, zones: Sequence[Sequence[int]]) -> bool:
        """Whether a deal keeps what the payments proved: the payer can finish, and no rival who
        could not pay holds, among the cards they had then, Gold that could have paid."""
        if self.payer >= 0 and not self.can_finish_payment(zones[self.payer]):
            return False
        for who, bid, entered in self.unpaid:
            if self._can_pay([c for c in zones[who] if c not in entered], bid):
                return False
        return True

    def zones(self, rng: random.Random, truth: Sequence[Sequence[int]] | None = None) -> list[list[int]]:
        """A random deal of the hidden cards: one list per zone (see the module docstring).

        A deal that does not keep what the payments proved (:meth:`keeps_the_proofs`) is dealt
        again, up to :data:`TRIES` times. Then, when the caller knows the true hands (``truth``,
        from :func:`~biblios_kit.engine.resample.resample`), the hands of the rivals concerned
        are kept as they are; otherwise the deal is built to keep them (:meth:`_built`), and
        failing that, repaired by swaps (:meth:`_repaired`), then dealt and repaired without the memory of which
        hand a seen card went into (the loose constraints); only if all fail is the last deal kept. Every deal
        returned without ``truth`` is then mixed (:meth:`_mixed`).
        """
        zones = self._deal(rng)
        if self.payer < 0 and not self.unpaid:
            return self._mixed(zones, rng) if self._needs_mixing and truth is None else zones
        for _ in range(TRIES):
            if self.keeps_the_proofs(zones):
                return zones if truth is not None else self._mixed(zones, rng)
            zones = self._deal(rng)
        if truth is None:
            built = self._built(rng)
            if built is None:
                built = self._repaired(zones, rng, self._options)
            if built is not None:
                return self._mixed(built, rng)
            # Neither building nor repairing found a deal keeping both the view's memory of hands and the proofs
            # (the proofs are sound, so one exists): forget that memory (the loose constraints), repair and mix there.
            loose = assign(self._loose, rng)
            repaired = None if loose is None else self._repaired(loose, rng, self._loose_options)
            return zones if repaired is None else self._mixed(repaired, rng, self._loose_options)
        concerned = sorted({self.payer, *(who for who, _bid, _entered in self.unpaid)} - {-1})
        for cons in (self.strict, self._loose, self.any_zone):
            for who in concerned:
                cons = pin(cons, who, truth[who])
            pinned = assign(cons, rng)
            if pinned is not None:
                for zone in pinned:
                    shuffle_fast(zone, rng)
                return pinned
        raise InconsistentView("the true hands do not fit the observation")

    def _mixed(
        self, zones: list[list[int]], rng: random.Random, options: list[frozenset[int]] | None = None
    ) -> list[list[int]]:
        """``zones`` (a deal that keeps the view and the proofs) after :data:`MIX_SWEEPS` swaps per hidden card.

        The greedy deal places a card that may be in several zones (seen going into a hand it may since
        have left) by a rule of thumb, and a deal made to keep the payments' proofs is biased too. Each step
        here picks two hidden cards at random and swaps them when each may be where the other is and the
        payments' proofs still hold: a Metropolis chain whose proposals are symmetric, so every deal
        consistent with the view is equally likely in the long run (tests/test_engine_worlds_enumerated.py
        compares the odds with every consistent deal counted).
        """
        cards = self.strict.cards
        n = len(cards)
        if n < 2:
            return zones
        index = {c: i for i, c in enumerate(cards)}
        where = [0] * n
        for z, zone in enumerate(zones):
            for c in zone:
                where[index[c]] = z
        if options is None:
            options = self._options
        watched = {self.payer, *(who for who, _bid, _entered in self.unpaid)} - {-1}
        rand = rng.random
        for _ in range(MIX_SWEEPS * n):
            i = int(rand() * n)
            j = int(rand() * n)
            zi, zj = where[i], where[j]
            if zi == zj or zj not in options[i] or zi not in options[j]:
                continue
            where[i], where[j] = zj, zi
            if watched and (zi in watched or zj in watched) and not self._zones_keep_the_proofs(where, {zi, zj}):
                where[i], where[j] = zi, zj
        mixed: list[list[int]] = [[] for _ in zones]
        for i, z in enumerate(where):
            mixed[z].append(cards[i])
        for zone in mixed:
            shuffle_fast(zone, rng)
        return mixed

    def _zones_keep_the_proofs(self, where: list[int], changed: set[int]) -> bool:
        """Whether the hands in ``changed`` (by zone) of a deal given as each hidden card's zone keep the proofs."""
        return self._broken_proofs(where, changed) == 0

    def _broken_proofs(self, where: list[int], changed: set[int]) -> int:
        """How far the hands in ``changed`` of a deal (each hidden card's zone) are from keeping the proofs: 0 when
        they keep them; else, per broken proof, the Gold missing or in excess (1 when payments must be exact)."""
        cards = self.strict.cards
        rules = self.rules
        value, kind = rules.value, rules.kind
        broken = 0
        if self.payer in changed:
            hand = [cards[i] for i, z in enumerate(where) if z == self.payer]
            if not self.can_finish_payment(hand):
                payment = self.obs.payment
                owed = 0 if payment is None else payment.bid - sum(value[c] for c in payment.paid_gold)
                gold = sum(value[c] for c in hand if kind[c] == KIND_GOLD)
                broken += 1 if rules.overpay_forbidden else max(1, owed - gold)
        for who, bid, entered in self.unpaid:
            if who in changed:
                held = [cards[i] for i, z in enumerate(where) if z == who and cards[i] not in entered]
                if self._can_pay(held, bid):
                    gold = sum(value[c] for c in held if kind[c] == KIND_GOLD)
                    broken += 1 if rules.overpay_forbidden else gold - bid + 1
        return broken

    def _repaired(
        self, zones: list[list[int]], rng: random.Random, options: list[frozenset[int]]
    ) -> list[list[int]] | None:
        """A deal that keeps the proofs, reached from ``zones`` (which keeps the view) by random swaps of two
        hidden cards that may each be where the other is, each kept unless it takes the deal further from the
        proofs (:meth:`_broken_proofs`); None after :data:`REPAIR_SWEEPS` swaps per hidden card without one."""
        cards = self.strict.cards
        n = len(cards)
        index = {c: i for i, c in enumerate(cards)}
        where = [0] * n
        for z, zone in enumerate(zones):
            for c in zone:
                where[index[c]] = z
        watched = {self.payer, *(who for who, _bid, _entered in self.unpaid)} - {-1}
        broken = self._broken_proofs(where, watched)
        rand = rng.random
        for _ in range(REPAIR_SWEEPS * n):
            if not broken:
                break
            i = int(rand() * n)
            j = int(rand() * n)
            zi, zj = where[i], where[j]
            if zi == zj or zj not in options[i] or zi not in options[j] or (zi not in watched and zj not in watched):
                continue
            where[i], where[j] = zj, zi
            after = self._broken_proofs(where, watched)
            if after > broken:
                where[i], where[j] = zi, zj
            else:
                broken = after
        if broken:
            return None
        repaired: list[list[int]] = [[] for _ in zones]
        for i, z in enumerate(where):
            repaired[z].append(cards[i])
        return repaired

    def _built(self, rng: random.Random) -> list[list[int]] | None:
        """A deal made to keep what the payments proved: the payer gets unseen Gold that finishes
        their payment (and no other unseen Gold), and a rival who could not pay gets no unseen Gold they
        could have held then (the payer, who may have failed to pay a larger bid before, excepted: the Gold
        chosen for the payment is all they get)."""
        rules = self.rules
        hidden = self.hidden
        cands = [options[:] for options in self.strict.candidates]
        for who, _bid, entered in self.unpaid:
            if who == self.payer:
                continue
            for i, c in enumerate(hidden):
                if rules.kind[c] == KIND_GOLD and c not in entered and who in cands[i] and len(cands[i]) > 1:
                    cands[i].remove(who)
        payment = self.obs.payment
        if self.payer >= 0 and payment is not None:
            owed = payment.bid - sum(rules.value[c] for c in payment.paid_gold)
            pool = [i for i, c in enumerate(hidden) if rules.kind[c] == KIND_GOLD and self.payer in cands[i]]
            shuffle_fast(pool, rng)
            # The Gold known to be in the hand first, then the fewest unseen cards: they must fit in the hand.
            pool.sort(key=lambda i: (len(cands[i]) > 1, -rules.value[hidden[i]]))
            chosen = _paying(pool, [rules.value[hidden[i]] for i in pool], owed, rules.overpay_forbidden)
            if chosen is None:
                return None
            for i in chosen:
                cands[i] = [self.payer]
            for i in pool:
                if i not in chosen and len(cands[i]) > 1:
                    cands[i].remove(self.payer)
        zones = assign(Constraints(hidden, cands, self.capacity), rng)
        if zones is None or not self.keeps_the_proofs(zones):
            return None
        for zone in zones:
            shuffle_fast(zone, rng)
        return zones
