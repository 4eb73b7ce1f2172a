"""Make bots from text specs (``random``, ``medium``, ``hard:iterations=2000:seconds=0.5``).

A spec is a bot name, then optional ``:key=value`` parameters (ints, floats or words).
Each name maps lazily to a module that defines
``create_bot(name: str, seed: int, params: dict[str, object], ruleset: Ruleset) -> Bot``; the
module is imported only when such a bot is asked for. A bot is given the ruleset it plays
(with its options) when it is made, as OpenSpiel hands its bots the game: no bot looks its
rules up anywhere else.
"""

from __future__ import annotations

import importlib

from biblios_kit.bots.base import Bot
from biblios_kit.errors import BotSpecError
from biblios_kit.rules.model import Ruleset

BOT_MODULES: dict[str, str] = {
    "random": "biblios_kit.bots.random_bot",
    "easy": "biblios_kit.bots.heuristic",
    "medium": "biblios_kit.bots.heuristic",
    "hard": "biblios_kit.bots.ismcts",
}
"""Bot name -> module providing ``create_bot``."""


__all__ = ["BOT_MODULES", "BotSpecError", "bot_names", "check_spec", "make_bot", "parse_spec"]


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
        raise BotSpecError("bot-spec-empty", spec=spec)
    name, *rest = spec.strip().split(":")
    name = name.strip().lower()
    if name not in BOT_MODULES:
        raise BotSpecError("bot-unknown", name=name, known=tuple(bot_names()))
    params: dict[str, object] = {}
    for item in rest:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise BotSpecError("bot-spec-item", spec=spec, item=item)
        params[key.strip()] = _value(value.strip())
    return name, params


def make_bot(spec: str, seed: int, ruleset: Ruleset) -> Bot:
    """Make the bot described by ``spec`` for games of ``ruleset`` (options applied), its RNG seeded from ``seed``."""
    name, params = parse_spec(spec)
    module_name = BOT_MODULES[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise
        raise BotSpecError("bot-unavailable", name=name, module=module_name) from None
    factory = getattr(module, "create_bot", None)
    if factory is None:
        raise BotSpecError("bot-no-factory", module=module_name)
    try:
        bot: Bot = factory(name, seed, params, ruleset)
    except (TypeError, ValueError) as error:
        raise BotSpecError("bot-spec-bad", spec=spec.strip(), reason=error) from None
    bot.name = spec.strip()
    return bot


def check_spec(spec: str, ruleset: Ruleset | None = None) -> Bot:
    """Raise :class:`BotSpecError` unless ``spec`` makes a bot (for ``ruleset``; by default the
    first shipped edition, since a bot's parameters do not depend on the rules); return it."""
    if ruleset is None:
        from biblios_kit.rules.loader import load_ruleset

        ruleset = load_ruleset("biblios")
    return make_bot(spec, 0, ruleset)
