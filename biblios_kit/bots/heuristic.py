"""The heuristic bots (``medium``, and ``easy`` = the same with noise and mistakes).

Each decision values the cards in play with :class:`~biblios_kit.bots.estimate.Estimate`
(expected advantage in victory points, from the observation only) and picks the best
option for the kind of decision:

* gift: keep / auction pile / public space, comparing the placements of the card in
  hand plus the expected best placement of the cards still to draw this turn (sampled
  from the unseen cards): keep what helps us most, hide on the auction pile what we
  may buy back, give away what helps the others least;
* pick: the card worth most to us (plus a little for denying the next pickers);
* church/bishop: the dice move that raises our advantage most (raise the dice of the
  categories we lead, lower those we trail), or decline when every move hurts;
* bidding: the lowest legal bid while it stays under what the card is worth to us
  (its value plus part of what it would give a rival) converted at the current Gold or
  card price, never beyond what we can pay unless the rules make bluffing free, and
  now and then one raise over that limit when a rival leads (a bluff we can cover);
* payment: the Gold combination with the least waste, or the cards we miss least.
"""

from __future__ import annotations

import math
import random
import threading
from collections.abc import Callable, Sequence

from biblios_kit.bots.context import checked_rules
from biblios_kit.bots.estimate import Estimate, EstimateCache, cost_from_reach
from biblios_kit.bots.params import check_names, number
from biblios_kit.bots.style import EASY, MEDIUM, STYLE_FIELDS, Style, style_from
from biblios_kit.engine.actions import (
    BID,
    DECLINE,
    KEEP,
    PASS,
    PAY,
    PICK,
    REFUSE,
    TO_AUCTION,
    Action,
    church_parts,
)
from biblios_kit.engine.compiled import PEN_NONE, CompiledRules, compile_rules
from biblios_kit.engine.observation import Observation
from biblios_kit.engine.state import Phase
from biblios_kit.rules.model import Ruleset


class HeuristicBot:
    """A rule-of-thumb player (see the module docstring); deterministic for a seed.

    ``style`` holds the weights of its judgement (its ``noise``, in VP, is added to every
    option's score) and ``mistakes`` is the chance of a careless (random sensible) move:
    ``easy`` uses both.
    """

    def __init__(
        self, seed: int, ruleset: Ruleset, name: str = "medium", style: Style = MEDIUM, mistakes: float = 0.0
    ) -> None:
        self.name = name
        self.rng = random.Random(seed)
        self.style = style
        self.mistakes = float(mistakes)
        self.rules = compile_rules(ruleset)
        """The rules it plays by (the ruleset with its options, given when it is made)."""
        self._estimates = EstimateCache()
        self._lock = threading.Lock()

    def choose(self, observation: Observation) -> Action:
        """The heuristic's action for ``observation`` (one of its legal actions)."""
        legal = observation.legal_actions
        if not legal:
            raise ValueError(f"player {observation.player} has no decision to make")
        if len(legal) == 1:
            return legal[0]
        with self._lock:
            rules = checked_rules(self.rules, observation)
            if self.mistakes and self.rng.random() < self.mistakes:
                return self._careless(observation, legal)
            return decide(rules, observation, self.rng, self.style, self._estimates)

    def _careless(self, obs: Observation, legal: Sequence[Action]) -> Action:
        """A random move among the sensible ones (no wild bids)."""
        if obs.phase == Phase.BIDDING:
            options = [a for a in legal if a == PASS or a == BID + (obs.auction.min_bid if obs.auction else 1)]
            return self.rng.choice(options)
        return legal[int(self.rng.random() * len(legal))]


def decide(
    rules: CompiledRules,
    obs: Observation,
    rng: random.Random,
    style: Style = MEDIUM,
    estimates: EstimateCache | None = None,
) -> Action:
    """The heuristic decision for ``obs`` in ``style`` (``rng`` drives sampling, noise and bluffs).

    ``estimates`` (one per player) lets consecutive decisions share an estimate that still holds.
    """
    est = Estimate(rules, obs, style) if estimates is None else estimates.get(rules, obs, style)
    legal = obs.legal_actions
    noise = style.noise
    phase = obs.phase
    if phase == Phase.GIFT:
        return _gift(est, legal, rng, noise)
    if phase == Phase.PICK:
        return _pick(est, legal, rng, noise)
    if phase == Phase.CHURCH:
        return _church(est, legal, rng, noise)
    if phase == Phase.BIDDING:
        return _bid(est, legal, rng)
    if phase == Phase.PAYMENT:
        return _pay(est, legal)
    return legal[0]


def _jitter(rng: random.Random, noise: float, score: float) -> float:
    """``score`` with Gaussian noise of ``noise`` VP drawn from ``rng`` (unchanged when ``noise`` is 0).

    (A module function, not a closure made per decision: the compiled bots call it directly.)"""
    return score + rng.gauss(0.0, noise) if noise else score


def _dest_values(est: Estimate, card: int) -> tuple[float, float, float]:
    """(keep, auction pile, public space) value of placing ``card``."""
    mine, theirs = est.card_value(card)
    return mine, est.style.auction_share * (mine - theirs), -theirs


def _best_rest(values: list[tuple[float, float, float]], owed: tuple[int, int, int]) -> float:
    """Best total for placing cards with ``values`` into the ``owed`` destinations (in hindsight)."""
    n = len(values)
    if not n:
        return 0.0
    keep, auction, _public = owed
    publics = 0.0
    for v in values:
        publics += v[2]
    best = -1e9
    first, last = (0, n) if keep else (-1, 0)  # every card to keep, or none (-1)
    for i in range(first, last):
        if i >= 0:
            vi = values[i]
            base = publics + (vi[0] - vi[2])
        else:
            base = publics + 0.0
        if auction:
            for j in range(n):
                if j != i:
                    vj = values[j]
                    x = base + vj[1] - vj[2]
                    if x > best:
                        best = x
        elif base > best:
            best = base
    return best


def _below(getrandbits: Callable[[int], int], n: int) -> int:
    """``rng._randbelow(n)`` (CPython's ``_randbelow_with_getrandbits``) given ``rng.getrandbits``: the same draws."""
    bits = n.bit_length()
    r = getrandbits(bits)
    while r >= n:
        r = getrandbits(bits)
    return r


def _sample(rng: random.Random, population: list[int], k: int) -> list[int]:
    """``rng.sample(population, k)``: CPython's algorithm (as in 3.11), so the same draws and the
    same result, written out so that the compiled bots run it without the interpreter
    (``tests/test_kernel_build.py`` checks both agree on the running Python)."""
    return _sample_bits(rng.getrandbits, population, k)


def _sample_bits(getrandbits: Callable[[int], int], population: list[int], k: int) -> list[int]:
    """:func:`_sample` given ``rng.getrandbits`` (bound once per decision: the compiled bots then
    call it without a look-up per sample)."""
    n = len(population)
    if not 0 <= k <= n:
        raise ValueError("Sample larger than population or is negative")
    result: list[int] = []
    setsize = 21
    if k > 5:
        setsize += 4 ** math.ceil(math.log(k * 3, 4))
    if n <= setsize:
        pool = population[:]
        for i in range(k):
            j = _below(getrandbits, n - i)
            result.append(pool[j])
            pool[j] = pool[n - i - 1]
    else:
        # the indices drawn so far in a list (the same membership as CPython's set; k is a few cards)
        drawn: list[int] = []
        for _ in range(k):
            j = _below(getrandbits, n)
            while j in drawn:
                j = _below(getrandbits, n)
            drawn.append(j)
            result.append(population[j])
    return result


def _gift(est: Estimate, legal: Sequence[Action], rng: random.Random, noise: float) -> Action:
    obs = est.obs
    card = obs.drawn
    assert card is not None
    here = _dest_values(est, card)
    keep, auction, public = obs.owed
    later = keep + auction + public - 1
    pool = est.unseen
    futures: list[list[tuple[float, float, float]]] = []
    if later > 0 and len(pool) >= later:
        cache: dict[int, tuple[float, float, float]] = {}
        getrandbits = rng.getrandbits
        for _ in range(est.style.futures):
            future = []
            for c in _sample_bits(getrandbits, pool, later):
                value = cache.get(c)
                if value is None:
                    value = cache[c] = _dest_values(est, c)
                future.append(value)
            futures.append(future)
    best, choice = -1e18, legal[0]
    for action in legal:
        index = 0 if action == KEEP else 1 if action == TO_AUCTION else 2  # the legal gift actions
        owed = [keep, auction, public]
        owed[index] -= 1
        score = here[index]
        if futures:
            rest = (owed[0], owed[1], owed[2])
            total = 0.0
            for f in futures:
                total += _best_rest(f, rest)
            score += total / len(futures)
        score = _jitter(rng, noise, score)
        if score > best:
            best, choice = score, action
    return choice


def _pick(est: Estimate, legal: Sequence[Action], rng: random.Random, noise: float) -> Action:
    obs = est.obs
    later = (obs.active_player - obs.player) % est.n - 1
    best, choice = -1e18, legal[0]
    for action in legal:
        mine, theirs = est.card_value(action - PICK)
        score = _jitter(rng, noise, mine + (0.3 * theirs if later > 0 else 0.0))
        if score > best:
            best, choice = score, action
    return choice


def _church(est: Estimate, legal: Sequence[Action], rng: random.Random, noise: float) -> Action:
    obs = est.obs
    assert obs.church is not None
    gains = {(dice, sign): gain for gain, dice, sign in est.church_options(obs.church[1], est.me)}
    best, choice = -1e18, legal[0]
    for action in legal:
        if action == DECLINE:
            score = 0.0
        else:
            score = gains.get(church_parts(action), 0.0)
        score = _jitter(rng, noise, score)
        if score > best:
            best, choice = score, action
    return choice


def bid_limit(est: Estimate, scale: float = 1.0) -> tuple[int, int]:
    """(highest bid worth making, highest bid we can pay) for the card under auction."""
    obs = est.obs
    auction = obs.auction
    assert auction is not None
    mine, theirs = est.card_value(auction.card)
    worth = scale * (mine + est.style.deny / (est.n - 1) * theirs)
    if est.auction_is_gold():
        payable = sum(est.gold_values())
        reach = est.gold_reach()  # (once, not per bid: the same costs as est.gold_cost)
        exact = est.rules.overpay_forbidden
        if exact:
            while payable > 0 and cost_from_reach(reach, payable, exact) is None:
                payable -= 1
        g = est.gold_value
        limit = 0
        for b in range(max(1, auction.min_bid), payable + 1):
            cost = cost_from_reach(reach, b, exact)
            if cost is not None and g * cost <= worth:
                limit = b
            elif cost is not None and g * b > worth:
                break
        return limit, payable
    costs = est.card_costs(exclude=auction.card)
    limit = 0
    for k, card_cost in enumerate(costs, start=1):
        if card_cost <= worth:
            limit = k
        else:
            break
    return limit, len(costs)


def _bid(est: Estimate, legal: Sequence[Action], rng: random.Random) -> Action:
    obs = est.obs
    auction = obs.auction
    assert auction is not None
    noise, bluff = est.style.noise, est.style.bluff
    scale = max(0.0, 1.0 + rng.gauss(0.0, noise)) if noise else 1.0
    limit, payable = bid_limit(est, scale)
    lo = auction.min_bid
    if BID + lo not in legal:
        return PASS
    free_bluff = est.rules.penalty == PEN_NONE
    if lo <= limit and (lo <= payable or free_bluff):
        return BID + lo
    rival_leads = auction.high_bidder is not None and auction.high_bidder != est.me
    if bluff and rival_leads and lo <= limit + 2 and (lo <= payable or free_bluff) and rng.random() < bluff:
        return BID + lo  # push a rival's price up: we can cover it if they stop here
    return PASS


def _pay(est: Estimate, legal: Sequence[Action]) -> Action:
    obs = est.obs
    payment = obs.payment
    assert payment is not None
    rules = est.rules
    pays = [a for a in legal if a != REFUSE]
    if payment.currency != "gold":
        return min(pays, key=lambda a: (est.loss_of(a - PAY), a))
    need = payment.bid - sum(rules.value[c] for c in payment.paid_gold)
    values = est.gold_values()
    best_key: tuple[int, int] | None = None
    choice = pays[0]
    total = 0
    for action in pays:
        v = rules.value[action - PAY]
        rest = values[:]
        rest.remove(v)
        if v >= need:
            total = v
        else:
            reach = 1
            for x in rest:
                reach |= reach << x
            above = reach >> (need - v)
            total = v + (need - v) + ((above & -above).bit_length() - 1) if above else 1 << 20
        key = (total, -v)
        if best_key is None or key < best_key:
            best_key, choice = key, action
    if REFUSE in legal and best_key is not None:
        gained = est.card_value(obs.auction.card)[0] if obs.auction else 0.0
        if gained - est.gold_value * best_key[0] < -est.penalty_cost():
            return REFUSE
    return choice


def create_bot(name: str, seed: int, params: dict[str, object], ruleset: Ruleset) -> HeuristicBot:
    """Registry hook: ``medium`` or ``easy`` (noise 0.8, mistakes 0.25), with optional overrides
    ``mistakes`` and any field of :class:`~biblios_kit.bots.style.Style` (``deny``, ``bluff``, ...)."""
    easy = name == "easy"
    check_names(params, ("mistakes", *STYLE_FIELDS))
    style = style_from(params, EASY if easy else MEDIUM)
    mistakes = number(params, "mistakes", 0.25 if easy else 0.0, low=0.0, high=1.0)
    return HeuristicBot(seed, ruleset, name, style, mistakes)


__all__ = ["HeuristicBot", "bid_limit", "create_bot", "decide"]
