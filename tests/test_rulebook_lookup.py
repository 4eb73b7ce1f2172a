"""Section names in three languages, accent-insensitive search and rule-by-rule diffs."""

from __future__ import annotations

import pytest

from biblios_kit.rulebook import (
    SECTION_IDS,
    UnknownSectionError,
    diff_rulesets,
    highlight,
    render_rulebook,
    search,
    section_id,
)
from biblios_kit.rulebook.search import find_spans
from biblios_kit.rules import load_ruleset


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("auction", "auction"),
        ("enchères", "auction"),
        ("encheres", "auction"),
        ("ENCHÈRES", "auction"),
        ("subasta", "auction"),
        ("penalite", "penalty"),
        ("pénalité", "penalty"),
        ("Penalización", "penalty"),
        ("penalties", "penalty"),
        ("mise en place", "setup"),
        ("preparacion", "setup"),
        ("égalités", "ties"),
        ("empates", "ties"),
        ("tie-break", "ties"),
        ("décompte", "scoring"),
        ("puntuación", "scoring"),
        ("matériel", "components"),
        ("componentes", "components"),
        ("dons", "gift"),
        ("regalos", "gift"),
        ("évêque", "church"),
        ("iglesia", "church"),
        ("aperçu", "overview"),
        ("opciones", "options"),
        ("pen", "penalty"),  # a unique prefix
    ]
    + [(section, section) for section in SECTION_IDS],
)
def test_section_names_in_any_language(name: str, expected: str) -> None:
    assert section_id(name) == expected


def test_edition_terms_name_sections() -> None:
    sns = load_ruleset("scripts-and-scribes")
    assert section_id("Donation stage", sns) == "gift"
    assert section_id("étape donation", sns) == "gift"
    assert section_id("carta de obispo", sns) == "church"
    assert section_id("phase d'Enchères", load_ruleset("biblios")) == "auction"


@pytest.mark.parametrize("name", ["nope", "", "xyz", "s"])
def test_unknown_section_lists_choices(name: str) -> None:
    with pytest.raises(UnknownSectionError) as caught:
        section_id(name)
    assert caught.value.choices == SECTION_IDS


@pytest.mark.parametrize(
    ("lang", "query", "first_section", "marked"),
    [
        ("fr", "enchères", "auction", "[Enchères]"),
        ("fr", "encheres", "auction", "[Enchères]"),
        ("fr", "penalite", "penalty", "[Pénalités]"),
        ("es", "subasta", "auction", "[subasta]"),
        ("es", "PENALIZACION", "penalty", "[penalización]"),
        ("en", "bluff", "penalty", "[bluff]"),
        ("en", "Tie", "ties", "[tie]"),
    ],
)
def test_search_in_three_languages(lang: str, query: str, first_section: str, marked: str) -> None:
    book = render_rulebook(load_ruleset("biblios", ["medieval-bluff"]), lang)
    hits = search(book, query)
    assert hits, query
    assert hits[0].section_id == first_section
    assert any(marked in highlight(hit) for hit in hits)
    for hit in hits:
        for start, end in hit.spans:
            assert 0 <= start < end <= len(hit.text)


def test_search_needs_every_word_in_a_section() -> None:
    book = render_rulebook(load_ruleset("biblios"), "en")
    hits = search(book, "gold ceiling unicorn")
    assert hits == []
    both = search(book, "Gold discarded")
    assert both and {hit.section_id for hit in both} <= set(SECTION_IDS)
    assert all("gold" in hit.text.casefold() or "discarded" in hit.text.casefold() for hit in both)


def test_search_finds_nothing_for_nonsense_or_blank() -> None:
    book = render_rulebook(load_ruleset("biblios"), "es")
    assert search(book, "zzzz") == []
    assert search(book, "   ") == []


def test_spans_map_back_through_accents() -> None:
    text = "Phase d'Enchères : ÉTAPE"
    assert find_spans(text, ["encheres"]) == ((8, 16),)
    assert find_spans(text, ["etape"]) == ((19, 24),)
    assert find_spans("aaa a", ["a"]) == ((4, 5),)  # whole words (or prefixes of three letters and more)


@pytest.mark.parametrize(
    ("lang", "phrases"),
    [
        ("en", ["Scriptorium", "Value Board", "Medieval Bluff", "Monks total", "Illuminators total"]),
        (
            "fr",
            [
                "Plateau de Valeurs",
                "plateau de valeur",
                "Bluff médiéval",
                "total en Moines",
                "total en Enlumineurs",
                "non disponible",
            ],
        ),
        (
            "es",
            [
                "Scriptorium",
                "tablero de valores",
                "Farol medieval",
                "total en Monjes",
                "total en Iluminadores",
                "no disponible",
            ],
        ),
    ],
)
def test_diff_between_the_editions(lang: str, phrases: list[str]) -> None:
    differences = diff_rulesets(load_ruleset("biblios"), load_ruleset("scripts-and-scribes"), lang)
    keys = {d.key for d in differences}
    assert {
        "title",
        "term:board",
        "term:church",
        "term:gift_phase",
        "categories",
        "scoring:tiebreak",
        "option:medieval-bluff",
    } <= keys
    # Same rules under different names are not differences.
    assert not {"penalty:kind", "auction:overpay", "players"} & keys
    assert not any(key.startswith(("setup:", "deck:", "dice:")) for key in keys)
    text = "\n".join(f"{d.topic}: {d.left} / {d.right}" for d in differences)
    for phrase in phrases:
        assert phrase in text


@pytest.mark.parametrize(("lang", "word"), [("en", "Penalty"), ("fr", "Pénalité"), ("es", "Penalización")])
def test_diff_of_an_option(lang: str, word: str) -> None:
    differences = diff_rulesets(load_ruleset("biblios"), load_ruleset("biblios", ["medieval-bluff"]), lang)
    assert [d.key for d in differences] == ["penalty:kind", "options:active"]
    assert differences[0].topic == word


def test_no_difference() -> None:
    assert diff_rulesets(load_ruleset("biblios"), load_ruleset("bib"), "fr") == []


def test_diff_of_shipped_variants() -> None:
    base = load_ruleset("biblios")
    dice = diff_rulesets(base, load_ruleset("second-place-dice"), "en")
    assert any(d.key.startswith("dice:") and "second place" in d.right for d in dice)
    players = diff_rulesets(base, load_ruleset("five-six-players"), "en")
    keys = {d.key for d in players}
    assert "players" in keys and "gold" in keys
    line = next(d for d in players if d.key == "players").text("biblios", "five-six-players")
    assert "2, 3, and 4" in line and "2, 3, 4, 5, and 6" in line
