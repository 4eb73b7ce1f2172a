"""A cheap heuristic policy over full states, for the playouts of the search bot.

Inside a determinization every hand is known, so this policy reads the world state
directly (it never sees a real game's state: the search only hands it worlds it dealt
itself). It is a fast, rougher cousin of :mod:`biblios_kit.bots.heuristic`: each card is
valued by how much it moves its category's lead (a logistic curve of the margin over
the strongest rival, times the category's dice), Gold by a price that falls as the
auction pile empties, and every decision is greedy, with an ``epsilon`` chance of a
random (sensible) move so that playouts explore.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from biblios_kit.bots.estimate import at_least_chance
from biblios_kit.bots.style import MEDIUM, Style
from biblios_kit.engine.actions import BID, CHURCH, DECLINE, KEEP, PASS, PAY, PICK, REFUSE, TO_AUCTION
from biblios_kit.engine.compiled import (
    CUR_GOLD,
    KIND_CATEGORY,
    KIND_GOLD,
    POINTS_DIE,
    POINTS_TIMES_CARDS,
    POINTS_TIMES_VALUE,
    CompiledRules,
)
from biblios_kit.engine.core import PH_BIDDING, PH_CHURCH, PH_GIFT, PH_PAYMENT, PH_PICK
from biblios_kit.engine.scoring import score_hands
from biblios_kit.engine.state import GameState

CHURCH_VALUE = 0.7
KEEP_PATIENCE = 0.2
"""Keeping a card early costs this much per card still to draw (a better one may come)."""


def _sig(x: float) -> float:
    """Logistic curve: the chance of leading a category by a margin of ``x`` temperatures."""
    if x > 30.0:
        return 1.0
    if x < -30.0:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


class PlayoutPolicy:
    """Greedy heuristic moves on a full state (see the module docstring)."""

    def __init__(self, rules: CompiledRules, epsilon: float = 0.1, sealed: bool = True, style: Style = MEDIUM) -> None:
        self.rules = rules
        self.style = style
        """Gold prices, uncertainty and auction-pile share, as in the heuristic (:class:`Style`)."""
        self.epsilon = epsilon
        self.sealed = sealed
        """Resolve auctions in two moves (see :meth:`_bid`); False bids the minimum raise up to the limit."""
        self.weights = [1.0 if place == 1 else 0.5 for place in rules.die_place]
        self._state: GameState | None = None
        self._key: tuple[int, ...] = ()
        self._totals: list[list[int]] = []
        self._limits: dict[tuple[int, int], int] = {}
        self._inv_temp: list[float] = [1.0] * rules.n_cats
        self.cat_total = [0] * rules.n_cats
        for c in range(rules.n_cards):
            if rules.kind[c] == KIND_CATEGORY:
                self.cat_total[rules.cat[c]] += rules.value[c]

    # ------------------------------------------------------------------ valuation

    def totals(self, state: GameState) -> list[list[int]]:
        """Per player, the total in each category (cached while no card moves in or out of a hand)."""
        key = (len(state.discard), len(state.buried), *map(len, state.hands))
        if state is self._state and key == self._key:
            return self._totals
        self._state, self._key = state, key
        self._limits = {}
        self._totals = totals = self._compute_totals(state)
        # The more value of a category is still to be dealt, the less a lead is worth now.
        rules = self.rules
        kind, value, cat = rules.kind, rules.value, rules.cat
        left = self.cat_total[:]
        for row in totals:
            for k, t in enumerate(row):
                left[k] -= t
        for group in (state.discard, state.buried, *state.removed):
            for c in group:
                if kind[c] == KIND_CATEGORY:
                    left[cat[c]] -= value[c]
        spread = self.style.spread
        self._inv_temp = [1.0 / (1.0 + spread * math.sqrt(max(0, x))) for x in left]
        return totals

    def _compute_totals(self, state: GameState) -> list[list[int]]:
        rules = self.rules
        kind, value, cat = rules.kind, rules.value, rules.cat
        out = []
        for hand in state.hands:
            row = [0] * rules.n_cats
            for c in hand:
                if kind[c] == KIND_CATEGORY:
                    row[cat[c]] += value[c]
            out.append(row)
        return out

    def _face(self, state: GameState, k: int) -> float:
        rules = self.rules
        w = self.weights
        face = sum(state.dice[d] * w[d] for d in rules.cat_dice[k])
        if rules.points != POINTS_DIE or rules.bonus:
            # what leading the category is worth under the ruleset's scoring: the leader's multiplier,
            # and a share of each set bonus the category belongs to
            if rules.points != POINTS_DIE:
                face *= max(1, max(self._multipliers(state)[k]))
            for points, need, cats in rules.bonus:
                if k in cats:
                    face += points / need
        return face

    def _multipliers(self, state: GameState) -> list[list[int]]:
        """Per category and player, what a die's face is multiplied by for them (cards or total held there)."""
        rules = self.rules
        if rules.points == POINTS_TIMES_VALUE:
            totals = self.totals(state)
            return [[row[k] for row in totals] for k in range(rules.n_cats)]
        out = [[0] * state.n for _ in range(rules.n_cats)]
        if rules.points == POINTS_TIMES_CARDS:
            kind, cat = rules.kind, rules.cat
            for q, hand in enumerate(state.hands):
                for c in hand:
                    if kind[c] == KIND_CATEGORY:
                        out[cat[c]][q] += 1
        else:
            out = [[1] * state.n for _ in range(rules.n_cats)]
        return out

    def _gold_rate(self, state: GameState, p: int) -> float:
        if state.draw or state.ph == PH_GIFT or state.to_draw:
            return self.style.gift_gold
        return max(0.03, self.style.auction_gold * (len(state.pile) + 1) / (state.n * (state.gold[p] + 1.0)))

    def value(self, state: GameState, totals: list[list[int]], p: int, c: int) -> tuple[float, float]:
        """(value to ``p``, value to ``p``'s strongest rival) of card ``c``."""
        rules = self.rules
        k = rules.kind[c]
        if k == KIND_CATEGORY:
            cat, v = rules.cat[c], rules.value[c]
            mine = totals[p][cat]
            rival = max(totals[q][cat] for q in range(state.n) if q != p)
            m = mine - rival
            face = self._face(state, cat) * (1.0 + 1.0 / (state.n - 1))  # we gain what the rival loses
            t = self._inv_temp[cat]
            here = _sig(m * t)
            return face * (_sig((m + v) * t) - here), face * (here - _sig((m - v) * t))
        if k == KIND_GOLD:
            x = rules.value[c] * self._gold_rate(state, p)
            return x, x
        return CHURCH_VALUE, CHURCH_VALUE

    # ------------------------------------------------------------------ decisions

    def choose(self, state: GameState, rng: random.Random) -> int:
        """A policy action for the current player of ``state``."""
        ph = state.ph
        if ph == PH_BIDDING:
            return self._bid(state, rng)
        legal = state.legal()
        if len(legal) == 1:
            return legal[0]
        if rng.random() < self.epsilon:
            return legal[int(rng.random() * len(legal))]
        p = state.cur
        if ph == PH_GIFT:
            mine, theirs = self.value(state, self.totals(state), p, state.drawn)
            best, choice = -1e9, legal[0]
            for a in legal:
                if a == KEEP:
                    s = mine - KEEP_PATIENCE * state.to_draw
                elif a == TO_AUCTION:
                    s = self.style.auction_share * (mine - theirs)
                else:
                    s = -theirs
                if s > best:
                    best, choice = s, a
            return choice
        if ph == PH_PICK:
            totals = self.totals(state)
            return max(legal, key=lambda a: self.value(state, totals, p, a - PICK)[0])
        if ph == PH_PAYMENT:
            return self._pay(state, legal)
        if ph == PH_CHURCH:
            totals = self.totals(state)
            lead = []
            for k in range(self.rules.n_cats):
                rival = max(totals[q][k] for q in range(state.n) if q != p)
                lead.append(_sig((totals[p][k] - rival) * self._inv_temp[k]) - 0.5)
            die_cat = self.rules.die_cat
            best, choice = -1e9, legal[0]
            for a in legal:
                if a == DECLINE:
                    s = 0.0
                else:
                    code = a - CHURCH
                    mask, sign = code >> 1, (-1.0 if code & 1 else 1.0)
                    s, d = 0.0, 0
                    while mask:
                        if mask & 1:
                            s += sign * lead[die_cat[d]]
                        mask >>= 1
                        d += 1
                if s > best:
                    best, choice = s, a
            return choice
        return legal[0]

    def bid_limit(self, state: GameState, player: int | None = None) -> int:
        """The highest bid ``player`` (the current player by default) finds worth paying for the card under auction."""
        p = state.cur if player is None else player
        totals = self.totals(state)  # resets the limits whenever a card moves
        cached = self._limits.get((p, state.auc_card))
        if cached is not None:
            return cached
        limit = self._limit(state, totals, p)
        self._limits[(p, state.auc_card)] = limit
        return limit

    def _limit(self, state: GameState, totals: list[list[int]], p: int) -> int:
        mine, theirs = self.value(state, totals, p, state.auc_card)
        worth = mine + 0.6 * theirs / (state.n - 1)
        if state.auc_cur == CUR_GOLD:
            rate = self._gold_rate(state, p)
            return min(int(worth / rate), state.gold[p])
        return min(int(worth / 0.3), len(state.hands[p]) - 1)

    def _bid(self, state: GameState, rng: random.Random) -> int:
        """Resolve the round like a sealed-bid auction: only the keenest bidder bids, once,
        at the second-highest limit + 1 (an English auction's price), and the others pass.
        Two actions per auctioned card instead of a long bidding war keep playouts cheap."""
        lo, hi = state.bid_range()
        if hi < lo:
            return PASS
        if rng.random() < self.epsilon:
            return PASS if rng.random() < 0.5 else BID + lo
        p = state.cur
        me = self.bid_limit(state)
        if me < lo:
            return PASS
        if not self.sealed:
            return BID + lo
        rival = 0
        keen = True
        out = state.out
        for q in range(state.n):
            if q == p or out >> q & 1:
                continue
            limit = self.bid_limit(state, q)
            if limit > me or (limit == me and q < p):
                keen = False
            rival = max(rival, limit)
        if not keen:
            return PASS
        return BID + min(me, max(lo, rival + 1), hi)

    def _pay(self, state: GameState, legal: Sequence[int]) -> int:
        rules = self.rules
        pays = [a for a in legal if a != REFUSE]
        if state.auc_cur == CUR_GOLD:
            need = state.high - state.pay_sum
            under = [a for a in pays if rules.value[a - PAY] <= need]
            if under:
                return max(under, key=lambda a: rules.value[a - PAY])
            return min(pays, key=lambda a: rules.value[a - PAY])
        p = state.payer
        totals = self.totals(state)
        kind, value, cat = rules.kind, rules.value, rules.cat
        rate = self._gold_rate(state, p)
        n = state.n
        best, choice = 1e9, pays[0]
        for a in pays:
            c = a - PAY
            if kind[c] == KIND_GOLD:
                loss = value[c] * rate
            elif kind[c] == KIND_CATEGORY:
                k, v = cat[c], value[c]
                m = totals[p][k] - max(totals[q][k] for q in range(n) if q != p)
                t = self._inv_temp[k]
                loss = self._face(state, k) * (1.0 + 1.0 / (n - 1)) * (_sig(m * t) - _sig((m - v) * t))
            else:
                loss = 0.0
            if loss < best:
                best, choice = loss, a
        return choice

    # ------------------------------------------------------------------ playing out

    def play(self, state: GameState, rng: random.Random, limit: int = 1 << 30) -> None:
        """Play at most ``limit`` decisions of ``state`` with this policy (mutates it; skips legality checks)."""
        do = state.step  # apply() re-derives the legal list, and every move here is legal
        choose = self.choose
        while state.cur >= 0 and limit > 0:
            do(choose(state, rng))
            limit -= 1

    def settle(self, state: GameState, rng: random.Random, limit: int = 80) -> None:
        """Play on until the current gift turn or auction turn is over (a quiet position to evaluate).

        Evaluating in the middle of an auction would miss who gets the card and what they
        pay; in the middle of a gift turn, where the cards go.
        """
        active, auction = state.active, state.draw == [] and state.to_draw == 0
        do = state.step
        choose = self.choose
        while state.cur >= 0 and limit > 0 and state.active == active:
            if auction != (state.draw == [] and state.to_draw == 0):
                break
            do(choose(state, rng))
            limit -= 1

    def evaluate(self, state: GameState) -> list[float]:
        """Per player, a reward in [0, 1] estimated from a game in progress (1 is a sure win).

        Each category goes to each player with a softmax chance of the current totals (its
        temperature grows with the value still to be dealt); Gold counts at its current price;
        a player's advantage over the best rival then maps to a win chance by a logistic curve.
        """
        if state.cur < 0:
            return rewards(state)
        rules = self.rules
        n = state.n
        totals = self.totals(state)
        inv = self._inv_temp
        ev = [0.0] * n
        plain = rules.points == POINTS_DIE and not rules.bonus
        mult = None if rules.points == POINTS_DIE else self._multipliers(state)
        first: list[list[float]] = []
        for k in range(rules.n_cats):
            t = inv[k]
            top = max(row[k] for row in totals)
            weights = [math.exp((row[k] - top) * t) for row in totals]
            whole = sum(weights)
            if not plain:
                first.append([w / whole for w in weights])
            for d in rules.cat_dice[k]:
                face = state.dice[d] * self.weights[d]
                if mult is None:
                    for q in range(n):
                        ev[q] += face * weights[q] / whole
                else:
                    for q in range(n):
                        ev[q] += face * mult[k][q] * weights[q] / whole
        for points, need, cats in rules.bonus:  # the chance of winning enough of the set, taken as independent
            for q in range(n):
                ev[q] += points * at_least_chance([first[k][q] for k in cats], need)
        # Gold is worth what it can still buy: the integral of the marginal price used for
        # bidding (constant in the gift phase; A / (gold + 1) in the auction, so A * ln(gold + 1)).
        if state.draw or state.to_draw or state.ph == PH_GIFT:
            for q in range(n):
                ev[q] += state.gold[q] * self.style.gift_gold
        else:
            scale = self.style.auction_gold * (len(state.pile) + 1) / n
            for q in range(n):
                ev[q] += scale * math.log1p(state.gold[q])
        out = []
        for q in range(n):
            lead = ev[q] - max(ev[r] for r in range(n) if r != q)
            out.append(_sig(lead / EVAL_SCALE))
        return out


EVAL_SCALE = 2.5
"""VP of advantage that makes a win about 73% likely in :meth:`PlayoutPolicy.evaluate`."""


def rewards(state: GameState) -> list[float]:
    """Per player, a search reward in [0, 1]: mostly the win share, a little the VP margin."""
    result = score_hands(state.rules, state.hands, state.dice)
    vp = result.victory_points
    n = len(vp)
    out = []
    for p in range(n):
        margin = vp[p] - max(vp[q] for q in range(n) if q != p)
        shaped = 0.5 + max(-0.5, min(0.5, margin / 20.0))
        out.append(0.8 * result.win_share(p) + 0.2 * shaped)
    return out


__all__ = ["PlayoutPolicy", "rewards"]
