"""The church/bishop dialog: offers exactly the legal ways to use the card (and declining, when legal).

Each row says where every die it moves goes (``† Monks 3 → 4``), and the line under the
list previews all the dice with the highlighted choice applied. The dialog sits under the
board, so the dice and the hand stay in view while choosing.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Label, OptionList, Static

from biblios_kit.engine.actions import DECLINE, church_parts
from biblios_kit.i18n import _
from biblios_kit.rulebook.describe import action_label
from biblios_kit.rules.model import Ruleset
from biblios_kit.tui.dialogs.base import TableDialog, dice_preview
from biblios_kit.tui.render import MUTED, card_text, fill
from biblios_kit.tui.widgets.marked_list import MarkedList


class ChurchDialog(TableDialog[int]):
    """Choose how to use an acquired church/bishop card; dismisses with the chosen action."""

    BINDINGS = [Binding("escape", "noop", show=False)]

    def __init__(
        self, ruleset: Ruleset, card: int, choices: tuple[int, ...], dice: tuple[int, ...], owner: str
    ) -> None:
        super().__init__(ruleset)
        self.card = card
        self.choices = tuple(a for a in choices if a != DECLINE) + ((DECLINE,) if DECLINE in choices else ())
        """The legal actions in the order shown (moves first, declining last)."""
        self.dice = dice
        self.owner = owner
        self.preview = ""
        """The dice preview shown now, as plain text."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="table-dialog", id="church-dialog") as box:
            box.border_title = Content(_("{player}: use the card").format(player=self.owner))  # a name: not markup
            yield Static(fill(_("Card: {card}"), MUTED, card=card_text(self.ruleset, self.card)), id="church-card")
            yield Label(_("Choose the dice to move (only legal moves are listed):"), classes="hint")
            entries = []
            for action in self.choices:
                label = action_label(self.ruleset, action, self.dice)
                entries.append((str(action), Text(label, style="italic" if action == DECLINE else "")))
            yield MarkedList(entries, id="church-options")
            yield Static(id="church-preview")
            yield Label(_("↑↓ choose · Enter confirm"), classes="hint")

    def rows_wanted(self) -> int:
        """Borders, card, instruction, one row per choice, preview and hint."""
        instruction = self.text_rows(_("Choose the dice to move (only legal moves are listed):"))
        return 2 + 1 + instruction + len(self.choices) + 2

    def on_mount(self) -> None:
        options = self.query_one(MarkedList)
        options.highlighted = 0
        options.focus()
        self.fit()
        self._preview(0)

    async def relocalize(self) -> None:
        """Rebuild the dialog in the active language (after F2), keeping the highlighted row."""
        highlighted = self.query_one(MarkedList).highlighted or 0
        await self.recompose()
        self.on_mount()
        self.query_one(MarkedList).highlighted = highlighted
        self._preview(highlighted)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """Preview the dice as they would be after the highlighted choice."""
        event.stop()
        self._preview(event.option_index)

    def _preview(self, index: int) -> None:
        if not 0 <= index < len(self.choices):
            return
        moved, sign = church_parts(self.choices[index])
        line = fill(_("Dice after: {dice}"), MUTED, dice=dice_preview(self.ruleset, self.dice, moved, sign))
        self.preview = line.plain
        self.query_one("#church-preview", Static).update(line)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Dismiss with the selected action."""
        event.stop()
        assert event.option.id is not None
        self.dismiss(int(event.option.id))

    def action_noop(self) -> None:
        """Escape does nothing: the card must be resolved (declining is one of the choices when allowed)."""
        self.notify(_("Choose how to use the card."), timeout=2)
