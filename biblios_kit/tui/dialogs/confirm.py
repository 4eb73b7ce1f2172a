"""A yes/no question as a modal dialog."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from biblios_kit.tui.dialogs.base import see_through


class ConfirmDialog(ModalScreen[bool]):
    """Ask a question; dismisses with ``True`` (confirm) or ``False`` (cancel, also Escape)."""

    BINDINGS = [Binding("escape", "cancel", show=False)]

    def __init__(self, title: str, message: str, confirm: str, cancel: str) -> None:
        super().__init__(classes="dialog-screen")
        self.title_text = title
        self.message = message
        self.confirm_label = confirm
        self.cancel_label = cancel

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="confirm-dialog") as box:
            # Content, not markup strings: the message may quote a file name or an error.
            box.border_title = Content(self.title_text)
            yield Static(Content(self.message), id="confirm-message")
            with Horizontal(classes="buttons"):
                yield Button(Content(self.confirm_label), id="confirm", variant="warning", compact=True)
                yield Button(Content(self.cancel_label), id="cancel", variant="primary", compact=True)

    def on_mount(self) -> None:
        see_through(self, 0.5)  # the question stands out; what it is about stays readable behind it
        self.query_one("#cancel", Button).focus()

    async def relocalize(self) -> None:
        """Rebuild the dialog in the active language (the question itself was phrased when it was asked)."""
        await self.recompose()
        self.on_mount()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Dismiss with the answer."""
        event.stop()
        self.dismiss(event.button.id == "confirm")

    def action_cancel(self) -> None:
        """Escape cancels."""
        self.dismiss(False)
