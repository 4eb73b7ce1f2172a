"""Hints and game reviews from the ``hard`` bot, as data: a move plus reasons (codes and numbers).

:func:`suggest` asks the hard bot (:class:`~biblios_kit.bots.ismcts.ISMCTSBot`) what to do
in a player's current decision and explains the move with :class:`Reason` records: which
category the move is about, the player's chance of winning it before and after, the award
dice at stake. :func:`review` replays a finished game and lists, for each person's seat, the
decisions where the bot's evaluation of the move played was furthest below its own choice.

Both read only observations, never the state: a hint is a function of the observation (the
bot is seeded from the observation itself), so two states that look the same to the player
give the same hint. Sentences are made at the edge (``biblios_kit/tui/dialogs/hint.py``);
nothing here is translated.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from biblios_kit.bots.context import checked_rules
from biblios_kit.bots.estimate import Estimate
from biblios_kit.bots.ismcts import Analysis, ISMCTSBot
from biblios_kit.bots.style import strong_style
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
    church_parts,
)
from biblios_kit.engine.compiled import KIND_CATEGORY, KIND_GOLD, CompiledRules, compile_rules
from biblios_kit.engine.observation import Observation
from biblios_kit.engine.reseed import reseed
from biblios_kit.engine.state import Phase, new_game
from biblios_kit.rules.model import Ruleset

HINT_ITERATIONS = 100
"""Search iterations of the tree per hint (about 20 ms of CPU time with the bots compiled)."""

# Reason codes (each names the fields it fills).
KEEP_CARD = "keep"
"""Keep the drawn card: ``category``, ``chance`` -> ``chance_after`` (ours with it), ``dice``."""
HIDE_CARD = "to-auction"
"""Put it on the auction pile to bid for it later: ``category``, ``chance`` -> ``chance_after``
(ours if the strongest rival took it), ``dice``."""
GIVE_CARD = "to-public"
"""Give it away: ``category``, ``chance`` -> ``chance_after`` (ours if the strongest rival takes it), ``dice``."""
TAKE_CARD = "take"
"""Take a card from the public space: ``category``, ``chance`` -> ``chance_after``, ``dice``."""
GOLD = "gold"
"""The move is about Gold: ``amount`` (the card's value)."""
CHURCH_CARD = "church-card"
"""The move is about a church card (it lets its owner move dice later)."""
RAISE_DIE = "raise-die"
"""Raise a die: ``category``, ``chance`` (ours in it), ``dice`` (the face before and after)."""
LOWER_DIE = "lower-die"
"""Lower a die: ``category``, ``chance`` (ours in it), ``dice`` (the face before and after)."""
DECLINE_CHURCH = "decline"
"""Do not use the church card: every dice move would cost us more than it gives."""
BID_FOR = "bid"
"""Bid ``amount`` for the card under auction: ``category``, ``chance`` -> ``chance_after``, ``dice``."""
PASS_BID = "pass"
"""Pass: the card is not worth ``amount`` (the lowest bid) to us; ``category``, ``chance`` as for a bid."""
PAY_LEAST = "pay"
"""Pay with what we miss least (the least waste of Gold, or the cards worth least to us)."""
REFUSE_PAY = "refuse"
"""Refuse to pay: the penalty costs less than the payment."""
ONLY_MOVE = "only"
"""There is one legal move."""

CODES = (KEEP_CARD, HIDE_CARD, GIVE_CARD, TAKE_CARD, GOLD, CHURCH_CARD, RAISE_DIE, LOWER_DIE, DECLINE_CHURCH,
         BID_FOR, PASS_BID, PAY_LEAST, REFUSE_PAY, ONLY_MOVE)  # fmt: skip
"""Every reason code."""


@dataclass(frozen=True)
class Reason:
    """Why a move is suggested: a code (see :data:`CODES`) and the numbers a sentence needs."""

    code: str
    category: int | None = None
    """Index of the category concerned (``Ruleset.categories[category]``), if any."""
    chance: float | None = None
    """The player's chance of placing first in ``category`` now (the bot's estimate)."""
    chance_after: float | None = None
    """That chance after the move (see the code for which outcome)."""
    dice: tuple[int, ...] = ()
    """Award dice faces at stake in ``category`` (for a die move: the face before and after)."""
    amount: int | None = None
    """A bid, a Gold value or a price, when the code uses one."""


@dataclass(frozen=True)
class Hint:
    """A suggested move for one player's current decision, with its reasons."""

    player: int
    action: Action
    reasons: tuple[Reason, ...]
    win_chance: float | None
    """The search's mean reward of the move (about the chance of winning the game), if it searched."""
    margin: float | None
    """How much better that is than the next move it tried (``None`` with a single candidate)."""
    analysis: Analysis


def observation_seed(observation: Observation) -> int:
    """A seed that depends on the observation only (its repr holds nothing but ints, tuples and names)."""
    return zlib.crc32(repr(observation).encode("utf-8"))


def hint_bot(observation: Observation, ruleset: Ruleset, iterations: int = HINT_ITERATIONS) -> ISMCTSBot:
    """The search a hint uses, seeded from ``observation`` (so the hint depends on nothing else).

    It is hard's tree (``paired=0``), not the default bidding search: the tree gives every
    move of every kind of decision its statistics, which a hint and a review explain.
    """
    return ISMCTSBot(observation_seed(observation), ruleset, iterations=iterations, paired=0)


def suggest(
    observation: Observation,
    ruleset: Ruleset,
    iterations: int = HINT_ITERATIONS,
    consider: tuple[Action, ...] = (),
) -> Hint:
    """The hard bot's move for ``observation`` and why (the observation must have a decision)."""
    if not observation.legal_actions:
        raise ValueError(f"player {observation.player} has no decision to make")
    bot = hint_bot(observation, ruleset, iterations)
    analysis = bot.analyse(observation, consider)
    return _hint(observation, ruleset, analysis, analysis.choice)


def _hint(observation: Observation, ruleset: Ruleset, analysis: Analysis, action: Action) -> Hint:
    rules = checked_rules(compile_rules(ruleset), observation)
    est = Estimate(rules, observation, strong_style(observation.players))
    move = analysis.stat(action)
    win = move.mean if move is not None and move.visits else None
    others = [m.mean for m in analysis.moves if m.action != action and m.visits]
    margin = win - max(others) if win is not None and others else None
    return Hint(observation.player, action, explain(rules, est, action), win, margin, analysis)


def _dice_of(rules: CompiledRules, obs: Observation, k: int) -> tuple[int, ...]:
    return tuple(obs.dice[d] for d in rules.cat_dice[k])


def _card_reason(rules: CompiledRules, est: Estimate, code: str, card: int) -> Reason:
    """A reason about ``card`` going to us (keep, take, bid) or elsewhere (auction pile, public space)."""
    kind = rules.kind[card]
    if kind == KIND_GOLD:
        return Reason(GOLD, amount=rules.value[card])
    if kind != KIND_CATEGORY:
        return Reason(CHURCH_CARD)
    k = rules.cat[card]
    value = rules.value[card]
    me = est.me
    rivals = [q for q in range(est.n) if q != me]
    dice = _dice_of(rules, est.obs, k)
    now = est.win_chance(k)
    if code in (GIVE_CARD, HIDE_CARD):  # ours if the rival it helps most took it
        after = min((est.win_chance(k, q, value) for q in rivals), default=now)
        return Reason(code, k, now, after, dice=dice)
    return Reason(code, k, now, est.win_chance(k, me, value), dice=dice)


def explain(rules: CompiledRules, est: Estimate, action: Action) -> tuple[Reason, ...]:
    """The reasons for playing ``action`` in the estimate's observation (codes and numbers)."""
    obs = est.obs
    if len(obs.legal_actions) == 1:
        return (Reason(ONLY_MOVE),)
    if action in (KEEP, TO_AUCTION, TO_PUBLIC) and obs.drawn is not None:
        code = {KEEP: KEEP_CARD, TO_AUCTION: HIDE_CARD, TO_PUBLIC: GIVE_CARD}[action]
        return (_card_reason(rules, est, code, obs.drawn),)
    if PICK <= action < PAY:
        return (_card_reason(rules, est, TAKE_CARD, action - PICK),)
    if action == DECLINE:
        return (Reason(DECLINE_CHURCH),)
    if action >= CHURCH:
        moved, sign = church_parts(action)
        reasons = []
        for die in moved:
            k = next(i for i, dice in enumerate(rules.cat_dice) if die in dice)
            face = obs.dice[die]
            code = RAISE_DIE if sign > 0 else LOWER_DIE
            reasons.append(Reason(code, k, est.win_chance(k), dice=(face, face + sign)))
        return tuple(reasons)
    if action == REFUSE:
        return (Reason(REFUSE_PAY),)
    if PAY <= action < BID:
        return (Reason(PAY_LEAST),)
    if (action == PASS or BID <= action < CHURCH) and obs.auction is not None:
        card = obs.auction.card
        if action == PASS:
            base = _card_reason(rules, est, BID_FOR, card)
            return (Reason(PASS_BID, base.category, base.chance, base.chance_after, dice=base.dice,
                           amount=obs.auction.min_bid),)  # fmt: skip
        base = _card_reason(rules, est, BID_FOR, card)
        if base.code != BID_FOR:
            return (base, Reason(BID_FOR, amount=action - BID))
        return (Reason(BID_FOR, base.category, base.chance, base.chance_after, dice=base.dice, amount=action - BID),)
    return ()


@dataclass(frozen=True)
class ReviewItem:
    """One decision of a game review: what was played, what the bot suggests, and the gap between them."""

    index: int
    """Position of the decision in the game's actions (0-based)."""
    player: int
    phase: Phase
    played: Action
    played_chance: float
    """The search's estimate of the played move (its mean reward)."""
    observation: Observation
    """The player's own view at that decision."""
    hint: Hint
    """The bot's move there, with its reasons and its own estimate (``hint.win_chance``)."""

    @property
    def loss(self) -> float:
        """How much the played move's estimate falls below the suggestion's (0 when it is the same move)."""
        best = self.hint.win_chance
        return 0.0 if best is None or self.played == self.hint.action else max(0.0, best - self.played_chance)


def review(
    ruleset: Ruleset,
    players: int,
    seed: int,
    actions: Sequence[Action],
    humans: Iterable[int],
    per_player: int = 5,
    iterations: int = HINT_ITERATIONS,
    reseeds: Sequence[tuple[int, int]] = (),
) -> dict[int, list[ReviewItem]]:
    """Replay a game and list, per seat in ``humans``, its ``per_player`` decisions the bot liked least.

    The game is replayed from ``seed``; a game continued from a save is dealt again at its
    ``reseeds`` (moves made, new seed: :attr:`GameState.reseeds
    <biblios_kit.engine.state.GameState.reseeds>`), as its record replays, so each decision is
    analysed with the hands its player really held. Each decision of those seats with a choice (payments excepted: the bot does not search
    them) is analysed from that player's observation only, with the played move among the
    moves compared; items are sorted by :attr:`ReviewItem.loss`, largest first, and decisions
    where the played move was the bot's own are left out.
    """
    seats = set(humans)
    state = new_game(ruleset, players, seed)
    found: dict[int, list[ReviewItem]] = {seat: [] for seat in sorted(seats)}
    deals = dict(reseeds)
    for index, action in enumerate(actions):
        if index in deals:
            reseed(state, deals[index])
        player = state.current_player
        if player is None:
            raise ValueError(f"action {index} comes after the end of the game")
        if player in seats and len(state.legal()) > 1 and state.phase != Phase.PAYMENT:
            obs = state.observation(player)
            analysis = hint_bot(obs, ruleset, iterations).analyse(obs, (action,))
            played = analysis.stat(action)
            if analysis.choice != action and played is not None and played.visits:
                hint = _hint(obs, ruleset, analysis, analysis.choice)
                item = ReviewItem(index, player, obs.phase, action, played.mean, obs, hint)
                if item.loss > 0:
                    found[player].append(item)
        state.apply(action)
    for items in found.values():
        items.sort(key=lambda item: (-item.loss, item.index))
        del items[per_player:]
    return found


__all__ = [
    "CODES",
    "HINT_ITERATIONS",
    "Hint",
    "Reason",
    "ReviewItem",
    "explain",
    "hint_bot",
    "observation_seed",
    "review",
    "suggest",
]
