"""``biblios-kit join`` at the end of a game: the end screen's tabs from the server's record, the review where
hints are allowed, and the rematch that moves the seat to the new table (a real server on 127.0.0.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import run_until
from net_helpers import bearer, create, running_server
from test_net_rematch import _finish
from textual.widgets import TabbedContent

from biblios_kit.i18n import set_language
from biblios_kit.net.remote import RemoteApp, RemoteSession
from biblios_kit.net.server import HUB
from biblios_kit.tui.screens.end import EndScreen
from biblios_kit.tui.screens.table import TableScreen


def _server(client: Any) -> str:
    return str(client.make_url("")).rstrip("/")


@pytest.mark.parametrize("hints", ["on", "off"])
async def test_the_end_screen_of_a_seat_has_every_tab_and_the_review_where_hints_are_allowed(
    tmp_path: Path, hints: str
) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "random", "human"], names=["Ana", "Bot", "Chloé"], seed=5,
                             hints=hints)  # fmt: skip
        table = reply["table"]
        _finish(client.server.app[HUB], table)
        app = RemoteApp(_server(client), table, reply["seats"][0]["token"], "en", bell=False)
        async with app.run_test(size=(110, 36)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, EndScreen))
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, EndScreen)
            session = app.remote_session
            assert isinstance(session, RemoteSession) and session.full_state is not None
            tabs = screen.query_one(TabbedContent)
            assert {pane.id for pane in tabs.query("TabPane")} == {"end-result", "end-hands", "end-log", "end-replay"}
            await pilot.press("3")
            await run_until(pilot, lambda: screen.log_complete and bool(screen.log_lines()))
            history = session.full_state.events
            assert len(screen.log_lines()) >= len([e for e in history if e.player >= 0]) // 2
            await pilot.press("2")
            await pilot.pause()
            assert tabs.active == "end-hands"
            await run_until(pilot, lambda: app.table_info is not None)
            assert screen._reviewable() is (hints == "on")
            assert screen.query_one("#end-new").label.plain == "Rematch"


async def test_a_terminal_seat_opts_in_and_moves_to_the_rematch_table(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "random", "human"], names=["Ana", "Bot", "Chloé"], seed=6)
        table = reply["table"]
        token0, token2 = reply["seats"][0]["token"], reply["seats"][2]["token"]
        _finish(client.server.app[HUB], table, seed=9)
        app = RemoteApp(_server(client), table, token0, "en", bell=False)
        async with app.run_test(size=(110, 36)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, EndScreen) and app.table_info is not None)
            await pilot.press("n")  # Rematch
            rematch = f"/api/tables/{table}/rematch"
            await run_until(pilot, lambda: app.rematch_asked)
            state = await (await client.get(rematch, headers=bearer(token2))).json()
            while state["votes"][0] is not True:
                await pilot.pause(0.05)
                state = await (await client.get(rematch, headers=bearer(token2))).json()
            assert "token" not in state  # seat 2 has not opted in: no place for it yet
            end = app.screen
            assert isinstance(end, EndScreen)
            await run_until(pilot, lambda: end.rematch_text == "Wants a rematch: Ana · Away: Chloé")  # not connected
            no = await client.post(rematch, json={"rematch": False}, headers=bearer(token2))
            assert no.status == 200
            await run_until(pilot, lambda: "Does not want a rematch: Chloé" in end.rematch_text)
            assert str(end.query_one("#end-rematch").render()) == end.rematch_text  # on screen, as plain text
            assert app.connection.table == table  # no new table while someone declines
            chloe = await (await client.post(rematch, json={"rematch": True}, headers=bearer(token2))).json()
            new = chloe["new_table"]
            await run_until(pilot, lambda: app.connection.table == new and isinstance(app.screen, TableScreen))
            session = app.remote_session
            assert isinstance(session, RemoteSession)
            assert session.seat == 1 and session.names == ("Chloé", "Ana", "Bot") and not session.over
            assert app.moved_to is not None and app.moved_to.startswith(f"{_server(client)}/play/{new}?token=")
            assert chloe["token"] not in app.moved_to


async def test_leaving_the_end_screen_opts_out_of_the_rematch(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "human"], players=2, seed=2)
        table = reply["table"]
        _finish(client.server.app[HUB], table, seed=1)
        app = RemoteApp(_server(client), table, reply["seats"][0]["token"], "en", bell=False)
        async with app.run_test(size=(110, 36)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, EndScreen) and app.table_info is not None)
            await pilot.press("q")
            await run_until(pilot, lambda: not app.is_running, limit=10)
        state = await (await client.get(f"/api/tables/{table}/rematch")).json()
        assert state["votes"] == [False, None] and state["new_table"] is None


async def test_join_with_a_spectator_link_shows_the_public_table_and_its_log_live(tmp_path: Path) -> None:
    from biblios_kit.engine.events import EventKind
    from biblios_kit.net.client import parse_link
    from biblios_kit.tui.public_cards import public_events
    from biblios_kit.tui.widgets.table_log import TableLog

    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["random", "random", "random"], seed=4, bot_delay=0.05)
        link = parse_link(reply["spectator_link"].replace("http://127.0.0.1:8765", _server(client)))
        assert link.watch and link.token is None
        app = RemoteApp(link.server, link.table, link.token, "es", bell=False)
        async with app.run_test(size=(110, 36)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.remote_session is not None)
            session = app.remote_session
            assert isinstance(session, RemoteSession) and session.seat is None and session.humans == ()
            log = app.screen.query_one(TableLog)
            await run_until(pilot, lambda: len(log.texts) >= 3)
            first = len(log.texts)
            await run_until(pilot, lambda: len(log.texts) > first)  # live: the bots' moves keep coming
            assert session.observation(0).hand == () and session.legal_actions() == ()
            for key in "tkaphw":  # a spectator's keys play nothing and break nothing
                await pilot.press(key)
            await pilot.pause()
            assert app.is_running and app.problem is None and session.remote.pending is False
            # nothing private: exactly the events everybody sees, a card named only when every seat saw it
            state = client.server.app[HUB].table(link.table).state
            seen = list(session.remote.events)
            assert seen == public_events(state.log[: len(seen)])
            drawn = [e for e in seen if e.kind is EventKind.DREW]
            assert drawn and all(e.card is None for e in drawn)  # a drawn card is seen by its player only


async def test_join_with_a_spectator_link_stops_where_spectators_are_not_allowed(tmp_path: Path) -> None:
    from biblios_kit.net.client import parse_link

    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["random", "random"], players=2, seed=4, spectators=False)
        link = parse_link(f"{_server(client)}/watch/{reply['table']}")
        set_language("fr")  # as join does with --lang fr
        try:
            app = RemoteApp(link.server, link.table, None, "fr", bell=False)
            async with app.run_test(size=(110, 36)) as pilot:
                await run_until(pilot, lambda: not app.is_running, limit=10)
        finally:
            set_language("en")
        assert app.problem == "Cette table n’accepte pas de spectateurs." and app.remote_session is None
