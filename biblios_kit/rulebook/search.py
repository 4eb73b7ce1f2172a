"""Search a rendered rulebook the way players type: whole words and word prefixes, any case and accents,
one typo in longer words, each language's synonyms and both editions' own words, ranked by relevance.

A query is split into *units*: a phrase known as a synonym ("pila de robo", "plateau de valeurs",
"Medieval Bluff") or a single word. Each unit has alternatives: itself, its synonyms in the
rulebook's language, and every edition's word for the same thing in that language (so "mazo"
finds the Biblios "pila de robo" and "Scriptorium" finds the Scripts & Scribes "Value Board").

A word matches a word of the text when it is equal (a plural *-s*/*-x* allowed), a prefix (from
three letters), or, from five letters, one typo away (a letter added, missing, changed or two
swapped). Accents are ignored unless the query has some: "penalite" finds "pénalité", but "dé"
finds "dé" and "dés", not every "de". A section matches when every unit matches in it; sections
come best first (better matches, the title, more lines), and each hit names its section.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from biblios_kit.rulebook.model import Rulebook

_WORD = re.compile(r"\w+")

EXACT, PREFIX, TYPO = 3, 2, 1
"""Match qualities of one word, best first (0 is no match)."""

STOPWORDS: dict[str, frozenset[str]] = {
    "en": frozenset({"the", "of", "a", "an", "and", "in", "to", "on", "for"}),
    "fr": frozenset({"de", "du", "des", "la", "le", "les", "l", "d", "un", "une", "et", "en", "a", "au", "aux"}),
    "es": frozenset({"de", "del", "la", "el", "los", "las", "un", "una", "y", "en", "a", "al"}),
}
"""Small words a query may contain but that do not have to match on their own ("total en Moines")."""

SYNONYMS: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        "vp": ("victory points",),
        "fine": ("penalty", "penalized"),
        "money": ("gold",),
        "tie breaker": ("tie-break", "ties", "tied"),
        "tiebreaker": ("tie-break", "ties", "tied"),
        "tie break": ("ties", "tied"),
        "tiebreak": ("tie-break", "ties", "tied"),
        "minimum bid": ("first bid", "bid"),
        "lowest bid": ("first bid", "bid"),
        "outbid": ("higher", "bid"),
        "overbid": ("higher", "bid"),
        "raise the bid": ("higher", "bid"),
        "present": ("gift", "donation"),
    },
    "fr": {
        "pv": ("points de victoire",),
        "amende": ("penalite", "penalise"),
        "sanction": ("penalite", "penalise"),
        "argent": ("or",),
        "egalite": ("departage", "egalites"),
        "ex aequo": ("egalite", "departage"),
        "tiebreak": ("departage", "egalite"),
        "tie break": ("departage", "egalite"),
        "surenchere": ("enchere", "encherit", "depasser"),
        "surencherir": ("enchere", "encherit", "depasser"),
        "surencherisseur": ("encherisseur", "enchere"),
        "mise": ("enchere",),
        "miser": ("enchere", "encherir"),
        "mise minimale": ("enchere",),
        "mise minimum": ("enchere",),
        "enchere minimale": ("enchere",),
        "enchere minimum": ("enchere",),
        "doree": ("or",),
        "dore": ("or",),
        "cadeau": ("don", "donation"),
        "offrir": ("don", "donation"),
        "donner": ("don", "donation"),
    },
    "es": {
        "multa": ("penalizacion", "penalizado"),
        "sancion": ("penalizacion", "penalizado"),
        "sancionado": ("penalizado", "penalizacion"),
        "oferta": ("puja",),
        "dinero": ("oro",),
        "obsequio": ("regalo", "donacion"),
        "obsequiar": ("regalo", "donacion"),
        "regalar": ("regalo", "donacion"),
        "donar": ("regalo", "donacion"),
        "dorada": ("oro",),
        "dorado": ("oro",),
        "puja minima": ("puja",),
        "puja minimo": ("puja",),
        "oferta minima": ("puja",),
        "apuesta": ("puja",),
        "apuesta minima": ("puja",),
        "sobrepujar": ("superar", "puja"),
        "desempate": ("empate", "empates", "empatan"),
        "tiebreak": ("desempate", "empate", "empates"),
        "tie break": ("desempate", "empate", "empates"),
    },
}
"""Words players use for the rulebook's words, per language (folded: lower case, no accents, in the
singular: a plural query finds its singular entry); the seeds' own words ("multa", "PV") are among them. Edition terms and option titles are added
from the shipped rulesets (see :func:`edition_synonyms`)."""


@dataclass(frozen=True, slots=True)
class Hit:
    """One line of a section that matches: ``spans`` are ``(start, end)`` offsets into ``text``."""

    section_id: str
    section_title: str
    text: str
    spans: tuple[tuple[int, int], ...]
    score: int = 0
    """The section's relevance (higher first); hits of one section share it."""


@dataclass(frozen=True, slots=True)
class _Token:
    low: str
    """Case-folded, accents kept."""
    bare: str
    """Case-folded, accents removed."""
    start: int
    end: int


def _strip_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


def fold(text: str) -> str:
    """``text`` in lower case without accents ("Pénalité" -> "penalite")."""
    return _strip_accents(text.casefold())


def _tokens(text: str) -> list[_Token]:
    tokens = []
    for match in _WORD.finditer(text):
        low = unicodedata.normalize("NFC", match.group().casefold())
        tokens.append(_Token(low, _strip_accents(low), match.start(), match.end()))
    return tokens


def within_one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by at most one letter added, removed, changed, or two adjacent swapped."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    if la == lb:
        diffs = [i for i in range(la) if a[i] != b[i]]
        if len(diffs) == 1:
            return True
        return (
            len(diffs) == 2 and diffs[1] == diffs[0] + 1 and a[diffs[0]] == b[diffs[1]] and a[diffs[1]] == b[diffs[0]]
        )
    if la > lb:
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i:] == b[i + 1 :]


def word_quality(word: str, token: _Token, accented: bool) -> int:
    """How well a query word (folded, accents kept when ``accented``) matches one word of the text."""
    text = token.low if accented else token.bare
    if text == word or text in (word + "s", word + "x"):
        return EXACT
    if len(word) >= 3 and text.startswith(word):
        return PREFIX
    if len(word) >= 5 and len(text) >= 4 and within_one_edit(word, text):
        return TYPO
    return 0


_Alternative = tuple[tuple[str, bool], ...]
"""A phrase to look for: its words, each with whether accents must match."""


@dataclass(frozen=True, slots=True)
class _Unit:
    alternatives: tuple[_Alternative, ...]
    optional: bool = False
    """A stop word: dropped when the query has other words."""


@cache
def edition_synonyms(lang: str) -> dict[str, tuple[str, ...]]:
    """Folded phrases of every shipped edition (terms and option titles, any language) -> their words in ``lang``.

    A long word that belongs to one term only ("bishop" of "Bishop card") stands for that term too.
    """
    from biblios_kit.rules import load_ruleset
    from biblios_kit.rules.model import LANGUAGES, TERM_KEYS

    by_key: dict[str, set[str]] = {}
    targets: dict[str, set[str]] = {}
    for edition in ("biblios", "scripts-and-scribes"):
        ruleset = load_ruleset(edition)
        for key in TERM_KEYS:
            term = ruleset.terms[key]
            by_key.setdefault(key, set()).update(fold(term.get(code)) for code in LANGUAGES)
            targets.setdefault(key, set()).add(fold(term.get(lang)))
        for option_id, option in ruleset.options.items():
            key = f"option:{option_id}"
            by_key.setdefault(key, set()).update(fold(option.title.get(code)) for code in LANGUAGES)
            targets.setdefault(key, set()).add(fold(option.title.get(lang)))
    # a word of five letters or more that names one thing only ("bishop", "iglesia") stands for the
    # term too: players type "bishop", not "bishop card"
    owners: dict[str, set[str]] = {}
    for key, names in by_key.items():
        for name in names:
            for word in name.split():
                if len(word) >= 5:
                    owners.setdefault(word, set()).add(key)
    mapping: dict[str, set[str]] = {}
    for key, names in by_key.items():
        for name in names:
            mapping.setdefault(name, set()).update(targets[key] - {name})
            for word in name.split():
                if owners.get(word) == {key} and word != name:
                    mapping.setdefault(word, set()).update(targets[key] - {word})
    return {name: tuple(sorted(values)) for name, values in mapping.items() if values}


def player_synonyms(lang: str) -> dict[str, tuple[str, ...]]:
    """Folded phrases players type in ``lang`` -> the rulebook's words: :data:`SYNONYMS` and the editions' own."""
    table = dict(edition_synonyms(lang))
    for phrase, values in SYNONYMS.get(lang, {}).items():
        table[phrase] = tuple(dict.fromkeys(table.get(phrase, ()) + values))
    return table


def _alternative(phrase: str) -> _Alternative:
    return tuple((word.bare, False) for word in _tokens(phrase))


def singular(word: str) -> str:
    """A folded word without its plural mark (*-s*, *-x*), for looking it up: "doradas" -> "dorada"."""
    if len(word) > 3 and word[-1] in "sx" and word[-2] != word[-1]:
        return word[:-1]
    return word


def synonyms_of(phrase: Sequence[str], synonyms: dict[str, tuple[str, ...]]) -> tuple[str, ...] | None:
    """The synonyms of a phrase of folded words, as typed or in the singular ("cartas doradas"); None if unknown."""
    typed = " ".join(phrase)
    if typed in synonyms:
        return synonyms[typed]
    return synonyms.get(" ".join(singular(word) for word in phrase))


def query_units(query: str, lang: str) -> list[_Unit]:
    """The units of ``query`` in a rulebook of ``lang``: known phrases first (longest), then single words."""
    words = _tokens(query)
    synonyms = player_synonyms(lang)
    stop = STOPWORDS.get(lang, frozenset()) | STOPWORDS["en"]
    units: list[_Unit] = []
    index = 0
    while index < len(words):
        for size in range(min(5, len(words) - index), 1, -1):
            found = synonyms_of([word.bare for word in words[index : index + size]], synonyms)
            if found is not None:
                own = tuple((word.low, word.low != word.bare) for word in words[index : index + size])
                alternatives = (own, *(_alternative(other) for other in found))
                units.append(_Unit(alternatives))
                index += size
                break
        else:
            word = words[index]
            own_word: _Alternative = ((word.low, word.low != word.bare),)
            others = tuple(_alternative(other) for other in synonyms_of([word.bare], synonyms) or ())
            units.append(_Unit((own_word, *others), optional=word.bare in stop))
            index += 1
    if any(not unit.optional for unit in units):
        return [unit for unit in units if not unit.optional]
    return [_Unit(unit.alternatives) for unit in units]


def query_words(query: str) -> list[str]:
    """The folded words of a query (duplicates removed, order kept)."""
    return list(dict.fromkeys(word.bare for word in _tokens(query)))


def _match_line(tokens: Sequence[_Token], unit: _Unit) -> tuple[int, list[tuple[int, int]]]:
    """The best quality of ``unit`` in a line and the spans of its matches.

    What the player typed (the first alternative) is marked as typed: a synonym's match that
    overlaps it ("carte évêque" around a typed "évêque") is not marked.
    """
    best = 0
    spans: list[tuple[int, int]] = []
    typed: list[tuple[int, int]] = []
    for index, alternative in enumerate(unit.alternatives):
        size = len(alternative)
        for start in range(len(tokens) - size + 1):
            quality = EXACT
            for offset, (word, accented) in enumerate(alternative):
                # inside a phrase, only its last word may be a prefix or have a typo
                found = word_quality(word, tokens[start + offset], accented)
                if offset < size - 1 and found < EXACT:
                    found = 0
                quality = min(quality, found)
                if not quality:
                    break
            if quality:
                span = (tokens[start].start, tokens[start + size - 1].end)
                if index and any(span[0] < end and begin < span[1] for begin, end in typed):
                    continue
                best = max(best, quality)
                spans.append(span)
                if not index:
                    typed.append(span)
    return best, spans


def _merge(spans: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return tuple(merged)


def find_spans(text: str, words: list[str]) -> tuple[tuple[int, int], ...]:
    """Merged ``(start, end)`` spans of the words of ``text`` matched by any of the folded ``words``."""
    tokens = _tokens(text)
    spans = []
    for word in words:
        _quality, found = _match_line(tokens, _Unit((((fold(word), False),),)))
        spans.extend(found)
    return _merge(spans)


def search(rulebook: Rulebook, query: str) -> list[Hit]:
    """Every matching line of every matching section, best sections first.

    A section matches when each unit of the query (see :func:`query_units`) matches in it,
    title included. Its score adds up, per unit, the best match quality (exact, prefix,
    typo), a bonus when the title matches, and the number of matching lines (up to five);
    ties keep rulebook order. Within a section the lines keep their order. An empty
    query finds nothing.
    """
    units = query_units(query, rulebook.language)
    if not units:
        return []
    found: list[tuple[int, int, list[Hit]]] = []
    for order, section in enumerate(rulebook.sections):
        lines = list(section.lines())
        title_tokens = _tokens(section.title)
        best = [0] * len(units)
        per_line: list[tuple[str, list[tuple[int, int]]]] = []
        for line in lines:
            tokens = _tokens(line)
            line_spans: list[tuple[int, int]] = []
            for index, unit in enumerate(units):
                quality, spans = _match_line(tokens, unit)
                if quality:
                    best[index] = max(best[index], quality)
                    line_spans.extend(spans)
            if line_spans:
                per_line.append((line, line_spans))
        title_bonus = 0
        for index, unit in enumerate(units):
            quality, _spans = _match_line(title_tokens, unit)
            if quality:
                best[index] = max(best[index], quality)
                title_bonus = 4
        if not all(best):
            continue
        if not per_line:
            continue
        score = 10 * sum(best) + title_bonus + min(len(per_line), 5)
        hits = [Hit(section.id, section.title, line, _merge(spans), score) for line, spans in per_line]
        found.append((-score, order, hits))
    found.sort(key=lambda item: item[:2])
    return [hit for *_rank, hits in found for hit in hits]


def highlight(hit: Hit, before: str = "[", after: str = "]") -> str:
    """The hit's text with each matched span wrapped in ``before``/``after`` markers."""
    parts: list[str] = []
    cursor = 0
    for start, end in hit.spans:
        parts += [hit.text[cursor:start], before, hit.text[start:end], after]
        cursor = end
    parts.append(hit.text[cursor:])
    return "".join(parts)
