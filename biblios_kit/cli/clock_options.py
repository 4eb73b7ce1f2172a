"""The clock options of ``host new`` and ``host settings``: a table's clocks, absence limit and stand-in bot."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from biblios_kit.cli.common import error_prefix, fail
from biblios_kit.i18n import _

MoveSecondsOption = Annotated[
    float | None,
    typer.Option("--move-seconds", help=_("Each person's time per turn, in seconds (0: no clock, the default).")),
]
GameSecondsOption = Annotated[
    float | None,
    typer.Option("--game-seconds", help=_("Each person's time for the whole game, in seconds (0: no clock).")),
]
AbsentSecondsOption = Annotated[
    float | None,
    typer.Option(
        "--absent-seconds", help=_("Seconds a seat may stay disconnected before the stand-in plays it (0: no limit).")
    ),
]
StandInOption = Annotated[
    str | None,
    typer.Option("--stand-in", help=_("The bot that plays for a timed-out or absent person (default: medium).")),
]


def clock_fields(move: float | None, game: float | None, absent: float | None, stand_in: str | None) -> dict[str, Any]:
    """The request fields of the clock options given (checked here: a bad value exits with status 2)."""
    from biblios_kit.net.settings import TableSettings

    fields: dict[str, Any] = {}
    for key, value in (("move_seconds", move), ("game_seconds", game), ("absent_seconds", absent),
                       ("stand_in", stand_in)):  # fmt: skip
        if value is not None:
            fields[key] = value
    try:
        TableSettings().changed(fields)
    except ValueError as error:
        fail(f"{error_prefix()} {error}")
    return fields


def clock_line(settings: dict[str, Any]) -> str | None:
    """A table's clocks in words for ``host tables`` / ``host settings`` (``None`` when it has none)."""
    parts = []

    def seconds(key: str) -> float:
        value = settings.get(key)
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0

    if seconds("move_seconds"):
        parts.append(_("{seconds:g} s per turn").format(seconds=seconds("move_seconds")))
    if seconds("game_seconds"):
        parts.append(_("{seconds:g} s per game").format(seconds=seconds("game_seconds")))
    if seconds("absent_seconds"):
        parts.append(_("stand-in after {seconds:g} s away").format(seconds=seconds("absent_seconds")))
    if not parts:
        return None
    from biblios_kit.names import clean_text

    bot = clean_text(str(settings.get("stand_in", "")), limit=40)
    return _("clocks: {clocks} (stand-in: {bot})").format(clocks=" · ".join(parts), bot=bot)
