"""The structured rulebook: a :class:`Rulebook` of named :class:`Section` objects made of blocks."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from biblios_kit.rulebook.claims import Claim

SECTION_IDS: tuple[str, ...] = (
    "overview",
    "components",
    "setup",
    "gift",
    "church",
    "auction",
    "penalty",
    "scoring",
    "ties",
    "options",
)
"""The stable, English section ids, in rulebook order."""


@dataclass(frozen=True, slots=True)
class Paragraph:
    """A paragraph of running text."""

    text: str
    claims: tuple[Claim, ...] = field(default=(), compare=False, repr=False)
    """What the paragraph asserts about every game (see :mod:`biblios_kit.rulebook.claims`)."""
    note: bool = field(default=False, compare=False, repr=False)
    """True for text that states no rule of play (an introduction, a summary, a cross-reference)."""


@dataclass(frozen=True, slots=True)
class Subheading:
    """A small heading inside a section."""

    text: str


@dataclass(frozen=True, slots=True)
class BulletList:
    """An unordered list; ``ordered`` lists are numbered (steps, tie-break order)."""

    items: tuple[str, ...]
    ordered: bool = False
    claims: tuple[Claim, ...] = field(default=(), compare=False, repr=False)
    """What the list asserts about every game."""
    note: bool = field(default=False, compare=False, repr=False)
    """True for a list that states no rule of play."""


@dataclass(frozen=True, slots=True)
class Table:
    """A table with a header row; every row has as many cells as ``headers``."""

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    claims: tuple[Claim, ...] = field(default=(), compare=False, repr=False)
    """What the table asserts about every game."""
    note: bool = field(default=False, compare=False, repr=False)
    """True for a table that states no rule of play."""


Block = Paragraph | Subheading | BulletList | Table
"""One piece of a section."""


def block_claims(block: Block) -> tuple[Claim, ...]:
    """The claims a block carries (a subheading carries none)."""
    return () if isinstance(block, Subheading) else block.claims


def is_rule(block: Block) -> bool:
    """Whether a block states rules of play (each such block must carry a claim)."""
    return not isinstance(block, Subheading) and not block.note


def block_lines(block: Block) -> tuple[str, ...]:
    """The plain-text lines of a block (one per paragraph, list item or table row), for search."""
    if isinstance(block, (Paragraph, Subheading)):
        return (block.text,)
    if isinstance(block, BulletList):
        return block.items
    return (" | ".join(block.headers), *(" | ".join(row) for row in block.rows))


@dataclass(frozen=True, slots=True)
class Section:
    """A named part of the rulebook; ``id`` is one of :data:`SECTION_IDS` (English, stable)."""

    id: str
    title: str
    blocks: tuple[Block, ...]

    def lines(self) -> Iterator[str]:
        """Every plain-text line of the section, title first."""
        yield self.title
        for block in self.blocks:
            yield from block_lines(block)


@dataclass(frozen=True, slots=True)
class Rulebook:
    """The complete rules of one ruleset (options applied) in one language."""

    ruleset_id: str
    language: str
    title: str
    subtitle: str
    sections: tuple[Section, ...]

    def section(self, section_id: str) -> Section:
        """The section with this English id (``KeyError`` if there is none)."""
        for section in self.sections:
            if section.id == section_id:
                return section
        raise KeyError(section_id)

    @property
    def section_ids(self) -> tuple[str, ...]:
        """The ids of the sections, in order."""
        return tuple(section.id for section in self.sections)
