"""The table's log: the viewer's events as sentences, the newest highlighted for a while."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.events import Resize
from textual.geometry import Region, Size
from textual.reactive import var
from textual.strip import Strip
from textual.widgets import RichLog

from biblios_kit.i18n import _
from biblios_kit.rulebook.describe import EventDescriber
from biblios_kit.rules.model import Ruleset
from biblios_kit.tui.table_text import fresh_line, log_lines
from biblios_kit.tui.table_view import LogPart
from biblios_kit.tui.widgets.titles import set_titles

LOG_LINES = 300
"""Lines kept in the log when it is written again (for a new viewer, a language, the end of a highlight)."""


class TableLog(RichLog):
    """The log of a :class:`~biblios_kit.tui.table_view.LogPart`: lines are added as events come; it is written
    again only for another viewer or language, and once when the highlight of the newest lines ends."""

    part: var[LogPart | None] = var(None)

    def __init__(self, ruleset: Ruleset, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, wrap=True, markup=False, auto_scroll=True, min_width=10)
        self.can_focus = False  # scrolls with the mouse; its keys (arrows, PgUp/PgDn) belong to the game
        self.ruleset = ruleset
        self.describer: EventDescriber | None = None
        """Describes the events in order (it remembers the currency of the auction under way)."""
        self.texts: list[Text] = []
        """The lines written, at most :data:`LOG_LINES`."""
        self.fresh_lines = 0
        """How many of the newest lines are highlighted."""
        self.count = 0
        """Events described so far."""
        self._frame_style: Style | None = None

    def watch_part(self, before: LogPart | None, part: LogPart | None) -> None:
        if part is None:
            return
        set_titles(self, _("Log"))
        if before is None or self.describer is None or (before.viewer, before.lang) != (part.viewer, part.lang):
            self.describer = EventDescriber(self.ruleset, part.names)
            self.texts = log_lines(self.describer, part.events)[-LOG_LINES:]
            self.fresh_lines = 0
            self.rewrite()
        elif len(part.events) > self.count:
            if self.fresh_lines and (part.fresh_from is None or part.fresh_from >= self.count):
                self.fresh_lines = 0  # the highlight ended: the older lines lose theirs
                self.rewrite()
            lines = log_lines(self.describer, part.events[self.count :])
            if lines:
                # Lines arriving while others are still highlighted join them: the log is written
                # again only once, when the highlight ends.
                self.texts.extend(lines)
                del self.texts[:-LOG_LINES]
                self.fresh_lines = min(LOG_LINES, self.fresh_lines + len(lines))
                first = len(self.lines)
                for line in lines:
                    self.write(fresh_line(line))
                if len(self.lines) > first:  # drawn now (a log that fits its window keeps its virtual size)
                    self.refresh_lines(first, len(self.lines) - first)
        elif part.fresh_from is None and self.fresh_lines:
            self.fresh_lines = 0
            self.rewrite()
        self.count = len(part.events)

    def validate_virtual_size(self, size: Size) -> Size:
        """The lines' size, but never smaller than the window.

        While the log fits in its window, a new line then leaves the virtual size as it was, so that line alone is
        drawn again, instead of the whole log and its scrollbar after a layout pass; and a layout pass for another
        panel no longer finds the log's size changed and draws its scrollbar again (together about a fifth of a
        key's frame at 120x40). The look is the same: blank space beside and under the lines, and no scrollbar
        thumb either way."""
        window = self.scrollable_content_region.size
        return Size(max(size.width, window.width), max(size.height, window.height))

    def on_resize(self, _event: Resize) -> None:
        """The window's size changed: the virtual size follows it (see :meth:`validate_virtual_size`)."""
        self.virtual_size = Size(max((line.cell_length for line in self.lines), default=0), len(self.lines))

    def rewrite(self) -> None:
        """Write the log again from its kept lines (the newest :attr:`fresh_lines` highlighted)."""
        self.clear()
        first_fresh = len(self.texts) - self.fresh_lines
        for index, line in enumerate(self.texts):
            self.write(fresh_line(line) if index >= first_fresh else line)

    def render_lines(self, crop: Region) -> list[Strip]:
        """Draw the visible lines, working out the log's style once per frame instead of twice per line
        (``rich_style`` walks every ancestor's styles: about a tenth of a frame at 120x40, where the whole log is
        drawn again whenever it scrolls)."""
        self._frame_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._frame_style = None

    def render_line(self, y: int) -> Strip:
        """One visible line: :meth:`RichLog.render_line` with the frame's style."""
        style = self._frame_style
        if style is None:
            return super().render_line(y)
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        index = scroll_y + y
        if index >= len(self.lines):
            return Strip.blank(width, style).apply_style(style)
        key = (index + self._start_line, scroll_x, width, self._widest_line_width)
        line = self._line_cache.get(key)
        if line is None:
            line = self._line_cache[key] = self.lines[index].crop_extend(scroll_x, scroll_x + width, style)
        return line.apply_style(style)
