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


@dataclass(frozen=True)
class TableSettings:
    """The settings of one table."""

    hints: str = DEFAULT_HINTS
    """One of :data:`HINT_MODES`."""
    spectators: bool = True
    """Whether the table's public view (the spectator page, the API without a token) is served."""
    open: bool = False
    """Whether the server's public lobby (``host --lobby``) lists the table, so that visitors take its free seats."""

    def to_json(self) -> dict[str, object]:
        """The settings as stored and sent: ``{"hints": ..., "spectators": ..., "open": ...}``."""
        return {"hints": self.hints, "spectators": self.spectators, "open": self.open}

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
        )

    def changed(self, data: Mapping[str, object]) -> TableSettings:
        """These settings with the fields of a request body changed (``ValueError`` with the reason for a bad one).

        Only ``hints``, ``spectators`` and ``open`` are read; other fields are left to the caller.
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
        return settings

    def hints_allowed(self, seats: Sequence[str], human: str = "human") -> bool:
        """Whether the people at a table with these seat specs may ask for hints."""
        if self.hints == "bots-only":
            return sum(spec == human for spec in seats) <= 1
        return self.hints == "on"
