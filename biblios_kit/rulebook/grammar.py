"""Small grammar helpers for edition terms inside sentences: capitals and definite articles.

Rulesets give each term as a bare noun phrase ("pile d'Enchères", "paquet à enchérir").
French and Spanish sentences need the right article in front of it ("la pile", "le paquet",
"l'étape"), so catalog templates use ``{the_auction_pile}`` and this module supplies the
article from the head noun's gender. Unknown nouns get the masculine article.
"""

from __future__ import annotations

import unicodedata

_FEMININE: dict[str, frozenset[str]] = {
    "fr": frozenset(
        {
            "pile",
            "phase",
            "carte",
            "place",
            "reserve",
            "main",
            "pioche",
            "etape",
            "table",
            "banque",
            "defausse",
            "manche",
        }
    ),
    "es": frozenset({"pila", "fase", "carta", "mano", "etapa", "mesa", "reserva", "ronda", "baraja", "zona"}),
}
_PLURAL_HEADS: dict[str, frozenset[str]] = {
    "fr": frozenset({"points", "pv", "cartes"}),
    "es": frozenset({"puntos", "cartas"}),
}


def fold(text: str) -> str:
    """Lower-case ``text`` and strip accents ("Étape" -> "etape"), for matching and lookups."""
    decomposed = unicodedata.normalize("NFD", text.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def capitalize(text: str) -> str:
    """Upper-case the first letter of ``text`` only ("phase de Dons" -> "Phase de Dons")."""
    return text[:1].upper() + text[1:] if text else text


def with_article(term: str, lang: str) -> str:
    """``term`` with its definite article in ``lang``: "the hand", "la réserve", "l'étape Donation", "el mazo"."""
    words = term.split()
    head = fold(words[0]) if words else ""
    if lang == "fr":
        if head in _PLURAL_HEADS["fr"]:
            return f"les {term}"
        if head[:1] in "aeiouyh":
            return f"l'{term}"
        return f"{'la' if head in _FEMININE['fr'] else 'le'} {term}"
    if lang == "es":
        if head in _PLURAL_HEADS["es"]:
            return f"los {term}"
        return f"{'la' if head in _FEMININE['es'] else 'el'} {term}"
    return f"the {term}"
