"""The table's saves written by a thread (so that a key's frame does not wait for the disk): in order, the
newest of moves in quick succession, waited for when the table stops, a failure reported."""

from __future__ import annotations

import asyncio
import gc
import json
import random
import threading
import time
from pathlib import Path

import pytest
from conftest import game_config, press, run_until, waiting_for_person

from biblios_kit.resources import saved_game_path
from biblios_kit.tui import session as session_module
from biblios_kit.tui.app import make_app
from biblios_kit.tui.config import GameConfig
from biblios_kit.tui.saves import load_game
from biblios_kit.tui.screens.table import TableScreen
from biblios_kit.tui.session import GameSession


def new_session() -> GameSession:
    return GameSession.new(GameConfig(players=3, seats=("human", "random", "random"), seed=5))


def test_saves_in_the_background_are_written_in_order_by_another_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    session = new_session()
    written: list[tuple[str, int]] = []
    real_write = session_module.write_save

    def slow_write(target: Path, text: str) -> None:
        time.sleep(0.02)  # a slow disk: save() must not wait for it
        real_write(target, text)
        written.append((threading.current_thread().name, len(json.loads(text)["actions"])))

    monkeypatch.setattr(session_module, "write_save", slow_write)
    session.write_in_background(True)
    rng = random.Random(2)
    started = time.perf_counter()
    for _ in range(5):
        session.apply(session.state.random_action(rng))
    assert time.perf_counter() - started < 0.05  # five saves of 20 ms each were not waited for
    session.flush()
    assert written and all(name.startswith("save") for name, _moves in written)
    moves = [count for _name, count in written]
    assert moves == sorted(moves) and moves[-1] == 5 and len(moves) < 5  # in order, the newest, not every one
    assert load_game().state.actions == session.state.actions  # the last one is on disk
    session.write_in_background(False)
    session.apply(session.state.random_action(rng))  # at once again, on this thread
    assert written[-1][0] == threading.current_thread().name
    assert load_game().state.actions == session.state.actions


def test_turning_background_saves_off_waits_for_the_last_and_a_failure_is_reported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session = new_session()
    session.write_in_background(True)
    session.apply(session.state.random_action(random.Random(1)))
    session.write_in_background(False)
    assert load_game().state.actions == session.state.actions

    def full_disk(target: Path, text: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(session_module, "write_save", full_disk)
    session.write_in_background(True)
    session.apply(session.state.random_action(random.Random(1)))
    session.flush()
    assert session.save_error == "No space left on device"
    session.write_in_background(False)
    assert saved_game_path().is_file()  # the earlier save is still there


def test_the_table_writes_in_the_background_freezes_the_heap_and_undoes_both_when_it_goes() -> None:
    """While the table is shown its saves go through the writer thread and the heap is frozen (no full
    collection of the app in a key's frame); when the app quits, the last save is on disk and the frozen
    objects may be collected again."""
    seen: dict[str, object] = {}

    async def scenario() -> None:
        app = make_app(game_config(seed=1), bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_until(pilot, lambda: waiting_for_person(app) and isinstance(app.screen, TableScreen))
            await run_until(pilot, lambda: gc.get_freeze_count() > 0)
            table = app.screen
            assert isinstance(table, TableScreen) and isinstance(table.session, GameSession)
            seen["writer"] = table.session._writer is not None
            seen["session"] = table.session
            decisions = table.session.state.decision_count
            press(app, "k")  # keep the first card drawn (not a church card with this seed)
            await run_until(pilot, lambda: table.session.state.decision_count > decisions)

    asyncio.run(scenario())
    session = seen["session"]
    assert isinstance(session, GameSession)
    assert seen["writer"] and session._writer is None  # the table wrote in the background, then stopped
    assert gc.get_freeze_count() == 0
    assert load_game().state.actions == session.state.actions  # the last save was waited for
