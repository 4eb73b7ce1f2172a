"""A table widget taken down with its screen ignores a late resize instead of failing the app (without Textual's app)."""

from __future__ import annotations

from textual.events import Resize
from textual.geometry import Size

from biblios_kit.tui.table_view import StatusPart
from biblios_kit.tui.widgets.table_panels import StatusBar


def test_a_status_bar_without_its_screen_ignores_a_resize() -> None:
    # Seen under load: the terminal resized while a finished game's table was being taken down, and the bar's
    # resize handler asked for its screen's width ("NoScreen: node has no screen").
    bar = StatusBar()
    bar.set_reactive(StatusBar.part, StatusPart("en", "Biblios", "Gift", "Ana", "English"))
    bar.on_resize(Resize(Size(80, 1), Size(80, 1)))
    assert not bar.is_attached
