"""The engine's worlds against every consistent deal counted (tests/hidden_enumeration.py), on small positions.

tests/test_engine_worlds.py checks the odds where the hidden cards are interchangeable (the gift
phase of random players). Here the positions come from whole random games: cards seen going into
a hand that may have left it (a rival paid cards face down, or lost them to a penalty), a rival
paying a Gold bid, rivals who could not pay. Among the positions whose consistent deals can be
counted, the frequency of every hidden card in every zone over many worlds must match its exact
chance within sampling error.
"""

from __future__ import annotations

import random
import statistics

import pytest
from conftest import SHIPPED_CHOICES
from hidden_enumeration import assert_dealt_with_odds, enumerated_marginals

from biblios_kit.engine import compile_rules, new_game
from biblios_kit.engine.worlds import Worlds
from biblios_kit.rules import load_ruleset

SAMPLES = 1000
"""Worlds drawn per position."""
TOLERANCE = 4.5
"""Standard errors a frequency may stray from its exact chance."""


def constrained(worlds: Worlds) -> tuple[bool, bool]:
    """(a payment's proof to keep, a card seen going into a hand it may have left)."""
    rules = worlds.rules
    proofs = worlds.payer >= 0 or bool(worlds.unpaid)
    moved = any(
        len(options) > 1 and c in worlds.holder and not rules.is_church[c]
        for c, options in zip(worlds.strict.cards, worlds.strict.candidates, strict=True)
    )
    return proofs, moved


def positions(name: str, options: tuple[str, ...], per_kind: int) -> list[tuple[Worlds, dict[tuple[int, int], float]]]:
    """Constrained positions of random games whose consistent deals can be counted: up to ``per_kind`` with a
    payment's proof and up to ``per_kind`` with a card that may have left a hand."""
    ruleset = load_ruleset(name, list(options))
    rules = compile_rules(ruleset)
    players = min(ruleset.setups)
    found = []
    wanted = [per_kind, per_kind]
    for seed in range(6):
        state = new_game(ruleset, players, seed)
        rngs = [random.Random(seed * 7 + p) for p in range(players)]
        step = 0
        while not state.is_terminal() and any(wanted):
            step += 1
            if step % 23 == 0:
                for p in range(players):
                    worlds = Worlds(rules, state.observation(p))
                    kinds = constrained(worlds)
                    if any(need and kind for need, kind in zip(wanted, kinds)):
                        exact = enumerated_marginals(worlds)
                        if exact is not None:
                            found.append((worlds, exact))
                            wanted = [max(0, need - kind) for need, kind in zip(wanted, kinds)]
            state.apply(state.random_action(rngs[state.cur]))
    return found


@pytest.mark.parametrize(("name", "options"), SHIPPED_CHOICES)
def test_worlds_have_the_odds_of_every_consistent_deal_counted(name: str, options: tuple[str, ...]) -> None:
    for worlds, exact in positions(name, options, per_kind=2):
        assert_dealt_with_odds(worlds, exact, SAMPLES, seed=11, tolerance=TOLERANCE)


def test_the_counted_positions_include_proofs_and_cards_that_may_have_left_a_hand() -> None:
    """The sweep above meets both kinds of constraint (a test that checked only easy positions would prove little)."""
    kinds = {constrained(worlds) for name in ("biblios", "five-players-italian")
             for worlds, _exact in positions(name, (), per_kind=2)}  # fmt: skip
    assert any(proofs for proofs, _moved in kinds) and any(moved for _proofs, moved in kinds), kinds


def test_unseen_church_cards_are_anywhere_in_the_draw_pile() -> None:
    """The draw pile's order is what a search draws next: an unseen church card is as likely at its top as below."""
    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, 2, 5)
    rngs = [random.Random(1), random.Random(2)]
    for _ in range(6):
        state.apply(state.random_action(rngs[state.cur]))
    worlds = Worlds(compile_rules(ruleset), state.observation(state.cur))
    rng = random.Random(9)
    places = []
    for _ in range(800):
        draw = worlds.zones(rng)[worlds.DRAW]
        places += [i / (len(draw) - 1) for i, c in enumerate(draw) if worlds.rules.is_church[c]]
    assert abs(statistics.mean(places) - 0.5) < 0.03  # 0.054 when they were all dealt to its bottom
