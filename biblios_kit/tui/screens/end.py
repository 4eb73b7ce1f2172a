"""The end of the game: every category's totals and winner (and why), each die, the ranking and its tie-breaks."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Static

from biblios_kit.describe import award_reason, placing_text, result_summary, term, tiebreak_text
from biblios_kit.engine.scoring import GameResult
from biblios_kit.i18n import _, current_language, format_number, ngettext
from biblios_kit.rulebook.grammar import capitalize
from biblios_kit.rules.model import Ruleset
from biblios_kit.tui.localize import set_bindings
from biblios_kit.tui.render import ACCENT, MUTED


def result_renderable(ruleset: Ruleset, result: GameResult, names: Sequence[str]) -> Group:
    """The whole result as Rich renderables in the active language."""
    lang = current_language()
    vp_term = capitalize(term(ruleset, "victory_points"))
    headline = Text(result_summary(ruleset, result, names), style=ACCENT, justify="center")
    table = Table(expand=True, show_edge=False, header_style="bold", pad_edge=False, box=None, padding=(0, 1))
    table.add_column(_("Category"), no_wrap=True, overflow="ellipsis")
    table.add_column(_("Die"), justify="center", no_wrap=True)
    for name in names:
        table.add_column(name, justify="right", no_wrap=True, overflow="ellipsis")
    table.add_column(_("Won by"), overflow="fold")
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
            table.add_row(label, Text(f"{award.value}", style="bold"), *cells, reason)
    table.add_row(
        Text(term(ruleset, "gold"), style="bold #f1c40f"),
        "",
        *(Text(format_number(g), style="#f1c40f") for g in result.gold),
        "",
    )
    table.add_row(
        Text(vp_term, style="bold"), "", *(Text(format_number(v), style="bold") for v in result.victory_points), ""
    )
    ranking = Table.grid(padding=(0, 2))
    ranking.add_column(no_wrap=True)
    ranking.add_column(justify="right", no_wrap=True)
    ranking.add_column(style=MUTED)
    for placing in result.ranking:
        points = result.victory_points[placing.players[0]]
        ranking.add_row(
            Text(placing_text(ruleset, placing, names), style="bold" if placing.place == 1 else ""),
            ngettext("{points} {victory_points}", "{points} {victory_points}", points).format(
                points=format_number(points), victory_points=vp_term
            ),
            tiebreak_text(ruleset, placing.by) if placing.place > 1 or placing.by is not None else "",
        )
    return Group(headline, Text(""), table, Text(""), Text(_("Final ranking"), style=ACCENT), ranking)


class EndScreen(Screen[None]):
    """Shows the result; "New game" goes back to the setup screen, "Quit" leaves."""

    def __init__(self, ruleset: Ruleset, result: GameResult, names: Sequence[str]) -> None:
        super().__init__(id="end")
        self.ruleset = ruleset
        self.result = result
        self.names = list(names)

    def compose(self) -> ComposeResult:
        yield Static(id="end-title")
        with VerticalScroll(id="end-body"):
            yield Static(id="end-result")
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
        self.query_one("#end-result", Static).update(result_renderable(self.ruleset, self.result, self.names))
        self.query_one("#end-new", Button).label = _("New game")
        self.query_one("#end-quit", Button).label = _("Quit")
        set_bindings(self, [Binding("n", "new", _("New game")), Binding("q", "quit_game", _("Quit"))])

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """New game or quit."""
        event.stop()
        if event.button.id == "end-new":
            self.action_new()
        else:
            self.action_quit_game()

    def action_new(self) -> None:
        """Back to the setup screen."""
        self.app.show_setup()  # type: ignore[attr-defined]

    def action_quit_game(self) -> None:
        """Leave the program."""
        self.app.exit()

    def help_section(self) -> str:
        """The rulebook section F1 opens here."""
        return "scoring"
