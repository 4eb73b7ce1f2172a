"""Two ``play`` windows at once: each holds a lock on its own save, so neither overwrites the other's game.

The first window's lock is held either here (a second lock on the same file from this
process is refused too: ``flock`` locks belong to open files) or by a real second process;
a lock left by a process that died blocks nobody.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import game_config, human_in, prepare_save, run_until, visible_text, waiting_for_person

from biblios_kit.engine.state import Phase
from biblios_kit.i18n import set_language
from biblios_kit.savelock import SaveLock, claim_save, lock_path, slot_path
from biblios_kit.tui.app import make_app
from biblios_kit.tui.config import GameConfig
from biblios_kit.tui.saves import load_game, save_path
from biblios_kit.tui.screens.setup import SetupScreen
from biblios_kit.tui.screens.table import TableScreen

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the subprocess helpers use POSIX signals")

_HOLDER = """
import sys
from pathlib import Path
from biblios_kit.savelock import SaveLock
lock = SaveLock.acquire(Path(sys.argv[1]))
print("held" if lock is not None and lock.enforced else "refused", flush=True)
sys.stdin.read()
"""


@contextmanager
def held_by_another_process(save: Path) -> Iterator[subprocess.Popen[str]]:
    """A real second process holding the lock of ``save`` until the block ends (it then exits)."""
    process = subprocess.Popen([sys.executable, "-c", _HOLDER, str(save)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True, env=os.environ.copy())  # fmt: skip
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "held"
        yield process
    finally:
        if process.poll() is None:
            assert process.stdin is not None
            process.stdin.close()
            process.wait()


def test_slots_and_lock_files_are_named_next_to_the_save(tmp_path: Path) -> None:
    base = tmp_path / "current-game.json"
    assert slot_path(base, 1) == base
    assert slot_path(base, 2) == tmp_path / "current-game-2.json"
    assert lock_path(slot_path(base, 2)) == tmp_path / ".current-game-2.json.lock"


def test_a_save_is_locked_once_until_released(tmp_path: Path) -> None:
    save = tmp_path / "saves" / "current-game.json"
    first = SaveLock.acquire(save)
    assert first is not None and first.enforced
    assert SaveLock.acquire(save) is None
    first.release()
    again = SaveLock.acquire(save)
    assert again is not None
    again.release()


def test_claim_prefers_a_free_save_with_a_game_waiting(tmp_path: Path) -> None:
    base = tmp_path / "current-game.json"
    base.write_text("finished")
    slot_path(base, 3).write_text("waiting")
    claim = claim_save(base, lambda path: path.read_text() == "waiting")
    assert claim.path == slot_path(base, 3) and not claim.base_in_use
    assert SaveLock.acquire(slot_path(base, 3)) is None  # held by the claim
    claim.release()
    # nothing waiting: the usual save, even when numbered ones exist
    slot_path(base, 3).write_text("finished")
    claim = claim_save(base, lambda path: path.read_text() == "waiting")
    assert claim.path == base
    claim.release()


def test_claim_skips_saves_held_by_other_windows(tmp_path: Path) -> None:
    base = tmp_path / "current-game.json"
    one, two = SaveLock.acquire(base), SaveLock.acquire(slot_path(base, 2))
    claim = claim_save(base, lambda path: True)
    assert claim.path == slot_path(base, 3) and claim.base_in_use
    for lock in (one, two, claim):
        assert lock is not None
        lock.release()


def test_a_second_app_does_not_overwrite_the_game_of_the_first() -> None:
    """Two apps on the same save at the same time: the second plays in its own file, the first's is untouched."""
    first_save = save_path()

    async def scenario() -> None:
        first = make_app(game_config(seed=5), bot_delay=0)
        async with first.run_test(size=(100, 30)) as pilot_one:
            await run_until(pilot_one, lambda: isinstance(first.screen, TableScreen) and waiting_for_person(first))
            before = first_save.read_bytes()
            second = make_app(game_config(seed=9), bot_delay=0)
            async with second.run_test(size=(100, 30)) as pilot_two:
                await run_until(pilot_two, lambda: isinstance(second.screen, TableScreen))
                assert second.session is not None and second.session.save_to == slot_path(first_save, 2)
                assert first_save.read_bytes() == before
        assert load_game(first_save).state.seed == 5
        assert load_game(slot_path(first_save, 2)).state.seed == 9

    asyncio.run(scenario())


def test_a_window_finding_the_save_in_use_says_so_and_keeps_it() -> None:
    state = prepare_save("biblios", ("human", "random", "random"), 3, human_in(Phase.PICK))
    original = save_path().read_bytes()

    async def scenario() -> None:
        with held_by_another_process(save_path()):
            app = make_app(GameConfig(), bot_delay=0)
            async with app.run_test(size=(200, 40)) as pilot:
                await run_until(pilot, lambda: isinstance(app.screen, SetupScreen) and app.screen.complete)
                await pilot.pause()
                shown = visible_text(app)
                assert "Another biblios-kit window is using the saved game current-game.json" in shown
                assert "current-game-2.json" in shown
                assert not app.screen.query("#continue")  # the other window's game is not offered
                app.screen.action_start()  # nothing saved in this window's file: starts at once
                await run_until(pilot, lambda: isinstance(app.screen, TableScreen))
        assert save_path().read_bytes() == original
        assert load_game(slot_path(save_path(), 2)).state.players == 3

    asyncio.run(scenario())
    assert load_game().state.history == state.history


def test_the_game_of_a_second_window_can_be_continued_later() -> None:
    prepare_save("biblios", ("human", "random", "random"), 3, human_in(Phase.PICK))
    second = prepare_save("biblios", ("human", "random", "random"), 11, human_in(Phase.PICK),
                          path=slot_path(save_path(), 2))  # fmt: skip

    async def resume() -> None:
        app = make_app(resume=True, bot_delay=0)
        async with app.run_test(size=(100, 30)) as pilot:
            await run_until(pilot, lambda: app.session is not None)  # the table (a dialog may open on it)
            assert app.session is not None and app.session.save_to == slot_path(save_path(), 2)
            assert app.session.state.seed == second.seed

    # while the first game is open elsewhere, --resume continues the second window's game
    with held_by_another_process(save_path()):
        asyncio.run(resume())
    # alone, and the first game finished: the second is the one offered
    prepare_save("biblios", ("human", "random", "random"), 3, lambda state: state.is_terminal())
    asyncio.run(resume())


def test_a_lock_left_by_a_dead_process_blocks_nobody() -> None:
    prepare_save("biblios", ("human", "random", "random"), 3, human_in(Phase.PICK))
    with held_by_another_process(save_path()) as process:
        process.kill()
        process.wait()
    assert lock_path(save_path()).exists()  # the lock file stays behind, unlocked

    async def scenario() -> None:
        app = make_app(GameConfig(), bot_delay=0)
        async with app.run_test(size=(200, 40)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, SetupScreen))
            await pilot.pause()
            assert app.screen.query("#continue")  # the game can be continued
            assert "Another biblios-kit window" not in visible_text(app)
            app.screen.action_continue_game()
            await run_until(pilot, lambda: app.session is not None)
            assert app.session is not None and app.session.save_to == save_path()

    asyncio.run(scenario())


def test_an_explicit_save_file_is_protected_the_same_way(tmp_path: Path) -> None:
    chosen = tmp_path / "mine.json"
    prepare_save("biblios", ("human", "random", "random"), 3, human_in(Phase.PICK), path=chosen)
    original = chosen.read_bytes()
    lock = SaveLock.acquire(chosen)

    async def scenario() -> None:
        app = make_app(game_config(seed=4), bot_delay=0, save_file=chosen)
        async with app.run_test(size=(100, 30)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, TableScreen))
            assert app.session is not None and app.session.save_to == tmp_path / "mine-2.json"

    asyncio.run(scenario())
    assert chosen.read_bytes() == original
    assert load_game(tmp_path / "mine-2.json").state.seed == 4
    assert lock is not None
    lock.release()


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", "Another biblios-kit window is using the saved game current-game.json"),
        ("fr", "Une autre fenêtre de biblios-kit utilise la partie sauvegardée current-game.json"),
        ("es", "Otra ventana de biblios-kit está usando la partida guardada current-game.json"),
    ],
)
def test_the_save_in_use_message_is_translated(lang: str, words: str) -> None:
    set_language(lang)
    lock = SaveLock.acquire(save_path())

    async def scenario() -> None:
        app = make_app(GameConfig(lang=lang), bot_delay=0)
        async with app.run_test(size=(220, 40)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, SetupScreen))
            await pilot.pause()
            shown = visible_text(app)
            assert words in shown and "current-game-2.json" in shown

    try:
        asyncio.run(scenario())
    finally:
        assert lock is not None
        lock.release()
