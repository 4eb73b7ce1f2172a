"""A checkbox whose state reads without colour: ``X`` when on, a blank when off."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Checkbox


class SignedCheckbox(Checkbox):
    """Textual's ``Checkbox`` draws an ``X`` in both states and tells them apart by colour only."""

    @property
    def _button(self) -> Content:
        self.BUTTON_INNER = "X" if self.value else " "
        return super()._button
