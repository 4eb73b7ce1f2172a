"""The game behind the TUI: seats, names, bots, the engine state and autosave (no widgets here).

The screens render a :class:`GameSession` and send it actions; it owns the
:class:`~biblios_kit.engine.GameState`, checks every action against the engine, and
saves the game record after each one. Widgets never touch the state directly.

A continued game gets fresh chance: what nobody has seen yet is dealt again from a new
seed (:func:`~biblios_kit.engine.reseed.reseed`, recorded in the save so it still
replays exactly) and the bots get new seeds, so continuing the same save twice does not
show the draws or bot moves to come.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from biblios_kit.bots.base import Bot
from biblios_kit.bots.seeds import bot_seed
from biblios_kit.engine.events import Event, to_event
from biblios_kit.engine.observation import Observation
from biblios_kit.engine.reseed import reseed
from biblios_kit.engine.scoring import GameResult
from biblios_kit.engine.state import GameState, Phase, new_game
from biblios_kit.i18n import _
from biblios_kit.names import clean_name
from biblios_kit.resources import saved_game_path
from biblios_kit.rules.model import Ruleset
from biblios_kit.tui.config import AUTOPLAY_MODES, DEFAULT_AUTOPLAY, GameConfig
from biblios_kit.tui.public_cards import public_events
from biblios_kit.tui.saves import HUMAN, SavedGame, save_text, write_save


def fresh_seed() -> int:
    """A seed from the operating system's entropy (63 bits), for a continued game's new chance."""
    return secrets.randbits(63)


BACKGROUND_SAVE_DELAY = 0.03
"""Seconds the writer thread waits before writing a save (see :meth:`GameSession.write_in_background`)."""


class GameSession:
    """One game being played in the TUI: the engine state plus who sits where (a
    :class:`~biblios_kit.tui.table_session.TableSession`)."""

    def __init__(
        self,
        ruleset: Ruleset,
        state: GameState,
        seats: Sequence[str],
        names: Sequence[str],
        lang: str | None = None,
        save_to: Path | None = None,
        autosave: bool = True,
        bot_seeds: int | None = None,
        autoplay: str = DEFAULT_AUTOPLAY,
    ) -> None:
        """``bot_seeds`` is what the bots' seeds derive from (default: the game seed); ``autoplay`` is the
        *forced moves* setting (one of :data:`~biblios_kit.tui.config.AUTOPLAY_MODES`), saved with the game."""
        from biblios_kit.bots.registry import make_bot

        if len(seats) != state.players or len(names) != state.players:
            raise ValueError(f"expected {state.players} seats and names, got {len(seats)} and {len(names)}")
        if autoplay not in AUTOPLAY_MODES:
            raise ValueError(f"unknown forced-moves setting {autoplay!r}")
        self.ruleset = ruleset
        self.state = state
        self.seats = tuple(seats)
        # Every name on the table passes here, whatever gave it (flags, setup screen, save): see names.py.
        self.names = tuple(clean_name(name, _("Player {number}").format(number=seat + 1))
                           for seat, name in enumerate(names))  # fmt: skip
        self.lang = lang
        self.autoplay = autoplay
        """Which moves with a single legal choice are played for a person (the table reads it)."""
        self.save_to = save_to
        self.autosave = autosave
        base = state.seed if bot_seeds is None else bot_seeds
        self.bots: dict[int, Bot] = {
            seat: make_bot(spec, bot_seed(base, seat), ruleset) for seat, spec in enumerate(self.seats) if spec != HUMAN
        }
        self.save_error: str | None = None
        self._writer: ThreadPoolExecutor | None = None
        self._written: Future[None] | None = None
        self._saves = 0
        """Saves handed to the writer thread; only the newest one is written."""

    @classmethod
    def new(cls, config: GameConfig, names: Sequence[str] | None = None, save_to: Path | None = None,
            autosave: bool = True) -> GameSession:  # fmt: skip
        """Start a new game from ``config`` (a random seed when it has none)."""
        from biblios_kit.rules import load_ruleset

        ruleset = load_ruleset(config.ruleset, config.options)
        seed = config.seed if config.seed is not None else random.SystemRandom().randrange(1 << 31)
        state = new_game(ruleset, config.players, seed)
        from biblios_kit.i18n import _

        # the default names in the game's language, as the setup screen writes them
        names = names or config.seat_names(_("Player {number}"), _("Bot {number}"))
        session = cls(ruleset, state, config.seat_specs(), names, config.lang, save_to, autosave,
                      autoplay=config.autoplay)  # fmt: skip
        session.save()
        return session

    @classmethod
    def from_saved(cls, saved: SavedGame, save_to: Path | None = None, autosave: bool = True,
                   entropy: Callable[[], int] = fresh_seed, autoplay: str | None = None) -> GameSession:  # fmt: skip
        """Continue a saved game with fresh chance, and save the reseed point at once.

        An unfinished game is reseeded from ``entropy()`` (the operating system's by
        default; tests pass their own) and its bots are seeded from the same value, so two
        continuations of one save differ in what nobody has seen yet. The game keeps its
        *forced moves* setting unless ``autoplay`` gives another (``play --forced-moves``).
        """
        state = saved.state
        fresh = entropy()
        if not state.is_terminal():
            reseed(state, fresh)
        session = cls(state.ruleset, state, saved.seats, saved.names, saved.lang, save_to, autosave, bot_seeds=fresh,
                      autoplay=saved.autoplay if autoplay is None else autoplay)  # fmt: skip
        if not state.is_terminal():
            session.save()
        return session

    # -------------------------------------------------------------- questions

    @property
    def players(self) -> int:
        """Number of seats."""
        return self.state.players

    @property
    def humans(self) -> tuple[int, ...]:
        """Seats played by people."""
        return tuple(seat for seat, spec in enumerate(self.seats) if spec == HUMAN)

    def is_human(self, seat: int) -> bool:
        """Whether ``seat`` is played by a person."""
        return self.seats[seat] == HUMAN

    @property
    def current(self) -> int | None:
        """The seat that must decide now (``None`` at the end)."""
        return self.state.current_player

    @property
    def phase(self) -> Phase:
        """The engine's phase."""
        return self.state.phase

    @property
    def over(self) -> bool:
        """Whether the game is over."""
        return self.state.is_terminal()

    @property
    def full_state(self) -> GameState:
        """The engine state (this machine holds the whole game)."""
        return self.state

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know now."""
        return self.state.observation(seat)

    def legal_actions(self) -> tuple[int, ...]:
        """The current seat's legal actions."""
        return tuple(self.state.legal_actions())

    def events_since(self, viewer: int | None, start: int) -> list[Event]:
        """The events from index ``start`` as ``viewer`` may see them (``None``: what everybody sees)."""
        new = self.state.log[start:]
        if viewer is None:
            return public_events(new)
        return [to_event(raw, viewer) for raw in new]

    def result(self) -> GameResult:
        """The final result; ``ValueError`` before the end."""
        return self.state.result()

    def payment_options(self, prefix: Sequence[int]) -> tuple[int, ...] | None:
        """The payer's legal actions after paying ``prefix``, or ``None`` once the payment is complete.

        Works on a copy of the state (the payer only learns about their own hand).
        """
        probe = self.state.clone()
        payer = probe.current_player
        for action in prefix:
            probe.apply(action)
        if probe.phase is not Phase.PAYMENT or probe.current_player != payer:
            return None
        return tuple(probe.legal_actions())

    # -------------------------------------------------------------- changes

    def apply(self, action: int) -> None:
        """Apply ``action`` for the current seat (the engine checks it), then autosave."""
        self.state.apply(action)
        self.save()

    def apply_all(self, actions: Sequence[int]) -> None:
        """Apply several actions of the current seat in order (a payment), saving once at the end."""
        for action in actions:
            self.state.apply(action)
        self.save()

    def save(self) -> None:
        """Write the record atomically (when autosave is on); a failure is kept in :attr:`save_error`.

        With :meth:`write_in_background` the record is made here and written by a thread (in order).
        """
        if not self.autosave:
            return
        target = self.save_to or saved_game_path()
        text = save_text(self.state, self.seats, self.names, self.lang, autoplay=self.autoplay)
        if self._writer is None:
            self._write(target, text)
        else:
            self._saves += 1
            self._written = self._writer.submit(self._write_later, target, text, self._saves)

    def _write(self, target: Path, text: str) -> None:
        try:
            write_save(target, text)
            self.save_error = None
        except OSError as error:
            self.save_error = f"{error.strerror or error}"

    def _write_later(self, target: Path, text: str, number: int) -> None:
        """In the writer thread: wait for the frame showing the move to be drawn (a thread that wants the
        interpreter while a frame is drawn delays it), then write, unless a newer save follows."""
        if number == self._saves:
            time.sleep(BACKGROUND_SAVE_DELAY)
        if number == self._saves:
            self._write(target, text)

    def write_in_background(self, on: bool) -> None:
        """Write the saves in a thread from now on (the table does, so that a key's frame does not wait for
        the disk: an atomic, flushed write takes 2-8 ms, most of it waiting), or again at once; turning it
        off waits for the last save. The thread writes :data:`BACKGROUND_SAVE_DELAY` after a move, the newest
        position only (moves in quick succession, by bots, are saved once), each save in full;
        :attr:`save_error` then tells of a failure one move later."""
        if on and self._writer is None:
            self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="save")
            self._writer.submit(_started)  # the thread starts now, not at the first move (in a key's frame)
        elif not on and self._writer is not None:
            self._writer.shutdown(wait=True)
            self._writer, self._written = None, None

    def flush(self) -> None:
        """Wait until the last save is written (nothing to do without :meth:`write_in_background`)."""
        if self._written is not None:
            self._written.result()


def _started() -> None:
    """Nothing: submitted to start the save thread (an executor starts its thread at the first task)."""
