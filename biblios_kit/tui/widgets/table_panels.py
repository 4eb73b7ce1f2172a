"""The table's panels, each drawing its part of a :class:`~biblios_kit.tui.table_view.TableView`.

Each panel holds its part in a reactive attribute: the screen hands every panel its part after
each change, and a panel whose part is equal to the one it shows does nothing. Most panels have
fixed heights, so an update repaints that panel alone; a panel whose height follows its text
(the players, the "Now" panel) counts its lines at its width and asks for a layout pass only when
that number changes (measured on a full game at 100x32: 140 ms per decision with a layout on
every update).
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.events import Resize
from textual.reactive import var
from textual.widgets import Static

from biblios_kit.i18n import _
from biblios_kit.rulebook.describe import term
from biblios_kit.rulebook.grammar import capitalize
from biblios_kit.rules.model import Ruleset
from biblios_kit.tui.table_text import (
    focus_renderable,
    hand_renderable,
    notice_text,
    players_renderable,
    public_renderable,
    status_text,
)
from biblios_kit.tui.table_view import FocusPart, HandPart, NoticePart, PlayersPart, PublicPart, StatusPart
from biblios_kit.tui.widgets.titles import set_titles


class Drawn:
    """A Rich renderable already drawn at one width: drawn at that width again (to measure its height, then
    to paint it), its lines are given back as they are instead of being worked out twice more."""

    def __init__(self, renderable: RenderableType, width: int, lines: list[list[Segment]]) -> None:
        self.renderable = renderable
        self.width = width
        self.lines = lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if options.max_width != self.width:
            yield self.renderable
            return
        new_line = Segment.line()
        for line in self.lines:
            yield from line
            yield new_line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.renderable)


def show_measured(widget: Static, renderable: RenderableType, lines: tuple[int, int] | None) -> tuple[int, int]:
    """Show ``renderable`` in ``widget``, whose height follows its text: a layout pass only when the number of
    lines at its width differs from ``lines`` (what it showed before); returns the new (width, lines).

    The lines are counted as Textual will draw them, and that work is kept for the layout pass and the paint:
    a :class:`~rich.text.Text` becomes the :class:`~textual.content.Content` Textual would make of it (which
    remembers its height), any other renderable is drawn once (:class:`Drawn`)."""
    width = widget.content_region.width or max(10, (widget.screen.size.width or 80) // 2 - 4)
    app = widget.app
    shown: Content | Drawn
    if isinstance(renderable, Text):
        shown = Content.from_rich_text(renderable, console=app.console)
        count = shown.get_height(widget.styles, width)  # type: ignore[arg-type]  # as Textual calls it
    else:
        options = app.console_options.update_width(width).update(highlight=False)  # as Textual draws it
        drawn = app.console.render_lines(renderable, options, pad=False)
        shown, count = Drawn(renderable, width, drawn), len(drawn)
    widget.update(shown, layout=(width, count) != lines)
    return width, count


class StatusBar(Static):
    """The top line: the edition, the phase, who plays and the language, laid out for the screen's width."""

    part: var[StatusPart | None] = var(None)

    def watch_part(self) -> None:
        self._draw()

    def on_resize(self, _event: Resize) -> None:
        """The language sits at the right edge: draw again at the new width."""
        self._draw()

    def _draw(self) -> None:
        # A resize can reach the bar after its screen was taken down (a game left while the terminal changed size).
        if self.part is not None and self.is_attached:
            self.update(status_text(self.part, self.screen.size.width or 80), layout=False)


class HandPanel(Static):
    """The viewer's hand (or why none is shown), in a box of fixed height: a new hand needs no layout pass."""

    part: var[HandPart | None] = var(None)

    def __init__(self, ruleset: Ruleset, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.ruleset = ruleset
        self.styles.height = len(ruleset.categories) + 3  # a fixed height: no relayout
        self.styles.min_height = len(ruleset.categories) + 3  # never squeezed (the Gold row)

    def watch_part(self, part: HandPart | None) -> None:
        if part is not None:
            set_titles(self, Content(part.title), part.subtitle)  # a name: not markup
            self.update(hand_renderable(self.ruleset, part), layout=False)


class PublicPanel(Static):
    """The public space; hidden during an auction with no card in it (its room goes to the "Now" panel)."""

    part: var[PublicPart | None] = var(None)

    def __init__(self, ruleset: Ruleset, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.ruleset = ruleset
        self._lines = 0

    def watch_part(self, part: PublicPart | None) -> None:
        if part is None:
            return
        if self.display != part.shown:
            self.display = part.shown
        set_titles(self, capitalize(term(self.ruleset, "public_space")))
        lines = max(1, len(part.cards))
        self.update(public_renderable(self.ruleset, part), layout=lines != self._lines)
        self._lines = lines


class FocusBox(VerticalScroll):
    """The "Now" panel: what is being decided; it scrolls when the terminal is short."""

    part: var[FocusPart | None] = var(None)

    def __init__(self, ruleset: Ruleset, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.ruleset = ruleset
        self.can_focus = False  # scrolls with the mouse; its keys (PgUp/PgDn) belong to the game
        self._lines: tuple[int, int] | None = None
        self._text: Static | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="focus")

    def watch_part(self) -> None:
        self._draw()

    def on_mount(self) -> None:
        """The text's widget is there now (found once): show the part set before."""
        self._text = next(self.query("#focus").results(Static), None)
        self._draw()

    def _draw(self) -> None:
        text = self._text
        if self.part is not None and text is not None:  # not composed yet: done on mounting
            set_titles(self, _("Now"))
            self._lines = show_measured(text, focus_renderable(self.ruleset, self.part), self._lines)


class PlayersPanel(Static):
    """Every seat, its hand size and its collection (its height follows them), then the piles."""

    part: var[PlayersPart | None] = var(None)

    def __init__(self, ruleset: Ruleset, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.ruleset = ruleset
        self._lines: tuple[int, int] | None = None

    def watch_part(self, part: PlayersPart | None) -> None:
        if part is not None:
            set_titles(self, _("Players · cards seen"))
            self._lines = show_measured(self, players_renderable(self.ruleset, part), self._lines)


class NoticePanel(Static):
    """The newest penalty not dismissed (Esc closes it); hidden when there is none."""

    part: var[NoticePart | None] = var(None)

    def __init__(self, ruleset: Ruleset, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.ruleset = ruleset

    def watch_part(self, part: NoticePart | None) -> None:
        if part is None:
            if self.display:
                self.display = False
            return
        set_titles(self, _("Penalty"))
        self.update(notice_text(self.ruleset, part))
        self.display = True
