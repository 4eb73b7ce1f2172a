"""Rulesets as data: the YAML format, its loader and checks, and the frozen :class:`Ruleset`."""

from biblios_kit.rules.loader import available_rulesets, load_ruleset
from biblios_kit.rules.model import Ruleset

__all__ = ["Ruleset", "available_rulesets", "load_ruleset"]
