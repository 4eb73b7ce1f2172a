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
Agreement that is not an article (a participle, "all", "none") is chosen with
:func:`agree` or a ``pgettext`` context per gender.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping

from biblios_kit.rules.model import TERM_KEYS, Gender, GrammaticalNumber, Ruleset, TermForm, default_elision

FORMS: tuple[str, ...] = ("the", "of_the", "to_the", "a", "of", "their", "no")
"""The article forms every term offers as ``{<form>_<key>}`` (the bare ``{<key>}`` too)."""


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


def term_forms(key: str, form: TermForm, lang: str) -> dict[str, str]:
    """Every placeholder of one term: ``{key}`` and ``{<form>_<key>}`` for each of :data:`FORMS`."""
    values = {key: form.text}
    for kind in FORMS:
        values[f"{kind}_{key}"] = form_of(form, kind, lang)
    return values


def term_values(ruleset: Ruleset, lang: str) -> dict[str, str]:
    """Every edition term of ``ruleset`` in ``lang`` in every form, for ``template.format(**values)``."""
    values: dict[str, str] = {}
    for key in TERM_KEYS:
        values.update(term_forms(key, ruleset.term_form(key, lang), lang))
    return values


NAME_KEYS: tuple[str, ...] = ("player", "penalized", "ruleset")
"""Placeholders holding a name (a person's, a game's); ``{of_player}`` gives "d'Ana" / "de Bob" / "de Ana"."""


def name_forms(key: str, name: str, lang: str) -> dict[str, str]:
    """A name as ``{key}`` and ``{of_<key>}``: French elides *de* before a vowel ("Tour d'Ana")."""
    if lang == "fr":
        of = f"d'{name}" if default_elision(name, lang) else f"de {name}"
    elif lang == "es":
        of = f"de {name}"
    else:
        of = f"of {name}"
    return {key: name, f"of_{key}": of}


def placeholder_family(name: str, keys: Iterable[str] = TERM_KEYS + NAME_KEYS) -> str:
    """The term or name a placeholder places (``of_the_hand`` -> ``hand``), or ``name`` itself for others."""
    known = set(keys)
    if name in known:
        return name
    for kind in sorted(FORMS, key=len, reverse=True):
        prefix = f"{kind}_"
        if name.startswith(prefix) and name[len(prefix) :] in known:
            return name[len(prefix) :]
    return name


def agree(form: TermForm, choices: Mapping[str, str]) -> str:
    """Pick the text agreeing with ``form`` from ``choices`` keyed ``m``, ``f``, ``mp``, ``fp`` (``m`` is the fallback).

    For a word that agrees with a term and is not an article ("mélangée", "todas").
    """
    key = ("f" if form.gender is Gender.FEMININE else "m") + ("p" if form.number is GrammaticalNumber.PLURAL else "")
    return choices.get(key) or choices.get(key[0]) or choices["m"]
