"""Golden screenshots of the dialogs over the table and of the end screen's panes, in each language at 80x24 and 120x40.

Church and payment dialogs (the board in view above them), the end screen's result and a
replay position, compared as SVG text with ``tests/snapshots/dialogs/<screen>-<lang>-<size>.svg``.
After an intended change, regenerate them with
``BIBLIOS_UPDATE_GOLDEN=1 pytest tests/test_tui_dialogs_golden.py`` and look at them.
"""

from __future__ import annotations

import asyncio
import difflib
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import run_until
from dialog_helpers import LANGS, SIZES, cards_payment, church_save, finished_save, scripted_app
from textual.pilot import Pilot

from biblios_kit.i18n import set_language
from biblios_kit.tui.app import BibliosApp, make_app
from biblios_kit.tui.dialogs.church import ChurchDialog
from biblios_kit.tui.dialogs.payment import PaymentDialog
from biblios_kit.tui.screens.end import EndScreen

SNAPSHOTS = Path(__file__).parent / "snapshots" / "dialogs"
UPDATE = os.environ.get("BIBLIOS_UPDATE_GOLDEN") == "1"

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


def normalise(svg: str) -> str:
    """Remove what may vary between runs: the hash-derived ids of the SVG's styles and clip paths."""
    return re.sub(r"terminal-\d+", "terminal", svg)


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
            return normalise(app.export_screenshot(title="biblios-kit"))

    svg = asyncio.run(scenario())
    golden = SNAPSHOTS / f"{screen}-{lang}-{size[0]}x{size[1]}.svg"
    if UPDATE or not golden.exists():
        if not UPDATE:
            pytest.fail(f"no golden file {golden.name}; run with BIBLIOS_UPDATE_GOLDEN=1 to create it")
        SNAPSHOTS.mkdir(parents=True, exist_ok=True)
        golden.write_text(svg, encoding="utf-8")
        return
    expected = golden.read_text(encoding="utf-8")
    if svg != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), svg.splitlines(True), "golden", "now", n=1))
        pytest.fail(f"{golden.name} differs (BIBLIOS_UPDATE_GOLDEN=1 regenerates it):\n{diff[:3000]}")


async def _press(pilot: Pilot[None], keys: tuple[str, ...]) -> None:
    for key in keys:
        await pilot.press(key)
