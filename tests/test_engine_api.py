"""The state API: creation, errors that leave the state unchanged, clone, text forms, fast paths."""

from __future__ import annotations

import random

import pytest
from conftest import check_invariants, snapshot

from biblios_kit.engine import (
    KEEP,
    PASS,
    EventKind,
    Phase,
    bid,
    format_action,
    new_game,
    parse_action,
)
from biblios_kit.errors import IllegalActionError, InvalidActionError
from biblios_kit.rules import load_ruleset

BIBLIOS = load_ruleset("biblios")
SNS = load_ruleset("scripts-and-scribes")


@pytest.mark.parametrize("ruleset", [BIBLIOS, SNS], ids=["biblios", "sns"])
@pytest.mark.parametrize("players,removed,draw", [(2, 27, 60), (3, 15, 72), (4, 7, 80)])
def test_setup_per_player_count(ruleset, players: int, removed: int, draw: int) -> None:
    s = new_game(ruleset, players, seed=9)
    assert sum(len(g) for g in s.removed) == removed
    assert len(s.draw) + 1 == draw  # the first card is already drawn
    assert (s.phase, s.current_player, s.active_player) == (Phase.GIFT, 0, 0)
    assert s.legal_actions() == [KEEP, 1, 2]
    check_invariants(s)
    named = sorted(ruleset.deck[c].value for g in s.removed[:-1] for c in g)
    assert all(ruleset.deck[c].kind.value == "gold" for g in s.removed[:-1] for c in g)
    assert named == {2: [1, 1, 2, 2, 3, 3], 3: [1, 2, 3], 4: []}[players]


def test_same_seed_same_game_and_different_seeds_differ() -> None:
    a, b, c = (new_game(BIBLIOS, 3, seed) for seed in (5, 5, 6))
    for s in (a, b, c):
        s.playout(random.Random(1))
    assert a.log == b.log and a.history == b.history
    assert a.log != c.log


def test_unsupported_player_count_and_bad_arguments() -> None:
    with pytest.raises(ValueError, match="supported: 2, 3, 4"):
        new_game(BIBLIOS, 5, seed=1)
    with pytest.raises(ValueError):
        new_game(BIBLIOS, 3, seed="x")  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1, 7, 999, 3_000_000_000_000, True, "keep", None, 2.0])
def test_malformed_action_raises_invalid_and_leaves_state(bad: object) -> None:
    s = new_game(BIBLIOS, 3, seed=2)
    before = snapshot(s)
    with pytest.raises((InvalidActionError, IllegalActionError)) as info:
        s.apply(bad)  # type: ignore[arg-type]
    if not isinstance(bad, int) or isinstance(bad, bool) or bad < 0 or bad in (7, 999):
        assert isinstance(info.value, InvalidActionError)
    assert snapshot(s) == before


def test_illegal_action_raises_illegal_and_leaves_state() -> None:
    s = new_game(BIBLIOS, 3, seed=2)
    before = snapshot(s)
    for action in (PASS, bid(3), parse_action(BIBLIOS, "pick 3"), parse_action(BIBLIOS, "church monks+1")):
        with pytest.raises(IllegalActionError, match="illegal action"):
            s.apply(action)
        assert not s.is_legal(action)
    assert snapshot(s) == before
    s.playout(random.Random(3))
    with pytest.raises(IllegalActionError, match="game is over"):
        s.apply(KEEP)
    assert s.current_player is None and s.legal_actions() == [] and s.phase is Phase.GAME_OVER


def test_result_before_the_end_raises() -> None:
    with pytest.raises(ValueError):
        new_game(BIBLIOS, 2, seed=1).result()


@pytest.mark.parametrize("text", ["", "jump", "bid", "bid x", "bid -2", "pick 87", "pay 1 2", "church",
                                  "church monks", "church monks+1 pigments-1", "church nowhere+1",
                                  "church monks+1 monks+1", "church monks+2"])  # fmt: skip
def test_parse_rejects_malformed_text(text: str) -> None:
    with pytest.raises(InvalidActionError):
        parse_action(BIBLIOS, text)


def test_text_forms_round_trip_over_random_games() -> None:
    seen_prefixes = set()
    for seed, ruleset in enumerate([BIBLIOS, SNS, load_ruleset("second-place-dice")]):
        s = new_game(ruleset, 3, seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            legal = s.legal_actions()
            for action in legal:
                text = format_action(ruleset, action)
                seen_prefixes.add(text.split()[0])
                assert parse_action(ruleset, text) == action
                assert parse_action(ruleset, "  " + text.upper() + " ") == action
            s.apply(legal[int(rng.random() * len(legal))])
    assert {"keep", "auction", "public", "pick", "church", "bid", "pass", "pay"} <= seen_prefixes


def test_apply_text() -> None:
    s = new_game(BIBLIOS, 2, seed=4)
    assert s.apply_text("public") == 2
    assert s.history == [2]


def test_clone_is_independent_and_clone_then_apply_equals_apply() -> None:
    s = new_game(SNS, 4, seed=8)
    rng = random.Random(8)
    for step in range(400):
        if s.is_terminal():
            break
        action = s.random_action(rng)
        if step % 23 == 0:
            c = s.clone()
            assert snapshot(c) == snapshot(s)
            c.apply(action)
            s.apply(action)
            assert snapshot(c) == snapshot(s)
            c.playout(random.Random(1))  # playing the clone does not touch the original
            assert snapshot(c) != snapshot(s)
        else:
            s.apply(action)


def test_playout_draws_what_random_action_draws() -> None:
    for seed in range(5):
        for players in (2, 3, 4):
            fast = new_game(BIBLIOS, players, seed)
            slow = new_game(BIBLIOS, players, seed)
            fast.playout(random.Random(seed))
            rng = random.Random(seed)
            while not slow.is_terminal():
                slow.apply(slow.random_action(rng))
            assert fast.history == slow.history and fast.log == slow.log


def test_playout_with_one_rng_per_seat_matches_random_bots() -> None:
    from biblios_kit.bots.random_bot import RandomBot

    seeds = [11, 12, 13]
    fast = new_game(BIBLIOS, 3, seed=1)
    fast.playout([random.Random(x) for x in seeds])
    slow = new_game(BIBLIOS, 3, seed=1)
    bots = [RandomBot(x) for x in seeds]
    while not slow.is_terminal():
        p = slow.current_player
        slow.apply(bots[p].choose(slow.observation(p)))
    assert fast.history == slow.history


def test_random_action_is_uniform_over_bids() -> None:
    s = new_game(BIBLIOS, 2, seed=1)
    rng = random.Random(0)
    while s.phase is not Phase.BIDDING:
        s.apply(s.random_action(rng))
    legal = s.legal_actions()
    draws = [s.random_action(random.Random(i)) for i in range(3000)]
    assert set(draws) <= set(legal)
    assert abs(draws.count(PASS) / 3000 - 1 / len(legal)) < 0.02


def test_events_are_data() -> None:
    s = new_game(BIBLIOS, 2, seed=3)
    s.playout(random.Random(3))
    events = s.events
    assert events[0].kind is EventKind.SETUP_REMOVED and events[-1].kind is EventKind.GAME_OVER
    for e in events:
        assert isinstance(e.kind, EventKind) and isinstance(e.player, int)
        assert all(isinstance(a, int) for a in e.args)
    with pytest.raises(ValueError):
        s.events_for(2)


def test_game_without_events_plays_the_same() -> None:
    with_log = new_game(BIBLIOS, 4, seed=12)
    without = new_game(BIBLIOS, 4, seed=12, events=False)
    with_log.playout(random.Random(4))
    without.playout(random.Random(4))
    assert without.history == with_log.history and without.result() == with_log.result()
    assert with_log.has_events and not without.has_events
    for call in (lambda: without.observation(0), lambda: without.events, lambda: without.events_for(1)):
        with pytest.raises(ValueError, match="no event log"):
            call()
    mid = new_game(SNS, 3, seed=2)
    rng = random.Random(2)
    for _ in range(100):
        mid.apply(mid.random_action(rng))
    quiet = mid.clone(events=False)
    loud = mid.clone()
    quiet.playout(random.Random(9))
    loud.playout(random.Random(9))
    assert quiet.history == loud.history and len(mid.log) < len(loud.log)


def test_clone_with_its_own_rng_for_search() -> None:
    s = new_game(BIBLIOS, 3, seed=6)
    rng = random.Random(6)
    while s.phase is not Phase.BIDDING:
        s.apply(s.random_action(rng))
    a, b = s.clone(events=False, rng=random.Random(1)), s.clone(events=False, rng=random.Random(1))
    a.playout(random.Random(2))
    b.playout(random.Random(2))
    assert a.history == b.history and a.result() == b.result()
    check_invariants(a)
    assert s.rng.getstate() != a.rng.getstate()
