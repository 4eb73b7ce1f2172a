"""Scripted tables for the table-screen tests: positions the engine reaches by itself, opened in the app.

The ``test_tui_table_*`` modules import it.
"""

from __future__ import annotations

from collections.abc import Sequence

from conftest import cat, gold, position, run_until, waiting_for_person
from textual.pilot import Pilot

from biblios_kit.engine.actions import BID, PASS
from biblios_kit.engine.state import GameState
from biblios_kit.rules import load_ruleset
from biblios_kit.tui.app import BibliosApp, make_app
from biblios_kit.tui.config import GameConfig
from biblios_kit.tui.screens.table import TableScreen
from biblios_kit.tui.session import GameSession

NAMES = ("Ann", "Bob", "Cy")


def bidding(options: tuple[str, ...] = ()) -> GameState:
    """Two players; Ann (seat 0, Gold 1 and 2: she can pay 3) opens the bidding on Monks 4 H."""
    ruleset = load_ruleset("biblios", options)
    hands = [[cat(ruleset, "monks", "A"), gold(ruleset, 1), gold(ruleset, 2)], [cat(ruleset, "pigments", "B")]]
    return position(ruleset, 2, hands=hands, pile=[cat(ruleset, "monks", "H"), cat(ruleset, "holy-books", "A")],
                    active=1)  # fmt: skip


def after_penalty() -> GameState:
    """Two players; Bob bid 3 Gold with none, Ann passed: Bob cannot pay and Ann took his only card
    (Pigments 2 B). The card is auctioned again without Bob: Ann decides."""
    ruleset = load_ruleset("biblios")
    hands = [[cat(ruleset, "monks", "A"), gold(ruleset, 1)], [cat(ruleset, "pigments", "B")]]
    state = position(ruleset, 2, hands=hands, pile=[cat(ruleset, "monks", "H"), cat(ruleset, "holy-books", "A")])
    state.apply(BID + 3)
    state.apply(PASS)
    assert state.current_player == 0
    return state


def table_app(config: GameConfig | None = None) -> BibliosApp:
    """An app that will show a scripted session (no save is written)."""
    return make_app(config or GameConfig(), bot_delay=0, autosave=False)


async def open_table(pilot: Pilot[None], state: GameState, seats: Sequence[str] = ("human", "random"),
                     names: Sequence[str] = NAMES) -> TableScreen:  # fmt: skip
    """Show ``state`` on the table and wait for the person to decide."""
    app = pilot.app
    assert isinstance(app, BibliosApp)
    # with the app's forced-moves setting, as a new game started from its config would have
    session = GameSession(state.ruleset, state, tuple(seats), tuple(names[: len(seats)]), autosave=False,
                          autoplay=app.config.autoplay)  # fmt: skip
    app.start_session(session)
    await run_until(pilot, lambda: isinstance(app.screen, TableScreen) and waiting_for_person(app))
    await pilot.pause()
    table = app.screen
    assert isinstance(table, TableScreen)
    return table
