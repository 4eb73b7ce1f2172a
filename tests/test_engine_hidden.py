"""No observation or redacted log of a player holds a card hidden from them; resampling keeps their view."""

from __future__ import annotations

import dataclasses
import random

import pytest
from conftest import check_invariants

from biblios_kit.engine import EventKind, GameState, Observation, new_game
from biblios_kit.engine.actions import PAY, PICK
from biblios_kit.rules import load_ruleset

E = EventKind
_PUBLIC = {
    E.TO_PUBLIC, E.PICKED, E.CHURCH_USED, E.CHURCH_DECLINED, E.PUBLIC_DISCARDED, E.REVEALED, E.WON,
    E.ALL_PASSED, E.NO_BIDDERS, E.PAID_GOLD, E.TOOK, E.DISCARDED,
}  # fmt: skip
_OWN = {E.DEALT, E.DREW, E.TO_AUCTION_PILE, E.TOOK_KEPT, E.PAID_CARD}

RULESETS = [
    ("biblios", ()),
    ("scripts-and-scribes", ()),
    ("biblios", ("medieval-bluff", "refuse-to-pay")),
    ("second-place-dice", ()),
    ("five-players-italian", ()),
    ("bid-within-means", ()),
]


def open_deal(state: GameState) -> set[int]:
    """The named starting cards: each player's first DEALT cards, as many as the setup names."""
    named = sum(item.count for item in state.ruleset.setups[state.players].starting_cards)
    first: dict[int, list[int]] = {}
    for kind, who, card, _args, _vis in state.log:  # the deal opens the log
        if kind == E.DEALT:
            first.setdefault(who, []).append(card)
        elif kind != E.SETUP_REMOVED:
            break
    return {c for cards in first.values() for c in cards[:named]}


def sees(state: GameState, event, player: int) -> bool:
    """The rules' own statement of who sees an event's card (written independently of the engine)."""
    kind = event.kind
    if kind in _PUBLIC:
        return True
    if kind is E.DEALT and event.card in open_deal(state):
        return True  # named starting cards are dealt face up
    if kind in _OWN:
        return event.player == player
    if kind is E.KEPT:
        return event.player == player or state.ruleset.deck[event.card].kind.value == "church"
    if kind in (E.PENALTY_TAKEN, E.PENALTY_REMOVED):
        return player in (event.player, event.args[0])
    raise AssertionError(f"event {kind!r} with a card is not covered by this test")


def seen_by(state: GameState, player: int) -> set[int]:
    return {e.card for e in state.events if e.card is not None and sees(state, e, player)}


def observation_cards(obs: Observation) -> set[int]:
    cards = set(obs.hand) | set(obs.public) | set(obs.discard) | set(obs.my_kept) | set(obs.my_auction_cards)
    cards |= set(obs.revealed) | {c for _, c in obs.gold_paid} | {c for _, c in obs.acquired} | set(obs.my_buried)
    cards |= {c for c in (obs.drawn, obs.kept) if c is not None}
    if obs.church:
        cards.add(obs.church[1])
    if obs.auction:
        cards.add(obs.auction.card)
    if obs.payment:
        cards |= set(obs.payment.paid_gold)
    cards |= {a - PICK for a in obs.legal_actions if PICK <= a < PAY} | {
        a - PAY for a in obs.legal_actions if PAY <= a < PAY + 1000
    }
    return cards


def random_states(count: int):
    """(state, rng) at many moments of random games of several rulesets and player counts."""
    k = 0
    for game in range(count):
        name, options = RULESETS[game % len(RULESETS)]
        ruleset = load_ruleset(name, options)
        players = ruleset.player_counts[game % len(ruleset.player_counts)]
        state = new_game(ruleset, players, seed=1000 + game)
        rng = random.Random(game)
        while not state.is_terminal():
            k += 1
            if k % 17 == 0:
                yield state, rng
            state.apply(state.random_action(rng))
        yield state, rng


def test_no_view_or_redacted_log_holds_a_hidden_card() -> None:
    checked = 0
    for state, _ in random_states(12):
        for p in range(state.players):
            seen = seen_by(state, p)
            assert observation_cards(state.observation(p)) <= seen
            for raw, event in zip(state.events, state.events_for(p)):
                if raw.card is None:
                    assert event.card is None
                else:
                    assert (event.card is not None) == sees(state, raw, p)
            checked += 1
    assert checked > 300


def _swap(state: GameState, x: int, y: int) -> GameState:
    """A copy where cards ``x`` and ``y`` trade places everywhere, the log included."""
    s = state.clone()
    swap = {x: y, y: x}
    for zone in [*s.hands, s.draw, s.public, s.pile, *s.removed, s.discard, s.buried]:
        zone[:] = [swap.get(c, c) for c in zone]
    s.drawn, s.kept = swap.get(s.drawn, s.drawn), swap.get(s.kept, s.kept)
    s.log = [(k, who, swap.get(c, c), args, vis) for k, who, c, args, vis in s.log]
    rules = s.rules
    s.gold = [sum(rules.value[c] for c in h if rules.kind[c] == 1) for h in s.hands]
    return s


def test_swapping_two_unseen_cards_changes_nothing_a_player_sees() -> None:
    swaps = 0
    for state, rng in random_states(8):
        p = int(rng.random() * state.players)
        seen = seen_by(state, p)
        hidden = [c for zone in (*[h for q, h in enumerate(state.hands) if q != p], state.draw, state.pile,
                                 *state.removed, state.buried) for c in zone if c not in seen]  # fmt: skip
        if len(hidden) < 2:
            continue
        x, y = rng.sample(hidden, 2)
        other = _swap(state, x, y)
        if other.hands[other.cur if other.cur >= 0 else 0] != state.hands[state.cur if state.cur >= 0 else 0]:
            continue  # the decider's own hand changed (not p's): legal actions may differ legitimately
        assert other.observation(p) == state.observation(p)
        assert other.events_for(p) == state.events_for(p)
        swaps += 1
    assert swaps > 40


@pytest.mark.parametrize("name,options", RULESETS)
def test_resample_keeps_the_view_and_accounts_for_every_card(name: str, options: tuple[str, ...]) -> None:
    ruleset = load_ruleset(name, options)
    moved = 0
    for game in range(3):
        players = ruleset.player_counts[game % len(ruleset.player_counts)]
        state = new_game(ruleset, players, seed=game)
        rng = random.Random(game)
        step = 0
        while not state.is_terminal():
            step += 1
            if step % 61 == 0:
                p = int(rng.random() * players)
                world = state.resample(p, random.Random(step))
                check_invariants(world)
                view, again = state.observation(p), world.observation(p)
                assert again == view
                assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
                assert len(world.draw) == len(state.draw) and len(world.pile) == len(state.pile)
                assert [len(g) for g in world.removed] == [len(g) for g in state.removed]
                assert set(view.my_auction_cards) <= set(world.pile)
                seen = seen_by(state, p)
                assert world.history == [] and all(e.card is None or e.card in seen for e in world.events)
                if world.cur >= 0:
                    assert world.legal_actions(), "the resampled world offers a decision"
                moved += any(sorted(a) != sorted(b) for q, (a, b) in enumerate(zip(world.hands, state.hands)) if q != p)
                finished = world.clone()
                finished.playout(random.Random(step))
                check_invariants(finished)
            state.apply(state.random_action(rng))
    assert moved > 0, "resampling should re-deal other hands"


def test_resample_keeps_cards_known_to_be_in_a_hand() -> None:
    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, 3, seed=21)
    rng = random.Random(21)
    while state.phase.name in ("GIFT", "PICK", "CHURCH"):
        state.apply(state.random_action(rng))
    # In the gift phase only picks (public) and kept cards (hidden) enter hands, and nothing
    # leaves a hand: every public pick is still where everyone saw it go.
    picks = [(e.player, e.card) for e in state.events if e.kind is E.PICKED and not ruleset.deck[e.card].effect]
    for seed in range(5):
        world = state.resample(0, random.Random(seed))
        for q, card in picks:
            assert card in world.hands[q]


def test_observation_is_frozen_and_hashable() -> None:
    state = new_game(load_ruleset("biblios"), 4, seed=1)
    obs = state.observation(0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        obs.hand = ()  # type: ignore[misc]
    assert hash(obs.key) == hash(state.observation(0).key)
    assert state.observation(1).key != obs.key
    assert obs.legal_actions and not state.observation(1).legal_actions


def test_resample_during_another_players_gold_payment_lets_them_pay() -> None:
    from biblios_kit.engine import Phase

    ruleset = load_ruleset("biblios")
    found = 0
    for game in range(40):
        state = new_game(ruleset, 4, seed=game)
        rng = random.Random(game)
        while not state.is_terminal() and found < 6:
            if state.phase is Phase.PAYMENT and state.auc_cur == 0 and state.current_player != 0 and state.high >= 4:
                found += 1
                from biblios_kit.engine.worlds import Worlds, assign, pin

                payer = state.current_player
                worlds = Worlds(state.rules, state.observation(0))
                assert worlds.payer == payer and worlds.can_finish_payment(state.hands[payer])
                pinned = assign(pin(worlds.any_zone, payer, state.hands[payer]), random.Random(1))
                assert pinned is not None and sorted(pinned[payer]) == sorted(state.hands[payer])
                for seed in range(3):
                    world = state.resample(0, random.Random(seed))
                    check_invariants(world)
                    assert world.legal_actions(), "the payer must be able to finish paying"
                    assert world.observation(0) == state.observation(0)
            state.apply(state.random_action(rng))
        if found >= 6:
            break
    assert found >= 6
