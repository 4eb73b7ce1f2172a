"""A table's settings on the game server: who may ask for hints, whether spectators may watch, whether it is open.

Chosen when the table is created (``POST /api/tables``, ``host new --hints --no-spectators``),
changed by the server's admin (``POST /api/tables/{id}/settings``), stored with the table
and sent to every seat and spectator (the ``table_info`` message), so everyone at a table
knows its rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from biblios_kit.i18n import _

HINT_MODES: tuple[str, ...] = ("off", "on", "bots-only")
"""``hints``: nobody, everybody, or only at a table where one person plays against bots."""

DEFAULT_HINTS = "bots-only"
"""Hints are off as soon as two people play at the table, on for one person against bots."""

DEFAULT_STAND_IN = "medium"
"""The bot that plays for an absent or timed-out person unless the table names another."""

MAX_SECONDS = 7 * 24 * 3600
"""The longest clock or absence limit a table may have (a week: correspondence games)."""


@dataclass(frozen=True)
class TableSettings:
    """The settings of one table."""

    hints: str = DEFAULT_HINTS
    """One of :data:`HINT_MODES`."""
    spectators: bool = True
    """Whether the table's public view (the spectator page, the API without a token) is served."""
    open: bool = False
    """Whether the server's public lobby (``host --lobby``) lists the table, so that visitors take its free seats."""
    move_seconds: float = 0.0
    """Seconds a person has for each turn (0: no move clock); then the stand-in plays for them."""
    game_seconds: float = 0.0
    """Seconds a person has for the whole game (0: no game clock); then the stand-in plays their seat to the end."""
    absent_seconds: float = 0.0
    """Seconds a person's seat may stay disconnected before the stand-in plays for it (0: never)."""
    stand_in: str = DEFAULT_STAND_IN
    """The bot spec (``"medium"``, ``"hard"`` ...) that plays a timed-out, absent or voted-out seat."""

    @property
    def clocked(self) -> bool:
        """Whether any clock or the absence limit is on (:mod:`biblios_kit.net.clocks` keeps them)."""
        return bool(self.move_seconds or self.game_seconds or self.absent_seconds)

    def to_json(self) -> dict[str, object]:
        """The settings as stored and sent: ``{"hints": ..., "spectators": ..., "open": ..., "move_seconds": ...}``."""
        return {"hints": self.hints, "spectators": self.spectators, "open": self.open,
                "move_seconds": self.move_seconds, "game_seconds": self.game_seconds,
                "absent_seconds": self.absent_seconds, "stand_in": self.stand_in}  # fmt: skip

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> TableSettings:
        """Stored settings (a value this version does not know falls back to its default)."""
        hints = data.get("hints")
        spectators = data.get("spectators")
        is_open = data.get("open")
        return cls(
            hints=hints if isinstance(hints, str) and hints in HINT_MODES else DEFAULT_HINTS,
            spectators=spectators if isinstance(spectators, bool) else True,
            open=is_open if isinstance(is_open, bool) else False,
            move_seconds=_stored_seconds(data.get("move_seconds")),
            game_seconds=_stored_seconds(data.get("game_seconds")),
            absent_seconds=_stored_seconds(data.get("absent_seconds")),
            stand_in=stand_in if isinstance(stand_in := data.get("stand_in"), str) and stand_in else DEFAULT_STAND_IN,
        )

    def changed(self, data: Mapping[str, object]) -> TableSettings:
        """These settings with the fields of a request body changed (``ValueError`` with the reason for a bad one).

        Only the fields of :meth:`to_json` are read; other fields are left to the caller.
        """
        settings = self
        if "hints" in data:
            hints = data["hints"]
            if not isinstance(hints, str) or hints not in HINT_MODES:
                raise ValueError(_('"hints" must be one of: {modes}').format(modes=", ".join(HINT_MODES)))
            settings = replace(settings, hints=hints)
        if "spectators" in data:
            spectators = data["spectators"]
            if not isinstance(spectators, bool):
                raise ValueError(_('"spectators" must be true or false'))
            settings = replace(settings, spectators=spectators)
        if "open" in data:
            is_open = data["open"]
            if not isinstance(is_open, bool):
                raise ValueError(_('"open" must be true or false'))
            settings = replace(settings, open=is_open)
        if "move_seconds" in data:
            settings = replace(settings, move_seconds=_seconds(data, "move_seconds"))
        if "game_seconds" in data:
            settings = replace(settings, game_seconds=_seconds(data, "game_seconds"))
        if "absent_seconds" in data:
            settings = replace(settings, absent_seconds=_seconds(data, "absent_seconds"))
        if "stand_in" in data:
            spec = data["stand_in"]
            from biblios_kit.bots.registry import BotSpecError, parse_spec

            if not isinstance(spec, str) or not spec or spec == "human" or len(spec) > 100:
                raise ValueError(_('"stand_in" must name a bot, such as "medium"'))
            try:
                parse_spec(spec)
            except BotSpecError as error:
                raise ValueError(f'"stand_in" {spec!r}: {error}') from None
            settings = replace(settings, stand_in=spec)
        return settings

    def hints_allowed(self, seats: Sequence[str], human: str = "human") -> bool:
        """Whether the people at a table with these seat specs may ask for hints."""
        if self.hints == "bots-only":
            return sum(spec == human for spec in seats) <= 1
        return self.hints == "on"


def _stored_seconds(value: object) -> float:
    """A stored clock setting (anything but a number from 0 to :data:`MAX_SECONDS` reads as 0: off)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= MAX_SECONDS:
        return 0.0
    return float(value)


def _seconds(data: Mapping[str, object], key: str) -> float:
    """The clock setting ``key`` of a request body (``ValueError`` unless a number from 0 to :data:`MAX_SECONDS`)."""
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= MAX_SECONDS:
        message = _('"{key}" must be a number of seconds from 0 (off) to {limit}')
        raise ValueError(message.format(key=key, limit=MAX_SECONDS))
    return float(value)
