"""Scripted scenarios: the worked examples of RULES-SPEC and every rule the issue names."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import cat, check_invariants, church_card, die, gold, position, variant

from biblios_kit.engine import (
    DECLINE,
    KEEP,
    PASS,
    REFUSE,
    TO_AUCTION,
    TO_PUBLIC,
    EventKind,
    Phase,
    bid,
    church,
    format_action,
    new_game,
    pay,
    pick,
)
from biblios_kit.engine.compiled import compile_rules
from biblios_kit.engine.scoring import WonBy, score_hands
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import TieBreakBy

BIBLIOS = load_ruleset("biblios")
SNS = load_ruleset("scripts-and-scribes")


def kinds(state, since: int = 0) -> list[EventKind]:
    return [e.kind for e in state.events[since:]]


# --------------------------------------------------------------------- worked example 1


def test_example_gift_turn_three_players() -> None:
    """Worked example 1 (a small-category 1 stands in for the rulebook's "Monk 1": our Monks start at 2)."""
    r = BIBLIOS
    book1, gold1, monk2, gold2 = cat(r, "holy-books", "A"), gold(r, 1), cat(r, "monks", "A"), gold(r, 2)
    s = position(r, 3, draw=[book1, gold1, monk2, gold2], pile=None)
    assert (s.phase, s.current_player) == (Phase.GIFT, 0)
    assert s.observation(0).drawn == book1 and s.observation(1).drawn is None
    assert s.legal_actions() == [KEEP, TO_AUCTION, TO_PUBLIC]
    s.apply(TO_AUCTION)
    assert s.legal_actions() == [KEEP, TO_PUBLIC]
    s.apply(TO_PUBLIC)  # Gold 1
    s.apply(KEEP)  # Monk 2
    assert s.legal_actions() == [TO_PUBLIC]  # forced: the last card must go public
    s.apply(TO_PUBLIC)  # Gold 2
    assert s.hand(0) == (monk2,)
    assert (s.phase, s.current_player) == (Phase.PICK, 1)
    assert s.legal_actions() == [pick(gold1), pick(gold2)]
    s.apply(pick(gold2))
    assert (s.phase, s.current_player, s.legal_actions()) == (Phase.PICK, 2, [pick(gold1)])
    s.apply(pick(gold1))
    assert [len(h) for h in s.hands] == [1, 1, 1]
    assert s.hand(1) == (gold2,) and s.hand(2) == (gold1,)
    # The draw pile is empty: the auction phase starts with the one card of the pile.
    assert s.phase is Phase.BIDDING and s.auc_card == book1
    check_invariants(s)


def test_two_player_turn_has_no_public_card_left_over() -> None:
    r = BIBLIOS
    a, b, c = cat(r, "monks", "A"), cat(r, "monks", "B"), cat(r, "monks", "C")
    s = position(r, 2, draw=[a, b, c])
    s.apply(TO_PUBLIC)
    assert s.legal_actions() == [KEEP, TO_AUCTION]  # the only public slot is used
    s.apply(KEEP)
    assert s.legal_actions() == [TO_AUCTION]
    s.apply(TO_AUCTION)
    assert s.current_player == 1 and s.legal_actions() == [pick(a)]


# --------------------------------------------------------------------- worked example 2


def test_example_auction_overpay_lost() -> None:
    r = BIBLIOS
    tome2 = cat(r, "forbidden-tomes", "H")
    g2, g3 = gold(r, 2), gold(r, 3)
    s = position(r, 3, hands=[[gold(r, 1)], [g2, g3], [gold(r, 1, 1)]], pile=[tome2])
    assert s.current_player == 1  # bidding starts left of the active player
    s.apply(bid(1))
    assert s.current_player == 2
    s.apply(PASS)
    assert s.current_player == 0
    s.apply(bid(3))
    assert s.current_player == 1
    assert s.legal_actions()[:3] == [PASS, bid(4), bid(5)]
    s.apply(bid(4))
    s.apply(PASS)
    assert (s.phase, s.current_player) == (Phase.PAYMENT, 1)
    assert s.legal_actions() == [pay(g2), pay(g3)]
    s.apply(pay(g3))
    assert s.legal_actions() == [pay(g2)]
    s.apply(pay(g2))  # 5 paid for a bid of 4: the extra 1 is lost
    assert s.hand(1) == (tome2,)
    assert s.discard[-2:] == [g3, g2]
    assert s.is_terminal()
    check_invariants(s)


def test_payment_offers_only_cards_that_complete_a_minimal_payment() -> None:
    r = BIBLIOS
    card = cat(r, "monks", "A")
    g1, g3a, g3b = gold(r, 1), gold(r, 3), gold(r, 3, 1)
    s = position(r, 2, hands=[[], [g1, g3a, g3b]], pile=[card])
    s.apply(bid(3))  # player 1 bids 3
    s.apply(PASS)
    # Gold 1 cannot start a payment of 3: 1 + 3 would leave the 1 pointless.
    assert s.legal_actions() == [pay(g3a)]  # one of the two identical Gold 3s is offered
    s.apply(pay(g3a))
    assert s.hand(1) == tuple(sorted([g1, g3b, card]))


def test_overpay_forbidden_needs_exact_sum(tmp_path: Path) -> None:
    r = variant(tmp_path, "auction: {overpay: forbidden}\n")
    card = cat(r, "monks", "A")
    s = position(r, 2, hands=[[], [gold(r, 2), gold(r, 3)]], pile=[card, cat(r, "monks", "B")])
    s.apply(bid(4))
    s.apply(PASS)  # player 1 wins at 4 but 2 and 3 cannot make exactly 4
    assert EventKind.CANNOT_PAY in kinds(s)
    s2 = position(r, 2, hands=[[], [gold(r, 2), gold(r, 3)]], pile=[card])
    s2.apply(bid(5))
    s2.apply(PASS)
    assert s2.phase is Phase.PAYMENT and s2.legal_actions() == [pay(gold(r, 2)), pay(gold(r, 3))]


# --------------------------------------------------------------------- worked example 3 and church cards


def test_example_church_kept_during_gift_turn_resumes_turn() -> None:
    r = BIBLIOS
    lower_two = church_card(r, "lower-two")
    rest = [cat(r, "monks", x) for x in "ABCD"]
    s = position(r, 4, draw=[lower_two] + rest, dice={"holy-books": 2, "pigments": 3})
    s.apply(KEEP)
    assert (s.phase, s.current_player) == (Phase.CHURCH, 0)
    legal = s.legal_actions()
    move = church([die(r, "holy-books"), die(r, "pigments")], -1)
    assert DECLINE in legal and move in legal
    assert all(len(format_action(r, a).split()) == 3 for a in legal if a != DECLINE)  # always two dice
    assert format_action(r, move) == "church pigments-1 holy-books-1"
    s.apply(move)
    assert s.dice[die(r, "holy-books")] == 1 and s.dice[die(r, "pigments")] == 2
    assert (s.phase, s.current_player) == (Phase.GIFT, 0)  # the turn resumes
    assert s.legal_actions() == [TO_AUCTION, TO_PUBLIC]  # the keep slot was used by the church card
    assert lower_two in s.discard and lower_two not in s.hands[0]
    check_invariants(s)


def test_church_at_die_bounds() -> None:
    r = BIBLIOS
    s = position(r, 2, draw=[church_card(r, "raise-or-lower-one"), cat(r, "monks", "A"), cat(r, "monks", "B")],
                 dice={"monks": 6, "pigments": 1})  # fmt: skip
    s.apply(KEEP)
    legal = set(s.legal_actions())
    assert church([die(r, "monks")], 1) not in legal and church([die(r, "monks")], -1) in legal
    assert church([die(r, "pigments")], -1) not in legal and church([die(r, "pigments")], 1) in legal
    assert len(legal) == 1 + 2 * 5 - 2


def test_two_dice_card_with_one_movable_die_can_only_be_declined() -> None:
    r = BIBLIOS
    dice = dict.fromkeys(compile_rules(r).die_names, 6)
    dice["manuscripts"] = 4
    s = position(r, 2, draw=[church_card(r, "raise-two"), cat(r, "monks", "A"), cat(r, "monks", "B")], dice=dice)
    s.apply(KEEP)
    assert s.legal_actions() == [DECLINE]
    s.apply(DECLINE)
    assert s.dice[die(r, "manuscripts")] == 4
    assert EventKind.CHURCH_DECLINED in kinds(s)


def test_church_not_optional_must_be_used(tmp_path: Path) -> None:
    r = variant(tmp_path, "church: {optional: false}\n")
    s = position(r, 2, draw=[church_card(r, "raise-one"), cat(r, "monks", "A"), cat(r, "monks", "B")])
    s.apply(KEEP)
    assert DECLINE not in s.legal_actions() and len(s.legal_actions()) == 5


def test_church_won_at_auction_is_resolved_after_payment() -> None:
    r = BIBLIOS
    raise_one = church_card(r, "raise-one")
    s = position(r, 2, hands=[[gold(r, 2)], []], pile=[raise_one, cat(r, "monks", "A")])
    s.apply(PASS)  # player 1
    s.apply(bid(2))  # player 0 bids and wins (the only one left)
    assert (s.phase, s.current_player, s.legal_actions()) == (Phase.PAYMENT, 0, [pay(gold(r, 2))])
    s.apply(pay(gold(r, 2)))
    assert (s.phase, s.current_player) == (Phase.CHURCH, 0)
    s.apply(church([die(r, "monks")], 1))
    assert s.dice[die(r, "monks")] == 4
    assert raise_one not in s.hands[0] and raise_one in s.discard
    assert s.phase is Phase.BIDDING and s.active_player == 1  # next auction turn
    check_invariants(s)


def test_church_picked_from_public_space_is_resolved_by_picker() -> None:
    r = BIBLIOS
    lower = church_card(r, "lower-one")
    s = position(r, 3, draw=[lower, cat(r, "monks", "A"), cat(r, "monks", "B"), cat(r, "monks", "C")])
    for action in (TO_PUBLIC, KEEP, TO_AUCTION, TO_PUBLIC):
        s.apply(action)
    s.apply(pick(lower))
    assert (s.phase, s.current_player) == (Phase.CHURCH, 1)
    s.apply(church([die(r, "monks")], -1))
    assert (s.phase, s.current_player) == (Phase.PICK, 2)


def test_first_place_targets_exclude_second_place_dice(tmp_path: Path) -> None:
    body = "dice:\n  - {place: 1, start: 3, min: 1, max: 6}\n  - {place: 2, start: 2, min: 1, max: 6}\nchurch: {targets: first-place}\n"
    r = variant(tmp_path, body)
    s = position(r, 2, draw=[church_card(r, "raise-one"), cat(r, "monks", "A"), cat(r, "monks", "B")])
    s.apply(KEEP)
    names = {format_action(r, a) for a in s.legal_actions()}
    assert "church monks+1" in names and "church monks:2+1" not in names


# --------------------------------------------------------------------- auctions and penalties


def test_all_pass_discards_the_card() -> None:
    r = BIBLIOS
    card = cat(r, "monks", "A")
    s = position(r, 3, pile=[card, cat(r, "monks", "B")])
    for _ in range(3):
        s.apply(PASS)
    assert card in s.discard
    assert kinds(s)[-3:] == [EventKind.ALL_PASSED, EventKind.DISCARDED, EventKind.REVEALED]
    assert s.active_player == 1 and s.current_player == 2


def test_all_pass_active_takes(tmp_path: Path) -> None:
    r = variant(tmp_path, "auction: {all_pass: active-takes}\n")
    card = cat(r, "monks", "A")
    s = position(r, 2, pile=[card])
    s.apply(PASS)
    s.apply(PASS)
    assert s.hand(0) == (card,)


def test_penalty_smaller_hand_than_opponents() -> None:
    r = BIBLIOS
    only = cat(r, "pigments", "A")
    card = cat(r, "monks", "A")
    s = position(r, 4, hands=[[], [only], [], []], pile=[card])
    s.apply(bid(5))  # player 1 bids without the Gold to pay
    for _ in range(3):
        s.apply(PASS)
    # Player 2 (left of the penalized player) takes the only card; the others get nothing.
    assert s.hand(2) == (only,) and s.hand(1) == ()
    assert [e.kind for e in s.events if e.kind in (EventKind.PENALTY_TAKEN, EventKind.PENALTY_EMPTY)] == [
        EventKind.PENALTY_TAKEN,
        EventKind.PENALTY_EMPTY,
    ]
    taken = next(e for e in s.events if e.kind is EventKind.PENALTY_TAKEN)
    assert taken.player == 2 and taken.args == (1,)
    # Seen only by the two players involved.
    for p, seen in enumerate([False, True, True, False]):
        event = next(e for e in s.events_for(p) if e.kind is EventKind.PENALTY_TAKEN)
        assert (event.card == only) is seen and (event.card is None) is (not seen)
    # Re-auction without the penalized player, bidding again from the left of the active player.
    assert s.phase is Phase.BIDDING and s.current_player == 2 and 1 in s.observation(0).auction.excluded
    check_invariants(s)


def test_standard_penalty_each_opponent_takes_one_card() -> None:
    r = BIBLIOS
    hand = [cat(r, "pigments", x) for x in "ABCDE"]
    s = position(r, 4, hands=[[], hand, [], []], pile=[cat(r, "monks", "A")])
    s.apply(bid(9))
    for _ in range(3):
        s.apply(PASS)
    assert len(s.hands[1]) == 2 and [len(s.hands[p]) for p in (0, 2, 3)] == [1, 1, 1]
    check_invariants(s)


def test_medieval_bluff_removes_one_card() -> None:
    r = load_ruleset("biblios", ["medieval-bluff"])
    hand = [cat(r, "pigments", x) for x in "ABC"]
    s = position(r, 3, hands=[[], hand, []], pile=[cat(r, "monks", "A")])
    s.apply(bid(4))
    s.apply(PASS)
    s.apply(PASS)
    assert len(s.hands[1]) == 2 and s.hands[0] == [] and s.hands[2] == []
    removed = next(e for e in s.events if e.kind is EventKind.PENALTY_REMOVED)
    assert removed.player == 2 and removed.args == (1,) and removed.card in s.buried
    assert next(e for e in s.events_for(0) if e.kind is EventKind.PENALTY_REMOVED).card is None
    check_invariants(s)


def test_refuse_to_pay_option() -> None:
    plain = BIBLIOS
    s = position(plain, 2, hands=[[], [gold(plain, 3)]], pile=[cat(plain, "monks", "A")])
    s.apply(bid(2))
    s.apply(PASS)
    assert REFUSE not in s.legal_actions()
    r = load_ruleset("biblios", ["refuse-to-pay"])
    card = cat(r, "monks", "A")
    s = position(r, 3, hands=[[gold(r, 1)], [gold(r, 3), cat(r, "pigments", "A")], []], pile=[card])
    s.apply(bid(2))
    s.apply(PASS)
    s.apply(PASS)
    assert s.legal_actions() == [REFUSE, pay(gold(r, 3))]
    s.apply(REFUSE)
    assert EventKind.REFUSED in kinds(s)
    assert len(s.hands[1]) == 0 and len(s.hands[2]) == 1 and len(s.hands[0]) == 2
    # Re-auction without player 1; player 2 then player 0 bid.
    assert s.current_player == 2
    check_invariants(s)


def test_reauction_where_all_remaining_pass_discards() -> None:
    r = BIBLIOS
    card = cat(r, "monks", "A")
    s = position(r, 3, hands=[[], [cat(r, "pigments", "A")], []], pile=[card])
    s.apply(bid(10))
    s.apply(PASS)
    s.apply(PASS)  # player 1 wins, cannot pay, is penalized
    assert s.current_player == 2
    s.apply(PASS)
    s.apply(PASS)
    assert card in s.discard and s.is_terminal()
    assert kinds(s)[-3:] == [EventKind.ALL_PASSED, EventKind.DISCARDED, EventKind.GAME_OVER]


def test_nobody_left_to_bid_discards() -> None:
    r = BIBLIOS
    card = cat(r, "monks", "A")
    s = position(r, 2, pile=[card])
    s.apply(bid(3))
    s.apply(PASS)  # player 1 wins with nothing: penalized; player 0 alone bids
    s.apply(bid(1))  # and cannot pay either
    assert card in s.discard and s.is_terminal()
    assert EventKind.NO_BIDDERS in kinds(s)


def test_gold_card_auction_is_paid_in_cards_face_down() -> None:
    r = BIBLIOS
    g = gold(r, 3)
    hand = [cat(r, "monks", "A"), cat(r, "monks", "B"), gold(r, 1)]
    s = position(r, 2, hands=[[], hand], pile=[g])
    s.apply(bid(2))
    s.apply(PASS)
    assert s.observation(1).auction.currency == "cards"
    assert s.legal_actions() == [pay(c) for c in sorted(hand)]
    s.apply(pay(hand[0]))
    assert s.observation(0).payment.paid_count == 1 and s.observation(0).payment.paid_gold == ()
    s.apply(pay(hand[2]))
    assert s.hand(1) == (hand[1], g)
    assert s.observation(0).cards_paid == (0, 2)
    hidden = [e for e in s.events_for(0) if e.kind is EventKind.PAID_CARD]
    assert len(hidden) == 2 and all(e.card is None for e in hidden)


def test_bidding_start_active_and_opening_bid(tmp_path: Path) -> None:
    r = variant(tmp_path, "auction: {bidding_starts: active, opening_bid: 3, ceiling: {gold: 5, cards: 4}}\n")
    s = position(r, 3, pile=[cat(r, "monks", "A")], active=1)
    assert s.current_player == 1
    assert s.legal_actions() == [PASS, bid(3), bid(4), bid(5)]
    s.apply(bid(5))
    assert s.legal_actions() == [PASS]


def test_penalized_player_may_return_once_when_not_excluded(tmp_path: Path) -> None:
    r = variant(tmp_path, "penalty: {kind: none, exclude_from_reauction: false}\n")
    s = position(r, 2, pile=[cat(r, "monks", "A")])
    s.apply(bid(1))
    s.apply(PASS)  # player 1 wins, cannot pay: nothing happens, may bid again
    assert s.current_player == 1 and s.phase is Phase.BIDDING
    s.apply(bid(1))
    s.apply(PASS)  # penalized twice: now out
    assert s.current_player == 0
    s.apply(bid(1))  # player 0 alone wins and cannot pay: penalized once, may still bid
    assert s.current_player == 0 and s.legal_actions()[0] == PASS
    s.apply(PASS)
    assert s.is_terminal() and kinds(s)[-3:] == [EventKind.ALL_PASSED, EventKind.DISCARDED, EventKind.GAME_OVER]


# --------------------------------------------------------------------- setup variations


def test_starting_hands_and_short_draw(tmp_path: Path) -> None:
    r = variant(tmp_path, "setup:\n  3: {starting_hand: 2, gift_cards: 5, remove_random: 6}\n")
    s = new_game(r, 3, seed=11)
    dealt = [e for e in s.events if e.kind is EventKind.DEALT]
    assert sorted(e.player for e in dealt) == [0, 0, 1, 1, 2, 2]
    assert all(e.card is None for e in s.events_for(0) if e.kind is EventKind.DEALT and e.player != 0)
    # 87 - 3 - 6 - 6 = 72 cards: 14 turns of 5 and a short last turn of 2 (keep + auction pile).
    while not s.is_terminal():
        s.apply(s.legal_actions()[-1])
        check_invariants(s)
    gift_turns = [e.args[0] for e in s.events if e.kind is EventKind.GIFT_TURN]
    assert gift_turns == [5] * 14 + [2]


def test_short_draw_discard(tmp_path: Path) -> None:
    r = variant(tmp_path, "setup:\n  3: {gift_cards: 5, remove_random: 10, short_draw: discard}\n")
    s = new_game(r, 3, seed=3)
    while not s.is_terminal():
        s.apply(s.legal_actions()[0])
    gift_turns = [e.args[0] for e in s.events if e.kind is EventKind.GIFT_TURN]
    assert gift_turns == [5] * 14
    short = [e for e in s.events if e.kind is EventKind.SHORT_DRAW_DISCARDED]
    assert short and short[0].args == (4,)


def test_extra_gift_cards_leave_public_cards_discarded(tmp_path: Path) -> None:
    r = variant(tmp_path, "setup:\n  2: {gift_cards: 4, remove_random: 25}\n")
    s = new_game(r, 2, seed=5)
    for action in (KEEP, TO_AUCTION, TO_PUBLIC, TO_PUBLIC):
        s.apply(action)
    s.apply(s.legal_actions()[0])  # player 1 picks one of two
    assert any(e.kind is EventKind.PUBLIC_DISCARDED for e in s.events)
    check_invariants(s)


# --------------------------------------------------------------------- scoring (worked example 4 and tie-breaks)


def _hands(r, spec: list[list[tuple[str, str]]], golds: list[list[int]]) -> list[list[int]]:
    out = []
    for cards, gs in zip(spec, golds):
        hand = [cat(r, c, letter) for c, letter in cards]
        hand += [gold(r, v, i) for i, v in enumerate(gs)]
        out.append(hand)
    return out


def _dice(r, faces: dict[str, int]) -> list[int]:
    values = list(compile_rules(r).die_start)
    for name, face in faces.items():
        values[die(r, name)] = face
    return values


def test_example_scoring_letter_and_gold() -> None:
    r = BIBLIOS
    a = [("monks", "B"), ("monks", "E"), ("monks", "H"), ("pigments", "A")]
    b = [
        ("monks", "C"),
        ("monks", "F"),
        ("monks", "I"),
        ("holy-books", "A"),
        ("manuscripts", "A"),
        ("forbidden-tomes", "A"),
    ]
    hands = _hands(r, [a, b], [[1], [3]])
    dice = _dice(r, {"monks": 5, "pigments": 3, "holy-books": 2, "manuscripts": 2, "forbidden-tomes": 4})
    result = score_hands(compile_rules(r), hands, dice)
    monks = result.categories[0]
    assert monks.totals == (9, 9) and monks.best_letters == ("B", "C")
    assert (monks.awards[0].winner, monks.awards[0].by, monks.awards[0].value) == (0, WonBy.LETTER, 5)
    assert result.categories[1].awards[0].by is WonBy.TOTAL
    assert result.victory_points == (8, 8)
    assert result.winners == (1,) and not result.shared
    assert result.ranking[0].by.by is TieBreakBy.GOLD and result.ranking[1].by.by is TieBreakBy.GOLD


def test_category_nobody_holds_is_won_by_nobody() -> None:
    r = BIBLIOS
    result = score_hands(
        compile_rules(r), _hands(r, [[("monks", "A")], []], [[], []]), list(compile_rules(r).die_start)
    )
    assert result.categories[1].awards[0].winner is None and result.categories[1].awards[0].by is WonBy.NOBODY


@pytest.mark.parametrize("ruleset", [BIBLIOS, SNS], ids=["biblios", "sns"])
def test_refined_chain_category_total_then_letter_then_shared(ruleset) -> None:
    r = ruleset
    first, _second = r.categories[0].id, r.categories[1].id
    small = r.categories[2].id
    # Same victory points (each wins one small category worth 3), same Gold; the first
    # category's totals differ below the winner: decided by the first category's total.
    hands = _hands(
        r,
        [
            [(small, "A"), (first, "A"), (first, "E")],
            [(r.categories[3].id, "A"), (first, "B")],
            [(first, "H"), (first, "I")],
        ],
        [[1], [1], []],
    )
    dice = _dice(r, {first: 1, r.categories[3].id: 3, small: 2})
    result = score_hands(compile_rules(r), hands, dice)
    # p2 wins first (8) -> 1 VP; p0 wins small -> 2; p1 wins the 4th category -> 3.
    assert result.victory_points == (2, 3, 1)
    # Now make p0 and p1 tie on VP and Gold; p0 has more of the first category.
    dice = _dice(r, {first: 1, r.categories[3].id: 2, small: 2})
    result = score_hands(compile_rules(r), hands, dice)
    assert result.victory_points == (2, 2, 1)
    top = result.ranking[0]
    assert top.players == (0,) and top.by.by is TieBreakBy.CATEGORY_TOTAL and top.by.category == first
    # Identical on everything that the chain looks at: a shared first place.
    twin = _hands(r, [[(small, "A")], [(small, "B")]], [[2], [2]])
    sym = score_hands(compile_rules(r), [twin[0][1:], twin[1][1:]], list(compile_rules(r).die_start))
    assert sym.shared and sym.winners == (0, 1) and sym.win_share(0) == 0.5
    assert [p.place for p in sym.ranking] == [1]


def test_letter_decides_after_equal_totals_in_chain() -> None:
    r = BIBLIOS
    hands = _hands(
        r, [[("monks", "B"), ("pigments", "A")], [("monks", "A"), ("holy-books", "A"), ("holy-books", "B")]], [[], []]
    )
    dice = _dice(r, {"monks": 1, "pigments": 2, "holy-books": 3})
    result = score_hands(compile_rules(r), hands, dice)
    # Monks tie 2-2, letter A beats B: p1 wins Monks (1) + Holy Books (3) = 4; p0 Pigments 2.
    assert result.victory_points == (2, 4)
    dice = _dice(r, {"monks": 1, "pigments": 3, "holy-books": 2})
    result = score_hands(compile_rules(r), hands, dice)
    assert result.victory_points == (3, 3)
    assert result.winners == (1,) and result.ranking[0].by.by is TieBreakBy.CATEGORY_LETTER


def test_literal_chain_category_won(tmp_path: Path) -> None:
    r = variant(tmp_path, "scoring:\n  final_tiebreak:\n    - {by: gold}\n    - {by: category-won, category: monks}\n")
    hands = _hands(r, [[("monks", "A")], [("pigments", "A")]], [[], []])
    result = score_hands(compile_rules(r), hands, list(compile_rules(r).die_start))
    assert result.victory_points == (3, 3)
    assert result.winners == (0,) and result.ranking[0].by.by is TieBreakBy.CATEGORY_WON


def test_category_tie_nobody(tmp_path: Path) -> None:
    r = variant(tmp_path, "scoring: {category_tie: nobody}\n")
    hands = _hands(r, [[("monks", "A"), ("monks", "E")], [("monks", "B"), ("monks", "F")]], [[], []])
    result = score_hands(compile_rules(r), hands, list(compile_rules(r).die_start))
    assert result.categories[0].awards[0].winner is None and result.categories[0].awards[0].by is WonBy.NOBODY


# --------------------------------------------------------------------- shipped variants


def test_variant_second_place_dice() -> None:
    r = load_ruleset("second-place-dice")
    assert compile_rules(r).n_dice == 10
    hands = _hands(r, [[("monks", "H")], [("monks", "A")], []], [[], [], []])
    result = score_hands(compile_rules(r), hands, _dice(r, {"monks": 5, "monks:2": 4}))
    awards = result.categories[0].awards
    assert [(a.place, a.winner, a.value) for a in awards] == [(1, 0, 5), (2, 1, 4)]
    assert result.categories[1].awards[1].winner is None
    s = new_game(r, 3, seed=2)
    import random

    s.playout(random.Random(2))
    check_invariants(s)
    names = {format_action(r, a) for a in [church([die(r, "monks:2")], 1)]}
    assert names == {"church monks:2+1"}


@pytest.mark.parametrize("players", [5, 6])
def test_variant_five_six_players(players: int) -> None:
    import random

    r = load_ruleset("five-six-players")
    s = new_game(r, players, seed=players)
    assert s.legal_actions() == [KEEP, TO_AUCTION, TO_PUBLIC]
    s.playout(random.Random(1))
    check_invariants(s)
    gift = [e.args[0] for e in s.events if e.kind is EventKind.GIFT_TURN]
    assert set(gift) == {players + 1}
    assert len(s.result().victory_points) == players
