"""What one player can estimate from an observation: who holds what, category odds, card values.

Everything here reads only an :class:`~biblios_kit.engine.Observation` and the public
compiled rules. Values are in victory points (VP) of *advantage*: the player's expected
score minus the best expected score among the others, so a card that helps an opponent
has a negative value for us and Gold is converted to VP at a rate that depends on how
much there is left to buy.

Model: for each category, every player's expected final total is what we know they hold
(our own hand exactly; other hands from the cards we saw them receive, plus their unseen
cards at the average composition of everything still unseen). The chance of placing
first (and second, for rulesets with more award dice) follows a softmax of those totals
whose temperature grows with the value still unseen in that category (a Plackett-Luce
ranking). Nothing is special-cased per edition: dice, places, categories, player counts,
currencies and penalties all come from the rules, and so does what a die is worth: its face,
or its face times the taker's expected cards or total in the category, plus the set bonuses
(the chance of winning enough of a set's categories, taken as independent, times its points).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from biblios_kit.bots.style import MEDIUM, Style
from biblios_kit.engine.compiled import (
    CUR_GOLD,
    KIND_CATEGORY,
    KIND_CHURCH,
    KIND_GOLD,
    PEN_BLUFF,
    PEN_NONE,
    POINTS_DIE,
    POINTS_TIMES_CARDS,
    POINTS_TIMES_VALUE,
    CompiledRules,
)
from biblios_kit.engine.observation import Observation


def _place_probs(totals: list[float], temperature: float, places: int) -> list[list[float]]:
    """Probability of each player finishing at place 1..``places`` (Plackett-Luce over a softmax)."""
    return _probs_from(_weights(totals, temperature)[1], places)


def _weights(totals: list[float], temperature: float) -> tuple[float, list[float]]:
    """(the largest total, each player's softmax weight ``exp((total - largest) / temperature)``)."""
    top = totals[0]
    for t in totals:
        if t > top:
            top = t
    return top, [math.exp((t - top) / temperature) for t in totals]


def _probs_from(weights: list[float], places: int) -> list[list[float]]:
    """Place probabilities from softmax weights (see :func:`_place_probs`)."""
    n = len(weights)
    whole = 0.0
    for w in weights:
        whole += w
    first = [w / whole for w in weights]
    out = [first]
    if places >= 2:
        second = [0.0] * n
        for w_i in range(n):
            rest = whole - weights[w_i]
            if rest <= 0:
                continue
            f = first[w_i]
            for q in range(n):
                if q != w_i:
                    second[q] = second[q] + f * weights[q] / rest
        out.append(second)
    for _ in range(2, places):
        out.append([1.0 / n] * n)
    return out


def _top2(ev: list[float]) -> tuple[int, float, float]:
    """(index of the first largest entry, the largest entry, the largest of the others)."""
    i1 = 0
    v1 = ev[0]
    for q, x in enumerate(ev):
        if x > v1:
            i1, v1 = q, x
    v2 = 0.0
    found = False  # (a flag, not None, keeps v2 a float the compiler need not box)
    for q, x in enumerate(ev):
        if q != i1 and (not found or x > v2):
            v2 = x
            found = True
    assert found
    return i1, v1, v2


def _advantage(ev: list[float], p: int) -> float:
    """``ev[p]`` minus the largest other entry."""
    best = 0.0
    found = False
    for q, x in enumerate(ev):
        if q != p and (not found or x > best):
            best = x
            found = True
    assert found
    return ev[p] - best


_CHURCH_MOVES: dict[
    int, tuple[CompiledRules, dict[tuple[int, tuple[int, ...]], list[tuple[int, tuple[int, ...]]]]]
] = {}
"""Per compiled rules (by identity): church effect (move group, signs) -> its moves as (sign, dice chosen)."""


def _church_moves(rules: CompiledRules, card: int) -> list[tuple[int, tuple[int, ...]]]:
    """Every dice move of church ``card``'s effect, in the engine's order, as (sign, dice)."""
    entry = _CHURCH_MOVES.get(id(rules))
    if entry is None or entry[0] is not rules:
        entry = _CHURCH_MOVES[id(rules)] = (rules, {})
    effect = (rules.church_group[card], rules.church_signs[card])
    moves = entry[1].get(effect)
    if moves is None:
        moves = []
        for sign in effect[1]:
            for mask, s in rules.church_choices[(effect[0], sign)]:
                moves.append((s, tuple(d for d in range(rules.n_dice) if mask >> d & 1)))
        entry[1][effect] = moves
    return moves


_TABLES: dict[int, tuple[CompiledRules, list[int], list[int]]] = {}


def _card_tables(rules: CompiledRules) -> tuple[list[int], list[int]]:
    """Per card: its category index (-1 if none) and its Gold value (0 if not Gold)."""
    entry = _TABLES.get(id(rules))
    if entry is None or entry[0] is not rules:
        cards = range(rules.n_cards)
        cat_of = [rules.cat[c] if rules.kind[c] == KIND_CATEGORY else -1 for c in cards]
        gold_of = [rules.value[c] if rules.kind[c] == KIND_GOLD else 0 for c in cards]
        entry = _TABLES[id(rules)] = (rules, cat_of, gold_of)
    return entry[1], entry[2]


_KNOWN: Final = -2
"""In :class:`Estimate`'s table of where each card is: a card this player identifies."""
_UNSEEN: Final = -1
"""In the same table: a card whose place this player does not know."""

_PLACES: dict[int, tuple[CompiledRules, list[int]]] = {}


def _places(rules: CompiledRules) -> list[int]:
    """Per category, how many places win a die (1, or 2 with second-place dice)."""
    entry = _PLACES.get(id(rules))
    if entry is None or entry[0] is not rules:
        places = [max((rules.die_place[d] for d in rules.cat_dice[k]), default=1) for k in range(rules.n_cats)]
        entry = _PLACES[id(rules)] = (rules, places)
    return entry[1]


def cost_from_reach(reach: int, bid: int, exact: bool) -> int | None:
    """The least amount of :meth:`Estimate.gold_reach` ``reach`` that pays ``bid`` (exactly ``bid``
    when ``exact``: overpaying forbidden), or None."""
    if exact:
        return bid if reach >> bid & 1 else None
    above = reach >> bid
    if not above:
        return None
    return bid + ((above & -above).bit_length() - 1)


def at_least_chance(probs: list[float], count: int) -> float:
    """The chance that at least ``count`` of independent events of chances ``probs`` happen (Poisson binomial)."""
    exactly = [1.0] + [0.0] * len(probs)  # exactly[j]: chance of j events among those seen so far
    for p in probs:
        for j in range(len(exactly) - 1, 0, -1):
            exactly[j] = exactly[j] * (1.0 - p) + exactly[j - 1] * p
        exactly[0] = exactly[0] * (1.0 - p)
    whole = 0.0
    for j in range(count, len(exactly)):
        whole += exactly[j]
    return whole


def bonus_terms(rules: CompiledRules, first: list[list[float]], n: int) -> tuple[list[float], list[list[float]]]:
    """The set bonuses' expected points per player, and per category and player the slope of them in the
    chance of winning that category (the bonus's points times the chance of winning exactly one category
    fewer than needed among the set's others: exact while only that category's chances change)."""
    expected = [0.0] * n
    slope = [[0.0] * n for _ in range(rules.n_cats)]
    for points, need, cats in rules.bonus:
        for q in range(n):
            chances = [first[k][q] for k in cats]
            expected[q] += points * at_least_chance(chances, need)
            for i, k in enumerate(cats):
                others = chances[:i] + chances[i + 1 :]
                slope[k][q] += points * (at_least_chance(others, need - 1) - at_least_chance(others, need))
    return expected, slope


class Estimate:
    """Knowledge and valuations of one player at one moment.

    Everything is computed from the observation's knowledge (what is where, the dice), not
    from the decision being asked: :class:`EstimateCache` hands the same estimate to a
    player's next decision when nothing it depends on changed (a bidding round, a payment).
    """

    def __init__(self, rules: CompiledRules, obs: Observation, style: Style = MEDIUM) -> None:
        self.rules = rules
        self.obs = obs
        """The observation of the decision being made (updated by :class:`EstimateCache` on reuse)."""
        self.style = style
        n = self.n = obs.players
        me = self.me = obs.player
        kind, value, cat = rules.kind, rules.value, rules.cat
        n_cards = rules.n_cards
        # Where each card is as far as we know (the speed of the compiled bots: one list of ints
        # instead of a set of the identified cards, a dict of holders and a set difference):
        # _KNOWN for the cards we identify (:func:`~biblios_kit.engine.hidden.identified_cards`),
        # a player for a card we saw go into that hand (and did not see leave), _UNSEEN otherwise.
        place = [_UNSEEN] * n_cards
        for c in obs.hand:
            place[c] = _KNOWN
        for c in obs.public:
            place[c] = _KNOWN
        for c in obs.discard:
            place[c] = _KNOWN
        for c in obs.my_auction_cards:
            place[c] = _KNOWN
        for c in obs.my_buried:
            place[c] = _KNOWN
        drawn, kept, auction, church = obs.drawn, obs.kept, obs.auction, obs.church
        if drawn is not None:
            place[drawn] = _KNOWN
        if kept is not None:
            place[kept] = _KNOWN
        if auction is not None:
            place[auction.card] = _KNOWN
        if church is not None:
            place[church[1]] = _KNOWN
        is_church = rules.is_church
        seen: list[int] = []  # the cards seen going into a hand, in the order first seen
        for q, c in obs.acquired:
            where = place[c]
            if where == _KNOWN or is_church[c]:
                continue
            if where == _UNSEEN:
                seen.append(c)
            place[c] = q
        visible: list[list[int]] = [[] for _ in range(n)]
        for c in seen:
            q = place[c]
            if q != me:
                visible[q].append(c)
        self.visible = visible
        """Cards we saw go into each other player's hand (and did not see leave)."""
        hidden = [0] * n
        sizes = obs.hand_sizes
        for q in range(n):
            if q != me:
                hidden[q] = max(0, sizes[q] - len(visible[q]))
        self.hidden = hidden
        cat_of, gold_of = _card_tables(rules)
        n_cats = rules.n_cats
        unseen_val = [0.0] * n_cats
        unseen_gold = 0
        # every card but the known ones and those seen going into a hand, in order
        unseen: list[int] = []
        # (a category's values summed in an int while its cards follow each other, then added to
        # its float: whole numbers, exact in any order, without a float boxed per card)
        run_k = -1
        run = 0
        for c in range(n_cards):
            if place[c] == _UNSEEN:
                unseen.append(c)
                k = cat_of[c]
                if k >= 0:
                    if k != run_k:
                        if run_k >= 0:
                            unseen_val[run_k] = unseen_val[run_k] + run
                        run_k = k
                        run = 0
                    run += value[c]
                else:
                    unseen_gold += gold_of[c]
        if run_k >= 0:
            unseen_val[run_k] = unseen_val[run_k] + run
        self.unseen = unseen
        """Cards whose place we do not know (other hands' hidden part, piles, removed)."""
        in_play = sum(hidden) + obs.draw_pile + max(0, obs.auction_pile - len(obs.my_auction_cards))
        in_play += 1 if obs.kept_hidden else 0
        self.in_play = in_play
        n_unseen = len(unseen)
        frac = min(1.0, in_play / n_unseen) if unseen else 0.0
        per_card = [u / n_unseen if unseen else 0.0 for u in unseen_val]
        totals = [[0.0] * n_cats for _ in range(n)]
        row = totals[me]
        my_gold = 0
        for c in obs.hand:
            if kind[c] == KIND_CATEGORY:
                k = cat[c]
                row[k] = row[k] + value[c]
            elif kind[c] == KIND_GOLD:
                my_gold += value[c]
        gold_me = my_gold
        if kept is not None:
            if kind[kept] == KIND_CATEGORY:
                k = cat[kept]
                row[k] = row[k] + value[kept]
            elif kind[kept] == KIND_GOLD:
                gold_me += value[kept]
        self._gold_me = gold_me
        self._gold_share = unseen_gold / n_unseen if unseen else 0.0
        for q in range(n):
            if q == me:
                continue
            row = totals[q]
            for c in visible[q]:
                if kind[c] == KIND_CATEGORY:
                    k = cat[c]
                    row[k] = row[k] + value[c]
            h = hidden[q]
            for k in range(n_cats):
                row[k] = row[k] + h * per_card[k]
        self.totals = totals
        """Expected total of each player in each category (ours is exact)."""
        self.plain = rules.points == POINTS_DIE and not rules.bonus
        """Whether a die is worth its face and there is no set bonus (the printed rule: the fast paths apply)."""
        self.mult: list[list[float]] | None = None
        """Per category and player, what the ruleset multiplies a die's face by for them (``None``: 1)."""
        if rules.points == POINTS_TIMES_VALUE:
            self.mult = [[max(1.0, row[k]) for row in totals] for k in range(n_cats)]
        elif rules.points == POINTS_TIMES_CARDS:
            mine = list(obs.hand) + ([kept] if kept is not None else [])
            self.mult = self._expected_counts(mine, visible, hidden, unseen)
        self.my_gold = my_gold
        spread = style.spread
        self.temperature = [1.0 + spread * math.sqrt(unseen_val[k] * frac) for k in range(n_cats)]
        self.dice = list(obs.dice)
        self.places = _places(rules)
        temperature, places = self.temperature, self.places
        self._weights: list[tuple[float, list[float]]] = []
        self.probs: list[list[list[float]]] = []
        for k in range(n_cats):
            top_weights = _weights([row[k] for row in totals], temperature[k])
            self._weights.append(top_weights)
            self.probs.append(_probs_from(top_weights[1], places[k]))
        ev = self.ev = [0.0] * n
        faces = self.dice
        die_place = rules.die_place
        self.slope: list[list[float]] | None = None
        """Per category and player, the set bonuses' points per unit of chance of winning it (``None``: no bonus)."""
        if self.plain:
            for k, probs in enumerate(self.probs):  # as _add_ev(ev, k, probs, 1.0)
                for d in rules.cat_dice[k]:
                    row = probs[die_place[d] - 1]
                    face = faces[d] * 1.0
                    for q in range(n):
                        ev[q] = ev[q] + face * row[q]
        else:
            mult = self.mult
            for k, probs in enumerate(self.probs):  # the dice as _add_ev, the bonuses exactly (below)
                for d in rules.cat_dice[k]:
                    row = probs[die_place[d] - 1]
                    for q in range(n):
                        ev[q] = ev[q] + faces[d] * (1.0 if mult is None else mult[k][q]) * row[q]
            if rules.bonus:
                expected, self.slope = bonus_terms(rules, [probs[0] for probs in self.probs], n)
                for q in range(n):
                    ev[q] = ev[q] + expected[q]
        self._without: list[list[float] | None] = [None] * n_cats
        self._card_cache: dict[object, tuple[float, float]] = {}
        self._category_cache: dict[int, tuple[float, float]] = {}
        """:meth:`category_value` by ``amount * n_cats + k`` (an int key: no tuple per look-up)."""
        self._loss_cache: dict[int, float] = {}
        """:meth:`loss_of` a category card by ``value * n_cats + category``."""
        self._church_cache: dict[object, list[tuple[list[float], tuple[int, ...], int]]] = {}
        self._base = _advantage(ev, me)
        self.gold_value = self._gold_value()
        """VP of advantage per point of Gold for this player now."""

    @property
    def gold(self) -> list[float]:
        """Gold each player holds (ours exact, others estimated; worked out when asked: no
        decision of the heuristic reads it)."""
        rules = self.rules
        kind, value = rules.kind, rules.value
        gold = [0.0] * self.n
        for q in range(self.n):
            if q == self.me:
                gold[q] = self._gold_me * 1.0  # whole numbers: the same float as adding them one by one
                continue
            for c in self.visible[q]:
                if kind[c] == KIND_GOLD:
                    gold[q] = gold[q] + value[c]
            gold[q] = gold[q] + self.hidden[q] * self._gold_share
        return gold

    # ------------------------------------------------------------------ model

    def _category_probs(self, k: int, totals_k: list[float]) -> list[list[float]]:
        return _place_probs(totals_k, self.temperature[k], self.places[k])

    def _add_ev(
        self,
        ev: list[float],
        k: int,
        probs: list[list[float]],
        sign: float,
        dice: Sequence[int] | None = None,
        who: int = -1,
        extra: float = 0.0,
    ) -> None:
        """Add ``sign`` times category ``k``'s expected points at place chances ``probs`` to ``ev`` (with
        ``who``'s multiplier raised by ``extra``: their count or total in ``k`` after a card comes or goes)."""
        rules = self.rules
        faces = self.dice if dice is None else dice
        die_place = rules.die_place
        n = self.n
        if self.plain:
            for d in rules.cat_dice[k]:
                row = probs[die_place[d] - 1]
                face = faces[d] * sign
                for q in range(n):
                    ev[q] = ev[q] + face * row[q]
            return
        mult = self.mult[k] if self.mult is not None else [1.0] * n
        if who >= 0:
            mult = mult[:]
            mult[who] = max(0.0, mult[who] + extra)
        for d in rules.cat_dice[k]:
            row = probs[die_place[d] - 1]
            face = faces[d] * sign
            for q in range(n):
                ev[q] = ev[q] + face * mult[q] * row[q]
        if self.slope is not None:  # the set bonuses' part that hangs on winning category k
            slope, first = self.slope[k], probs[0]
            for q in range(n):
                ev[q] = ev[q] + sign * slope[q] * first[q]

    def advantage(self, ev: Sequence[float], who: int | None = None) -> float:
        """``who``'s (default: this player's) expected score minus the best other expected score."""
        return _advantage(ev if isinstance(ev, list) else list(ev), self.me if who is None else who)

    def _ev_without(self, k: int) -> list[float]:
        """Expected scores with category ``k``'s dice taken out (shared: copy before changing)."""
        without = self._without[k]
        if without is None:
            without = self.ev[:]
            self._add_ev(without, k, self.probs[k], -1.0)
            self._without[k] = without
        return without

    def _ev_with(self, q: int, k: int, delta: float) -> list[float]:
        """Expected scores if player ``q`` had ``delta`` more in category ``k``."""
        column = [row[k] for row in self.totals]
        column[q] += delta
        top, weights = self._weights[k]
        new_top = column[0]
        for t in column:
            if t > new_top:
                new_top = t
        if new_top == top:  # only q's weight changes (the same arithmetic as computing them all)
            weights = weights[:]
            weights[q] = math.exp((column[q] - top) / self.temperature[k])
        else:
            weights = _weights(column, self.temperature[k])[1]
        ev = self._ev_without(k)[:]
        self._add_ev(ev, k, _probs_from(weights, self.places[k]), 1.0, None, q, self._extra(delta))
        return ev

    def _extra(self, delta: float) -> float:
        """How a card of value ``delta`` coming (or going, when negative) changes its holder's multiplier."""
        if self.rules.points == POINTS_TIMES_VALUE:
            return delta
        if self.rules.points == POINTS_TIMES_CARDS:
            return 1.0 if delta > 0 else -1.0 if delta < 0 else 0.0
        return 0.0

    def _expected_counts(
        self, mine: list[int], visible: list[list[int]], hidden: list[int], unseen: list[int]
    ) -> list[list[float]]:
        """Per category and player, the expected number of category cards in hand (ours exact), at least 1."""
        rules = self.rules
        n_cats, kind, cat = rules.n_cats, rules.kind, rules.cat
        unseen_cards = [0] * n_cats
        for c in unseen:
            if kind[c] == KIND_CATEGORY:
                unseen_cards[cat[c]] += 1
        share = [u / len(unseen) if unseen else 0.0 for u in unseen_cards]
        counts = [[0.0] * self.n for _ in range(n_cats)]
        for q in range(self.n):
            held = mine if q == self.me else visible[q]
            for c in held:
                if kind[c] == KIND_CATEGORY:
                    counts[cat[c]][q] += 1.0
            if q != self.me:
                for k in range(n_cats):
                    counts[k][q] += hidden[q] * share[k]
        return [[max(1.0, x) for x in row] for row in counts]

    def win_chance(self, k: int, who: int | None = None, delta: float = 0.0) -> float:
        """This player's chance of placing first in category ``k`` (had ``who`` ``delta`` more there)."""
        column = [row[k] for row in self.totals]
        if who is not None:
            column[who] += delta
        return _probs_from(_weights(column, self.temperature[k])[1], 1)[0][self.me]

    def _gold_value(self) -> float:
        obs = self.obs
        if not obs.revealed:  # the auction phase has not started
            return self.style.gift_gold
        left = obs.auction_pile + 1
        return max(0.03, min(1.2, self.style.auction_gold * left / (self.n * (self.my_gold + 1.0))))

    # ------------------------------------------------------------------ values

    def category_value(self, k: int, amount: int) -> tuple[float, float]:
        """(value to us, value of it going to the strongest rival) of ``amount`` more in category ``k``."""
        key = amount * self.rules.n_cats + k
        cached = self._category_cache.get(key)
        if cached is not None:
            return cached
        if self.places[k] != 1 or not self.plain:
            base = self._base
            me = self.me
            mine = _advantage(self._ev_with(me, k, amount), me) - base
            theirs = 0.0
            for q in range(self.n):
                if q != me:
                    theirs = max(theirs, base - _advantage(self._ev_with(q, k, amount), me))
            self._category_cache[key] = (mine, theirs)
            return mine, theirs
        result = self._first_place_value(k, amount)
        self._category_cache[key] = result
        return result

    def _first_place_value(self, k: int, amount: int) -> tuple[float, float]:
        """:meth:`category_value` for a category whose dice all go to first place: the same
        arithmetic as :meth:`_ev_with` and :meth:`advantage`, written out in one loop."""
        base = self._base
        me = self.me
        n = self.n
        column = [row[k] for row in self.totals]
        top0, weights0 = self._weights[k]
        temperature = self.temperature[k]
        without = self._ev_without(k)
        faces = [self.dice[d] * 1.0 for d in self.rules.cat_dice[k]]
        one = len(faces) == 1
        face0 = faces[0] if one else 0.0
        mine = 0.0
        theirs = 0.0
        # (no list per player: one scratch list of weights, and each expected score summed in a
        # local float, in the same order as in _ev_with; the largest other total read from the
        # column's two largest, and the unchanged weights read in place: the same values)
        top_index, first, second = _top2(column)
        weights = weights0[:]
        for q in range(n):
            raised = column[q] + amount
            other = second if q == top_index else first  # the largest total of the others
            top = other if other > raised else raised
            same = top == top0  # then only q's weight changes
            mine_q = 0.0
            if same:
                mine_q = math.exp((raised - top) / temperature)
            else:
                for r in range(n):
                    weights[r] = math.exp(((raised if r == q else column[r]) - top) / temperature)
            whole = 0.0
            for r in range(n):
                whole += (mine_q if r == q else weights0[r]) if same else weights[r]
            mine_ev = 0.0
            best_other = 0.0
            found = False
            for r in range(n):
                share = ((mine_q if r == q else weights0[r]) if same else weights[r]) / whole
                x = without[r]
                if one:
                    x = x + face0 * share
                else:
                    for face in faces:
                        x = x + face * share
                if r == me:
                    mine_ev = x
                elif not found or x > best_other:
                    best_other = x
                    found = True
            assert found
            advantage = mine_ev - best_other
            if q == me:
                mine = advantage - base
            elif base - advantage > theirs:  # theirs = max(theirs, base - advantage)
                theirs = base - advantage
        return mine, theirs

    def _first_place_advantage(self, k: int, q: int, amount: int) -> float:
        """``_advantage(self._ev_with(q, k, amount), self.me)`` for a category whose dice all go to
        first place, with the arithmetic of :meth:`_first_place_value` for that one player (the same
        floating-point operations in the same order: the same value)."""
        me = self.me
        n = self.n
        column = [row[k] for row in self.totals]
        top0, weights0 = self._weights[k]
        temperature = self.temperature[k]
        without = self._ev_without(k)
        faces = [self.dice[d] * 1.0 for d in self.rules.cat_dice[k]]
        raised = column[q] + amount
        top = raised
        for r in range(n):
            if r != q and column[r] > top:
                top = column[r]
        weights = weights0[:]
        if top == top0:  # only q's weight changes
            weights[q] = math.exp((raised - top) / temperature)
        else:
            for r in range(n):
                weights[r] = math.exp(((raised if r == q else column[r]) - top) / temperature)
        whole = 0.0
        for w in weights:
            whole += w
        mine_ev = 0.0
        best_other = 0.0
        found = False
        for r in range(n):
            share = weights[r] / whole
            x = without[r]
            for face in faces:
                x = x + face * share
            if r == me:
                mine_ev = x
            elif not found or x > best_other:
                best_other = x
                found = True
        assert found
        return mine_ev - best_other

    def _church_evs(self, card: int, dice: Sequence[int] | None) -> list[tuple[list[float], tuple[int, ...], int]]:
        """Expected scores after each legal use of church ``card`` (whoever uses it), with its dice and sign."""
        key: object = (self.rules.church_group[card], self.rules.church_signs[card])
        if dice is None:
            cached = self._church_cache.get(key)
            if cached is not None:
                return cached
        rules = self.rules
        faces = self.dice if dice is None else list(dice)  # (a list: indexed natively when compiled)
        die_min, die_max, die_cat, die_place = rules.die_min, rules.die_max, rules.die_cat, rules.die_place
        probs = self.probs
        base_ev = self.ev
        n = self.n
        out: list[tuple[list[float], tuple[int, ...], int]] = []
        for s, chosen in _church_moves(rules, card):
            ok = True
            for d in chosen:
                if not die_min[d] <= faces[d] + s <= die_max[d]:
                    ok = False
                    break
            if not ok:
                continue
            ev = base_ev[:]
            mult = self.mult
            for d in chosen:
                row = probs[die_cat[d]][die_place[d] - 1]
                if mult is None:
                    for q in range(n):
                        ev[q] = ev[q] + s * row[q]
                else:
                    by = mult[die_cat[d]]
                    for q in range(n):
                        ev[q] = ev[q] + s * by[q] * row[q]
            out.append((ev, chosen, s))
        if dice is None:
            self._church_cache[key] = out
        return out

    def church_options(
        self, card: int, who: int, dice: Sequence[int] | None = None
    ) -> list[tuple[float, tuple[int, ...], int]]:
        """Every legal use of church ``card`` as (gain in ``who``'s advantage, dice, sign)."""
        base = _advantage(self.ev, who)
        return [(_advantage(ev, who) - base, chosen, s) for ev, chosen, s in self._church_evs(card, dice)]

    def church_value(self, card: int) -> tuple[float, float]:
        """(value to us, value of it going to the rival it helps most) of acquiring church ``card``."""
        key = (-1, (self.rules.church_group[card], self.rules.church_signs[card]))
        cached = self._card_cache.get(key)
        if cached is not None:
            return cached
        me = self.me
        n = self.n
        evs = self._church_evs(card, None)
        uses = len(evs)
        ev0 = self.ev
        base_of = [_advantage(ev0, q) for q in range(n)]  # each player's advantage now
        # One pass over the uses (the speed of the compiled bots: no list per use, no tuple per
        # look-up), each use's leader, best and second best score found as _top2 finds them:
        # our best gain (max(..., default=0.0) over the uses), and each rival's best use, as max()
        # over (gain, dice, sign) tuples would choose it (per rival, the uses in the same order).
        best_gain = [0.0] * n
        best_use = [-1] * n
        mine = 0.0
        for index in range(uses):
            ev = evs[index][0]
            i1 = 0
            v1 = ev[0]
            for r in range(n):
                x = ev[r]
                if x > v1:
                    i1 = r
                    v1 = x
            v2 = 0.0
            found = False
            for r in range(n):
                if r != i1:
                    x = ev[r]
                    if not found or x > v2:
                        v2 = x
                        found = True
            assert found
            x = ev[me] - (v2 if me == i1 else v1) - base_of[me]
            if index == 0 or x > mine:
                mine = x
            for q in range(n):
                if q == me:
                    continue
                gain = ev[q] - (v2 if q == i1 else v1) - base_of[q]  # _advantage(ev, q) - its base
                best = best_use[q]
                if best < 0:
                    best_gain[q] = gain
                    best_use[q] = index
                    continue
                top = best_gain[q]
                if gain > top:
                    best_gain[q] = gain
                    best_use[q] = index
                elif gain == top:
                    _ev, chosen, sign = evs[index]
                    _ev, best_chosen, best_sign = evs[best]
                    if (chosen, sign) > (best_chosen, best_sign):
                        best_use[q] = index
        theirs = 0.0
        base = self._base
        if uses:
            for q in range(n):
                if q != me:
                    theirs = max(theirs, base - _advantage(evs[best_use[q]][0], me))
        result = (max(0.0, mine), max(0.0, theirs))
        self._card_cache[key] = result
        return result

    def card_value(self, card: int) -> tuple[float, float]:
        """(value to us, value to the strongest rival) of one card going into a hand."""
        rules = self.rules
        k = rules.kind[card]
        if k == KIND_CATEGORY:
            return self.category_value(rules.cat[card], rules.value[card])
        if k == KIND_GOLD:
            v = rules.value[card] * self.gold_value
            return v, v
        return self.church_value(card)

    def loss_of(self, card: int) -> float:
        """What losing ``card`` from our hand costs us (for payments in cards and penalties)."""
        rules = self.rules
        k = rules.kind[card]
        if k == KIND_GOLD:
            return rules.value[card] * self.gold_value
        if k != KIND_CATEGORY:
            return 0.0
        key = rules.value[card] * rules.n_cats + rules.cat[card]
        cached = self._loss_cache.get(key)
        if cached is None:
            k = rules.cat[card]
            if self.places[k] == 1 and self.plain:
                loss = self._base - self._first_place_advantage(k, self.me, -rules.value[card])
            else:
                loss = self._base - _advantage(self._ev_with(self.me, k, -rules.value[card]), self.me)
            self._loss_cache[key] = loss
            return loss
        return cached

    def penalty_cost(self) -> float:
        """Expected cost of being penalized now (a random card per rival, or one card removed)."""
        hand = self.obs.hand
        if not hand or self.rules.penalty == PEN_NONE:
            return 0.0
        mean_loss = sum(self.loss_of(c) for c in hand) / len(hand)
        if self.rules.penalty == PEN_BLUFF:
            return mean_loss
        mean_gift = sum(self.card_value(c)[1] for c in hand) / len(hand)
        draws = min(self.n - 1, len(hand))
        return draws * (mean_loss + mean_gift)

    # ------------------------------------------------------------------ payments

    def gold_values(self) -> list[int]:
        """Values of our Gold cards."""
        rules = self.rules
        return [rules.value[c] for c in self.obs.hand if rules.kind[c] == KIND_GOLD]

    def gold_reach(self) -> int:
        """The amounts our Gold cards can pay, as bits (bit ``a`` set: some of them add up to ``a``)."""
        reach = 1
        for v in self.gold_values():
            reach |= reach << v
        return reach

    def gold_cost(self, bid: int) -> int | None:
        """The least Gold we can pay for ``bid`` (overpaying is lost), or None if we cannot."""
        return cost_from_reach(self.gold_reach(), bid, self.rules.overpay_forbidden)

    def card_costs(self, exclude: int | None = None) -> list[float]:
        """Cumulative cost of paying 1, 2, ... cards, cheapest cards first."""
        skip = -1 if exclude is None else exclude  # (an int: compared natively when compiled)
        losses = sorted([self.loss_of(c) for c in self.obs.hand if c != skip])
        out, acc = [], 0.0
        for x in losses:
            acc += x
            out.append(acc)
        return out

    def auction_is_gold(self) -> bool:
        """Whether the card under auction is bought with Gold (else with cards)."""
        auction = self.obs.auction
        return auction is None or self.rules.currency[auction.card] == CUR_GOLD

    def is_church(self, card: int) -> bool:
        """Whether ``card`` is a church/bishop card."""
        return self.rules.kind[card] == KIND_CHURCH


class EstimateCache:
    """One player's last :class:`Estimate`, handed to their next decision when it still holds.

    An estimate depends on what the player knows (every card they can place, hand sizes,
    pile sizes, the dice, whether the auction phase began), not on the bidding or the
    payment in progress; in a bidding war or a payment the same estimate (with its card
    values already worked out) serves every decision, exactly as a new one would.
    """

    __slots__ = ("_est", "_key")

    def __init__(self) -> None:
        self._key: tuple[object, ...] | None = None
        self._est: Estimate | None = None

    def get(self, rules: CompiledRules, obs: Observation, style: Style = MEDIUM) -> Estimate:
        """An estimate for ``obs`` (a new one, or the last one if it depends on nothing that changed)."""
        auction = obs.auction
        church = obs.church
        key = (
            rules,
            style,
            obs.player,
            obs.hand,
            obs.kept,
            obs.drawn,
            obs.hand_sizes,
            obs.public,
            obs.discard,
            obs.dice,
            obs.draw_pile,
            obs.auction_pile,
            obs.removed,
            obs.kept_hidden,
            obs.my_auction_cards,
            obs.my_buried,
            obs.acquired,
            not obs.revealed,
            None if auction is None else auction.card,
            None if church is None else church[1],
        )
        est = self._est
        if est is not None and key == self._key:
            est.obs = obs
            return est
        est = Estimate(rules, obs, style)
        self._key, self._est = key, est
        return est
