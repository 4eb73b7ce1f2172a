"""The church/bishop dialog over the table: the board stays in view, the highlighted row is marked, each choice previews the dice."""

from __future__ import annotations

import asyncio

import pytest
from conftest import run_until, visible_text
from dialog_helpers import LANGS, NAMES, SIZES, church_save, squash

from biblios_kit.engine.actions import DECLINE, church_parts
from biblios_kit.i18n import _, set_language
from biblios_kit.rulebook.describe import die_name, term
from biblios_kit.rulebook.grammar import capitalize
from biblios_kit.tui.app import make_app
from biblios_kit.tui.dialogs.base import board_rows
from biblios_kit.tui.dialogs.church import ChurchDialog
from biblios_kit.tui.screens.table import TableScreen
from biblios_kit.tui.widgets.marked_list import MarkedList


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_board_stays_in_view_under_the_church_dialog(lang: str, size: tuple[int, int]) -> None:
    set_language(lang)
    state = church_save(lang)
    ruleset = state.ruleset

    async def scenario() -> None:
        app = make_app(resume=True, bot_delay=0)
        async with app.run_test(size=size) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, ChurchDialog))
            await pilot.pause()
            dialog = app.screen
            assert isinstance(dialog, ChurchDialog)
            assert isinstance(app.screen_stack[-2], TableScreen)
            assert dialog.styles.background.a < 1  # the table shows through
            box = dialog.query_one("#church-dialog")
            assert box.region.y >= board_rows(ruleset)  # below the dice and the hand
            assert box.region.bottom == size[1]
            text = visible_text(app)
            # the hand and every die of the table are on screen, in the language chosen
            assert f"{capitalize(term(ruleset, 'hand'))} — {NAMES[0]}" in text
            for category in ruleset.categories:
                assert category.glyph in text
            assert _("{player}: use the card").format(player=NAMES[0]) in text
            assert squash(_("Choose the dice to move (only legal moves are listed):")) in squash(text)  # wraps at 80

    asyncio.run(scenario())


def test_the_highlighted_row_carries_a_marker_and_the_dice_preview_follows_it() -> None:
    state = church_save()
    ruleset = state.ruleset
    dice = state.dice_values()

    async def scenario() -> None:
        app = make_app(resume=True, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, ChurchDialog))
            dialog = app.screen
            assert isinstance(dialog, ChurchDialog)
            options = dialog.query_one(MarkedList)
            assert DECLINE in dialog.choices and dialog.choices[-1] == DECLINE
            for index, action in enumerate(dialog.choices):
                await pilot.pause()
                rows = [options.row_text(i) for i in range(options.option_count)]
                assert rows[index].startswith("▶ ")
                assert all(row.startswith("  ") for i, row in enumerate(rows) if i != index)
                moved, sign = church_parts(action)
                preview = dialog.preview
                assert preview.count("→") == len(moved)
                for die in moved:
                    assert f"{dice[die]} → {dice[die] + sign}" in preview
                    assert die_name(ruleset, die) in rows[index]
                assert squash(preview) in squash(visible_text(app))  # and it is on screen
                await pilot.press("down")
            # Enter plays the highlighted choice: back to the first move, then confirm it
            await pilot.press("home", "enter")
            await run_until(pilot, lambda: not isinstance(app.screen, ChurchDialog))
            moved, sign = church_parts(dialog.choices[0])
            assert app.session is not None
            assert app.session.state.dice_values()[moved[0]] == dice[moved[0]] + sign

    asyncio.run(scenario())


def test_escape_does_not_close_the_church_dialog() -> None:
    church_save()

    async def scenario() -> None:
        app = make_app(resume=True, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, ChurchDialog))
            dialog = app.screen
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is dialog

    asyncio.run(scenario())


def test_a_language_switch_keeps_the_highlighted_choice() -> None:
    church_save()

    async def scenario() -> None:
        app = make_app(resume=True, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, ChurchDialog))
            dialog = app.screen
            assert isinstance(dialog, ChurchDialog)
            await pilot.press("down", "down")
            before = dialog.preview
            await pilot.press("f2")
            await run_until(pilot, lambda: "Les dés deviendraient" in dialog.preview)
            assert dialog.query_one(MarkedList).highlighted == 2
            assert before.split(":", 1)[1].strip() == dialog.preview.split(":", 1)[1].strip()

    asyncio.run(scenario())
