"""Which compiled rules a bot plays by, found from its observation (public knowledge only)."""

from __future__ import annotations

from biblios_kit.engine.compiled import CompiledRules, compile_rules
from biblios_kit.engine.observation import Observation
from biblios_kit.rules.model import Ruleset


def rules_for(observation: Observation, hint: Ruleset | None = None) -> CompiledRules:
    """The compiled rules of the game ``observation`` comes from.

    The rules are public, but an observation names its ruleset only by id, and the same id
    may be loaded with different options. In order of preference: rules carried by the
    observation itself (an ``rules``/``ruleset`` attribute, should the engine add one), the
    ``hint`` a caller gave the bot (:meth:`set_ruleset` on our bots), the ruleset with that
    id loaded most recently in this process, and finally the ruleset loaded by id with its
    default options.
    """
    carried = getattr(observation, "rules", None)
    if isinstance(carried, CompiledRules):
        return carried
    ruleset = getattr(observation, "ruleset", None)
    if isinstance(ruleset, Ruleset):
        return compile_rules(ruleset)
    if hint is not None and hint.id == observation.ruleset_id:
        return compile_rules(hint)
    from biblios_kit.rules import loader

    built = getattr(loader, "_built", {})
    for candidate in reversed(list(built.values())):
        if isinstance(candidate, Ruleset) and candidate.id == observation.ruleset_id:
            return compile_rules(candidate)
    return compile_rules(loader.load_ruleset(observation.ruleset_id))
