"""Running text that breaks lines only where a line may break: never at a no-break space.

Rich and Textual split words on the regular expression ``\\s``, which matches the no-break
spaces (U+00A0, U+202F) French typography puts before ``: ; ! ?`` and inside « ». Wrapped
by them, a French line can start with ":" or a lone "»". :class:`Prose` is a ``Static``
whose text is wrapped here first, at the width it is drawn at, treating those spaces as
part of the word; Textual then has nothing left to wrap.
"""

from __future__ import annotations

import re

from rich.cells import cell_len
from textual.content import Content
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widgets import Static

NO_BREAK = "\u00a0\u2007\u202f\u2060"
"""Spaces a line must not break at: no-break, figure, narrow no-break, word joiner."""


def _glued(line: str, cut: int) -> bool:
    """Whether cutting ``line`` at ``cut`` separates a no-break space or « ... » from its word."""
    after = line[cut:].lstrip(NO_BREAK)[:1]
    return line[cut - 1] in NO_BREAK + "«" or line[cut : cut + 1] in tuple(NO_BREAK) or after in tuple(":;!?»")


_WORD = re.compile(rf"[^\S{NO_BREAK}]*[\S{NO_BREAK}]+[^\S{NO_BREAK}]*|[^\S{NO_BREAK}]+")


def break_offsets(line: str, width: int) -> list[int]:
    """Where to break ``line`` (no newline in it) so each piece fits ``width`` cells, never at a no-break space.

    Greedy, like Rich: a word that does not fit goes to the next line. A word wider than
    ``width`` is cut, and the cut moves back so that no piece starts with ``: ; ! ?`` or
    "»" (a cut inside "(refuse-to-pay) :" gives "(refuse-to-pa" and "y) :").
    """
    offsets: list[int] = []
    used = 0
    for match in _WORD.finditer(line):
        word, start = match.group(), match.start()
        length = cell_len(word.rstrip())
        if used + length <= width:
            used += cell_len(word)
            continue
        if start > 0 and used > 0:
            offsets.append(start)
        used = 0
        position = start
        while cell_len(line[position : match.end()].rstrip()) > width:
            cut = position
            while cut < match.end() and cell_len(line[position : cut + 1]) <= width:
                cut += 1
            while cut - 1 > position and _glued(line, cut):
                cut -= 1
            cut = max(cut, position + 1)
            offsets.append(cut)
            position = cut
        used = cell_len(line[position : match.end()])
    return [offset for offset in offsets if 0 < offset < len(line)]


def wrap_content(content: Content, width: int) -> Content:
    """``content`` with line breaks added so every line fits ``width`` cells (see :func:`break_offsets`)."""
    if width <= 0:
        return content
    lines: list[Content] = []
    for line in content.split("\n", allow_blank=True):
        pieces = line.divide(break_offsets(line.plain, width))
        lines += [piece.rstrip() for piece in pieces[:-1]] + pieces[-1:]
    return Content("\n").join(lines)


class KeepTogether(Visual):
    """A visual that wraps its content with :func:`wrap_content` at the width it is rendered at."""

    def __init__(self, content: Content) -> None:
        self.content = content
        self._wrapped: tuple[int, Content] = (-1, content)

    def _at(self, width: int) -> Content:
        if self._wrapped[0] != width:
            self._wrapped = (width, wrap_content(self.content, width))
        return self._wrapped[1]

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        """Render the wrapped content (part of the Visual protocol)."""
        pad = int(options.rules.get("line_pad", 0) or 0) * 2
        return self._at(width - pad).render_strips(width, height, style, options)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        """The content's own optimal width."""
        return self.content.get_optimal_width(rules, container_width)

    def get_minimal_width(self, rules: RulesMap) -> int:
        """The content's own minimal width."""
        return self.content.get_minimal_width(rules)

    def get_height(self, rules: RulesMap, width: int) -> int:
        """Lines of the wrapped content at ``width``."""
        pad = int(rules.get("line_pad", 0) or 0) * 2
        return self._at(width - pad).get_height(rules, width)


class Prose(Static):
    """A ``Static`` for running text: lines never break at a no-break space (French « : ; ! ? »)."""

    @property
    def visual(self) -> Visual:
        """The content as a :class:`KeepTogether` visual."""
        visual = super().visual
        if isinstance(visual, Content):
            return KeepTogether(visual)
        return visual

    def render(self) -> Visual:
        """The wrapped text."""
        return self.visual
