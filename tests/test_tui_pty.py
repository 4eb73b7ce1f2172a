"""Smoke test of the real program in a pseudo-terminal: start ``biblios-kit play``, play a key, quit cleanly."""

from __future__ import annotations

import fcntl
import json
import os
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


class Terminal:
    """A child process on a pseudo-terminal of a given size; collects everything it writes."""

    def __init__(self, args: list[str], env: dict[str, str], size: tuple[int, int] = (80, 24)) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
        self.process = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT,
                                        start_new_session=True, close_fds=True)  # fmt: skip
        os.close(slave)
        self.output = b""

    def read(self, seconds: float) -> None:
        """Collect output for up to ``seconds``."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # the child closed the terminal
                    return
                if not chunk:
                    return
                self.output += chunk

    def wait_for(self, check: object, seconds: float = 20.0) -> None:
        """Read until ``check()`` is true (fail after ``seconds``)."""
        deadline = time.monotonic() + seconds
        while not check():  # type: ignore[operator]
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out; last output: {self.output[-400:]!r}")
            self.read(0.1)

    def send(self, keys: bytes) -> None:
        """Type ``keys``."""
        os.write(self.master, keys)

    def close(self) -> None:
        """Kill the child if it is still running and close the terminal."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)
        os.close(self.master)


@pytest.mark.slow
def test_play_in_a_pseudo_terminal(tmp_path: Path) -> None:
    env = {**os.environ, "TERM": "xterm-256color", "BIBLIOS_KIT_DATA_DIR": str(tmp_path), "BIBLIOS_LANG": "en"}
    env.pop("TEXTUAL_DRIVER", None)
    save = tmp_path / "saves" / "current-game.json"
    args = [sys.executable, "-m", "biblios_kit", "play", "--seat", "human", "--seat", "random", "--seed", "3",
            "--bot-delay", "0"]  # fmt: skip
    terminal = Terminal(args, env)
    try:
        terminal.wait_for(lambda: b"Keep it" in terminal.output)
        assert json.loads(save.read_text(encoding="utf-8"))["actions"] == []
        terminal.send(b"k")  # keep the first card drawn
        terminal.wait_for(
            lambda: save.is_file() and json.loads(save.read_text(encoding="utf-8"))["actions"][:1] == ["keep"]
        )
        terminal.send(b"q")  # save and quit
        assert terminal.process.wait(20) == 0
        terminal.read(0.2)
    finally:
        terminal.close()
    assert b"Traceback" not in terminal.output
