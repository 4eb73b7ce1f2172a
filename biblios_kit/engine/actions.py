"""Actions: a compact int form for bots and search, and a readable text form that round-trips.

Every decision of the rules is one action, an ``int``:

==========================  ==================  ===============================================
int                         text                meaning
==========================  ==================  ===============================================
``KEEP`` (0)                ``keep``            gift turn: place the drawn card in front of you
``TO_AUCTION`` (1)          ``auction``         gift turn: place it face down on the auction pile
``TO_PUBLIC`` (2)           ``public``          gift turn: place it face up in the public space
``PASS`` (3)                ``pass``            auction: pass (out of this auction)
``REFUSE`` (4)              ``refuse``          auction: refuse to pay (when the option is on)
``DECLINE`` (5)             ``church decline``  church/bishop card: do not use it
``PICK + c``                ``pick 12``         take card ``c`` from the public space
``PAY + c``                 ``pay 41``          pay with card ``c`` (one card at a time)
``BID + n``                 ``bid 3``           bid ``n`` (Gold or cards, per the card's currency)
``CHURCH + 2*mask + neg``   ``church monks+1``  move the dice in ``mask`` by +1 (``neg`` 0) or -1
==========================  ==================  ===============================================

Dice are named by category id, with ``:N`` for the award die of place N > 1
(``church monks:2-1``). Card ids are indices into ``Ruleset.deck``.
"""

from __future__ import annotations

from functools import cache
from typing import TypeAlias

from biblios_kit.engine.compiled import CompiledRules, compile_rules
from biblios_kit.engine.core import (
    BID,
    BID_END,
    CHURCH,
    DECLINE,
    KEEP,
    PASS,
    PAY,
    PICK,
    REFUSE,
    TO_AUCTION,
    TO_PUBLIC,
    is_action,
)
from biblios_kit.errors import InvalidActionError
from biblios_kit.rules.model import Ruleset

__all__ = [
    "BID", "CHURCH", "DECLINE", "KEEP", "PASS", "PAY", "PICK", "REFUSE", "TO_AUCTION", "TO_PUBLIC", "Action",
    "bid", "bid_amount", "card_of", "church", "church_parts", "format_action", "is_well_formed", "parse_action",
    "pay", "pick",
]  # fmt: skip

Action: TypeAlias = int
"""An action in compact form (see the module docstring)."""

_WORDS = {
    KEEP: "keep",
    TO_AUCTION: "auction",
    TO_PUBLIC: "public",
    PASS: "pass",
    REFUSE: "refuse",
    DECLINE: "church decline",
}
_BY_WORD = {word: action for action, word in _WORDS.items()}


def pick(card: int) -> Action:
    """The action "take ``card`` from the public space"."""
    return PICK + card


def pay(card: int) -> Action:
    """The action "pay with ``card``"."""
    return PAY + card


def bid(amount: int) -> Action:
    """The action "bid ``amount``"."""
    return BID + amount


def church(dice: tuple[int, ...] | list[int], sign: int) -> Action:
    """The action "move each die index in ``dice`` by ``sign`` (+1 or -1)"."""
    mask = 0
    for die in dice:
        mask |= 1 << die
    return CHURCH + 2 * mask + (1 if sign < 0 else 0)


@cache
def church_parts(action: int) -> tuple[tuple[int, ...], int]:
    """The (die indices, sign) of a church action (``((), 0)`` for ``DECLINE``); cached, as a game decodes the same few."""
    if action == DECLINE:
        return (), 0
    code = action - CHURCH
    mask, neg = code >> 1, code & 1
    dice = tuple(i for i in range(mask.bit_length()) if mask >> i & 1)
    return dice, (-1 if neg else 1)


def card_of(action: object) -> int:
    """The card id of a ``pick`` or ``pay`` action."""
    if not is_action(action):
        raise InvalidActionError("not-an-action", action=action)
    assert isinstance(action, int)
    if PICK <= action < PAY:
        return action - PICK
    if PAY <= action < PAY + 1_000:
        return action - PAY
    raise InvalidActionError("action-no-card", action=action)


def bid_amount(action: object) -> int:
    """The amount of a ``bid`` action."""
    if not is_action(action):
        raise InvalidActionError("not-an-action", action=action)
    assert isinstance(action, int)
    if not BID <= action < BID_END:
        raise InvalidActionError("action-not-bid", action=action)
    return action - BID


def is_well_formed(action: object) -> bool:
    """Whether ``action`` is an int in one of the action blocks (legality is another matter)."""
    return is_action(action)


def format_action(ruleset: Ruleset | CompiledRules, action: object) -> str:
    """The text form of ``action`` (``keep``, ``pick 12``, ``bid 3``, ``church monks+1 pigments+1`` ...)."""
    rules = ruleset if isinstance(ruleset, CompiledRules) else compile_rules(ruleset)
    if not is_action(action):
        raise InvalidActionError("not-an-action", action=action)
    assert isinstance(action, int)
    if action in _WORDS:
        return _WORDS[action]
    if PICK <= action < PAY:
        return f"pick {action - PICK}"
    if PAY <= action < PAY + 1_000:
        return f"pay {action - PAY}"
    if BID <= action < BID_END:
        return f"bid {action - BID}"
    dice, sign = church_parts(action)
    if any(die >= rules.n_dice for die in dice):
        raise InvalidActionError("action-unknown-die", action=action)
    step = "+1" if sign > 0 else "-1"
    return "church " + " ".join(rules.die_names[die] + step for die in dice)


def _int(text: str, original: str) -> int:
    # ASCII digits only: str.isdigit() also accepts "²" or "١", which int() then refuses or reads.
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise InvalidActionError("text-not-number", original=original, text=text)
    return int(text)


def parse_action(ruleset: Ruleset | CompiledRules, text: object) -> Action:
    """Parse the text form of an action (the inverse of :func:`format_action`).

    Raises :class:`~biblios_kit.errors.InvalidActionError` for malformed text; whether the
    action is legal is checked by :meth:`GameState.apply`.
    """
    rules = ruleset if isinstance(ruleset, CompiledRules) else compile_rules(ruleset)
    if not isinstance(text, str):
        raise InvalidActionError("text-not-text", text=text)
    words = text.split()
    if not words:
        raise InvalidActionError("text-empty")
    joined = " ".join(words).lower()
    if joined in _BY_WORD:
        return _BY_WORD[joined]
    head, rest = words[0].lower(), words[1:]
    if head in ("pick", "pay", "bid"):
        if len(rest) != 1:
            raise InvalidActionError("text-needs-number", word=head, text=text)
        number = _int(rest[0], text)
        if head == "bid":
            if not 0 < number < BID_END - BID:
                raise InvalidActionError("text-bid-range", text=text)
            return BID + number
        if number >= rules.n_cards:
            raise InvalidActionError("text-no-card", number=number, last=rules.n_cards - 1, text=text)
        return (PICK if head == "pick" else PAY) + number
    if head == "church":
        if not rest:
            raise InvalidActionError("text-church-empty", text=text)
        names = {name: i for i, name in enumerate(rules.die_names)}
        dice: list[int] = []
        signs = set()
        for word in rest:
            if len(word) < 3 or word[-2:] not in ("+1", "-1"):
                raise InvalidActionError("text-church-word", word=word, text=text)
            name = word[:-2].lower()
            if name not in names:
                raise InvalidActionError("text-unknown-die", name=name, text=text, dice=rules.die_names)
            if names[name] in dice:
                raise InvalidActionError("text-die-twice", name=name, text=text)
            dice.append(names[name])
            signs.add(1 if word[-2] == "+" else -1)
        if len(signs) != 1:
            raise InvalidActionError("text-mixed-signs", text=text)
        return church(dice, signs.pop())
    raise InvalidActionError("text-unknown", text=text)
