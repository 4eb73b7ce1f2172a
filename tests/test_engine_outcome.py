"""The scoring's numbers (``GameState.outcome``, what simulations read) agree with the whole result (the place
rule itself is checked against a reference in tests/test_engine_playout.py)."""

from __future__ import annotations

import random

import pytest
from conftest import SHIPPED_CHOICES

from biblios_kit.engine import new_game
from biblios_kit.engine.compiled import compile_rules
from biblios_kit.engine.scoring import outcome, score_hands
from biblios_kit.rules import load_ruleset

CHOICES = [*SHIPPED_CHOICES, ("complete-library", ("count-the-books",))]


@pytest.mark.parametrize(("name", "options"), CHOICES)
def test_the_outcome_has_the_numbers_of_the_whole_result(name: str, options: tuple[str, ...]) -> None:
    ruleset = load_ruleset(name, list(options))
    rules = compile_rules(ruleset)
    deal = random.Random(f"{name}{options}")
    ties = 0
    for players in sorted(ruleset.setups):
        for seed in range(25):
            state = new_game(ruleset, players, seed, events=False)
            state.playout([random.Random(seed * 10 + p) for p in range(players)])
            deck = list(range(len(ruleset.deck)))
            deal.shuffle(deck)
            size = deal.choice([1, 2, 3, 6])  # small hands: shared places and tie-breaks
            dealt = [deck[p * size : (p + 1) * size] for p in range(players)]
            for hands, dice in ((state.hands, state.dice), (dealt, list(state.dice_values()))):
                result = score_hands(rules, hands, dice)
                numbers = outcome(rules, hands, dice)
                assert numbers.victory_points == result.victory_points
                assert numbers.winners == result.winners
                assert numbers.shared == result.shared
                assert [numbers.win_share(p) for p in range(players)] == [result.win_share(p) for p in range(players)]
                firsts = tuple(
                    next((-1 if a.winner is None else a.winner for a in c.awards if a.place == 1), -1)
                    for c in result.categories
                )
                assert numbers.category_firsts == firsts
                ties += len(set(result.victory_points)) < players
            assert state.outcome().victory_points == state.result().victory_points
    assert ties > 0  # the tie-breaks were exercised


def test_no_outcome_before_the_end() -> None:
    state = new_game(load_ruleset("biblios"), 2, 1)
    with pytest.raises(ValueError, match="not over"):
        state.outcome()
