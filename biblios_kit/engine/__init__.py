"""The rules engine: play any ruleset with hidden information, deterministically from a seed.

Start with :func:`new_game`; see ``docs/engine.md`` for the whole API::

    from biblios_kit.rules import load_ruleset
    from biblios_kit.engine import new_game, format_action

    state = new_game(load_ruleset("biblios"), players=3, seed=7)
    while not state.is_terminal():
        action = state.legal_actions()[0]
        state.apply(action)
    print(state.result().winners)
"""

from biblios_kit.engine.actions import (
    BID,
    CHURCH,
    DECLINE,
    KEEP,
    PASS,
    PAY,
    PICK,
    REFUSE,
    TO_AUCTION,
    TO_PUBLIC,
    Action,
    bid,
    bid_amount,
    card_of,
    church,
    church_parts,
    format_action,
    parse_action,
    pay,
    pick,
)
from biblios_kit.engine.compiled import CompiledRules, compile_rules
from biblios_kit.engine.events import Event, EventKind
from biblios_kit.engine.observation import AuctionView, Observation, PaymentView
from biblios_kit.engine.scoring import CategoryResult, DieAward, GameResult, Placing, WonBy
from biblios_kit.engine.state import GameState, Phase, new_game

__all__ = [
    "BID", "CHURCH", "DECLINE", "KEEP", "PASS", "PAY", "PICK", "REFUSE", "TO_AUCTION", "TO_PUBLIC",
    "Action", "AuctionView", "CategoryResult", "CompiledRules", "DieAward", "Event", "EventKind",
    "GameResult", "GameState", "Observation", "PaymentView", "Phase", "Placing", "WonBy",
    "bid", "bid_amount", "card_of", "church", "church_parts", "compile_rules", "format_action",
    "new_game", "parse_action", "pay", "pick",
]  # fmt: skip
