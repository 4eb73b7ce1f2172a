"""Golden screenshots of the dialogs over the table and of the end screen's panes, in each language at 80x24 and 120x40.

Church and payment dialogs (the board in view above them), the end screen's result and a
replay position, compared as SVG text with ``tests/snapshots/dialogs/<screen>-<lang>-<size>.svg``.
After an intended change, regenerate them with
``BIBLIOS_UPDATE_GOLDEN=1 pytest tests/test_tui_dialogs_golden.py`` and look at them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import compare_golden, normalise_svg, run_until
from dialog_helpers import LANGS, SIZES, cards_payment, church_save, finished_save, scripted_app
from textual.pilot import Pilot

from biblios_kit.i18n import set_language
from biblios_kit.tui.app import BibliosApp, make_app
from biblios_kit.tui.dialogs.church import ChurchDialog
from biblios_kit.tui.dialogs.payment import PaymentDialog
from biblios_kit.tui.screens.end import EndScreen

SNAPSHOTS = Path(__file__).parent / "snapshots" / "dialogs"

Scenario = tuple[BibliosApp, type, tuple[str, ...]]
"""The app, the screen to wait for, then the keys to press."""


def _church(lang: str) -> Scenario:
    church_save(lang)
    return make_app(resume=True, bot_delay=0), ChurchDialog, ("down",)


def _payment(lang: str) -> Scenario:
    return scripted_app(cards_payment(), lang), PaymentDialog, ("enter",)


def _end(lang: str) -> Scenario:
    finished_save(lang)
    return make_app(resume=True, bot_delay=0), EndScreen, ()


def _replay(lang: str) -> Scenario:
    finished_save(lang)
    return make_app(resume=True, bot_delay=0), EndScreen, ("4", *["pagedown"] * 8, "right")


SCREENS: dict[str, Callable[[str], Scenario]] = {
    "church": _church,
    "payment": _payment,
    "end": _end,
    "replay": _replay,
}


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("screen", list(SCREENS))
def test_golden_screenshot(screen: str, lang: str, size: tuple[int, int]) -> None:
    set_language(lang)
    app, kind, keys = SCREENS[screen](lang)

    async def scenario() -> str:
        async with app.run_test(size=size) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, kind))
            await pilot.pause()
            await _press(pilot, keys)
            await pilot.pause()
            await pilot.pause()
            return normalise_svg(app.export_screenshot(title="biblios-kit"))

    svg = asyncio.run(scenario())
    golden = SNAPSHOTS / f"{screen}-{lang}-{size[0]}x{size[1]}.svg"
    compare_golden(svg, golden)


async def _press(pilot: Pilot[None], keys: tuple[str, ...]) -> None:
    for key in keys:
        await pilot.press(key)
