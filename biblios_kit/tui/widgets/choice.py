"""A one-line choice among a few values: a compact button that cycles (Enter, click, ←/→).

Lighter than a ``Select`` (no overlay, one widget): the setup screen has half a dozen of
them, and six ``Select`` widgets cost about 0.2 s of the first frame on our machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, TypeVar

from rich.text import Text
from textual.binding import Binding
from textual.message import Message

from biblios_kit.tui.widgets.form_button import FormButton

T = TypeVar("T")


class Choice(FormButton, Generic[T]):
    """Shows ``‹ label ›``; Enter, Space, a click or → picks the next value, ← the previous one."""

    BINDINGS = [
        Binding("right", "step(1)", show=False),
        Binding("left", "step(-1)", show=False),
    ]

    class Changed(Message):
        """The value changed."""

        def __init__(self, choice: Choice[object], value: object) -> None:
            super().__init__()
            self.choice = choice
            self.value = value

        @property
        def control(self) -> Choice[object]:
            """The choice widget that changed."""
            return self.choice

    def __init__(self, options: Sequence[tuple[str, T]], value: T, *, id: str | None = None) -> None:
        self.options = list(options)
        values = [v for _label, v in self.options]
        self.index = values.index(value) if value in values else 0
        super().__init__(self._label(), id=id, classes="choice")

    def set_options(self, options: Sequence[tuple[str, T]], value: T) -> None:
        """Replace the values offered, selecting ``value`` (the first one if absent); no message is sent."""
        self.options = list(options)
        values = [v for _label, v in self.options]
        self.index = values.index(value) if value in values else 0
        self._relabel()

    def _relabel(self) -> None:
        """Show the current value; the width follows the label (a button's label alone only repaints)."""
        self.label = self._label()
        self.refresh(layout=True)

    @property
    def value(self) -> T:
        """The value chosen."""
        return self.options[self.index][1]

    def _label(self) -> Text:
        label = self.options[self.index][0] if self.options else ""
        return Text.assemble(("‹ ", "dim"), label, (" ›", "dim"))

    def action_step(self, step: int) -> None:
        """Move to the next (or previous) value and announce it."""
        if len(self.options) < 2:
            return
        self.index = (self.index + step) % len(self.options)
        self._relabel()
        self.post_message(self.Changed(self, self.value))  # type: ignore[arg-type]

    def press(self) -> Choice[T]:
        """Enter, Space or a click: the next value."""
        self.action_step(1)
        return self
