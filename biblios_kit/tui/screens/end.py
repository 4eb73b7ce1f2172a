"""The end of the game, to learn from: the result and how each die and place was won, the final hands,
the whole log and a move-by-move replay.

The game is over, so every card may be shown: the hands, the log and the replay come from
the finished :class:`~biblios_kit.engine.GameState` (every card named). A game followed
from another machine (``biblios-kit join``) shows them once the server sent the game record (it
serves it at the end only); "New game" is then the rematch.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Label, RichLog, Static, TabbedContent, TabPane

from biblios_kit.engine.scoring import GameResult
from biblios_kit.engine.state import GameState
from biblios_kit.i18n import _, current_language, format_number, ngettext
from biblios_kit.rulebook.describe import (
    EventDescriber,
    award_reason,
    bonus_award_text,
    placing_text,
    result_summary,
    term,
    tiebreak_text,
)
from biblios_kit.rulebook.grammar import capitalize, counted_term
from biblios_kit.rules.model import Ruleset
from biblios_kit.tui.dialogs.base import dice_preview
from biblios_kit.tui.dialogs.hint import review_binding, review_for
from biblios_kit.tui.localize import set_bindings
from biblios_kit.tui.render import ACCENT, MUTED, fill, hand_table, log_line
from biblios_kit.tui.replay_view import GameReplay, ReplayView

TABS = ("end-result", "end-hands", "end-log", "end-replay")

LOG_BATCH = 60
"""Log lines written to the log pane per refresh (a screenful and more: the pane shows at once)."""
"""The panes, in order (keys 1 to 4)."""


def result_renderable(ruleset: Ruleset, result: GameResult, names: Sequence[str]) -> Group:
    """The whole result as Rich renderables in the active language."""
    lang = current_language()
    vp_term = capitalize(term(ruleset, "victory_points"))
    headline = Text(result_summary(ruleset, result, names), style=ACCENT, justify="center")
    # Every cell is a Text: a Rich table reads a plain str as markup, and names are content ("[/]" included).
    table = Table(expand=True, show_edge=False, header_style="bold", pad_edge=False, box=None, padding=(0, 1))
    table.add_column(Text(_("Category")), no_wrap=True, overflow="ellipsis")
    table.add_column(Text(_("Die")), justify="center", no_wrap=True)
    for name in names:
        table.add_column(Text(name), justify="right", no_wrap=True, overflow="ellipsis")
    table.add_column(Text(_("Won by")), overflow="fold")
    for category_result in result.categories:
        category = ruleset.category(category_result.category)
        style = f"bold {category.colour}"
        for award in category_result.awards:
            label = Text(f"{category.glyph} {category.name.get(lang)}", style=style)
            if len(category_result.awards) > 1:
                label.append(f" #{award.place}", style=MUTED)
            cells = []
            for seat in range(len(names)):
                total = category_result.totals[seat]
                letter = category_result.best_letters[seat]
                cell = Text(
                    f"{total}" + (f" {letter}" if letter else ""), style="bold" if award.winner == seat else MUTED
                )
                cells.append(cell)
            reason = award_reason(ruleset, award, category_result.totals, category_result.best_letters, names)
            table.add_row(label, Text(f"{award.value}", style="bold"), *cells, Text(reason))
    table.add_row(
        Text(term(ruleset, "gold"), style="bold #f1c40f"),
        "",
        *(Text(format_number(g), style="#f1c40f") for g in result.gold),
        "",
    )
    table.add_row(
        Text(vp_term, style="bold"), "", *(Text(format_number(v), style="bold") for v in result.victory_points), ""
    )
    bonuses = [Text(bonus_award_text(ruleset, bonus, names)) for bonus in result.bonuses]
    return Group(
        headline,
        Text(""),
        table,
        *bonuses,
        Text(""),
        Text(_("Final ranking"), style=ACCENT),
        ranking_table(ruleset, result, names),
    )


def ranking_table(ruleset: Ruleset, result: GameResult, names: Sequence[str]) -> Table:
    """One line per place: the place and players, their victory points, and the tie-break that decided it, if any.

    A place decided by victory points alone says nothing more (the points are on the line).
    """
    lang = current_language()
    ranking = Table.grid(padding=(0, 2))
    ranking.add_column(no_wrap=True)
    ranking.add_column(justify="right", no_wrap=True)
    ranking.add_column(style=MUTED)
    for placing in result.ranking:
        points = result.victory_points[placing.players[0]]
        ranking.add_row(
            Text(placing_text(ruleset, placing, names), style="bold" if placing.place == 1 else ""),
            Text(
                ngettext("{points} {victory_points}", "{points} {victory_points}", points).format(
                    points=format_number(points),
                    victory_points=capitalize(counted_term(ruleset, "victory_points", points, lang)),
                )
            ),
            Text(tiebreak_text(ruleset, placing.by) if placing.by is not None else ""),
        )
    return ranking


def hands_renderable(ruleset: Ruleset, state: GameState, result: GameResult, names: Sequence[str]) -> Group:
    """Every player's final hand (by category, with letters and totals), then the final dice."""
    parts: list[Text | Table] = []
    lang = current_language()
    for player, name in enumerate(names):
        points = result.victory_points[player]
        vp_term = capitalize(counted_term(ruleset, "victory_points", points, lang))
        head = Text(name, style=ACCENT)
        head.append(f" · {format_number(points)} {vp_term}", style=MUTED)
        parts.extend([head, hand_table(ruleset, state.hand(player)), Text("")])
    parts.append(fill(_("Dice: {dice}"), MUTED, dice=dice_preview(ruleset, state.dice_values(), (), 0)))
    return Group(*parts)


class EndScreen(Screen[None]):
    """The result, the hands, the log and the replay; "New game" goes back to the setup screen, "Quit" leaves."""

    DEFAULT_CSS = """
    EndScreen #end-tabs {
        height: 1fr;
    }
    EndScreen TabPane {
        padding: 0 1;
    }
    EndScreen #end-log-body {
        height: 1fr;
        scrollbar-size-vertical: 1;
    }
    EndScreen #end-rematch {
        color: $text-muted;
    }
    EndScreen #end-replay-hint {
        color: $text-muted;
        width: 100%;
    }
    """

    def __init__(self, ruleset: Ruleset, result: GameResult, names: Sequence[str], state: object = None, *,
                 rematch: bool = False, review: bool = True) -> None:  # fmt: skip
        super().__init__(id="end")
        self.rematch = rematch
        """A seat of a server's table: "New game" is "Rematch" (the app's ``ask_rematch``), "Quit" declines it."""
        self.review_allowed = review
        """Whether the table allows the review (a server's table allows it where it allows hints)."""
        self.rematch_text = ""
        """At a server's table: who wants a rematch, who does not, who left (under the title)."""
        self.ruleset = ruleset
        self.result = result
        self.names = list(names)
        self.state = state if isinstance(state, GameState) and state.has_events and state.is_terminal() else None
        """The finished game with every card (``None`` when only the result is known)."""
        self._log_queue: list[Text] = []
        """Log lines still to write to the log pane (written in batches once it shows)."""
        self._log_filling = False
        self.replay: GameReplay | None = None
        """The game move by move (``None`` when its moves do not replay from its seed: a scripted position)."""
        if self.state is not None:
            try:
                self.replay = GameReplay(self.state)
            except ValueError:  # an illegal move: the state was not dealt from its seed
                self.replay = None

    def compose(self) -> ComposeResult:
        yield Static(id="end-title")
        if self.rematch:
            yield Static(id="end-rematch")
        with TabbedContent(id="end-tabs", initial="end-result"):
            with TabPane(_("Result"), id="end-result"), VerticalScroll(id="end-body"):
                yield Static(id="end-result-body")
            if self.state is not None:
                with TabPane(_("Everyone's cards"), id="end-hands"), VerticalScroll():
                    yield Static(id="end-hands-body")
                with TabPane(_("Log"), id="end-log"):
                    yield RichLog(id="end-log-body", wrap=True, markup=False, min_width=10)
            if self.replay is not None:
                with TabPane(_("Replay"), id="end-replay"):
                    yield Label(id="end-replay-hint")
                    with VerticalScroll():
                        yield ReplayView(self.replay, self.names, id="end-replay-body")
        with Horizontal(classes="buttons", id="end-buttons"):
            yield Button(id="end-new", variant="primary", compact=True)
            yield Button(id="end-quit", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.relocalize()
        self.query_one("#end-new", Button).focus()

    def relocalize(self) -> None:
        """Render every text in the active language."""
        self.query_one("#end-title", Static).update(
            Text(_("{game}: the game is over").format(game=self.ruleset.title.get(current_language())), style="bold")
        )
        self.query_one("#end-result-body", Static).update(result_renderable(self.ruleset, self.result, self.names))
        if self.rematch:
            self.query_one("#end-rematch", Static).update(Text(self.rematch_text))
        new_label = _("Rematch") if self.rematch else _("New game")
        self.query_one("#end-new", Button).label = new_label
        self.query_one("#end-quit", Button).label = _("Quit")
        tabs = self.query_one(TabbedContent)
        titles = {
            "end-result": _("Result"),
            "end-hands": _("Everyone's cards"),
            "end-log": _("Log"),
            "end-replay": _("Replay"),
        }
        keys = []
        for number, pane in enumerate(TABS, start=1):
            shown = {"end-result": True, "end-replay": self.replay is not None}.get(pane, self.state is not None)
            if shown:
                tabs.get_tab(pane).label = f"{number} {titles[pane]}"
                keys.append(Binding(str(number), f"show_tab('{pane}')", titles[pane], show=False))
        if self._reviewable():
            keys.append(review_binding())
        set_bindings(self, [Binding("n", "new", new_label), Binding("q", "quit_game", _("Quit")), *keys])
        if self.state is not None:
            self.query_one("#end-hands-body", Static).update(
                hands_renderable(self.ruleset, self.state, self.result, self.names)
            )
            self._write_log(self.state)
        if self.replay is not None:
            self.query_one("#end-replay-hint", Label).update(
                _("←/→ one move · PgUp/PgDn ten · Home/End the deal, the end")
            )
            self.query_one(ReplayView).redraw()

    def show_rematch(self, text: str) -> None:
        """At a server's table: show who wants a rematch, who does not, who left (``text``, plain text)."""
        self.rematch_text = text
        if self.rematch and self.is_mounted:
            self.query_one("#end-rematch", Static).update(Text(text))

    def _reviewable(self) -> bool:
        """Whether this game can be reviewed: the whole game is here and a person played in it (a game
        continued from a save is replayed with its reseeds, as its record is)."""
        session = getattr(self.app, "session", None)
        state = self.state
        return (
            self.review_allowed
            and self.replay is not None
            and state is not None
            and session is not None
            and bool(session.humans)
        )

    def action_review(self) -> None:
        """The bot's review of each person's decisions (``r``): where its evaluation differed most from the move played."""
        if self._reviewable():
            self.app.push_screen(review_for(self.app.session))  # type: ignore[attr-defined]

    def _write_log(self, state: GameState) -> None:
        """The whole game, every card named: the lines are made now, and written when the pane shows."""
        log = self.query_one("#end-log-body", RichLog)
        log.clear()
        describer = EventDescriber(self.ruleset, self.names)
        lines = [log_line(describer, event) for event in state.events]
        self._log_queue = [line for line in lines if line is not None]
        self._log_filling = False
        if self.query_one(TabbedContent).active == "end-log":
            self._fill_log()

    def _fill_log(self) -> None:
        """Write the next :data:`LOG_BATCH` lines of the log, then the rest after the screen is painted.

        A log widget renders every line it is given before the first paint, and a hidden
        pane only when it first shows: the whole game at once kept the pane blank for half a
        second. In batches, the first lines show at once and the rest follow, a batch per
        refresh.
        """
        queue = self._log_queue
        if not queue:
            self._log_filling = False
            return
        self._log_filling = True
        log = self.query_one("#end-log-body", RichLog)
        batch, self._log_queue = queue[:LOG_BATCH], queue[LOG_BATCH:]
        for line in batch:
            log.write(line)
        self.call_after_refresh(self._fill_log)

    @property
    def log_complete(self) -> bool:
        """Whether every line of the log has been written to its pane."""
        return not self._log_queue

    def log_lines(self) -> list[str]:
        """The log as shown (plain text), for tests."""
        return [strip.text for strip in self.query_one("#end-log-body", RichLog).lines]

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """The replay takes the keys (←/→ ...) when its pane is shown; the log is written when its pane first shows."""
        if event.pane.id == "end-log" and self._log_queue and not self._log_filling:
            self._fill_log()
        if event.pane.id == "end-replay":
            self.query_one(ReplayView).focus()

    def action_show_tab(self, pane: str) -> None:
        """Show the pane ``pane`` (keys 1 to 4)."""
        self.query_one(TabbedContent).active = pane
        if pane == "end-replay":
            self.query_one(ReplayView).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """New game or quit."""
        event.stop()
        if event.button.id == "end-new":
            self.action_new()
        else:
            self.action_quit_game()

    def action_new(self) -> None:
        """Back to the setup screen (at a server's table: opt in to the rematch)."""
        if self.rematch:
            self.app.ask_rematch()  # type: ignore[attr-defined]
        else:
            self.app.show_setup()  # type: ignore[attr-defined]

    def action_quit_game(self) -> None:
        """Leave the program (at a server's table: opting out of the rematch first)."""
        if self.rematch:
            self.app.leave_table()  # type: ignore[attr-defined]
        else:
            self.app.exit()

    def help_section(self) -> str:
        """The rulebook section F1 opens here."""
        return "scoring"
