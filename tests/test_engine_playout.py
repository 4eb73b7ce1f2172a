"""The random playout fast path plays exactly the game that one checked apply() per decision plays.

The playout keeps whole gift turns, bidding rounds, penalties and payments inside loops over local
variables; this compares it, decision by decision, with the reference path
(``apply(random_action(rng))``) for every shipped ruleset and option and for auction variants
the shipped rulesets do not use, so both paths must stay in step whenever either changes.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from conftest import SHIPPED_CHOICES, check_invariants, variant

from biblios_kit.engine import new_game
from biblios_kit.engine.state import GameState
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import Ruleset

VARIANTS = {
    "overpay-forbidden": "auction: {overpay: forbidden}\n",
    "active-bids-first-takes-all-pass": "auction: {bidding_starts: active, all_pass: active-takes, opening_bid: 2}\n",
    "return-once-low-ceiling": "auction: {ceiling: {gold: 4, cards: 2}}\npenalty: {exclude_from_reauction: false}\n",
    "no-penalty": "penalty: {kind: none, exclude_from_reauction: false}\n",
    "bluff-return-once": "penalty: {kind: medieval-bluff, exclude_from_reauction: false}\n",
}


def every_field(state: GameState) -> dict[str, object]:
    """Every field of ``state`` (the fast path must leave even bookkeeping fields as apply() does)."""
    names = [n for n in dir(state) if not n.startswith("_") and not callable(getattr(state, n))]
    fields: dict[str, object] = {
        name: repr(getattr(state, name)) for name in names if name not in ("rules", "rng", "cache", "ev", "ruleset")
    }
    fields["rng"] = state.rng.getstate()
    return fields


def _same_game(ruleset: Ruleset, players: int, seed: int, per_seat: bool) -> None:
    """Play one random game both ways and compare everything they leave behind."""
    fast = new_game(ruleset, players, seed)
    slow = new_game(ruleset, players, seed)
    rngs = [random.Random(seed * 31 + k) for k in range(players)] if per_seat else [random.Random(seed)]
    fast.playout([random.Random(seed * 31 + k) for k in range(players)] if per_seat else random.Random(seed))
    while not slow.is_terminal():
        slow.apply(slow.random_action(rngs[slow.cur % len(rngs)]))
    assert fast.history == slow.history
    assert fast.log == slow.log
    assert every_field(fast) == every_field(slow)
    assert fast.result() == slow.result()
    check_invariants(fast)


@pytest.mark.parametrize("choice", SHIPPED_CHOICES, ids=lambda c: "+".join((c[0], *c[1])))
def test_playout_matches_apply_for_shipped_rulesets(choice: tuple[str, tuple[str, ...]]) -> None:
    ruleset = load_ruleset(*choice)
    for players in ruleset.player_counts:
        for seed in range(3):
            _same_game(ruleset, players, seed, per_seat=seed == 2)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_playout_matches_apply_for_auction_variants(tmp_path: Path, name: str) -> None:
    ruleset = variant(tmp_path, VARIANTS[name])
    for players in (2, 3, 4):
        for seed in range(3):
            _same_game(ruleset, players, seed, per_seat=seed == 2)


@pytest.mark.slow
@pytest.mark.parametrize(
    "choice", [("biblios", ("refuse-to-pay",)), ("biblios", ("medieval-bluff",)), ("scripts-and-scribes", ())]
)
def test_playout_from_any_point_of_a_game_matches_apply(choice: tuple[str, tuple[str, ...]]) -> None:
    """Start the playout at every kind of decision: a placement, a pick, a church card, a bid, a payment."""
    ruleset = load_ruleset(*choice)
    root = new_game(ruleset, 4, seed=5)
    rng = random.Random(5)
    phases = set()
    while not root.is_terminal():
        phases.add(root.phase)
        fast, slow = root.clone(), root.clone()
        fast.playout(random.Random(len(root.history)))
        rng_slow = random.Random(len(root.history))
        while not slow.is_terminal():
            slow.apply(slow.random_action(rng_slow))
        assert fast.history == slow.history and fast.log == slow.log
        assert every_field(fast) == every_field(slow)
        root.apply(root.random_action(rng))
    assert len(phases) == 5  # every decision phase was a starting point


def _places_reference(totals: list[int], letters: list[int], tie_nobody: bool) -> list[tuple[int | None, object]]:
    """Category places spelled out the slow way: sort holders, walk groups of equal totals."""
    from biblios_kit.engine.scoring import WonBy

    holders = sorted((p for p in range(len(totals)) if totals[p] > 0), key=lambda p: (-totals[p], letters[p]))
    places: list[tuple[int | None, object]] = []
    i = 0
    while i < len(holders):
        group = [p for p in holders[i:] if totals[p] == totals[holders[i]]]
        for p in group:
            if len(group) == 1:
                places.append((p, WonBy.TOTAL))
            elif tie_nobody or [letters[q] for q in group].count(letters[p]) > 1:
                places.append((None, WonBy.NOBODY))
            else:
                places.append((p, WonBy.LETTER))
        i += len(group)
    return places


def test_category_places_match_the_reference() -> None:
    from biblios_kit.engine.scoring import category_places

    rng = random.Random(4)
    for _ in range(3000):
        n = rng.randint(2, 6)
        totals = [rng.choice((0, 0, 1, 2, 3, 5)) for _ in range(n)]
        letters = [rng.choice((0, 1, 2, 1 << 20)) for _ in range(n)]
        for tie_nobody in (False, True):
            assert category_places(totals, letters, tie_nobody) == _places_reference(totals, letters, tie_nobody)
