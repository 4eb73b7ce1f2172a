"""``biblios-kit join`` at a table of people: who is connected, the bell on one's turn, the table's hint rule,
a server that cannot be reached, a link issued again, a closed table."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
from conftest import run_until, visible_text
from net_helpers import HostProcess, bearer, free_port

from biblios_kit.i18n import set_language
from biblios_kit.net.client import ApiClient, parse_link
from biblios_kit.net.remote import RemoteApp, presence_changes
from biblios_kit.tui.dialogs.hint import HintDialog
from biblios_kit.tui.screens.connecting import ConnectingScreen
from biblios_kit.tui.screens.table import TableScreen


def _notes(app: RemoteApp) -> list[str]:
    """Every notification the app shows from now on (the list grows)."""
    seen: list[str] = []
    original = app.notify

    def notify(message: Any, **options: Any) -> None:
        seen.append(str(message))
        original(message, **options)

    app.notify = notify  # type: ignore[method-assign]
    return seen


async def _admin(host: HostProcess, method: str, path: str, body: object = None) -> dict[str, Any]:
    async with (
        aiohttp.ClientSession() as http,
        http.request(method, host.url + path, json=body, headers=bearer(host.admin())) as response,
    ):
        reply: dict[str, Any] = await response.json()
        assert response.status == 200, reply
        return reply


def test_presence_the_bell_and_the_hint_rule_at_a_table_of_people(host: HostProcess) -> None:
    async def scenario() -> None:
        async with ApiClient(host.url) as admin:
            reply = await admin.create_table(host.admin(), ruleset="biblios", players=2, seed=5, bot_delay=0,
                                             seats=["human", "human"], names=["Ana", "Beto"])  # fmt: skip
        table = reply["table"]
        link = parse_link(reply["seats"][1]["link"])
        app = RemoteApp(link.server, link.table, link.token, "en")
        notes = _notes(app)
        async with ApiClient(host.url, reply["seats"][0]["token"]) as ana, app.run_test(size=(120, 40)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.table_info is not None)
            assert app.table_info is not None and app.table_info["connected"] == [False, True]
            await run_until(pilot, lambda: any("Away: Ana" in note for note in notes))
            assert any("Hints: not allowed" in note for note in notes)
            # Ana connects from elsewhere: Beto is told.
            async with aiohttp.ClientSession() as http, http.ws_connect(f"{host.url}/api/tables/{table}/ws") as ws:
                await ws.send_json({"type": "hello", "token": reply["seats"][0]["token"]})
                await run_until(pilot, lambda: "Ana is at the table." in notes, limit=10)
            await run_until(pilot, lambda: "Ana left the table." in notes, limit=10)
            # Ana plays until it is Beto's turn: the bell rings once.
            assert app.rings == 0
            for _attempt in range(400):
                if app.rings:
                    break
                view = await ana.view(table, since=10**6)
                legal = view["observation"]["legal_actions"]
                if legal:
                    await ana.act(table, legal[0], version=view["version"])
                else:
                    await pilot.pause(0.05)
            await run_until(pilot, lambda: app.rings == 1, limit=10)
            session = app.remote_session
            assert session is not None and session.remote.legal_actions()
            # Two people: no hints ("t" says why); the admin allows them: "t" opens the hint.
            await pilot.press("t")
            await run_until(pilot, lambda: "Hints are not allowed at this table." in notes)
            assert not isinstance(app.screen, HintDialog)
            await _admin(host, "POST", f"/api/tables/{table}/settings", {"hints": "on"})
            await run_until(pilot, lambda: app.table_info is not None and app.table_info["hints_allowed"], limit=10)
            await pilot.press("t")
            await run_until(pilot, lambda: isinstance(app.screen, HintDialog), limit=10)

    asyncio.run(scenario())


def test_join_says_when_the_server_cannot_be_reached_and_q_leaves() -> None:
    set_language("fr")  # as join --lang fr does

    async def scenario() -> None:
        app = RemoteApp(f"http://127.0.0.1:{free_port()}", "table", "token", "fr")
        async with app.run_test(size=(100, 30)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, ConnectingScreen) and app.screen.problem is not None)
            await pilot.pause()
            text = visible_text(app)
            assert "Connexion à http://127.0.0.1" in text and "ne répond" in text, text
            await pilot.press("q")
            await run_until(pilot, lambda: not app.is_running, limit=5)

    try:
        asyncio.run(scenario())
    finally:
        set_language("en")


def test_a_link_issued_again_and_a_closed_table_end_join_with_a_message(host: HostProcess) -> None:
    async def scenario() -> None:
        set_language("es")
        async with ApiClient(host.url) as admin:
            reply = await admin.create_table(host.admin(), players=2, seats=["human", "human"], seed=5, bot_delay=0)
        table = reply["table"]
        for step in ("invite", "close"):
            link = parse_link(reply["seats"][0]["link"])
            seat = RemoteApp(link.server, link.table, link.token, "es")
            async with seat.run_test(size=(100, 30)) as pilot:
                await run_until(pilot, lambda: isinstance(seat.screen, TableScreen))  # noqa: B023 (awaited here)
                if step == "invite":
                    issued = await _admin(host, "POST", f"/api/tables/{table}/invite", {"seat": 0})
                    reply["seats"][0]["link"] = issued["link"]
                else:
                    await _admin(host, "DELETE", f"/api/tables/{table}")
                await run_until(pilot, lambda: not seat.is_running, limit=10)  # noqa: B023 (awaited here)
            expected = "se emitió uno nuevo" if step == "invite" else "ha cerrado esta mesa"
            assert seat.problem is not None and expected in seat.problem, seat.problem
        # A closed table's link: join stops at once, with a message, instead of retrying.
        set_language("en")
        app = RemoteApp(link.server, link.table, link.token, "en")
        async with app.run_test(size=(100, 30)) as pilot:
            await run_until(pilot, lambda: not app.is_running, limit=10)
        assert app.problem is not None and "no table" in app.problem

    try:
        asyncio.run(scenario())
    finally:
        set_language("en")


def test_presence_changes_name_the_others_only() -> None:
    names = ["Ana", "Beto", "Chloé"]
    assert presence_changes(names, [True, True, False], [False, True, True], me=1) == [
        "Ana left the table.",
        "Chloé is at the table.",
    ]
    assert presence_changes(names, [True, False, True], [True, True, True], me=1) == []
