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
