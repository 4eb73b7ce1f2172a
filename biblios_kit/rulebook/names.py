"""Map a section name typed in any supported language (accents and case ignored) to its English id."""

from __future__ import annotations

from functools import cache

from biblios_kit.i18n import N_, SUPPORTED, translator
from biblios_kit.rulebook.grammar import fold
from biblios_kit.rulebook.model import SECTION_IDS
from biblios_kit.rulebook.render import FIXED_TITLES, TERM_TITLES
from biblios_kit.rules.model import Ruleset

KEYWORDS: dict[str, tuple[str, ...]] = {
    "overview": (N_("overview"), N_("introduction"), N_("summary"), N_("goal")),
    "components": (N_("components"), N_("cards"), N_("deck"), N_("dice")),
    "setup": (N_("setup"), N_("preparation")),
    "gift": (N_("gift"), N_("gifts"), N_("donation"), N_("gift phase"), N_("donation stage")),
    "church": (N_("church"), N_("bishop"), N_("church cards"), N_("bishop cards")),
    "auction": (N_("auction"), N_("auctions"), N_("bidding"), N_("auction phase"), N_("auction stage")),
    "penalty": (N_("penalty"), N_("penalties"), N_("bluff")),
    "scoring": (N_("scoring"), N_("score"), N_("points")),
    "ties": (N_("ties"), N_("tie"), N_("tie-break"), N_("final ties")),
    "options": (N_("options"), N_("option"), N_("variants")),
}
"""English words naming each section; their translations in every language are accepted too."""


class UnknownSectionError(LookupError):
    """A section name that matches no section (or several); ``choices`` lists the valid ids."""

    def __init__(self, name: str, choices: tuple[str, ...], candidates: tuple[str, ...] = ()) -> None:
        self.name = name
        self.choices = choices
        self.candidates = candidates
        super().__init__(name)


@cache
def _static_names() -> dict[str, frozenset[str]]:
    """Folded names per section id: ids, English keywords and titles, and their translations."""
    names: dict[str, set[str]] = {section_id: {section_id} for section_id in SECTION_IDS}
    for lang in SUPPORTED:
        tr = translator(lang)
        for section_id, words in KEYWORDS.items():
            names[section_id].update(fold(tr.gettext(word)) for word in words)
            names[section_id].update(fold(word) for word in words)
        for section_id, title in FIXED_TITLES.items():
            names[section_id].add(fold(tr.gettext(title)))
    return {section_id: frozenset(values) for section_id, values in names.items()}


def _names(ruleset: Ruleset | None) -> dict[str, set[str]]:
    names = {section_id: set(values) for section_id, values in _static_names().items()}
    if ruleset is not None:
        for section_id, key in TERM_TITLES.items():
            for lang in SUPPORTED:
                names[section_id].add(fold(ruleset.term(key, lang)))
    return names


def section_id(name: str, ruleset: Ruleset | None = None) -> str:
    """The English id of the section called ``name`` in English, French or Spanish.

    Accents and case are ignored (``enchères``, ``encheres``, ``subasta`` -> ``auction``;
    ``penalite``, ``pénalité`` -> ``penalty``); with a ruleset, its terms in every language
    name their sections too ("Donation stage" -> ``gift``). A unique prefix of at least three
    letters is accepted. Raises :class:`UnknownSectionError` otherwise.
    """
    wanted = fold(name.strip())
    names = _names(ruleset)
    exact = [section for section, values in names.items() if wanted in values]
    if len(exact) == 1:
        return exact[0]
    if not exact and len(wanted) >= 3:
        prefixed = [section for section, values in names.items() if any(v.startswith(wanted) for v in values)]
        if len(prefixed) == 1:
            return prefixed[0]
        if prefixed:
            raise UnknownSectionError(name, SECTION_IDS, tuple(prefixed))
    raise UnknownSectionError(name, SECTION_IDS, tuple(exact))
