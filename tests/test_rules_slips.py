"""Slips a person makes in a variant are refused at their line and explained as a person would, in en, fr and es.

Each case is a small variant file in ``tests/data/rulesets/slip-*.yaml``: the test checks the
problem's line, column and field path, and the suggestion in each language.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from biblios_kit.i18n import use_language
from biblios_kit.messages import explain_problem
from biblios_kit.rules.loader import check_file

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path("tests/data/rulesets")
N = "\u202f"  # the narrow no-break space of French typography

SLIPS: dict[str, tuple[int, int, str, dict[str, str]]] = {
    "slip-left-indented.yaml": (
        8,
        5,
        "church.cards.raise-one",
        {
            "en": "the fields after it (count, signs, and dice) sit beside it instead of under it; indent them one "
            "level further: raise-one: {count: 3, signs: [1], dice: 1} (or write 'raise-one: null' to remove it "
            "from biblios)",
            "fr": f"les champs qui le suivent (count, signs et dice) sont à côté de lui au lieu d'être dessous{N}; "
            f"décalez-les d'un niveau vers la droite{N}: raise-one: {{count: 3, signs: [1], dice: 1}} (ou écrivez "
            "'raise-one: null' pour le retirer de biblios)",
            "es": "los campos que lo siguen (count, signs y dice) están a su lado en vez de debajo; sángrelos un nivel "
            "más: raise-one: {count: 3, signs: [1], dice: 1} (o escriba 'raise-one: null' para quitarlo de biblios)",
        },
    ),
    "slip-field-among-entries.yaml": (
        9,
        3,
        "setup.gift_cards",
        {
            "en": "'gift_cards' is a field of each entry of 'setup', not an entry: it sits one level too far left; "
            "indent it under the entry it belongs to (probably '4', the entry above it)",
            "fr": f"'gift_cards' est un champ de chaque entrée de 'setup', pas une entrée{N}: il est décalé d'un niveau "
            f"trop à gauche{N}; indentez-le sous l'entrée à laquelle il appartient (sans doute '4', l'entrée juste "
            "au-dessus)",
            "es": "'gift_cards' es un campo de cada entrada de 'setup', no una entrada: está un nivel demasiado a la "
            "izquierda; sángrelo bajo la entrada a la que pertenece (seguramente '4', la entrada justo encima)",
        },
    ),
    "slip-card-field-among-cards.yaml": (
        10,
        5,
        "church.cards.signs",
        {
            "en": "indent it under the entry it belongs to (probably 'raise-one', the entry above it)",
            "fr": "indentez-le sous l'entrée à laquelle il appartient (sans doute 'raise-one', l'entrée juste au-dessus)",
            "es": "sángrelo bajo la entrada a la que pertenece (seguramente 'raise-one', la entrada justo encima)",
        },
    ),
    "slip-tab.yaml": (
        7,
        1,
        "",
        {
            "en": "a tab character; YAML indents with spaces",
            "fr": f"une tabulation{N}; en YAML, l'indentation se fait avec des espaces",
            "es": "un tabulador; en YAML la sangría se hace con espacios",
        },
    ),
    "slip-targets-list.yaml": (
        7,
        3,
        "church.targets",
        {
            "en": "found a list (to name the place of each die a card moves, give that card its own 'targets', such "
            "as church.cards.raise-one.targets: [{place: 2}])",
            "fr": "trouvé une liste (pour désigner la place de chaque dé qu'une carte déplace, donnez à cette carte ses "
            "propres 'targets', comme church.cards.raise-one.targets: [{place: 2}])",
            "es": "se encontró una lista (para indicar el puesto de cada dado que mueve una carta, dé a esa carta sus "
            "propios 'targets', como church.cards.raise-one.targets: [{place: 2}])",
        },
    ),
    "slip-empty-setup.yaml": (
        7,
        3,
        "setup.2",
        {
            "en": "write '2: null' to remove it from biblios, or indent its fields under it",
            "fr": "écrivez '2: null' pour le retirer de biblios, ou placez ses champs en dessous, en retrait",
            "es": "escriba '2: null' para quitarlo de biblios, o ponga sus campos debajo, con sangría",
        },
    ),
    "slip-empty-mapping.yaml": (
        7,
        3,
        "setup.4",
        {
            "en": "'4: {}' changes nothing; write '4: null' to remove it, or put the fields to change inside",
            "fr": f"'4: {{}}' ne change rien{N}; écrivez '4: null' pour le retirer, ou mettez-y les champs à changer",
            "es": "'4: {}' no cambia nada; escriba '4: null' para quitarlo, o ponga dentro los campos que cambian",
        },
    ),
    "slip-extends-itself.yaml": (
        2,
        10,
        "extends",
        {
            "en": "'extends' names this very file: a variant extends the ruleset it changes, such as one of the "
            "editions: biblios, scripts-and-scribes",
            "fr": f"'extends' désigne ce fichier lui-même{N}: une variante part des règles qu'elle modifie, par "
            f"exemple l'une des éditions{N}: biblios, scripts-and-scribes",
            "es": "'extends' nombra este mismo archivo: una variante extiende el reglamento que modifica, por ejemplo "
            "una de las ediciones: biblios, scripts-and-scribes",
        },
    ),
    "slip-ceiling-hands.yaml": (
        7,
        19,
        "auction.ceiling.gold",
        {
            "en": "(did you mean 'hand'?)",
            "fr": f"(vouliez-vous dire 'hand'{N}?)",
            "es": "(¿quería decir 'hand'?)",
        },
    ),
    "slip-target-place.yaml": (
        9,
        37,
        "church.cards.raise-two.targets[1].place",
        {
            "en": "no category has an award die of place 2 (the board's dice are of place 1); aim this target at a "
            "place the board has, or add a die of place 2 to 'dice' (or extend a variant that has one: "
            "five-players-italian, second-place-dice)",
            "fr": f"aucune catégorie n'a de dé de récompense de place 2 (les dés du plateau sont de place 1){N}; "
            f"visez une place que le plateau possède, ou ajoutez à 'dice' un dé de place 2 (ou étendez une variante "
            f"qui en a un{N}: five-players-italian, second-place-dice)",
            "es": "ninguna categoría tiene un dado de premio del puesto 2 (los dados del tablero son del puesto 1); "
            "apunte a un puesto que el tablero tenga, o añada a 'dice' un dado del puesto 2 (o extienda una "
            "variante que lo tenga: five-players-italian, second-place-dice)",
        },
    ),
    "slip-starting-card.yaml": (
        9,
        29,
        "setup.4.starting_cards[0].value",
        {
            "en": "the deck has no Gold card of value 4; its Gold cards are worth 1, 2, and 3",
            "fr": f"le jeu ne compte aucune carte Or de valeur 4{N}; ses cartes Or valent 1, 2 et 3",
            "es": "la baraja no tiene ninguna carta de Oro de valor 4; sus cartas de Oro valen 1, 2 y 3",
        },
    ),
    "slip-starting-too-many.yaml": (
        9,
        39,
        "setup.4.starting_cards[0].count",
        {
            "en": "deals 3 such cards to each of 4 players, 12 in all, but the deck has only 11",
            "fr": "distribue 3 cartes de ce type à chacun des 4 joueurs, 12 en tout, mais le jeu n'en compte que 11",
            "es": "reparte 3 cartas de ese tipo a cada uno de los 4 jugadores, 12 en total, pero la baraja solo tiene 11",
        },
    ),
    "slip-empty-field.yaml": (
        7,
        3,
        "auction.opening_bid",
        {
            "en": "give it one, or write 'opening_bid: null' to remove it",
            "fr": "donnez-lui-en une, ou écrivez 'opening_bid: null' pour le retirer",
            "es": "dele uno, o escriba 'opening_bid: null' para quitarlo",
        },
    ),
}


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("BIBLIOS_KIT_CONFIG_DIR", str(tmp_path / "config"))
    use_language("en")


def test_every_slip_fixture_is_checked() -> None:
    assert {path.name for path in (ROOT / FIXTURES).glob("slip-*.yaml")} == set(SLIPS)


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
@pytest.mark.parametrize("name", sorted(SLIPS))
def test_a_slip_is_located_and_its_way_out_is_said(name: str, lang: str) -> None:
    line, column, path, suggestions = SLIPS[name]
    (problem,) = check_file(FIXTURES / name)
    assert (problem.file, problem.line, problem.column, problem.path) == (str(FIXTURES / name), line, column, path)
    assert suggestions[lang] in explain_problem(problem, lang)


def test_the_count_is_pointed_at_only_when_written_and_removals_only_when_made(tmp_path: Path) -> None:
    variant = tmp_path / "v.yaml"
    header = "extends: biblios\nid: v\ntitle: {en: T, fr: T, es: T}\ndescription: {en: T, fr: T, es: T}\n"
    # Four players, no named removals: 11 Gold 1, dealt 4 at a time; the third item finds 3 left.
    variant.write_text(header + "setup:\n  4:\n    starting_cards:\n" + "      - {kind: gold, value: 1}\n" * 3)
    (problem,) = check_file(variant)
    assert (problem.line, problem.path, problem.code) == (10, "setup.4.starting_cards[2]", "starting-cards-exceed-deck")
    assert "deals 1 such card to each of 4 players, 4 in all, but the deck has only 3" in problem.message
    # Two players: two Gold 1 are removed by name, 9 are left, and 2 x 5 are dealt.
    variant.write_text(header + "setup:\n  2:\n    starting_cards:\n      - {kind: gold, value: 1, count: 5}\n")
    (problem,) = check_file(variant)
    assert (problem.line, problem.path, problem.code) == (8, "setup.2.starting_cards[0].count", "starting-cards-exceed")


def test_a_written_null_is_still_a_removal(tmp_path: Path) -> None:
    variant = tmp_path / "v.yaml"
    header = "extends: biblios\nid: v\ntitle: {en: T, fr: T, es: T}\ndescription: {en: T, fr: T, es: T}\n"
    for removal in ("null", "~"):
        variant.write_text(header + f"setup:\n  2: {removal}\nchurch:\n  cards:\n    raise-one: {removal}\n")
        assert check_file(variant) == []


def test_an_empty_value_in_an_option_is_a_slip_too(tmp_path: Path) -> None:
    variant = tmp_path / "v.yaml"
    variant.write_text(
        "extends: biblios\nid: v\ntitle: {en: T, fr: T, es: T}\ndescription: {en: T, fr: T, es: T}\n"
        "options:\n  duel:\n    title: {en: T, fr: T, es: T}\n    description: {en: T, fr: T, es: T}\n"
        "    changes:\n      setup:\n        3:\n"
    )
    (problem,) = check_file(variant)
    assert (problem.line, problem.path, problem.code) == (11, "options.duel.changes.setup.3", "empty-entry")


CHURCH_LABELS = {
    "en": ("Church card +1 (and 1 optional die)", "Church card +1 ×2 (and 2 optional dice)", "Church card +1 ×2"),
    "fr": ("Carte Église +1 (et 1 dé facultatif)", "Carte Église +1 ×2 (et 2 dés facultatifs)", "Carte Église +1 ×2"),
    "es": (
        "Carta de Iglesia +1 (y 1 dado opcional)",
        "Carta de Iglesia +1 ×2 (y 2 dados opcionales)",
        "Carta de Iglesia +1 ×2",
    ),
}


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
def test_a_card_with_per_place_targets_is_not_named_as_the_two_dice_card(lang: str) -> None:
    from biblios_kit.rulebook.describe import card_name, effect_symbol
    from biblios_kit.rules import load_ruleset

    def label(ruleset_id: str, effect_id: str) -> str:
        ruleset = load_ruleset(ruleset_id)
        card = next(c for c in ruleset.deck if c.effect is not None and c.effect.id == effect_id)
        return card_name(ruleset, card.id, lang)

    # five-players-italian: raise-one moves a first-place die and maybe a second-place one (dice: 2).
    one, two, plain_two = CHURCH_LABELS[lang]
    assert label("five-players-italian", "raise-one") == one
    assert label("five-players-italian", "raise-two") == two
    assert label("biblios", "raise-two") == plain_two
    italian = load_ruleset("five-players-italian")
    effect = next(c.effect for c in italian.deck if c.effect is not None and c.effect.id == "raise-one")
    assert effect_symbol(effect.signs, effect.dice, effect.targets) == "+1"


def test_an_empty_value_in_an_editions_option_is_a_slip_too(tmp_path: Path) -> None:
    text = (ROOT / "rulesets" / "biblios.yaml").read_text(encoding="utf-8")
    edition = tmp_path / "edition.yaml"
    edition.write_text(text.replace("      penalty: {kind: medieval-bluff}\n", "      setup:\n        2:\n"))
    line = text.splitlines().index("      penalty: {kind: medieval-bluff}") + 2
    (problem,) = check_file(edition)
    assert (problem.line, problem.path, problem.code) == (line, "options.medieval-bluff.changes.setup.2", "empty-entry")
    assert "write '2: null' to remove it from biblios" in problem.message
