"""The machinery of claims: :class:`Claim`, :class:`Checker` and the :class:`Tracker` that rebuilds a game from its events."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from biblios_kit.engine import Event, EventKind, GameState
from biblios_kit.rules.model import CardKind, Removal

E = EventKind


class Tracker:
    """What the events of one game say so far: hands, the public space, the gift turn and auction under way.

    Built from the omniscient event log (every card shown), for checking only.
    """

    def __init__(self, game: GameState) -> None:
        ruleset = game.ruleset
        self.players = game.players
        self.ruleset = ruleset
        self.card = {card.id: card for card in ruleset.deck}
        self.die_place: list[int] = []
        self.die_bounds: list[tuple[int, int]] = []
        for category in ruleset.categories:
            for die in category.dice:
                self.die_place.append(die.place)
                self.die_bounds.append((die.min, die.max))
        self.dice = [start for category in ruleset.categories for start in (d.start for d in category.dice)]
        self.hands: list[list[int]] = [[] for _ in range(self.players)]
        self.church_held = 0
        """Church cards in hands now (they should never stay there)."""
        self.is_church = {card.id for card in ruleset.deck if card.kind is CardKind.CHURCH}
        self.public: list[int] = []
        self.turn_player = -1
        self.turn_draw = 0
        self.turn_drawn = 0
        self.placed: dict[EventKind, int] = {}
        self.pending: int | None = None
        """A drawn card not yet placed."""
        self.pickers: list[int] = []
        self.gift_turns = 0
        self.gift_cards_drawn = 0
        self.short_discarded = 0
        self.auction_active = -1
        self.auction_card = -1
        self.auction_turns = 0
        self.high = 0
        self.high_bidder = -1
        self.bids_on_card: list[tuple[int, int]] = []
        self.passed: set[int] = set()
        self.penalized: set[int] = set()
        self.penalties: dict[int, int] = {}
        """How many times each player has been penalized on the card under auction."""
        self.winner = -1
        self.winning_bid = 0
        self.paid: list[int] = []
        self.in_auction = False

    def kind(self, card: int) -> CardKind:
        """The kind of a card."""
        return self.card[card].kind

    def gold(self, player: int) -> int:
        """The total value of the Gold cards in ``player``'s hand."""
        return sum(self.card[c].value for c in self.hands[player] if self.card[c].kind is CardKind.GOLD)

    def excluded(self, exclude: bool) -> set[int]:
        """The players out of the bidding on the card under auction: penalized on it (``exclude``), or twice."""
        return {p for p, n in self.penalties.items() if n >= (1 if exclude else 2)}

    def _remove(self, player: int, card: int) -> None:
        if card in self.hands[player]:
            self.hands[player].remove(card)
            if card in self.is_church:
                self.church_held -= 1

    def update(self, event: Event) -> None:
        """Take one event into account (call after the claims have seen it)."""
        kind, p, card = event.kind, event.player, event.card
        c = -1 if card is None else card
        if kind in (E.DEALT, E.TOOK_KEPT, E.PICKED, E.TOOK, E.PENALTY_TAKEN):
            self.hands[p].append(c)
            if c in self.is_church:
                self.church_held += 1
            if kind is E.PENALTY_TAKEN:
                self._remove(event.args[0], c)
            if kind is E.PICKED and c in self.public:
                self.public.remove(c)
                self.pickers.append(p)
        elif kind is E.PENALTY_REMOVED:
            self._remove(event.args[0], c)
        elif kind in (E.PAID_GOLD, E.PAID_CARD):
            self._remove(p, c)
            self.paid.append(c)
        elif kind in (E.CHURCH_USED, E.CHURCH_DECLINED):
            self._remove(p, c)
        elif kind is E.DIE_MOVED:
            self.dice[event.args[0]] = event.args[2]
        elif kind is E.GIFT_TURN:
            self.turn_player, self.turn_draw, self.turn_drawn = p, event.args[0], 0
            self.placed, self.pickers = {}, []
            self.gift_turns += 1
        elif kind is E.DREW:
            self.turn_drawn += 1
            self.gift_cards_drawn += 1
            self.pending = c
        elif kind in (E.KEPT, E.TO_AUCTION_PILE, E.TO_PUBLIC):
            self.placed[kind] = self.placed.get(kind, 0) + 1
            self.pending = None
            if kind is E.TO_PUBLIC:
                self.public.append(c)
        elif kind is E.PUBLIC_DISCARDED:
            if c in self.public:
                self.public.remove(c)
        elif kind is E.SHORT_DRAW_DISCARDED:
            self.short_discarded += event.args[0]
        elif kind is E.AUCTION_PHASE:
            self.in_auction = True
        elif kind is E.REVEALED:
            self.auction_active, self.auction_card = p, c
            self.auction_turns += 1
            self.penalized = set()
            self.penalties = {}
            self._new_round()
        elif kind is E.BID:
            self.high, self.high_bidder = event.args[0], p
            self.bids_on_card.append((p, event.args[0]))
        elif kind is E.PASSED:
            self.passed.add(p)
        elif kind is E.WON:
            self.winner, self.winning_bid, self.paid = p, event.args[0], []
        elif kind in (E.CANNOT_PAY, E.REFUSED):
            self.penalized.add(p)
            self.penalties[p] = self.penalties.get(p, 0) + 1
            self._new_round()

    def _new_round(self) -> None:
        self.high, self.high_bidder = 0, -1
        self.bids_on_card = []
        self.passed = set()
        self.winner = -1


class Checker:
    """The check of one claim over one game: each hook returns ``True`` when the claim is contradicted."""

    @property
    def wants_events(self) -> bool:
        """Whether :meth:`event` checks anything (the verifier skips it for the others: most claims look at one
        hook only, and a game has about 700 events)."""
        return type(self).event is not Checker.event

    def event(self, t: Tracker, e: Event) -> bool:
        """Check one event, seen before the :class:`Tracker` takes it into account."""
        return False

    def decision(self, state: GameState) -> bool:
        """Check the decision the current player faces (the state before the action)."""
        return False

    def end(self, state: GameState, t: Tracker) -> bool:
        """Check the finished game."""
        return False


@dataclass(frozen=True)
class Claim:
    """What one rule statement asserts about every game, checked by ``rules verify``."""

    id: str
    """A stable English id, ``section.what`` (``gift.public-takes-rest``)."""
    fields: tuple[str, ...]
    """The ruleset fields the statement and the claim are built from (``setup.N.gift_cards``);
    ``(engine)`` for a rule every ruleset shares (the turn order, drawing one card at a time)."""
    checker: Callable[[], Checker] = field(compare=False, repr=False)
    """Makes a fresh checker for one game."""
    decisions: bool = False
    """Whether the checker looks at decisions (the verifier skips the hook for the others)."""


# -- helpers -------------------------------------------------------------------------------------


def card_matches(card_kind: CardKind, card_value: int, category: str | None, item: Removal) -> bool:
    """Whether a card of this kind, value and category is one a named setup item (``remove``, ``starting_cards``) means."""
    if card_kind is not item.kind:
        return False
    if item.value is not None and card_value != item.value:
        return False
    return item.category is None or category == item.category


class _Fn(Checker):
    """A checker made of plain functions (most claims need only one hook)."""

    def __init__(self, event: Callable[[Tracker, Event], bool] | None = None,
                 decision: Callable[[GameState], bool] | None = None,
                 end: Callable[[GameState, Tracker], bool] | None = None) -> None:  # fmt: skip
        self._event, self._decision, self._end = event, decision, end

    @property
    def wants_events(self) -> bool:
        return self._event is not None

    def event(self, t: Tracker, e: Event) -> bool:
        return self._event is not None and self._event(t, e)

    def decision(self, state: GameState) -> bool:
        return self._decision is not None and self._decision(state)

    def end(self, state: GameState, t: Tracker) -> bool:
        return self._end is not None and self._end(state, t)


def claim(id: str, fields: Sequence[str], *, event: Callable[[Tracker, Event], bool] | None = None,
          decision: Callable[[GameState], bool] | None = None,
          end: Callable[[GameState, Tracker], bool] | None = None) -> Claim:  # fmt: skip
    """A claim from stateless hook functions (each returns ``True`` on a contradiction)."""
    return Claim(id, tuple(fields), lambda: _Fn(event, decision, end), decision is not None)
