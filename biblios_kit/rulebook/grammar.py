"""Edition terms inside sentences: articles, contractions and agreement from the ruleset's grammar data.

A ruleset states each term's gender, number and elision per language (see
:class:`~biblios_kit.rules.model.TermForm`); nothing here guesses them from the words.
Catalog templates place a term through one of its *forms*, each a placeholder:

========================  ===================  =========================  ==========================
placeholder               English              French                     Spanish
========================  ===================  =========================  ==========================
``{hand}``                hand                 réserve                    mano
``{the_hand}``            the hand             la réserve / l'étape       la mano / el mazo
``{of_the_hand}``         of the hand          de la réserve / du paquet  de la mano / del mazo
``{to_the_hand}``         to the hand          à la réserve / au paquet   a la mano / al mazo
``{a_hand}``              a hand               une réserve / un paquet    una mano / un mazo
``{of_hand}``             of hand              de réserve / d'Or          de mano
``{their_hand}``          their hand           sa réserve / son étape     su mano
``{no_hand}``             no hand              aucune réserve             ninguna mano
========================  ===================  =========================  ==========================

A translation may use any form of a term its English message names (``{the_hand}`` in
English, ``{of_the_hand}`` in Spanish): the catalog check treats them as one placeholder.

Words that agree with a term without being its article (a participle, an adjective, a
pronoun, a verb, "aucun"/"toutes") are data too: ``{agree_<key>:<words>}`` prints the one of
``<words>`` that agrees with the term, listed ``masculine|feminine`` or
``masculine|feminine|masculine plural|feminine plural`` (one word alone never changes).
``{the_auction_pile} {agree_auction_pile:est mélangé|est mélangée|sont mélangés|sont
mélangées}`` gives "la pile d'Enchères est mélangée" in Biblios and "le paquet à enchérir
est mélangé" in Scripts & Scribes. :func:`agree` does the same in code.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping

from babel import Locale

from biblios_kit.rules.model import TERM_KEYS, Gender, GrammaticalNumber, Ruleset, TermForm, default_elision

FORMS: tuple[str, ...] = ("the", "of_the", "to_the", "a", "of", "their", "no")
"""The article forms every term offers as ``{<form>_<key>}`` (the bare ``{<key>}`` too)."""

AGREE = "agree"
"""The prefix of the agreement placeholder ``{agree_<key>:masculine|feminine[|masc. plural|fem. plural]}``."""


def fold(text: str) -> str:
    """Lower-case ``text`` and strip accents ("Étape" -> "etape"), for matching and lookups."""
    decomposed = unicodedata.normalize("NFD", text.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def capitalize(text: str) -> str:
    """Upper-case the first letter of ``text`` only ("phase de Dons" -> "Phase de Dons")."""
    return text[:1].upper() + text[1:] if text else text


def plain_form(text: str, lang: str) -> TermForm:
    """A :class:`TermForm` for a word with no stated grammar: masculine, singular, default elision."""
    return TermForm(text, elision=default_elision(text, lang))


def _french(form: TermForm, kind: str) -> str:
    t, fem, plural, elide = form.text, form.feminine, form.plural, form.elision
    if kind == "the":
        return f"les {t}" if plural else f"l'{t}" if elide else f"{'la' if fem else 'le'} {t}"
    if kind == "of_the":
        return f"des {t}" if plural else f"de l'{t}" if elide else f"{'de la' if fem else 'du'} {t}"
    if kind == "to_the":
        return f"aux {t}" if plural else f"à l'{t}" if elide else f"{'à la' if fem else 'au'} {t}"
    if kind == "a":
        return f"des {t}" if plural else f"{'une' if fem else 'un'} {t}"
    if kind == "of":
        return f"d'{t}" if elide else f"de {t}"
    if kind == "their":
        return f"ses {t}" if plural else f"{'sa' if fem and not elide else 'son'} {t}"
    if kind == "no":
        return f"{'aucune' if fem else 'aucun'} {t}"
    raise ValueError(f"unknown term form {kind!r}")


def _spanish(form: TermForm, kind: str) -> str:
    t, fem, plural = form.text, form.feminine, form.plural
    el = not fem or form.elision  # "el agua": a feminine noun with a stressed a- takes el
    if kind == "the":
        return f"{'las' if fem else 'los'} {t}" if plural else f"{'el' if el else 'la'} {t}"
    if kind == "of_the":
        return f"de {'las' if fem else 'los'} {t}" if plural else f"{'del' if el else 'de la'} {t}"
    if kind == "to_the":
        return f"a {'las' if fem else 'los'} {t}" if plural else f"{'al' if el else 'a la'} {t}"
    if kind == "a":
        return f"{'unas' if fem else 'unos'} {t}" if plural else f"{'un' if el else 'una'} {t}"
    if kind == "of":
        return f"de {t}"
    if kind == "their":
        return f"sus {t}" if plural else f"su {t}"
    if kind == "no":
        return f"{'ninguna' if fem else 'ningún'} {t}"
    raise ValueError(f"unknown term form {kind!r}")


def _english(form: TermForm, kind: str) -> str:
    t = form.text
    article = "an" if t[:1].casefold() in "aeiou" else "a"
    words = {
        "the": "the",
        "of_the": "of the",
        "to_the": "to the",
        "a": "" if form.plural else article,
        "of": "of",
        "their": "their",
        "no": "no",
    }
    if kind not in words:
        raise ValueError(f"unknown term form {kind!r}")
    return f"{words[kind]} {t}".lstrip()


def form_of(form: TermForm, kind: str, lang: str) -> str:
    """``form`` with the article or determiner ``kind`` (one of :data:`FORMS`) in ``lang``."""
    if lang == "fr":
        return _french(form, kind)
    if lang == "es":
        return _spanish(form, kind)
    return _english(form, kind)


def with_article(term: str | TermForm, lang: str) -> str:
    """A term with its definite article: "the hand", "la réserve", "l'étape Donation", "el mazo".

    Pass the :class:`TermForm` from the ruleset (``ruleset.term_form(key, lang)``); a bare
    string is taken as masculine singular.
    """
    form = term if isinstance(term, TermForm) else plain_form(term, lang)
    return form_of(form, "the", lang)


def counted_text(form: TermForm, count: int, lang: str) -> str:
    """The term's text after the number ``count``: its ``one`` form ("1 Victory Point", in French
    also "0 Point de Victoire") where ``lang``'s CLDR plural rule puts ``count`` in the category one."""
    if form.one is not None and Locale.parse(lang).plural_form(count) == "one":
        return form.one
    return form.text


def counted_term(ruleset: Ruleset, key: str, count: int, lang: str) -> str:
    """:func:`counted_text` of the ruleset's term ``key`` in ``lang``."""
    return counted_text(ruleset.term_form(key, lang), count, lang)


def term_forms(key: str, form: TermForm, lang: str) -> dict[str, str]:
    """Every placeholder of one term: ``{key}``, ``{<form>_<key>}`` for each of :data:`FORMS`, and ``{agree_<key>:…}``."""
    values = {key: form.text}
    for kind in FORMS:
        values[f"{kind}_{key}"] = form_of(form, kind, lang)
    values[f"{AGREE}_{key}"] = Agreement(form)
    return values


def term_values(ruleset: Ruleset, lang: str) -> dict[str, str]:
    """Every edition term of ``ruleset`` in ``lang`` in every form, for ``template.format(**values)``."""
    values: dict[str, str] = {}
    for key in TERM_KEYS:
        values.update(term_forms(key, ruleset.term_form(key, lang), lang))
    return values


CARD_KEYS: tuple[str, ...] = ("card",)
"""Placeholders holding one card in a sentence, in every term form: ``{a_card}`` gives "a Gold 2",
"une carte Or 2", "una carta de Oro 2"; ``{the_card}`` "the Church card +1", "la carte Église +1"
(see :func:`biblios_kit.rulebook.describe.card_values`)."""

NAME_KEYS: tuple[str, ...] = ("player", "penalized", "ruleset", "game")
"""Placeholders holding a name (a person's, a game's); ``{of_player}`` gives "d'Ana" / "de Bob" / "de Ana",
``{of_game}`` "d'Enluminures" / "de Biblios"."""


def name_forms(key: str, name: str, lang: str) -> dict[str, str]:
    """A name as ``{key}`` and ``{of_<key>}``: French elides *de* before a vowel ("Tour d'Ana")."""
    if lang == "fr":
        of = f"d'{name}" if default_elision(name, lang) else f"de {name}"
    elif lang == "es":
        of = f"de {name}"
    else:
        of = f"of {name}"
    return {key: name, f"of_{key}": of}


def placeholder_family(name: str, keys: Iterable[str] = TERM_KEYS + CARD_KEYS + NAME_KEYS) -> str:
    """The term or name a placeholder places (``of_the_hand``, ``agree_hand`` -> ``hand``), or ``name`` itself for others."""
    known = set(keys)
    if name in known:
        return name
    for kind in sorted((*FORMS, AGREE), key=len, reverse=True):
        prefix = f"{kind}_"
        if name.startswith(prefix) and name[len(prefix) :] in known:
            return name[len(prefix) :]
    return name


def agreement_words(spec: str) -> list[str]:
    """The words of an agreement spec (``"mélangé|mélangée"``); ``ValueError`` unless there are 1, 2 or 4."""
    words = spec.split("|")
    if len(words) not in (1, 2, 4) or not all(word.strip() for word in words):
        raise ValueError(
            f"an agreement needs 1, 2 (masculine|feminine) or 4 (…|masculine plural|feminine plural) words, got {spec!r}"
        )
    return words


def agree_words(form: TermForm, spec: str) -> str:
    """The word of ``spec`` (see :func:`agreement_words`) that agrees with ``form``: gender, then number."""
    words = agreement_words(spec)
    if len(words) == 1:
        return words[0]
    index = (1 if form.gender is Gender.FEMININE else 0) + (2 if len(words) == 4 and form.plural else 0)
    return words[index]


class Agreement(str):
    """The value of ``{agree_<key>:…}``: formatting it with a spec picks the word agreeing with the term.

    It is the term's text as a string (so it fits where term values go), but formatting it
    without a spec is an error: the words to choose from are the point.
    """

    form: TermForm

    def __new__(cls, form: TermForm) -> Agreement:
        """An agreement with ``form``."""
        made = super().__new__(cls, form.text)
        made.form = form
        return made

    def __format__(self, spec: str) -> str:
        if not spec:
            raise ValueError("an agreement placeholder needs its words: {agree_<term>:masculine|feminine}")
        return agree_words(self.form, spec)


def agree(form: TermForm, choices: Mapping[str, str]) -> str:
    """Pick the text agreeing with ``form`` from ``choices`` keyed ``m``, ``f``, ``mp``, ``fp`` (``m`` is the fallback).

    For a word that agrees with a term and is not an article ("mélangée", "todas"), chosen
    in code; in a catalog message use ``{agree_<key>:…}`` instead.
    """
    key = ("f" if form.gender is Gender.FEMININE else "m") + ("p" if form.number is GrammaticalNumber.PLURAL else "")
    return choices.get(key) or choices.get(key[0]) or choices["m"]
