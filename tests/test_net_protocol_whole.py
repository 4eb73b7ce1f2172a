"""Observations and results cross the network whole: what a winner who could not pay proved reaches a client's
bots, and a result keeps its multiplied dice, set bonuses and count tie-breaks."""

from __future__ import annotations

import random

import pytest

from biblios_kit.engine import new_game
from biblios_kit.engine.actions import format_action
from biblios_kit.engine.observation import Observation
from biblios_kit.net.protocol import (
    ProtocolError,
    observation_from_json,
    observation_to_json,
    result_from_json,
    result_to_json,
    validate,
)
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import Ruleset


def _observations_with_unpaid_facts(count: int) -> list[tuple[Ruleset, Observation]]:
    ruleset = load_ruleset("biblios")
    found: list[tuple[Ruleset, Observation]] = []
    for seed in range(200):
        state = new_game(ruleset, 3, seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            seat = state.current_player
            assert seat is not None
            obs = state.observation(seat)
            if obs.unpaid:
                found.append((ruleset, obs))
                if len(found) == count:
                    return found
            state.apply(state.random_action(rng))
    return found


def test_unpaid_facts_survive_the_round_trip_and_match_the_schema() -> None:
    cases = _observations_with_unpaid_facts(20)
    assert len(cases) == 20, "random play should leave winners unable to pay"
    for ruleset, obs in cases:
        legal = [format_action(ruleset, action) for action in obs.legal_actions]
        data = observation_to_json(obs, legal)
        validate(data, "observation")
        back = observation_from_json(data, obs.legal_actions)
        assert back.unpaid == obs.unpaid
        assert back == obs


def test_a_view_of_an_older_server_without_unpaid_still_reads_and_a_malformed_one_is_refused() -> None:
    ((ruleset, obs),) = _observations_with_unpaid_facts(1)
    data = observation_to_json(obs, [format_action(ruleset, action) for action in obs.legal_actions])
    older = {name: value for name, value in data.items() if name != "unpaid"}
    assert observation_from_json(older, obs.legal_actions).unpaid == ()
    for bad in ([[0, 1, 2]], [[0, 1, 2, [3], 4]], ["x"], [[0, 1, "two", []]]):
        with pytest.raises(ProtocolError):
            observation_from_json({**data, "unpaid": bad}, obs.legal_actions)


def test_cards_lost_unseen_cross_the_network_and_an_older_server_s_view_counts_none() -> None:
    """At three players, a rival's card another rival takes in a penalty is lost unseen by the third: the
    count reaches a client's bots whole (the cards seen entering that hand may have left it)."""
    cases = [(ruleset, obs) for ruleset, obs in _observations_with_unpaid_facts(20) if any(obs.cards_lost)]
    assert cases, "random play at three players should have penalties a seat did not see"
    for ruleset, obs in cases:
        data = observation_to_json(obs, [format_action(ruleset, action) for action in obs.legal_actions])
        validate(data, "observation")
        assert observation_from_json(data, obs.legal_actions).cards_lost == obs.cards_lost
        older = {name: value for name, value in data.items() if name != "cards_lost"}
        assert observation_from_json(older, obs.legal_actions).cards_lost == (0,) * obs.players


@pytest.mark.parametrize(
    ("variant", "options"),
    [("complete-library", ("count-the-books",)), ("complete-library", ()), ("ties-counting-cards", ())],
)
def test_a_result_of_scoring_as_data_survives_the_round_trip(variant: str, options: tuple[str, ...]) -> None:
    ruleset = load_ruleset(variant, list(options))
    seen_multiplier = seen_bonus = False
    for seed in range(40):
        state = new_game(ruleset, 3, seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply(state.random_action(rng))
        result = state.result()
        data = result_to_json(result)
        validate(data, "result")
        assert result_from_json(data) == result
        seen_multiplier |= any(a.multiplier != 1 for c in result.categories for a in c.awards)
        seen_bonus |= any(b.players for b in result.bonuses)
    if options:
        assert seen_multiplier
    elif variant == "complete-library":
        assert seen_bonus
