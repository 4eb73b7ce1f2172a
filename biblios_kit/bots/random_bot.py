"""The random bot: uniform over the legal actions, from its own seeded RNG."""

from __future__ import annotations

import random

from biblios_kit.bots.params import check_names
from biblios_kit.engine.actions import Action
from biblios_kit.engine.observation import Observation
from biblios_kit.rules.model import Ruleset


class RandomBot:
    """Chooses uniformly among the legal actions.

    ``choose`` draws ``legal[int(rng.random() * len(legal))]``; the engine's
    :meth:`~biblios_kit.engine.GameState.random_action` draws the very same action from
    the same RNG without building the observation, which the simulator uses as a fast path.
    """

    def __init__(self, seed: int, name: str = "random") -> None:
        self.name = name
        self.rng = random.Random(seed)

    def choose(self, observation: Observation) -> Action:
        """A uniformly random legal action."""
        legal = observation.legal_actions
        if not legal:
            raise ValueError(f"player {observation.player} has no decision to make")
        return legal[int(self.rng.random() * len(legal))]


def create_bot(name: str, seed: int, params: dict[str, object], ruleset: Ruleset) -> RandomBot:
    """Registry hook: the random bot takes no parameters (and needs no rules: it plays the legal actions)."""
    check_names(params, ())
    return RandomBot(seed, name)
