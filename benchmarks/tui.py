"""Benchmark of the terminal UI, measured on the real program in a pseudo-terminal.

* start-up: process start to the first frame of the setup screen (``biblios-kit play``),
  detected when the terminal receives the setup screen's title; then to the completed form
  (the rulesets are listed and the one shown is loaded after the first frame);
* key to table: a key press (``k``, keep the drawn card) to the redrawn table, detected
  when the terminal receives the line only the updated table shows ("Kept this turn").

Run: ``.venv/bin/python benchmarks/tui.py [--runs N] [--size 120x40]``. Targets (issue #29): start-up
< 0.5 s, key to table < 20 ms (median, at 80x24 and at 120x40). Figures go in docs/performance.md
(TUI section).

Besides the wall time, the start-up's CPU time is printed: up to the first frame (read from
``/proc`` when the frame arrives, Linux only) and for the whole run. On a shared machine it
moves much less with the load than the wall time does.

The programs run with a bytecode cache, as an installed copy does (pip compiles the package
at install time; a source checkout writes ``__pycache__`` on its first run): the cache lives
in the benchmark's temporary folder (``PYTHONPYCACHEPREFIX``) and the warm-up run fills it,
even when ``PYTHONDONTWRITEBYTECODE`` is set. ``--no-bytecode-cache`` measures the other
case, where every start compiles the package's modules from source (about 5% more
instructions, some 0.04 s here).
"""

from __future__ import annotations

import argparse
import fcntl
import os
import resource
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
SIZE = (80, 24)


class Terminal:
    """A child process on a pseudo-terminal; everything it writes is collected."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", SIZE[1], SIZE[0], 0, 0))
        self.started = time.perf_counter()
        self.process = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT,
                                        start_new_session=True, close_fds=True)  # fmt: skip
        os.close(slave)
        self.output = b""

    def wait_for(self, marker: bytes, since: int = 0, timeout: float = 20.0) -> float:
        """Read until ``marker`` appears after offset ``since``; return the time it arrived."""
        deadline = time.perf_counter() + timeout
        while marker not in self.output[since:]:
            if time.perf_counter() > deadline:
                raise TimeoutError(f"no {marker!r} in the output")
            ready, _, _ = select.select([self.master], [], [], 0.01)
            if ready:
                self.output += os.read(self.master, 65536)
        return time.perf_counter()

    def close(self) -> None:
        """Quit (Ctrl+Q), then make sure the child is gone."""
        try:
            os.write(self.master, b"\x11")
            self.process.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait(5)
        os.close(self.master)


BYTECODE_CACHE = True
"""Whether the programs measured keep compiled bytecode between runs (see the module docstring)."""


def environment(data_dir: str) -> dict[str, str]:
    """The child's environment: a throw-away data folder, English, a 256-colour terminal, a bytecode cache."""
    env = {**os.environ, "TERM": "xterm-256color", "BIBLIOS_KIT_DATA_DIR": data_dir, "BIBLIOS_LANG": "en"}
    env.pop("TEXTUAL_DRIVER", None)
    if BYTECODE_CACHE:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(data_dir) / "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) used so far by a running process, from ``/proc`` (``None`` elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


class Startup(NamedTuple):
    """One start of ``biblios-kit play``, measured."""

    wall: float
    """Seconds from process start to the setup screen's first frame on the terminal."""
    frame_cpu: float | None
    """CPU seconds the process had used by then (``None`` without ``/proc``)."""
    complete: float
    """Seconds from process start to the completed form (the rulesets' titles, the shown one's description)."""
    cpu: float
    """CPU seconds of the whole run: start-up, first frame, completed form, then quitting at once."""


def measure_startup(data_dir: str) -> Startup:
    """Start ``biblios-kit play`` and time its first frame and its completed setup form.

    The form is complete when the edition's title ("Biblios", absent from the first frame)
    reaches the terminal. CPU times hardly depend on what else the machine is doing, unlike
    the wall times.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    terminal = Terminal([sys.executable, "-m", "biblios_kit", "play"], environment(data_dir))
    try:
        wall = terminal.wait_for(b"New game") - terminal.started
        cpu_at_frame = cpu_seconds(terminal.process.pid)
        complete = terminal.wait_for(b"Biblios") - terminal.started
    finally:
        terminal.close()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Startup(wall, cpu_at_frame, complete, cpu)


def measure_key(data_dir: str, seed: int) -> float:
    """Seconds from pressing ``k`` to the redrawn table arriving on the terminal."""
    for leftover in Path(data_dir).glob("saves/*"):
        leftover.unlink()
    args = [sys.executable, "-m", "biblios_kit", "play", "--seat", "human", "--seat", "random", "--seat", "random",
            "--seed", str(seed), "--bot-delay", "0"]  # fmt: skip
    terminal = Terminal(args, environment(data_dir))
    try:
        terminal.wait_for(b"Keep it")
        time.sleep(0.3)  # let the first frames settle
        select.select([terminal.master], [], [], 0)
        while select.select([terminal.master], [], [], 0.05)[0]:
            terminal.output += os.read(terminal.master, 65536)
        mark = len(terminal.output)
        pressed = time.perf_counter()
        os.write(terminal.master, b"k")
        return terminal.wait_for(b"Kept this turn", since=mark) - pressed
    finally:
        terminal.close()


def plain_seeds(count: int) -> list[int]:
    """Seeds whose first card drawn is not a church card (keeping one opens a dialog, not the table)."""
    from biblios_kit.engine import new_game
    from biblios_kit.rules import load_ruleset
    from biblios_kit.rules.model import CardKind

    ruleset = load_ruleset("biblios")
    seeds = []
    seed = 0
    while len(seeds) < count:
        seed += 1
        drawn = new_game(ruleset, 3, seed).observation(0).drawn
        if drawn is not None and ruleset.deck[drawn].kind is not CardKind.CHURCH:
            seeds.append(seed)
    return seeds


def main(argv: list[str] | None = None) -> int:
    """Run the measurements and print a summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="processes started per measurement (default 7)")
    parser.add_argument("--size", default="80x24", help="the terminal's COLUMNSxLINES (default 80x24)")
    parser.add_argument("--no-bytecode-cache", action="store_true",
                        help="compile the modules from source at every start (no __pycache__)")  # fmt: skip
    args = parser.parse_args(argv)
    global BYTECODE_CACHE, SIZE
    columns, _x, lines = args.size.partition("x")
    if not (columns.isdigit() and lines.isdigit()):
        parser.error("--size: expected COLUMNSxLINES, e.g. 120x40")
    SIZE = (int(columns), int(lines))
    BYTECODE_CACHE = not args.no_bytecode_cache
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as data_dir:
        measure_startup(data_dir)  # warm the OS file cache, the bytecode cache and the compiled catalog cache
        measured = [measure_startup(data_dir) for _ in range(args.runs)]
        startups = [run.wall for run in measured]
        frame_cpu = [run.frame_cpu for run in measured if run.frame_cpu is not None]
        complete = [run.complete for run in measured]
        cpu = [run.cpu for run in measured]
        keys = [measure_key(data_dir, seed) for seed in plain_seeds(args.runs)]
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores, terminal {SIZE[0]}x{SIZE[1]}, {args.runs} runs, "
        f"bytecode cache {'on' if BYTECODE_CACHE else 'off'}, "
        f"load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after"
    )
    for name, values, target in (
        ("start-up to setup screen", startups, 0.5),
        ("key press to updated table", keys, 0.02),
    ):
        verdict = "ok" if statistics.median(values) < target else "SLOWER THAN TARGET"
        print(
            f"{name:28s} median {statistics.median(values) * 1000:7.1f} ms   min {min(values) * 1000:7.1f} ms"
            f"   max {max(values) * 1000:7.1f} ms   target < {target * 1000:.0f} ms: {verdict}"
        )
    print(f"{'start-up to completed form':28s} median {statistics.median(complete) * 1000:7.1f} ms"
          f"   min {min(complete) * 1000:7.1f} ms   (titles, description and options filled in)")  # fmt: skip
    if frame_cpu:
        print(f"{'CPU time to the first frame':28s} median {statistics.median(frame_cpu) * 1000:7.1f} ms"
              f"   min {min(frame_cpu) * 1000:7.1f} ms")  # fmt: skip
    print(f"{'start-up CPU time (whole run)':28s} median {statistics.median(cpu) * 1000:7.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
