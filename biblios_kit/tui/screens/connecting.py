"""The screen shown while ``biblios-kit join`` reaches its server: what it is doing, why it failed, and ``q`` to leave."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Middle
from textual.screen import Screen
from textual.widgets import Footer, Static

from biblios_kit.i18n import _, format_decimal
from biblios_kit.tui.localize import set_bindings
from biblios_kit.tui.render import MUTED


class ConnectingScreen(Screen[None]):
    """Shows "Connecting to SERVER…", then, after a failed attempt, why and when the next one comes; ``q`` leaves."""

    DEFAULT_CSS = """
    ConnectingScreen #connecting { width: 72; max-width: 100%; padding: 1 2; border: round $primary; }
    """

    def __init__(self, server: str) -> None:
        super().__init__()
        self.server = server
        """The server's address (cleaned by the caller: shown as text)."""
        self.problem: tuple[str, float] | None = None
        """The last failure: its reason (a sentence) and the seconds until the next attempt."""

    def compose(self) -> ComposeResult:
        with Middle(), Center():
            yield Static(self._text(), id="connecting")
        yield Footer()

    def on_mount(self) -> None:
        set_bindings(self, [Binding("q", "leave", _("Quit"))])
        self._show()

    def relocalize(self) -> None:
        """The language changed (F2): the key's label and the text again."""
        set_bindings(self, [Binding("q", "leave", _("Quit"))])
        self._show()

    def failed(self, reason: str, delay: float) -> None:
        """An attempt failed for ``reason``; the next one comes in ``delay`` seconds."""
        self.problem = (reason, delay)
        self._show()

    def _show(self) -> None:
        """Draw the text again (when the screen has its widget: a failure may come before it is mounted)."""
        for widget in self.query("#connecting").results(Static):
            widget.update(self._text())

    def _text(self) -> Text:
        text = Text(_("Connecting to {server}…").format(server=self.server), style="bold")
        if self.problem is not None:
            reason, delay = self.problem
            text.append("\n\n")
            text.append(_("The server cannot be reached: {reason}.").format(reason=reason))
            text.append("\n")
            text.append(
                _("Trying again in {seconds} s; q leaves (the same link joins later).").format(
                    seconds=format_decimal(round(delay, 1))
                ),
                style=MUTED,
            )
        return text

    async def action_leave(self) -> None:
        """Leave ``join`` (nothing is lost: the seat waits on the server)."""
        await self.app.action_quit()
