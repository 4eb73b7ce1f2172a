"""The heuristic's estimate: a reused one values every card exactly as a fresh one would."""

from __future__ import annotations

import random

import pytest

from biblios_kit.bots.estimate import Estimate, EstimateCache
from biblios_kit.bots.heuristic import HeuristicBot, decide
from biblios_kit.bots.style import MEDIUM, STRONG
from biblios_kit.engine import compile_rules, new_game
from biblios_kit.engine.compiled import KIND_GOLD
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
        est.gold,
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


def test_the_gold_each_player_holds_is_ours_exactly_and_at_least_what_we_saw_theirs() -> None:
    ruleset = load_ruleset("biblios")
    rules = compile_rules(ruleset)
    state = new_game(ruleset, 3, 5)
    bots = [HeuristicBot(p, ruleset) for p in range(3)]
    while not state.is_terminal():
        p = state.current_player
        assert p is not None
        obs = state.observation(p)
        est = Estimate(rules, obs, MEDIUM)
        mine = [c for c in obs.hand if rules.kind[c] == KIND_GOLD] + (
            [obs.kept] if obs.kept is not None and rules.kind[obs.kept] == KIND_GOLD else []
        )
        assert est.gold[p] == float(sum(rules.value[c] for c in mine))
        for q in range(3):
            if q != p:
                assert est.gold[q] >= sum(rules.value[c] for c in est.visible[q] if rules.kind[c] == KIND_GOLD)
        state.apply(bots[p].choose(obs))


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


def _advantage_after(est: Estimate, q: int, k: int, amount: int) -> float:
    """The generic arithmetic: ``q`` gets ``amount`` more in category ``k``, our advantage then."""
    ev = est._ev_with(q, k, amount)
    return ev[est.me] - max(x for r, x in enumerate(ev) if r != est.me)


@pytest.mark.parametrize(
    "name,options,players", [("biblios", [], 4), ("biblios", [], 2), ("scripts-and-scribes", [], 3)]
)
def test_the_written_out_first_place_values_are_the_generic_ones_exactly(
    name: str, options: list[str], players: int
) -> None:
    """``_first_place_value`` and ``_first_place_advantage`` (the fast paths of category values and
    losses) give bit for bit what ``_ev_with`` and the advantage give, for gains and losses alike."""
    ruleset = load_ruleset(name, options)
    rules = compile_rules(ruleset)
    checked = 0
    for seed in range(3):
        state = new_game(ruleset, players, seed)
        bots = [HeuristicBot(seed * 10 + p, ruleset) for p in range(players)]
        while not state.is_terminal():
            p = state.current_player
            assert p is not None
            obs = state.observation(p)
            est = Estimate(rules, obs, MEDIUM)
            assert est.plain
            for k in range(rules.n_cats):
                if est.places[k] != 1:
                    continue
                for amount in (1, 2, 3, -1, -2):
                    for q in range(players):
                        assert est._first_place_advantage(k, q, amount) == _advantage_after(est, q, k, amount)
                    if amount > 0:
                        base = est._base
                        rivals = [base - _advantage_after(est, q, k, amount) for q in range(players) if q != est.me]
                        mine = _advantage_after(est, est.me, k, amount) - base
                        assert est._first_place_value(k, amount) == (mine, max(0.0, *rivals))
                    checked += 1
            state.apply(bots[p].choose(obs))
    assert checked > 500
