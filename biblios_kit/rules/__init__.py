"""Rulesets as data: the YAML format, its loader and checks, and the frozen :class:`Ruleset`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from biblios_kit.rules.loader import available_rulesets, load_ruleset, resolve_ruleset
    from biblios_kit.rules.model import Ruleset

__all__ = ["Ruleset", "available_rulesets", "load_ruleset", "resolve_ruleset"]


def __getattr__(name: str) -> Any:
    # Lazy, so that ``biblios_kit.rules.schema`` or ``.model`` can be imported without YAML and the loader.
    if name == "Ruleset":
        from biblios_kit.rules.model import Ruleset

        return Ruleset
    if name in ("available_rulesets", "load_ruleset", "resolve_ruleset"):
        from biblios_kit.rules import loader

        return getattr(loader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
