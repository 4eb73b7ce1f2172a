"""Saved positions for the dialog and end-screen tests: a church card to use, payments in cards and in Gold, a finished game.

The church and end positions come from seeded games saved as the game in progress (the
one ``make_app(resume=True)`` continues); the payments are scripted positions, which no
record can replay, so :func:`scripted_app` starts a session on them directly (no autosave).
"""

from __future__ import annotations

from conftest import cat, gold, human_in, position, prepare_save

from biblios_kit.engine.actions import BID, PASS
from biblios_kit.engine.state import GameState, Phase
from biblios_kit.rules import load_ruleset
from biblios_kit.tui.app import BibliosApp, make_app
from biblios_kit.tui.session import GameSession

SEATS = ("human", "random", "random")
NAMES = ("Ann", "Bob", "Cy")
SIZES = ((80, 24), (120, 40))
LANGS = ("en", "fr", "es")


def church_save(lang: str = "en") -> GameState:
    """Ann must use a church card (+1 on one die), every die at 3."""
    return prepare_save("biblios", SEATS, 57, human_in(Phase.CHURCH), rng_seed=3, names=NAMES, lang=lang)


def _won_auction(state: GameState, bid: int) -> GameState:
    """Ann bids ``bid`` on the card revealed, the others pass: she must pay."""
    while state.phase is Phase.BIDDING:
        state.apply(BID + bid if state.current_player == 0 else PASS)
    assert state.phase is Phase.PAYMENT and state.current_player == 0, state
    return state


def cards_payment() -> GameState:
    """Ann won a Gold 2 for two cards. She leads the Monks 7 to 6 (a 4 and a 3 against Bob's 4 and 2),
    and holds a Gold 1 and two 1s in categories the others lead 4 to 1.

    Paying the cheapest way gives the two hopeless 1s, never a Monks card nor the Gold 1 (Gold comes last).
    """
    ruleset = load_ruleset("biblios")
    hands = [
        [cat(ruleset, "monks", "H"), cat(ruleset, "monks", "E"), cat(ruleset, "forbidden-tomes", "G"),
         cat(ruleset, "holy-books", "F"), gold(ruleset, 1)],
        [cat(ruleset, "monks", "I"), cat(ruleset, "monks", "A"), cat(ruleset, "holy-books", "H"),
         cat(ruleset, "holy-books", "I"), gold(ruleset, 3)],
        [cat(ruleset, "pigments", "A"), cat(ruleset, "forbidden-tomes", "H"), cat(ruleset, "forbidden-tomes", "I"),
         gold(ruleset, 3, 1)],
    ]  # fmt: skip
    return _won_auction(position(ruleset, 3, hands=hands, pile=[gold(ruleset, 2)], active=2), 2)


def gold_payment() -> GameState:
    """Ann won a Monks card for 4 Gold holding Gold 3, 2 and 2: the cheapest payment is 2 + 2 (no overpay)."""
    ruleset = load_ruleset("biblios")
    hands = [
        [gold(ruleset, 3), gold(ruleset, 2), gold(ruleset, 2, 1), cat(ruleset, "pigments", "B")],
        [cat(ruleset, "monks", "A"), gold(ruleset, 1)],
        [cat(ruleset, "pigments", "A"), gold(ruleset, 1, 1)],
    ]
    return _won_auction(position(ruleset, 3, hands=hands, pile=[cat(ruleset, "monks", "I")], active=2), 4)


def finished_save(lang: str = "en") -> GameState:
    """A whole Scripts & Scribes game played at random (a tie on victory points broken by Gold)."""
    return prepare_save("scripts-and-scribes", SEATS, 4, lambda s: s.is_terminal(), names=NAMES, lang=lang)


def squash(text: str) -> str:
    """``text`` without spaces or border blocks (a sentence wrapped over two rows of a dialog still matches)."""
    return "".join(ch for ch in text if not ch.isspace() and ch not in "\u202f\xa0█▌▐")


def scripted_app(state: GameState, lang: str = "en") -> BibliosApp:
    """An app that plays ``state`` (Ann a person, the others random bots) as soon as it is mounted."""
    app = make_app(autosave=False, bot_delay=0)
    session = GameSession(state.ruleset, state, SEATS, NAMES, lang, autosave=False)
    app.call_later(app.start_session, session)
    return app
