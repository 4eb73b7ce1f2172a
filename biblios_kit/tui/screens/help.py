"""The rules at hand (F1): the rulebook of the ruleset being played, opened at the current phase, with search."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from biblios_kit.i18n import _
from biblios_kit.rulebook import Rulebook, render_rulebook, search
from biblios_kit.rulebook.formats import section_text
from biblios_kit.rules.model import Ruleset
from biblios_kit.tui.dialogs.base import TableDialog, board_rows, see_through

MIN_ROWS = TableDialog.MIN_ROWS
"""Rows the rules keep over the table even on a very short terminal."""


class HelpScreen(ModalScreen[None]):
    """Sections on the left, the text on the right, a search box on top; Escape closes.

    ``over_board``: opened over the table, the rules dock under the board (the status line,
    the dice and the hand stay in view, the rest of the table dimmed behind), as the game's
    dialogs do; elsewhere they take most of the screen.
    """

    BINDINGS = [Binding("escape,f1", "close", show=False)]

    def __init__(self, ruleset: Ruleset, lang: str, section: str, over_board: bool = False) -> None:
        super().__init__(classes="dialog-screen")
        self.ruleset = ruleset
        self.over_board = over_board
        self.book: Rulebook = render_rulebook(ruleset, lang)
        self.section = section if section in self.book.section_ids else self.book.section_ids[0]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="help-dialog") as box:
            box.border_title = Content(self.book.title)  # from a ruleset file: not markup
            box.border_subtitle = _("Esc: close · Tab: the sections")
            yield Input(placeholder=_("Search the rules…"), id="help-search", compact=True)
            with Horizontal(id="help-body"):
                yield OptionList(
                    *(Option(Content("  " + s.title), id=s.id) for s in self.book.sections), id="help-sections"
                )
                with VerticalScroll(id="help-scroll"):
                    yield Static(id="help-text")

    def on_mount(self) -> None:
        if self.over_board:
            see_through(self)
            self.styles.align_vertical = "bottom"
            self._fit()
        sections = self.query_one(OptionList)
        sections.highlighted = self.book.section_ids.index(self.section)
        self._show_section(self.section)
        self._mark_selected()
        self.query_one("#help-search", Input).focus()  # type at once; Tab reaches the sections

    def _fit(self) -> None:
        """Over the table: the height left under the board (at least :data:`MIN_ROWS`)."""
        if self.over_board:
            box = self.query_one("#help-dialog")
            box.styles.height = max(MIN_ROWS, self.app.size.height - board_rows(self.ruleset))

    def on_resize(self) -> None:
        """Fit again for the new terminal size."""
        self._fit()

    async def relocalize(self) -> None:
        """Render the rulebook again in the active language, at the same section."""
        from biblios_kit.i18n import current_language

        self.book = render_rulebook(self.ruleset, current_language())
        await self.recompose()
        self.on_mount()

    def _show_section(self, section_id: str) -> None:
        self.section = section_id
        section = self.book.section(section_id)
        width = max(30, self.query_one("#help-scroll").size.width - 2 or 60)
        text = Text(section.title + "\n", style="bold #e0b050")
        lines = section_text(section, width=width).split("\n")
        if len(lines) > 1 and lines[1].strip() and set(lines[1].strip()) <= {"=", "-"}:
            lines = lines[2:]  # the plain-text title and its underline: the title is shown above in colour
        text.append("\n".join(lines))
        self.query_one("#help-text", Static).update(text)
        self.query_one("#help-scroll", VerticalScroll).scroll_home(animate=False)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """Show the highlighted section."""
        if event.option.id is not None:
            self._show_section(event.option.id)
            self._mark_selected()

    def _mark_selected(self) -> None:
        """A ``▸`` before the section shown, so the selection reads without colour."""
        sections = self.query_one(OptionList)
        for section in self.book.sections:
            mark = "▸ " if section.id == self.section else "  "
            sections.replace_option_prompt(section.id, Content(mark + section.title))  # a ruleset's words: not markup

    def on_input_changed(self, event: Input.Changed) -> None:
        """Show the lines matching the query, matches highlighted (the section text when empty)."""
        query = event.value.strip()
        if not query:
            self._show_section(self.section)
            return
        hits = search(self.book, query)
        text = Text()
        if not hits:
            text.append(_("Nothing found for “{query}”.").format(query=query), style="italic")
        last = None
        for hit in hits:
            if hit.section_id != last:
                text.append(("\n" if last else "") + hit.section_title + "\n", style="bold #e0b050")
                last = hit.section_id
            line = Text("• " + hit.text + "\n")
            for start, end in hit.spans:
                line.stylize("bold black on #e0b050", start + 2, end + 2)
            text.append_text(line)
        self.query_one("#help-text", Static).update(text)

    def action_close(self) -> None:
        """Close the rules."""
        self.dismiss(None)
