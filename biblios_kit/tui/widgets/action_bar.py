"""The table's action bar: a button per choice of the person at the keyboard, or who the table waits for."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.events import Resize
from textual.message import Message
from textual.reactive import var
from textual.widgets import Button, Static

from biblios_kit.tui.render import MUTED
from biblios_kit.tui.table_text import offer_label
from biblios_kit.tui.table_view import ActionsPart

ACTION_BUTTONS = 10
"""Buttons of the bar, created once and relabelled (the public space offers at most a few cards)."""


class ActionButton(Button):
    """A button of the action bar; :attr:`command` says what it does (``act-<action>``, ``bid-go`` ...)."""

    command: str = ""


class ActionBar(Horizontal):
    """The buttons of an :class:`~biblios_kit.tui.table_view.ActionsPart`; a press is posted as :class:`Chosen`."""

    class Chosen(Message):
        """A button of the bar was pressed."""

        def __init__(self, command: str) -> None:
            super().__init__()
            self.command = command
            """What the button does (see :attr:`ActionButton.command`)."""

    part: var[ActionsPart | None] = var(None)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._buttons: list[ActionButton] = []
        self._note: Static | None = None

    def compose(self) -> ComposeResult:
        for _index in range(ACTION_BUTTONS):
            yield ActionButton("", classes="action", compact=True)
        yield Static(id="waiting")

    def watch_part(self) -> None:
        self._draw()

    def on_mount(self) -> None:
        """The buttons are there now (found once: two DOM queries per key otherwise): show the part set before."""
        self._buttons = list(self.query(ActionButton))
        # None while the bar is taken down before it was shown (a table left at once): nothing to draw then.
        self._note = next(iter(self.query("#waiting").results(Static)), None)
        self._draw()

    def on_resize(self, _event: Resize) -> None:
        """Cards to pick are named in short when their names do not fit: lay the labels out again."""
        self._draw()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Tell the screen which button was pressed."""
        event.stop()
        if isinstance(event.button, ActionButton):
            self.post_message(self.Chosen(event.button.command))

    def _draw(self) -> None:
        part = self.part
        note = self._note
        if part is None or note is None or not self.is_attached:  # not mounted yet (done on mounting), or taken down
            return
        offers = part.offers
        room = (self.screen.size.width or 80) - 2
        short = sum(len(offer.label) + 5 for offer in offers if offer.short is not None) > room
        for index, button in enumerate(self._buttons):
            if index < len(offers):
                offer = offers[index]
                label = offer_label(offer, short)
                resized = len(str(button.label)) != len(str(label))
                button.label = label
                button.command = offer.command
                button.variant = offer.variant
                button.display = True
                if resized:
                    # A new label does not resize a button by itself (its width is cached): a longer
                    # label (another language, another card) would be cut off.
                    button.clear_cached_dimensions()
                    button.refresh(layout=True)
            else:
                button.display = False
        note.display = part.waiting is not None
        if part.waiting is not None:
            note.update(Text(part.waiting, style=MUTED))
