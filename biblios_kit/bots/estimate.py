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
currencies and penalties all come from the rules.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from biblios_kit.bots.context import identified_cards
from biblios_kit.bots.style import MEDIUM, Style
from biblios_kit.engine.compiled import (
    CUR_GOLD,
    KIND_CATEGORY,
    KIND_CHURCH,
    KIND_GOLD,
    PEN_BLUFF,
    PEN_NONE,
    CompiledRules,
)
from biblios_kit.engine.observation import Observation


def _place_probs(totals: Sequence[float], temperature: float, places: int) -> list[list[float]]:
    """Probability of each player finishing at place 1..``places`` (Plackett-Luce over a softmax)."""
    n = len(totals)
    top = max(totals)
    weights = [math.exp((t - top) / temperature) for t in totals]
    whole = sum(weights)
    first = [w / whole for w in weights]
    out = [first]
    if places >= 2:
        second = [0.0] * n
        for w_i in range(n):
            rest = whole - weights[w_i]
            if rest <= 0:
                continue
            for q in range(n):
                if q != w_i:
                    second[q] += first[w_i] * weights[q] / rest
        out.append(second)
    for _ in range(2, places):
        out.append([1.0 / n] * n)
    return out


class Estimate:
    """Knowledge and valuations of one player at one moment (build one per decision)."""

    def __init__(self, rules: CompiledRules, obs: Observation, style: Style = MEDIUM) -> None:
        self.rules = rules
        self.obs = obs
        self.style = style
        n = self.n = obs.players
        me = self.me = obs.player
        kind, value, cat = rules.kind, rules.value, rules.cat
        known = identified_cards(obs)
        holder: dict[int, int] = {}
        for q, c in obs.acquired:
            if c in known or rules.is_church[c]:
                continue
            holder[c] = q
        visible: list[list[int]] = [[] for _ in range(n)]
        for c, q in holder.items():
            if q != me:
                visible[q].append(c)
        self.visible = visible
        """Cards we saw go into each other player's hand (and did not see leave)."""
        hidden = [0] * n
        for q in range(n):
            if q != me:
                hidden[q] = max(0, obs.hand_sizes[q] - len(visible[q]))
        self.hidden = hidden
        unseen = [c for c in range(rules.n_cards) if c not in known and c not in holder]
        self.unseen = unseen
        """Cards whose place we do not know (other hands' hidden part, piles, removed)."""
        in_play = sum(hidden) + obs.draw_pile + max(0, obs.auction_pile - len(obs.my_auction_cards))
        in_play += 1 if obs.kept_hidden else 0
        self.in_play = in_play
        frac = min(1.0, in_play / len(unseen)) if unseen else 0.0
        n_cats = rules.n_cats
        unseen_val = [0.0] * n_cats
        unseen_gold = 0
        for c in unseen:
            k = kind[c]
            if k == KIND_CATEGORY:
                unseen_val[cat[c]] += value[c]
            elif k == KIND_GOLD:
                unseen_gold += value[c]
        per_card = [u / len(unseen) if unseen else 0.0 for u in unseen_val]
        totals = [[0.0] * n_cats for _ in range(n)]
        gold = [0.0] * n
        mine = list(obs.hand) + ([obs.kept] if obs.kept is not None else [])
        for c in mine:
            if kind[c] == KIND_CATEGORY:
                totals[me][cat[c]] += value[c]
            elif kind[c] == KIND_GOLD:
                gold[me] += value[c]
        gold_share = unseen_gold / len(unseen) if unseen else 0.0
        for q in range(n):
            if q == me:
                continue
            for c in visible[q]:
                if kind[c] == KIND_CATEGORY:
                    totals[q][cat[c]] += value[c]
                elif kind[c] == KIND_GOLD:
                    gold[q] += value[c]
            for k in range(n_cats):
                totals[q][k] += hidden[q] * per_card[k]
            gold[q] += hidden[q] * gold_share
        self.totals = totals
        """Expected total of each player in each category (ours is exact)."""
        self.gold = gold
        """Gold each player holds (ours exact, others estimated)."""
        self.my_gold = sum(value[c] for c in obs.hand if kind[c] == KIND_GOLD)
        self.temperature = [1.0 + style.spread * math.sqrt(unseen_val[k] * frac) for k in range(n_cats)]
        self.dice = list(obs.dice)
        self.places = [max((rules.die_place[d] for d in rules.cat_dice[k]), default=1) for k in range(n_cats)]
        self.probs = [self._category_probs(k, totals_k=[totals[q][k] for q in range(n)]) for k in range(n_cats)]
        self.ev = [0.0] * n
        for k in range(n_cats):
            self._add_ev(self.ev, k, self.probs[k], 1.0)
        self._card_cache: dict[tuple[int, int], tuple[float, float]] = {}
        self.gold_value = self._gold_value()
        """VP of advantage per point of Gold for this player now."""

    # ------------------------------------------------------------------ model

    def _category_probs(self, k: int, totals_k: list[float]) -> list[list[float]]:
        return _place_probs(totals_k, self.temperature[k], self.places[k])

    def _add_ev(
        self, ev: list[float], k: int, probs: list[list[float]], sign: float, dice: Sequence[int] | None = None
    ) -> None:
        rules = self.rules
        faces = self.dice if dice is None else dice
        for d in rules.cat_dice[k]:
            row = probs[rules.die_place[d] - 1]
            face = faces[d] * sign
            for q in range(self.n):
                ev[q] += face * row[q]

    def advantage(self, ev: Sequence[float], who: int | None = None) -> float:
        """``who``'s (default: this player's) expected score minus the best other expected score."""
        p = self.me if who is None else who
        return ev[p] - max(ev[q] for q in range(self.n) if q != p)

    def _ev_with(self, q: int, k: int, delta: float) -> list[float]:
        """Expected scores if player ``q`` had ``delta`` more in category ``k``."""
        column = [self.totals[r][k] for r in range(self.n)]
        column[q] += delta
        ev = self.ev[:]
        self._add_ev(ev, k, self.probs[k], -1.0)
        self._add_ev(ev, k, self._category_probs(k, column), 1.0)
        return ev

    def _gold_value(self) -> float:
        obs = self.obs
        if not obs.revealed:  # the auction phase has not started
            return self.style.gift_gold
        left = obs.auction_pile + 1
        return max(0.03, min(1.2, self.style.auction_gold * left / (self.n * (self.my_gold + 1.0))))

    # ------------------------------------------------------------------ values

    def category_value(self, k: int, amount: int) -> tuple[float, float]:
        """(value to us, value of it going to the strongest rival) of ``amount`` more in category ``k``."""
        key = (k, amount)
        cached = self._card_cache.get(key)
        if cached is not None:
            return cached
        base = self.advantage(self.ev)
        mine = self.advantage(self._ev_with(self.me, k, amount)) - base
        theirs = 0.0
        for q in range(self.n):
            if q != self.me:
                theirs = max(theirs, base - self.advantage(self._ev_with(q, k, amount)))
        self._card_cache[key] = (mine, theirs)
        return mine, theirs

    def church_options(
        self, card: int, who: int, dice: Sequence[int] | None = None
    ) -> list[tuple[float, tuple[int, ...], int]]:
        """Every legal use of church ``card`` as (gain in ``who``'s advantage, dice, sign)."""
        rules = self.rules
        faces = list(self.dice if dice is None else dice)
        out: list[tuple[float, tuple[int, ...], int]] = []
        base = self.advantage(self.ev, who)
        for sign in rules.church_signs[card]:
            for mask, s in rules.church_choices[(rules.church_ndice[card], sign)]:
                chosen = tuple(d for d in range(rules.n_dice) if mask >> d & 1)
                if not all(rules.die_min[d] <= faces[d] + s <= rules.die_max[d] for d in chosen):
                    continue
                ev = self.ev[:]
                for d in chosen:
                    row = self.probs[rules.die_cat[d]][rules.die_place[d] - 1]
                    for q in range(self.n):
                        ev[q] += s * row[q]
                out.append((self.advantage(ev, who) - base, chosen, s))
        return out

    def church_value(self, card: int) -> tuple[float, float]:
        """(value to us, value of it going to the rival it helps most) of acquiring church ``card``."""
        key = (-1, card)
        cached = self._card_cache.get(key)
        if cached is not None:
            return cached
        mine = max((g for g, _, _ in self.church_options(card, self.me)), default=0.0)
        theirs = 0.0
        base = self.advantage(self.ev)
        rules = self.rules
        for q in range(self.n):
            if q == self.me:
                continue
            options = self.church_options(card, q)
            if not options:
                continue
            _, chosen, s = max(options)
            ev = self.ev[:]
            for d in chosen:
                row = self.probs[rules.die_cat[d]][rules.die_place[d] - 1]
                for r in range(self.n):
                    ev[r] += s * row[r]
            theirs = max(theirs, base - self.advantage(ev))
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
        base = self.advantage(self.ev)
        return base - self.advantage(self._ev_with(self.me, rules.cat[card], -rules.value[card]))

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

    def gold_cost(self, bid: int) -> int | None:
        """The least Gold we can pay for ``bid`` (overpaying is lost), or None if we cannot."""
        reach = 1
        for v in self.gold_values():
            reach |= reach << v
        if self.rules.overpay_forbidden:
            return bid if reach >> bid & 1 else None
        above = reach >> bid
        if not above:
            return None
        return bid + ((above & -above).bit_length() - 1)

    def card_costs(self, exclude: int | None = None) -> list[float]:
        """Cumulative cost of paying 1, 2, ... cards, cheapest cards first."""
        losses = sorted(self.loss_of(c) for c in self.obs.hand if c != exclude)
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
