"""Sentences for events, actions and results: every event kind, every language, never a hidden card."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from biblios_kit.engine.actions import BID, DECLINE, KEEP, PASS, TO_AUCTION, TO_PUBLIC, church, pay, pick
from biblios_kit.engine.events import EventKind
from biblios_kit.engine.state import GameState, new_game
from biblios_kit.i18n import set_language
from biblios_kit.rulebook.describe import (
    EventDescriber,
    action_label,
    award_reason,
    bid_text,
    card_name,
    describe_events,
    placing_text,
    result_summary,
    tiebreak_text,
)
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import CardKind

NAMES = ("Ann", "Bob", "Cy")


@pytest.fixture(autouse=True)
def _english() -> None:
    set_language("en")


def finished_games(ruleset_id: str, options: tuple[str, ...] = (), count: int = 12) -> list[GameState]:
    ruleset = load_ruleset(ruleset_id, options)
    games = []
    for seed in range(count):
        state = new_game(ruleset, 3, seed)
        state.playout(random.Random(seed))
        games.append(state)
    return games


def test_card_names_use_the_edition_and_language() -> None:
    biblios = load_ruleset("biblios")
    scribes = load_ruleset("scripts-and-scribes")
    monk = next(c for c in biblios.deck if c.category == "monks" and c.value == 3)
    gold = next(c for c in biblios.deck if c.kind is CardKind.GOLD and c.value == 2)
    church_card = next(c for c in scribes.deck if c.kind is CardKind.CHURCH and c.effect and c.effect.dice == 2)
    assert card_name(biblios, monk.id, "en") == f"† Monks 3 {monk.letter}"
    assert card_name(biblios, monk.id, "fr") == f"† Moines 3 {monk.letter}"
    assert card_name(biblios, gold.id, "es") == "Oro 2"
    assert card_name(scribes, church_card.id, "en").startswith("Bishop card ")
    assert card_name(scribes, church_card.id, "en") in {"Bishop card +2", "Bishop card -2"}
    biblios_church = next(c for c in biblios.deck if c.kind is CardKind.CHURCH and c.effect and c.effect.dice == 2)
    assert card_name(biblios, biblios_church.id, "en").endswith("×2")  # no name in the ruleset: the symbol
    assert card_name(scribes, church_card.id, "fr") in {"Carte évêque +2", "Carte évêque -2"}


@pytest.mark.parametrize("ruleset_id, options", [("biblios", ("medieval-bluff",)), ("scripts-and-scribes", ())])
@pytest.mark.parametrize("lang", ["en", "fr", "es"])
def test_every_event_of_random_games_has_a_complete_sentence(
    ruleset_id: str, options: tuple[str, ...], lang: str
) -> None:
    ruleset = load_ruleset(ruleset_id, options)
    kinds_seen = set()
    for state in finished_games(ruleset_id, options, count=6):
        describer = EventDescriber(ruleset, NAMES, lang)
        for event in state.events:
            line = describer.describe(event)
            kinds_seen.add(event.kind)
            if event.kind is EventKind.TOOK_KEPT:
                assert line is None
                continue
            assert line, event
            assert "{" not in line and "}" not in line, line
    assert {
        EventKind.GIFT_TURN,
        EventKind.KEPT,
        EventKind.PICKED,
        EventKind.BID,
        EventKind.WON,
        EventKind.GAME_OVER,
    } <= kinds_seen


def test_redacted_logs_never_name_a_hidden_card() -> None:
    ruleset = load_ruleset("biblios")
    checked = 0
    for state in finished_games("biblios", count=5):
        full = state.events
        for viewer in range(3):
            mine = state.events_for(viewer)
            lines = EventDescriber(ruleset, NAMES, "en")
            for true_event, seen in zip(full, mine):
                line = lines.describe(seen)
                if seen.card is None and true_event.card is not None and line is not None:
                    card = ruleset.deck[true_event.card]
                    if card.kind is CardKind.CATEGORY:  # a category card's name is unique
                        assert card_name(ruleset, true_event.card, "en") not in line
                        checked += 1
    assert checked > 50


def test_bids_count_in_the_currency_of_the_card() -> None:
    ruleset = load_ruleset("biblios")
    assert bid_text(ruleset, 4, "gold", "en") == "4 Gold"
    assert bid_text(ruleset, 1, "cards", "en") == "1 card"
    assert bid_text(ruleset, 3, "cards", "en") == "3 cards"
    state = finished_games("biblios", count=1)[0]
    describer = EventDescriber(ruleset, NAMES, "en")
    currency = "gold"
    for event in state.events:
        line = describer.describe(event)
        if event.kind is EventKind.REVEALED:
            assert event.card is not None
            currency = "cards" if ruleset.deck[event.card].kind is CardKind.GOLD else "gold"
        if event.kind is EventKind.BID:
            assert line == f"{NAMES[event.player]} bids {bid_text(ruleset, event.args[0], currency, 'en')}."


def test_action_labels() -> None:
    ruleset = load_ruleset("biblios")
    scribes = load_ruleset("scripts-and-scribes")
    assert action_label(ruleset, KEEP, lang="en") == "Keep it"
    assert action_label(ruleset, TO_AUCTION, lang="en") == "Auction pile"
    assert action_label(scribes, TO_PUBLIC, lang="en") == "Common pool"
    assert action_label(ruleset, PASS, lang="en") == "Pass"
    assert action_label(ruleset, DECLINE, lang="en") == "Do not use it"
    assert action_label(ruleset, BID + 3, currency="cards", lang="en") == "Bid 3 cards"
    gold = next(c for c in ruleset.deck if c.kind is CardKind.GOLD and c.value == 3)
    assert action_label(ruleset, pay(gold.id), lang="en") == "Pay with Gold 3"
    assert action_label(ruleset, pick(gold.id), lang="en") == "Take Gold 3"
    dice = (3, 6, 3, 3, 1)
    assert action_label(ruleset, church([0, 2], 1), dice, lang="en") == "† Monks 3 → 4 and ✚ Holy Books 3 → 4"
    assert action_label(ruleset, church([1], -1), dice, lang="en") == "◆ Pigments 6 → 5"


def test_result_texts_explain_awards_and_ties() -> None:
    ruleset = load_ruleset("biblios")
    seen_letter = seen_tiebreak = False
    for state in finished_games("biblios", count=40):
        result = state.result()
        summary = result_summary(ruleset, result, NAMES, "en")
        assert any(NAMES[p] in summary for p in result.winners)
        for category in result.categories:
            for award in category.awards:
                reason = award_reason(ruleset, award, category.totals, category.best_letters, NAMES, "en")
                if award.winner is None:
                    assert reason == "nobody"
                elif award.by.value == "letter":
                    seen_letter = True
                    assert f"letter {category.best_letters[award.winner]}" in reason
                else:
                    assert f"total {category.totals[award.winner]}" in reason
        for placing in result.ranking:
            text = placing_text(ruleset, placing, NAMES, "en")
            assert text.startswith(f"{placing.place}. ")
            if placing.by is not None:
                seen_tiebreak = True
                assert tiebreak_text(ruleset, placing.by, "en").startswith("tie-break")
    assert seen_letter and seen_tiebreak


def test_describe_events_in_french_uses_french_terms() -> None:
    ruleset = load_ruleset("biblios")
    state = finished_games("biblios", count=1)[0]
    text = "\n".join(describe_events(ruleset, state.events_for(0), NAMES, "fr"))
    assert "Moines" in text or "Pigments" in text or "Or" in text
    assert "Monks" not in text


@pytest.mark.parametrize(
    ("lang", "zero", "one", "two"),
    [
        ("en", "0 Victory Points", "1 Victory Point", "2 Victory Points"),
        ("fr", "0 Point de Victoire", "1 Point de Victoire", "2 Points de Victoire"),
        ("es", "0 Puntos de Victoria", "1 Punto de Victoria", "2 Puntos de Victoria"),
    ],
)
def test_a_count_of_one_takes_the_terms_singular(lang: str, zero: str, one: str, two: str) -> None:
    """A plural term states its form for one (``one``); the language's CLDR rule says which counts take it."""
    ruleset = load_ruleset("biblios")
    result = next(iter(finished_games("biblios", count=1))).result()
    winner = result.winners[0]
    for points, expected in ((0, zero), (1, one), (2, two)):
        vp = tuple(points if p == winner else 0 for p in range(result.players))
        shared = replace(result, victory_points=vp, ranking=(replace(result.ranking[0], players=(winner,)),))
        assert expected in result_summary(ruleset, shared, NAMES, lang)
