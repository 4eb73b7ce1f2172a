"""The heuristic's estimate: a reused one values every card exactly as a fresh one would."""

from __future__ import annotations

import random

import pytest

from biblios_kit.bots.estimate import Estimate, EstimateCache
from biblios_kit.bots.heuristic import HeuristicBot, decide
from biblios_kit.bots.style import MEDIUM, STRONG
from biblios_kit.engine import compile_rules, new_game
from biblios_kit.rules import load_ruleset

CASES = [
    ("biblios", [], 4),
    ("biblios", ["refuse-to-pay"], 2),
    ("biblios", ["medieval-bluff"], 3),
    ("scripts-and-scribes", [], 3),
    ("second-place-dice", [], 3),
    ("five-players-italian", [], 5),
    ("bid-within-means", [], 3),
]


def _values(est: Estimate) -> tuple[object, ...]:
    obs = est.obs
    cards = sorted(set(obs.hand) | set(obs.public) | set(est.unseen[:12]))
    return (
        est.totals,
        est.probs,
        est.ev,
        est.gold_value,
        est.temperature,
        [est.card_value(c) for c in cards],
        [est.loss_of(c) for c in obs.hand],
        est.penalty_cost(),
    )


@pytest.mark.parametrize("name,options,players", CASES)
def test_a_reused_estimate_equals_a_fresh_one(name: str, options: list[str], players: int) -> None:
    ruleset = load_ruleset(name, options)
    rules = compile_rules(ruleset)
    reused = 0
    for seed in range(2):
        state = new_game(ruleset, players, seed)
        caches = [EstimateCache() for _ in range(players)]
        bots = [HeuristicBot(seed * 10 + p, ruleset) for p in range(players)]
        while not state.is_terminal():
            p = state.current_player
            assert p is not None
            obs = state.observation(p)
            for style in (MEDIUM, STRONG) if p == 0 else (MEDIUM,):
                cache = caches[p]
                before = cache._est
                est = cache.get(rules, obs, style)
                reused += est is before
                assert est.obs is obs
                assert _values(est) == _values(Estimate(rules, obs, style))
            state.apply(bots[p].choose(obs))
    assert reused > 10  # bidding rounds and payments did share estimates


def test_decisions_with_and_without_the_cache_are_the_same() -> None:
    ruleset = load_ruleset("biblios")
    rules = compile_rules(ruleset)
    state = new_game(ruleset, 4, 3)
    cache = [EstimateCache() for _ in range(4)]
    rngs = [random.Random(p) for p in range(4)]
    twins = [random.Random(p) for p in range(4)]
    while not state.is_terminal():
        p = state.current_player
        assert p is not None
        obs = state.observation(p)
        if len(obs.legal_actions) == 1:
            state.apply(obs.legal_actions[0])
            continue
        action = decide(rules, obs, rngs[p], MEDIUM, cache[p])
        assert action == decide(rules, obs, twins[p], MEDIUM)
        state.apply(action)


def test_hard_plays_its_tuned_style_with_two_players_and_the_multiplayer_one_beyond() -> None:
    from biblios_kit.bots.style import STRONG, STRONG_MULTI, strong_style

    assert strong_style(2) is STRONG
    assert strong_style(3) is STRONG_MULTI and strong_style(5) is STRONG_MULTI
    assert STRONG_MULTI.spread == MEDIUM.spread and STRONG_MULTI.deny < MEDIUM.deny
