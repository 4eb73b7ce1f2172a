"""The payment dialog over the table: cheapest first, each row's effect on the totals, [x] marks, the board in view."""

from __future__ import annotations

import asyncio

import pytest
from conftest import cat, gold, run_until, visible_text
from dialog_helpers import LANGS, NAMES, SEATS, SIZES, cards_payment, gold_payment, scripted_app, squash

from biblios_kit.engine.actions import PAY
from biblios_kit.i18n import _, ngettext, set_language
from biblios_kit.rulebook.describe import term
from biblios_kit.rulebook.grammar import capitalize
from biblios_kit.tui.dialogs.base import board_rows
from biblios_kit.tui.dialogs.payment import PaymentDialog, _card_costs, cheapest_cards_first
from biblios_kit.tui.screens.table import TableScreen


async def _open(pilot: object, app: object) -> PaymentDialog:
    await run_until(pilot, lambda: isinstance(app.screen, PaymentDialog))  # type: ignore[arg-type, attr-defined]
    dialog = app.screen  # type: ignore[attr-defined]
    assert isinstance(dialog, PaymentDialog)
    return dialog


def test_enter_until_complete_pays_the_cheapest_cards_and_keeps_the_best_monks() -> None:
    state = cards_payment()
    ruleset = state.ruleset
    monks = {cat(ruleset, "monks", "H"), cat(ruleset, "monks", "E")}

    async def scenario() -> None:
        app = scripted_app(state)
        async with app.run_test(size=(80, 24)) as pilot:
            dialog = await _open(pilot, app)
            first = [a - PAY for a in dialog.offered]
            assert first[-1] == gold(ruleset, 1)  # Gold comes last
            assert set(first[-3:-1]) == monks  # then the Monks we lead with
            await pilot.press("enter", "enter")  # as the hint says
            await run_until(pilot, lambda: len(dialog.chosen) == 2)
            paid = {a - PAY for a in dialog.chosen}
            assert not paid & monks
            assert dialog.chosen == [PAY + card for card in first[:2]]
            await pilot.pause()
            assert "The payment is complete: confirm it." in visible_text(app)
            await pilot.press("enter")  # Confirm has the focus
            await run_until(pilot, lambda: not isinstance(app.screen, PaymentDialog))
            assert app.session is not None
            hand = app.session.state.hand(0)
            assert monks <= set(hand) and not paid & set(hand)

    asyncio.run(scenario())


def test_paying_cards_offers_gold_last_even_when_the_estimate_rates_it_cheap() -> None:
    state = cards_payment()
    ruleset = state.ruleset
    observation = state.observation(0)
    costs = _card_costs(ruleset, observation)
    small_gold = gold(ruleset, 1)
    assert costs[small_gold] < min(cost for card, cost in costs.items() if card != small_gold)  # what misled it
    actions = [PAY + card for card in observation.hand]
    order = [a - PAY for a in cheapest_cards_first(ruleset, actions, costs)]
    assert order[-1] == small_gold
    assert order[:2] == sorted(order[:2], key=costs.__getitem__)
    assert set(order[:2]) == {cat(ruleset, "forbidden-tomes", "G"), cat(ruleset, "holy-books", "F")}
    assert order[2:4] == [cat(ruleset, "monks", "E"), cat(ruleset, "monks", "H")]
    golds = [PAY + gold(ruleset, 3), PAY + gold(ruleset, 1), PAY + cat(ruleset, "monks", "E")]
    assert [a - PAY for a in cheapest_cards_first(ruleset, golds, {})] == [
        cat(ruleset, "monks", "E"),
        gold(ruleset, 1),
        gold(ruleset, 3),
    ]


def test_rows_mark_chosen_cards_and_preview_the_totals() -> None:
    state = cards_payment()
    ruleset = state.ruleset
    tomes = cat(ruleset, "forbidden-tomes", "G")
    monk = cat(ruleset, "monks", "H")

    async def scenario() -> None:
        app = scripted_app(state)
        async with app.run_test(size=(80, 24)) as pilot:
            dialog = await _open(pilot, app)
            rows = dialog.rows()
            assert rows[0].startswith("▶ [ ] ") and all(row.startswith("  [ ] ") for row in rows[1:])
            by_card = {a - PAY: row for a, row in zip(dialog.offered, rows, strict=True)}
            assert by_card[monk].endswith("† Monks 7 → 3")  # Monks 4 H and 3 E: 7, without the 4: 3
            assert by_card[tomes].endswith("✖ Forbidden Tomes 1 → 0")
            assert by_card[gold(ruleset, 1)].endswith("Gold 1 → 0")
            await pilot.press("enter")
            await run_until(pilot, lambda: len(dialog.chosen) == 1)
            await pilot.pause()
            rows = dialog.rows()
            assert rows[0].startswith("  [x] ") and rows[1].startswith("▶ [ ] ")
            text = visible_text(app)
            assert "1 card chosen out of 2" in text
            assert "After paying: " in text
            # Enter on a [x] row takes the card back
            await pilot.press("up", "enter")
            await run_until(pilot, lambda: not dialog.chosen)
            assert all("[ ]" in row for row in dialog.rows())
            await pilot.press("enter", "backspace")  # Backspace undoes the last card too
            await run_until(pilot, lambda: not dialog.chosen)

    asyncio.run(scenario())


def test_gold_is_paid_without_overpay_when_possible() -> None:
    state = gold_payment()
    ruleset = state.ruleset

    async def scenario() -> None:
        app = scripted_app(state)
        async with app.run_test(size=(80, 24)) as pilot:
            dialog = await _open(pilot, app)
            # Gold 3 + 2 = 5 loses 1; 2 + 2 = 4 is exact: a Gold 2 comes first
            assert ruleset.deck[dialog.offered[0] - PAY].value == 2
            assert dialog.rows()[0].endswith("Gold 7 → 5")
            await pilot.press("enter")
            await run_until(pilot, lambda: len(dialog.chosen) == 1)
            assert ruleset.deck[dialog.offered[0] - PAY].value == 2
            await pilot.press("enter")
            await run_until(pilot, lambda: len(dialog.chosen) == 2)
            await pilot.pause()
            text = visible_text(app)
            assert "Overpay" not in text and "= 4 Gold" in text
            await pilot.press("enter")
            await run_until(pilot, lambda: not isinstance(app.screen, PaymentDialog))
            assert app.session is not None
            hand = app.session.state.hand(0)
            assert [ruleset.deck[c].value for c in hand if ruleset.deck[c].kind.value == "gold"] == [3]

    asyncio.run(scenario())


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_board_stays_in_view_under_the_payment_dialog(lang: str, size: tuple[int, int]) -> None:
    set_language(lang)
    state = cards_payment()
    ruleset = state.ruleset

    async def scenario() -> None:
        app = scripted_app(state)
        async with app.run_test(size=size) as pilot:
            dialog = await _open(pilot, app)
            await pilot.pause()
            assert isinstance(app.screen_stack[-2], TableScreen)
            assert dialog.styles.background.a < 1
            box = dialog.query_one("#payment-dialog")
            assert box.region.y >= board_rows(ruleset) and box.region.bottom == size[1]
            text = visible_text(app)
            assert f"{capitalize(term(ruleset, 'hand'))} — {NAMES[0]}" in text
            assert _("Pay your bid") in text
            chosen = ngettext("{count} card chosen out of {bid}", "{count} cards chosen out of {bid}", 0)
            assert chosen.format(count=0, bid=2) in text
            assert squash(_("Enter: choose or take back the card · Backspace: undo")) in squash(text)
            # every row is on screen (none scrolled away), each with its mark
            for row in dialog.rows():
                assert squash(row) in squash(text)
            await pilot.press("enter")
            await run_until(pilot, lambda: len(dialog.chosen) == 1)
            await pilot.pause()
            one = ngettext("{count} card chosen out of {bid}", "{count} cards chosen out of {bid}", 1)
            assert one.format(count=1, bid=2) in visible_text(app)

    asyncio.run(scenario())


def test_a_payment_the_game_no_longer_takes_closes_the_dialog_with_its_reason() -> None:
    """A server that refuses the next question (the game moved on) closes the dialog with its message;
    the table stays, and the payment can be opened again."""
    from biblios_kit.tui.app import make_app
    from biblios_kit.tui.session import GameSession
    from biblios_kit.tui.table_session import SeatUnavailable

    state = gold_payment()
    session = GameSession(state.ruleset, state, SEATS, NAMES, autosave=False)
    asked = session.payment_options

    def refused_after_the_first_card(prefix: object) -> tuple[int, ...] | None:
        if prefix:
            raise SeatUnavailable("you have no payment to make now")
        return asked(())

    session.payment_options = refused_after_the_first_card  # type: ignore[method-assign]

    async def scenario() -> None:
        app = make_app(autosave=False, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            app.start_session(session)
            dialog = await _open(pilot, app)
            await pilot.press("enter")
            await run_until(pilot, lambda: app.screen is not dialog)
            assert isinstance(app.screen, TableScreen) and app.is_running
            assert [str(n.message) for n in app._notifications] == ["you have no payment to make now"]
            await pilot.press("y")
            await _open(pilot, app)

    asyncio.run(scenario())
