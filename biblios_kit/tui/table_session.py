"""What the table screen needs of a game: one protocol for a local game and for a seat at a server's table.

:class:`~biblios_kit.tui.session.GameSession` (a game played on this machine) and
:class:`~biblios_kit.net.remote.RemoteSession` (one seat of a table on a game server) both
implement :class:`TableSession`, so the screens, the dialogs and the type checker see one API
and never a cast.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from biblios_kit.bots.base import Bot
    from biblios_kit.engine.events import Event
    from biblios_kit.engine.observation import Observation
    from biblios_kit.engine.scoring import GameResult
    from biblios_kit.engine.state import GameState, Phase
    from biblios_kit.rules.model import Ruleset


class SeatUnavailable(Exception):
    """A question of the seat the game could not answer: its server refused it (the game moved on
    meanwhile) or could not be reached. The message is safe to show."""


class TableSession(Protocol):
    """A game as the table shows it: who sits where, what a seat may see, and the actions it sends."""

    ruleset: Ruleset
    """The rules of the game."""
    names: tuple[str, ...]
    """Every seat's name, already cleaned (content, never markup)."""
    seats: tuple[str, ...]
    """Every seat's kind: ``human`` or a bot's spec."""
    lang: str | None
    """The language the game was last shown in (saved with a local game)."""
    autoplay: str
    """The *forced moves* setting (one of :data:`~biblios_kit.tui.config.AUTOPLAY_MODES`)."""
    bots: dict[int, Bot]
    """The bots this machine runs, by seat (none for a seat at a server's table)."""
    save_error: str | None
    """Why the last save failed, if it did."""

    @property
    def players(self) -> int:
        """Number of seats."""

    @property
    def humans(self) -> tuple[int, ...]:
        """The seats played by people at this screen."""

    @property
    def current(self) -> int | None:
        """The seat that must decide now (``None`` at the end)."""

    @property
    def phase(self) -> Phase:
        """The phase of the game."""

    @property
    def over(self) -> bool:
        """Whether the game is over."""

    @property
    def full_state(self) -> GameState | None:
        """The whole game when this machine holds it (replay, review); ``None`` for a seat at a server's table."""

    def is_human(self, seat: int) -> bool:
        """Whether ``seat`` is played by a person at this screen."""

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know now."""

    def legal_actions(self) -> tuple[int, ...]:
        """The current seat's legal actions (none while actions sent elsewhere are on their way)."""

    def events_since(self, viewer: int | None, start: int) -> list[Event]:
        """The game's events from index ``start`` as ``viewer`` may see them (``None``: what everybody sees)."""

    def payment_options(self, prefix: Sequence[int]) -> tuple[int, ...] | None:
        """The payer's legal actions after paying ``prefix``, or ``None`` once the payment is complete.

        :class:`SeatUnavailable` when a server is asked and cannot answer.
        """

    def apply_all(self, actions: Sequence[int]) -> None:
        """Play several actions of the current seat in order (one, or a whole payment)."""

    def save(self) -> None:
        """Keep the game (a local game writes its record; a server saves by itself)."""

    def result(self) -> GameResult:
        """The final result; ``ValueError`` before the end."""
