"""Hot-seat bids are public: no curtain before a bid unless the bid would show the bidder's Gold."""

from __future__ import annotations

import asyncio
import dataclasses

from conftest import cat, gold, position, run_until, visible_text
from dialog_helpers import cards_payment

from biblios_kit.engine.state import GameState, Phase
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import Ruleset
from biblios_kit.tui.app import make_app
from biblios_kit.tui.screens.curtain import CurtainScreen
from biblios_kit.tui.screens.table import TableScreen
from biblios_kit.tui.session import GameSession
from biblios_kit.tui.table_turns import needs_private_cards


def bidding(ruleset: Ruleset, card: int) -> GameState:
    """Bob (seat 1) bids first on ``card``; Ann holds Gold 3 and 2, Bob a Gold 1."""
    hands = [
        [gold(ruleset, 3), gold(ruleset, 2), cat(ruleset, "pigments", "B")],
        [cat(ruleset, "monks", "A"), gold(ruleset, 1)],
        [cat(ruleset, "pigments", "A"), gold(ruleset, 1, 1)],
    ]
    state = position(ruleset, 3, hands=hands, pile=[card], active=0)
    assert state.phase is Phase.BIDDING
    return state


def hand_ceiling(ruleset: Ruleset) -> Ruleset:
    """The ruleset with each bid in Gold limited to the Gold in the bidder's hand."""
    return dataclasses.replace(ruleset, auction=dataclasses.replace(ruleset.auction, gold_ceiling_hand=True))


def test_which_decisions_need_the_deciders_private_cards() -> None:
    ruleset = load_ruleset("biblios")
    monks = cat(ruleset, "monks", "I")
    state = bidding(ruleset, monks)
    obs = state.observation(state.current_player)
    assert not needs_private_cards(ruleset, obs)  # a bid in Gold, the same ceiling for all: public
    assert needs_private_cards(hand_ceiling(ruleset), obs)  # the bids offered would show the Gold held
    gold_card = bidding(ruleset, gold(ruleset, 2, 1))
    obs = gold_card.observation(gold_card.current_player)
    assert obs.auction is not None and obs.auction.currency != "gold"
    assert not needs_private_cards(hand_ceiling(ruleset), obs)  # a number of cards: seen by all
    payment = cards_payment()
    assert needs_private_cards(ruleset, payment.observation(0))
    gift = position(ruleset, 3, hands=[[], [], []], draw=[monks, gold(ruleset, 3)], active=1)
    assert gift.phase is Phase.GIFT and needs_private_cards(ruleset, gift.observation(1))


def test_a_hot_seat_bid_is_made_on_the_public_table_without_a_curtain() -> None:
    ruleset = load_ruleset("biblios")
    state = bidding(ruleset, cat(ruleset, "monks", "I"))
    bidder = state.current_player
    assert bidder is not None

    async def scenario() -> None:
        app = make_app(autosave=False, bot_delay=0)
        seats = ("human", "human", "random")
        session = GameSession(ruleset, state, seats, ("Ann", "Bob", "Cy"), "en", autosave=False)
        app.call_later(app.start_session, session)
        async with app.run_test(size=(100, 30)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, TableScreen) and bool(app.screen.my_legal()))
            table = app.screen
            assert isinstance(table, TableScreen)
            assert table.viewer is None and table.actor == bidder
            await pilot.pause()
            text = visible_text(app)
            assert "(bluff)" not in text  # it would tell everyone what the bidder holds
            table.seen = dataclasses.replace(table.seen, bid_choice=9)  # more than anyone holds
            table.update_view()
            await pilot.pause()
            assert "(bluff)" not in visible_text(app)
            seen_curtain = False
            while session.state.phase is Phase.BIDDING:
                await run_until(pilot, lambda: isinstance(app.screen, CurtainScreen) or (
                    isinstance(app.screen, TableScreen) and bool(app.screen.my_legal())
                ) or session.state.phase is not Phase.BIDDING)  # fmt: skip
                if session.state.phase is not Phase.BIDDING:
                    break
                seen_curtain |= isinstance(app.screen, CurtainScreen)
                if isinstance(app.screen, CurtainScreen):
                    break
                await pilot.press("x")  # pass
                await pilot.pause()
            assert not seen_curtain

    asyncio.run(scenario())
