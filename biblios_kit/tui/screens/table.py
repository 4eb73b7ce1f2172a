"""The table: dice board, hand, public space, auction, players, log and the legal actions of the acting person.

The screen drives the game loop: after every action it redraws from the viewer's
observation, then either waits for a person (offering exactly the legal actions as
buttons and keys, opening the church and payment dialogs), or plays a move that has a
single legal choice for them (the *automatic moves* setting), or lets a bot think in a
worker thread, or draws the hot-seat curtain when the next decision needs another
person's private cards. What just changed (a die, a collection, new log lines) is
highlighted for :data:`HIGHLIGHT_SECONDS`, always with a sign besides the colour.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Button, Footer, RichLog, Static
from textual.widgets.button import ButtonVariant

from biblios_kit.engine.actions import BID, CHURCH, DECLINE, KEEP, PASS, PAY, PICK, REFUSE, TO_AUCTION, TO_PUBLIC
from biblios_kit.engine.events import Event, EventKind
from biblios_kit.engine.observation import Observation
from biblios_kit.engine.state import Phase
from biblios_kit.errors import BibliosError
from biblios_kit.i18n import _, current_language
from biblios_kit.rulebook.describe import EventDescriber, action_label, term
from biblios_kit.rulebook.grammar import capitalize, name_forms
from biblios_kit.rules.model import CardKind, Ruleset
from biblios_kit.tui.config import DEFAULT_AUTOPLAY
from biblios_kit.tui.dialogs.hint import hint_binding, hint_for
from biblios_kit.tui.localize import LANGUAGE_NAMES, set_bindings
from biblios_kit.tui.public_cards import Collection, collections, penalties, public_events
from biblios_kit.tui.render import (
    ACCENT,
    MUTED,
    WARNING,
    bid_capacity,
    focus_text,
    hand_table,
    log_line,
    phase_name,
    piles_text,
    players_table,
    public_text,
    short_card,
)
from biblios_kit.tui.session import GameSession
from biblios_kit.tui.widgets.dice import DieChip

ACTION_BUTTONS = 10
"""Buttons of the action bar, created once and relabelled (the public space offers at most a few cards)."""

LOG_LINES = 300
"""Lines kept in the log when it is rebuilt for a new viewer."""

PHASE_SECTIONS: dict[Phase, str] = {
    Phase.GIFT: "gift",
    Phase.PICK: "gift",
    Phase.CHURCH: "church",
    Phase.BIDDING: "auction",
    Phase.PAYMENT: "auction",
    Phase.GAME_OVER: "scoring",
}
"""The rulebook section F1 opens in each phase."""

GIFT_KEYS: dict[int, str] = {KEEP: "k", TO_AUCTION: "a", TO_PUBLIC: "p"}

HIGHLIGHT_SECONDS = 2.5
"""How long what just changed stays highlighted."""

MIN_SIZE = (80, 24)
"""The smallest terminal the table fits in without losing information (columns, rows)."""

PRIVATE_PHASES = frozenset({Phase.GIFT, Phase.PAYMENT})
"""Decisions that always need the decider's private cards (the drawn card, the cards to pay with):
in hot-seat play these bring the curtain down. A pick or a church card is decided in public, and
so is a bid unless the ruleset limits each bid to what the bidder's hand can pay
(:func:`needs_private_cards`)."""


def needs_private_cards(ruleset: Ruleset, obs: Observation) -> bool:
    """Whether the decision ``obs`` waits for needs its decider's private cards on screen (hot-seat: the curtain).

    A gift turn (the card drawn) and a payment (the cards to pay with) do. A bid does only
    when the most the bidder may bid is what their hand can pay in Gold (a ruleset whose Gold
    ceiling is ``hand``): the bids offered would show their Gold. Otherwise bids are public,
    the ceiling is the same for everyone and the number of cards in a hand is seen by all, so
    the bidder bids on the public table (and may show their hand with ``h``).
    """
    if obs.phase in PRIVATE_PHASES:
        return True
    if obs.phase is Phase.BIDDING:
        return obs.auction is not None and obs.auction.currency == "gold" and ruleset.auction.gold_ceiling_hand
    return False


AUTOPLAY_PHASES: dict[str, frozenset[Phase]] = {
    "off": frozenset(),
    "picks-payments": frozenset({Phase.PICK, Phase.PAYMENT}),
    "all": frozenset({Phase.PICK, Phase.PAYMENT, Phase.GIFT, Phase.CHURCH}),
}
"""The *automatic moves* setting: in which phases a person's only legal move is played for them."""


class ActionButton(Button):
    """A button of the action bar; :attr:`command` says what it does (``act-<action>``, ``bid-go`` ...)."""

    command: str = ""


class TableScreen(Screen[None]):
    """The game in progress (one per game)."""

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

    def __init__(self, session: GameSession, bot_delay: float = 0.6) -> None:
        super().__init__(id="table")
        self.session = session
        self.bot_delay = bot_delay
        self.viewer: int | None = None
        """The person whose private information is shown (``None``: only what everybody sees)."""
        self.actor: int | None = None
        """A person deciding without their private cards on screen (hot-seat: a pick, a church card)."""
        self.log_viewer: int | None = None
        self.log_count = 0
        self.describer: EventDescriber | None = None
        self.bid_choice = 0
        self.bid_context: tuple[int, int, int] | None = None
        self.busy = False
        """A dialog or the curtain is open: no table action is offered."""
        self.token = 0
        """Incremented at every change, so a late bot answer for an old position is ignored."""
        self.action_signature: tuple[Any, ...] = ()
        self._shown: dict[str, object] = {}
        """What each panel shows now (a key per panel), to skip redrawing unchanged panels."""
        self._live = False
        """Mounted and not yet removed: only then are there panels to draw."""
        self._known: tuple[Collection, ...] | None = None
        """The collections drawn last (to see which cards just joined one)."""
        self._known_for: object = None
        self._fresh_cards: list[frozenset[int]] = [frozenset()] * session.players
        self._dice_before: tuple[int, ...] | None = None
        self._fresh_dice: dict[int, int] = {}
        """Die -> its face before the move that just happened."""
        self._log_texts: list[Text] = []
        self._fresh_lines = 0
        """How many of the newest log lines are highlighted."""
        self._fade: Timer | None = None
        self._dismissed: set[int] = set()
        """Penalty notices dismissed (by the index of their first event)."""
        self.notice_index: int | None = None
        """The penalty notice on screen (index of its first event), if any."""
        self._is_church = [card.kind is CardKind.CHURCH for card in session.ruleset.deck]
        self._derived_key: tuple[object, ...] = ()
        self._derived_value: (
            tuple[list[Event], tuple[Collection, ...], Collection | None, list[tuple[int, list[Event]]]] | None
        ) = None
        self.too_small = False
        """The terminal is below :data:`MIN_SIZE`: a message replaces the table."""
        self.autoplayed = 0
        """Moves played for a person because they were their only legal move."""

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="too-small")
        with Vertical(id="body"):
            yield from self._compose_body()
        yield Footer()

    def _compose_body(self) -> ComposeResult:
        yield Static(id="status")
        with Horizontal(id="dice"):
            for die in range(len(self.session.state.dice_values())):
                yield DieChip(self.session.ruleset, die, id=f"die-{die}", classes="die")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                hand = Static(id="hand", classes="panel")
                hand.styles.height = len(self.session.ruleset.categories) + 3  # a fixed height: no relayout
                hand.styles.min_height = len(self.session.ruleset.categories) + 3  # never squeezed (Gold row)
                yield hand
                yield Static(id="public", classes="panel")
                with VerticalScroll(id="focus-box", classes="panel") as focus_box:  # scrolls when the terminal is short
                    focus_box.can_focus = False  # scrolls with the mouse; its keys (PgUp/PgDn) belong to the game
                    yield Static(id="focus")
            with Vertical(id="right"):
                yield Static(id="players", classes="panel")
                log = RichLog(id="log", classes="panel", wrap=True, markup=False, auto_scroll=True, min_width=10)
                log.can_focus = False  # scrolls with the mouse; its keys (arrows, PgUp/PgDn) belong to the game
                yield log
        yield Static(id="notice")
        with Horizontal(id="actions"):
            for _index in range(ACTION_BUTTONS):
                yield ActionButton("", classes="action", compact=True)
            yield Static(id="waiting")

    def on_unmount(self) -> None:
        """Stop drawing; an answer from a bot still thinking is now stale."""
        self.token += 1  # a bot still thinking in its thread will find its answer stale
        self._live = False

    def on_resize(self) -> None:
        """The status line and the action bar are laid out for the width: draw them again; below
        :data:`MIN_SIZE` say so instead of showing a table with parts missing."""
        self._shown.pop("status", None)
        self.action_signature = ()
        self._check_size()
        self.update_view()

    def _check_size(self) -> None:
        width, height = self.app.size
        small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        self.too_small = small
        note = self.query_one("#too-small", Static)
        note.display = small
        self.query_one("#body").display = not small
        if small:
            note.update(
                Text(
                    _(
                        "The terminal is too small for the table: {width}×{height}. It needs at least "
                        "{min_width}×{min_height}. Enlarge the window or make the font smaller."
                    ).format(width=width, height=height, min_width=MIN_SIZE[0], min_height=MIN_SIZE[1]),
                    style=WARNING,
                )
            )

    def on_mount(self) -> None:
        self._live = True
        self._check_size()
        self.relocalize()
        self.advance()

    def relocalize(self) -> None:
        """Re-render every text in the active language (after a language switch); F2 redraws everything."""
        self.session.lang = current_language()
        self._localize_bindings()
        self.log_viewer = -2  # force a rebuild of the log in the new language
        self.action_signature = ()
        self._shown.clear()
        for chip in self.query(DieChip):
            chip.refresh()  # a chip redraws by itself only when its value changes
        if self._live:
            self._check_size()
        self.update_view()

    def _localize_bindings(self) -> None:
        set_bindings(
            self,
            [
                # The game's own keys are shown on the action bar's buttons, not in the footer,
                # which keeps room for the keys that work everywhere.
                Binding("k", "place(0)", _("Keep"), show=False),
                Binding("a", "place(1)", capitalize(term(self.session.ruleset, "auction_pile")), show=False),
                Binding("p", "place(2)", capitalize(term(self.session.ruleset, "public_space")), show=False),
                *(Binding(str(n), f"pick({n})", _("Take"), show=False) for n in range(1, 10)),
                Binding("x", "pass_bid", _("Pass"), show=False),
                Binding("b", "bid", _("Bid"), show=False),
                Binding("plus,equals_sign,right", "bid_step(1)", _("Raise"), key_display="+", show=False),
                Binding("minus,left", "bid_step(-1)", _("Lower"), key_display="−", show=False),
                Binding("pageup", "bid_step(5)", _("Raise by 5"), show=False),
                Binding("pagedown", "bid_step(-5)", _("Lower by 5"), show=False),
                Binding("c", "open_church", _("Use the card"), show=False),
                Binding("y", "open_payment", _("Pay"), show=False),
                Binding("h", "show_hand", _("Show my cards")),
                hint_binding(),
                Binding("escape", "dismiss_notice", _("Close the notice")),
                Binding("q", "quit_game", _("Save & quit")),
            ],
        )

    # ------------------------------------------------------------------ what may be done now

    def my_legal(self) -> tuple[int, ...]:
        """The legal actions of the person at the keyboard now (empty when it is not their decision)."""
        session = self.session
        current = session.current
        if self.busy or current is None or current not in (self.viewer, self.actor) or not session.is_human(current):
            return ()
        return tuple(session.state.legal_actions())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer a key only when it does something legal now."""
        if action in ("quit_game",):
            return True
        if action == "dismiss_notice":
            return self.notice_index is not None
        if action == "show_hand":
            return not self.busy and self.actor is not None and self.viewer != self.actor
        legal = self.my_legal()
        if not legal:
            return action not in _TABLE_ACTIONS
        phase = self.session.phase
        if action == "place":
            return parameters[0] in legal
        if action == "pick":
            return phase is Phase.PICK and int(parameters[0]) <= len(legal)  # type: ignore[call-overload]
        if action in ("pass_bid", "bid", "bid_step"):
            return phase is Phase.BIDDING
        if action == "open_church":
            return phase is Phase.CHURCH
        if action == "open_payment":
            return phase is Phase.PAYMENT
        return True

    # ------------------------------------------------------------------ drawing

    def _observation(self) -> Observation:
        """The viewer's observation; with no viewer, a person's or the actor's, used for public fields only."""
        seat = self.viewer if self.viewer is not None else self.actor
        if seat is None:
            seat = (self.session.humans or (0,))[0]
        return self.session.observation(seat)

    def _put(self, widget_id: str, key: object, build: Callable[[], RenderableType], layout: bool = False,
             measure: bool = False) -> None:  # fmt: skip
        """Update a panel only when what it shows changed.

        Most panels have fixed sizes, so an update repaints just that panel; a layout pass over
        the whole screen (``layout=True``) is asked for only when a panel's height may change.
        With ``measure``, the panel's height follows its text (the players and their collections,
        the "Now" panel): its lines are counted at its width and a layout pass happens only when
        their number changes. Measured on a full game at 100x32: 140 ms per decision with a layout
        on every update.
        """
        if self._shown.get(widget_id) == key:
            return
        self._shown[widget_id] = key
        widget = self.query_one(f"#{widget_id}", Static)
        renderable = build()
        if measure:  # a panel whose height follows its text: a layout pass only when its line count changes
            width = widget.content_region.width or max(10, (self.size.width or 80) // 2 - 4)
            console = self.app.console
            lines = (width, len(console.render_lines(renderable, console.options.update_width(width), pad=False)))
            layout = layout or self._shown.get(f"{widget_id}-lines") != lines
            self._shown[f"{widget_id}-lines"] = lines
        widget.update(renderable, layout=layout)

    def update_view(self) -> None:
        """Redraw every panel from the viewer's observation (panels whose content is unchanged are skipped)."""
        if not self._live or not self.is_attached:  # not mounted yet, or being removed
            return
        try:
            self._draw()
        except NoMatches:  # the app is closing and the panels are already gone (a late bot answer)
            self._live = False

    def _draw(self) -> None:
        session = self.session
        ruleset = session.ruleset
        obs = self._observation()
        hidden = self.viewer is None
        viewer = self.viewer
        lang = current_language()
        names = session.names
        width = self.size.width or 80
        events = self._events()

        def status() -> Text:
            text = Text()
            text.append(f" {ruleset.title.get(lang)} ", style="bold #1b1b1b on #e0b050")
            text.append(f" {phase_name(ruleset, obs.phase)} ", style="bold")
            if obs.current_player is not None:
                text.append("· ", style=MUTED)
                text.append(_("{player} to play").format(player=names[obs.current_player]), style=ACCENT)
            language = f" {LANGUAGE_NAMES.get(lang, lang)} "
            if text.cell_len + len(language) < width:
                text.append(" " * (width - text.cell_len - len(language)))
                text.append(language, style=MUTED)
            return text

        self._put("status", (lang, obs.phase, obs.current_player, width), status)
        self._draw_dice(obs.dice)
        if self._shown.get("titles") != (lang, viewer):
            self._shown["titles"] = (lang, viewer)
            hand_title = capitalize(term(ruleset, "hand"))
            if viewer is not None:
                hand_title = f"{hand_title} — {names[viewer]}"
            hand = self.query_one("#hand")
            hand.border_title = Content(hand_title)  # a name: not markup
            hand.border_subtitle = _("° seen by all") if viewer is not None else ""
            self.query_one("#public").border_title = capitalize(term(ruleset, "public_space"))
            self.query_one("#focus-box").border_title = _("Now")
            self.query_one("#players").border_title = _("Players · cards seen")
            self.query_one("#log").border_title = _("Log")
            self.query_one("#notice").border_title = _("Penalty")
        known, mine_public = self._collections(events)
        if hidden:
            actor = self.actor
            if actor is not None and session.current == actor:
                note = _("{player} decides in view of everyone: h shows their cards (after the curtain).").format(
                    player=names[actor]
                )
            else:
                note = _("Hidden until the next player is ready.")
            self._put("hand", (lang, None, note), lambda: Text(note, style=MUTED))
        else:
            self._put("hand", (lang, viewer, obs.hand, mine_public), lambda: hand_table(ruleset, obs.hand, mine_public))
        legal = self.my_legal()
        picks = [a for a in legal if PICK <= a < PAY]
        numbered = {a - PICK: index + 1 for index, a in enumerate(picks)}
        public_panel = self.query_one("#public")
        in_auction = obs.auction is not None and not obs.public  # the public space is empty all the auction phase
        if public_panel.display == in_auction:
            public_panel.display = not in_auction  # its room goes to the "Now" panel
        public_lines = max(1, len(obs.public))
        self._put("public", (lang, obs.public, tuple(numbered.items())), lambda: public_text(ruleset, obs.public, numbered),
                  layout=self._shown.get("public-lines") != public_lines)  # fmt: skip
        self._shown["public-lines"] = public_lines
        self._sync_bid(obs)
        focus_key = (lang, viewer, obs.phase, obs.current_player, obs.active_player, obs.drawn, obs.kept, obs.owed,
                     obs.church, obs.auction, obs.payment, self.bid_choice, obs.hand if viewer is not None else None)  # fmt: skip
        self._put("focus", focus_key, lambda: focus_text(ruleset, obs, names, viewer, self.bid_choice), measure=True)
        fresh = tuple(self._fresh_cards)
        players_key = (lang, viewer, obs.hand_sizes, obs.current_player, obs.active_player, obs.draw_pile,
                       obs.auction_pile, obs.removed, len(obs.discard), known, fresh, width)  # fmt: skip
        self._put(
            "players",
            players_key,
            lambda: Group(
                players_table(names, session.seats, obs.hand_sizes, obs.current_player, obs.active_player, viewer,
                              ruleset, known, fresh),
                piles_text(ruleset, obs),
            ),
            measure=True,  # its height follows the collections
        )  # fmt: skip
        self._update_log(events)
        self._update_notice(events)
        self._update_actions(obs, legal)
        bindings_key = (lang, obs.phase, legal if obs.phase is not Phase.BIDDING else bool(legal), self.busy,
                        self.notice_index, self.actor, viewer)  # fmt: skip
        if self._shown.get("bindings") != bindings_key:
            self._shown["bindings"] = bindings_key
            self.refresh_bindings()

    def _events(self) -> list[Event]:
        """The log as the viewer sees it (with no viewer: only what everybody sees)."""
        return self._derived()[0]

    def _derived(self) -> tuple[list[Event], tuple[Collection, ...], Collection | None, list[tuple[int, list[Event]]]]:
        """(events, collections, the viewer's own collection as everybody knows it, penalties) for the
        viewer, computed once per change of the log: a key that changes only the bid costs none of it.
        Measured at 80x24, 4 players, late auction: 23 ms of CPU per key without this cache, 12 with."""
        session = self.session
        state = session.state
        # A local game has its raw log; a seat of a table on a server has only its own events.
        log = getattr(state, "log", None)
        if log is not None:
            marker: tuple[object, ...] = (id(log), len(log))
        else:
            remote_events = getattr(state, "events", ())
            marker = (state.decision_count, id(remote_events), len(remote_events))
        key = (self.viewer, marker)
        if self._derived_key == key and self._derived_value is not None:
            return self._derived_value
        if self.viewer is not None:
            events = state.events_for(self.viewer)
        else:
            events = public_events(log) if log is not None else []
        is_church = self._is_church
        known = collections(events, session.players, is_church)
        mine_public = None
        if self.viewer is not None:
            mine_public = collections(events, session.players, is_church, public=True)[self.viewer]
            known = tuple(mine_public if seat == self.viewer else c for seat, c in enumerate(known))
        self._derived_key = key
        self._derived_value = (events, known, mine_public, penalties(events))
        return self._derived_value

    def _collections(self, events: list[Event]) -> tuple[tuple[Collection, ...], Collection | None]:
        """Every player's collection as the viewer knows it, with the viewer's own as everybody knows it
        (what the others know of their hand); marks the cards that just joined one as fresh."""
        session = self.session
        _events, known, mine_public, _penalties = self._derived()
        perspective = (self.viewer, current_language())
        if self._known is not None and self._known_for == perspective and known != self._known:
            fresh = list(self._fresh_cards)
            for seat, (before, now) in enumerate(zip(self._known, known, strict=True)):
                added = frozenset(now.cards) - frozenset(before.cards)
                if added:
                    fresh[seat] = fresh[seat] | added
            if fresh != self._fresh_cards:
                self._fresh_cards = fresh
                self._start_fade()
        elif self._known_for != perspective:
            self._fresh_cards = [frozenset()] * session.players
        self._known = known
        self._known_for = perspective
        return known, mine_public

    def _draw_dice(self, dice: tuple[int, ...]) -> None:
        """Set each die's face; a die that just moved shows its direction for a while."""
        before = self._dice_before
        if before is not None and before != dice:
            for die, (old, new) in enumerate(zip(before, dice, strict=True)):
                if old != new:
                    self._fresh_dice.setdefault(die, old)
            self._start_fade()
        self._dice_before = dice
        for die, value in enumerate(dice):
            chip = self.query_one(f"#die-{die}", DieChip)
            previous = self._fresh_dice.get(die)
            if previous == value:  # moved and came back: nothing to show
                previous = None
            chip.previous = previous
            chip.set_class(previous is not None, "fresh")
            chip.value = value

    def _start_fade(self) -> None:
        """(Re)start the timer that ends the highlights."""
        if self._fade is not None:
            self._fade.stop()
        self._fade = self.set_timer(HIGHLIGHT_SECONDS, self._end_highlights)

    def _end_highlights(self) -> None:
        """Stop highlighting what changed (the dice, the collections, the newest log lines)."""
        self._fade = None
        self._fresh_cards = [frozenset()] * self.session.players
        self._fresh_dice.clear()
        if self._fresh_lines:
            self._fresh_lines = 0
            self._rewrite_log()
        self.update_view()

    def _sync_bid(self, obs: Observation) -> None:
        auction = obs.auction
        if auction is None:
            self.bid_context = None
            return
        context = (len(obs.revealed), auction.high_bid, len(auction.bids))
        if context != self.bid_context or not auction.min_bid <= self.bid_choice <= auction.max_bid:
            self.bid_context = context
            self.bid_choice = auction.min_bid

    def _update_log(self, events: list[Event]) -> None:
        """Add the new events' lines to the log (rebuilt for another viewer); new lines are highlighted."""
        if self.log_viewer != self.viewer or self.describer is None:
            self.describer = EventDescriber(self.session.ruleset, self.session.names)
            self._log_texts = self._log_lines(events)[-LOG_LINES:]
            self._fresh_lines = 0
            self.log_viewer = self.viewer
            self._rewrite_log()
        else:
            lines = self._log_lines(events[self.log_count :])
            if lines:
                # Lines arriving while others are still highlighted join them: the log is written
                # again only once, when the highlight ends.
                log = self.query_one("#log", RichLog)
                self._log_texts.extend(lines)
                del self._log_texts[:-LOG_LINES]
                self._fresh_lines = min(LOG_LINES, self._fresh_lines + len(lines))
                for line in lines:
                    log.write(_fresh_line(line))
                self._start_fade()
        self.log_count = len(events)

    def _rewrite_log(self) -> None:
        """Write the log again from its kept lines (the newest :attr:`_fresh_lines` highlighted)."""
        log = self.query_one("#log", RichLog)
        log.clear()
        first_fresh = len(self._log_texts) - self._fresh_lines
        for index, line in enumerate(self._log_texts):
            log.write(_fresh_line(line) if index >= first_fresh else line)

    def _log_lines(self, events: list[Event]) -> list[Text]:
        assert self.describer is not None
        return [line for line in (log_line(self.describer, event) for event in events) if line is not None]

    def _update_notice(self, events: list[Event]) -> None:
        """Show the newest penalty not yet dismissed: who lost which cards, as far as the viewer may know."""
        notice = self.query_one("#notice", Static)
        pending = [(index, group) for index, group in self._derived()[3] if index not in self._dismissed]
        if not pending:
            self.notice_index = None
            if notice.display:
                notice.display = False
            return
        index, group = pending[-1]
        key = (current_language(), self.viewer, index, len(group))
        self.notice_index = index
        if self._shown.get("notice") == key:
            return
        self._shown["notice"] = key
        describer = EventDescriber(self.session.ruleset, self.session.names)
        auction = next((e for e in reversed(events[:index]) if e.kind is EventKind.REVEALED), None)
        if auction is not None:
            describer.describe(auction)  # the currency of the bids
        text = Text()
        for number, event in enumerate(group):
            line = describer.describe(event)
            if line:
                text.append(("\n" if number else "") + ("⚠ " if number == 0 else "  ") + line,
                            style=WARNING if number == 0 else "")  # fmt: skip
        text.append("\n" + _("Esc closes this notice."), style=MUTED)
        notice.update(text)
        notice.display = True

    def _update_actions(self, obs: Observation, legal: tuple[int, ...]) -> None:
        ruleset = self.session.ruleset
        wanted: list[tuple[Text | str, str, ButtonVariant]] = []  # (label, name, variant)
        phase = obs.phase
        currency = obs.auction.currency if obs.auction is not None else "gold"
        if legal:
            if phase is Phase.GIFT:
                for action in (KEEP, TO_AUCTION, TO_PUBLIC):
                    if action in legal:
                        wanted.append(
                            (_key_label(GIFT_KEYS[action], action_label(ruleset, action)), f"act-{action}", "primary")
                        )
            elif phase is Phase.PICK:
                picks = [a for a in legal if PICK <= a < PAY]
                labels = [action_label(ruleset, action) for action in picks]
                room = (self.size.width or 80) - 2
                if sum(len(label) + 5 for label in labels) > room:  # too wide for the bar: the cards in short
                    labels = [short_card(ruleset, action - PICK) for action in picks]
                for index, (action, short) in enumerate(zip(picks, labels, strict=True)):
                    wanted.append((_key_label(str(index + 1), short), f"act-{action}", "primary"))
            elif phase is Phase.BIDDING:
                wanted.append((_key_label("x", action_label(ruleset, PASS)), f"act-{PASS}", "error"))
                wanted.append(("−", "bid-less", "default"))
                bid = action_label(ruleset, BID + self.bid_choice, currency=currency)
                bluff = (  # only with the bidder's hand on screen: in view of everyone it would tell their Gold
                    self.viewer is not None
                    and obs.auction is not None
                    and self.bid_choice > bid_capacity(ruleset, obs.hand, currency)
                )
                if bluff:  # the "Now" panel says what it would cost
                    wanted.append((_key_label("b", bid + " " + _("(bluff)")), "bid-go", "warning"))
                else:
                    wanted.append((_key_label("b", bid), "bid-go", "success"))
                wanted.append(("+", "bid-more", "default"))
            elif phase is Phase.CHURCH:
                wanted.append((_key_label("c", _("Use the card…")), "open-church", "primary"))
            elif phase is Phase.PAYMENT:
                wanted.append((_key_label("y", _("Pay…")), "open-payment", "primary"))
        waiting = None if wanted else self._waiting_text(obs)
        signature = (
            current_language(),
            tuple((str(label), name, variant) for label, name, variant in wanted),
            str(waiting),
        )
        if signature == self.action_signature:
            return
        self.action_signature = signature
        buttons = list(self.query(ActionButton))
        for index, button in enumerate(buttons):
            if index < len(wanted):
                label, name, variant = wanted[index]
                resized = len(str(button.label)) != len(str(label))
                button.label = label
                button.command = name
                button.variant = variant
                button.display = True
                if resized:
                    # A new label does not resize a button by itself (its width is cached): a longer
                    # label (another language, another card) would be cut off.
                    button.clear_cached_dimensions()
                    button.refresh(layout=True)
            else:
                button.display = False
        note = self.query_one("#waiting", Static)
        note.display = waiting is not None
        if waiting is not None:
            note.update(waiting)

    def _waiting_text(self, obs: Observation) -> Text:
        session = self.session
        if obs.current_player is None:
            return Text(_("The game is over."), style=MUTED)
        name = session.names[obs.current_player]
        if session.seats[obs.current_player] != "human":
            return Text(_("{player} is thinking…").format(player=name), style=MUTED)
        return Text(_("Waiting for {player}.").format(**name_forms("player", name, current_language())), style=MUTED)

    # ------------------------------------------------------------------ the game loop

    def advance(self) -> None:
        """After any change: redraw, then hand the decision to a person, a bot, or the end screen."""
        self.token += 1
        session = self.session
        if session.save_error:
            self.notify(_("The game could not be saved: {error}").format(error=session.save_error), severity="error")
        if session.over:
            self.update_view()
            self.app.call_later(self.app.show_end, session)  # type: ignore[attr-defined]
            return
        current = session.current
        assert current is not None
        if session.is_human(current):
            self._shown.pop("waiting-for", None)
            if self._autoplay(current):
                return
            if self.viewer != current:
                if len(session.humans) > 1:
                    if needs_private_cards(session.ruleset, session.observation(current)):
                        self._draw_curtain(current)
                        return
                    # a pick, a church card or a bid needs nobody's private cards: decided in view of everyone
                    self.viewer = None
                    self.actor = current
                    self.update_view()
                    self._prompt_dialogs()
                    return
                self.viewer = current
            self.actor = None
            self.update_view()
            self._prompt_dialogs()
        else:
            self.actor = None
            if self.viewer is None and len(session.humans) == 1:
                self.viewer = session.humans[0]
            elsewhere = current not in session.bots  # a player at another terminal (a remote session)
            if self.bot_delay > 0 or elsewhere or self._shown.get("waiting-for") != current:
                # With no delay (tests, benchmarks) a chain of local bot moves is drawn once, when it
                # ends or changes bot: a full game then takes a third of the time. Moves made at
                # another terminal are drawn as they come.
                self._shown["waiting-for"] = current
                self.update_view()
            if current in session.bots:  # otherwise someone elsewhere decides (a remote session gets the move)
                self._bot_turn(current, session.observation(current), self.token)

    def autoplay_mode(self) -> str:
        """The *forced moves* setting of this game (see :data:`AUTOPLAY_PHASES`): the session's, which is saved
        with the game."""
        mode = self.session.autoplay
        return mode if mode in AUTOPLAY_PHASES else DEFAULT_AUTOPLAY

    def _autoplay(self, seat: int) -> bool:
        """Play ``seat``'s move when it is the only legal one and the setting covers this phase."""
        session = self.session
        if session.phase not in AUTOPLAY_PHASES[self.autoplay_mode()]:
            return False
        legal = session.state.legal_actions()  # empty while a move sent to a server is on its way
        if len(legal) != 1:
            return False
        self.autoplayed += 1
        self.app.call_later(self._apply_auto, seat, legal[0], self.token)
        self.notify(
            _("{player}: the only possible move was played automatically.").format(player=session.names[seat]),
            timeout=3,
        )
        return True

    def _apply_auto(self, seat: int, action: int, token: int) -> None:
        if self._live and token == self.token and self.session.current == seat:
            self._apply([action])

    def _draw_curtain(self, seat: int) -> None:
        from biblios_kit.tui.screens.curtain import CurtainScreen

        self.viewer = None
        self.busy = True
        self.update_view()

        def ready(_result: None) -> None:
            self.busy = False
            self.viewer = seat
            self.actor = None
            self.update_view()
            self._prompt_dialogs()

        self.app.push_screen(CurtainScreen(self.session.names[seat]), ready)

    def _prompt_dialogs(self) -> None:
        phase = self.session.phase
        if phase is Phase.CHURCH:
            self.action_open_church()
        elif phase is Phase.PAYMENT:
            self.action_open_payment()

    @work(thread=True, exclusive=True, group="bot")
    def _bot_turn(self, seat: int, observation: Observation, token: int) -> None:
        """Let the bot of ``seat`` choose in this worker thread, then apply it on the UI thread."""
        started = time.monotonic()
        bot = self.session.bots[seat]
        try:
            action = bot.choose(observation)
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
            self.query_one("#log", RichLog).write(Text(message, style="bold #e74c3c"))
        self._bot_chose(seat, observation.legal_actions[0], token)

    def _bot_chose(self, seat: int, action: int, token: int) -> None:
        if not self._live or token != self.token or self.session.current != seat:
            return
        self._apply([action])

    def _apply(self, actions: list[int]) -> None:
        try:
            self.session.apply_all(actions)
        except BibliosError as error:  # the UI offers only legal actions; this would be a bug
            self.notify(str(error), severity="error")
        self.advance()

    # ------------------------------------------------------------------ a person's actions

    def _play(self, action: int) -> None:
        if action in self.my_legal():
            self._apply([action])

    def action_place(self, action: int) -> None:
        """Gift turn: keep the drawn card, or put it on the auction pile or in the public space."""
        self._play(action)

    def action_pick(self, number: int) -> None:
        """Take the ``number``-th card offered from the public space."""
        picks = [a for a in self.my_legal() if PICK <= a < PAY]
        if 1 <= number <= len(picks):
            self._play(picks[number - 1])

    def action_pass_bid(self) -> None:
        """Pass in this auction."""
        self._play(PASS)

    def action_bid(self) -> None:
        """Bid the amount shown."""
        self._play(BID + self.bid_choice)

    def action_bid_step(self, step: int) -> None:
        """Change the amount to bid by ``step`` within the legal range."""
        obs = self._observation()
        if obs.auction is None or not self.my_legal():
            return
        self.bid_choice = max(obs.auction.min_bid, min(obs.auction.max_bid, self.bid_choice + step))
        self.update_view()

    def action_open_church(self) -> None:
        """Open the church/bishop dialog with the legal choices."""
        from biblios_kit.tui.dialogs.church import ChurchDialog

        legal = self.my_legal()
        obs = self._observation()
        if not legal or obs.church is None:
            return
        owner, card = obs.church
        choices = tuple(a for a in legal if a == DECLINE or a >= CHURCH)
        self.busy = True
        self.refresh_bindings()

        def chosen(action: int | None) -> None:
            self.busy = False
            if action is not None:
                self._play(action)
            else:
                self.update_view()

        self.app.push_screen(
            ChurchDialog(self.session.ruleset, card, choices, obs.dice, self.session.names[owner]), chosen
        )

    def action_open_payment(self) -> None:
        """Open the payment dialog."""
        from biblios_kit.tui.dialogs.payment import PaymentDialog

        legal = self.my_legal()
        obs = self._observation()
        if not legal or obs.payment is None or obs.auction is None:
            return
        self.busy = True
        self.refresh_bindings()

        def paid(actions: list[int] | None) -> None:
            self.busy = False
            if actions and (actions == [REFUSE] or self.session.payment_options(actions) is None):
                self._apply(actions)
            else:
                self.update_view()

        self.app.push_screen(
            PaymentDialog(
                self.session.ruleset,
                obs.payment.bid,
                obs.payment.currency,
                obs.auction.card,
                self.session.payment_options,
                observation=obs,
            ),
            paid,
        )

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Route the action bar's buttons."""
        event.stop()
        button_id = event.button.command if isinstance(event.button, ActionButton) else ""
        if button_id.startswith("act-"):
            self._play(int(button_id[4:]))
        elif button_id == "bid-go":
            self.action_bid()
        elif button_id == "bid-more":
            self.action_bid_step(1)
        elif button_id == "bid-less":
            self.action_bid_step(-1)
        elif button_id == "open-church":
            self.action_open_church()
        elif button_id == "open-payment":
            self.action_open_payment()

    def action_hint(self) -> None:
        """Ask the hard bot for a hint on the person's current decision (from their observation only).

        Only for a decision taken behind the curtain or alone at the screen: a hot-seat
        decision taken in view of everyone gets none, as its reasons would tell the others
        about the actor's cards.
        """
        if self.viewer is not None and self.actor is None and self.my_legal():
            self.app.push_screen(hint_for(self.session, self.viewer))

    def action_show_hand(self) -> None:
        """Hot-seat, deciding in view of everyone: bring the curtain down, then show the actor's cards."""
        if self.actor is not None and self.viewer != self.actor and not self.busy:
            self._draw_curtain(self.actor)

    def action_dismiss_notice(self) -> None:
        """Close the penalty notice (Esc)."""
        if self.notice_index is not None:
            self._dismissed.add(self.notice_index)
            self.notice_index = None
            self._shown.pop("notice", None)
            self.update_view()

    def action_quit_game(self) -> None:
        """Leave; the game is already saved after every action."""
        self.app.exit()

    def help_section(self) -> str:
        """The rulebook section F1 opens now."""
        return PHASE_SECTIONS.get(self.session.phase, "overview")


def _fresh_line(line: Text) -> Text:
    """A log line that just arrived: a ``›`` in front and a highlight until it is no longer new."""
    fresh = Text("› ", style=ACCENT)
    fresh.append_text(line)
    fresh.stylize("on #3a3320")
    return fresh


def _key_label(key: str, label: str) -> Text:
    """A button label with its key in front: ``k Keep it``."""
    text = Text(key, style="bold underline")
    text.append(" " + label)
    return text


_TABLE_ACTIONS = frozenset({"place", "pick", "pass_bid", "bid", "bid_step", "open_church", "open_payment", "hint"})
