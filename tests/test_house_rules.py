"""Three house rules as data: named starting cards, church cards naming the place of each die,
and a bid ceiling of what the bidder can pay (issue #16, item 1).

Each is checked in the engine (legal actions, apply, the unchecked step and playout paths),
in what players may know (observations, resampling, the bots' determinizations), in the
ruleset checks, in the rulebook and `rules diff` in three languages, and with bots playing
whole games. The shipped variants `five-players-italian` and `bid-within-means` use them;
``tests/conftest.py`` lists both in ``SHIPPED_CHOICES``, so the pure-versus-compiled
fingerprint (``tests/kernel_fingerprint.py``) and the Hypothesis properties cover them too.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from conftest import check_invariants, variant
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biblios_kit.bots.registry import make_bot
from biblios_kit.engine import EventKind, GameState, Phase, new_game
from biblios_kit.engine.actions import BID, DECLINE, PASS, church_parts
from biblios_kit.engine.compiled import CUR_GOLD, compile_rules
from biblios_kit.engine.worlds import Worlds
from biblios_kit.errors import EngineError, RulesetError
from biblios_kit.rulebook import render_rulebook
from biblios_kit.rulebook.diff import diff_rulesets
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import CardKind, DieTarget, Removal

E = EventKind
ITALIAN = "five-players-italian"
MEANS = "bid-within-means"


def gold_values(state: GameState, cards: list[int] | tuple[int, ...]) -> list[int]:
    return sorted(state.ruleset.deck[c].value for c in cards if state.ruleset.deck[c].kind.value == "gold")


def play_to(state: GameState, rng: random.Random, phase: Phase, limit: int = 5_000) -> bool:
    """Random actions until the state reaches ``phase``; False if the game ended first."""
    for _ in range(limit):
        if state.is_terminal():
            return False
        if state.phase is phase:
            return True
        state.apply(state.random_action(rng))
    return False


# ---------------------------------------------------------------- (a) named starting cards


def test_italian_rule_deals_gold_1_1_2_2_3_to_every_player_openly() -> None:
    ruleset = load_ruleset(ITALIAN)
    assert ruleset.player_counts == (5,)
    for seed in range(5):
        state = new_game(ruleset, 5, seed)
        check_invariants(state)
        assert [gold_values(state, h) for h in state.hands] == [[1, 1, 2, 2, 3]] * 5
        assert state.gold == [9] * 5
        assert [len(g) for g in state.removed] == [2]  # no named removal, then 2 at random
        assert len(state.draw) + 1 == 60  # the first card of the first turn is drawn: 10 turns of 6
        dealt = [e for e in state.events if e.kind is E.DEALT]
        assert len(dealt) == 25
        for p in range(5):
            seen = [e.card for e in state.events_for(p) if e.kind is E.DEALT]
            assert None not in seen, "named starting cards are dealt openly"
            acquired = Counter(q for q, _c in state.observation(p).acquired)
            assert acquired == dict.fromkeys(range(5), 5)


def test_named_cards_come_first_then_random_ones_stay_hidden(tmp_path) -> None:
    ruleset = variant(
        tmp_path,
        """
        setup:
          3:
            starting_cards:
              - {kind: gold, value: 1, count: 1}
              - {kind: gold, value: 2, count: 1}
              - {kind: category, category: monks, value: 2, count: 1}
            starting_hand: 2
        """,
    )
    for seed in range(6):
        state = new_game(ruleset, 3, seed)
        check_invariants(state)
        dealt = [e for e in state.events if e.kind is E.DEALT]
        for p in range(3):
            mine = [e.card for e in dealt if e.player == p]
            assert len(mine) == 5  # a church card dealt at random is resolved instead of held
            assert len(state.hands[p]) == 5 - sum(state.rules.is_church[c] for c in mine)
            named, random_part = mine[:3], mine[3:]
            deck = state.ruleset.deck
            assert [deck[c].value for c in named[:2]] == [1, 2] and deck[named[0]].kind.value == "gold"
            assert deck[named[2]].category == "monks" and deck[named[2]].value == 2
            assert len(random_part) == 2
            for q in range(3):
                view = {e.card for e in state.events_for(q) if e.kind is E.DEALT and e.player == p}
                assert set(named) <= view
                assert (set(random_part) <= view) == (p == q)
        # 87 cards: 3 named Gold and 12 random cards removed for 3 players, 5 per hand, the rest to draw
        assert sum(len(g) for g in state.removed) == 15
        assert len(state.draw) + (state.drawn >= 0) == 87 - 15 - 15


def test_without_named_cards_the_setup_draws_as_before() -> None:
    # The same seed gives the same deal as a ruleset that never had the field: the named
    # deal draws nothing from the RNG when empty (golden transcripts check whole games).
    ruleset = load_ruleset("biblios")
    assert all(not setup.starting_cards for setup in ruleset.setups.values())
    assert compile_rules(ruleset).setups[3].deal == ()


def test_resample_and_determinizations_keep_named_cards_in_their_owners_hands() -> None:
    ruleset = load_ruleset(ITALIAN)
    rules = compile_rules(ruleset)
    for seed in range(3):
        state = new_game(ruleset, 5, seed)
        named = [sorted(h) for h in state.hands]
        rng = random.Random(seed)
        checked = 0
        while state.phase is not Phase.BIDDING and not state.is_terminal():
            if state.phase is Phase.PICK:  # nothing has left a hand yet in the gift phase
                p = state.current_player
                assert p is not None
                for k in range(3):
                    world = state.resample(p, random.Random(k))
                    check_invariants(world)
                    assert world.observation(p) == state.observation(p)
                    for q in range(5):
                        assert set(named[q]) <= set(world.hands[q])
                    dealt = Worlds(rules, state.observation(p)).sample(random.Random(k))
                    zones = Counter(c for cards in dealt.zones().values() for c in cards)
                    assert sorted(zones) == list(range(len(ruleset.deck))) and set(zones.values()) == {1}
                    for q in range(5):
                        assert set(named[q]) <= set(dealt.hands[q])
                    checked += 1
            state.apply(state.random_action(rng))
        assert checked


def test_the_engine_refuses_a_deal_the_deck_cannot_make() -> None:
    # The checks refuse such a ruleset; the engine still says what is wrong if handed one.
    ruleset = load_ruleset("biblios")
    greedy = replace(ruleset.setups[4], starting_cards=(Removal(CardKind.GOLD, 3, value=3),))
    broken = replace(ruleset, setups={**ruleset.setups, 4: greedy}, content_hash="test-greedy-deal")
    with pytest.raises(EngineError) as error:
        new_game(broken, 4, 1)
    assert error.value.code == "setup-short-deal"
    assert error.value.fields["count"] == 12 and error.value.fields["available"] == 11


def test_starting_cards_are_validated(tmp_path) -> None:
    with pytest.raises(RulesetError) as error:
        variant(tmp_path, "setup: {4: {starting_cards: [{kind: gold, value: 3, count: 3}]}}")
    paths = [problem.path for problem in error.value.problems]
    assert "setup.4.starting_cards[0].count" in paths  # 12 Gold 3 needed, 11 exist
    with pytest.raises(RulesetError) as error:
        variant(tmp_path, "setup: {4: {starting_cards: [{kind: church, count: 1}]}}")
    assert any("starting_cards[0].kind" in problem.path for problem in error.value.problems)
    with pytest.raises(RulesetError) as error:
        variant(tmp_path, "setup: {4: {starting_cards: [{kind: gold, category: monks, count: 1}]}}")
    assert any("starting_cards[0].category" in problem.path for problem in error.value.problems)


# ---------------------------------------------------------------- (b) church targets per place


def _church_position(ruleset, effect: str, seed: int = 0) -> GameState:
    """A game whose first player holds a church card of ``effect`` waiting to be used."""
    for s in range(seed, seed + 400):
        state = new_game(ruleset, ruleset.player_counts[0], s)
        rng = random.Random(s)
        while play_to(state, rng, Phase.CHURCH):
            card = state.church_q[0][1]
            if state.ruleset.deck[card].effect.id == effect:
                return state
            state.apply(state.random_action(rng))
    raise AssertionError(f"no {effect} card acquired")


def _moves(state: GameState) -> list[tuple[list[int], int]]:
    return [church_parts(a) for a in state.legal_actions() if a != DECLINE]


def test_a_one_die_card_moves_a_first_place_die_and_optionally_a_second_place_die() -> None:
    ruleset = load_ruleset(ITALIAN)
    state = _church_position(ruleset, "raise-one")
    rules = state.rules
    state.dice = [3 if rules.die_place[d] == 1 else 2 for d in range(rules.n_dice)]  # every die can rise
    state.cache = None
    moves = _moves(state)
    assert DECLINE in state.legal_actions()  # church.optional, as in Biblios
    places = [sorted(rules.die_place[d] for d in dice) for dice, _sign in moves]
    assert Counter(map(tuple, places)) == {(1,): 5, (1, 2): 25}  # any pair: not bound to the same category
    assert all(sign == 1 for _dice, sign in moves)
    # apply a pair in two different categories
    action = next(
        a
        for a in state.legal_actions()
        if a != DECLINE and len(church_parts(a)[0]) == 2 and len({rules.die_cat[d] for d in church_parts(a)[0]}) == 2
    )
    dice, _ = church_parts(action)
    before = list(state.dice)
    state.apply(action)
    assert [state.dice[d] - before[d] for d in range(rules.n_dice)] == [
        1 if d in dice else 0 for d in range(len(before))
    ]


def test_a_required_die_that_cannot_move_leaves_only_declining() -> None:
    ruleset = load_ruleset(ITALIAN)
    state = _church_position(ruleset, "raise-one")
    rules = state.rules
    state.dice = [6 if rules.die_place[d] == 1 else 2 for d in range(rules.n_dice)]
    state.cache = None
    assert state.legal_actions() == [DECLINE]


def test_two_dice_cards_move_two_first_place_dice_and_up_to_two_second_place_dice() -> None:
    ruleset = load_ruleset(ITALIAN)
    state = _church_position(ruleset, "lower-two")
    rules = state.rules
    state.dice = [3] * rules.n_dice
    state.cache = None
    places = Counter(tuple(sorted(rules.die_place[d] for d in dice)) for dice, _ in _moves(state))
    assert places == {(1, 1): 10, (1, 1, 2): 50, (1, 1, 2, 2): 100}


def test_each_die_optional_and_any_place_targets(tmp_path) -> None:
    ruleset = variant(
        tmp_path,
        """
        dice:
          - {place: 1, start: 3, min: 1, max: 6}
          - {place: 2, start: 3, min: 1, max: 6}
        church:
          targets: first-place
          cards:
            raise-one: {dice: 2, targets: [{place: 1, optional: true}, {place: 2, optional: true}]}
            lower-one: {dice: 1, targets: [{place: any}]}
        """,
    )
    effect = next(card.effect for card in ruleset.deck if card.effect and card.effect.id == "raise-one")
    assert effect.targets == (DieTarget(1, True), DieTarget(2, True))
    state = _church_position(ruleset, "raise-one")
    rules = state.rules
    state.dice = [3] * rules.n_dice
    state.cache = None
    places = Counter(tuple(sorted(rules.die_place[d] for d in dice)) for dice, _ in _moves(state))
    assert places == {(1,): 5, (2,): 5, (1, 2): 25}
    state = _church_position(ruleset, "lower-one")
    state.dice = [3] * rules.n_dice
    state.cache = None
    assert len(_moves(state)) == 10  # any one of the ten dice: its own targets replace church.targets
    # the cards without targets keep the ruleset-wide rule: two different first-place dice
    state = _church_position(ruleset, "raise-two")
    state.dice = [3] * rules.n_dice
    state.cache = None
    moves = _moves(state)
    assert len(moves) == 10 and all(rules.die_place[d] == 1 for dice, _ in moves for d in dice)


def test_church_targets_are_validated(tmp_path) -> None:
    with pytest.raises(RulesetError) as error:
        variant(tmp_path, "church: {cards: {raise-one: {dice: 2, targets: [{place: 1}]}}}")
    assert any(p.path == "church.cards.raise-one.targets" for p in error.value.problems)
    with pytest.raises(RulesetError) as error:
        variant(tmp_path, "church: {cards: {raise-one: {dice: 2, targets: [{place: 1}, {place: 2}]}}}")
    assert any(p.path == "church.cards.raise-one.targets[1].place" for p in error.value.problems)
    with pytest.raises(RulesetError) as error:
        variant(tmp_path, "church: {cards: {raise-one: {dice: 1, targets: [{place: 0}]}}}")
    assert [p.path for p in error.value.problems] == ["church.cards.raise-one.targets[0].place"]


# ---------------------------------------------------------------- (c) bid ceiling: what the bidder can pay


def test_each_bidder_may_bid_only_what_they_can_pay() -> None:
    ruleset = load_ruleset(MEANS)
    seen = {CUR_GOLD: 0, 1: 0}
    for seed in range(20):
        state = new_game(ruleset, 3 + seed % 2, seed)
        rng = random.Random(seed)
        while play_to(state, rng, Phase.BIDDING):
            p = state.current_player
            assert p is not None
            lo, hi = state.bid_range()
            means = state.gold[p] if state.auc_cur == CUR_GOLD else len(state.hands[p])
            assert hi == means
            legal = state.legal_actions()
            assert legal == [PASS, *range(BID + lo, BID + hi + 1)]
            assert not state.is_legal(BID + means + 1)
            for q in range(state.players):  # each view shows its own ceiling, never another's
                assert state.observation(q).auction.max_bid == (
                    state.gold[q] if state.auc_cur == CUR_GOLD else len(state.hands[q])
                )
            seen[state.auc_cur] += 1
            state.apply(state.random_action(rng))
    assert seen[CUR_GOLD] > 50 and seen[1] > 20


def test_no_penalty_for_over_bidding_when_bids_stay_within_means() -> None:
    for options in ((), ("medieval-bluff",)):
        ruleset = load_ruleset(MEANS, list(options))
        for seed in range(30):
            state = new_game(ruleset, 2 + seed % 3, seed)
            state.playout(random.Random(seed))
            kinds = {e.kind for e in state.events}
            assert E.CANNOT_PAY not in kinds and E.PENALTY_TAKEN not in kinds and E.PENALTY_REMOVED not in kinds
    # without the house rule the same random players over-bid and are penalized
    biblios = load_ruleset("biblios")
    penalties = 0
    for seed in range(30):
        state = new_game(biblios, 2 + seed % 3, seed)
        state.playout(random.Random(seed))
        penalties += sum(e.kind is E.CANNOT_PAY for e in state.events)
    assert penalties > 0


def test_hand_ceiling_with_exact_payment_still_allows_unpayable_amounts(tmp_path) -> None:
    ruleset = variant(tmp_path, "auction: {ceiling: {gold: hand, cards: 20}, overpay: forbidden}")
    assert ruleset.auction.gold_ceiling_hand and not ruleset.auction.cards_ceiling_hand
    assert ruleset.auction.gold_ceiling == 66  # the bound used for tables: all the Gold of the deck
    unpayable = 0
    for seed in range(10):
        state = new_game(ruleset, 3, seed)
        rng = random.Random(seed)
        while play_to(state, rng, Phase.BIDDING):
            p = state.current_player
            assert p is not None
            assert state.bid_range()[1] == (state.gold[p] if state.auc_cur == CUR_GOLD else 20)
            gold, in_gold = list(state.gold), state.auc_cur == CUR_GOLD
            logged = len(state.log)
            state.apply(state.random_action(rng))
            for event in state.events[logged:]:
                if event.kind is E.CANNOT_PAY and in_gold:
                    assert event.args[0] <= gold[event.player]  # within the ceiling, yet no exact payment
                    unpayable += 1
    assert unpayable > 0


# ---------------------------------------------------------------- all three: one kernel, every path


@pytest.mark.parametrize("name", [ITALIAN, MEANS])
def test_playout_step_and_apply_play_the_same_games(name: str) -> None:
    ruleset = load_ruleset(name)
    for seed in range(4):
        players = ruleset.player_counts[seed % len(ruleset.player_counts)]
        fast = new_game(ruleset, players, seed)
        fast.playout(random.Random(seed))
        quiet = new_game(ruleset, players, seed, events=False)
        quiet.random_playout([random.Random(seed).random] * players)
        checked = new_game(ruleset, players, seed)
        rng = random.Random(seed)
        while not checked.is_terminal():
            checked.apply(checked.random_action(rng))
        stepped = new_game(ruleset, players, seed)
        for action in checked.actions:
            assert action in stepped.legal()
            stepped.step(action)
        assert fast.actions == quiet.actions == checked.actions == stepped.actions
        assert fast.log == checked.log == stepped.log
        assert fast.result().victory_points == checked.result().victory_points
        check_invariants(fast)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([ITALIAN, MEANS]), st.integers(0, 2**32), st.integers(0, 2**32))
def test_random_games_with_the_house_rules_keep_every_invariant(name: str, seed: int, play: int) -> None:
    ruleset = load_ruleset(name)
    state = new_game(ruleset, ruleset.player_counts[seed % len(ruleset.player_counts)], seed)
    rng = random.Random(play)
    ceiling_hand = ruleset.auction.gold_ceiling_hand
    while not state.is_terminal():
        check_invariants(state)
        legal = state.legal_actions()
        assert legal and len(set(legal)) == len(legal) and legal == sorted(legal)
        if state.phase is Phase.CHURCH and ruleset.id == ITALIAN:
            for action in legal:
                if action != DECLINE:
                    places = Counter(state.rules.die_place[d] for d in church_parts(action)[0])
                    assert places[1] == state.rules.church_ndice[state.church_q[0][1]] // 2
        if state.phase is Phase.BIDDING and ceiling_hand:
            p = state.current_player
            assert state.bid_range()[1] == (state.gold[p] if state.auc_cur == CUR_GOLD else len(state.hands[p]))
        state.apply(legal[int(rng.random() * len(legal))])
    check_invariants(state)
    assert state.result().winners


@pytest.mark.parametrize("name", [ITALIAN, MEANS])
@pytest.mark.parametrize("bot", ["random", "easy", "medium", "hard:iterations=40"])
def test_bots_play_whole_games(name: str, bot: str) -> None:
    ruleset = load_ruleset(name)
    players = ruleset.player_counts[-1] if name == ITALIAN else 3
    bots = [make_bot(bot if seat == 0 else "easy", seat, ruleset) for seat in range(players)]
    state = new_game(ruleset, players, 7)
    while not state.is_terminal():
        seat = state.current_player
        assert seat is not None
        action = bots[seat].choose(state.observation(seat))
        assert state.is_legal(action)
        state.apply(action)
    assert len(state.result().victory_points) == players
    if name == MEANS:
        assert not any(e.kind is E.CANNOT_PAY for e in state.events)


# ---------------------------------------------------------------- rulebook and rules diff


RULEBOOK_TEXT = {
    "en": (
        "2 × Gold 1, 2 × Gold 2, and 1 × Gold 3",
        "Raise by 1: 1 die for first place and, if its owner wishes, 1 die for second place",
        "deal each player the named cards shown, face up",
        "from 1 up to what the bidder can pay",
    ),
    "fr": (
        "2 × Or 1, 2 × Or 2 et 1 × Or 3",
        "Monter de 1\u202f: 1 dé de la première place et, si son propriétaire le souhaite, 1 dé de la deuxième place",
        "distribuez à chaque joueur les cartes nommées indiquées, face visible",
        "de 1 jusqu'à ce que l'enchérisseur peut payer",
    ),
    "es": (
        "2 × Oro 1, 2 × Oro 2 y 1 × Oro 3",
        "Subir 1 punto: 1 dado del primer puesto y, si su dueño lo desea, 1 dado del segundo puesto",
        "reparta a cada jugador las cartas nombradas indicadas, boca arriba",
        "de 1 hasta lo que quien puja puede pagar",
    ),
}


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
def test_the_rulebook_states_the_house_rules(lang: str) -> None:
    dealt, effect, openly, ceiling = RULEBOOK_TEXT[lang]
    italian = render_rulebook(load_ruleset(ITALIAN), lang)
    setup = "\n".join(italian.section("setup").lines())
    assert dealt in setup and openly in setup
    church = "\n".join(italian.section("church").lines())
    assert effect in church
    auction = "\n".join(render_rulebook(load_ruleset(MEANS), lang).section("auction").lines())
    assert ceiling in auction
    biblios = "\n".join(render_rulebook(load_ruleset("biblios"), lang).section("auction").lines())
    assert ceiling not in biblios


def test_the_rulebook_says_when_the_penalty_cannot_arise(tmp_path) -> None:
    def penalty(ruleset) -> str:
        return "\n".join(render_rulebook(ruleset, "en").section("penalty").lines())

    assert "so this penalty never arises" in penalty(load_ruleset(MEANS))
    assert "only a winner who refuses to pay is penalized" in penalty(load_ruleset(MEANS, ["refuse-to-pay"]))
    assert "can always pay" not in penalty(load_ruleset("biblios"))
    exact = variant(tmp_path, "auction: {ceiling: {gold: hand, cards: hand}, overpay: forbidden}")
    assert "can always pay" not in penalty(exact)  # a bid below the ceiling may have no exact payment


def test_the_rulebook_says_when_named_and_random_cards_are_both_dealt(tmp_path) -> None:
    ruleset = variant(tmp_path, "setup: {4: {starting_cards: [{kind: gold, value: 1, count: 1}], starting_hand: 2}}")
    setup = render_rulebook(ruleset, "en").section("setup")
    assert "1 × Gold 1, then 2 at random" in "\n".join(setup.lines())
    assert "3 × Gold 1" not in "\n".join(setup.lines())


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
def test_rules_diff_shows_each_house_rule(lang: str, tmp_path) -> None:
    biblios = load_ruleset("biblios")
    means = {d.key: d for d in diff_rulesets(biblios, load_ruleset(MEANS), lang)}
    assert {"auction:gold-ceiling", "auction:cards-ceiling"} <= set(means)
    gold = means["auction:gold-ceiling"]
    assert (
        gold.left.startswith("66 (")
        and {"en": "no limit", "fr": "aucune limite", "es": "sin límite"}[lang] in gold.left
    )
    assert {"en": "what the bidder can pay", "fr": "ce que l'enchérisseur peut payer", "es": "lo que quien puja"}[
        lang
    ] in gold.right
    italian = {d.key: d for d in diff_rulesets(load_ruleset("second-place-dice"), load_ruleset(ITALIAN), lang)}
    assert "church-cards" in italian
    assert {"en": "second place", "fr": "deuxième place", "es": "segundo puesto"}[lang] in italian["church-cards"].right
    dealt = variant(tmp_path, "setup: {3: {starting_cards: [{kind: gold, value: 2, count: 1}]}}")
    setup = {d.key: d for d in diff_rulesets(biblios, dealt, lang)}["setup:3"]
    assert {"en": "1 × Gold 2", "fr": "1 × Or 2", "es": "1 × Oro 2"}[lang] in setup.right
