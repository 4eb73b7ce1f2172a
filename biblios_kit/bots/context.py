"""Which compiled rules a bot plays by, found from its observation (public knowledge only)."""

from __future__ import annotations

from biblios_kit.engine.compiled import CompiledRules, compile_rules, compiled_for_hash
from biblios_kit.engine.observation import Observation
from biblios_kit.rules.model import Ruleset


def rules_for(observation: Observation, hint: Ruleset | None = None) -> CompiledRules:
    """The compiled rules of the game ``observation`` comes from.

    The rules are public. The observation carries its ruleset's content hash, which names
    the exact rules (options included); the game compiled them in this process. Failing
    that (an observation made elsewhere), the ``hint`` a caller gave the bot
    (:meth:`set_ruleset` on our bots) if its hash matches, and last the ruleset loaded by
    id with its default options.
    """
    compiled = compiled_for_hash(observation.ruleset_hash)
    if compiled is not None:
        return compiled
    if hint is not None and hint.content_hash == observation.ruleset_hash:
        return compile_rules(hint)
    from biblios_kit.rules import loader

    return compile_rules(loader.load_ruleset(observation.ruleset_id))
