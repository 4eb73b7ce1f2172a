"""The hot-seat curtain: hides the table while the device passes from one person to the next."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Middle, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button, Static

from biblios_kit.i18n import _, current_language
from biblios_kit.rulebook.grammar import name_forms


class CurtainScreen(Screen[None]):
    """A full, opaque screen naming the next player; it shows nothing private and waits for them."""

    BINDINGS = [Binding("enter,space", "ready", show=False)]

    def __init__(self, player: str) -> None:
        super().__init__(id="curtain")
        self.player = player

    def compose(self) -> ComposeResult:
        with Middle(), Center(), Vertical(id="curtain-box"):
            # Content, not a markup string: the name is shown as typed ("[/]" included).
            yield Static(Content(_("Pass the keyboard to {player}.").format(player=self.player)), id="curtain-title")
            yield Static(
                Content(
                    _("Everyone else, please look away: {player}'s cards will be shown.").format(
                        **name_forms("player", self.player, current_language())
                    )
                ),
                id="curtain-text",
            )
            with Center():
                yield Button(Content(_("I am {player}: show my cards").format(player=self.player)),
                             id="curtain-ready", variant="primary", compact=True)  # fmt: skip

    def on_mount(self) -> None:
        button = self.query(Button).first() if self.query(Button) else None
        if button is not None:  # none when the app closes while the curtain is coming down
            button.focus()

    async def relocalize(self) -> None:
        """Rebuild the curtain in the active language."""
        await self.recompose()
        self.on_mount()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """The next player is ready."""
        event.stop()
        self.dismiss(None)

    def action_ready(self) -> None:
        """Enter or Space: the next player is ready."""
        self.dismiss(None)
