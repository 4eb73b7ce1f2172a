"""Format a :class:`~biblios_kit.rulebook.model.Rulebook` as plain text or Markdown."""

from __future__ import annotations

import textwrap
import unicodedata
from collections.abc import Iterable

from biblios_kit.rulebook.model import Block, BulletList, Paragraph, Rulebook, Section, Subheading, Table

FORMATS: tuple[str, ...] = ("text", "markdown")
"""The output formats :func:`format_rulebook` knows."""


def display_width(text: str) -> int:
    """Terminal columns taken by ``text`` (wide East Asian characters count 2, combining marks 0)."""
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def _pad(text: str, width: int) -> str:
    return text + " " * (width - display_width(text))


# -- plain text ------------------------------------------------------------------------------------


def _text_table(table: Table) -> list[str]:
    widths = [display_width(h) for h in table.headers]
    for row in table.rows:
        widths = [max(w, display_width(cell)) for w, cell in zip(widths, row)]
    line = "  ".join(_pad(h, w) for h, w in zip(table.headers, widths)).rstrip()
    rule = "  ".join("-" * w for w in widths)
    body = ["  ".join(_pad(cell, w) for cell, w in zip(row, widths)).rstrip() for row in table.rows]
    return [line, rule, *body]


def _text_block(block: Block, width: int) -> list[str]:
    if isinstance(block, Paragraph):
        return textwrap.wrap(block.text, width) or [""]
    if isinstance(block, Subheading):
        return [block.text, "~" * display_width(block.text)]
    if isinstance(block, BulletList):
        lines: list[str] = []
        for index, item in enumerate(block.items, start=1):
            marker = f"{index}. " if block.ordered else "* "
            lines += textwrap.wrap(item, width, initial_indent=marker, subsequent_indent=" " * len(marker))
        return lines
    return _text_table(block)


def section_text(section: Section, width: int = 80) -> str:
    """One section as plain text, wrapped at ``width`` columns."""
    lines = [section.title, "=" * display_width(section.title)]
    for block in section.blocks:
        lines.append("")
        lines += _text_block(block, width)
    return "\n".join(lines) + "\n"


def rulebook_text(rulebook: Rulebook, width: int = 80, sections: Iterable[Section] | None = None) -> str:
    """The rulebook (or only ``sections``) as plain text."""
    chosen = list(rulebook.sections if sections is None else sections)
    head = [rulebook.title.upper(), rulebook.subtitle, ""]
    return "\n".join(head) + "\n" + "\n".join(section_text(s, width) for s in chosen)


# -- Markdown --------------------------------------------------------------------------------------


def _md_escape_cell(text: str) -> str:
    return text.replace("|", "\\|")


def _md_block(block: Block) -> list[str]:
    if isinstance(block, Paragraph):
        return [block.text]
    if isinstance(block, Subheading):
        return [f"### {block.text}"]
    if isinstance(block, BulletList):
        if block.ordered:
            return [f"{index}. {item}" for index, item in enumerate(block.items, start=1)]
        return [f"- {item}" for item in block.items]
    head = "| " + " | ".join(_md_escape_cell(h) for h in block.headers) + " |"
    rule = "| " + " | ".join("---" for _ in block.headers) + " |"
    rows = ["| " + " | ".join(_md_escape_cell(c) for c in row) + " |" for row in block.rows]
    return [head, rule, *rows]


def section_markdown(section: Section) -> str:
    """One section as Markdown (a level-2 heading, then its blocks)."""
    parts = [f"## {section.title}"]
    for block in section.blocks:
        parts.append("\n".join(_md_block(block)))
    return "\n\n".join(parts) + "\n"


def rulebook_markdown(rulebook: Rulebook, sections: Iterable[Section] | None = None) -> str:
    """The rulebook (or only ``sections``) as Markdown."""
    chosen = list(rulebook.sections if sections is None else sections)
    head = f"# {rulebook.title}\n\n_{rulebook.subtitle}_\n"
    return head + "".join("\n" + section_markdown(s) for s in chosen)


def format_rulebook(rulebook: Rulebook, fmt: str = "text", sections: Iterable[Section] | None = None) -> str:
    """The rulebook in ``fmt`` (one of :data:`FORMATS`); ``ValueError`` for another format."""
    if fmt == "text":
        return rulebook_text(rulebook, sections=sections)
    if fmt == "markdown":
        return rulebook_markdown(rulebook, sections=sections)
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
