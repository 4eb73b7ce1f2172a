"""Complete games through the UI: one person (driven by keys) against bots, to the end screen, in each edition."""

from __future__ import annotations

import asyncio
import random

import pytest
from conftest import game_config, play_turn, visible_text

from biblios_kit.tui.app import make_app
from biblios_kit.tui.saves import load_game
from biblios_kit.tui.screens.end import EndScreen

EDITIONS = [
    ("biblios", ("human", "random", "random"), ("medieval-bluff",)),
    ("scripts-and-scribes", ("random", "human"), ()),
]


@pytest.mark.slow
@pytest.mark.parametrize(("ruleset", "seats", "options"), EDITIONS, ids=[e[0] for e in EDITIONS])
def test_complete_game_against_bots(ruleset: str, seats: tuple[str, ...], options: tuple[str, ...]) -> None:
    async def scenario() -> None:
        app = make_app(game_config(ruleset, seats, seed=11, options=options), bot_delay=0)
        rng = random.Random(5)
        decisions = 0
        async with app.run_test(size=(100, 32)) as pilot:
            while await play_turn(pilot, rng):
                decisions += 1
                assert decisions < 3000
            screen = app.screen
            assert isinstance(screen, EndScreen)
            state = app.session.state
            assert state.is_terminal()
            await pilot.pause()
            text = visible_text(app)
            assert "the game is over" in text
            result = state.result()
            for placing in result.ranking:
                for seat in placing.players:
                    assert app.session.names[seat] in text
            # the save holds the finished game, replayable
            saved = load_game()
            assert saved.finished and saved.state.actions == state.actions
        assert decisions > 20

    asyncio.run(scenario())
