"""An observation crosses the network whole: what a winner who could not pay proved reaches a client's bots."""

from __future__ import annotations

import random

import pytest

from biblios_kit.engine import new_game
from biblios_kit.engine.actions import format_action
from biblios_kit.engine.observation import Observation
from biblios_kit.net.protocol import ProtocolError, observation_from_json, observation_to_json, validate
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
