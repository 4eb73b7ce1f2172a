"""The :class:`Bot` protocol: choose an action from an observation, never from the state."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from biblios_kit.engine.actions import Action
from biblios_kit.engine.observation import Observation


@runtime_checkable
class Bot(Protocol):
    """A player program.

    ``choose`` receives the observation of the bot's own seat at a moment it must decide
    (``observation.legal_actions`` is not empty) and returns one of those actions. A bot
    keeps its own seeded RNG, so a game with bots is reproducible from the seeds.
    """

    name: str
    """The spec it was made from (``"random"``, ``"hard:iterations=2000"`` ...)."""

    def choose(self, observation: Observation) -> Action:
        """Return one of ``observation.legal_actions``."""
        ...
