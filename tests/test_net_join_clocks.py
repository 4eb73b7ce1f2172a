"""``biblios-kit join`` at a table with clocks: the events in notices, a vote with ``v``, the seat back with ``g``."""

from __future__ import annotations

from typing import Any

import aiohttp
from conftest import run_until
from net_helpers import HostProcess, bearer

from biblios_kit.net.client import ApiClient, parse_link
from biblios_kit.net.clock_texts import clock_time, event_sentence
from biblios_kit.net.remote import RemoteApp
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


async def _settings(host: HostProcess, table: str, body: dict[str, Any]) -> None:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{host.url}/api/tables/{table}/settings", json=body, headers=bearer(host.admin())) as response,
    ):
        assert response.status == 200, await response.json()


def test_join_votes_for_a_stand_in_tells_the_events_and_takes_its_seat_back(host: HostProcess) -> None:
    import asyncio

    async def scenario() -> None:
        async with ApiClient(host.url) as admin:
            reply = await admin.create_table(host.admin(), ruleset="biblios", players=2, seed=5, bot_delay=0.3,
                                             seats=["human", "human"], names=["Ana", "Beto"])  # fmt: skip
        table = reply["table"]
        link = parse_link(reply["seats"][1]["link"])
        app = RemoteApp(link.server, link.table, link.token, "en")
        notes = _notes(app)
        async with app.run_test(size=(120, 40)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.table_info is not None)
            assert not app.stand_in_action("seat_back")
            # Ana is away: Beto's vote is the majority of the others (one of one).
            await run_until(pilot, lambda: app.stand_in_action("vote"))  # the key applies once the client knows
            await pilot.press("v")
            await run_until(pilot, lambda: "The vote passed: a stand-in bot plays for Ana." in notes, limit=10)
            assert "Beto votes to let a stand-in bot play for Ana (1 of 1 votes)." in notes
            assert "A stand-in bot plays for Ana." in notes
            # A short move clock: Beto's turn runs out and the stand-in plays for him.
            await _settings(host, table, {"move_seconds": 0.5})
            await run_until(pilot, lambda: "Beto ran out of time for this turn." in notes, limit=20)
            await run_until(pilot, lambda: any(n.startswith("A stand-in bot plays for you. Press g") for n in notes))
            await _settings(host, table, {"move_seconds": 0})
            await run_until(pilot, lambda: app.stand_in_action("seat_back"))
            await pilot.press("g")
            await run_until(pilot, lambda: "Beto is back and plays again." in notes, limit=10)
            assert app.clock is not None and app.clock["stand_in"] == ["vote", None]
            assert notes.count("Beto ran out of time for this turn.") == 1  # a reconnection would not tell it again
            # A client does not trust its server: nonsense clock messages are ignored, never a crash.
            told = len(notes)
            for bad in ({"type": "clock", "stand_in": "x"}, {"type": "clock", "stand_in": [None]},
                        {"type": "table_event", "event": {"kind": "back", "seat": 9}},
                        {"type": "table_event", "event": ["back"]},
                        {"type": "table_event", "event": {"kind": "vote", "seat": 0, "by": "Ana"}}):  # fmt: skip
                app._on_info(bad)
            assert len(notes) == told and app.clock is not None and app.clock["stand_in"] == ["vote", None]
            app._on_info({"type": "clock", "stand_in": ["[b]x[/b]", None], "to_move": 0, "running": True,
                          "move_left": float("nan"), "game_left": None})  # fmt: skip
            await pilot.pause()
            assert app.is_running and not app.stand_in_action("seat_back")

    asyncio.run(scenario())


def test_event_sentences_and_clock_times() -> None:
    names = ["Ana", "Beto"]
    assert (
        event_sentence({"kind": "time_out", "seat": 0, "clock": "game"}, names) == "Ana ran out of time for the game."
    )
    assert event_sentence({"kind": "stand_in", "seat": 1, "reason": "absent"}, names) == (
        "Beto has been away too long: a stand-in bot plays for them."
    )
    for bad in ({"kind": "back", "seat": 2}, {"kind": "back", "seat": True}, {"kind": "party", "seat": 0},
                {"kind": "vote", "seat": 0, "by": 1, "votes": "many", "needed": 1}):  # fmt: skip
        assert event_sentence(bad, names) is None
    assert [clock_time(t) for t in (0, 0.2, 59.5, 61, 3600)] == ["0:00", "0:01", "1:00", "1:01", "1:00:00"]
    assert [clock_time(t) for t in (float("nan"), float("inf"), -5, 1e300)] == ["0:00", "0:00", "0:00", "168:00:00"]


def test_a_spectator_has_no_seat_to_take_back_nor_a_vote() -> None:
    """A spectator's client gets the clock messages too: its keys never index the stand-ins by a seat it lacks."""
    from types import SimpleNamespace

    app = RemoteApp("http://127.0.0.1:9", "t", None, "en")
    app.remote_session = SimpleNamespace(seat=None, seats=["human", "human"])  # type: ignore[assignment]
    app.clock = {"stand_in": [None, "vote"]}
    app.table_info = {"connected": [False, True]}
    assert not app.stand_in_action("seat_back")
    assert not app.stand_in_action("vote")
