"""A ruleset compiled once into flat tuples of ints, the only form the engine's hot path reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Final

from biblios_kit.engine.events import ALL, EventKind
from biblios_kit.errors import EngineError
from biblios_kit.rules.church import MAX_CHURCH_USES, church_uses
from biblios_kit.rules.model import (
    AllPass,
    BiddingStart,
    CardKind,
    CategoryTie,
    ChurchTargets,
    Currency,
    Overpay,
    PenaltyKind,
    PointsRule,
    Removal,
    Ruleset,
    ShortDraw,
    TieBreak,
    TieBreakBy,
)

KIND_CATEGORY: Final = 0
KIND_GOLD: Final = 1
KIND_CHURCH: Final = 2
_KIND = {CardKind.CATEGORY: KIND_CATEGORY, CardKind.GOLD: KIND_GOLD, CardKind.CHURCH: KIND_CHURCH}

CUR_GOLD: Final = 0
"""Bids in Gold (paid with Gold cards covering the bid)."""
CUR_CARDS: Final = 1
"""Bids in numbers of cards (paid by discarding cards face down)."""

PEN_STANDARD: Final = 0
PEN_BLUFF: Final = 1
PEN_NONE: Final = 2
_PEN = {PenaltyKind.STANDARD: PEN_STANDARD, PenaltyKind.MEDIEVAL_BLUFF: PEN_BLUFF, PenaltyKind.NONE: PEN_NONE}

TB_GOLD: Final = 0
TB_TOTAL: Final = 1
TB_LETTER: Final = 2
TB_WON: Final = 3
TB_COUNT: Final = 4
"""A count step: the sum of the step's weight of each card in hand (:attr:`CompiledRules.tiebreak_weights`)."""
_TB = {
    TieBreakBy.GOLD: TB_GOLD,
    TieBreakBy.CATEGORY_TOTAL: TB_TOTAL,
    TieBreakBy.CATEGORY_LETTER: TB_LETTER,
    TieBreakBy.CATEGORY_WON: TB_WON,
    TieBreakBy.CARDS: TB_COUNT,
    TieBreakBy.VALUE: TB_COUNT,
}

POINTS_DIE: Final = 0
"""An award die is worth its face."""
POINTS_TIMES_CARDS: Final = 1
"""An award die is worth its face times the taker's number of cards in the category."""
POINTS_TIMES_VALUE: Final = 2
"""An award die is worth its face times the taker's total in the category."""
_POINTS = {
    PointsRule.DIE: POINTS_DIE,
    PointsRule.DIE_TIMES_CARDS: POINTS_TIMES_CARDS,
    PointsRule.DIE_TIMES_VALUE: POINTS_TIMES_VALUE,
}

MAX_CARDS: Final = 1000
"""Card ids must stay below this (the action encoding reserves blocks of 1,000)."""


@dataclass(frozen=True, slots=True)
class CompiledSetup:
    """One player count's setup as plain data."""

    players: int
    named: tuple[tuple[int, tuple[int, ...]], ...]
    """Named removals: (count, ids of the cards that match), in ruleset order."""
    remove_random: int
    starting_hand: int
    """Random cards dealt to each player, after the named ones."""
    gift_cards: int
    short_discard: bool
    """True when a short draw pile is discarded (``short_draw: discard``)."""
    deal: tuple[tuple[int, tuple[int, ...]], ...] = ()
    """Named starting cards: (count per player, ids of the cards that match), in ruleset order."""

    @property
    def dealt_named(self) -> int:
        """How many named starting cards each player receives."""
        return sum(count for count, _matches in self.deal)


@dataclass(frozen=True, slots=True)
class CompiledRules:
    """Flat lookup tables derived from a :class:`Ruleset` (built once per ruleset, cached)."""

    ruleset: Ruleset
    n_cards: int
    kind: tuple[int, ...]
    value: tuple[int, ...]
    cat: tuple[int, ...]
    """Category index of each card (-1 for Gold and church cards)."""
    letter: tuple[int, ...]
    """Rank of each category card's letter (0 is the earliest; large for other cards)."""
    letters: tuple[str, ...]
    """Letter of each rank."""
    cls: tuple[int, ...]
    """Identity class: cards of one class are interchangeable (Gold of one value, church of one effect)."""
    is_church: tuple[bool, ...]
    twin: tuple[bool, ...]
    """Whether another card of the deck is interchangeable with each card (same identity class)."""
    church_signs: tuple[tuple[int, ...], ...]
    church_ndice: tuple[int, ...]
    church_group: tuple[int, ...]
    """Move group of each church card: cards of one group move the same sets of dice
    (the key of :attr:`church_choices` with a sign; -1 for other cards)."""
    currency: tuple[int, ...]
    """Auction currency of each card (:data:`CUR_GOLD` or :data:`CUR_CARDS`)."""
    n_cats: int
    cat_ids: tuple[str, ...]
    n_dice: int
    die_cat: tuple[int, ...]
    die_place: tuple[int, ...]
    die_start: tuple[int, ...]
    die_min: tuple[int, ...]
    die_max: tuple[int, ...]
    die_names: tuple[str, ...]
    """Text name of each die: the category id, with ``:N`` for places after the first."""
    cat_dice: tuple[tuple[int, ...], ...]
    """Die indices of each category, by place."""
    targets: tuple[int, ...]
    """Dice that church cards may move."""
    church_optional: bool
    ceiling: tuple[int, ...]
    """Highest bid per currency (with :attr:`ceiling_hand`, the most anyone could pay)."""
    ceiling_hand: tuple[bool, ...]
    """Per currency: whether each bidder's ceiling is what they can pay from their own hand
    (the Gold value in it, or the number of cards in it)."""
    opening_bid: int
    bid_from_left: bool
    overpay_forbidden: bool
    all_pass_active_takes: bool
    refuse_to_pay: bool
    penalty: int
    exclude_penalized: bool
    tie_nobody: bool
    tiebreak: tuple[tuple[int, int], ...]
    """Final tie-break chain as (criterion, category index or -1)."""
    tiebreak_weights: tuple[tuple[int, ...], ...]
    """Per step of :attr:`tiebreak`: for a count step (:data:`TB_COUNT`), each card's weight (1 or its
    value when counted, 0 when not; negated for ``fewest``), so the step's key is the hand's sum; empty otherwise."""
    points: int
    """What an award die is worth: :data:`POINTS_DIE`, :data:`POINTS_TIMES_CARDS` or :data:`POINTS_TIMES_VALUE`."""
    bonus: tuple[tuple[int, int, tuple[int, ...]], ...]
    """Set bonuses as (victory points, categories to win at least, category indices of the set)."""
    setups: dict[int, CompiledSetup]
    gold_values: tuple[int, ...]
    """Distinct Gold values, ascending."""
    gold_value: tuple[int, ...]
    """Gold value of each card (0 for every card that is not Gold)."""
    church_choices: dict[tuple[int, int], tuple[tuple[int, int], ...]]
    """(move group, sign) -> every (die mask, sign) the group's cards may make, before bound checks."""
    church_moves: dict[tuple[int, int], tuple[tuple[int, tuple[int, ...], int], ...]] = field(
        default_factory=dict, compare=False, repr=False
    )
    """(move group, sign) -> every (action, die indices, sign), before bound checks."""
    events_memo: dict[int, EventTables] = field(default_factory=dict, compare=False, repr=False)
    """Prebuilt frequent events per player count (see :meth:`event_tables`)."""
    church_memo: dict[tuple[int, tuple[int, ...]], list[int]] = field(default_factory=dict, compare=False, repr=False)
    """Memo of the legal church actions by (card class, dice faces), filled by the engine."""

    def event_tables(self, players: int) -> EventTables:
        """The prebuilt frequent events of a ``players``-player game of these rules (built once)."""
        try:
            return self.events_memo[players]
        except KeyError:
            tables = self.events_memo[players] = EventTables(players, self.n_cards, max(self.ceiling))
            return tables


class EventTables:
    """Prebuilt raw events of the most frequent kinds (events are immutable, so they are shared).

    Appending a prebuilt tuple instead of building one saves ~60 ns per event, on ~750 of
    the ~900 events of a random 4-player game.
    """

    __slots__ = ("bid", "cannot_pay", "drew", "kept", "passed", "picked", "taken", "to_pile", "to_public")

    def __init__(self, n: int, cards: int, max_bid: int) -> None:
        bid, passed, drew, taken = (
            int(k) for k in (EventKind.BID, EventKind.PASSED, EventKind.DREW, EventKind.PENALTY_TAKEN)
        )
        picked, to_public, to_pile, kept = (
            int(k) for k in (EventKind.PICKED, EventKind.TO_PUBLIC, EventKind.TO_AUCTION_PILE, EventKind.KEPT)
        )
        self.bid = tuple(tuple((bid, p, -1, x, ALL) for x in range(max_bid + 1)) for p in range(n))
        """``bid[p][amount]``: player ``p`` bid ``amount``."""
        self.passed = tuple((passed, p, -1, (), ALL) for p in range(n))
        """``passed[p]``: player ``p`` passed."""
        cannot_pay = int(EventKind.CANNOT_PAY)
        self.cannot_pay = tuple(tuple((cannot_pay, p, -1, x, ALL) for x in range(max_bid + 1)) for p in range(n))
        """``cannot_pay[p][amount]``: player ``p`` won with a bid of ``amount`` and cannot pay it."""
        self.drew = tuple(tuple((drew, p, c, (), 1 << p) for c in range(cards)) for p in range(n))
        """``drew[p][c]``: player ``p`` drew card ``c``."""
        self.taken = tuple(
            tuple(tuple((taken, q, c, w, 1 << w | 1 << q) for c in range(cards)) for q in range(n)) for w in range(n)
        )
        """``taken[w][q][c]``: player ``q`` took card ``c`` from the penalized player ``w``."""
        self.picked = tuple(tuple((picked, p, c, (), ALL) for c in range(cards)) for p in range(n))
        """``picked[p][c]``: player ``p`` took card ``c`` from the public space."""
        self.to_public = tuple(tuple((to_public, p, c, (), ALL) for c in range(cards)) for p in range(n))
        """``to_public[p][c]``: player ``p`` put card ``c`` in the public space."""
        self.to_pile = tuple(tuple((to_pile, p, c, (), 1 << p) for c in range(cards)) for p in range(n))
        """``to_pile[p][c]``: player ``p`` put card ``c`` face down on the auction pile."""
        self.kept = tuple(tuple((kept, p, c, (), 1 << p) for c in range(cards)) for p in range(n))
        """``kept[p][c]``: player ``p`` kept card ``c`` face down (a church card kept is shown to all instead)."""


def _matching(ruleset: Ruleset, removals: tuple[Removal, ...]) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Each named item as (count, ids of the cards that match it)."""
    named = []
    for removal in removals:
        matches = tuple(
            card.id
            for card in ruleset.deck
            if card.kind is removal.kind
            and (removal.value is None or card.value == removal.value)
            and (removal.category is None or card.category == removal.category)
            and (removal.effect is None or (card.effect is not None and card.effect.id == removal.effect))
        )
        named.append((removal.count, matches))
    return tuple(named)


def _setup(ruleset: Ruleset, players: int) -> CompiledSetup:
    setup = ruleset.setups[players]
    return CompiledSetup(
        players=players,
        named=_matching(ruleset, setup.remove),
        remove_random=setup.remove_random,
        starting_hand=setup.starting_hand,
        gift_cards=setup.gift_cards,
        short_discard=setup.short_draw is ShortDraw.DISCARD,
        deal=_matching(ruleset, setup.starting_cards),
    )


def _slot_masks(slots: tuple[tuple[int, bool], ...], die_place: list[int]) -> list[int]:
    """Every set of different dice (as a mask) a card naming its dice one by one may move.

    ``slots`` are (place, optional) per die, place 0 for any die of the board (the card's
    own targets replace the ruleset-wide ``church.targets``). An optional slot may stay
    empty; at least one die moves. Masks come in a fixed order (first found first), without
    repeats. Each (slot, dice moved so far) is filled once: filling it again would find the
    same masks in the same order, and skipping it keeps ten targets on ten dice from trying
    their 10! orders.
    """
    found: dict[int, None] = {}
    seen: set[tuple[int, int]] = set()

    def fill(i: int, mask: int) -> None:
        if (i, mask) in seen:
            return
        seen.add((i, mask))
        if i == len(slots):
            if mask:
                found.setdefault(mask)
            return
        place, optional = slots[i]
        if optional:
            fill(i + 1, mask)
        for d in range(len(die_place)):
            if mask >> d & 1:
                continue
            if place == 0 or die_place[d] == place:
                fill(i + 1, mask | 1 << d)

    fill(0, 0)
    return list(found)


def _count_weights(ruleset: Ruleset, step: TieBreak) -> tuple[int, ...]:
    """Each card's weight in a count step (see :attr:`CompiledRules.tiebreak_weights`); empty for other steps."""
    if not step.counts:
        return ()
    sign = -1 if step.fewest else 1
    per_card = step.by is TieBreakBy.CARDS
    return tuple(
        sign * (1 if per_card else card.value) if card.kind is not CardKind.CHURCH and step.matches(card) else 0
        for card in ruleset.deck
    )


_BY_HASH: dict[str, CompiledRules] = {}


def compiled_for_hash(content_hash: str) -> CompiledRules | None:
    """The rules compiled in this process for the ruleset with this content hash, if any.

    Observations carry the hash (a ruleset id alone does not say which options are on),
    so a bot can find the exact rules of the game it is shown.
    """
    return _BY_HASH.get(content_hash)


def compile_rules(ruleset: Ruleset) -> CompiledRules:
    """Compile ``ruleset`` into :class:`CompiledRules` (cached by the ruleset's content hash)."""
    compiled = _BY_HASH.get(ruleset.content_hash)
    if compiled is None or (compiled.ruleset is not ruleset and compiled.ruleset != ruleset):
        compiled = _BY_HASH[ruleset.content_hash] = _compile(ruleset)
    return compiled


def _compile(ruleset: Ruleset) -> CompiledRules:
    deck = ruleset.deck
    if len(deck) >= MAX_CARDS:
        raise ValueError(f"a deck of {len(deck)} cards is too large (at most {MAX_CARDS - 1})")
    cat_index = {category.id: category.index for category in ruleset.categories}
    letters = tuple(sorted({card.letter for card in deck if card.letter is not None}))
    rank = {letter: i for i, letter in enumerate(letters)}
    classes: dict[tuple[object, ...], int] = {}
    cls = []
    for card in deck:
        if card.kind is CardKind.GOLD:
            key: tuple[object, ...] = ("gold", card.value)
        elif card.kind is CardKind.CHURCH:
            assert card.effect is not None
            key = ("church", card.effect.id, card.effect.signs, card.effect.dice)
        else:
            key = ("card", card.id)
        cls.append(classes.setdefault(key, len(classes)))
    die_cat: list[int] = []
    die_place: list[int] = []
    die_start: list[int] = []
    die_min: list[int] = []
    die_max: list[int] = []
    die_names: list[str] = []
    cat_dice: list[tuple[int, ...]] = []
    for category in ruleset.categories:
        indices = []
        for die in category.dice:
            indices.append(len(die_cat))
            die_cat.append(category.index)
            die_place.append(die.place)
            die_start.append(die.start)
            die_min.append(die.min)
            die_max.append(die.max)
            die_names.append(category.id if die.place == 1 else f"{category.id}:{die.place}")
        cat_dice.append(tuple(indices))
    if ruleset.church.targets is ChurchTargets.FIRST_PLACE:
        targets = tuple(i for i, place in enumerate(die_place) if place == 1)
    else:
        targets = tuple(range(len(die_cat)))
    church_choices: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {}
    groups: dict[tuple[int, tuple[tuple[int, bool], ...]], int] = {}
    church_group: list[int] = []
    counted: set[str] = set()
    first_place_only = ruleset.church.targets is ChurchTargets.FIRST_PLACE
    for card in deck:
        effect = card.effect
        if effect is None:
            church_group.append(-1)
            continue
        slots = tuple((t.place or 0, t.optional) for t in effect.targets)
        if effect.id not in counted:  # checked when loading; refused here too rather than listed for minutes
            counted.add(effect.id)
            uses = church_uses(die_place, effect.dice, slots, len(set(effect.signs)), first_place_only)
            if uses > MAX_CHURCH_USES:
                raise EngineError("church-too-many-uses", effect=effect.id, uses=uses, cap=MAX_CHURCH_USES)
        group = groups.get((effect.dice, slots))
        if group is None:
            group = groups[(effect.dice, slots)] = len(groups)
        church_group.append(group)
        for sign in effect.signs:
            key2 = (group, sign)
            if key2 in church_choices:
                continue
            if slots:
                masks = _slot_masks(slots, die_place)
            else:
                masks = [sum(1 << d for d in combo) for combo in combinations(targets, effect.dice)]
            church_choices[key2] = tuple((mask, sign) for mask in masks)
    church_base = 1_000_000  # actions.CHURCH (not imported: the actions module imports this one)
    church_moves = {
        key: tuple(
            (church_base + 2 * mask + (sign < 0), tuple(d for d in range(len(die_cat)) if mask >> d & 1), sign)
            for mask, sign in choices
        )
        for key, choices in church_choices.items()
    }
    currency_of = {
        kind: (CUR_GOLD if ruleset.auction.currency.get(kind, Currency.GOLD) is Currency.GOLD else CUR_CARDS)
        for kind in CardKind
    }
    return CompiledRules(
        ruleset=ruleset,
        n_cards=len(deck),
        kind=tuple(_KIND[card.kind] for card in deck),
        value=tuple(card.value for card in deck),
        cat=tuple(cat_index[card.category] if card.category is not None else -1 for card in deck),
        letter=tuple(rank[card.letter] if card.letter is not None else 1 << 20 for card in deck),
        letters=letters,
        cls=tuple(cls),
        is_church=tuple(card.kind is CardKind.CHURCH for card in deck),
        twin=tuple(cls.count(k) > 1 for k in cls),
        church_signs=tuple(card.effect.signs if card.effect else () for card in deck),
        church_ndice=tuple(card.effect.dice if card.effect else 0 for card in deck),
        church_group=tuple(church_group),
        currency=tuple(currency_of[card.kind] for card in deck),
        n_cats=len(ruleset.categories),
        cat_ids=tuple(category.id for category in ruleset.categories),
        n_dice=len(die_cat),
        die_cat=tuple(die_cat),
        die_place=tuple(die_place),
        die_start=tuple(die_start),
        die_min=tuple(die_min),
        die_max=tuple(die_max),
        die_names=tuple(die_names),
        cat_dice=tuple(cat_dice),
        targets=targets,
        church_optional=ruleset.church.optional,
        ceiling=(ruleset.auction.gold_ceiling, ruleset.auction.cards_ceiling),
        ceiling_hand=(ruleset.auction.gold_ceiling_hand, ruleset.auction.cards_ceiling_hand),
        opening_bid=max(1, ruleset.auction.opening_bid),
        bid_from_left=ruleset.auction.bidding_starts is BiddingStart.LEFT_OF_ACTIVE,
        overpay_forbidden=ruleset.auction.overpay is Overpay.FORBIDDEN,
        all_pass_active_takes=ruleset.auction.all_pass is AllPass.ACTIVE_TAKES,
        refuse_to_pay=ruleset.auction.refuse_to_pay,
        penalty=_PEN[ruleset.penalty.kind],
        exclude_penalized=ruleset.penalty.exclude_from_reauction,
        tie_nobody=ruleset.scoring.category_tie is CategoryTie.NOBODY,
        tiebreak=tuple(
            (_TB[step.by], cat_index[step.category] if step.category is not None else -1)
            for step in ruleset.scoring.final_tiebreak
        ),
        tiebreak_weights=tuple(_count_weights(ruleset, step) for step in ruleset.scoring.final_tiebreak),
        points=_POINTS[ruleset.scoring.points],
        bonus=tuple(
            (bonus.points, bonus.at_least, tuple(cat_index[c] for c in bonus.categories))
            for bonus in ruleset.scoring.bonus
        ),
        setups={players: _setup(ruleset, players) for players in ruleset.setups},
        gold_values=tuple(sorted({card.value for card in deck if card.kind is CardKind.GOLD})),
        gold_value=tuple(card.value if card.kind is CardKind.GOLD else 0 for card in deck),
        church_choices=church_choices,
        church_moves=church_moves,
    )
