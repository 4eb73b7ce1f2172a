"""Golden screenshots of the table screen at 80x24 and 120x40 in each language: collections, a bluff
about to be bid, a penalty notice, and the message of a terminal too small.

Compared like ``test_tui_golden.py`` (SVG text, hash-derived ids normalised), files
``tests/snapshots/table-<scene>-<lang>-<width>x<height>.svg``; regenerate after an intended change
with ``BIBLIOS_UPDATE_GOLDEN=1 pytest tests/test_tui_table_golden.py`` and look at them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from conftest import compare_golden, human_in, normalise_svg, prepare_save, press, run_until, waiting_for_person
from table_helpers import after_penalty, bidding, open_table, table_app
from test_tui_golden import SNAPSHOTS
from textual.pilot import Pilot

from biblios_kit.engine.state import Phase
from biblios_kit.i18n import set_language
from biblios_kit.tui.app import BibliosApp, make_app
from biblios_kit.tui.screens.table import TableScreen

SIZES = [(80, 24), (120, 40)]
Scene = Callable[[str], tuple[BibliosApp, Callable[[Pilot[None]], Awaitable[None]]]]


def _collections(lang: str) -> tuple[BibliosApp, Callable[[Pilot[None]], Awaitable[None]]]:
    """Four players late in the gift phase: every collection, the person's marks in the hand."""
    prepare_save("biblios", ("human", "random", "random", "random"), 4,
                 lambda s: s.decision_count >= 70 and human_in(Phase.GIFT)(s), names=("Ann", "Bob", "Cy", "Dee"),
                 lang=lang)  # fmt: skip
    app = make_app(resume=True, bot_delay=0)

    async def ready(pilot: Pilot[None]) -> None:
        await run_until(pilot, lambda: isinstance(app.screen, TableScreen) and waiting_for_person(app))

    return app, ready


def _bluff(lang: str) -> tuple[BibliosApp, Callable[[Pilot[None]], Awaitable[None]]]:
    """Ann raises her bid beyond her Gold: the bluff and what it would cost."""
    app = table_app()

    async def ready(pilot: Pilot[None]) -> None:
        table = await open_table(pilot, bidding())
        press(app, "plus", "plus", "plus")
        await run_until(pilot, lambda: table.bid_choice == 4)

    return app, ready


def _notice(lang: str) -> tuple[BibliosApp, Callable[[Pilot[None]], Awaitable[None]]]:
    """Bob could not pay: the penalty notice, as Ann saw it."""
    app = table_app()

    async def ready(pilot: Pilot[None]) -> None:
        await open_table(pilot, after_penalty())

    return app, ready


SCENES: dict[str, Scene] = {"collections": _collections, "bluff": _bluff, "notice": _notice}


async def _shoot(app: BibliosApp, ready: Callable[[Pilot[None]], Awaitable[None]], size: tuple[int, int]) -> str:
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await pilot.pause()
        await pilot.pause()
        return normalise_svg(app.export_screenshot(title="biblios-kit"))


def _compare(svg: str, name: str) -> None:
    golden = SNAPSHOTS / name
    compare_golden(svg, golden)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", ["en", "fr", "es"])
@pytest.mark.parametrize("scene", list(SCENES))
def test_table_golden_screenshot(scene: str, lang: str, size: tuple[int, int]) -> None:
    set_language(lang)
    app, ready = SCENES[scene](lang)
    svg = asyncio.run(_shoot(app, ready, size))
    _compare(svg, f"table-{scene}-{lang}-{size[0]}x{size[1]}.svg")


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
def test_too_small_golden_screenshot(lang: str) -> None:
    set_language(lang)
    app, ready = _bluff(lang)
    svg = asyncio.run(_shoot(app, ready, (60, 20)))
    _compare(svg, f"table-too-small-{lang}-60x20.svg")
