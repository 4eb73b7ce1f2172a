"""The public collections (biblios_kit.tui.public_cards): what each reader may know of every hand."""

from __future__ import annotations

import random

import pytest
from conftest import cat, gold, position

from biblios_kit.engine.actions import BID, PASS
from biblios_kit.engine.events import ALL, Event, EventKind
from biblios_kit.engine.state import new_game
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import CardKind
from biblios_kit.tui.public_cards import Collection, collections, penalties, public_events

E = EventKind
NO_CHURCH = [False] * 100


def test_picks_and_auction_wins_are_remembered_in_order() -> None:
    events = [Event(E.PICKED, 1, 5, ()), Event(E.TOOK, 1, 9, ()), Event(E.PICKED, 0, 3, ())]
    assert collections(events, 2, NO_CHURCH) == (Collection((3,), 0), Collection((5, 9), 0))


def test_private_cards_are_never_counted() -> None:
    events = [Event(E.KEPT, 0, 4, ()), Event(E.TOOK_KEPT, 0, 4, ()), Event(E.DEALT, 1, 7, ())]
    assert collections(events, 2, NO_CHURCH) == (Collection((), 0), Collection((), 0))


def test_church_cards_are_resolved_not_kept() -> None:
    church = [False] * 100
    church[8] = True
    assert collections([Event(E.PICKED, 0, 8, ())], 1, church) == (Collection((), 0),)


def test_gold_paid_in_view_leaves_the_collection() -> None:
    events = [Event(E.PICKED, 0, 40, ()), Event(E.PICKED, 0, 41, ()), Event(E.PAID_GOLD, 0, 40, ())]
    assert collections(events, 1, NO_CHURCH) == (Collection((41,), 0),)


def test_a_card_paid_face_down_makes_the_rest_uncertain() -> None:
    events = [Event(E.PICKED, 0, 10, ()), Event(E.PAID_CARD, 0, None, ())]
    assert collections(events, 1, NO_CHURCH) == (Collection((10,), 1),)
    # the payer sees which card it was
    seen = [Event(E.PICKED, 0, 10, ()), Event(E.PAID_CARD, 0, 10, ())]
    assert collections(seen, 1, NO_CHURCH) == (Collection((), 0),)


def test_a_penalty_seen_moves_the_card_and_one_unseen_is_an_unseen_loss() -> None:
    seen = [Event(E.PICKED, 0, 10, ()), Event(E.PENALTY_TAKEN, 1, 10, (0,))]
    assert collections(seen, 2, NO_CHURCH) == (Collection((), 0), Collection((10,), 0))
    unseen = [Event(E.PICKED, 0, 10, ()), Event(E.PENALTY_TAKEN, 1, None, (0,))]
    assert collections(unseen, 2, NO_CHURCH) == (Collection((10,), 1), Collection((), 0))
    removed = [Event(E.PICKED, 0, 10, ()), Event(E.PENALTY_REMOVED, 1, None, (0,))]
    assert collections(removed, 2, NO_CHURCH) == (Collection((10,), 1), Collection((), 0))


def test_penalties_group_the_draws_that_follow() -> None:
    events = [
        Event(E.BID, 0, None, (3,)),
        Event(E.CANNOT_PAY, 0, None, (3,)),
        Event(E.PENALTY_TAKEN, 1, None, (0,)),
        Event(E.PENALTY_EMPTY, 0, None, ()),
        Event(E.BID, 1, None, (1,)),
    ]
    assert penalties(events) == [(1, events[1:4])]


def test_public_events_hide_every_card_not_shown_to_all() -> None:
    state = new_game(load_ruleset("biblios"), 3, seed=4)
    rng = random.Random(2)
    for _ in range(120):
        state.apply(state.random_action(rng))
    shown = public_events(state.log)
    assert len(shown) == len(state.log)
    for raw, event in zip(state.log, shown, strict=True):
        if raw[4] != ALL:
            assert event.card is None
    assert any(event.card is not None for event in shown)


@pytest.mark.parametrize("ruleset_id, options", [("biblios", ()), ("biblios", ("medieval-bluff",))])
def test_what_a_reader_knows_is_true_until_a_card_leaves_unseen(ruleset_id: str, options: tuple[str, ...]) -> None:
    """Random games: with no unseen loss, every remembered card is really in that hand; the public
    view never knows more than a player's own view."""
    ruleset = load_ruleset(ruleset_id, options)
    is_church = [card.kind is CardKind.CHURCH for card in ruleset.deck]
    checked = 0
    for seed in range(6):
        state = new_game(ruleset, 3, seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply(state.random_action(rng))
            if rng.random() > 0.1:
                continue
            everybody = collections(public_events(state.log), 3, is_church)
            for reader in range(3):
                known = collections(state.events_for(reader), 3, is_church)
                for seat, collection in enumerate(known):
                    if collection.unseen_losses == 0:
                        assert set(collection.cards) <= set(state.hands[seat])
                        checked += 1
                    assert everybody[seat].unseen_losses >= collection.unseen_losses
    assert checked > 100


def test_a_scripted_penalty_reads_as_the_player_saw_it() -> None:
    ruleset = load_ruleset("biblios")
    monks_a, monks_h = cat(ruleset, "monks", "A"), cat(ruleset, "monks", "H")
    state = position(ruleset, 2, hands=[[gold(ruleset, 1)], [monks_a]], pile=[monks_h, cat(ruleset, "holy-books", "A")])
    state.apply(BID + 3)  # seat 1 bids 3 Gold with no Gold at all
    state.apply(PASS)  # seat 0 passes: seat 1 wins and cannot pay; seat 0 takes a card from it
    is_church = [card.kind is CardKind.CHURCH for card in ruleset.deck]
    assert collections(state.events_for(0), 2, is_church)[0].cards == (monks_a,)  # seat 0 saw what it took
    everybody = collections(public_events(state.log), 2, is_church)
    assert everybody[1] == Collection((), 1) and everybody[0] == Collection((), 0)
    ((_index, group),) = penalties(state.events_for(0))
    assert [e.kind for e in group] == [E.CANNOT_PAY, E.PENALTY_TAKEN] and group[1].card == monks_a


def test_the_public_reading_of_a_player_s_events_is_what_everybody_knows() -> None:
    """``public=True`` on one reader's events gives the collections of the log's public projection
    (checked against the engine's own visibility, on random games of both penalties)."""
    for options in ((), ("medieval-bluff",)):
        ruleset = load_ruleset("biblios", options)
        is_church = [card.kind is CardKind.CHURCH for card in ruleset.deck]
        for seed in range(4):
            state = new_game(ruleset, 3, seed=seed)
            rng = random.Random(seed)
            while not state.is_terminal():
                state.apply(state.random_action(rng))
            everybody = collections(public_events(state.log), 3, is_church)
            for reader in range(3):
                assert collections(state.events_for(reader), 3, is_church, public=True) == everybody
