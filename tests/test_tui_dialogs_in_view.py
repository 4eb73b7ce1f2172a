"""The hint (t), review (r) and rules (F1) windows open under the board, which stays in view."""

from __future__ import annotations

import asyncio

from conftest import cat, gold, position, run_until, visible_text
from dialog_helpers import NAMES, scripted_app

from biblios_kit.bots.registry import make_bot
from biblios_kit.engine import new_game
from biblios_kit.engine.state import Phase
from biblios_kit.i18n import set_language
from biblios_kit.rulebook.describe import term
from biblios_kit.rulebook.grammar import capitalize
from biblios_kit.rules import load_ruleset
from biblios_kit.tui.dialogs.base import board_rows
from biblios_kit.tui.dialogs.hint import HintDialog, ReviewDialog
from biblios_kit.tui.screens.help import HelpScreen
from biblios_kit.tui.screens.table import TableScreen


def test_hint_review_and_rules_leave_the_board_in_view() -> None:
    set_language("en")
    ruleset = load_ruleset("biblios")
    hands = [[gold(ruleset, 3), cat(ruleset, "monks", "A")], [cat(ruleset, "monks", "B")], [gold(ruleset, 1)]]
    draw = [cat(ruleset, "monks", "I"), cat(ruleset, "pigments", "B"), cat(ruleset, "holy-books", "C"),
            gold(ruleset, 2)]  # fmt: skip
    state = position(ruleset, 3, hands=hands, draw=draw, active=0)
    assert state.phase is Phase.GIFT and state.current_player == 0
    finished = new_game(ruleset, 2, 21)
    bots = [make_bot("random", 1, ruleset), make_bot("random", 2, ruleset)]
    while not finished.is_terminal():
        finished.apply(bots[finished.current_player].choose(finished.observation(finished.current_player)))
    size = (80, 24)
    hand_title = f"{capitalize(term(ruleset, 'hand'))} — {NAMES[0]}"

    def board_in_view(app: object, box_id: str) -> None:
        screen = app.screen  # type: ignore[attr-defined]
        assert isinstance(app.screen_stack[-2], TableScreen)  # type: ignore[attr-defined]
        assert screen.styles.background.a < 1  # the table shows, dimmed, behind
        box = screen.query_one(box_id)
        assert box.region.y >= board_rows(ruleset) and box.region.bottom == size[1], box.region
        text = visible_text(app)
        assert hand_title in text

    async def scenario() -> None:
        app = scripted_app(state)
        async with app.run_test(size=size) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, TableScreen) and bool(app.screen.my_legal()))
            table = app.screen
            assert isinstance(table, TableScreen)
            hint = HintDialog(ruleset, table.session.observation(0), "Ann", iterations=8)
            app.push_screen(hint)
            await run_until(pilot, lambda: hint.hint is not None, limit=60)
            await pilot.pause()
            board_in_view(app, "#hint-dialog")
            assert "Suggested move" in visible_text(app)
            await pilot.press("escape")
            await run_until(pilot, lambda: app.screen is table)
            await pilot.press("f1")
            await run_until(pilot, lambda: isinstance(app.screen, HelpScreen))
            await pilot.pause()
            board_in_view(app, "#help-dialog")
            await pilot.press("escape")
            await run_until(pilot, lambda: app.screen is table)
            review = ReviewDialog(ruleset, 2, 21, finished.history, [0], ["Ann", "Bob"], per_player=1, iterations=4)
            app.push_screen(review)
            await run_until(pilot, lambda: review.items is not None, limit=120)
            await pilot.pause()
            board_in_view(app, "#review-dialog")

    asyncio.run(scenario())
