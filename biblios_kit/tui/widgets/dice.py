"""The award dice of the board, one chip per die: category colour, glyph and name, and the face."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import reactive, var
from textual.widget import Widget

from biblios_kit.rules.model import Ruleset
from biblios_kit.tui.render import die_chip
from biblios_kit.tui.table_view import DicePart


class DieChip(Widget):
    """One award die; set :attr:`value` to change its face, :attr:`previous` to show that it just moved."""

    value: reactive[int] = reactive(0)
    previous: reactive[int | None] = reactive(None)
    """The face before a move that just happened (an arrow shows the direction), else ``None``."""

    def __init__(self, ruleset: Ruleset, die: int, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.ruleset = ruleset
        self.die = die

    def render(self) -> Text:
        """The chip at the widget's width (the name is cut with an ellipsis when too long)."""
        return die_chip(self.ruleset, self.die, self.value, self.size.width or 16, self.previous)


class DiceRow(Horizontal):
    """Every die of the board from a :class:`~biblios_kit.tui.table_view.DicePart`; a die that just moved is bold
    and shows its direction."""

    part: var[DicePart | None] = var(None)

    def __init__(self, ruleset: Ruleset, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ruleset = ruleset

    def compose(self) -> ComposeResult:
        for die in range(sum(len(category.dice) for category in self.ruleset.categories)):
            yield DieChip(self.ruleset, die, id=f"die-{die}", classes="die")

    def watch_part(self, before: DicePart | None, part: DicePart | None) -> None:
        # a chip redraws by itself only when its face changes: in another language, ask it
        self._draw(relabel=before is not None and part is not None and before.lang != part.lang)

    def on_mount(self) -> None:
        """The chips are there now: show the part set before."""
        self._draw()

    def _draw(self, relabel: bool = False) -> None:
        chips = list(self.query(DieChip))
        part = self.part
        if part is None or len(chips) != len(part.values):  # not composed yet: done on mounting
            return
        for chip, value, previous in zip(chips, part.values, part.previous, strict=True):
            chip.previous = previous
            chip.set_class(previous is not None, "fresh")
            chip.value = value
            if relabel:
                chip.refresh()
