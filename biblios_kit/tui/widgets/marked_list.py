"""A list of choices whose highlighted row is marked by a character (``▶``), not only by a colour.

A colour alone is lost on a monochrome terminal, to a colour-blind player and in a screen
reader's text; the marker is in the text itself, so it survives all three.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

MARKER = "▶ "
"""Put in front of the highlighted row."""
BLANK = "  "
"""Put in front of every other row (so the rows stay aligned)."""


class MarkedList(OptionList):
    """An :class:`OptionList` of ``(id, prompt)`` entries; the highlighted prompt starts with :data:`MARKER`."""

    DEFAULT_CSS = """
    MarkedList > .option-list--option-highlighted {
        text-style: bold;
    }
    """

    def __init__(self, entries: Sequence[tuple[str, Text]] = (), *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._prompts: list[Text] = []
        self._marked: int | None = None
        if entries:
            self.set_entries(entries)

    def set_entries(self, entries: Sequence[tuple[str, Text]], highlight: int | None = 0) -> None:
        """Replace the rows with ``entries`` and highlight row ``highlight`` (the first by default)."""
        self._prompts = [prompt for _id, prompt in entries]
        self._marked = None
        self.set_options(Option(self._decorate(prompt, False), id=key) for key, prompt in entries)
        if entries and highlight is not None:
            self.highlighted = max(0, min(highlight, len(entries) - 1))

    @staticmethod
    def _decorate(prompt: Text, marked: bool) -> Text:
        text = Text(MARKER if marked else BLANK, style="bold" if marked else "")
        text.append_text(prompt)
        return text

    def watch_highlighted(self, highlighted: int | None) -> None:
        """Move the marker to the new highlighted row."""
        super().watch_highlighted(highlighted)
        if self._marked == highlighted:
            return
        for index, marked in ((self._marked, False), (highlighted, True)):
            if index is not None and 0 <= index < len(self._prompts) and index < self.option_count:
                self.replace_option_prompt_at_index(index, self._decorate(self._prompts[index], marked))
        self._marked = highlighted
        self.refresh()

    def row_text(self, index: int) -> str:
        """The plain text of row ``index`` as shown (with its marker), for tests and screen readers."""
        prompt = self.get_option_at_index(index).prompt
        return prompt.plain if isinstance(prompt, Text) else str(prompt)
