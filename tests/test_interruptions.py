"""Interruptions lose nothing and explain themselves: dead workers, Ctrl-C, abandoned temporary files."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from biblios_kit.atomic import is_temporary_name, remove_stale_temporaries, write_text_atomic
from biblios_kit.sim.model import SimConfig
from biblios_kit.sim.runner import INTERRUPTED, WORKER_DIED, SimulationStopped, run_games, run_simulation

LINUX_PROC = Path("/proc/self/task").is_dir()


def _simulate(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "BIBLIOS_LANG": "en"}
    return subprocess.Popen(
        [sys.executable, "-m", "biblios_kit", "simulate", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def _stop(process: subprocess.Popen[str]) -> None:
    """Kill ``process`` and its children (a failed test must not leave workers holding its pipes)."""
    if process.poll() is None:
        for child in _children(process.pid):
            with contextlib.suppress(OSError):
                os.kill(child, signal.SIGKILL)
        process.kill()
        process.communicate()


def _worker_of(process: subprocess.Popen[str], timeout: float = 60.0) -> int:
    """The pid of a pool worker of ``process`` (a forked child running the same command line)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        own = Path(f"/proc/{process.pid}/cmdline").read_bytes()  # read again: at first, not yet exec'd
        for child in _children(process.pid):
            try:
                if Path(f"/proc/{child}/cmdline").read_bytes() == own:
                    return child
            except OSError:
                continue
        time.sleep(0.05)
    raise AssertionError("no worker process appeared")


@pytest.mark.skipif(not LINUX_PROC, reason="finds the worker processes through /proc")
def test_a_killed_worker_gives_a_clear_error_and_the_figures_so_far() -> None:
    process = _simulate("--games", "1000000", "--workers", "2", "--players", "2", "--json")
    try:
        worker = _worker_of(process)
        time.sleep(1.0)  # let some chunks finish
        os.kill(worker, signal.SIGKILL)
        out, err = process.communicate(timeout=60)
    finally:
        _stop(process)
    assert process.returncode == 2, err
    assert "Traceback" not in err and "BrokenProcessPool" not in err
    assert err.startswith("error: a worker process died"), err
    data = json.loads(out)
    assert data["stopped"] == WORKER_DIED and data["games_planned"] == 1_000_000
    assert 0 < data["games"] < 1_000_000
    assert f"{data['games']} of 1000000 games finished" in err


@pytest.mark.skipif(not LINUX_PROC, reason="finds the worker processes through /proc")
def test_workers_stop_when_the_main_process_is_killed() -> None:
    process = _simulate("--games", "1000000", "--workers", "2", "--players", "2")
    try:
        worker = _worker_of(process)
        process.kill()  # SIGKILL: no chance to stop the workers itself
        process.communicate(timeout=60)
        deadline = time.monotonic() + 20
        while _running(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        alive = _running(worker)
        if alive:
            os.kill(worker, signal.SIGKILL)
        assert not alive, "the worker went on playing after its main process was killed"
    finally:
        _stop(process)


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (not gone, not a zombie)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] not in ("Z", "X")
    except OSError:
        return False


@pytest.mark.skipif(not LINUX_PROC, reason="waits for the worker processes through /proc")
@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_prints_the_figures_so_far_and_says_so(workers: str) -> None:
    process = _simulate("--games", "1000000", "--workers", workers, "--players", "2")
    try:
        if workers != "1":
            _worker_of(process)
        time.sleep(1.5)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        _stop(process)
    assert process.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert err.startswith("Interrupted: "), err
    assert "games of Biblios with 2 players" in out and "Win rate per seat:" in out
    games = int(out.split(" games of ")[0].replace(",", ""))
    assert 0 < games < 1_000_000 and f"{games} of 1000000 games finished" in err


@pytest.mark.parametrize("entry", ["python -m", "console script"])
def test_ctrl_c_while_the_command_starts_ends_it_quietly(entry: str) -> None:
    """Ctrl+C while the command's libraries load: status 130 and no traceback, as a Ctrl+C later."""
    start = (
        "runpy.run_module('biblios_kit', run_name='__main__', alter_sys=True)"
        if entry == "python -m"
        else "from biblios_kit.__main__ import run\nrun()"  # what the installed command's wrapper does
    )
    code = (
        "import builtins, runpy\n"
        "real = builtins.__import__\n"
        "def interrupted(name, *args, **kwargs):\n"
        "    if name == 'typer':\n"
        "        raise KeyboardInterrupt  # the key pressed while the command's libraries load\n"
        "    return real(name, *args, **kwargs)\n"
        "builtins.__import__ = interrupted\n"
        f"{start}\n"
    )
    done = subprocess.run([sys.executable, "-c", code, "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr


def test_a_ctrl_c_while_the_workers_are_forked_is_not_lost() -> None:
    """Python drops a KeyboardInterrupt raised in its fork hooks: a submission to the pool (which forks the workers)
    holds Ctrl+C back and takes it as it returns, so the run stops as it does anywhere else."""
    code = (
        "import os, signal, time\n"
        "from biblios_kit.sim.runner import submit_held\n"
        "done = []\n"
        "class Pool:\n"
        "    def submit(self, function, *args):\n"
        "        os.kill(os.getpid(), signal.SIGINT)  # the key, pressed while a worker is forked\n"
        "        time.sleep(0.2)\n"
        "        done.append(args)\n"
        "        return 'future'\n"
        "try:\n"
        "    submit_held(Pool(), len, 'chunk')\n"
        "    time.sleep(0.5)\n"
        "    print('not stopped')\n"
        "except KeyboardInterrupt:\n"
        "    print('stopped after', done)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "stopped after [('chunk',)]", done.stdout + done.stderr


def test_an_interrupted_run_keeps_the_games_of_the_chunk_in_play(monkeypatch: pytest.MonkeyPatch) -> None:
    import biblios_kit.sim.runner as runner

    real = runner._play_range

    def interrupted(config, ruleset, start, stop, rows=None):  # type: ignore[no-untyped-def]
        if start >= 8:
            real(config, ruleset, start, start + 3, rows)  # three games of the chunk, then Ctrl-C
            raise KeyboardInterrupt
        return real(config, ruleset, start, stop, rows)

    monkeypatch.setattr(runner, "_play_range", interrupted)
    config = SimConfig("biblios", 2, 40, seed=3, bots=("random", "random"))
    with pytest.raises(SimulationStopped) as caught:
        run_simulation(config)
    stopped = caught.value
    assert stopped.reason == INTERRUPTED and stopped.planned == 40
    cut = next(start for start, _stop in runner._chunks(40, 1) if start >= 8) + 3
    assert [summary.index for summary in stopped.summaries] == list(range(cut))
    assert stopped.stats is not None and stopped.stats.games == cut


def test_a_run_stopped_before_any_game_has_no_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    import biblios_kit.sim.runner as runner

    def interrupted(config, ruleset, start, stop, rows=None):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "_play_range", interrupted)
    with pytest.raises(SimulationStopped) as caught:
        run_games(SimConfig("biblios", 2, 10, bots=("random", "random")))
    assert caught.value.summaries == [] and caught.value.stats is None


# --------------------------------------------------------------------------- temporary files


def _age(path: Path, seconds: float) -> None:
    past = time.time() - seconds
    os.utime(path, (past, past), follow_symlinks=False)


def test_only_our_own_old_temporary_files_are_removed(tmp_path: Path) -> None:
    old = tmp_path / ".current-game.json.ab12cd_9.tmp"
    fresh = tmp_path / ".current-game.json.zz99yy00.tmp"
    not_ours = [tmp_path / "notes.tmp", tmp_path / ".x.tmp", tmp_path / ".x.ABCDEFGH.tmp", tmp_path / "a.json"]
    for path in [old, fresh, *not_ours]:
        path.write_text("{}")
    folder = tmp_path / ".dir.abcdefgh.tmp"
    folder.mkdir()
    target = tmp_path / "precious.json"
    target.write_text("keep me")
    link = tmp_path / ".link.abcdefgh.tmp"
    link.symlink_to(target)
    for path in [old, *not_ours, folder, link]:
        _age(path, 2 * 3600)
    assert is_temporary_name(old.name) and not any(is_temporary_name(p.name) for p in not_ours)

    assert remove_stale_temporaries(tmp_path) == [old]
    assert not old.exists()
    assert all(p.exists() for p in [fresh, *not_ours, folder]) and link.is_symlink()
    assert target.read_text() == "keep me"
    assert remove_stale_temporaries(tmp_path / "missing") == []


def test_an_interrupted_write_leaves_a_temporary_file_that_the_next_save_removes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from biblios_kit.engine import new_game
    from biblios_kit.rules import load_ruleset
    from biblios_kit.tui import saves

    folder = tmp_path / "saves"
    folder.mkdir()
    # What a process killed between writing and renaming leaves behind.
    leftover = folder / ".current-game.json.k1ll3d00.tmp"
    leftover.write_text('{"format": "biblios-kit-game"')
    _age(leftover, 3 * 3600)
    monkeypatch.setattr(saves, "_tidied", set())
    state = new_game(load_ruleset("biblios"), 3, 1)
    path = saves.save_game(state, ["human", "easy", "easy"], ["A", "B", "C"], "en", folder / "current-game.json")
    assert sorted(p.name for p in folder.iterdir()) == [path.name]


def test_a_failed_atomic_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "record.json"
    target.write_text("old")

    with pytest.raises(TypeError):
        write_text_atomic(target, 42)  # type: ignore[arg-type]
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["record.json"]


def test_simulate_records_removes_the_leftovers_of_a_killed_run(tmp_path: Path) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    leftover = folder / ".game-000001.json.q8w7e6r5.tmp"
    leftover.write_text("{")
    _age(leftover, 2 * 3600)
    fresh = folder / ".game-000002.json.a1b2c3d4.tmp"  # another run writing right now
    fresh.write_text("{")
    run_simulation(SimConfig("biblios", 2, 2, bots=("random", "random"), records=str(folder)))
    assert sorted(p.name for p in folder.iterdir()) == [fresh.name, "game-000001.json", "game-000002.json"]
