"""What the game's dialogs share: they open over the lower part of the table, never over the board.

The status line, the award dice and the hand stay in full view above the dialog (a
player choosing a church move or a payment needs both), and the rest of the table shows,
lightly dimmed, behind it. The dialog takes the height its content needs, capped so that
it never reaches the board; its list scrolls when the terminal is too short for all rows.
"""

from __future__ import annotations

from typing import Any, TypeVar

from rich.cells import cell_len
from rich.text import Text
from textual.color import Color
from textual.screen import ModalScreen, Screen
from textual.widget import Widget

from biblios_kit.rulebook.describe import die_category
from biblios_kit.rules.model import Ruleset
from biblios_kit.tui.render import ACCENT, MUTED

T = TypeVar("T")

DIALOG_CSS = """
TableDialog {
    align: center bottom;
}
TableDialog > .table-dialog {
    width: 100%;
    max-width: 110;
    height: auto;
    border: thick $accent;
    border-title-style: bold;
    background: $surface;
    padding: 0 1;
}
TableDialog .table-dialog > Label {
    width: 100%;
}
TableDialog .table-dialog > .hint {
    color: $text-muted;
}
TableDialog .table-dialog > MarkedList {
    height: 1fr;
    min-height: 1;
    border: none;
    padding: 0;
    background: $surface;
}
TableDialog .table-dialog > .buttons {
    height: 1;
}
"""


def board_rows(ruleset: Ruleset) -> int:
    """Rows the table's board takes at the top: the status line, the dice (two rows per five) and the hand panel."""
    dice = sum(len(category.dice) for category in ruleset.categories)
    return 1 + 2 * -(-dice // 5) + len(ruleset.categories) + 3


class TableDialog(ModalScreen[T]):
    """A dialog of the game docked at the bottom of the table, below the board.

    Subclasses compose one container with the class ``table-dialog`` and report how many
    rows their content needs (:meth:`rows_wanted`); the container gets that height, or
    what is left under the board, whichever is smaller (but at least :attr:`MIN_ROWS`).
    """

    DEFAULT_CSS = DIALOG_CSS
    MIN_ROWS = 9
    """Rows a dialog keeps even on a very short terminal (it then covers part of the hand)."""

    def __init__(self, ruleset: Ruleset) -> None:
        super().__init__()
        self.ruleset = ruleset

    def rows_wanted(self) -> int:
        """Rows the dialog's content needs, borders included (subclasses say)."""
        return self.MIN_ROWS

    def text_rows(self, text: str) -> int:
        """Rows ``text`` takes in the dialog at the terminal's width (a long sentence wraps)."""
        width = max(10, min(110, self.app.size.width) - 4)  # the borders and the padding
        return sum(max(1, -(-cell_len(line) // width)) for line in text.split("\n"))

    def fit(self) -> None:
        """Give the dialog the rows it needs, keeping the board visible when the terminal allows."""
        box = self.query(".table-dialog")
        if not box:
            return
        room = max(self.MIN_ROWS, self.app.size.height - board_rows(self.ruleset))
        box.first(Widget).styles.height = min(self.rows_wanted(), room)

    def on_mount(self) -> None:
        see_through(self)

    def on_resize(self) -> None:
        """Fit again for the new terminal size."""
        self.fit()


def see_through(screen: Screen[Any], alpha: float = 0.25) -> None:
    """Let the screens below ``screen`` show, dimmed by ``alpha`` of the theme's background.

    Set inline: the stylesheet's ``Screen { background: ... }`` is opaque and outranks any
    ``DEFAULT_CSS`` a modal screen declares, which is why the table used to vanish behind
    every dialog.
    """
    background = Color.parse(screen.app.get_css_variables().get("background", "#000000"))
    screen.styles.background = background.with_alpha(alpha)


def dice_preview(ruleset: Ruleset, dice: tuple[int, ...], moved: tuple[int, ...], sign: int) -> Text:
    """Every award die as ``glyph value``; the dice ``moved`` by ``sign`` show ``old → new`` in the accent."""
    text = Text()
    for die, value in enumerate(dice):
        if die:
            text.append("  ")
        category = ruleset.category(die_category(ruleset, die))
        text.append(category.glyph, style=f"bold {category.colour}")
        if die in moved:
            text.append(f" {value} → {value + sign}", style=ACCENT)
        else:
            text.append(f" {value}", style=MUTED)
    return text
