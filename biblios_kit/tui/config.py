"""What a new game needs (ruleset, options, seats, names, seed, language): light, so the CLI and the setup screen
can use it without importing the engine."""

from __future__ import annotations

from dataclasses import dataclass, field

HUMAN = "human"
"""The seat spec of a person (the same value as :data:`biblios_kit.tui.saves.HUMAN`)."""

BOT_LEVELS: tuple[str, ...] = ("random", "easy", "medium", "hard")
"""The bot specs offered for a seat, weakest first."""

DEFAULT_BOT = "hard"
"""The bot a new seat gets: the strongest (it thinks in a worker thread, about 0.25 s a move)."""

AUTOPLAY_MODES: tuple[str, ...] = ("picks-payments", "all", "off")
"""The *forced moves* setting: which moves with a single legal choice are played for a person."""

DEFAULT_AUTOPLAY = "picks-payments"
"""The *forced moves* setting of a new game, and of a saved game that does not record one."""


@dataclass
class GameConfig:
    """What a new game needs: the ruleset, options, seats, names, seed and language (CLI flags fill it)."""

    ruleset: str = "biblios"
    options: tuple[str, ...] = ()
    players: int = 3
    seats: tuple[str, ...] = ()
    """``"human"`` or a bot spec per seat; missing seats are filled by :meth:`seat_specs`."""
    names: tuple[str, ...] = ()
    seed: int | None = None
    lang: str | None = None
    autoplay: str = DEFAULT_AUTOPLAY
    """Moves with a single legal choice played automatically: ``picks-payments`` (a pick from the public
    space, a payment step), ``all`` (also a forced placement or church card) or ``off``."""
    explicit: frozenset[str] = field(default_factory=frozenset)
    """Which fields the user gave explicitly (CLI flags), e.g. ``{"ruleset", "players"}``."""

    def seat_specs(self) -> tuple[str, ...]:
        """A spec per seat: the given ones, then a person in seat 1 and :data:`DEFAULT_BOT` elsewhere."""
        specs = list(self.seats[: self.players])
        while len(specs) < self.players:
            specs.append(HUMAN if not specs else DEFAULT_BOT)
        return tuple(specs)

    def seat_names(self, default_name: str = "Player {number}", bot_name: str = "Bot {number}") -> tuple[str, ...]:
        """A name per seat: the given ones, then defaults from the templates (``{number}`` is 1-based)."""
        names = list(self.names[: self.players])
        specs = self.seat_specs()
        while len(names) < self.players:
            number = len(names) + 1
            template = default_name if specs[len(names)] == HUMAN else bot_name
            names.append(template.format(number=number))
        return tuple(names)

    @property
    def complete(self) -> bool:
        """Whether the flags given describe a whole game (the setup screen can be skipped)."""
        return {"ruleset", "players", "seats"} <= self.explicit and len(self.seats) >= self.players
