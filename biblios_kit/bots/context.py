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


def identified_cards(obs: Observation) -> frozenset[int]:
    """Cards whose place this player knows exactly now: own hand, public space, face-up
    discards, own unrevealed auction-pile cards and face-down losses, the card in hand to
    place or kept this turn, the card under auction and the church card being resolved."""
    known = set(obs.hand)
    known.update(obs.public)
    known.update(obs.discard)
    known.update(obs.my_auction_cards)
    known.update(obs.my_buried)
    if obs.drawn is not None:
        known.add(obs.drawn)
    if obs.kept is not None:
        known.add(obs.kept)
    if obs.auction is not None:
        known.add(obs.auction.card)
    if obs.church is not None:
        known.add(obs.church[1])
    return frozenset(known)
