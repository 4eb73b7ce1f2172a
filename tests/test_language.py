"""French and Spanish as good as the English: term grammar, typography, numbers, lookups and the game log."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from biblios_kit.bots.registry import make_bot
from biblios_kit.cli.app import build_app
from biblios_kit.engine import new_game
from biblios_kit.engine.records import record_of, save_record
from biblios_kit.errors import RulesetError
from biblios_kit.i18n import format_decimal, format_number, in_language, use_language
from biblios_kit.rulebook import render_rulebook
from biblios_kit.rulebook.describe import card_name, describe_events
from biblios_kit.rulebook.grammar import (
    agree,
    form_of,
    name_forms,
    placeholder_family,
    term_forms,
    term_values,
    with_article,
)
from biblios_kit.rulebook.search import highlight, search, within_one_edit
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import Gender, GrammaticalNumber, TermForm, term_form

HEAD = "id: {id}\ntitle: {{en: T, fr: T, es: T}}\ndescription: {{en: D, fr: D, es: D}}\n"
NNBSP = "\u202f"


@pytest.fixture(autouse=True)
def _english(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BIBLIOS_KIT_CONFIG_DIR", str(tmp_path / "config"))
    use_language("en")


# -- terms as the seeds write them ----------------------------------------------------------------


def test_terms_follow_the_seeds() -> None:
    biblios, scribes = load_ruleset("biblios"), load_ruleset("scripts-and-scribes")
    assert biblios.term("board", "fr") == "Plateau de Valeurs"
    assert biblios.term("draw_pile", "es") == "pila de robo"
    assert scribes.term("draw_pile", "en") == "deck"
    assert scribes.term("draw_pile", "fr") == "paquet"
    assert scribes.title.fr == "Scripts & Scribes"  # the French edition's name (issue 32)
    manuscripts = biblios.category("manuscripts")
    assert (manuscripts.colour_name.en, manuscripts.colour_name.fr, manuscripts.colour_name.es) == (
        "orange",
        "orange",
        "naranja",
    )
    names = {card_name(scribes, card.id, "en") for card in scribes.deck if card.effect is not None}
    assert names == {"Bishop card +2", "Bishop card -2", "Bishop card +1", "Bishop card -1", "Bishop card ±1"}
    # Spanish Scripts & Scribes has no published rulebook: its terms are the project's own, and say so
    assert all(scribes.term_form(key, "es").coined for key in scribes.terms)
    assert not any(biblios.term_form(key, lang).coined for key in biblios.terms for lang in ("en", "fr", "es"))
    components = "\n".join(render_rulebook(scribes, "es").section("components").lines())
    assert "los términos «tablero de valores», «Oro»" in components
    assert "propios de este proyecto" not in "\n".join(render_rulebook(biblios, "es").section("components").lines())


def test_scripts_and_scribes_screens_and_messages_use_its_words() -> None:
    scribes = load_ruleset("scripts-and-scribes")
    with in_language("fr"):
        values = term_values(scribes, "fr")
    assert values["the_auction_pile"] == "le paquet à enchérir"
    assert values["of_the_draw_pile"] == "du paquet"
    text = "\n".join(line for section in render_rulebook(scribes, "fr").sections for line in section.lines())
    assert "pile d'Enchères" not in text and not re.search(r"\bla pioche\b", text.casefold())


def test_validation_messages_use_the_rulesets_words(tmp_path: Path) -> None:
    path = tmp_path / "tight.yaml"
    path.write_text(
        "extends: scripts-and-scribes\n" + HEAD.format(id="tight") + "setup:\n  3: {gift_cards: 3}\n", encoding="utf-8"
    )
    with pytest.raises(RulesetError) as caught:
        load_ruleset(path)
    with in_language("fr"):  # problems are data: their sentence is made in the language active when read
        assert "va au paquet à enchérir" in str(caught.value)


# -- grammar as data ------------------------------------------------------------------------------

FEM = TermForm("pile d'Enchères", Gender.FEMININE)
MASC = TermForm("paquet")
VOWEL = term_form({"text": "étape Donation", "gender": "feminine"}, "fr")
PLURAL = TermForm("Points de Victoire", number=GrammaticalNumber.PLURAL)


@pytest.mark.parametrize(
    ("form", "kind", "expected"),
    [
        (FEM, "the", "la pile d'Enchères"),
        (FEM, "of_the", "de la pile d'Enchères"),
        (FEM, "to_the", "à la pile d'Enchères"),
        (FEM, "a", "une pile d'Enchères"),
        (FEM, "their", "sa pile d'Enchères"),
        (FEM, "no", "aucune pile d'Enchères"),
        (MASC, "the", "le paquet"),
        (MASC, "of_the", "du paquet"),
        (MASC, "to_the", "au paquet"),
        (MASC, "no", "aucun paquet"),
        (VOWEL, "the", "l'étape Donation"),
        (VOWEL, "of_the", "de l'étape Donation"),
        (VOWEL, "to_the", "à l'étape Donation"),
        (VOWEL, "their", "son étape Donation"),
        (PLURAL, "the", "les Points de Victoire"),
        (PLURAL, "of_the", "des Points de Victoire"),
        (PLURAL, "to_the", "aux Points de Victoire"),
        (term_form("Or", "fr"), "of", "d'Or"),
        (term_form("halle", "fr"), "the", "le halle"),  # h is aspirated unless the ruleset says otherwise
        (term_form({"text": "heure", "gender": "feminine", "elision": True}, "fr"), "the", "l'heure"),
    ],
)
def test_french_forms(form: TermForm, kind: str, expected: str) -> None:
    assert form_of(form, kind, "fr") == expected


@pytest.mark.parametrize(
    ("form", "kind", "expected"),
    [
        (TermForm("espacio público"), "of_the", "del espacio público"),
        (TermForm("espacio público"), "to_the", "al espacio público"),
        (TermForm("pila de robo", Gender.FEMININE), "of_the", "de la pila de robo"),
        (TermForm("pila de robo", Gender.FEMININE), "to_the", "a la pila de robo"),
        (TermForm("subasta", Gender.FEMININE), "the", "la subasta"),
        (TermForm("zona", Gender.FEMININE), "a", "una zona"),
        (TermForm("agua", Gender.FEMININE, elision=True), "the", "el agua"),
        (TermForm("carta de Iglesia", Gender.FEMININE), "no", "ninguna carta de Iglesia"),
        (TermForm("mazo"), "no", "ningún mazo"),
        (TermForm("Puntos de Victoria", number=GrammaticalNumber.PLURAL), "of_the", "de los Puntos de Victoria"),
    ],
)
def test_spanish_forms(form: TermForm, kind: str, expected: str) -> None:
    assert form_of(form, kind, "es") == expected


def test_no_guessing_from_the_first_word() -> None:
    # the old helper said "le zone", "l'halle" and "el subasta"; a bare string is now masculine unless stated
    assert with_article(TermForm("zone", Gender.FEMININE), "fr") == "la zone"
    assert with_article(TermForm("subasta", Gender.FEMININE), "es") == "la subasta"
    assert with_article("halle", "fr") == "le halle"
    assert agree(FEM, {"m": "mélangé", "f": "mélangée"}) == "mélangée"
    assert agree(PLURAL, {"m": "tous", "f": "toutes"}) == "tous"
    assert name_forms("player", "Ana", "fr")["of_player"] == "d'Ana"
    assert name_forms("player", "Bob", "fr")["of_player"] == "de Bob"
    assert name_forms("player", "Ana", "es")["of_player"] == "de Ana"
    assert placeholder_family("of_the_public_space") == "public_space"
    assert placeholder_family("of_player") == "player"
    assert placeholder_family("theme") == "theme"


def variant(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "grammar.yaml"
    path.write_text("extends: biblios\n" + HEAD.format(id="grammar") + body, encoding="utf-8")
    return path


def test_a_variant_states_gender_number_and_elision(tmp_path: Path) -> None:
    path = variant(
        tmp_path,
        "terms:\n"
        "  public_space:\n"
        "    en: market hall\n"
        "    fr: {text: halle, gender: feminine}\n"
        "    es: {text: lonja, gender: feminine}\n"
        "  hand:\n"
        "    en: purse\n"
        "    fr: {text: hôtel, elision: true}\n"
        "    es: {text: arcas, gender: feminine, number: plural}\n",
    )
    ruleset = load_ruleset(path)
    values_fr, values_es = term_values(ruleset, "fr"), term_values(ruleset, "es")
    assert values_fr["the_public_space"] == "la halle"
    assert values_fr["the_hand"] == "l'hôtel" and values_fr["their_hand"] == "son hôtel"
    assert values_es["of_the_public_space"] == "de la lonja" and values_es["their_hand"] == "sus arcas"
    game = new_game(ruleset, players=3, seed=5)
    rng = random.Random(5)
    for _step in range(40):
        game.apply(rng.choice(game.legal_actions()))
    lines = describe_events(ruleset, game.events_for(0), ["Ana", "Bob", "Eva"], "es")
    assert any("de la lonja" in line for line in lines)
    assert not any("de el" in line for line in lines)


@pytest.mark.parametrize(
    ("form", "spec", "expected"),
    [
        (TermForm("paquet"), "mélangé|mélangée|mélangés|mélangées", "mélangé"),
        (TermForm("pioche", Gender.FEMININE), "mélangé|mélangée|mélangés|mélangées", "mélangée"),
        (TermForm("PV", number=GrammaticalNumber.PLURAL), "mélangé|mélangée|mélangés|mélangées", "mélangés"),
        (TermForm("cartes", Gender.FEMININE, GrammaticalNumber.PLURAL), "aucun|aucune|tous|toutes", "toutes"),
        (TermForm("cartes", Gender.FEMININE, GrammaticalNumber.PLURAL), "vacío|vacía", "vacía"),
        (TermForm("mazo"), "vacío|vacía", "vacío"),
        (TermForm("pila", Gender.FEMININE), "empty", "empty"),
    ],
)
def test_agreement_placeholder_picks_the_agreeing_word(form: TermForm, spec: str, expected: str) -> None:
    values = term_forms("draw_pile", form, "fr")
    assert ("{agree_draw_pile:" + spec + "}").format(**values) == expected
    assert values["agree_draw_pile"] == form.text  # a plain string where term values go
    assert placeholder_family("agree_draw_pile") == "draw_pile"


@pytest.mark.parametrize("spec", ["", "a|b|c", "a||b|c", "a|"])
def test_agreement_placeholder_needs_one_two_or_four_words(spec: str) -> None:
    values = term_forms("hand", TermForm("main", Gender.FEMININE), "fr")
    with pytest.raises(ValueError):
        ("{agree_hand" + (":" + spec if spec else "") + "}").format(**values)


def test_catalog_check_accepts_agreements_only_for_terms_the_msgid_names(tmp_path: Path) -> None:
    from babel.messages.catalog import Catalog

    from biblios_kit.i18n_tools import _placeholder_problems

    template = "{the_auction_pile} is shuffled."
    catalog = Catalog(locale="fr")
    good = catalog.add(template, "{the_auction_pile} {agree_auction_pile:est mélangé|est mélangée}.")
    strange = catalog.add("x {the_hand}", "{the_hand} {agree_draw_pile:vide|vide}")
    malformed = catalog.add("y {the_hand}", "{the_hand} {agree_hand:a|b|c}")
    alone = catalog.add("z {the_hand}", "{agree_hand:vide|vide}")
    english = catalog.add("({agree_public_space:empty})", "({agree_public_space:vacío|vacía})")
    assert _placeholder_problems("fr", good) == [] and _placeholder_problems("fr", english) == []
    assert "agrees with draw_pile" in _placeholder_problems("fr", strange)[0].detail
    assert "1, 2" in _placeholder_problems("fr", malformed)[0].detail
    assert "lacks {hand}" in _placeholder_problems("fr", alone)[0].detail


def test_rulebooks_agree_with_each_editions_terms(tmp_path: Path) -> None:
    shuffled = {
        ("biblios", "fr"): "la pile d'Enchères est mélangée et posée face cachée",
        ("scripts-and-scribes", "fr"): "le paquet à enchérir est mélangé et posé face cachée",
        ("biblios", "es"): "se baraja la pila de subasta y se deja boca abajo",
    }
    for (ruleset_id, lang), expected in shuffled.items():
        assert expected in "\n".join(render_rulebook(load_ruleset(ruleset_id), lang).section("auction").lines())
    path = variant(
        tmp_path,
        "terms:\n  auction_pile:\n    en: {text: cards for sale, number: plural}\n"
        "    fr: {text: cartes à vendre, gender: feminine, number: plural}\n"
        "    es: {text: cartas en venta, gender: feminine, number: plural}\n",
    )
    ruleset = load_ruleset(path)
    french = "\n".join(render_rulebook(ruleset, "fr").section("auction").lines())
    spanish = "\n".join(render_rulebook(ruleset, "es").section("auction").lines())
    assert "les cartes à vendre sont mélangées et posées face cachée" in french
    assert "se barajan las cartas en venta y se dejan boca abajo" in spanish
    from biblios_kit.tui.render import public_text

    with in_language("es"):
        assert public_text(load_ruleset("biblios"), []).plain == "(vacío)"
        feminine = load_ruleset(
            variant(tmp_path, "terms:\n  public_space: {en: hall, fr: halle, es: {text: lonja, gender: feminine}}\n")
        )
        assert public_text(feminine, []).plain == "(vacía)"


def test_names_of_games_elide_in_french(tmp_path: Path) -> None:
    path = tmp_path / "enluminures.yaml"
    path.write_text(
        "extends: biblios\nid: enluminures\ntitle: {en: Illuminations, fr: Enluminures, es: Iluminaciones}\n"
        "description: {en: D, fr: D, es: D}\nterms:\n  hand: {en: hand, fr: {text: besace, gender: feminine, coined: true}, es: mano}\n",
        encoding="utf-8",
    )
    french = "\n".join(render_rulebook(load_ruleset(path), "fr").section("components").lines())
    assert "Aucun livret de règles d'Enluminures" in french
    result = CliRunner().invoke(
        build_app(), ["rules", "search", "licorne", "--ruleset", "scripts-and-scribes", "--lang", "fr"]
    )
    assert result.exit_code == 1 and "dans les règles de Scripts & Scribes" in result.output


def test_bad_grammar_fields_are_located(tmp_path: Path) -> None:
    path = variant(tmp_path, "terms:\n  hand: {en: hand, fr: {text: main, gender: feminin}, es: mano}\n")
    with pytest.raises(RulesetError) as caught:
        load_ruleset(path)
    message = str(caught.value)
    assert "terms.hand.fr.gender" in message and "'feminine'" in message
    path = variant(tmp_path, "terms:\n  church_cards: {raise-three: '+3'}\n")
    with pytest.raises(RulesetError) as caught:
        load_ruleset(path)
    assert "terms.church_cards.raise-three" in str(caught.value)


# -- typography and numbers -----------------------------------------------------------------------


def test_numbers_follow_cldr() -> None:
    with in_language("es"):
        assert format_number(1096.6) == "1096,6"
        assert format_number(10960.6) == "10.960,6"
        assert format_decimal(1096.6, 1) == "1096,6"
    with in_language("fr"):
        assert format_number(1096.6) == f"1{NNBSP}096,6"
    with in_language("en"):
        assert format_number(1096.6) == "1,096.6"


def test_french_rulebook_typography() -> None:
    book = render_rulebook(load_ruleset("biblios", ["medieval-bluff"]), "fr")
    text = "\n".join(line for section in book.sections for line in section.lines())
    assert f"{NNBSP}:" in text and f"{NNBSP};" in text
    for mark in ":;!?":
        assert f" {mark}" not in text and f"\u00a0{mark}" not in text, mark
    auction = "\n".join(render_rulebook(load_ruleset("biblios"), "fr").section("auction").lines())
    assert f"«{NNBSP}Refus de payer{NNBSP}»" in auction


# -- lookups --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ruleset", "lang", "query", "section", "marked"),
    [
        ("biblios", "es", "multa", "penalty", "[penalización]"),
        ("biblios", "es", "pila de robo", "gift", "[pila de robo]"),
        ("scripts-and-scribes", "es", "pila de robo", "gift", "[mazo]"),
        ("scripts-and-scribes", "fr", "plateau de valeurs", "components", "[plateau de valeur]"),
        ("biblios", "fr", "plateau de valeurs", "components", "[Plateau de Valeurs]"),
        ("biblios", "fr", "PV", "scoring", "[Points de Victoire]"),
        ("scripts-and-scribes", "fr", "points de victoire", "scoring", "[PV]"),
        ("biblios", "fr", "Medieval Bluff", "options", "[Bluff médiéval]"),
        ("biblios", "fr", "enchre", "auction", "[enchère]"),
        ("scripts-and-scribes", "en", "Scriptorium", "components", "[Value Board]"),
        ("scripts-and-scribes", "fr", "bishop", "church", "[carte évêque]"),
        ("biblios", "es", "church", "church", "[carta de Iglesia]"),
        ("scripts-and-scribes", "es", "iglesia", "church", "[carta de Obispo]"),
    ],
)
def test_lookups_find_what_players_type(ruleset: str, lang: str, query: str, section: str, marked: str) -> None:
    hits = search(render_rulebook(load_ruleset(ruleset), lang), query)
    assert hits, query
    assert section in {hit.section_id for hit in hits}
    assert any(marked in highlight(hit) for hit in hits), [highlight(hit) for hit in hits][:5]
    scores = [hit.score for hit in hits]
    assert scores == sorted(scores, reverse=True)


def test_lookups_match_whole_words_and_respect_typed_accents() -> None:
    book = render_rulebook(load_ruleset("biblios"), "fr")
    die = search(book, "dé")
    assert die and all("dé" in highlight(hit, "[", "]").casefold() for hit in die)  # "dé" and "dés", never every "de"
    assert not any("[de]" in highlight(hit).casefold() for hit in die)
    gold = search(book, "or")
    assert gold and not any("[catégorie" in highlight(hit) or "Scriptorium" in highlight(hit) for hit in gold)
    assert all(hit.section_title for hit in gold)
    assert within_one_edit("enchre", "enchere") and within_one_edit("ecnhere", "enchere")
    assert not within_one_edit("enchr", "enchere")
    assert search(book, "zzzzz") == []


# -- the game's story -----------------------------------------------------------------------------


def finished_record(tmp_path: Path) -> Path:
    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, players=3, seed=11)
    bots = [make_bot("random", seat, ruleset) for seat in range(3)]
    while not state.is_terminal():
        state.apply(bots[state.current_player].choose(state.observation(state.current_player)))
    return save_record(record_of(state), tmp_path / "game.json")


def test_replay_log_in_any_language(tmp_path: Path) -> None:
    path = finished_record(tmp_path)
    runner = CliRunner()
    spectator = runner.invoke(build_app(), ["replay", str(path), "--log", "--lang", "es"])
    assert spectator.exit_code == 0, spectator.output
    lines = spectator.output.splitlines()
    assert lines[0].startswith("Se retiran") or "boca abajo" in lines[0]
    assert any("pone una carta boca abajo en la pila de subasta" in line for line in lines)
    assert not any(" guarda " in line and "boca abajo" not in line for line in lines)  # kept cards stay hidden
    assert any("Jugador 1" in line for line in lines)
    seat = runner.invoke(build_app(), ["replay", str(path), "--log", "--player", "1", "--lang", "fr"])
    assert seat.exit_code == 0, seat.output
    assert any(line.startswith("Joueur 1 garde ") for line in seat.output.splitlines())
    assert any(line.startswith(f"Tour de Joueur 1{NNBSP}: ") for line in seat.output.splitlines())
    as_json = runner.invoke(build_app(), ["replay", str(path), "--log", "--json", "--lang", "fr"])
    data = json.loads(as_json.output)
    assert data["log"] and data["log"] == [line for line in data["log"] if "{" not in line]
    bad = runner.invoke(build_app(), ["replay", str(path), "--log", "--player", "9"])
    assert bad.exit_code == 2 and "--player 9" in bad.output
    alone = runner.invoke(build_app(), ["replay", str(path), "--player", "1"])
    assert alone.exit_code == 2


@pytest.mark.parametrize("width", [24, 31, 40, 57])
def test_rules_show_never_starts_a_french_line_with_punctuation(width: int) -> None:
    from biblios_kit.rulebook.formats import rulebook_text

    for ruleset in (load_ruleset("biblios", ["medieval-bluff"]), load_ruleset("scripts-and-scribes")):
        text = rulebook_text(render_rulebook(ruleset, "fr"), width)
        assert not [line for line in text.splitlines() if line.lstrip()[:1] in (":", ";", "!", "?", "»")]


def test_a_masculine_church_term_reads_right(tmp_path: Path) -> None:
    path = variant(tmp_path, "terms:\n  church: {en: Bishop, fr: Évêque, es: Obispo}\n")
    ruleset = load_ruleset(path)
    for lang, wrong in (
        ("fr", ("une Évêque", "l'Évêque est acquise", "aucune Évêque")),
        ("es", ("una Obispo", "ninguna Obispo")),
    ):
        text = "\n".join(line for section in render_rulebook(ruleset, lang).sections for line in section.lines())
        assert not [phrase for phrase in wrong if phrase in text], lang
    french = "\n".join(render_rulebook(ruleset, "fr").section("church").lines())
    assert "Un joueur acquiert un Évêque quand" in french


def test_french_typography_tool_is_idempotent_and_the_catalog_already_follows_it() -> None:
    from biblios_kit.i18n_tools import LOCALES, french_typography, read_catalog

    assert french_typography("Vous avez pioché: {card}") == f"Vous avez pioché{NNBSP}: {{card}}"
    assert french_typography("« Refus de payer »") == f"«{NNBSP}Refus de payer{NNBSP}»"
    assert french_typography("{x:>3} http://a 12:30 f.json:1:2: x") == "{x:>3} http://a 12:30 f.json:1:2: x"
    for text in ("a ; b ! c ?", "« a »", "Quoi?"):
        assert french_typography(french_typography(text)) == french_typography(text)
    catalog = read_catalog(LOCALES / "fr" / "LC_MESSAGES" / "biblios_kit.po", "fr")
    for message in catalog:
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in strings if message.id else ():
            assert french_typography(text) == text, message.id
