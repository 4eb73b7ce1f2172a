"""The table's log: the viewer's events as sentences, the newest highlighted for a while."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import var
from textual.widgets import RichLog

from biblios_kit.i18n import _
from biblios_kit.rulebook.describe import EventDescriber
from biblios_kit.rules.model import Ruleset
from biblios_kit.tui.table_text import fresh_line, log_lines
from biblios_kit.tui.table_view import LogPart

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

    def watch_part(self, before: LogPart | None, part: LogPart | None) -> None:
        if part is None:
            return
        self.border_title = _("Log")
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
                for line in lines:
                    self.write(fresh_line(line))
        elif part.fresh_from is None and self.fresh_lines:
            self.fresh_lines = 0
            self.rewrite()
        self.count = len(part.events)

    def rewrite(self) -> None:
        """Write the log again from its kept lines (the newest :attr:`fresh_lines` highlighted)."""
        self.clear()
        first_fresh = len(self.texts) - self.fresh_lines
        for index, line in enumerate(self.texts):
            self.write(fresh_line(line) if index >= first_fresh else line)
