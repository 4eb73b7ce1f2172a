"""The rulebook renderer: figures, terms and rules come from the ruleset, in every language and for any variant."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from biblios_kit.i18n import SUPPORTED, current_language, set_language, translator
from biblios_kit.rulebook import (
    SECTION_IDS,
    BulletList,
    Paragraph,
    Rulebook,
    Section,
    Table,
    format_rulebook,
    render_rulebook,
    rulebook_markdown,
    rulebook_text,
)
from biblios_kit.rulebook.generate import expected_files
from biblios_kit.rulebook.grammar import capitalize, term_values
from biblios_kit.rulebook.model import block_lines
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import TERM_KEYS, Ruleset

EDITIONS = ("biblios", "scripts-and-scribes")
DOCS = Path(__file__).resolve().parent.parent / "docs" / "rules"


def text_of(section: Section) -> str:
    """All the text of a section, one line per paragraph, item or row."""
    return "\n".join(section.lines())


def tables(section: Section) -> list[Table]:
    return [block for block in section.blocks if isinstance(block, Table)]


def lists(section: Section) -> list[BulletList]:
    return [block for block in section.blocks if isinstance(block, BulletList)]


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    set_language("en")


@pytest.mark.parametrize("lang", SUPPORTED)
@pytest.mark.parametrize("edition", EDITIONS)
def test_sections_have_stable_english_ids(edition: str, lang: str) -> None:
    book = render_rulebook(load_ruleset(edition), lang)
    assert book.section_ids == SECTION_IDS
    assert book.language == lang
    for section in book.sections:
        assert section.title and section.blocks
        assert book.section(section.id) is section
    with pytest.raises(KeyError):
        book.section("nope")


@pytest.mark.parametrize("lang", SUPPORTED)
@pytest.mark.parametrize("edition", EDITIONS)
def test_setup_table_has_the_removals_for_each_player_count(edition: str, lang: str) -> None:
    ruleset = load_ruleset(edition)
    book = render_rulebook(ruleset, lang)
    gold = ruleset.term("gold", lang)
    (table,) = tables(book.section("setup"))
    rows = {row[0]: row for row in table.rows}
    assert set(rows) == {"2", "3", "4"}
    # RULES-SPEC: 2 players remove 2 Gold of each value then 21 random; 3 players 1 of each then 12; 4 players 7.
    expected = {"2": ("2", "21", "60", "3", "20"), "3": ("1", "12", "72", "4", "18"), "4": (None, "7", "80", "5", "16")}
    for players, (each_gold, random, in_play, per_turn, turns) in expected.items():
        row = rows[players]
        if each_gold is None:
            assert row[1] == "—"
        else:
            for value in (1, 2, 3):
                assert f"{each_gold} × {gold} {value}" in row[1]
        assert row[2:] == (random, in_play, per_turn, turns)


@pytest.mark.parametrize("lang", SUPPORTED)
@pytest.mark.parametrize("edition", EDITIONS)
def test_gift_section_gives_cards_per_turn(edition: str, lang: str) -> None:
    ruleset = load_ruleset(edition)
    section = render_rulebook(ruleset, lang).section("gift")
    tr = translator(lang)
    items = lists(section)[0].items
    for players, cards in ((2, 3), (3, 4), (4, 5)):
        line = tr.ngettext(
            "{players} players: {cards} card per turn", "{players} players: {cards} cards per turn", cards
        )
        assert line.format(players=players, cards=cards) in items
    assert section.title == ruleset.term("gift_phase", lang)[:1].upper() + ruleset.term("gift_phase", lang)[1:]


@pytest.mark.parametrize("lang", SUPPORTED)
@pytest.mark.parametrize("edition", EDITIONS)
def test_tie_break_order_follows_the_ruleset(edition: str, lang: str) -> None:
    ruleset = load_ruleset(edition)
    section = render_rulebook(ruleset, lang).section("ties")
    (chain,) = [b for b in lists(section) if b.ordered]
    assert len(chain.items) == len(ruleset.scoring.final_tiebreak) == 11
    assert ruleset.term("gold", lang) in chain.items[0]
    names = [c.name.get(lang) for c in ruleset.categories]
    # Steps 2-11: each category in board order, its total then its letter.
    for index, name in enumerate(names):
        assert name in chain.items[1 + 2 * index]
        assert name in chain.items[2 + 2 * index]
    positions = [next(i for i, item in enumerate(chain.items) if name in item) for name in names]
    assert positions == sorted(positions)


@pytest.mark.parametrize("lang", SUPPORTED)
@pytest.mark.parametrize("edition", EDITIONS)
def test_edition_terms_and_names_appear(edition: str, lang: str) -> None:
    ruleset = load_ruleset(edition)
    text = rulebook_text(render_rulebook(ruleset, lang), width=10_000).casefold()
    for key in TERM_KEYS:
        assert ruleset.term(key, lang).casefold() in text, key
    for category in ruleset.categories:
        assert category.name.get(lang).casefold() in text
    other = load_ruleset("scripts-and-scribes" if edition == "biblios" else "biblios")
    assert other.term("church", lang).casefold() not in text


@pytest.mark.parametrize("lang", SUPPORTED)
def test_deck_table_lists_values_letters_and_counts(lang: str) -> None:
    ruleset = load_ruleset("biblios")
    section = render_rulebook(ruleset, lang).section("components")
    category_table = next(t for t in tables(section) if len(t.headers) == 6)
    monks = [row for row in category_table.rows if row[0] == ruleset.categories[0].name.get(lang)]
    assert [(row[3], row[4], row[5]) for row in monks] == [
        ("2", "A B C D", "4"),
        ("3", "E F G", "3"),
        ("4", "H I", "2"),
    ]
    assert len(category_table.rows) == 2 * 3 + 3 * 2
    gold_table = next(t for t in tables(section) if [r[0] for r in t.rows] == ["1", "2", "3"])
    assert [r[1] for r in gold_table.rows] == ["11", "11", "11"]
    assert "87" in text_of(section) and "66" in text_of(section)


@pytest.mark.parametrize(
    ("lang", "standard", "bluff", "title"),
    [
        ("en", "Standard penalty", "removed from the game", "Medieval Bluff"),
        ("fr", "Pénalité standard", "retirée du jeu", "Bluff médiéval"),
        ("es", "Penalización estándar", "se retira del juego", "Farol medieval"),
    ],
)
def test_medieval_bluff_changes_the_penalty_section(lang: str, standard: str, bluff: str, title: str) -> None:
    plain = render_rulebook(load_ruleset("biblios"), lang).section("penalty")
    changed = render_rulebook(load_ruleset("biblios", ["medieval-bluff"]), lang).section("penalty")
    assert plain != changed
    assert standard in text_of(plain) and title not in text_of(plain)
    assert title in text_of(changed) and bluff in text_of(changed) and standard not in text_of(changed)
    options = render_rulebook(load_ruleset("biblios", ["medieval-bluff"]), lang).section("options")
    in_force = options.blocks[1]
    assert isinstance(in_force, BulletList) and title in in_force.items[0]


def test_refuse_to_pay_option_is_explained() -> None:
    book = render_rulebook(load_ruleset("biblios", ["refuse-to-pay"]), "en")
    assert "may also refuse to pay" in text_of(book.section("auction"))
    assert "whether they cannot or they refuse" in text_of(book.section("penalty"))
    assert "A winner who can pay must pay, unless the option “Refusing to pay” is on" in text_of(
        render_rulebook(load_ruleset("biblios"), "en").section("auction")
    )
    # the Spanish seed allows refusing as an option: the Spanish rulebook says so instead of forbidding it
    spanish = text_of(render_rulebook(load_ruleset("biblios"), "es").section("auction"))
    assert "salvo si está activa la opción «Negarse a pagar»" in spanish


@pytest.mark.parametrize("lang", SUPPORTED)
def test_second_place_dice_variant(lang: str) -> None:
    ruleset = load_ruleset("second-place-dice")
    tr = translator(lang)
    book = render_rulebook(ruleset, lang)
    components = text_of(book.section("components"))
    second = tr.gettext("die for {place}: starts at {start}, always stays between {min} and {max}").format(
        place=tr.gettext("second place"), start=2, min=1, max=6
    )
    assert second[:1].upper() + second[1:] in components
    scoring = text_of(book.section("scoring"))
    assert tr.gettext("second place") in scoring
    anywhere = tr.gettext("A {church} may move any award die of any category.").format(**term_values(ruleset, lang))
    assert capitalize(anywhere) in text_of(book.section("church"))
    assert "biblios" in text_of(book.section("overview"))  # "a variant of biblios"


def test_five_six_player_variant_has_its_setups() -> None:
    ruleset = load_ruleset("five-six-players")
    book = render_rulebook(ruleset, "en")
    (table,) = tables(book.section("setup"))
    counts = [row[0] for row in table.rows]
    assert counts == [str(n) for n in ruleset.player_counts]
    assert {"5", "6"} <= set(counts)
    for row in table.rows:
        setup = ruleset.setups[int(row[0])]
        assert row[2] == str(setup.remove_random)
        assert row[4] == str(setup.gift_cards)
    assert "2, 3, 4, 5, or 6 players" in text_of(book.section("overview"))


HOUSE_RULES = dedent(
    """\
    extends: biblios
    id: test-house-rules
    title: {en: Test house rules, fr: Règles maison d'essai, es: Reglas caseras de prueba}
    description:
      en: Every switch turned the other way.
      fr: Chaque réglage dans l'autre sens.
      es: Cada ajuste al revés.
    setup:
      2: {gift_cards: 4}
      3: {remove_random: 13, short_draw: discard}
      4: {remove_random: 6}
    church: {optional: false, targets: first-place}
    auction:
      bidding_starts: active
      opening_bid: 2
      currency: {category: gold, church: gold, gold: gold}
      ceiling: {gold: 20, cards: 10}
      overpay: forbidden
      all_pass: active-takes
    penalty: {kind: none, exclude_from_reauction: false}
    scoring:
      category_tie: nobody
      final_tiebreak:
        - {by: category-won, category: monks}
        - {by: gold}
    """
)


@pytest.fixture
def house_rules(tmp_path: Path) -> Ruleset:
    path = tmp_path / "test-house-rules.yaml"
    path.write_text(HOUSE_RULES, encoding="utf-8")
    return load_ruleset(path)


def test_house_rules_variant_is_explained_in_english(house_rules: Ruleset) -> None:
    book = render_rulebook(house_rules, "en")
    setup = text_of(book.section("setup"))
    assert "With 3 players the cards do not divide evenly: the last 3 cards are removed from the game" in setup
    assert (
        "With 4 players the cards do not divide evenly: the last turn is played with the 1 card left, which the active player keeps."
        in setup
    )
    (table,) = tables(book.section("setup"))
    rows = {row[0]: row for row in table.rows}
    assert rows["3"][2:] == ("13", "71", "4", "17")
    assert rows["4"][2:] == ("6", "81", "5", "16 + 1 short")
    assert rows["2"][2:] == ("21", "60", "4", "15")
    gift = text_of(book.section("gift"))
    assert "2 players: 4 cards per turn" in gift and "draws this many cards" in gift
    assert "once every other player has taken one are removed from the game" in gift
    church = text_of(book.section("church"))
    assert "A Church card may move only the dice for first place." in church
    assert "it must be used whenever a legal move exists" in church
    assert "the card is discarded without effect" in church
    auction = text_of(book.section("auction"))
    assert "The active player bids first" in auction
    assert "For a category card, a Church card, or a Gold card, bids are amounts of Gold, from 2 to 20." in auction
    assert "add up to exactly the bid" in auction
    assert "bids are numbers of cards" not in auction
    assert "If nobody bids, the active player takes the card for free, unless a penalty" in auction
    penalty = text_of(book.section("penalty"))
    assert "No penalty" in penalty and "The penalized player loses no card." in penalty
    assert "the penalized player may bid on it again" in penalty
    assert "If the highest total is shared, nobody wins the category" in text_of(book.section("scoring"))
    (chain,) = [b for b in lists(book.section("ties")) if b.ordered]
    assert chain.items == ("Won the Monks category", "Most Gold: the total value of the Gold cards in their hand")


@pytest.mark.parametrize(
    ("lang", "phrases"),
    [
        (
            "fr",
            [
                "Bluff médiéval (medieval-bluff)",
                "Aucune pénalité",
                "Le joueur actif enchérit en premier",
                "A remporté la catégorie Moines",
                "il reste 3 cartes, qui sont retirées du jeu",
            ],
        ),
        (
            "es",
            [
                "Farol medieval (medieval-bluff)",
                "Sin penalización",
                "El jugador activo puja primero",
                "Ha ganado la categoría Monjes",
                "quedan 3 cartas, que se retiran del juego",
            ],
        ),
    ],
)
def test_house_rules_variant_in_french_and_spanish(house_rules: Ruleset, lang: str, phrases: list[str]) -> None:
    text = rulebook_text(render_rulebook(house_rules, lang), width=10_000)
    for phrase in phrases:
        assert phrase in text


def test_rendering_does_not_change_the_global_language() -> None:
    set_language("es")
    render_rulebook(load_ruleset("biblios"), "fr")
    assert current_language() == "es"


def test_unsupported_language_renders_english() -> None:
    book = render_rulebook(load_ruleset("biblios"), "de")
    assert book.language == "en" and book.section("ties").title == "Final ties"


def test_formats() -> None:
    book = render_rulebook(load_ruleset("biblios"), "fr")
    markdown = format_rulebook(book, "markdown")
    assert markdown.startswith("# Biblios\u202f: les règles\n")
    assert "\n## Phase d'Enchères\n" in markdown
    assert "| Joueurs | Retirées d'abord |" in markdown
    assert "\n1. Le plus d'Or" in markdown
    text = format_rulebook(book, "text", [book.section("penalty")])
    assert "Pénalités\n=========\n" in text and "Décompte" not in text
    assert all(len(line) <= 80 for line in text.splitlines())
    with pytest.raises(ValueError):
        format_rulebook(book, "html")


def test_table_cells_with_pipes_are_escaped_in_markdown() -> None:
    book = Rulebook("x", "en", "T", "S", (Section("overview", "O", (Table(("a|b",), (("c|d",),)), Paragraph("p"))),))
    assert "| a\\|b |" in rulebook_markdown(book)
    assert block_lines(Table(("h",), (("r",),))) == ("h", "r")


def test_docs_rules_are_current() -> None:
    """docs/rules/ holds the six generated rulebooks; regenerate with `make rulebooks`."""
    expected = expected_files()
    assert sorted(expected) == sorted(f"{e}.{lang}.md" for e in EDITIONS for lang in SUPPORTED)
    stale = [
        name
        for name, content in expected.items()
        if not (DOCS / name).is_file() or (DOCS / name).read_text(encoding="utf-8") != content
    ]
    assert not stale, f"stale rulebooks in docs/rules: {stale}; run: python -m biblios_kit.rulebook.generate docs/rules"


def test_every_shipped_ruleset_and_option_set_renders_completely() -> None:
    """Editions and variants, with each option alone and all together, in every language and format."""
    from biblios_kit.rules import available_rulesets

    for entry in available_rulesets():
        if entry.origin == "user":
            continue
        base = load_ruleset(entry.path)
        option_sets = [[], *([o] for o in base.options), list(base.options)]
        for options in option_sets:
            ruleset = load_ruleset(entry.path, options)
            for lang in SUPPORTED:
                book = render_rulebook(ruleset, lang)
                assert book.section_ids == SECTION_IDS
                for fmt in ("text", "markdown"):
                    out = format_rulebook(book, fmt)
                    assert "{" not in out and "}" not in out, (entry.id, options, lang)
                for section in book.sections:
                    for block in section.blocks:
                        assert all(line.strip() for line in block_lines(block)), (entry.id, section.id)
