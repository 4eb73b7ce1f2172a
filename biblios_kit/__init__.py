"""biblios-kit: rulesets, engine, bots, rulebooks and a terminal UI for Biblios and Scripts & Scribes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from biblios_kit import _kernel

_kernel.install()  # before any kernel module is imported: see biblios_kit/_kernel.py

from biblios_kit import messages as messages  # noqa: E402 - errors raised as data are explained in the user's language

if TYPE_CHECKING:
    from biblios_kit.engine import new_game
    from biblios_kit.rules.loader import load_ruleset

__version__ = "0.1.0"

__all__ = ["__version__", "load_ruleset", "new_game"]


def __getattr__(name: str) -> object:  # lazy, so ``import biblios_kit`` stays light for the CLI
    if name == "load_ruleset":
        from biblios_kit.rules.loader import load_ruleset

        return load_ruleset
    if name == "new_game":
        from biblios_kit.engine import new_game

        return new_game
    raise AttributeError(name)
