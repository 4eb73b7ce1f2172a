"""The shipped editions load and their decks match RULES-SPEC."""

from collections import Counter

import pytest

from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import CardKind


@pytest.mark.parametrize("name", ["biblios", "scripts-and-scribes"])
def test_deck_composition(name: str) -> None:
    ruleset = load_ruleset(name)
    deck = ruleset.deck
    assert len(deck) == 87
    assert [card.id for card in deck] == list(range(87))
    gold = Counter(card.value for card in deck if card.kind is CardKind.GOLD)
    assert gold == {1: 11, 2: 11, 3: 11}
    church = Counter((card.effect.signs, card.effect.dice) for card in deck if card.kind is CardKind.CHURCH)
    assert church == {((1,), 2): 2, ((-1,), 2): 2, ((1,), 1): 2, ((-1,), 1): 2, ((1, -1), 1): 1}
    for index, category in enumerate(ruleset.categories):
        cards = [card for card in deck if card.category == category.id]
        values = Counter(card.value for card in cards)
        assert values == ({2: 4, 3: 3, 4: 2} if index < 2 else {1: 7, 2: 2})
        assert sorted(card.letter for card in cards) == list("ABCDEFGHI")


@pytest.mark.parametrize("name", ["biblios", "scripts-and-scribes"])
def test_setup_tables(name: str) -> None:
    ruleset = load_ruleset(name)
    for players, gold_removed, random_removed, gift in [(2, 6, 21, 3), (3, 3, 12, 4), (4, 0, 7, 5)]:
        setup = ruleset.setups[players]
        assert sum(r.count for r in setup.remove) == gold_removed
        assert all(r.kind is CardKind.GOLD for r in setup.remove)
        assert setup.remove_random == random_removed
        assert setup.gift_cards == gift
        left = len(ruleset.deck) - gold_removed - random_removed
        assert left % gift == 0


def test_medieval_bluff_option_changes_penalty_and_hash() -> None:
    plain = load_ruleset("biblios")
    bluff = load_ruleset("biblios", ["medieval-bluff"])
    assert plain.penalty.kind.value == "standard"
    assert bluff.penalty.kind.value == "medieval-bluff"
    assert bluff.active_options == {"medieval-bluff"}
    assert plain.content_hash != bluff.content_hash
    assert load_ruleset("bib").content_hash == plain.content_hash


def test_biblios_options_are_off_by_default() -> None:
    ruleset = load_ruleset("biblios")
    assert set(ruleset.options) == {"medieval-bluff", "refuse-to-pay"}
    assert ruleset.active_options == frozenset()
    assert not any(option.default for option in ruleset.options.values())
    assert ruleset.auction.refuse_to_pay is False
    assert load_ruleset("biblios", ["refuse-to-pay"]).auction.refuse_to_pay is True
    assert dict(load_ruleset("scripts-and-scribes").options) == {}


@pytest.mark.parametrize("name", ["biblios", "scripts-and-scribes"])
def test_board_order_terms_and_tiebreak_chain(name: str) -> None:
    ruleset = load_ruleset(name)
    expected = {
        "biblios": ["monks", "pigments", "holy-books", "manuscripts", "forbidden-tomes"],
        "scripts-and-scribes": ["illuminators", "scribes", "manuscripts", "scrolls", "supplies"],
    }[name]
    assert [c.id for c in ruleset.categories] == expected
    for category in ruleset.categories:
        assert [(d.place, d.start, d.min, d.max) for d in category.dice] == [(1, 3, 1, 6)]
    chain = [(step.by.value, step.category) for step in ruleset.scoring.final_tiebreak]
    assert chain[0] == ("gold", None)
    assert chain[1:] == [(by, c) for c in expected for by in ("category-total", "category-letter")]
    assert (
        ruleset.term("church", "es") == {"biblios": "carta de Iglesia", "scripts-and-scribes": "carta de Obispo"}[name]
    )


def test_second_place_dice_variant() -> None:
    ruleset = load_ruleset("second-place-dice")
    assert ruleset.extends == ("biblios",)
    assert ruleset.deck == load_ruleset("biblios").deck
    for category in ruleset.categories:
        assert [(d.place, d.start, d.min, d.max) for d in category.dice] == [(1, 3, 1, 6), (2, 2, 1, 6)]


def test_five_six_players_variant_divides_every_pile() -> None:
    ruleset = load_ruleset("five-six-players")
    assert ruleset.player_counts == (2, 3, 4, 5, 6)
    assert Counter(card.value for card in ruleset.deck if card.kind is CardKind.GOLD) == {1: 12, 2: 12, 3: 12}
    for players, cards_played in [(2, 60), (3, 72), (4, 80), (5, 90), (6, 84)]:
        setup = ruleset.setups[players]
        left = len(ruleset.deck) - sum(r.count for r in setup.remove) - setup.remove_random
        assert left == cards_played
        assert setup.gift_cards == players + 1
        turns, rest = divmod(left - players * setup.starting_hand, setup.gift_cards)
        assert rest == 0 and turns % players == 0  # every player is active equally often


@pytest.mark.parametrize(
    ("name", "players"),
    [("five-six-players", 5), ("five-six-players", 6), ("second-place-dice", 3)],
)
def test_variants_play_to_the_end(name: str, players: int) -> None:
    import random

    from biblios_kit.engine import new_game

    ruleset = load_ruleset(name, ["medieval-bluff"])
    state = new_game(ruleset, players=players, seed=11)
    rng = random.Random(11)
    for _ in range(5000):
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_actions()))
    assert state.is_terminal()
    assert state.result().winners
