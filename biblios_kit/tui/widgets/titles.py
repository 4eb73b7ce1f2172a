"""Border titles set only when they change."""

from __future__ import annotations

from weakref import WeakKeyDictionary

from textual.content import Content
from textual.widget import Widget

Title = str | Content | None
"""A border title or subtitle: console markup, :class:`~textual.content.Content` (a name: not markup), or none."""

_SHOWN: WeakKeyDictionary[Widget, tuple[Title, Title]] = WeakKeyDictionary()


def set_titles(widget: Widget, title: Title, subtitle: Title = None) -> None:
    """Give ``widget`` these border titles unless it already has them.

    Textual repaints the whole widget at every assignment of a title, even of the one it shows: the "Now"
    box (24 lines at 120x40, its text a widget of its own) was drawn again at every key for that alone."""
    if _SHOWN.get(widget) != (title, subtitle):
        _SHOWN[widget] = (title, subtitle)
        widget.border_title = title
        widget.border_subtitle = subtitle
