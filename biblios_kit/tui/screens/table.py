"""The table: the game in progress, as widgets over a :class:`~biblios_kit.tui.table_view.TableView`.

The screen routes: after every change it computes the view of what the person at the screen may
see (:func:`~biblios_kit.tui.table_view.table_view`) and hands each panel its part; then it
waits for a person (the legal actions as buttons and keys, the church and payment dialogs),
plays a move that has a single legal choice (the *automatic moves* setting), lets a bot think in
a worker thread, or draws the hot-seat curtain when the next decision needs another person's
private cards. What just changed is highlighted for :data:`HIGHLIGHT_SECONDS`.
"""

from __future__ import annotations

import time
from dataclasses import replace

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Footer, Static

from biblios_kit.engine.observation import Observation
from biblios_kit.engine.state import Phase
from biblios_kit.errors import BibliosError
from biblios_kit.i18n import _, current_language
from biblios_kit.tui.heap import IdleCollector, release_heap, settle_heap
from biblios_kit.tui.localize import set_bindings
from biblios_kit.tui.render import WARNING
from biblios_kit.tui.screens.table_actions import TableActions
from biblios_kit.tui.screens.table_keys import FooterActions, footer_actions, footer_state, table_bindings
from biblios_kit.tui.session import GameSession
from biblios_kit.tui.table_session import TableSession
from biblios_kit.tui.table_turns import autoplay_mode, next_turn
from biblios_kit.tui.table_view import EventFeed, Perspective, TableView, table_view
from biblios_kit.tui.widgets.action_bar import ActionBar
from biblios_kit.tui.widgets.dice import DiceRow
from biblios_kit.tui.widgets.table_log import TableLog
from biblios_kit.tui.widgets.table_panels import FocusBox, HandPanel, NoticePanel, PlayersPanel, PublicPanel, StatusBar
from biblios_kit.tui.widgets.table_parts import TablePanels

HIGHLIGHT_SECONDS = 2.5
"""How long what just changed stays highlighted."""

MIN_SIZE = (80, 24)
"""The smallest terminal the table fits in without losing information (columns, rows)."""


class TableScreen(TableActions):
    """The game in progress (one per game)."""

    class GameOver(Message):
        """The game is over: the app shows the end screen."""

        def __init__(self, session: TableSession) -> None:
            super().__init__()
            self.session = session

    DEFAULT_CSS = """
    TableScreen #body { height: 1fr; }
    TableScreen #too-small { height: 1fr; content-align: center middle; text-align: center; padding: 1 2; }
    TableScreen #notice {
        height: auto; max-height: 8; border: round $error; padding: 0 1; display: none;
        border-title-color: $text-error; border-title-style: bold;
    }
    TableScreen .die.fresh { text-style: bold; }
    """

    AUTO_FOCUS = None
    """Nothing takes the focus: every key is the screen's (the buttons are for the mouse and Tab)."""

    def __init__(self, session: TableSession, bot_delay: float = 0.6) -> None:
        super().__init__(id="table")
        self.session = session
        self.bot_delay = bot_delay
        self.seen = Perspective()
        """Who looks at the table (viewer, actor), whether a dialog is open, the bid being chosen."""
        self.feed = EventFeed(session)
        self.view: TableView | None = None
        """The view the panels show."""
        self.token = 0
        """Incremented at every change, so a late bot answer for an old position is ignored."""
        self._live = False
        """Mounted and not yet removed: only then are there panels to draw."""
        self._drawn_for: int | None = None
        self._panels: TablePanels | None = None
        self._fade: Timer | None = None
        self._collector = IdleCollector(self.set_timer)
        self.too_small = False
        """The terminal is below :data:`MIN_SIZE`: a message replaces the table."""
        self.autoplayed = 0
        """Moves played for a person because they were their only legal move."""
        self._footer_actions: FooterActions = ()
        self._footer: tuple[bool, ...] | None = None

    def compose(self) -> ComposeResult:
        ruleset = self.session.ruleset
        yield Static(id="too-small")
        with Vertical(id="body"):
            yield StatusBar(id="status")
            yield DiceRow(ruleset, id="dice")
            with Horizontal(id="main"):
                with Vertical(id="left"):
                    yield HandPanel(ruleset, id="hand", classes="panel")
                    yield PublicPanel(ruleset, id="public", classes="panel")
                    yield FocusBox(ruleset, id="focus-box", classes="panel")
                with Vertical(id="right"):
                    yield PlayersPanel(ruleset, id="players", classes="panel")
                    yield TableLog(ruleset, id="log", classes="panel")
            yield NoticePanel(ruleset, id="notice")
            yield ActionBar(id="actions")
        yield Footer()

    def on_mount(self) -> None:
        self._live = True
        if isinstance(self.session, GameSession):  # a key's frame does not wait for the disk
            self.session.write_in_background(True)
        self.relocalize()
        self.advance()
        self.call_after_refresh(settle_heap)  # no full garbage collection of the app in a key's frame

    def on_unmount(self) -> None:
        """Stop drawing; an answer from a bot still thinking is now stale; the last save is written; the objects
        frozen by :func:`settle_heap` may be collected again."""
        self.token += 1
        self._live = False
        release_heap()
        if isinstance(self.session, GameSession):
            self.session.write_in_background(False)  # waits for the last save

    def on_resize(self) -> None:
        """Below :data:`MIN_SIZE` say so instead of showing a table with parts missing; draw at the new size."""
        self._check_size()
        self.update_view()

    def _check_size(self) -> None:
        width, height = self.app.size
        self.too_small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        note = self.query_one("#too-small", Static)
        note.display = self.too_small
        self.query_one("#body").display = not self.too_small
        if self.too_small:
            note.update(Text(_("The terminal is too small for the table: {width}×{height}. It needs at least "
                               "{min_width}×{min_height}. Enlarge the window or make the font smaller.").format(
                width=width, height=height, min_width=MIN_SIZE[0], min_height=MIN_SIZE[1]), style=WARNING))  # fmt: skip

    def relocalize(self) -> None:
        """Every text again in the active language (after a language switch): each part changes with it."""
        self.session.lang = current_language()
        bindings = table_bindings(self.session.ruleset)
        self._footer_actions = footer_actions(bindings)
        set_bindings(self, bindings)
        if self._live:
            self._check_size()
        self.update_view()

    def update_view(self) -> None:
        """Compute the view and hand each panel its part (a panel whose part is unchanged does nothing)."""
        if not self._live or not self.is_attached:  # not mounted yet, or being removed
            return
        previous = self.view
        view = table_view(self.session, self.seen, self.feed, previous)
        self.view, self.seen = view, view.seen
        try:
            if self._panels is None:
                self._panels = TablePanels.find(self)
        except NoMatches:
            self._panels = None
        if self._panels is None or not self._panels.attached:  # the app is closing: the panels are gone
            self._live = False
            return
        self._panels.show(view)
        self._collector.changed()  # young objects are collected once the table is idle, not in a key's frame
        if view.news:
            if self._fade is not None:
                self._fade.stop()
            self._fade = self.set_timer(HIGHLIGHT_SECONDS, self._end_highlights)
        footer = footer_state(self._footer_actions, view.keys)
        if previous is None or footer != self._footer or view.lang != previous.lang:
            self._footer = footer  # the footer is built again only when the keys it shows change
            self.refresh_bindings()

    def _end_highlights(self) -> None:
        """Stop highlighting what changed (the dice, the collections, the newest log lines)."""
        self._fade = None
        if self.view is not None:
            self.view = self.view.faded()
        self.update_view()

    # ------------------------------------------------------------------ the game loop

    def advance(self) -> None:
        """After any change: redraw, then hand the decision to a person, a bot, or the end screen."""
        self.token += 1
        session = self.session
        if session.save_error:
            self.notify(_("The game could not be saved: {error}").format(error=session.save_error), severity="error")
        turn = next_turn(session, self.seen)
        seat = turn.seat
        if turn.kind == "curtain" and seat is not None:
            self.draw_curtain(seat)
            return
        if turn.kind == "forced" and seat is not None and turn.action is not None:
            self._drawn_for, self.forcing = None, self.token
            self.autoplayed += 1
            self.app.call_later(self._apply_auto, seat, turn.action, self.token)
            self.notify(_("{player}: the only possible move was played automatically.").format(
                player=session.names[seat]), timeout=3)  # fmt: skip
            return
        self.seen = turn.seen
        if turn.kind == "end":
            self.update_view()
            self.post_message(self.GameOver(session))
        elif turn.kind == "person":
            self._drawn_for = None
            self.update_view()
            self._prompt_dialogs()
        else:
            if self.bot_delay > 0 or turn.kind == "elsewhere" or self._drawn_for != seat:
                # With no delay (tests, benchmarks) a chain of local bot moves is drawn once, when it
                # ends or changes bot: a full game then takes a third of the time. Moves made at
                # another terminal are drawn as they come.
                self._drawn_for = seat
                self.update_view()
            if turn.kind == "bot" and seat is not None:
                self._bot_turn(seat, session.observation(seat), self.token)

    def autoplay_mode(self) -> str:
        """The *forced moves* setting of this game, saved with the game."""
        return autoplay_mode(self.session)

    def _apply_auto(self, seat: int, action: int, token: int) -> None:
        if self._live and token == self.token and self.session.current == seat:
            self.apply([action])

    def draw_curtain(self, seat: int) -> None:
        """Hide the table until ``seat`` takes the keyboard, then show their cards."""
        from biblios_kit.tui.screens.curtain import CurtainScreen

        self.seen = replace(self.seen, viewer=None, busy=True)
        self.update_view()

        def ready(_result: None) -> None:
            self.seen = replace(self.seen, viewer=seat, actor=None, busy=False)
            self.update_view()
            self._prompt_dialogs()

        self.app.push_screen(CurtainScreen(self.session.names[seat]), ready)

    def _prompt_dialogs(self) -> None:
        if self.session.phase is Phase.CHURCH:
            self.action_open_church()
        elif self.session.phase is Phase.PAYMENT:
            self.action_open_payment()

    @work(thread=True, exclusive=True, group="bot")
    def _bot_turn(self, seat: int, observation: Observation, token: int) -> None:
        """Let the bot of ``seat`` choose in this worker thread, then apply it on the UI thread."""
        started = time.monotonic()
        try:
            action = self.session.bots[seat].choose(observation)
        except Exception as error:
            self.app.call_from_thread(self._bot_failed, seat, observation, error, token)
            return
        remaining = self.bot_delay - (time.monotonic() - started)
        if remaining > 0:
            time.sleep(remaining)
        self.app.call_from_thread(self._bot_chose, seat, action, token)

    def _bot_failed(self, seat: int, observation: Observation, error: Exception, token: int) -> None:
        """Report a bot's failure and play its first legal move, so the game goes on."""
        message = _("{player} ({bot}) failed: {error}. It plays its first legal move instead.").format(
            player=self.session.names[seat], bot=self.session.seats[seat], error=error
        )
        self.notify(message, severity="error", timeout=8)
        if self._live:
            self.query_one(TableLog).write(Text(message, style="bold #e74c3c"))
        self._bot_chose(seat, observation.legal_actions[0], token)

    def _bot_chose(self, seat: int, action: int, token: int) -> None:
        if self._live and token == self.token and self.session.current == seat:
            self.apply([action])

    def apply(self, actions: list[int]) -> None:
        """Play ``actions`` through the session, then go on with the game."""
        try:
            self.session.apply_all(actions)
        except BibliosError as error:  # the UI offers only legal actions; this would be a bug
            self.notify(str(error), severity="error")
        self.advance()
