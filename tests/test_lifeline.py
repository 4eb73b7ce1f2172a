"""Child processes end with their parent, however it dies: ``kill -9`` of ``play --web`` leaks nothing.

A browser tab's game (``play``, holding its save's lock) must not outlive the server that
started it. (A game server's browser seats are a page, with no process behind them:
``tests/test_net_seat_page.py``.)
Processes are found through ``/proc`` (Linux), so these tests run there only.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
from net_helpers import free_port

from biblios_kit.lifeline import ORPHAN_EXIT, PARENT_VARIABLE

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")


def _stat(pid: int) -> tuple[str, int] | None:
    """The state letter and parent id of process ``pid``, or ``None`` when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # the name, in parentheses, may hold spaces
    return fields[0], int(fields[1])


def _alive(pid: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")  # a zombie has ended; only its entry waits


def descendants(pid: int) -> set[int]:
    """Every living process below ``pid``."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = _stat(int(entry))
            if stat is not None and stat[0] not in ("Z", "X"):
                parents[int(entry)] = stat[1]
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def wait_gone(pids: set[int], limit: float = 10.0) -> set[int]:
    """Wait up to ``limit`` seconds for ``pids`` to end; those still running."""
    deadline = time.monotonic() + limit
    while True:
        left = {pid for pid in pids if _alive(pid)}
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def _cleanup(pids: set[int]) -> None:
    for pid in pids:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def _child_script(no_death_signal: bool) -> str:
    """A parent that starts a bound child (``python -c``), prints the child's id, then waits.

    Each way of noticing is tested alone: without the death signal, or with a watching
    thread that would look only after 1,000 s.
    """
    child = "import time\nimport biblios_kit.lifeline as l\n"
    if no_death_signal:  # only the watching thread is left to notice
        child += "l.death_signal = lambda number: None\nl.bind_to_parent(interval=0.1, grace=1)\n"
    else:
        child += "l.bind_to_parent(interval=1000, grace=1)\n"
    child += "time.sleep(120)\n"
    return (
        "import os, subprocess, sys, time\n"
        "from biblios_kit.lifeline import child_environment\n"
        f"child = subprocess.Popen([sys.executable, '-c', {child!r}], env={{**os.environ, **child_environment()}})\n"
        "print(child.pid, flush=True)\n"
        "time.sleep(120)\n"
    )


@pytest.mark.parametrize(
    "no_death_signal",
    [pytest.param(False, marks=pytest.mark.skipif(sys.platform != "linux", reason="prctl")), True],
    ids=["death-signal", "watching-thread"],
)
def test_a_bound_child_ends_when_its_parent_is_killed(no_death_signal: bool) -> None:
    parent = subprocess.Popen([sys.executable, "-c", _child_script(no_death_signal)], stdout=subprocess.PIPE, cwd=ROOT)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    try:
        time.sleep(1.0)  # the child has bound itself
        assert _alive(child)
        parent.kill()
        parent.wait(5)
        assert not wait_gone({child}), "the child outlived its parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait(5)
        parent.stdout.close()
        _cleanup({child})


def test_a_child_whose_parent_is_already_gone_ends_at_once() -> None:
    code = "from biblios_kit.lifeline import bind_to_parent\nbind_to_parent()\nimport time\ntime.sleep(60)\n"
    # The environment names a parent that is not this child's parent (it died, the child was re-parented).
    env = {**os.environ, PARENT_VARIABLE: str(os.getpid() + 10**6)}
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, timeout=30)
    assert done.returncode == ORPHAN_EXIT


def test_without_the_variable_nothing_is_bound() -> None:
    code = (
        "import sys\nfrom biblios_kit.lifeline import bind_to_parent\nsys.exit(0 if bind_to_parent() is False else 1)\n"
    )
    env = {key: value for key, value in os.environ.items() if key != PARENT_VARIABLE}
    assert subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, timeout=30).returncode == 0


# ---------------------------------------------------------------------- the real servers


async def _open_screen(http: aiohttp.ClientSession, url: str, marker: bytes) -> aiohttp.ClientWebSocketResponse:
    """Open a browser terminal's WebSocket at ``url`` and wait until ``marker`` is on its screen."""
    ws = await http.ws_connect(url)
    received = b""
    while marker not in received:
        try:
            message = await asyncio.wait_for(ws.receive(), 30)
        except TimeoutError:
            raise AssertionError(f"no {marker!r} after 30 s: {received[-500:]!r}") from None
        if message.type == aiohttp.WSMsgType.BINARY:
            received += message.data
        elif message.type == aiohttp.WSMsgType.TEXT:
            received += message.data.encode()
        else:
            raise AssertionError(f"closed: {received[-500:]!r}")
    return ws


@pytest.fixture
def killed_later() -> Iterator[set[int]]:
    """Processes to SIGKILL after the test if they are still there."""
    pids: set[int] = set()
    yield pids
    _cleanup(pids)


@pytest.mark.slow
def test_kill_9_of_play_web_ends_its_games_and_frees_their_saves(tmp_path: Path, killed_later: set[int]) -> None:
    port = free_port()
    env = {**os.environ, "BIBLIOS_KIT_DATA_DIR": str(tmp_path), "BIBLIOS_LANG": "en"}
    server = subprocess.Popen(
        [sys.executable, "-m", "biblios_kit", "play", "--web", "--port", str(port), "--seed", "3", "--bot-delay", "0"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    killed_later.add(server.pid)
    assert server.stderr is not None
    url = ""
    for _line in range(10):
        match = re.search(r"(http://\S+\?token=\S+)", server.stderr.readline().decode())
        if match:
            url = match.group(1)
            break
    assert url, "the server printed no URL"

    async def scenario() -> set[int]:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            for _attempt in range(100):
                try:
                    async with http.get(url) as response:
                        assert response.status == 200
                        break
                except aiohttp.ClientConnectionError:
                    await asyncio.sleep(0.1)
            ws = await _open_screen(http, f"ws://127.0.0.1:{port}/ws?width=80&height=24", b"New game")
            await ws.send_json(["stdin", "\x13"])  # Ctrl+S: start the game (it takes its save's lock)
            for _attempt in range(100):
                if list((tmp_path / "saves").glob(".*.lock")):
                    break
                await asyncio.sleep(0.1)
            children = descendants(server.pid)
            killed_later.update(children)
            assert children, "the browser tab started no process"
            server.kill()
            server.wait(5)
            await ws.close()
            return children

    try:
        children = asyncio.run(scenario())
    finally:
        server.stderr.close()
    left = wait_gone(children)
    assert not left, f"still running after the server's kill -9: {left}"
    locks = list((tmp_path / "saves").glob(".*.lock"))
    assert locks, "the game took no save lock"
    for lock in locks:
        with lock.open("a") as handle:
            deadline = time.monotonic() + 5  # the lock goes with the last process holding it, within moments
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise  # a leftover process still holds it
                    time.sleep(0.1)
