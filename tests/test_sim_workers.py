"""Simulation internals: the random-bot fast path, chunking, and this process playing next to workers."""

from __future__ import annotations

import itertools
import random
import sys
from pathlib import Path

import pytest

from biblios_kit.bots.registry import make_bot
from biblios_kit.engine.records import load_record, replay
from biblios_kit.rules import load_ruleset
from biblios_kit.sim import SimConfig, game_seed, play_game, run_simulation
from biblios_kit.sim.runner import _chunks, _play_range, _summary_row, run_games


def test_random_bot_rng_is_a_plain_seeded_random() -> None:
    # The fast path re-seeds one RNG per seat instead of making a RandomBot per game.
    reseeded = random.Random()
    for seed in (0, 7, game_seed(3, 11)):
        reseeded.seed(seed)
        assert make_bot("random", seed, load_ruleset("biblios")).rng.getstate() == reseeded.getstate()  # type: ignore[attr-defined]


def test_fast_path_plays_the_games_of_play_game() -> None:
    ruleset = load_ruleset("biblios", ("refuse-to-pay",))
    config = SimConfig("biblios", 3, 12, seed=5, options=("refuse-to-pay",), bots=("random",) * 3)
    rows = _play_range(config, ruleset, 0, 12)
    assert [row[0] for row in rows] == list(range(12))
    for index, row in enumerate(rows):
        state = play_game(ruleset, 3, game_seed(5, index), config.bots)
        assert row == _summary_row(index, state, config.bots)


def test_chunks_cover_every_game_once_and_shrink() -> None:
    for games in (1, 3, 4, 5, 99, 2000, 12345):
        for workers in (1, 2, 3, 8):
            chunks = _chunks(games, workers)
            assert chunks[0][0] == 0 and chunks[-1][1] == games
            assert all(a[1] == b[0] for a, b in itertools.pairwise(chunks))
            sizes = [stop - start for start, stop in chunks]
            assert all(0 < size <= 100 for size in sizes)
            assert all(x >= y for x, y in itertools.pairwise(sizes))
    assert 40 < len(_chunks(2000, 2)) < 100


def test_this_process_and_workers_give_the_same_games(tmp_path: Path) -> None:
    # Mixed bots (the slow path) and records, over 1, 2 and 3 processes.
    runs = {}
    for workers in (1, 2, 3):
        folder = tmp_path / f"w{workers}"
        config = SimConfig(
            "scripts-and-scribes",
            3,
            14,
            seed=2,
            bots=("random", "easy", "random"),
            workers=workers,
            records=str(folder),
        )
        summaries, _ = run_games(config)
        assert [s.index for s in summaries] == list(range(14))
        runs[workers] = summaries
        assert len(list(folder.glob("game-*.json"))) == 14
    assert runs[1] == runs[2] == runs[3]
    record = load_record(tmp_path / "w3" / "game-000009.json")
    state = replay(record)
    assert state.decision_count == runs[3][8].decisions and state.result().victory_points == runs[3][8].victory_points


def test_progress_counts_every_game_with_workers() -> None:
    seen: list[int] = []
    stats = run_simulation(SimConfig("biblios", 4, 150, seed=9, workers=2), seen.append)
    assert sum(seen) == 150 == stats.games
    one = run_simulation(SimConfig("biblios", 4, 150, seed=9, workers=1))
    assert stats.seat_win_rates == one.seat_win_rates and stats.mean_vp == one.mean_vp


def test_an_error_in_a_game_stops_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import biblios_kit.sim.runner as runner

    calls = []

    def failing(config, ruleset, start, stop, rows=None):
        calls.append(start)
        raise RuntimeError("boom")

    # Patched before the worker is forked, so both processes fail; this one stops at once.
    monkeypatch.setattr(runner, "_play_range", failing)
    before = sys.getswitchinterval()
    with pytest.raises(RuntimeError, match="boom"):
        run_games(SimConfig("biblios", 2, 400, seed=1, bots=("random", "random"), workers=2))
    assert len(calls) == 1
    assert sys.getswitchinterval() == before  # restored even when the run fails


def test_the_thread_switch_interval_is_short_only_while_workers_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import biblios_kit.sim.runner as runner

    seen = []
    real = runner._play_range

    def watching(config, ruleset, start, stop, rows=None):
        seen.append(sys.getswitchinterval())
        return real(config, ruleset, start, stop, rows)

    monkeypatch.setattr(runner, "_play_range", watching)
    before = sys.getswitchinterval()
    run_games(SimConfig("biblios", 2, 60, seed=1, bots=("random", "random"), workers=2))
    assert seen and all(interval == runner._POOL_SWITCH_INTERVAL < before for interval in seen)
    assert sys.getswitchinterval() == before
    seen.clear()
    run_games(SimConfig("biblios", 2, 60, seed=1, bots=("random", "random"), workers=1))
    assert seen and all(interval == before for interval in seen)
