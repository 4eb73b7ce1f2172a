"""Section names in three languages, accent-insensitive search and rule-by-rule diffs."""

from __future__ import annotations

import re

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


PLAYERS_WORDS = [
    # (language, what a player types, the section it must find first, a word of the rulebook it marks)
    ("es", "obsequio", "gift", None),
    ("es", "obsequios", "gift", None),
    ("es", "cartas doradas", "components", "Oro"),
    ("es", "Carta dorada", "components", "Oro"),
    ("es", "puja mínima", "auction", "puja"),
    ("es", "pujas minimas", "auction", "puja"),
    ("es", "desempate", "ties", "desempate"),
    ("es", "tiebreak", "ties", "desempate"),
    ("es", "donación", "gift", None),
    ("es", "oro", "auction", "Oro"),
    ("fr", "surenchère", "auction", "enchère"),
    ("fr", "surenchérir", "auction", "enchère"),
    ("fr", "surencheres", "auction", "enchère"),
    ("fr", "enchérir", "auction", "enchérit"),
    ("fr", "mise", "auction", "enchère"),
    ("fr", "mise minimale", "auction", "enchère"),
    ("fr", "cartes or", "components", "Or"),
    ("fr", "cartes dorées", "components", "Or"),
    ("fr", "tiebreak", "ties", "départage"),
    ("fr", "tie break", "ties", "départage"),
    ("fr", "tie-break", "ties", "départage"),
    ("fr", "cadeau", "gift", None),
    ("en", "tiebreak", "ties", "tied"),
    ("en", "tie break", "ties", "tied"),
    ("en", "tie-break", "ties", "tied"),
    ("en", "tiebreaker", "ties", "tied"),
    ("en", "minimum bid", "auction", "first bid"),
    ("en", "outbid", "auction", "bid"),
    ("en", "present", "gift", None),
]


@pytest.mark.parametrize("edition", ["biblios", "scripts-and-scribes"])
@pytest.mark.parametrize(("lang", "query", "first_section", "marked"), PLAYERS_WORDS)
def test_players_words_find_the_right_section(
    edition: str, lang: str, query: str, first_section: str, marked: str | None
) -> None:
    book = render_rulebook(load_ruleset(edition), lang)
    hits = search(book, query)
    assert hits, query
    assert hits[0].section_id == first_section, [hit.section_id for hit in hits]
    if marked is not None:
        assert any(f"[{marked}" in highlight(hit) or f"[{marked.capitalize()}" in highlight(hit) for hit in hits)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # players' words and their synonyms
        ("obsequio", "gift"),
        ("obsequios", "gift"),
        ("cadeau", "gift"),
        ("present", "gift"),
        ("surenchère", "auction"),
        ("surenchérir", "auction"),
        ("Surenchere", "auction"),
        ("mise", "auction"),
        ("puja mínima", "auction"),
        ("mise minimale", "auction"),
        ("minimum bid", "auction"),
        ("outbid", "auction"),
        ("tiebreak", "ties"),
        ("tie break", "ties"),
        ("Tie-Break", "ties"),
        ("desempate", "ties"),
        ("ex aequo", "ties"),
        # one typo
        ("subsata", "auction"),
        ("auctoin", "auction"),
        ("enchéres", "auction"),
        ("encheers", "auction"),
        ("penalizasion", "penalty"),
        ("pénalitées", "penalty"),
        ("preparacoin", "setup"),
        ("puntuacoin", "scoring"),
        ("opcoines", "options"),
    ],
)
def test_section_names_accept_synonyms_and_typos(name: str, expected: str) -> None:
    assert section_id(name) == expected
    assert section_id(name, load_ruleset("scripts-and-scribes")) == expected


@pytest.mark.parametrize(("name", "candidates"), [("car", ("components", "church")), ("pun", ("scoring",))])
def test_an_ambiguous_section_name_says_what_it_could_mean(name: str, candidates: tuple[str, ...]) -> None:
    if len(candidates) == 1:
        assert section_id(name) == candidates[0]
        return
    with pytest.raises(UnknownSectionError) as caught:
        section_id(name)
    assert caught.value.candidates == candidates


@pytest.mark.parametrize("name", ["cartas doradas", "zzzzzz", "licorne", "Scriptorium"])
def test_a_word_that_names_no_section_is_unknown(name: str) -> None:
    with pytest.raises(UnknownSectionError) as caught:
        section_id(name)
    assert caught.value.candidates == ()


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    from biblios_kit.cli.app import main
    from biblios_kit.i18n import set_language

    try:
        try:
            main(list(args))
            code = 0
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        set_language("en")
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("lang", "name", "title"),
    [
        ("en", "tiebreak", "Final ties"),
        ("en", "auctoin", "Auction phase"),
        ("fr", "surenchère", "Phase d'Enchères"),
        ("fr", "penalitées", "Pénalités"),
        ("es", "obsequio", "Fase de regalos"),
        ("es", "puja mínima", "Fase de subasta"),
        ("es", "desempate", "Empates finales"),
    ],
)
def test_rules_show_finds_players_words(capsys: pytest.CaptureFixture[str], lang: str, name: str, title: str) -> None:
    code, out, err = _cli(capsys, "rules", "show", name, "--lang", lang)
    assert code == 0, err
    assert f"\n{title}\n{'=' * len(title)}\n" in out


@pytest.mark.parametrize(
    ("lang", "name", "needles"),
    [
        ("en", "car", ["error: section 'car' is ambiguous; did you mean", "components (Components) or church"]),
        ("fr", "car", ["erreur\u202f: la section 'car' est ambiguë\u202f; vouliez-vous dire", "(Matériel) ou church"]),
        ("es", "car", ["error: la sección 'car' es ambigua; ¿quería decir", "(Componentes) o church"]),
        ("en", "cartas doradas", ["error: unknown section 'cartas doradas'; choose one of:", "ties (Final ties)"]),
        ("fr", "zzzzzz", ["erreur\u202f: section inconnue 'zzzzzz'", "ties (Égalités finales)"]),
        ("es", "zzzzzz", ["error: sección desconocida 'zzzzzz'", "ties (Empates finales)"]),
    ],
)
def test_rules_show_without_one_section_fails_in_the_users_language(
    capsys: pytest.CaptureFixture[str], lang: str, name: str, needles: list[str]
) -> None:
    code, out, err = _cli(capsys, "rules", "show", name, "--lang", lang)
    assert code == 2
    assert out == ""
    for needle in needles:
        assert needle in re.sub(r" *\n *", " ", err), err
