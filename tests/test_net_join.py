"""``biblios-kit join``: the Textual table driven by a server, against a real ``biblios-kit host`` process.

One seat is played through the TUI (keys only, in French), another by an API client,
the third by a bot on the server; the game is played to the end screen. A dropped
connection is resumed by itself. The CLI's checks of ``host new`` and ``join`` exit
with status 2 and a clear message.
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import play_turn, run_until, visible_text, waiting_for_person
from net_helpers import HostProcess

from biblios_kit.engine.records import load_record, replay
from biblios_kit.i18n import set_language
from biblios_kit.net.client import ApiClient, ApiError, parse_link
from biblios_kit.net.remote import RemoteApp, RemoteSession
from biblios_kit.tui.screens.end import EndScreen
from biblios_kit.tui.screens.table import TableScreen

ROOT = Path(__file__).resolve().parent.parent


async def _api_player(client: ApiClient, table: str, seat: int, rng: random.Random, done: asyncio.Event) -> int:
    """Play ``seat`` with random legal actions through the HTTP API until the game ends."""
    played = 0
    while not done.is_set():
        view = await client.view(table, since=10**6)
        if view["result"] is not None:
            return played
        legal = view["observation"]["legal_actions"]
        if view["observation"]["current_player"] == seat and legal:
            if view["observation"]["phase"] == "payment":
                pay: list[str] = []
                while True:
                    options = await client.payment_options(table, pay)
                    if options is None:
                        break
                    pay.append(options[0])
                await client.act(table, *pay)
            else:
                try:
                    await client.act(table, rng.choice(legal))
                except ApiError as error:
                    assert error.code in ("not_your_turn",), error
            played += 1
        else:
            await asyncio.sleep(0.05)
    return played


def test_join_plays_a_whole_game_in_its_own_language(host: HostProcess, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with ApiClient(host.url) as admin:
            reply = await admin.create_table(host.admin(), ruleset="biblios", players=3, seed=21, bot_delay=0,
                                             seats=["human", "random", "human"], names=["Ana", "Robot", "Beto"])  # fmt: skip
        link = parse_link(reply["seats"][0]["link"])
        other = reply["seats"][2]["token"]
        set_language("fr")
        app = RemoteApp(link.server, link.table, link.token, "fr")
        rng = random.Random(3)
        done = asyncio.Event()
        async with ApiClient(host.url, other) as client:
            opponent = asyncio.create_task(_api_player(client, reply["table"], 2, rng, done))
            async with app.run_test(size=(100, 32)) as pilot:
                await run_until(pilot, lambda: isinstance(app.screen, (TableScreen, EndScreen)))
                await run_until(pilot, lambda: waiting_for_person(app))
                await pilot.pause()  # let the last move made elsewhere finish drawing
                text = visible_text(app)
                assert "Ana" in text and "Beto" in text
                assert "Main" in text  # the hand panel, in French ("Main — Ana")
                decisions = 0
                while await play_turn(pilot, rng):
                    decisions += 1
                    assert decisions < 2000
                assert isinstance(app.screen, EndScreen)
                await pilot.pause()
                assert "la partie est terminée" in visible_text(app)
                session = app.remote_session
                assert isinstance(session, RemoteSession)
                assert session.state.result().winners
            done.set()
            played = await opponent
            assert played > 0
            record = await client.record(reply["table"])
        state = replay(load_record(host.data_dir / "records" / f"{reply['table']}.json"))
        assert len(record["actions"]) == state.decision_count and state.is_terminal()

    try:
        asyncio.run(scenario())
    finally:
        set_language("en")


def test_join_reconnects_after_the_server_restarts(tmp_path: Path) -> None:
    server = HostProcess(tmp_path / "server")
    server.wait_ready()

    async def scenario() -> None:
        nonlocal server
        async with ApiClient(server.url) as admin:
            reply = await admin.create_table(server.admin(), players=2, seats=["human", "human"], seed=5, bot_delay=0)
        link = parse_link(reply["seats"][0]["link"])
        app = RemoteApp(link.server, link.table, link.token, "en")
        async with app.run_test(size=(100, 32)) as pilot:
            await run_until(pilot, lambda: waiting_for_person(app))
            await pilot.press("k")  # keep the drawn card
            await run_until(pilot, lambda: app.remote_session is not None and app.remote_session.remote.version == 1)
            server.stop(kill=True)
            await run_until(pilot, lambda: not app.connection.connected.is_set())
            server = HostProcess(tmp_path / "server", server.port)
            await asyncio.to_thread(server.wait_ready)
            await run_until(pilot, lambda: app.connection.connected.is_set(), limit=30)
            await run_until(pilot, lambda: waiting_for_person(app))
            screen = app.screen
            assert isinstance(screen, TableScreen)
            await pilot.press("p")  # the game goes on after the reconnection
            await run_until(pilot, lambda: app.remote_session is not None and app.remote_session.remote.version == 2)
            session = app.remote_session
            assert session is not None
            kinds = [e.kind.name for e in session.remote.events]
            assert kinds.count("GIFT_TURN") == 1  # no event received twice after reconnecting

    try:
        asyncio.run(scenario())
    finally:
        server.stop()


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run([sys.executable, "-m", "biblios_kit", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "BIBLIOS_LANG": "en", **(env or {})}, timeout=60)  # fmt: skip


def test_host_new_prints_invitations_and_checks_its_input(host: HostProcess) -> None:
    common = ["--port", str(host.port), "--data-dir", str(host.data_dir)]
    done = _cli("host", "new", *common, "--players", "3", "--seat", "2=easy", "--name", "1=Ana")
    assert done.returncode == 0, done.stderr
    assert "1. Ana: http://127.0.0.1:" in done.stdout and "2. Player 2 (easy bot)" in done.stdout
    as_json = _cli("host", "new", *common, "--players", "2", "--json")
    import json

    data: dict[str, Any] = json.loads(as_json.stdout)
    assert [s["kind"] for s in data["seats"]] == ["human", "human"]
    for args, message in [
        (["--seat", "3=grandmaster"], "unknown bot"),
        (["--seat", "9=easy"], "seat 9 is not between 1 and 3"),
        (["--seat", "easy"], "expected SEAT=VALUE"),
        (["--players", "7"], "not 7"),
        (["--option", "no-such-option"], "no-such-option"),
    ]:
        failed = _cli("host", "new", *common, "--players", "3", *args) if "--players" not in args else _cli(
            "host", "new", *common, *args)  # fmt: skip
        assert failed.returncode == 2, (args, failed.stderr)
        assert message in failed.stderr and "Traceback" not in failed.stderr
    nobody = _cli("host", "new", "--port", str(host.port), "--data-dir", str(host.data_dir / "elsewhere"))
    assert nobody.returncode == 2 and "admin token" in nobody.stderr
    remote = _cli("host", "new", "--server", host.url, "--data-dir", str(host.data_dir / "elsewhere"),
                  env={"BIBLIOS_KIT_ADMIN_TOKEN": host.admin()})  # fmt: skip
    assert remote.returncode == 0 and "/play/" in remote.stdout
    wrong = _cli("host", "new", "--server", host.url, env={"BIBLIOS_KIT_ADMIN_TOKEN": "guess"})
    assert wrong.returncode == 2 and "admin token" in wrong.stderr


def test_join_checks_its_link() -> None:
    bad = _cli("join", "ftp://example/x")
    assert bad.returncode == 2 and "not an invitation link" in bad.stderr
    no_token = _cli("join", "http://127.0.0.1:9/play/abc")
    assert no_token.returncode == 2 and "no seat token" in no_token.stderr


def test_host_warns_when_exposed(tmp_path: Path) -> None:
    server = HostProcess(tmp_path / "server", None, "--bind", "0.0.0.0")
    try:
        server.wait_ready()
    finally:
        _out, err = server.stop()
    lines = err.decode().splitlines()
    assert lines[0].startswith("warning: listening on 0.0.0.0")


def test_the_example_api_bot_plays_a_seat_to_the_end(host: HostProcess) -> None:
    common = ["--port", str(host.port), "--data-dir", str(host.data_dir)]
    created = _cli("host", "new", *common, "--players", "3", "--seat", "2=random", "--seat", "3=random",
                   "--bot-delay", "0", "--json")  # fmt: skip
    import json

    link = json.loads(created.stdout)["seats"][0]["link"]
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "api_bot.py"), link, "--bot", "easy"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "game over; winners:" in done.stdout


def test_a_waiting_terminal_shows_each_move_made_elsewhere(host: HostProcess) -> None:
    """Moves of a player at another terminal are drawn as they come, even several in a row."""

    async def scenario() -> None:
        async with ApiClient(host.url) as admin:
            reply = await admin.create_table(host.admin(), ruleset="biblios", players=2, seed=5, bot_delay=0,
                                             seats=["human", "human"], names=["Ana", "Beto"])  # fmt: skip
        link = parse_link(reply["seats"][1]["link"])
        app = RemoteApp(link.server, link.table, link.token, "en")
        async with ApiClient(host.url, reply["seats"][0]["token"]) as ana, app.run_test(size=(120, 40)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, TableScreen))
            await pilot.pause()
            assert "Ana put" not in visible_text(app)
            await ana.act(reply["table"], "auction")
            await run_until(pilot, lambda: "on the auction pile" in visible_text(app), limit=10)
            await ana.act(reply["table"], "public")  # a second move by the same player
            await run_until(pilot, lambda: "in the public space" in visible_text(app), limit=10)

    asyncio.run(scenario())
