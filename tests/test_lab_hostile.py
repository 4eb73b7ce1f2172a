"""The lab against hostile input: damaged or foreign results files, special files, huge runs, a cluster without workers.

Each case ends in a located message and exit status 2 (or :class:`ResultsFileError` for the
library), never a traceback, a hang or a ``MemoryError``.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from biblios_kit.cli.app import build_app
from biblios_kit.i18n import use_language
from biblios_kit.lab import backends
from biblios_kit.lab.backends import InProcessBackend, WorkersGoneError, WorkerWatch
from biblios_kit.lab.plan import MAIN, MAX_GAMES, Experiment, GameRow, Job, RulesetRef, run_job
from biblios_kit.lab.results import MAX_LINE_BYTES, ResultsFileError, read_results
from biblios_kit.lab.runner import run_experiment
from biblios_kit.rules import load_ruleset


@pytest.fixture(autouse=True)
def _english(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BIBLIOS_KIT_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("BIBLIOS_KIT_DATA_DIR", str(tmp_path / "data"))
    use_language("en")


def _experiment(seed: int = 0, games: int = 6) -> Experiment:
    return Experiment((RulesetRef.of(load_ruleset("biblios")),), (3,), ("random",), (MAIN,), games=games, seed=seed,
                      batch=3)  # fmt: skip


@pytest.fixture(scope="module")
def good_lines(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    """The lines of a sound results file of :func:`_experiment` (a header and six games)."""
    path = tmp_path_factory.mktemp("lab") / "good.jsonl"
    use_language("en")
    run_experiment(_experiment(), InProcessBackend(), path)
    return path.read_bytes().splitlines(keepends=True)


def _row(lines: list[bytes], number: int) -> GameRow:
    row: GameRow = json.loads(lines[number - 1])
    return row


def _line(row: object) -> bytes:
    return json.dumps(row).encode() + b"\n"


def _damaged(lines: list[bytes], number: int, replacement: bytes) -> bytes:
    """The file with line ``number`` (1-based) replaced."""
    return b"".join([*lines[: number - 1], replacement, *lines[number:]])


def _refused(path: Path, line: int, needle: str) -> None:
    with pytest.raises(ResultsFileError) as caught:
        read_results(path, _experiment())
    assert caught.value.line == line, caught.value
    assert needle in caught.value.reason, caught.value.reason
    assert f"{path}:{line}: " in str(caught.value)


def _without(row: GameRow, *path: str) -> GameRow:
    copy = json.loads(json.dumps(row))
    target = copy
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return copy


def _with(row: GameRow, value: object, *path: str) -> GameRow:
    copy = json.loads(json.dumps(row))
    target = copy
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return copy


DAMAGES: dict[str, tuple[Callable[[GameRow], bytes], str]] = {
    "binary bytes": (lambda row: b'{"cell": "0|3|main", "index": \xff\xfe\x00}\n', "not UTF-8"),
    "NUL bytes": (lambda row: b"\x00" * 200 + b"\n", "invalid or truncated JSON"),
    "no metrics": (lambda row: _line(_without(row, "metrics")), "metrics is missing or malformed"),
    "metrics a list": (lambda row: _line(_with(row, [1, 2], "metrics")), "metrics is missing or malformed"),
    "win a string": (lambda row: _line(_with(row, "all", "metrics", "win")), "metrics.win is missing"),
    "vp too short": (lambda row: _line(_with(row, [1], "metrics", "vp")), "metrics.vp is missing"),
    "win share above 1": (lambda row: _line(_with(row, [5, 0, 0], "metrics", "win")), "metrics.win is missing"),
    "no dice": (lambda row: _line(_without(row, "metrics", "dice")), "metrics.dice is missing"),
    "a die too many": (lambda row: _line(_with(row, 3, "metrics", "dice", "9")), "metrics.dice is missing"),
    "winner out of range": (
        lambda row: _line(_with(row, [7, 0, 0, 0, 0], "metrics", "category_winner")),
        "metrics.category_winner",
    ),
    "negative count": (lambda row: _line(_with(row, -1, "metrics", "decisions")), "metrics.decisions"),
    "unknown metric": (lambda row: _line(_with(row, 1, "metrics", "bonus")), "unknown field metrics.bonus"),
    "unknown field": (lambda row: _line(_with(row, 1, "extra")), "unknown field extra"),
    "not an object": (lambda row: b"[1, 2, 3]\n", "not a game result"),
    "unknown cell": (lambda row: _line(_with(row, "9|3|main", "cell")), "9|3|main is not one of this experiment"),
    "escape in the cell": (lambda row: _line(_with(row, "\x1b[31m", "cell")), "'\\x1b[31m'"),
    "index past the end": (lambda row: _line(_with(row, 6, "index")), "from 0 to 5"),
    "index a float": (lambda row: _line(_with(row, 1.5, "index")), "from 0 to 5"),
    "other seats": (lambda row: _line(_with(row, ["hard"] * 3, "seats")), "not played by the seats"),
    "very deep": (lambda row: b"[" * 20_000 + b"]" * 20_000 + b"\n", "nesting is deeper"),
    "too long": (lambda row: b'"' + b"a" * (MAX_LINE_BYTES + 10) + b'"\n', "longer than 64 KiB"),
    "huge number": (lambda row: _line(_with(row, 10**100, "seed")), "more than 40 digits"),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_game_line_is_refused_at_its_line(damage: str, good_lines: list[bytes], tmp_path: Path) -> None:
    make, needle = DAMAGES[damage]
    path = tmp_path / "r.jsonl"
    path.write_bytes(_damaged(good_lines, 3, make(_row(good_lines, 3))))
    _refused(path, 3, needle)


def test_a_damaged_header_is_refused(good_lines: list[bytes], tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(_damaged(good_lines, 1, b"[" * 20_000 + b"\n"))
    _refused(path, 1, "not a lab results file")


def test_a_damaged_last_line_is_refused_unless_cut_short(good_lines: list[bytes], tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    last = len(good_lines)
    path.write_bytes(_damaged(good_lines, last, b'{"cell": 3}\n'))  # a whole line, not a crash's leftover
    _refused(path, last, "is missing or malformed")
    path.write_bytes(_damaged(good_lines, last, b'{"cell": "0|3|ma'))  # cut short: that game is played again
    assert len(read_results(path, _experiment())) == 5


def test_game_lines_of_another_experiment_are_refused(good_lines: list[bytes], tmp_path: Path) -> None:
    other = tmp_path / "other.jsonl"
    run_experiment(_experiment(seed=1), InProcessBackend(), other)
    foreign = other.read_bytes().splitlines(keepends=True)
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"".join([*good_lines[:4], foreign[4], *good_lines[5:]]))  # same cell, same game number
    _refused(path, 5, "comes from another experiment")
    row = _row(foreign, 5)
    assert row["cell"] == _row(good_lines, 5)["cell"] and row["index"] == _row(good_lines, 5)["index"]


def test_a_game_given_twice_is_refused(good_lines: list[bytes], tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"".join([*good_lines, good_lines[2]]))
    _refused(path, len(good_lines) + 1, "already on line 3")


def test_the_sound_file_is_read_whole(good_lines: list[bytes], tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"".join(good_lines))
    assert len(read_results(path, _experiment())) == 6


# --------------------------------------------------------------------------- special files


def _run(path: Path, resume: bool) -> None:
    run_experiment(_experiment(games=3), InProcessBackend(), path, resume=resume)


@pytest.mark.parametrize("resume", [False, True])
def test_a_link_to_dev_zero_is_refused(resume: bool, tmp_path: Path) -> None:
    path = tmp_path / "zero.jsonl"
    path.symlink_to("/dev/zero")
    with pytest.raises(ResultsFileError) as caught:
        _run(path, resume)
    assert "symbolic link" in caught.value.reason
    with pytest.raises(ResultsFileError) as caught:
        read_results(path, _experiment())
    assert "a device" in caught.value.reason


@pytest.mark.parametrize("resume", [False, True])
def test_a_fifo_is_refused_without_hanging(resume: bool, tmp_path: Path) -> None:
    path = tmp_path / "fifo.jsonl"
    os.mkfifo(path)
    outcome: list[BaseException] = []

    def attempt() -> None:
        try:
            _run(path, resume)
        except BaseException as error:
            outcome.append(error)

    thread = threading.Thread(target=attempt, daemon=True)
    thread.start()
    thread.join(20)
    if thread.is_alive():
        with open(path, "rb+"):  # unblock the writer so the thread ends
            pass
        pytest.fail("the lab hung on a FIFO")
    assert outcome and isinstance(outcome[0], ResultsFileError) and "named pipe" in outcome[0].reason


def test_a_symbolic_link_is_never_written_through(tmp_path: Path) -> None:
    target = tmp_path / "precious.txt"
    target.write_text("keep me\n")
    path = tmp_path / "link.jsonl"
    path.symlink_to(target)
    with pytest.raises(ResultsFileError) as caught:
        _run(path, False)
    assert "symbolic link" in caught.value.reason
    assert target.read_text() == "keep me\n"


# --------------------------------------------------------------------------- the CLI


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(build_app(), list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout + result.stderr


def test_cli_exits_2_at_the_damaged_line(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    base = ["lab", "compare", "biblios", "-p", "3", "-b", "random", "-g", "3", "--in-process", "--json"]
    assert _cli(*base, "--results", str(path))[0] == 0
    lines = path.read_bytes().splitlines(keepends=True)
    row = _row(lines, 2)
    del row["metrics"]
    path.write_bytes(_damaged(lines, 2, _line(row)))
    code, output = _cli(*base, "--results", str(path), "--resume")
    assert code == 2 and f"{path}:2: metrics is missing or malformed" in output and "Traceback" not in output
    path.write_bytes(_damaged(lines, 2, b"\xc3\x28 binary\n"))
    code, output = _cli(*base, "--results", str(path), "--resume")
    assert code == 2 and f"{path}:2: not UTF-8" in output and "internal error" not in output
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code, output = _cli(*base, "--results", str(fifo))
    assert code == 2 and "named pipe" in output


def test_cli_refuses_a_special_file_as_the_html_report_before_playing(tmp_path: Path) -> None:
    fifo = tmp_path / "report.html"
    os.mkfifo(fifo)
    base = ["lab", "compare", "biblios", "-p", "3", "-b", "random", "-g", "3", "--in-process"]
    code, output = _cli(*base, "--results", str(tmp_path / "r.jsonl"), "--html", str(fifo))
    assert code == 2 and f"--html {fifo}: a named pipe" in output
    assert not (tmp_path / "r.jsonl").exists()  # refused before any game was played
    link = tmp_path / "link.html"
    link.symlink_to(tmp_path / "elsewhere.html")
    code, output = _cli(*base, "--results", str(tmp_path / "r.jsonl"), "--html", str(link))
    assert code == 2 and "symbolic link" in output and not (tmp_path / "elsewhere.html").exists()


def test_cli_refuses_more_games_than_the_cap_at_once(tmp_path: Path) -> None:
    code, output = _cli("lab", "compare", "biblios", "-g", "1000000000000", "--in-process",
                        "--results", str(tmp_path / "r.jsonl"))  # fmt: skip
    assert code == 2 and "--games and --max-games must be at most 1,000,000" in output
    code, output = _cli("lab", "compare", "biblios", "-w", "1000000", "--results", str(tmp_path / "r.jsonl"))
    assert code == 2 and "--workers must be at most" in output  # a million processes were about to start
    code, output = _cli("lab", "compare", "biblios", "--precision", "0.01", "--max-games", str(MAX_GAMES + 1),
                        "--in-process", "--results", str(tmp_path / "r.jsonl"))  # fmt: skip
    assert code == 2 and "at most" in output


class _Pulling(InProcessBackend):
    """Takes ``count`` jobs, checks they come one at a time (not a list made up front), then stops like Ctrl-C."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.taken: list[Job] = []

    def run(self, jobs: Iterable[Job]) -> Iterator[tuple[Job, list[GameRow]]]:
        assert not isinstance(jobs, list | tuple), "the jobs were planned up front"
        for job in jobs:
            self.taken.append(job)
            if len(self.taken) > self.count:
                raise KeyboardInterrupt
            yield job, run_job(job)


def test_a_run_at_the_cap_plans_lazily(tmp_path: Path) -> None:
    experiment = Experiment((RulesetRef.of(load_ruleset("biblios")),), (2, 3, 4), ("random",), (MAIN,),
                            games=MAX_GAMES, batch=1)  # fmt: skip
    backend = _Pulling(2)
    path = tmp_path / "big.jsonl"
    with pytest.raises(KeyboardInterrupt):
        run_experiment(experiment, backend, path)
    assert len(backend.taken) == 3
    assert len(read_results(path, experiment)) == 2  # the finished games were kept


# --------------------------------------------------------------------------- a cluster without workers


def test_the_watch_stops_after_the_limit_without_workers() -> None:
    now = [0.0]
    counts = iter([2, 0, 0, 1, 0, 0, 0])
    watch = WorkerWatch(lambda: next(counts), limit=30, clock=lambda: now[0])
    for step in (0, 10, 25, 40, 50, 70):  # none from 10 to 25 s, one at 40 s, none again from 50 s
        now[0] = step
        watch.check()
    now[0] = 80  # none since 50 s: 30 s without a worker
    with pytest.raises(WorkersGoneError):
        watch.check()


def test_an_unanswering_scheduler_counts_as_no_worker() -> None:
    now = [0.0]

    def count() -> int:
        raise OSError("connection refused")

    watch = WorkerWatch(count, limit=5, clock=lambda: now[0])
    watch.check()
    now[0] = 5
    with pytest.raises(WorkersGoneError):
        watch.check()


@pytest.mark.slow
def test_a_cluster_without_workers_stops_the_run_with_a_message(monkeypatch: pytest.MonkeyPatch,
                                                                tmp_path: Path) -> None:  # fmt: skip
    from distributed import LocalCluster

    monkeypatch.setattr(backends, "WORKERS_GONE_AFTER", 1.0)
    with LocalCluster(n_workers=0, processes=True, dashboard_address=None, host="127.0.0.1") as cluster:
        path = tmp_path / "r.jsonl"
        code, output = _cli("lab", "compare", "biblios", "-p", "3", "-b", "random", "-g", "3",
                            "--cluster", cluster.scheduler_address, "--results", str(path))  # fmt: skip
    assert code == 2 and "no worker for 1 s" in output and "--resume" in output, output
    assert path.read_text().count("\n") == 1  # the header: ready to be resumed


@pytest.mark.slow
def test_a_lost_scheduler_stops_the_run_with_a_message(tmp_path: Path) -> None:
    from distributed import LocalCluster

    cluster = LocalCluster(n_workers=0, processes=True, dashboard_address=None, host="127.0.0.1")
    closer = threading.Timer(2.0, cluster.close)  # the scheduler stops while games wait
    closer.start()
    try:
        path = tmp_path / "r.jsonl"
        code, output = _cli("lab", "compare", "biblios", "-p", "3", "-b", "random", "-g", "3",
                            "--cluster", cluster.scheduler_address, "--results", str(path))  # fmt: skip
    finally:
        closer.cancel()
        cluster.close()
    assert code == 2 and "connection to the Dask scheduler was lost" in output and "--resume" in output, output
    assert "Traceback" not in output
