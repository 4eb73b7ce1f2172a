"""Make bots from text specs (``random``, ``medium``, ``hard:iterations=2000:seconds=0.5``).

A spec is a bot name, then optional ``:key=value`` parameters (ints, floats or words).
Each name maps lazily to a module that defines
``create_bot(name: str, seed: int, params: dict[str, object]) -> Bot``; the module is
imported only when such a bot is asked for.
"""

from __future__ import annotations

import importlib

from biblios_kit.bots.base import Bot
from biblios_kit.i18n import _

BOT_MODULES: dict[str, str] = {
    "random": "biblios_kit.bots.random_bot",
    "easy": "biblios_kit.bots.heuristic",
    "medium": "biblios_kit.bots.heuristic",
    "hard": "biblios_kit.bots.ismcts",
}
"""Bot name -> module providing ``create_bot``."""


class BotSpecError(ValueError):
    """A bot spec that names no bot, has a malformed parameter, or a bot that cannot be loaded."""


def bot_names() -> list[str]:
    """The bot names a spec may start with."""
    return sorted(BOT_MODULES)


def _value(text: str) -> object:
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def parse_spec(spec: str) -> tuple[str, dict[str, object]]:
    """Split ``spec`` into (name, parameters); raise :class:`BotSpecError` if malformed."""
    if not isinstance(spec, str) or not spec.strip():
        raise BotSpecError(_("empty bot spec {spec!r}").format(spec=spec))
    name, *rest = spec.strip().split(":")
    name = name.strip().lower()
    if name not in BOT_MODULES:
        raise BotSpecError(_("unknown bot {name!r}; known: {known}").format(name=name, known=", ".join(bot_names())))
    params: dict[str, object] = {}
    for item in rest:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise BotSpecError(_("expected key=value in bot spec {spec!r}, got {item!r}").format(spec=spec, item=item))
        params[key.strip()] = _value(value.strip())
    return name, params


def make_bot(spec: str, seed: int) -> Bot:
    """Make the bot described by ``spec`` with its RNG seeded from ``seed``."""
    name, params = parse_spec(spec)
    module_name = BOT_MODULES[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise
        raise BotSpecError(f"the {name!r} bot is not available yet (module {module_name} is missing)") from None
    factory = getattr(module, "create_bot", None)
    if factory is None:
        raise BotSpecError(f"module {module_name} has no create_bot(name, seed, params)")
    try:
        bot: Bot = factory(name, seed, params)
    except (TypeError, ValueError) as error:
        raise BotSpecError(_("bad bot spec {spec!r}: {reason}").format(spec=spec.strip(), reason=error)) from None
    bot.name = spec.strip()
    return bot
