"""The church/bishop dialog: offers exactly the legal ways to use the card (and declining, when legal)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from biblios_kit.describe import action_label
from biblios_kit.engine.actions import DECLINE
from biblios_kit.i18n import _
from biblios_kit.rules.model import Ruleset
from biblios_kit.tui.render import card_text


class ChurchDialog(ModalScreen[int]):
    """Choose how to use an acquired church/bishop card; dismisses with the chosen action."""

    BINDINGS = [Binding("escape", "noop", show=False)]

    def __init__(
        self, ruleset: Ruleset, card: int, choices: tuple[int, ...], dice: tuple[int, ...], owner: str
    ) -> None:
        super().__init__(classes="dialog-screen")
        self.ruleset = ruleset
        self.card = card
        self.choices = choices
        self.dice = dice
        self.owner = owner

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="church-dialog") as box:
            box.border_title = _("{player}: use the card").format(player=self.owner)
            title = Text()
            title.append_text(card_text(self.ruleset, self.card))
            yield Static(title, id="church-card")
            yield Label(_("Choose the dice to move (only legal moves are listed):"), classes="muted")
            options = [
                Option(action_label(self.ruleset, a, self.dice), id=str(a)) for a in self.choices if a != DECLINE
            ]
            if DECLINE in self.choices:
                options.append(Option(Text(action_label(self.ruleset, DECLINE), style="italic"), id=str(DECLINE)))
            yield OptionList(*options, id="church-options")
            yield Label(_("↑↓ choose · Enter confirm"), classes="muted hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    async def relocalize(self) -> None:
        """Rebuild the dialog in the active language (after F2)."""
        await self.recompose()
        self.on_mount()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Dismiss with the selected action."""
        event.stop()
        assert event.option.id is not None
        self.dismiss(int(event.option.id))

    def action_noop(self) -> None:
        """Escape does nothing: the card must be resolved (declining is one of the choices when allowed)."""
        self.notify(_("Choose how to use the card."), timeout=2)
