"""A child process that ends when its parent dies, however it dies (``kill -9`` included).

The web server of ``play --web`` starts one game process per browser tab. If the
server is killed, nothing tells those processes: they would keep running, re-parented,
each game holding its save lock. So the server starts each one directly
(no shell in between) with its own process id in :data:`PARENT_VARIABLE`
(:func:`child_environment`), and the child calls :func:`bind_to_parent` as it starts:

* on Linux, ``prctl(PR_SET_PDEATHSIG, SIGTERM)``: the kernel sends SIGTERM when the
  thread that started the child ends. The servers start their children from their event
  loop, which runs on the main thread for the life of the process, so this is the
  process's death;
* everywhere, a daemon thread that checks :func:`os.getppid` twice a second: when it is
  no longer the parent named in the environment (the child was re-parented, the parent
  is gone), the child gets SIGTERM (a Textual app leaves cleanly on it) and, if still
  there after a grace period, ends at once;
* if the parent is already gone when the child starts, it ends at once.

The lock on a save is an ``flock``: it goes with the process. The workers of ``simulate``
also ask for :func:`death_signal` (their watching thread can be starved by compiled code).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

from biblios_kit.bounded import count_of

PARENT_VARIABLE = "BIBLIOS_KIT_PARENT_PID"
"""The environment variable naming the process a child must not outlive."""

CHECK_INTERVAL = 0.5
"""Seconds between two checks of the parent by the watching thread."""

GRACE = 3.0
"""Seconds a child has to leave cleanly after SIGTERM before it ends at once."""

ORPHAN_EXIT = 3
"""The exit status of a child that ended because its parent was gone."""

_PR_SET_PDEATHSIG = 1


def child_environment() -> dict[str, str]:
    """The variables that bind a child started by this process to it (see :func:`bind_to_parent`)."""
    return {PARENT_VARIABLE: str(os.getpid())}


def bind_to_parent(*, interval: float = CHECK_INTERVAL, grace: float = GRACE) -> bool:
    """End this process when the parent named in :data:`PARENT_VARIABLE` ends; ``False`` without one.

    The variable is removed from the environment, so this process's own children are not
    bound to it by mistake.
    """
    parent = count_of(os.environ.pop(PARENT_VARIABLE, ""))
    if parent is None:
        return False
    death_signal(signal.SIGTERM)
    if os.getppid() != parent:  # gone before the death signal was set
        os._exit(ORPHAN_EXIT)
    thread = threading.Thread(target=_watch, args=(parent, interval, grace), name="lifeline", daemon=True)
    thread.start()
    return True


def death_signal(number: int) -> None:
    """Ask Linux to send signal ``number`` to this process when its parent ends (nothing elsewhere).

    Precisely: when the *thread* that started this process ends; call it only in a child
    started from a thread that lives as long as the child is needed (the main thread).
    """
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, number, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl: the watching thread still does the job
        pass


def _watch(parent: int, interval: float, grace: float) -> None:
    """Wait until the parent is gone, then SIGTERM this process and, after ``grace`` seconds, end it."""
    while os.getppid() == parent:
        time.sleep(interval)
    try:
        os.kill(os.getpid(), signal.SIGTERM)
    finally:
        time.sleep(grace)
        os._exit(ORPHAN_EXIT)
