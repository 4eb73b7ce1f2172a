"""The network benchmark's load generator: its WebSocket frames, and a short run against a real server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from browser_seat import frame  # noqa: E402


@pytest.mark.parametrize("size", [0, 125, 126, 65535, 65536])
def test_a_client_frame_is_masked_and_unmasks_to_its_payload(size: int) -> None:
    payload = bytes(i % 251 for i in range(size))
    data = frame(0x1, payload)
    assert data[0] == 0x81  # FIN, text
    assert data[1] & 0x80  # masked, as every client frame must be
    length, start = data[1] & 0x7F, 2
    if length == 126:
        length, start = int.from_bytes(data[2:4], "big"), 4
    elif length == 127:
        length, start = int.from_bytes(data[2:10], "big"), 10
    assert length == size
    mask, body = data[start : start + 4], data[start + 4 :]
    assert bytes(b ^ mask[i % 4] for i, b in enumerate(body)) == payload


@pytest.mark.slow
def test_the_benchmark_plays_whole_games_against_a_server_without_an_error() -> None:
    command = [sys.executable, str(BENCHMARKS / "network.py"), "--tables", "2", "--seats", "3", "--think", "0"]
    run = subprocess.run([*command, "--to-the-end"], capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr
    assert "errors: 0" in run.stdout
    assert "records: 2 finished tables, every one replays" in run.stdout
    actions = int(run.stdout.split("actions: ", 1)[1].split()[0])
    assert actions > 100  # two whole three-player games
