"""Golden screenshots: setup, table, church dialog and end screens in each language at 80x24, fixed seeds.

Each screen is exported with ``app.export_screenshot()`` (SVG text) and compared with
``tests/snapshots/<screen>-<lang>.svg``. After an intended change of the UI or of a
catalog, regenerate them with ``BIBLIOS_UPDATE_GOLDEN=1 pytest tests/test_tui_golden.py``
and review the diff (see docs/playing.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import compare_golden, human_in, normalise_svg, prepare_save, run_until, waiting_for_person

from biblios_kit.engine.state import GameState, Phase
from biblios_kit.i18n import set_language
from biblios_kit.rules import load_ruleset
from biblios_kit.tui.app import BibliosApp, make_app
from biblios_kit.tui.config import GameConfig
from biblios_kit.tui.dialogs.church import ChurchDialog
from biblios_kit.tui.screens.end import EndScreen
from biblios_kit.tui.screens.setup import SetupScreen
from biblios_kit.tui.screens.table import TableScreen

SNAPSHOTS = Path(__file__).parent / "snapshots"
SIZE = (80, 24)
SEATS = ("human", "random", "random")
NAMES = ("Ann", "Bob", "Cy")


def _church_with_a_six(state: GameState) -> bool:
    if not human_in(Phase.CHURCH)(state) or 6 not in state.dice_values():
        return False
    church = state.observation(0).church
    effect = load_ruleset("biblios").deck[church[1]].effect if church else None
    return effect is not None and 1 in effect.signs and effect.dice == 1


def _setup(lang: str) -> tuple[BibliosApp, Callable[[BibliosApp], bool]]:
    app = make_app(GameConfig(seed=5, lang=lang), bot_delay=0)
    return app, lambda a: isinstance(a.screen, SetupScreen) and a.screen.complete


def _table(lang: str) -> tuple[BibliosApp, Callable[[BibliosApp], bool]]:
    prepare_save(
        "biblios", SEATS, 4, lambda s: s.decision_count >= 40 and human_in(Phase.GIFT)(s), names=NAMES, lang=lang
    )
    return make_app(resume=True, bot_delay=0), lambda a: isinstance(a.screen, TableScreen) and waiting_for_person(a)


def _church(lang: str) -> tuple[BibliosApp, Callable[[BibliosApp], bool]]:
    prepare_save("biblios", SEATS, 57, _church_with_a_six, rng_seed=3, names=NAMES, lang=lang)
    return make_app(resume=True, bot_delay=0), lambda a: isinstance(a.screen, ChurchDialog)


def _end(lang: str) -> tuple[BibliosApp, Callable[[BibliosApp], bool]]:
    prepare_save("scripts-and-scribes", SEATS, 4, lambda s: s.is_terminal(), names=NAMES, lang=lang)
    return make_app(resume=True, bot_delay=0), lambda a: isinstance(a.screen, EndScreen)


SCREENS = {"setup": _setup, "table": _table, "church": _church, "end": _end}


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
@pytest.mark.parametrize("screen", list(SCREENS))
def test_golden_screenshot(screen: str, lang: str) -> None:
    set_language(lang)
    app, ready = SCREENS[screen](lang)

    async def scenario() -> str:
        async with app.run_test(size=SIZE) as pilot:
            await run_until(pilot, lambda: ready(app))
            await pilot.pause()
            await pilot.pause()
            return normalise_svg(app.export_screenshot(title="biblios-kit"))

    svg = asyncio.run(scenario())
    golden = SNAPSHOTS / f"{screen}-{lang}.svg"
    compare_golden(svg, golden)
