"""The scoring's numbers (``GameState.outcome``, what simulations read) agree with the whole result, and the place
rule of a category settles ties as the rules say."""

from __future__ import annotations

import random

import pytest
from conftest import SHIPPED_CHOICES

from biblios_kit.engine import new_game
from biblios_kit.engine.compiled import compile_rules
from biblios_kit.engine.scoring import WonBy, category_places, outcome, score_hands
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


def test_a_tie_on_the_total_goes_to_the_earliest_letter_or_to_nobody() -> None:
    # letters are ranks: 0 is A. Players 0 and 3 tie on 5, player 0 holds the earlier letter; 1 and 2 tie on 3
    # with the same letter: nobody takes those places.
    places = category_places([5, 3, 3, 5, 0], [2, 4, 4, 0, 1 << 20], tie_nobody=False)
    assert places == [(3, WonBy.LETTER), (0, WonBy.LETTER), (None, WonBy.NOBODY), (None, WonBy.NOBODY)]
    assert category_places([5, 3, 3, 5, 0], [2, 4, 4, 0, 1 << 20], tie_nobody=True) == [(None, WonBy.NOBODY)] * 4
    assert category_places([1, 4, 0], [0, 9, 1 << 20], tie_nobody=False) == [(1, WonBy.TOTAL), (0, WonBy.TOTAL)]


def test_no_outcome_before_the_end() -> None:
    state = new_game(load_ruleset("biblios"), 2, 1)
    with pytest.raises(ValueError, match="not over"):
        state.outcome()
