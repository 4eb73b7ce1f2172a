"""A Pilot driver that plays a person's seat through the UI (keys only), plus checks of the driver itself.

Other TUI tests import :func:`play_turn` and :func:`run_until` from here.
"""

from __future__ import annotations

import asyncio
import html
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from biblios_kit.engine.actions import BID, KEEP, PASS, PICK, TO_AUCTION, TO_PUBLIC
from biblios_kit.engine.state import GameState, Phase, new_game
from biblios_kit.i18n import set_language
from biblios_kit.rules import load_ruleset
from biblios_kit.saves import save_game
from biblios_kit.tui.app import BibliosApp, make_app
from biblios_kit.tui.config import GameConfig
from biblios_kit.tui.dialogs.church import ChurchDialog
from biblios_kit.tui.dialogs.payment import PaymentDialog
from biblios_kit.tui.screens.curtain import CurtainScreen
from biblios_kit.tui.screens.end import EndScreen
from biblios_kit.tui.screens.table import TableScreen

GIFT_KEYS = {KEEP: "k", TO_AUCTION: "a", TO_PUBLIC: "p"}
FULL = frozenset({"ruleset", "players", "seats"})


@pytest.fixture(autouse=True)
def _data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("BIBLIOS_KIT_DATA_DIR", str(folder))
    set_language("en")
    return folder


def game_config(ruleset: str = "biblios", seats: tuple[str, ...] = ("human", "random", "random"), seed: int = 7,
                options: tuple[str, ...] = (), names: tuple[str, ...] = ()) -> GameConfig:  # fmt: skip
    """A complete configuration (the setup screen is skipped)."""
    return GameConfig(ruleset=ruleset, options=options, players=len(seats), seats=seats, names=names, seed=seed,
                      lang="en", explicit=FULL)  # fmt: skip


async def run_until(pilot: Pilot[None], done: Callable[[], bool], limit: float = 30.0) -> None:
    """Let the app run (bots think in threads) until ``done()`` or fail after ``limit`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not done():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting; screen is {pilot.app.screen!r}")
        await asyncio.sleep(0.002)  # cheaper than pilot.pause(), which waits for a full refresh


def visible_text(app: BibliosApp) -> str:
    """The text on screen now (from the SVG screenshot), spaces normalised."""
    svg = app.export_screenshot()
    return html.unescape("".join(re.findall(r"<text[^>]*>(.*?)</text>", svg))).replace("\xa0", " ")


def waiting_for_person(app: BibliosApp) -> bool:
    """Whether the UI waits for a person (a dialog, the curtain, the end, or a legal action on the table)."""
    screen = app.screen
    if isinstance(screen, (ChurchDialog, PaymentDialog, CurtainScreen, EndScreen)):
        return True
    return isinstance(screen, TableScreen) and bool(screen.my_legal())


def press(app: BibliosApp, *keys: str) -> None:
    """Queue key presses without waiting for the app to go idle (``pilot.press`` waits ~0.1 s per key)."""
    for key in keys:
        app.simulate_key(key)


async def play_turn(pilot: Pilot[None], rng: random.Random) -> bool:
    """Make one decision through the UI as a person would (keys only); ``False`` once the end screen shows."""
    app = pilot.app
    assert isinstance(app, BibliosApp)
    await run_until(pilot, lambda: waiting_for_person(app))
    screen = app.screen
    if isinstance(screen, EndScreen):
        return False
    if isinstance(screen, CurtainScreen):
        press(app, "enter")
        await run_until(pilot, lambda: app.screen is not screen)
        return True
    if isinstance(screen, ChurchDialog):
        press(app, *["down"] * rng.randrange(len(screen.choices)), "enter")
        await run_until(pilot, lambda: app.screen is not screen)
        return True
    if isinstance(screen, PaymentDialog):
        chosen = len(screen.chosen)
        press(app, "enter")  # add the highlighted card, or confirm once complete
        await run_until(pilot, lambda: app.screen is not screen or len(screen.chosen) != chosen)
        return True
    assert isinstance(screen, TableScreen)
    legal = screen.my_legal()
    phase = screen.session.phase
    before = screen.session.state.decision_count
    if phase is Phase.GIFT:
        press(app, GIFT_KEYS[rng.choice(legal)])
    elif phase is Phase.PICK:
        picks = [a for a in legal if PICK <= a < PICK + 1000]
        press(app, str(rng.randrange(len(picks)) + 1))
    elif phase is Phase.BIDDING:
        bids = [a for a in legal if a >= BID]
        if bids and rng.random() < 0.3:
            press(app, *["plus"] * rng.randrange(3), "b")
        else:
            assert PASS in legal
            press(app, "x")
    elif phase is Phase.CHURCH:
        press(app, "c")
        await run_until(pilot, lambda: isinstance(app.screen, ChurchDialog))
        return True
    elif phase is Phase.PAYMENT:
        press(app, "y")
        await run_until(pilot, lambda: isinstance(app.screen, PaymentDialog))
        return True
    # the key must have played: the engine has one more decision
    await run_until(pilot, lambda: screen.session.state.decision_count > before, limit=10)
    return True


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


def prepare_save(ruleset: str, seats: tuple[str, ...], seed: int, until: Callable[[GameState], bool],
                 options: tuple[str, ...] = (), names: tuple[str, ...] = (), rng_seed: int = 1,
                 lang: str = "en", path: Path | None = None) -> GameState:  # fmt: skip
    """Play random legal moves from a seeded deal until ``until(state)``, then save it as the game in progress."""
    state = new_game(load_ruleset(ruleset, options), len(seats), seed)
    rng = random.Random(rng_seed)
    while not until(state):
        assert not state.is_terminal(), "the game ended before the wanted position"
        state.apply(state.random_action(rng))
    save_game(state, seats, names or tuple(f"P{i + 1}" for i in range(len(seats))), lang, path)
    return state


def human_in(phase: Phase, seat: int = 0) -> Callable[[GameState], bool]:
    """A predicate: ``seat`` must decide in ``phase``."""
    return lambda state: state.current_player == seat and state.phase is phase
