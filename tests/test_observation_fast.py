"""The incremental observation equals one built from the whole log, at every decision of random games."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biblios_kit.engine import new_game
from biblios_kit.engine.observation import observe, observe_full
from biblios_kit.engine.state import GameState
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import Ruleset

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["biblios", "scripts-and-scribes"] + sorted(p.stem for p in (ROOT / "rulesets" / "variants").glob("*.yaml"))


@st.composite
def games(draw: st.DrawFn) -> tuple[Ruleset, int, int]:
    name = draw(st.sampled_from(NAMES))
    base = load_ruleset(name)
    options = draw(st.lists(st.sampled_from(sorted(base.options)), unique=True)) if base.options else []
    ruleset = load_ruleset(name, options)
    players = draw(st.sampled_from(sorted(ruleset.setups)))
    return ruleset, players, draw(st.integers(0, 2**31))


def _check_every_seat(state: GameState) -> int:
    for p in range(state.n):
        fast, full = observe(state, p), observe_full(state, p)
        assert fast == full, p
        assert fast.key == full.key
        # the legal actions are the state's (a bidder's come from a tuple shared per range of bids)
        assert fast.legal_actions == (tuple(state.legal()) if state.current_player == p else ())
    return state.n


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_fast_observation_equals_a_full_one_at_every_decision(game: tuple[Ruleset, int, int]) -> None:
    ruleset, players, seed = game
    state = new_game(ruleset, players, seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        _check_every_seat(state)
        state.apply(state.random_action(rng))
    _check_every_seat(state)


def test_interleaved_games_clones_and_resampled_worlds_keep_their_own_views() -> None:
    """Many logs at once (more than the cache holds), clones that grow apart, worlds with a redacted log."""
    ruleset = load_ruleset("biblios", ["medieval-bluff"])
    rng = random.Random(4)
    states = [new_game(ruleset, 3, seed) for seed in range(30)]
    checked = 0
    for turn in range(120):
        for i, state in enumerate(states):
            if state.is_terminal():
                continue
            state.apply(state.random_action(rng))
            if turn % 10 == i % 10:
                checked += _check_every_seat(state)
                clone = state.clone()
                for _ in range(5):
                    if not clone.is_terminal():
                        clone.apply(clone.random_action(rng))
                checked += _check_every_seat(clone)
                checked += _check_every_seat(state)
                if state.current_player is not None:
                    world = state.resample(state.current_player, rng)
                    checked += _check_every_seat(world)
    assert checked > 300


def test_a_cached_view_is_not_changed_by_later_events() -> None:
    """Observations are frozen values: one taken earlier stays what it was."""
    state = new_game(load_ruleset("biblios"), 2, 8)
    rng = random.Random(8)
    for _ in range(40):
        state.apply(state.random_action(rng))
    before = observe(state, 0)
    copy = observe_full(state, 0)
    for _ in range(40):
        state.apply(state.random_action(rng))
        observe(state, 0)
    assert before == copy
