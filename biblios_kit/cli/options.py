"""The command-line flags shared by commands, declared once: one spelling and one help text per concept.

``--ruleset/-r``, ``--option/-o``, ``--players/-p``, ``--seed/-s``, ``--bots/-b`` and ``--lang``
mean the same in every command (``play``, ``simulate``, ``rules show/search``, ``lab``); the
older ``play -n`` still works for ``--players``. Each flag is one ``typer.Option`` (``RULESET``,
``OPTION``, ``PLAYERS``, ``SEED``, ``BOTS``) that a command pairs with the type and default it
needs (``Annotated[str, RULESET] = "biblios"``); the ``...Option`` aliases are the common
pairings. Parsers for the list-valued flags turn bad input into a :class:`FlagError` whose
message names the flag.
"""

from __future__ import annotations

from typing import Annotated

import typer

from biblios_kit.bounded import count_of
from biblios_kit.cli.common import LangOption
from biblios_kit.errors import BibliosError
from biblios_kit.i18n import _

__all__ = [
    "BOTS",
    "OPTION",
    "PLAYERS",
    "RULESET",
    "SEED",
    "BotsOption",
    "FlagError",
    "LangOption",
    "OptionOption",
    "PlayersListOption",
    "PlayersOption",
    "RulesetOption",
    "RulesetsOption",
    "SeedOption",
    "parse_bots",
    "parse_players",
]


class FlagError(BibliosError, ValueError):
    """A flag's value that cannot be used; the message names the flag."""


RULESET = typer.Option("--ruleset", "-r", help=_("Ruleset id, alias or file."))
OPTION = typer.Option("--option", "-o", help=_("Switch on a ruleset option (repeatable)."))
PLAYERS = typer.Option("--players", "-p", "-n", help=_("Number of players."))
SEED = typer.Option("--seed", "-s", help=_("Seed: the same seed gives the same games."))

RulesetOption = Annotated[str | None, RULESET]
"""``--ruleset/-r``: one ruleset by id, alias or file (give a default, or treat ``None`` as not given)."""

RulesetsOption = Annotated[
    list[str] | None, typer.Option("--ruleset", "-r", help=_("Ruleset id, alias or file (repeatable)."))
]
"""``--ruleset/-r`` for commands that take several rulesets."""

OptionOption = Annotated[list[str] | None, OPTION]
"""``--option/-o``: a ruleset option to switch on, repeatable."""

PlayersOption = Annotated[int, PLAYERS]
"""``--players/-p``: one player count."""

PlayersListOption = Annotated[
    str, typer.Option("--players", "-p", help=_("Player counts, comma-separated (for example 2,3,4)."))
]
"""``--players/-p`` for commands that take several player counts (parse with :func:`parse_players`)."""

SeedOption = Annotated[int, SEED]
"""``--seed/-s``: the seed everything random in a run derives from."""

BOTS = typer.Option(
    "--bots",
    "-b",
    help=_(
        "Bot specs, comma-separated: one for every seat, or one per seat (random, easy, medium, hard:iterations=500)."
    ),
)
BotsOption = Annotated[str, BOTS]
"""``--bots/-b``: bot specs (parse with :func:`parse_bots`)."""


def parse_players(text: str) -> tuple[int, ...]:
    """``"2,3,4"`` -> ``(2, 3, 4)``; raise :class:`FlagError` naming ``--players`` otherwise."""
    counts: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        count = count_of(part)
        if count is None or count < 1:
            raise FlagError(_("--players expects player counts such as 2,3,4, got {value!r}").format(value=part))
        counts.append(count)
    if not counts:
        raise FlagError(_("--players expects at least one player count"))
    return tuple(dict.fromkeys(counts))


def parse_bots(text: str) -> tuple[str, ...]:
    """``"medium,easy"`` -> ``("medium", "easy")``, each spec checked by the bot registry; raise :class:`FlagError`."""
    from biblios_kit.bots.registry import BotSpecError, check_spec

    specs = tuple(spec.strip() for spec in text.split(",") if spec.strip())
    if not specs:
        raise FlagError(_("--bots needs at least one bot spec"))
    for spec in dict.fromkeys(specs):
        try:
            check_spec(spec)
        except BotSpecError as error:
            raise FlagError(f"--bots: {error}") from None
    return specs
