"""Map a section name typed in any supported language (accents and case ignored) to its English id."""

from __future__ import annotations

import difflib
from functools import cache

from biblios_kit.i18n import N_, SUPPORTED, translator
from biblios_kit.rulebook.grammar import fold
from biblios_kit.rulebook.model import SECTION_IDS
from biblios_kit.rulebook.render import FIXED_TITLES, TERM_TITLES
from biblios_kit.rulebook.search import player_synonyms, query_words, synonyms_of, within_one_edit
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
    """A section name that matches no section (or several); ``choices`` lists the valid ids, ``candidates``
    the sections it could mean when it is ambiguous."""

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
    return {section_id: {_words(value) for value in values} for section_id, values in names.items()}


def _words(text: str) -> str:
    """``text`` folded, its words joined by single spaces ("Phase d'Enchères" -> "phase d encheres")."""
    return " ".join(query_words(text)) if text.strip() else ""


@cache
def _all_synonyms() -> dict[str, tuple[str, ...]]:
    """The search's synonyms of every language, together (a section name may be typed in any language)."""
    merged: dict[str, tuple[str, ...]] = {}
    for lang in SUPPORTED:
        for phrase, values in player_synonyms(lang).items():
            merged[phrase] = tuple(dict.fromkeys(merged.get(phrase, ()) + values))
    return merged


def _typo(wanted: str, name: str) -> bool:
    """One typo away (from five letters), or close enough by difflib for longer names (no name is 60 letters)."""
    if len(wanted) > 60:
        return False
    if len(wanted) >= 5 and len(name) >= 4 and within_one_edit(wanted, name):
        return True
    return len(wanted) >= 7 and difflib.SequenceMatcher(None, wanted, name).ratio() >= 0.85


def _sections(names: dict[str, set[str]], wanted: tuple[str, ...], how: str) -> list[str]:
    found = []
    for section, values in names.items():
        for want in wanted:
            if how == "exact":
                hit = want in values
            elif how == "prefix":
                hit = len(want) >= 3 and any(value.startswith(want) for value in values)
            else:
                hit = any(_typo(want, value) for value in values)
            if hit:
                found.append(section)
                break
    return found


def section_id(name: str, ruleset: Ruleset | None = None) -> str:
    """The English id of the section called ``name`` in English, French or Spanish.

    Accents and case are ignored (``enchères``, ``encheres``, ``subasta`` -> ``auction``;
    ``penalite``, ``pénalité`` -> ``penalty``); with a ruleset, its terms in every language
    name their sections too ("Donation stage" -> ``gift``). The search's synonyms of every
    language are accepted ("obsequio" -> ``gift``, "surenchère" -> ``auction``, "tiebreak" ->
    ``ties``), and so are a unique prefix of at least three letters and one typo in a name of five
    letters or more ("subsata", "penalizasion"): exact names first, then prefixes, then typos,
    each time what was typed before its synonyms. Raises :class:`UnknownSectionError` otherwise,
    with the sections the name could mean as ``candidates`` ("did you mean").
    """
    wanted = _words(name)
    if not wanted:
        raise UnknownSectionError(name, SECTION_IDS)
    names = _names(ruleset)
    synonyms = tuple(_words(other) for other in synonyms_of(wanted.split(), _all_synonyms()) or ())
    for how in ("exact", "prefix", "typo"):
        for alternatives in ((wanted,), synonyms):
            found = _sections(names, alternatives, how)
            if len(found) == 1:
                return found[0]
            if found:
                raise UnknownSectionError(name, SECTION_IDS, tuple(found))
    raise UnknownSectionError(name, SECTION_IDS)
