"""The rules a bot plays by: given when it is made, checked against each observation (public knowledge only)."""

from __future__ import annotations

from biblios_kit.engine.compiled import CompiledRules
from biblios_kit.engine.observation import Observation
from biblios_kit.engine.worlds import identified_cards


def checked_rules(rules: CompiledRules, observation: Observation) -> CompiledRules:
    """``rules``, the compiled ruleset a bot was made with, once ``observation`` is shown to come from a game of them.

    A bot is given its ruleset (options included) when it is made, as OpenSpiel hands its bots
    the game: nothing looks rules up by name. The observation carries its ruleset's content
    hash; an observation of another ruleset (other options, another edition) is a
    ``ValueError``, never a game played by the wrong rules.
    """
    if observation.ruleset_hash != rules.ruleset.content_hash:
        raise ValueError(
            f"this bot was made for ruleset {rules.ruleset.id} ({rules.ruleset.content_hash[:12]}), "
            f"not {observation.ruleset_id} ({observation.ruleset_hash[:12]})"
        )
    return rules


__all__ = ["checked_rules", "identified_cards"]
