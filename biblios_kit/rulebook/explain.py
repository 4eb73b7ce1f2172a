"""What a variant changes: the rules that differ from its base, grouped by rulebook section, in one language.

``rules explain FILE`` uses it. The differences are :func:`~biblios_kit.rulebook.diff.diff_rulesets`
between the base (the ruleset the file ``extends``) and the variant; each is filed under the
rulebook section that describes it, titled as the variant's rulebook titles it, and the
section itself can follow, as :func:`~biblios_kit.rulebook.render.render_rulebook` writes
it for the variant. Nothing is phrased twice: the sentences are the diff's and the
rulebook's.
"""

from __future__ import annotations

from dataclasses import dataclass

from biblios_kit.i18n import _, in_language
from biblios_kit.rulebook.diff import Difference, diff_rulesets
from biblios_kit.rulebook.formats import display_width, section_text
from biblios_kit.rulebook.model import SECTION_IDS, Section
from biblios_kit.rulebook.render import render_rulebook
from biblios_kit.rules.model import Ruleset

_SECTION_OF_PREFIX: tuple[tuple[str, str], ...] = (
    ("title", "overview"),
    ("term:", "components"),
    ("categories", "components"),
    ("deck:", "components"),
    ("dice:", "components"),
    ("gold", "components"),
    ("church-cards", "components"),
    ("players", "setup"),
    ("setup:", "setup"),
    ("church:", "church"),
    ("auction:", "auction"),
    ("penalty:", "penalty"),
    ("scoring:tiebreak", "ties"),
    ("scoring:", "scoring"),
    ("option:", "options"),
    ("options:", "options"),
)
"""The rulebook section of a difference, by the start of its key (first match wins)."""


def section_of(key: str) -> str:
    """The id of the rulebook section that describes the rule of difference ``key`` (``"overview"`` if none)."""
    for prefix, section in _SECTION_OF_PREFIX:
        if key.startswith(prefix):
            return section
    return "overview"


@dataclass(frozen=True)
class ChangedSection:
    """One rulebook section of the variant with the differences from the base it holds."""

    section: Section
    """The variant's section, as its rulebook writes it."""
    differences: tuple[Difference, ...]
    """The rules of this section that differ, base on the left, variant on the right."""


def explain_changes(base: Ruleset, variant: Ruleset, lang: str) -> list[ChangedSection]:
    """The sections of ``variant``'s rulebook whose rules differ from ``base``, in rulebook order (empty if none)."""
    # The title is not a rule: a variant always has its own.
    differences = [d for d in diff_rulesets(base, variant, lang) if d.key != "title"]
    if not differences:
        return []
    book = render_rulebook(variant, lang)
    by_section: dict[str, list[Difference]] = {}
    for difference in differences:
        by_section.setdefault(section_of(difference.key), []).append(difference)
    return [
        ChangedSection(book.section(section_id), tuple(by_section[section_id]))
        for section_id in SECTION_IDS
        if section_id in by_section and section_id in book.section_ids
    ]


def explain_text(changes: list[ChangedSection], base_label: str, variant_label: str, lang: str,
                 full: bool = False, width: int = 80) -> str:  # fmt: skip
    """The changes as plain text in ``lang``: per section, each rule before and after; with ``full``, the section too."""
    with in_language(lang):
        if not changes:
            return _("{variant} changes no rule of {base}.").format(variant=variant_label, base=base_label) + "\n"
        lines = [_("Rules that {variant} changes from {base}:").format(variant=variant_label, base=base_label)]
        for change in changes:
            lines += ["", change.section.title, "=" * display_width(change.section.title)]
            for difference in change.differences:
                lines.append(f"* {difference.topic}")
                lines.append("    " + _("{ruleset}: {rule}").format(ruleset=base_label, rule=difference.left))
                lines.append("    " + _("{ruleset}: {rule}").format(ruleset=variant_label, rule=difference.right))
            if full:
                lines += ["", _("The section as {variant} has it:").format(variant=variant_label)]
                lines += section_text(change.section, width).rstrip("\n").split("\n")[2:]
        return "\n".join(lines).rstrip("\n") + "\n"
