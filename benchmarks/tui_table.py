"""Benchmark of a key press at the table, in process, on a pseudo-terminal (Textual's own terminal driver).

Scenarios (``--scenario``):

* ``keep``: ``k`` (keep the drawn card), the first decision of a new three-player game (a person and two
  random bots, no bot delay): the scenario of ``benchmarks/tui.py``, the log grows and the "Now" panel
  changes; a new game is started for each press (seeds whose first card is not a church card);
* ``bid``: ``+`` and ``-`` in turn (raise or lower the bid), four players late in the auction phase (a
  saved game resumed): the "Now" panel, the action bar and the footer change;
* ``redraw``: in the ``bid`` position, every panel but the log forgets its part and the table is drawn
  again from the view (what F2 does besides translating and writing the log again).

A press is measured from the key to the table being idle again: every frame it causes, the footer's
included. The app runs with Textual's terminal driver writing to a pseudo-terminal (the frames are turned
into escape sequences as in the real program).

Figures per press: the main thread's CPU time (``time.thread_time``: the key, the view, the layout and the
frames; not the save thread nor the driver's writer thread), which moves much less with the machine's load
than the wall time, also printed. ``--instructions`` runs the same measurement under valgrind's callgrind
and counts the main thread's instructions per press, which do not depend on the load at all (about 30
times slower; a few presses are enough, the counts are stable to about 0.1%).

Run from a checkout: ``.venv/bin/python benchmarks/tui_table.py [--scenario keep] [--size 120x40]
[--presses N] [--instructions]``; run the same file from another checkout's folder to compare (the
package is imported from the current folder). Figures go in docs/performance.md (TUI section).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import fcntl
import os
import random
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from textual.drivers.linux_driver import LinuxDriver

sys.path.insert(0, os.getcwd())  # measure the checkout we are run from

from tui import plain_seeds  # benchmarks/tui.py: the same games as its key press

if TYPE_CHECKING:
    from textual.pilot import Pilot

    from biblios_kit.tui.app import BibliosApp

SCENARIOS = ("keep", "bid", "redraw")
SIZES = ((80, 24), (120, 40))


def start_marker() -> None:
    """Marks the start of a measured press for callgrind (``--zero-before=os_getppid``); nothing otherwise."""
    os.getppid()


def frame_marker() -> None:
    """Marks the frame of a measured press for callgrind (``--dump-before=os_getpgrp``); nothing otherwise."""
    os.getpgrp()


def end_marker() -> None:
    """Marks the end of a measured press for callgrind (``--dump-before=os_getegid``); nothing otherwise."""
    os.getegid()


class MeasuredDriver(LinuxDriver):
    """Textual's terminal driver, telling :attr:`samples` of each frame it writes."""

    samples: Samples | None = None

    def write(self, data: str) -> None:
        if self.samples is not None:
            self.samples.frame_written(data)
        super().write(data)


@contextlib.contextmanager
def pseudo_terminal(size: tuple[int, int]) -> Iterator[None]:
    """Standard input and error on a new pseudo-terminal of ``size`` (Textual's driver uses them) while inside;
    a ``cat`` reads what is written to it, as a terminal would."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
    reader = subprocess.Popen(["cat"], stdin=master, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    saved = os.dup(0), os.dup(2)
    environ = os.environ.copy()
    os.environ.update(COLUMNS=str(size[0]), LINES=str(size[1]), TERM="xterm-256color")
    os.dup2(slave, 0)
    os.dup2(slave, 2)
    try:
        yield
    finally:
        os.dup2(saved[0], 0)
        os.dup2(saved[1], 2)
        os.environ.clear()
        os.environ.update(environ)
        for fd in (*saved, slave, master):
            os.close(fd)
        reader.kill()
        reader.wait()


async def settle(step: float = 0.02) -> None:
    """Wait until the process is idle: a step of ``step`` seconds in which it used less than a tenth of its CPU.

    Unlike Textual's ``wait_for_idle``, there is no time limit (under valgrind a frame takes a second)."""
    while True:
        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.sleep(step)
        if time.process_time() - cpu < (time.perf_counter() - wall) / 10:
            return


class Samples:
    """Wall and main-thread CPU times of the measured presses, in milliseconds."""

    def __init__(self, profile: cProfile.Profile | None = None) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.frame_wall: list[float] = []
        self.frame_cpu: list[float] = []
        """To the frame showing the press's effect (written to the driver), when there is one."""
        self.profile = profile
        """Profiles the presses (``--profile``)."""
        self.marker: str | None = None
        """The text that tells the frame showing the press ("" for the first frame after it; ``None`` outside a
        press or once that frame is written)."""
        self._started = (0.0, 0.0)

    def frame_written(self, data: str) -> None:
        """The driver writes ``data`` (a frame, as escape sequences): note the time if it shows the press."""
        if self.marker is not None and self.marker in data:
            self.marker = None
            self.frame_cpu.append((time.thread_time() - self._started[1]) * 1000)
            self.frame_wall.append((time.perf_counter() - self._started[0]) * 1000)
            if self.profile is not None:
                self.profile.disable()
            frame_marker()

    @contextlib.asynccontextmanager
    async def press(self, marker: str = "") -> AsyncIterator[None]:
        """Measure what happens inside, then until the process is idle again; the first frame written that
        holds ``marker`` is timed too."""
        start_marker()
        if self.profile is not None:
            self.profile.enable()
        self.marker = marker
        self._started = wall, cpu = time.perf_counter(), time.thread_time()
        yield
        await settle()
        self.cpu.append((time.thread_time() - cpu) * 1000)
        self.wall.append((time.perf_counter() - wall) * 1000)
        if self.profile is not None and self.marker is not None:  # no frame showed the press
            self.profile.disable()
        self.marker = None
        end_marker()


def prepare_auction(players: int, data_dir: Path) -> None:
    """Play random moves until the person in seat 0 bids late in the auction phase; save that game."""
    from biblios_kit.engine.state import Phase, new_game
    from biblios_kit.rules import load_ruleset
    from biblios_kit.tui.saves import save_game

    state = new_game(load_ruleset("biblios"), players, seed=4)
    rng = random.Random(1)
    while not (state.phase is Phase.BIDDING and state.current_player == 0 and state.decision_count > 160):
        state.apply(state.random_action(rng))
    seats = ("human",) + ("random",) * (players - 1)
    save_game(state, seats, tuple(f"P{i + 1}" for i in range(players)), "en", data_dir / "saves" / "current-game.json")


async def until(done: Callable[[], bool], limit: float = 600.0) -> None:
    """Let the app run until ``done()`` (at most ``limit`` seconds)."""
    deadline = time.perf_counter() + limit
    while not done():
        if time.perf_counter() > deadline:
            raise TimeoutError("the table did not get there")
        await asyncio.sleep(0.005)


def my_turn(app: BibliosApp) -> bool:
    """Whether the table waits for the person at the keyboard."""
    from biblios_kit.tui.screens.table import TableScreen

    return isinstance(app.screen, TableScreen) and bool(app.screen.my_legal())


async def start_game(app: BibliosApp, seed: int, data_dir: Path) -> None:
    """Leave the table shown (for the setup screen), start a new three-player game with ``seed`` (a person and
    two random bots) and wait for the person's first decision."""
    from biblios_kit.tui.config import GameConfig

    shown = app.screen
    if my_turn(app):  # the table is taken down first (two tables cannot be shown at once)
        app.show_setup()
        await until(lambda: not shown.is_attached)
    for leftover in (data_dir / "saves").glob("*"):
        leftover.unlink()  # no saved game to confirm replacing
    config = GameConfig(players=3, seats=("human", "random", "random"), seed=seed, lang="en",
                        explicit=frozenset({"ruleset", "players", "seats", "seed"}))  # fmt: skip
    before = app.screen
    app.request_new_game(config)
    await until(lambda: app.screen is not before and my_turn(app))


async def keep_presses(pilot: Pilot[None], samples: Samples, presses: int, data_dir: Path) -> None:
    """``k`` as the first decision of a new game, once per game (``benchmarks/tui.py``'s scenario)."""
    app = pilot.app
    assert isinstance(app, _app_type())
    for seed in plain_seeds(presses):
        await start_game(app, seed, data_dir)  # type: ignore[arg-type]
        await settle()
        async with samples.press("Kept this turn"):
            app.simulate_key("k")


async def bid_presses(pilot: Pilot[None], samples: Samples, presses: int) -> None:
    """``+`` and ``-`` in turn in the auction (the saved game was resumed)."""
    app = pilot.app
    await until(lambda: my_turn(app))  # type: ignore[arg-type]
    await settle()
    for index in range(presses):
        async with samples.press():
            app.simulate_key("plus" if index % 2 == 0 else "minus")


async def redraw_presses(pilot: Pilot[None], samples: Samples, presses: int) -> None:
    """Every panel but the log drawn again from the view (the saved game was resumed)."""
    from biblios_kit.tui.widgets.table_log import TableLog

    app = pilot.app
    await until(lambda: my_turn(app))  # type: ignore[arg-type]
    await settle()
    table = app.screen
    for _index in range(presses):
        async with samples.press():
            for panel in table.query("*"):
                if hasattr(panel, "part") and not isinstance(panel, TableLog):
                    panel.part = None
            table.update_view()  # type: ignore[attr-defined]


def _app_type() -> type:
    from biblios_kit.tui.app import BibliosApp

    return BibliosApp


async def measure(scenario: str, presses: int, size: tuple[int, int], data_dir: Path,
                  profile: cProfile.Profile | None) -> Samples:  # fmt: skip
    """Run ``scenario`` in a new app at ``size``; the samples of its presses."""
    from biblios_kit.tui.app import make_app

    samples = Samples(profile)
    app = make_app(resume=scenario != "keep", bot_delay=0)
    app.driver_class = MeasuredDriver
    MeasuredDriver.samples = samples
    # Notifications and tooltips on, as in the program (the pilot turns them off by default).
    async with app.run_test(headless=False, size=size, notifications=True, tooltips=True) as pilot:
        if scenario == "keep":
            await keep_presses(pilot, samples, presses, data_dir)
        elif scenario == "bid":
            await bid_presses(pilot, samples, presses)
        else:
            await redraw_presses(pilot, samples, presses)
    MeasuredDriver.samples = None
    return samples


def run(scenario: str, presses: int, size: tuple[int, int], profile: cProfile.Profile | None = None) -> Samples:
    """Measure ``scenario`` in a throw-away data folder (profiling the presses with ``profile``)."""
    with tempfile.TemporaryDirectory() as folder:
        os.environ["BIBLIOS_KIT_DATA_DIR"] = folder
        os.environ["BIBLIOS_LANG"] = "en"
        if scenario != "keep":
            prepare_auction(4, Path(folder))
        with pseudo_terminal(size):
            return asyncio.run(measure(scenario, presses, size, Path(folder), profile))


def count_instructions(scenario: str, presses: int, size: tuple[int, int]) -> tuple[list[float], list[float]]:
    """Run ``scenario`` under callgrind: the main thread's instructions of each measured press, to its frame and
    to idle."""
    with tempfile.TemporaryDirectory() as folder:
        command = ["valgrind", "--tool=callgrind", "--separate-threads=yes", "--zero-before=os_getppid",
                   "--dump-before=os_getpgrp", "--dump-before=os_getegid", f"--callgrind-out-file={folder}/out",
                   sys.executable, __file__, "--scenario", scenario, "--presses", str(presses),
                   "--size", f"{size[0]}x{size[1]}"]  # fmt: skip
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        dumps: list[tuple[int, str, int]] = []
        for dump in Path(folder).glob("out.*-01"):  # out.<part>-<thread>: the main thread's dumps
            text = dump.read_text()
            cause = re.search(r"^desc: Trigger: --dump-before=(\w+)", text, re.MULTILINE)
            found = re.search(r"^summary: (\d+)", text, re.MULTILINE)
            if cause is not None and found is not None:
                part = int(dump.name.split(".")[1].split("-")[0])
                dumps.append((part, cause.group(1), int(found.group(1))))
    frames: list[float] = []
    idle: list[float] = []
    frame = 0
    for _part, trigger, count in sorted(dumps):
        if trigger == "os_getpgrp":
            frame = count
        else:  # the press ends: its frame's dump (if any) came first
            frames.append(frame)
            idle.append(frame + count)
            frame = 0
    if len(idle) != presses:
        raise RuntimeError(f"expected {presses} presses in callgrind's dumps, found {len(idle)}")
    return frames, idle


def parse_size(text: str) -> tuple[int, int]:
    """``"120x40"`` as ``(120, 40)``."""
    columns, _x, lines = text.partition("x")
    if not (columns.isdigit() and lines.isdigit()):
        raise argparse.ArgumentTypeError("expected COLUMNSxLINES, e.g. 120x40")
    return int(columns), int(lines)


def summary(values: list[float], unit: str, scale: float = 1.0) -> str:
    """Median and range of ``values`` (scaled), or a dash when there are none."""
    if not values:
        return "-"
    return (f"median {statistics.median(values) * scale:7.1f} {unit} "
            f"({min(values) * scale:.1f}-{max(values) * scale:.1f})")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Run the measurements and print a summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", choices=(*SCENARIOS, "all"), default="all", help="what to press (default all)")
    parser.add_argument("--size", type=parse_size, action="append", help="COLUMNSxLINES (default 80x24 and 120x40)")
    parser.add_argument("--presses", type=int, default=20, help="presses measured per scenario and size (default 20)")
    parser.add_argument("--instructions", action="store_true", help="count instructions under callgrind")
    parser.add_argument("--profile", metavar="FILE",
                        help="profile the presses to their frames (cProfile), statistics to FILE-*")  # fmt: skip
    args = parser.parse_args(argv)
    scenarios = SCENARIOS if args.scenario == "all" else (args.scenario,)
    sizes = args.size or SIZES
    print(f"checkout {os.getcwd()}, python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}",
          flush=True)  # fmt: skip
    for scenario in scenarios:
        for size in sizes:
            print(f"{scenario} at {size[0]}x{size[1]}, {args.presses} presses, main thread:", flush=True)
            if args.instructions:
                frames, idle = count_instructions(scenario, args.presses, size)
                print(f"  instructions to the frame {summary([f for f in frames if f], 'M', 1e-6)}\n"
                      f"  instructions to idle      {summary(idle, 'M', 1e-6)}", flush=True)  # fmt: skip
                continue
            profile = cProfile.Profile() if args.profile else None
            samples = run(scenario, args.presses, size, profile)
            if profile is not None:
                profile.dump_stats(f"{args.profile}-{scenario}-{size[0]}x{size[1]}")
            print(f"  cpu to the frame  {summary(samples.frame_cpu, 'ms')}   wall {summary(samples.frame_wall, 'ms')}\n"
                  f"  cpu to idle       {summary(samples.cpu, 'ms')}   wall {summary(samples.wall, 'ms')}",
                  flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
