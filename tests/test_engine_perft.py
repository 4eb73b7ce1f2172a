"""Perft counts from fixed positions (tests/data/perft.txt): every rule reachable below them, as one number."""

from __future__ import annotations

import random

import pytest
from conftest import perft_position, perft_rows

from biblios_kit.engine import new_game
from biblios_kit.engine.perft import divide, perft
from biblios_kit.rules import load_ruleset


@pytest.mark.parametrize("row", perft_rows(), ids=lambda row: f"{row[0]}-p{row[1]}-{row[3].lower()}")
def test_perft_counts(row: tuple[str, int, int, str, int, int, int]) -> None:
    spec, players, seed, phase, occurrence, depth, count = row
    state = perft_position(spec, players, seed, phase, occurrence)
    assert state.phase.name == phase
    assert perft(state, depth) == count


def test_perft_covers_every_kind_of_decision() -> None:
    assert {row[3] for row in perft_rows()} == {"GIFT", "PICK", "CHURCH", "BIDDING", "PAYMENT"}


def test_divide_adds_up_and_leaves_the_position_unchanged() -> None:
    spec, players, seed, phase, occurrence, depth, count = perft_rows()[1]
    state = perft_position(spec, players, seed, phase, occurrence)
    before = (state.actions, state.rng.getstate(), state.hand(0))
    split = divide(state, depth)
    assert sorted(split) == sorted(state.legal_actions())
    assert sum(split.values()) == count
    assert (state.actions, state.rng.getstate(), state.hand(0)) == before


def test_perft_of_a_finished_game_is_one_leaf() -> None:
    state = new_game(load_ruleset("biblios"), 2, 3)
    state.playout(random.Random(3))
    assert perft(state, 5) == 1
