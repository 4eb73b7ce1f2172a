"""The Textual application and :func:`make_app`, the one factory the CLI, the web server and the tests use."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App
from textual.binding import Binding
from textual.reactive import Reactive
from textual.screen import Screen

from biblios_kit.errors import BibliosError
from biblios_kit.i18n import SUPPORTED, _, current_language, set_language
from biblios_kit.linebreak import keep_no_break_spaces
from biblios_kit.resources import saved_game_path
from biblios_kit.savelock import Claim, claim_save
from biblios_kit.tui.config import GameConfig
from biblios_kit.tui.localize import LANGUAGE_NAMES, set_bindings

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from biblios_kit.tui.screens.table import TableScreen
    from biblios_kit.tui.table_session import TableSession

# The engine, the saves and the game screens are imported when first needed, so that the
# setup screen's first frame does not wait for them.


class BibliosApp(App[None]):
    """Setup, then the table, then the end screen; F1 rules and a language switch everywhere."""

    CSS_PATH = "biblios.tcss"
    TITLE = "biblios-kit"
    ENABLE_COMMAND_PALETTE = False

    theme: Reactive[str] = Reactive("gruvbox")
    """The colour theme, as the app's starting value: assigning it in ``__init__`` would run the
    theme watcher, which parses the whole stylesheet once more before the first frame."""

    def __init__(self, config: GameConfig, *, resume: bool = False, bot_delay: float = 0.6,
                 save_file: Path | None = None, autosave: bool = True) -> None:  # fmt: skip
        super().__init__()
        keep_no_break_spaces()  # French « : ; ! ? » stay with their words when lines wrap
        self.config = config
        self.resume = resume
        self.bot_delay = bot_delay
        self.save_file = save_file
        self.autosave = autosave
        self.session: TableSession | None = None
        self._claim: Claim | None = None
        self._localize_bindings()

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:  # fmt: skip
        """Show a notification as plain text, whatever ``markup`` says.

        Messages quote names, file names and errors (a server's among them): they are content,
        never markup, and lose their control characters (:func:`biblios_kit.names.clean_text`).
        """
        from biblios_kit.names import clean_text

        super().notify(clean_text(message, limit=2000), title=clean_text(title), severity=severity, timeout=timeout,
                       markup=False)  # fmt: skip

    # ------------------------------------------------------------------ start-up

    def on_mount(self) -> None:
        self._save_path()  # lock this window's save before anything reads or writes it
        note = self.save_note()
        if note:
            self.notify(note, severity="warning", timeout=10)
        if self.resume:
            self.resume_game()
        elif self.config.complete:
            self.request_new_game(self.config)
        else:
            self.show_setup()

    def _localize_bindings(self) -> None:
        set_bindings(
            self,
            [
                # priority: they also work while a dialog (a modal screen) is open. A browser keeps
                # F1 and Ctrl+Q for itself: "?" and F10 do the same there (not priority, so that "?"
                # can still be typed in a text field).
                Binding("f1", "rules", _("Rules"), key_display="F1/?", priority=True),
                Binding("question_mark", "rules", _("Rules"), show=False),
                Binding("f2", "next_language", _("Language"), key_display="F2", priority=True),
                Binding("ctrl+q", "quit", _("Quit"), show=False, priority=True),
                Binding("f10", "quit", _("Quit"), key_display="F10", show=False, priority=True),
            ],
        )

    def on_unmount(self) -> None:
        if self._claim is not None:
            self._claim.release()

    def _save_path(self) -> Path:
        """This window's save, locked on first use (see :mod:`biblios_kit.savelock`).

        The file asked for (``save_file``, else the terminal's or browser session's save) when
        no other window holds it; otherwise a numbered save next to it, so that two windows
        never write the same file.
        """
        if self._claim is None:
            # From resources, not biblios_kit.tui.saves: that module imports the engine, which the
            # setup screen's first frame must not wait for.
            base = self.save_file or saved_game_path()
            self._claim = claim_save(base, lambda path: self._status_of(path)[0] in ("ok", "bad"))
        return self._claim.path or self._claim.base

    def _saving(self) -> bool:
        """Whether games are saved: autosave is on and this window holds a save of its own."""
        self._save_path()
        return self.autosave and self._claim is not None and self._claim.path is not None

    def save_note(self) -> str:
        """What the player should know about this window's save, in the active language ("" when nothing)."""
        claim = self._claim
        if claim is None or not claim.base_in_use:
            return ""
        if claim.path is None:
            return _("Other biblios-kit windows are using every saved game: this window's game will not be saved.")
        return _(
            "Another biblios-kit window is using the saved game {file}. This window leaves it alone: "
            "its own game is saved in {own}."
        ).format(file=claim.base.name, own=claim.path.name)

    def _save_status(self) -> tuple[str, str]:
        """(``"none"``/``"ok"``/``"done"``/``"bad"``, message) for the saved game."""
        return self._status_of(self._save_path())

    def _status_of(self, path: Path) -> tuple[str, str]:
        """(``"none"``/``"ok"``/``"done"``/``"bad"``, message) for the save ``path``."""
        if not path.exists():
            return "none", ""
        from biblios_kit.tui.saves import load_game

        try:
            saved = load_game(path)
        except BibliosError as error:  # RecordError, or a ruleset that no longer loads
            return "bad", _("The saved game cannot be continued: {error}").format(error=error)
        return ("done" if saved.finished else "ok"), ""

    def show_setup(self, message: str = "") -> None:
        """Show the setup screen (pre-filled from the command line), with any problem of the saved game."""
        from biblios_kit.tui.screens.setup import SetupForm, SetupScreen

        state, save_message = self._save_status()
        if message:
            save_message = message
        screen = SetupScreen(SetupForm.from_config(self.config), state, save_message, self.save_note)
        self._replace_screens(screen)
        if save_message:
            self.notify(save_message, severity="error", timeout=8)

    def _replace_screens(self, screen: Screen[None]) -> None:
        """Make ``screen`` the only screen above the default one (closing dialogs and the previous screen)."""
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.push_screen(screen)

    # ------------------------------------------------------------------ games

    def resume_game(self) -> None:
        """Continue the saved game; a corrupt or incompatible save is reported on the setup screen."""
        from biblios_kit.tui.saves import load_game
        from biblios_kit.tui.session import GameSession

        path = self._save_path()
        if not path.exists():
            self.show_setup(_("There is no saved game to continue."))
            return
        try:
            saved = load_game(path)
            # an explicit --forced-moves wins over the setting the game was saved with (and is saved with it)
            autoplay = self.config.autoplay if "autoplay" in self.config.explicit else None
            session = GameSession.from_saved(saved, save_to=path, autosave=self._saving(), autoplay=autoplay)
        except BibliosError as error:
            self.show_setup(_("The saved game cannot be continued: {error}").format(error=error))
            return
        except ValueError as error:  # an unknown bot spec in the seats
            self.show_setup(_("The saved game cannot be continued: {error}").format(error=error))
            return
        if "lang" not in self.config.explicit and saved.lang in SUPPORTED and saved.lang != current_language():
            set_language(saved.lang)
            self._localize_bindings()
        if saved.finished:
            self.show_end(session)
        else:
            self.start_session(session)

    def request_new_game(self, config: GameConfig) -> None:
        """Start ``config``, asking first before a saved game (readable or not) is replaced."""
        from biblios_kit.tui.dialogs.confirm import ConfirmDialog

        state, message = self._save_status()
        if state == "ok":
            question = _("A game is saved and not finished. Starting a new game replaces it.")
        elif state == "bad":
            question = message + "\n\n" + _("Starting a new game puts it aside (renamed to “.old”).")
        else:
            self._new_game(config)
            return

        def answer(confirmed: bool | None) -> None:
            if not confirmed:
                if not isinstance(self.screen, _setup_screen_type()):
                    self.show_setup()
                return
            if state == "bad" and self._saving():
                from biblios_kit.tui.saves import set_aside

                set_aside(self._save_path())
            self._new_game(config)

        self.push_screen(ConfirmDialog(_("Saved game"), question, _("Start a new game"), _("Cancel")), answer)

    def _new_game(self, config: GameConfig) -> None:
        from biblios_kit.tui.session import GameSession

        try:
            session = GameSession.new(config, save_to=self._save_path(), autosave=self._saving())
        except (BibliosError, ValueError) as error:
            self.notify(str(error), severity="error", timeout=8)
            if not isinstance(self.screen, _setup_screen_type()):
                self.show_setup(str(error))
            return
        self.start_session(session)

    def start_session(self, session: TableSession) -> None:
        """Show the table for ``session``."""
        from biblios_kit.tui.screens.table import TableScreen

        self.session = session
        self._replace_screens(TableScreen(session, self.bot_delay))

    def on_table_screen_game_over(self, message: TableScreen.GameOver) -> None:
        """The table's game is over: show the end screen."""
        self.show_end(message.session)

    def show_end(self, session: TableSession) -> None:
        """Show the end of the game."""
        from biblios_kit.tui.screens.end import EndScreen
        from biblios_kit.tui.session import GameSession

        if isinstance(session, GameSession):
            session.flush()  # the final save is on disk when the end screen shows
        self.session = session
        self._replace_screens(EndScreen(session.ruleset, session.result(), session.names, session.full_state))

    # ------------------------------------------------------------------ everywhere

    async def switch_language(self, lang: str) -> None:
        """Switch the language; every screen re-renders its texts."""
        set_language(lang)
        self.config.lang = current_language()
        if self.session is not None:
            self.session.lang = current_language()
            if not self.session.over:
                self.session.save()  # a resumed game opens in the language it was left in
        self._localize_bindings()
        for screen in list(self.screen_stack):
            relocalize = getattr(screen, "relocalize", None)
            if relocalize is not None:
                result = relocalize()
                if result is not None and hasattr(result, "__await__"):
                    await result

    async def action_next_language(self) -> None:
        """F2: the next language (English → French → Spanish → English)."""
        index = SUPPORTED.index(current_language()) if current_language() in SUPPORTED else 0
        await self.switch_language(SUPPORTED[(index + 1) % len(SUPPORTED)])
        self.notify(LANGUAGE_NAMES[current_language()], timeout=2)

    def action_rules(self) -> None:
        """F1: the rulebook at the section for what is happening now."""
        from biblios_kit.tui.screens.help import HelpScreen

        screen = self.screen
        if isinstance(screen, HelpScreen):  # F1 again closes the rules
            screen.dismiss(None)
            return
        section = getattr(screen, "help_section", lambda: "overview")()
        ruleset = None
        if hasattr(screen, "help_ruleset"):
            try:
                ruleset = screen.help_ruleset()
            except BibliosError:
                ruleset = None
        if ruleset is None and self.session is not None:
            ruleset = self.session.ruleset
        if ruleset is None:
            from biblios_kit.rules import load_ruleset

            ruleset = load_ruleset(self.config.ruleset)
        from biblios_kit.tui.screens.table import TableScreen

        self.push_screen(HelpScreen(ruleset, current_language(), section, over_board=isinstance(screen, TableScreen)))


def _setup_screen_type() -> type:
    from biblios_kit.tui.screens.setup import SetupScreen

    return SetupScreen


def make_app(
    config: GameConfig | None = None,
    *,
    resume: bool = False,
    bot_delay: float = 0.6,
    save_file: Path | None = None,
    autosave: bool = True,
) -> BibliosApp:
    """Build the application.

    ``config`` pre-fills the setup screen (or starts at once when it names every seat,
    see :attr:`GameConfig.complete`); ``resume`` continues the saved game; ``bot_delay``
    is how long a bot's move stays visible before the next (0 in tests); ``save_file``
    overrides the save location (default: the user data folder). The app locks its save
    while it runs: a second app finding it locked plays in a numbered save next to it
    (see :mod:`biblios_kit.savelock`).
    """
    return BibliosApp(
        config or GameConfig(), resume=resume, bot_delay=bot_delay, save_file=save_file, autosave=autosave
    )
