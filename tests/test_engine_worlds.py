"""The engine's one model of hidden information (``engine/worlds.py``) against the true odds.

While the gift phase is played by random players, whatever anyone does is independent of the
identity of the cards nobody has seen (a random player chooses among destinations, and picks
and church cards are public). The true conditional distribution of the hidden cards given a
player's observation then follows from the setup alone: each named removal is a uniform
choice among the unseen cards of its kind, a church card is never in a hand nor kept (it is
resolved at once), and every other unseen card is exchangeable with the others. The exact
chance of each hidden card being in each hidden zone is counted from those facts below
(:func:`exact_marginals`), and the frequencies over many worlds drawn by
:class:`~biblios_kit.engine.worlds.Worlds` must match it within sampling error, on every
shipped ruleset and option, at the smallest and the largest table.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import pytest
from conftest import SHIPPED_CHOICES
from hidden_enumeration import assert_dealt_with_odds

from biblios_kit.engine import Phase, compile_rules, new_game
from biblios_kit.engine.observation import Observation
from biblios_kit.engine.state import GameState
from biblios_kit.engine.worlds import Worlds
from biblios_kit.rules import load_ruleset

SAMPLES = 1500
"""Worlds drawn per position."""
TOLERANCE = 4.5
"""Standard errors a frequency may stray from its exact chance (some 10^4 comparisons in all)."""


def exact_marginals(worlds: Worlds) -> dict[tuple[int, int], float]:
    """(card, zone) -> the exact chance that hidden ``card`` is in ``zone``, from the setup's odds.

    Cards seen going into a rival's hand are still there (nothing leaves a hand in the gift
    phase). Each named removal takes ``k`` of the ``m`` unseen cards of its kind, uniformly;
    the church cards nobody has seen are spread uniformly over the places that may hold one
    (never a hand, a kept card or a face-down discard); the other unseen cards fill every
    place left, all places of a kind alike.
    """
    obs, rules = worlds.obs, worlds.rules
    capacity = worlds.capacity
    chances: dict[tuple[int, int], float] = {}
    room = capacity[:]
    for card, holder in worlds.holder.items():
        chances[card, holder] = 1.0
        room[holder] -= 1
    unseen = [c for c in worlds.hidden if c not in worlds.holder]
    churches = [c for c in unseen if rules.is_church[c]]
    named = rules.setups[obs.players].named
    named_share: dict[int, float] = {}
    for i, (count, matches) in enumerate(named):
        kind = [c for c in unseen if c in set(matches)]
        for c in kind:
            named_share[c] = count / len(kind)
            chances[c, worlds.REMOVED + i] = count / len(kind)
        room[worlds.REMOVED + i] = 0
    no_church = set(range(obs.players)) | {worlds.KEPT, worlds.BURIED}
    open_zones = [z for z, r in enumerate(room) if r and z not in no_church]
    closed_zones = [z for z, r in enumerate(room) if r and z in no_church]
    open_room = sum(room[z] for z in open_zones)
    others = len(unseen) - len(churches) - sum(count for count, _ in named)
    for c in unseen:
        if rules.is_church[c]:
            for z in open_zones:
                chances[c, z] = room[z] / open_room
            continue
        rest = 1.0 - named_share.get(c, 0.0)
        for z in closed_zones:
            chances[c, z] = rest * room[z] / others
        for z in open_zones:
            chances[c, z] = rest * (open_room - len(churches)) / others * room[z] / open_room
    return chances


def gift_positions(name: str, options: tuple[str, ...], players: int) -> list[tuple[GameState, Observation]]:
    """Positions of the gift phase of random games, each with its deciding player's observation."""
    ruleset = load_ruleset(name, list(options))
    found = []
    for seed in range(2):
        state = new_game(ruleset, players, 40 + seed)
        rng = random.Random(seed)
        for step in range(40):
            if state.phase not in (Phase.GIFT, Phase.PICK, Phase.CHURCH) or state.observation(0).revealed:
                break
            if step in (0, 7, 23):
                p = state.current_player
                assert p is not None
                found.append((state.clone(), state.observation(p)))
            state.apply(state.random_action(rng))
    return found


def _tables() -> list[tuple[str, tuple[str, ...], int]]:
    cases = []
    for name, options in SHIPPED_CHOICES:
        counts = load_ruleset(name, list(options)).player_counts
        cases += [(name, options, players) for players in sorted({min(counts), max(counts)})]
    return cases


@pytest.mark.parametrize("name,options,players", _tables())
def test_hidden_cards_are_dealt_with_their_true_conditional_odds(
    name: str, options: tuple[str, ...], players: int
) -> None:
    rules = compile_rules(load_ruleset(name, list(options)))
    positions = gift_positions(name, options, players)
    assert positions
    for _state, obs in positions:
        worlds = Worlds(rules, obs)
        exact = exact_marginals(worlds)
        for card in worlds.hidden:  # every hidden card is somewhere, surely
            assert math.isclose(sum(p for (c, _z), p in exact.items() if c == card), 1.0), card
        assert_dealt_with_odds(worlds, exact, SAMPLES, seed=7, tolerance=TOLERANCE)


def test_the_exact_odds_are_those_of_the_real_setup() -> None:
    """The exact odds above are the engine's own: at a game's first decision, how often a card of
    a named removal's kind is really among the removed cards, over many seeded setups."""
    ruleset = load_ruleset("biblios")
    rules = compile_rules(ruleset)
    (count, matches), *_ = rules.setups[2].named
    kind = set(matches)
    games = 3000
    removed = in_draw = total = 0
    predicted = 0.0
    for seed in range(games):
        state = new_game(ruleset, 2, seed)
        obs = state.observation(0)
        worlds = Worlds(rules, obs)
        exact = exact_marginals(worlds)
        unseen = [c for c in kind if c in worlds.hidden]
        card = unseen[0]
        total += 1
        removed += card in state.removed[0]
        in_draw += card in state.draw
        predicted += exact[card, worlds.REMOVED]
    share = predicted / total
    error = math.sqrt(share * (1 - share) / total)
    assert abs(removed / total - share) <= TOLERANCE * error
    assert in_draw > 0 and count < len(kind)


def random_games(name: str, options: tuple[str, ...], seeds: int) -> Iterator[GameState]:
    """Every decision point of ``seeds`` games of random play at the ruleset's largest player count
    (the same state, changed by the next random action once the caller looks again)."""
    ruleset = load_ruleset(name, list(options))
    for seed in range(seeds):
        state = new_game(ruleset, ruleset.player_counts[-1], seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            yield state
            state.apply(state.random_action(rng))


@pytest.mark.parametrize("name,options", SHIPPED_CHOICES)
def test_worlds_keep_what_the_payments_proved(name: str, options: tuple[str, ...]) -> None:
    """A winner who could not pay a Gold bid held no Gold that could pay it, and a rival paying
    can finish: the true state always keeps both (the facts are sound), and so does every world,
    the bots' and :meth:`GameState.resample`'s."""
    facts = 0
    rng = random.Random(7)
    for step, state in enumerate(random_games(name, options, seeds=3)):
        if step % 3 == 0 and state.phase in (Phase.BIDDING, Phase.PAYMENT):
            for p in range(state.players):
                worlds = Worlds(state.rules, state.observation(p))
                if not worlds.unpaid and worlds.payer < 0:
                    continue
                facts += len(worlds.unpaid)
                truth = [list(h) for h in state.hands]
                assert worlds.keeps_the_proofs(truth), "a fact the true deal breaks"
                for world in [worlds.sample(rng) for _ in range(3)] + [state.resample(p, rng)]:
                    assert worlds.keeps_the_proofs(world.hands), (step, p)
    if not load_ruleset(name, list(options)).auction.gold_ceiling_hand:  # bids within the bidder's Gold: all pay
        assert facts > 0, "random play should leave winners unable to pay"


def test_a_winner_who_could_not_pay_is_remembered_as_such() -> None:
    """Without the fact, worlds would often give that rival the Gold they did not have."""
    ruleset = load_ruleset("biblios")
    rules = compile_rules(ruleset)
    checked = 0
    for seed in range(10):
        state = new_game(ruleset, 3, seed)
        rng = random.Random(seed)
        while not state.is_terminal() and checked < 5:
            if state.phase is Phase.BIDDING:
                p = state.current_player
                assert p is not None
                worlds = Worlds(rules, state.observation(p))
                if worlds.unpaid:
                    unconstrained = [worlds._deal(random.Random(k)) for k in range(60)]
                    breaking = sum(not worlds.keeps_the_proofs(z) for z in unconstrained)
                    kept = [worlds.zones(random.Random(k)) for k in range(60)]
                    assert all(worlds.keeps_the_proofs(z) for z in kept)
                    checked += breaking > 0
            state.apply(state.random_action(rng))
    assert checked >= 3


@pytest.mark.parametrize("name,options", SHIPPED_CHOICES)
def test_the_true_deal_is_one_the_view_allows(name: str, options: tuple[str, ...]) -> None:
    """What the view proves is sound: every hidden card of a rival's hand, and of the draw pile, is in a
    zone the model lets it be in, at every decision of random games, for every player. A card seen
    going into a rival's hand may have left it unseen (paid face down, or lost in a penalty another
    player took part in): the model must not keep it there."""
    moved = 0
    for state in random_games(name, options, seeds=4):
        for p in range(state.players):
            worlds = Worlds(state.rules, state.observation(p))
            zone_of = {c: q for q in range(state.players) if q != p for c in state.hands[q]}
            zone_of.update((c, worlds.DRAW) for c in state.draw)
            for c, zones in zip(worlds.strict.cards, worlds.strict.candidates, strict=True):
                if c in zone_of:
                    assert zone_of[c] in zones, (state.decision_count, p, c, zone_of[c], zones)
                    moved += worlds.holder.get(c, zone_of[c]) != zone_of[c]
    if (name, options) == ("biblios", ()):  # (a test that met no such card would prove little)
        assert moved > 0, "random play should move seen cards out of hands unseen"
