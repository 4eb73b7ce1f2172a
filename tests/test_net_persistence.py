"""Nothing lost: a server killed with SIGKILL mid-game loses no accepted action, and finished games replay."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from net_helpers import HostProcess

from biblios_kit.net.client import ApiClient, ApiError

ROOT = Path(__file__).resolve().parent.parent


async def _hammer(url: str, table: str, tokens: list[str], accepted: list[str], stop: asyncio.Event) -> None:
    """Play random legal actions as fast as the server answers, noting each one it accepted."""
    rng = random.Random(1)
    clients = [ApiClient(url, token) for token in tokens]
    try:
        while not stop.is_set():
            view = await clients[0].view(table, since=10**6)
            seat = view["observation"]["current_player"]
            if seat is None:
                return
            mine = await clients[seat].view(table, since=10**6)
            legal = mine["observation"]["legal_actions"]
            if mine["observation"]["phase"] == "payment":
                pay: list[str] = []
                while (options := await clients[seat].payment_options(table, pay)) is not None:
                    pay.append(options[0])
                chosen = pay
            else:
                chosen = [rng.choice(legal)]
            reply = await clients[seat].act(table, *chosen)
            accepted.extend(reply["actions"])
    except ApiError as error:
        assert error.code == "network", error  # the server died under us
    finally:
        for client in clients:
            await client.close()


def test_sigkill_loses_no_accepted_action(tmp_path: Path) -> None:
    folder = tmp_path / "server"
    server = HostProcess(folder)
    server.wait_ready()
    accepted: list[str] = []

    async def play_then_kill() -> str:
        async with ApiClient(server.url) as admin:
            reply = await admin.create_table(server.admin(), players=4, seats=["human"] * 4, seed=17,
                                             bot_delay=0, ruleset="biblios")  # fmt: skip
        table = reply["table"]
        stop = asyncio.Event()
        # ApiClient keeps a connection pool per client; this one plays with four seats' tokens.
        task = asyncio.create_task(_hammer(server.url, table, [s["token"] for s in reply["seats"]], accepted, stop))
        deadline = time.monotonic() + 20
        while len(accepted) < 60 and time.monotonic() < deadline and not task.done():
            await asyncio.sleep(0.01)
        server.stop(kill=True)  # SIGKILL, mid-request most likely
        stop.set()
        await task
        return table

    try:
        table = asyncio.run(play_then_kill())
    finally:
        if server.process.poll() is None:
            server.stop(kill=True)
    assert len(accepted) >= 20
    with sqlite3.connect(folder / "tables.sqlite3") as db:
        stored = [
            row[0] for row in db.execute("SELECT action FROM actions WHERE table_id = ? ORDER BY number", (table,))
        ]
    assert stored[: len(accepted)] == accepted  # every accepted action is there, in order
    assert len(stored) <= len(accepted) + 4  # at most the reply in flight was lost (a payment: a few actions)

    restarted = HostProcess(folder)
    try:
        restarted.wait_ready()

        async def resumed() -> int:
            async with ApiClient(restarted.url) as client:
                view = await client.view(table)
                return int(view["version"])

        assert asyncio.run(resumed()) == len(stored)
    finally:
        restarted.stop()


def test_finished_tables_are_game_records_that_replay_checks(tmp_path: Path) -> None:
    folder = tmp_path / "server"
    server = HostProcess(folder)
    try:
        server.wait_ready()

        async def bots_game() -> str:
            async with ApiClient(server.url) as client:
                reply = await client.create_table(server.admin(), players=2, seats=["random", "random"], bot_delay=0,
                                                  ruleset="scripts-and-scribes", seed=3)  # fmt: skip
                for _ in range(1000):
                    view = await client.view(reply["table"], since=10**6)
                    if view["result"] is not None:
                        return str(reply["table"])
                    await asyncio.sleep(0.02)
            raise AssertionError("the bots did not finish")

        table = asyncio.run(bots_game())
    finally:
        server.stop()
    record = folder / "records" / f"{table}.json"
    done = subprocess.run([sys.executable, "-m", "biblios_kit", "replay", str(record)], capture_output=True,
                          text=True, cwd=ROOT, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
