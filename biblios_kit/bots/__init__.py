"""Players that are not people: every bot sees only its :class:`~biblios_kit.engine.Observation`.

Make one from a spec with :func:`biblios_kit.bots.registry.make_bot` (``random``,
``easy``, ``medium``, ``hard:iterations=2000`` ...).
"""

from biblios_kit.bots.base import Bot
from biblios_kit.bots.registry import BotSpecError, bot_names, make_bot, parse_spec

__all__ = ["Bot", "BotSpecError", "bot_names", "make_bot", "parse_spec"]
