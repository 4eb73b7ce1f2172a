"""Localized rulebooks rendered from any ruleset, with section lookup, search and ruleset diffs.

Public API (the TUI's F1 help uses it too)::

    book = render_rulebook(load_ruleset("biblios", ["medieval-bluff"]), "fr")
    book.section(section_id("pénalité"))          # -> Section("penalty", ...)
    search(book, "encheres")                      # -> [Hit(...), ...]
    diff_rulesets(ruleset_a, ruleset_b, "es")     # -> [Difference(...), ...]
"""

from biblios_kit.rulebook.diff import Difference, diff_rulesets
from biblios_kit.rulebook.formats import FORMATS, format_rulebook, rulebook_markdown, rulebook_text
from biblios_kit.rulebook.model import SECTION_IDS, BulletList, Paragraph, Rulebook, Section, Subheading, Table
from biblios_kit.rulebook.names import UnknownSectionError, section_id
from biblios_kit.rulebook.render import render_rulebook
from biblios_kit.rulebook.search import Hit, highlight, search

__all__ = [
    "FORMATS",
    "SECTION_IDS",
    "BulletList",
    "Difference",
    "Hit",
    "Paragraph",
    "Rulebook",
    "Section",
    "Subheading",
    "Table",
    "UnknownSectionError",
    "diff_rulesets",
    "format_rulebook",
    "highlight",
    "render_rulebook",
    "rulebook_markdown",
    "rulebook_text",
    "search",
    "section_id",
]
