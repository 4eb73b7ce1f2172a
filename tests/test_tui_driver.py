"""A Pilot driver that plays a person's seat through the UI (keys only), plus checks of the driver itself.

The driver itself lives in ``conftest.py``; these tests check it.
"""

from __future__ import annotations

import asyncio

from conftest import game_config, run_until, waiting_for_person

from biblios_kit.engine.actions import KEEP, TO_AUCTION, TO_PUBLIC
from biblios_kit.engine.state import Phase
from biblios_kit.tui.app import make_app
from biblios_kit.tui.screens.table import TableScreen


def test_driver_places_a_card_with_a_key() -> None:
    async def scenario() -> None:
        app = make_app(game_config(seed=3), bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_until(pilot, lambda: waiting_for_person(app))
            screen = app.screen
            assert isinstance(screen, TableScreen)
            assert screen.session.phase is Phase.GIFT
            assert set(screen.my_legal()) == {KEEP, TO_AUCTION, TO_PUBLIC}
            await pilot.press("a")
            await pilot.pause()
            assert screen.session.state.actions == (TO_AUCTION,)
            assert set(screen.my_legal()) == {KEEP, TO_PUBLIC}
            await pilot.press("a")  # no longer legal: nothing happens
            await pilot.pause()
            assert screen.session.state.actions == (TO_AUCTION,)

    asyncio.run(scenario())
