"""What a key redraws at the table: only what changed (the footer and the box titles stay as they are), and no
collection of the young objects in the key's frame (issue #29's key speed, docs/performance.md)."""

from __future__ import annotations

import asyncio
import gc
import random

import pytest
from conftest import game_config, normalise_svg, play_turn, press, run_until, visible_text, waiting_for_person
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Footer, Static

from biblios_kit.engine.state import Phase
from biblios_kit.rules import load_ruleset
from biblios_kit.tui import heap
from biblios_kit.tui.app import make_app
from biblios_kit.tui.screens.table import TableScreen
from biblios_kit.tui.screens.table_keys import footer_actions, footer_state, table_bindings
from biblios_kit.tui.table_view import KeysPart
from biblios_kit.tui.widgets.table_log import TableLog
from biblios_kit.tui.widgets.titles import set_titles


def test_the_footer_is_rebuilt_only_when_the_keys_it_shows_change() -> None:
    """The footer shows the hint, the hand in hot-seat, the notice and quitting; the game's keys are on the buttons."""
    actions = footer_actions(table_bindings(load_ruleset("biblios")))
    assert {name for name, _parameters in actions} == {"show_hand", "hint", "dismiss_notice", "quit_game"}
    drawing = footer_state(actions, KeysPart(Phase.GIFT, (0, 1, 2), False, None, False))
    assert footer_state(actions, KeysPart(Phase.GIFT, (1, 2), False, None, False)) == drawing  # a card was kept
    assert footer_state(actions, KeysPart(Phase.BIDDING, (7, 8, 9), False, None, False)) == drawing
    assert footer_state(actions, KeysPart(Phase.GIFT, (), False, None, False)) != drawing  # no hint: a bot plays
    assert footer_state(actions, KeysPart(Phase.GIFT, (1, 2), False, 3, False)) != drawing  # a notice to close
    assert footer_state(actions, KeysPart(Phase.GIFT, (1, 2), False, None, True)) != drawing  # hot-seat hand


def test_keeping_a_card_does_not_rebuild_the_footer() -> None:
    seen: dict[str, object] = {}

    async def scenario() -> None:
        app = make_app(game_config(seed=3), bot_delay=0)
        async with app.run_test(size=(120, 40)) as pilot:
            await run_until(pilot, lambda: waiting_for_person(app) and isinstance(app.screen, TableScreen))
            table = app.screen
            assert isinstance(table, TableScreen)
            footer = table.query_one(Footer)
            await run_until(pilot, lambda: len(footer.children) > 0)
            await pilot.pause()
            keys_before = list(footer.children)
            press(app, "k")
            await run_until(pilot, lambda: table.session.state.decision_count == 1)
            await pilot.pause()
            await pilot.pause()
            seen["same keys"] = list(footer.children) == keys_before

    asyncio.run(scenario())
    assert seen["same keys"]  # Textual's footer rebuilds its keys at every refresh of the bindings


def test_a_title_set_again_does_not_repaint_its_widget() -> None:
    """Textual repaints a widget whenever its border title is assigned, even the same one."""
    repaints: list[str] = []

    class Box(Static):
        def refresh(self, *regions: object, **options: object) -> Box:  # type: ignore[override]
            repaints.append(str(self.border_title))
            return super().refresh(*regions, **options)  # type: ignore[arg-type]

    class Boxes(App[None]):
        def compose(self) -> ComposeResult:
            yield Box("text")

    async def scenario() -> None:
        app = Boxes()
        async with app.run_test() as pilot:
            box = app.query_one(Box)
            await pilot.pause()
            repaints.clear()
            set_titles(box, "Now")
            set_titles(box, "Now")
            set_titles(box, "Now", "sub")
            set_titles(box, "Ahora", "sub")

    asyncio.run(scenario())
    assert repaints.count("Now") == 4 and repaints.count("Ahora") == 2  # two assignments, two repaints each


def test_young_objects_wait_for_the_idle_table_and_the_thresholds_come_back_after_it() -> None:
    before = gc.get_threshold()
    shown: dict[str, object] = {}

    async def scenario() -> None:
        app = make_app(game_config(seed=3), bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_until(pilot, lambda: waiting_for_person(app) and isinstance(app.screen, TableScreen))
            await run_until(pilot, lambda: gc.get_freeze_count() > 0)
            shown["threshold"] = gc.get_threshold()
            await asyncio.sleep(heap.IDLE_DELAY * 3)  # the first frames' young objects are collected
            collections: list[int] = []

            def collected(phase: str, info: dict[str, int]) -> None:
                if phase == "stop":
                    collections.append(info["generation"])

            gc.callbacks.append(collected)
            try:
                table = app.screen
                assert isinstance(table, TableScreen)
                press(app, "k")
                await run_until(pilot, lambda: table.session.state.decision_count == 1)
                await pilot.pause()  # its frame is drawn
                shown["during the key"] = list(collections)
                await run_until(pilot, lambda: len(collections) > len(shown["during the key"]), limit=10)
            finally:
                gc.callbacks.remove(collected)

    asyncio.run(scenario())
    assert shown["threshold"] == (heap.YOUNG_THRESHOLD, *before[1:])
    assert shown["during the key"] == []  # then the table collected once idle
    assert gc.get_threshold() == before


async def _drawn_as_from_scratch(pilot: Pilot[None]) -> str:
    """The screen as drawn so far (each widget's kept lines) is the screen drawn again from scratch; its text."""
    app = pilot.app
    await pilot.pause()
    await pilot.pause()
    drawn = normalise_svg(app.export_screenshot())
    for widget in app.screen.walk_children(with_self=True):
        widget.refresh()  # forget every kept line
    await pilot.pause()
    assert normalise_svg(app.export_screenshot()) == drawn
    return visible_text(app)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_the_table_drawn_key_by_key_is_the_table_drawn_from_scratch(size: tuple[int, int]) -> None:
    """Only what changed is drawn again (the log's new lines alone while it fits in its window): nothing is left
    stale, before the log is full, once it scrolls, and after the terminal is resized."""
    texts: list[str] = []

    async def scenario() -> None:
        app = make_app(game_config(seed=3), bot_delay=0)
        async with app.run_test(size=size) as pilot:
            await run_until(pilot, lambda: waiting_for_person(app) and isinstance(app.screen, TableScreen))
            table = app.screen
            assert isinstance(table, TableScreen)
            log = table.query_one(TableLog)
            rng = random.Random(5)
            await _drawn_as_from_scratch(pilot)
            fitting = log.virtual_size
            press(app, "k")
            await run_until(pilot, lambda: table.session.state.decision_count == 1)
            texts.append(await _drawn_as_from_scratch(pilot))
            assert log.virtual_size == fitting  # a new line in a log that fits: no layout, that line alone drawn
            while len(log.lines) <= log.scrollable_content_region.height + 2:  # until the log scrolls
                assert await play_turn(pilot, rng)
                await _drawn_as_from_scratch(pilot)
            assert log.scroll_y == log.max_scroll_y == len(log.lines) - log.scrollable_content_region.height > 0
            await pilot.resize_terminal(size[0], size[1] + 40)  # the log fits again
            await _drawn_as_from_scratch(pilot)
            assert len(log.lines) < log.scrollable_content_region.height and log.max_scroll_y == 0
            await pilot.resize_terminal(*size)
            await _drawn_as_from_scratch(pilot)
            assert log.max_scroll_y == len(log.lines) - log.scrollable_content_region.height  # not the padded height

    asyncio.run(scenario())
    assert "Player 1 keeps the" in texts[0]
