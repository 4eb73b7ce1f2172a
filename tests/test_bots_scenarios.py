"""Positions where the right move is clear: the medium bot must find it (several seeds each)."""

from __future__ import annotations

import dataclasses
import random

from biblios_kit.bots.heuristic import HeuristicBot
from biblios_kit.engine import (
    BID,
    DECLINE,
    KEEP,
    PASS,
    PAY,
    TO_AUCTION,
    TO_PUBLIC,
    AuctionView,
    Observation,
    PaymentView,
    church,
    compile_rules,
    new_game,
)
from biblios_kit.engine.state import Phase
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import CardKind, Ruleset

RULESET = load_ruleset("biblios")
RULES = compile_rules(RULESET)
SEEDS = range(6)


def card(
    category: str | None = None,
    value: int | None = None,
    kind: CardKind = CardKind.CATEGORY,
    nth: int = 0,
    effect: str | None = None,
) -> int:
    """The id of the ``nth`` card matching the description."""
    matches = [
        c.id
        for c in RULESET.deck
        if c.kind is kind
        and (category is None or c.category == category)
        and (value is None or c.value == value)
        and (effect is None or (c.effect is not None and c.effect.id == effect))
    ]
    return matches[nth]


def gift_observation(**changes: object) -> Observation:
    """Seat 0's first gift decision of a real game, with ``changes`` applied."""
    base = new_game(RULESET, 2, 1).observation(0)
    assert base.phase == Phase.GIFT
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def auction_observation(ruleset: Ruleset = RULESET, **changes: object) -> Observation:
    """Seat 0's first bidding decision in the auction phase of a real game, with ``changes`` applied."""
    state = new_game(ruleset, 2, 2)
    rng = random.Random(2)
    while not (state.phase == Phase.BIDDING and state.current_player == 0 and state.observation(0).revealed):
        state.apply(state.random_action(rng))
    return dataclasses.replace(state.observation(0), **changes)  # type: ignore[arg-type]


def choices(observation: Observation, ruleset: Ruleset = RULESET, spec: str = "medium") -> set[int]:
    moves = set()
    for seed in SEEDS:
        bot = HeuristicBot(seed, ruleset, spec)
        moves.add(bot.choose(observation))
    return moves


MONKS = [card("monks", v, nth=i) for v, i in ((2, 0), (2, 1), (2, 2), (2, 3), (3, 0), (3, 1), (3, 2), (4, 0), (4, 1))]


def test_keeps_the_card_that_wins_a_category() -> None:
    # We hold Monks 2+3, the rival visibly holds Monks 3+4: the Monks 4 we drew turns 5-7 into 9-7.
    observation = gift_observation(
        hand=(MONKS[0], MONKS[4]),
        hand_sizes=(2, 2),
        acquired=((1, MONKS[5]), (1, MONKS[7])),
        drawn=MONKS[8],
        owed=(1, 1, 1),
        legal_actions=(KEEP, TO_AUCTION, TO_PUBLIC),
    )
    assert choices(observation) == {KEEP}


def test_hides_a_wanted_card_on_the_auction_pile_rather_than_giving_it() -> None:
    # Keep is used; the Monks 4 would give the rival the category if placed in the public space.
    observation = gift_observation(
        hand=(MONKS[0], MONKS[4]),
        hand_sizes=(2, 2),
        acquired=((1, MONKS[5]), (1, MONKS[7])),
        drawn=MONKS[8],
        owed=(0, 1, 1),
        kept=card(kind=CardKind.GOLD, value=1),
        legal_actions=(TO_AUCTION, TO_PUBLIC),
    )
    assert choices(observation) == {TO_AUCTION}


def test_picks_the_card_that_decides_a_category() -> None:
    # Offered a Monks 4 that turns 5-7 into 9-7 and a Gold 1, the picker takes the Monks card.
    state = new_game(RULESET, 2, 1)
    rng = random.Random(1)
    while state.phase != Phase.PICK:
        state.apply(state.random_action(rng))
    picker = state.current_player
    assert picker is not None
    gold = card(kind=CardKind.GOLD, value=1, nth=5)
    observation = dataclasses.replace(
        state.observation(picker),
        hand=(MONKS[0], MONKS[4]),
        acquired=((1 - picker, MONKS[5]), (1 - picker, MONKS[7])),
        public=(MONKS[8], gold),
        legal_actions=(1000 + MONKS[8], 1000 + gold),
    )
    assert choices(observation) == {1000 + MONKS[8]}


def test_does_not_bid_beyond_its_gold_when_the_penalty_would_cost_a_category() -> None:
    gold1, gold2 = card(kind=CardKind.GOLD, value=1), card(kind=CardKind.GOLD, value=2)
    auction = AuctionView(
        card=MONKS[8],
        currency="gold",
        high_bid=3,
        high_bidder=1,
        bids=((1, 3),),
        out=(),
        excluded=(),
        min_bid=4,
        max_bid=66,
    )
    legal = (PASS, *range(BID + 4, BID + 67))
    poor = auction_observation(
        hand=(MONKS[0], MONKS[4], gold1, gold2),
        hand_sizes=(4, 3),
        acquired=((1, MONKS[5]), (1, MONKS[7])),
        auction=auction,
        auction_pile=3,
        legal_actions=legal,
        current_player=0,
    )
    assert choices(poor) == {PASS}
    # With Gold 3 + 2 the same card is worth the minimum raise.
    rich = dataclasses.replace(poor, hand=(MONKS[0], MONKS[4], card(kind=CardKind.GOLD, value=3), gold2))
    assert choices(rich) == {BID + 4}


def test_lets_a_worthless_card_go() -> None:
    # The rival leads Monks by far: one more small Monks card changes nothing for anyone.
    gold3 = [card(kind=CardKind.GOLD, value=3, nth=i) for i in range(4)]
    auction = AuctionView(
        card=MONKS[0],
        currency="gold",
        high_bid=0,
        high_bidder=None,
        bids=(),
        out=(),
        excluded=(),
        min_bid=1,
        max_bid=66,
    )
    observation = auction_observation(
        hand=tuple(gold3),
        hand_sizes=(4, 6),
        acquired=tuple((1, c) for c in MONKS[1:7]),
        auction=auction,
        auction_pile=10,
        legal_actions=(PASS, *range(BID + 1, BID + 67)),
        current_player=0,
    )
    assert choices(observation) == {PASS}


def _church_observation(effect: str) -> Observation:
    pigments = [card("pigments", v, nth=i) for v, i in ((4, 0), (4, 1), (3, 0))]
    church_card = card(kind=CardKind.CHURCH, effect=effect)
    state = new_game(RULESET, 2, 1)
    base = state.observation(0)
    sign = 1 if effect.startswith("raise") else -1
    legal = [church([d], sign) for d in RULES.targets if 1 <= base.dice[d] + sign <= 6]
    return dataclasses.replace(
        base,
        phase=Phase.CHURCH,
        hand=(MONKS[7], MONKS[8], MONKS[6]),
        hand_sizes=(3, 3),
        acquired=tuple((1, c) for c in pigments),
        church=(0, church_card),
        drawn=None,
        legal_actions=(DECLINE, *sorted(legal)),
    )


def test_church_raises_the_die_of_a_category_it_leads() -> None:
    monks_die = RULES.cat_dice[RULES.cat_ids.index("monks")][0]
    assert choices(_church_observation("raise-one")) == {church([monks_die], 1)}


def test_church_lowers_the_die_of_a_category_it_trails() -> None:
    pigments_die = RULES.cat_dice[RULES.cat_ids.index("pigments")][0]
    assert choices(_church_observation("lower-one")) == {church([pigments_die], -1)}


def test_pays_with_the_least_waste() -> None:
    gold = [
        card(kind=CardKind.GOLD, value=2, nth=0),
        card(kind=CardKind.GOLD, value=2, nth=1),
        card(kind=CardKind.GOLD, value=3),
    ]
    auction = AuctionView(
        card=MONKS[8],
        currency="gold",
        high_bid=4,
        high_bidder=0,
        bids=((0, 4),),
        out=(1,),
        excluded=(),
        min_bid=5,
        max_bid=66,
    )
    observation = auction_observation(
        phase=Phase.PAYMENT,
        hand=tuple(gold),
        auction=auction,
        payment=PaymentView(payer=0, bid=4, currency="gold", paid_gold=(), paid_count=0),
        legal_actions=(PAY + gold[0], PAY + gold[2]),
        current_player=0,
    )
    assert choices(observation) == {PAY + gold[0]}  # 2 + 2 = 4, not 3 + 2 = 5
