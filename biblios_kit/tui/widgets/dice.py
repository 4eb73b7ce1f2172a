"""The award dice of the board, one chip per die: category colour, glyph and name, and the face."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from biblios_kit.rules.model import Ruleset
from biblios_kit.tui.render import die_chip


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
