"""Claims: the predicate over games that each rule statement of the rulebook asserts.

The renderer (:mod:`biblios_kit.rulebook.render`) builds a statement's :class:`Claim` in the
same place, from the same ruleset fields, as the sentence that states it; ``rules verify``
(:mod:`biblios_kit.rulebook.verify`) then plays games and feeds every claim the game's
public event stream, its decisions (legal actions) and its final result. A claim never
reads the engine's internals: it rebuilds what it needs (hands, the public space, the
auction under way) from the events, in a :class:`Tracker` shared by all claims of a game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations, permutations

from biblios_kit.engine import DECLINE, Event, EventKind, GameState, Phase, church_parts
from biblios_kit.rules.model import CardKind, ChurchEffect, Currency, Removal, TieBreak, TieBreakBy

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


def _matches(card_kind: CardKind, card_value: int, category: str | None, item: Removal) -> bool:
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


# -- overview and components -----------------------------------------------------------------------


def player_counts(counts: Sequence[int]) -> Claim:
    """The game is played by exactly these numbers of players."""
    allowed = frozenset(counts)
    return claim("overview.players", ["setup"], end=lambda state, t: state.players not in allowed)


def most_points_win() -> Claim:
    """The winners have the most victory points."""

    def end(state: GameState, t: Tracker) -> bool:
        result = state.result()
        best = max(result.victory_points)
        return any(result.victory_points[p] != best for p in result.winners)

    return claim("overview.most-points-win", ["scoring"], end=end)


def deck_composition(counts: dict[CardKind, int]) -> Claim:
    """The deck holds this many cards of each kind, and every card stays somewhere all game."""
    expected = dict(counts)

    def end(state: GameState, t: Tracker) -> bool:
        found: dict[CardKind, int] = {}
        for card in state.ruleset.deck:
            found[card.kind] = found.get(card.kind, 0) + 1
        zones = state.zones()
        total = sum(len(cards) for cards in zones.values())
        return {k: v for k, v in found.items() if v} != {k: v for k, v in expected.items() if v} or total != len(
            state.ruleset.deck
        )

    return claim("components.deck", ["deck", "gold", "church_cards"], end=end)


def category_cards(category: str | None, values: dict[int, int]) -> Claim:
    """A category (``None``: the Gold) holds this many cards of each value."""
    expected = dict(values)

    def end(state: GameState, t: Tracker) -> bool:
        found: dict[int, int] = {}
        for card in state.ruleset.deck:
            if (card.category == category) if category else card.kind is CardKind.GOLD:
                found[card.value] = found.get(card.value, 0) + 1
        return found != expected

    if category is None:
        return claim("components.gold", ["gold"], end=end)
    return claim(f"components.category.{category}", [f"categories.{category}"], end=end)


def dice_start(starts: Sequence[int]) -> Claim:
    """The award dice start on these faces (board order, then place)."""
    expected = list(starts)

    class _Check(Checker):
        done = False

        def event(self, t: Tracker, e: Event) -> bool:
            if self.done or e.kind not in (E.DIE_MOVED, E.GIFT_TURN):
                return False
            self.done = True
            if e.kind is E.DIE_MOVED:
                die, old, _new = e.args
                return die >= len(expected) or old != expected[die] or len(t.dice) != len(expected)
            return t.dice != expected

    return Claim("components.dice-start", ("categories.dice",), _Check)


def dice_bounds(bounds: Sequence[tuple[int, int]]) -> Claim:
    """Every die stays within its range, all game."""
    limits = list(bounds)

    def event(t: Tracker, e: Event) -> bool:
        if e.kind is not E.DIE_MOVED:
            return False
        die, _old, new = e.args
        return die >= len(limits) or not limits[die][0] <= new <= limits[die][1]

    return claim("church.bounds", ["categories.dice"], event=event)


# -- setup -----------------------------------------------------------------------------------------


def setup_removed(removed: dict[int, int]) -> Claim:
    """This many cards are set aside at setup, per player count."""
    expected = dict(removed)

    class _Check(Checker):
        seen = False

        def event(self, t: Tracker, e: Event) -> bool:
            if e.kind is E.SETUP_REMOVED:
                self.seen = True
                return e.args[0] != expected.get(t.players)
            if e.kind in (E.GIFT_TURN, E.DEALT) and not self.seen:
                self.seen = True
                return expected.get(t.players, 0) != 0
            return False

    return Claim("setup.removed", ("setup.N.remove", "setup.N.remove_random"), _Check)


def setup_dealt(named: dict[int, tuple[Removal, ...]], random_count: dict[int, int]) -> Claim:
    """Each player is dealt the named cards first (each item in order), then this many at random."""
    items = dict(named)
    counts = dict(random_count)

    class _Check(Checker):
        def __init__(self) -> None:
            self.dealt: dict[int, list[int]] = {}

        def event(self, t: Tracker, e: Event) -> bool:
            if e.kind is E.DEALT:
                self.dealt.setdefault(e.player, []).append(-1 if e.card is None else e.card)
                return False
            if e.kind is E.GIFT_TURN and t.gift_turns == 0:
                wanted = items.get(t.players, ())
                n_named = sum(item.count for item in wanted)
                for p in range(t.players):
                    cards = self.dealt.get(p, [])
                    if len(cards) != n_named + counts.get(t.players, 0):
                        return True
                    position = 0
                    for item in wanted:
                        for c in cards[position : position + item.count]:
                            card = t.card[c]
                            if not _matches(card.kind, card.value, card.category, item):
                                return True
                        position += item.count
            return False

    return Claim("setup.dealt", ("setup.N.starting_cards", "setup.N.starting_hand"), _Check)


def named_dealt_openly(named_count: dict[int, int]) -> Claim:
    """The named starting cards are dealt face up: every player sees them (checked on each seat's log)."""
    counts = dict(named_count)

    def end(state: GameState, t: Tracker) -> bool:
        n = counts.get(state.players, 0)
        if not n:
            return False
        for p in range(state.players):
            seen = [e for e in state.events_for((p + 1) % state.players) if e.kind is E.DEALT and e.player == p]
            if any(e.card is None for e in seen[:n]):
                return True
        return False

    return claim("setup.named-face-up", ["setup.N.starting_cards"], end=end)


def cards_in_play(in_play: dict[int, int]) -> Claim:
    """Every card left after setup is drawn or discarded as a short draw during the gift phase."""
    expected = dict(in_play)
    return claim(
        "setup.cards-in-play",
        ["deck", "setup.N"],
        event=lambda t, e: (
            e.kind is E.AUCTION_PHASE and t.gift_cards_drawn + t.short_discarded != expected.get(t.players)
        ),
    )


def gift_turns(turns: dict[int, int]) -> Claim:
    """The gift phase lasts this many turns, per player count (a short last turn included)."""
    expected = dict(turns)
    return claim(
        "setup.turns", ["setup.N.gift_cards", "setup.N.short_draw"],
        event=lambda t, e: e.kind is E.AUCTION_PHASE and t.gift_turns != expected.get(t.players),
    )  # fmt: skip


def clockwise_turns() -> Claim:
    """The first player starts and play passes clockwise (gift turns, then auction turns)."""

    def event(t: Tracker, e: Event) -> bool:
        if e.kind is E.GIFT_TURN:
            return e.player != t.gift_turns % t.players
        if e.kind is E.REVEALED:
            return e.player != t.auction_turns % t.players
        return False

    return claim("setup.clockwise", ["(engine)"], event=event)


# -- gift ------------------------------------------------------------------------------------------


def gift_draw(cards: dict[int, int], short_discard: dict[int, bool]) -> Claim:
    """Each turn draws this many cards; only the last turn may draw fewer (or none: discarded)."""
    expected = dict(cards)
    discard = dict(short_discard)

    class _Check(Checker):
        short = False

        def event(self, t: Tracker, e: Event) -> bool:
            if e.kind is E.GIFT_TURN:
                if self.short:
                    return True
                wanted = expected.get(t.players, 0)
                if e.args[0] != wanted:
                    if discard.get(t.players) or e.args[0] > wanted:
                        return True
                    self.short = True
            return e.kind is E.SHORT_DRAW_DISCARDED and not discard.get(t.players)

    return Claim("gift.draw", ("setup.N.gift_cards", "setup.N.short_draw"), _Check)


def one_at_a_time() -> Claim:
    """Each drawn card is placed before the next is drawn, and a placed card stays where it is."""

    def event(t: Tracker, e: Event) -> bool:
        if e.kind is E.DREW:
            return t.pending is not None
        if e.kind in (E.KEPT, E.TO_AUCTION_PILE, E.TO_PUBLIC):
            return t.pending is None or e.card != t.pending or e.player != t.turn_player
        return False

    return claim("gift.one-at-a-time", ["(engine)"], event=event)


def gift_destinations() -> Claim:
    """Each turn: exactly one kept card, one for the auction pile, every other card in the public space.

    In a short last turn the public space is dropped first, then the auction pile.
    """

    def wanted(n: int) -> tuple[int, int, int]:
        return (min(n, 1), 1 if n >= 2 else 0, max(n - 2, 0))

    def event(t: Tracker, e: Event) -> bool:
        if e.kind in (E.KEPT, E.TO_AUCTION_PILE) and t.placed.get(e.kind, 0) >= 1:
            return True
        if e.kind is E.TOOK_KEPT and e.player == t.turn_player:
            got = (t.placed.get(E.KEPT, 0), t.placed.get(E.TO_AUCTION_PILE, 0), t.placed.get(E.TO_PUBLIC, 0))
            return got != wanted(t.turn_draw)
        return False

    return claim("gift.destinations", ["setup.N.gift_cards"], event=event)


def picks_in_order() -> Claim:
    """After the active player takes the kept card, each other player in clockwise order takes one public card."""

    def event(t: Tracker, e: Event) -> bool:
        if e.kind is E.PICKED:
            if e.card not in t.public:
                return True
            expected = (t.turn_player + 1 + len(t.pickers)) % t.players
            return e.player != expected or e.player == t.turn_player
        if e.kind in (E.GIFT_TURN, E.AUCTION_PHASE) and t.turn_player >= 0:
            others = t.players - 1
            public_total = t.placed.get(E.TO_PUBLIC, 0)
            return len(t.pickers) != min(others, public_total)
        return False

    return claim("gift.picks", ["(engine)"], event=event)


def kept_taken_first() -> Claim:
    """The active player takes the kept card into hand when every card is placed, before anyone picks."""

    def event(t: Tracker, e: Event) -> bool:
        if e.kind is E.TOOK_KEPT:
            return e.player != t.turn_player or t.turn_drawn != t.turn_draw or t.pending is not None
        if e.kind is E.PICKED:
            return t.turn_drawn != t.turn_draw
        return False

    return claim("gift.kept-first", ["(engine)"], event=event)


def public_leftovers(discarded: bool) -> Claim:
    """Cards left in the public space after the picks are removed from the game (or, when none can be left, none are)."""

    def event(t: Tracker, e: Event) -> bool:
        if e.kind is E.PUBLIC_DISCARDED:
            return not discarded or len(t.pickers) < t.players - 1
        if e.kind in (E.GIFT_TURN, E.AUCTION_PHASE) and t.turn_player >= 0:
            return bool(t.public)
        return False

    return claim("gift.public-leftovers", ["setup.N.gift_cards"], event=event)


def church_never_in_hand() -> Claim:
    """A church card acquired is used or declined at once: it never stays in a hand."""

    def event(t: Tracker, e: Event) -> bool:
        if e.kind in (E.GIFT_TURN, E.DREW, E.REVEALED, E.BID, E.GAME_OVER, E.AUCTION_PHASE):
            return t.church_held > 0
        return False

    return claim("church.never-in-hand", ["church_cards"], event=event)


def church_dealt_used() -> Claim:
    """A church card dealt before play is used or declined before the first gift turn."""

    class _Check(Checker):
        def __init__(self) -> None:
            self.waiting: set[int] = set()

        def event(self, t: Tracker, e: Event) -> bool:
            card = -1 if e.card is None else e.card
            if e.kind is E.DEALT and t.kind(card) is CardKind.CHURCH:
                self.waiting.add(card)
            elif e.kind in (E.CHURCH_USED, E.CHURCH_DECLINED):
                self.waiting.discard(card)
            elif e.kind is E.GIFT_TURN:
                return bool(self.waiting)
            return False

    return Claim("church.dealt-used", ("setup.N.starting_hand", "church_cards"), _Check)


def gift_visibility() -> Claim:
    """Public cards are seen by all; the kept and auction-pile cards only by the active player (a church card kept is shown)."""

    def end(state: GameState, t: Tracker) -> bool:
        n = state.players
        for viewer in range(n):
            for e in state.events_for(viewer):
                if e.kind is E.TO_PUBLIC and e.card is None:
                    return True
                if e.kind is E.TO_AUCTION_PILE and (e.card is None) == (e.player == viewer):
                    return True
                if e.kind is E.KEPT and e.card is None and e.player == viewer:
                    return True
                shown = e.kind is E.KEPT and e.card is not None and e.player != viewer
                if shown and t.kind(e.card) is not CardKind.CHURCH:  # type: ignore[arg-type]
                    return True
        return False

    return claim("gift.visibility", ["(engine)"], end=end)


# -- church ----------------------------------------------------------------------------------------


def church_use(effects: dict[str, ChurchEffect], first_place_only: bool) -> Claim:
    """Each church card moves the dice its effect says: how many, which places, all by one same step."""
    by_id = dict(effects)

    memo: dict[tuple[str, tuple[int, ...]], bool] = {}

    def fits(places: list[int], effect: ChurchEffect) -> bool:
        key = (effect.id, tuple(sorted(places)))  # whether dice fit the targets does not depend on their order
        if key not in memo:
            memo[key] = _fits(places, effect)
        return memo[key]

    def _fits(places: list[int], effect: ChurchEffect) -> bool:
        if not effect.targets:
            return len(places) == effect.dice and (not first_place_only or all(p == 1 for p in places))
        required = [t for t in effect.targets if not t.optional]
        if not len(required) <= len(places) <= len(effect.targets) or not places:
            return False
        slots = list(effect.targets)
        for order in permutations(range(len(slots)), len(places)):
            chosen = [slots[i] for i in order]
            if all(s.place is None or s.place == p for s, p in zip(chosen, places)) and all(
                i in order for i, s in enumerate(slots) if not s.optional
            ):
                return True
        return False

    def allowed(state: GameState, effect: ChurchEffect) -> set[tuple[tuple[int, ...], int]]:
        """Every (dice, sign) the effect allows now, as the rulebook states it, within the dice's bounds."""
        places = [die.place for category in state.ruleset.categories for die in category.dice]
        bounds = [(die.min, die.max) for category in state.ruleset.categories for die in category.dice]
        faces = state.dice_values()
        sizes = [effect.dice] if not effect.targets else range(1, len(effect.targets) + 1)
        found: set[tuple[tuple[int, ...], int]] = set()
        for size in sizes:
            for dice in combinations(range(len(places)), size):
                if not fits([places[d] for d in dice], effect):
                    continue
                for sign in set(effect.signs):
                    if all(bounds[d][0] <= faces[d] + sign <= bounds[d][1] for d in dice):
                        found.add((dice, sign))
        return found

    class _Check(Checker):
        def __init__(self) -> None:
            self.moves: list[tuple[int, int, int]] = []

        def decision(self, state: GameState) -> bool:
            if state.phase is not Phase.CHURCH:
                return False
            player = state.current_player
            assert player is not None
            view = state.observation(player).church
            if view is None:
                return False
            card = next((c for c in state.ruleset.deck if c.id == view[1]), None)
            effect = by_id.get(card.effect.id) if card is not None and card.effect is not None else None
            if effect is None:
                return True
            legal = {church_parts(a) for a in state.legal_actions() if a != DECLINE}
            return legal != allowed(state, effect)

        def event(self, t: Tracker, e: Event) -> bool:
            if e.kind is E.DIE_MOVED:
                self.moves.append(e.args)  # type: ignore[arg-type]
                return False
            if e.kind is E.CHURCH_DECLINED:
                self.moves = []
                return False
            if e.kind is not E.CHURCH_USED:
                return bool(self.moves)  # dice moved with no card used
            moves, self.moves = self.moves, []
            card = t.card.get(-1 if e.card is None else e.card)
            if card is None or card.effect is None:
                return True
            effect = by_id.get(card.effect.id)
            if effect is None:
                return True
            steps = {new - old for _die, old, new in moves}
            dice = [die for die, _old, _new in moves]
            if len(steps) != 1 or next(iter(steps)) not in effect.signs or len(set(dice)) != len(dice):
                return True
            return not fits([t.die_place[d] for d in dice], effect)

    return Claim("church.use", ("church_cards", "church.targets"), _Check, decisions=True)


def church_mandatory(optional: bool) -> Claim:
    """A church card may be declined only when optional, or when it has no legal use."""

    def decision(state: GameState) -> bool:
        if state.phase is not Phase.CHURCH:
            return False
        legal = state.legal_actions()
        can_decline = DECLINE in legal
        has_use = any(a != DECLINE for a in legal)
        if optional:
            return not can_decline
        return can_decline and has_use

    return claim("church.optional", ["church.optional"], decision=decision)


# -- auction ---------------------------------------------------------------------------------------


def first_bidder(left_of_active: bool, exclude: bool) -> Claim:
    """The first bid on a revealed card comes from the active player's left neighbour, or from the active player;
    players out of the bidding after a penalty are skipped."""

    def event(t: Tracker, e: Event) -> bool:
        if e.kind in (E.BID, E.PASSED) and not t.bids_on_card and not t.passed and t.auction_active >= 0:
            out = t.excluded(exclude)
            first = t.auction_active if not left_of_active and t.auction_active not in out else t.auction_active + 1
            first %= t.players
            while first in out and len(out) < t.players:
                first = (first + 1) % t.players
            return e.player != first
        return False

    return claim("auction.first-bidder", ["auction.bidding_starts", "penalty.exclude_from_reauction"], event=event)


def bids_raise(opening: int) -> Claim:
    """Each bid beats the highest so far; the first is at least the opening bid; a player who passed bids no more."""

    def event(t: Tracker, e: Event) -> bool:
        if e.kind is E.BID:
            return e.args[0] < opening or e.args[0] <= t.high or e.player in t.passed
        return False

    def decision(state: GameState) -> bool:
        if state.phase is not Phase.BIDDING:
            return False
        lo, hi = state.bid_range()
        view = state.observation(state.current_player).auction
        high = view.high_bid if view is not None else 0
        return lo <= hi and lo != max(opening, high + 1)

    return claim("auction.raise", ["auction.opening_bid"], event=event, decision=decision)


def bid_ceiling(currency_of: dict[int, bool], gold_cap: int | None, cards_cap: int | None) -> Claim:
    """The most a player may bid, per currency: a fixed ceiling, or (``None``) what they can pay.

    ``currency_of`` maps a card kind index to whether its bids are in Gold. Checked at each
    bidding decision: the highest legal bid must be exactly the ceiling the rulebook states.
    """

    def decision(state: GameState) -> bool:
        if state.phase is not Phase.BIDDING:
            return False
        _lo, hi = state.bid_range()
        player = state.current_player
        assert player is not None
        observation = state.observation(player)
        auction = observation.auction
        if auction is None or auction.card is None:
            return False
        card = next(c for c in state.ruleset.deck if c.id == auction.card)
        in_gold = currency_of.get(list(CardKind).index(card.kind), True)
        cap = gold_cap if in_gold else cards_cap
        hand = state.hand(player)
        if cap is None:
            deck = {c.id: c for c in state.ruleset.deck}
            means = sum(deck[c].value for c in hand if deck[c].kind is CardKind.GOLD) if in_gold else len(hand)
            return hi != means
        return hi != cap

    return claim("auction.ceiling", ["auction.ceiling", "auction.currency"], decision=decision)


def payment(in_gold: dict[CardKind, bool], overpay_lost: bool) -> Claim:
    """A winner pays with Gold cards covering the bid (exactly, or without a needless card), or discards that many cards."""
    currency = dict(in_gold)

    def event(t: Tracker, e: Event) -> bool:
        if e.kind is E.CANNOT_PAY:  # only a winner who really cannot cover the bid
            bid = e.args[0]
            if not currency.get(t.kind(t.auction_card), True):
                return len(t.hands[e.player]) >= bid
            if overpay_lost:
                return t.gold(e.player) >= bid
            return _exact(sorted(t.card[c].value for c in t.hands[e.player] if t.kind(c) is CardKind.GOLD), bid)
        if e.kind is E.PAID_CARD:
            return e.card == t.auction_card
        if e.kind is not E.TOOK or t.winner < 0 or e.player != t.winner or e.card != t.auction_card:
            return False
        kind = t.kind(t.auction_card)
        if currency.get(kind, True):
            values = [t.card[c].value for c in t.paid if t.kind(c) is CardKind.GOLD]
            if len(values) != len(t.paid):
                return True
            paid = sum(values)
            if not overpay_lost:
                return paid != t.winning_bid
            return paid < t.winning_bid or any(paid - v >= t.winning_bid for v in values)
        return len(t.paid) != t.winning_bid

    return claim("auction.payment", ["auction.currency", "auction.overpay"], event=event)


def _exact(values: list[int], target: int) -> bool:
    """Whether some of ``values`` add up to exactly ``target``."""
    reachable = {0}
    for value in values:
        reachable |= {r + value for r in reachable if r + value <= target}
    return target in reachable


def winner_takes(has_church: bool) -> Claim:
    """The winner (after paying) takes the card into hand; a church card is used at once instead."""

    class _Check(Checker):
        def __init__(self) -> None:
            self.due = -1

        def event(self, t: Tracker, e: Event) -> bool:
            if e.kind is E.WON:
                self.due = e.player
                return False
            if e.kind in (E.CANNOT_PAY, E.REFUSED):
                self.due = -1
                return False
            if e.kind in (E.REVEALED, E.AUCTION_PHASE, E.GAME_OVER) and self.due >= 0:
                return True
            if e.kind is E.TOOK and self.due >= 0:
                wrong = e.player != self.due
                self.due = -1
                return wrong or (not has_church and t.kind(-1 if e.card is None else e.card) is CardKind.CHURCH)
            return False

    return Claim("auction.winner-takes", ("auction",), _Check)


def all_pass(discard: bool, exclude: bool) -> Claim:
    """When nobody bids, the card is removed from the game, or the active player takes it for free (unless a
    penalty has put them out of its bidding: then it is removed)."""

    class _Check(Checker):
        def __init__(self) -> None:
            self.after = False

        def event(self, t: Tracker, e: Event) -> bool:
            if e.kind is E.ALL_PASSED:
                self.after = True
                return False
            if not self.after:
                return False
            self.after = False
            if discard or t.auction_active in t.excluded(exclude):
                return e.kind is not E.DISCARDED
            return e.kind is not E.TOOK or e.player != t.auction_active

    return Claim("auction.all-pass", ("auction.all_pass", "penalty.exclude_from_reauction"), _Check)


def refusal(allowed: bool) -> Claim:
    """A winner who can pay refuses only where the rules allow it."""

    def decision(state: GameState) -> bool:
        if state.phase is not Phase.PAYMENT:
            return False
        from biblios_kit.engine import REFUSE

        player = state.current_player
        assert player is not None
        view = state.observation(player).payment
        if view is not None and view.paid_count:  # refusing is a choice made before paying anything
            return REFUSE in state.legal_actions()
        return (REFUSE in state.legal_actions()) != allowed

    return claim("auction.refuse", ["auction.refuse_to_pay"], decision=decision)


def never_penalized() -> Claim:
    """No winner ever fails to pay (bids never exceed the bidder's means)."""
    return claim("penalty.never", ["auction.ceiling"], event=lambda t, e: e.kind is E.CANNOT_PAY)


def no_bid_above_means(gold: bool, cards: bool) -> Claim:
    """No bid exceeds what the bidder can pay (in the currencies whose ceiling is the bidder's hand)."""

    def event(t: Tracker, e: Event) -> bool:
        if e.kind is not E.BID or t.auction_card < 0:
            return False
        in_gold = t.ruleset.auction.currency.get(t.kind(t.auction_card))
        if in_gold is Currency.GOLD:
            return gold and e.args[0] > t.gold(e.player)
        return cards and e.args[0] > len(t.hands[e.player])

    return claim("auction.within-means", ["auction.ceiling"], event=event)


# -- penalty ---------------------------------------------------------------------------------------


def penalty_kind(kind: str) -> Claim:
    """What a penalized player loses: each other player takes one card (standard), the left neighbour removes one
    (medieval bluff), or nothing."""

    class _Check(Checker):
        def __init__(self) -> None:
            self.victim = -1
            self.next_taker = -1
            self.acts = 0

        def event(self, t: Tracker, e: Event) -> bool:
            if e.kind in (E.CANNOT_PAY, E.REFUSED):
                self.victim, self.acts = e.player, 0
                self.next_taker = (e.player + 1) % t.players
                return False
            if self.victim < 0:
                return e.kind in (E.PENALTY_TAKEN, E.PENALTY_REMOVED, E.PENALTY_EMPTY)
            if e.kind is E.PENALTY_TAKEN:
                wrong = kind != "standard" or e.player != self.next_taker or e.args[0] != self.victim
                self.next_taker = (self.next_taker + 1) % t.players
                self.acts += 1
                return wrong
            if e.kind is E.PENALTY_REMOVED:
                self.acts += 1
                return kind != "medieval-bluff" or e.player != self.next_taker or self.acts > 1
            if e.kind is E.PENALTY_EMPTY:
                self.victim = -1
                return kind == "none" or bool(t.hands[e.player])
            # the penalty is over: check that it was complete
            victim, self.victim = self.victim, -1
            if kind == "standard":
                return self.acts != t.players - 1 and bool(t.hands[victim])
            if kind == "medieval-bluff":
                return self.acts != 1 and bool(t.hands[victim])
            return self.acts != 0

    return Claim("penalty.kind", ("penalty.kind",), _Check)


def reauction(exclude: bool) -> Claim:
    """After a penalty the same card is auctioned again; penalized players bid on it again only when allowed.

    When every player has been penalized on it (only possible when they are excluded), it is removed from the game.
    """

    class _Check(Checker):
        def __init__(self) -> None:
            self.card = -1
            self.no_bidders = False

        def event(self, t: Tracker, e: Event) -> bool:
            if self.no_bidders:  # the card left the game: nobody takes it
                self.no_bidders = False
                return e.kind is E.TOOK
            if e.kind in (E.CANNOT_PAY, E.REFUSED):
                self.card = t.auction_card
                return False
            if e.kind is E.NO_BIDDERS:
                self.no_bidders = True
                card, self.card = self.card, -1
                return e.card != card or len(t.excluded(exclude)) != t.players
            if e.kind in (E.WON, E.ALL_PASSED) and self.card >= 0:
                card, self.card = self.card, -1
                return e.card != card
            if e.kind is E.REVEALED:
                wrong = self.card >= 0
                self.card = -1
                return wrong
            if e.kind is E.BID:
                return e.player in t.excluded(exclude)
            return False

    return Claim("penalty.reauction", ("penalty.exclude_from_reauction",), _Check)


# -- scoring and ties ------------------------------------------------------------------------------


def category_winners(earliest_letter: bool, places: dict[str, int]) -> Claim:
    """Each category awards ``places[category]`` dice by total (only holders count); ties go to the letter
    closest to A, or to nobody."""
    expected = dict(places)

    def end(state: GameState, t: Tracker) -> bool:
        result = state.result()
        deck = {c.id: c for c in state.ruleset.deck}
        if {category.category: len(category.awards) for category in result.categories} != expected:
            return True
        for category in result.categories:
            totals = [0] * state.players
            letters: list[str | None] = [None] * state.players
            for p in range(state.players):
                for c in state.hand(p):
                    card = deck[c]
                    if card.category == category.category:
                        totals[p] += card.value
                        if card.letter and (letters[p] is None or card.letter < str(letters[p])):
                            letters[p] = card.letter
            if list(category.totals) != totals:
                return True
            holders = sorted((p for p in range(state.players) if letters[p] is not None),
                             key=lambda p: (-totals[p], letters[p] or "" if earliest_letter else ""))  # fmt: skip
            for index, award in enumerate(sorted(category.awards, key=lambda a: a.place)):
                place = index
                if place >= len(holders):
                    if award.winner is not None:
                        return True
                    continue
                candidate = holders[place]
                tied = [p for p in holders if totals[p] == totals[candidate]]
                if not earliest_letter and len(tied) > 1:
                    if award.winner in tied:
                        return True
                    continue
                if award.winner != candidate:
                    return True
        return False

    return claim("scoring.categories", ["scoring.category_tie", "categories.dice"], end=end)


def die_points() -> Claim:
    """Each die won is worth as many victory points as its face at the end of the game."""

    def end(state: GameState, t: Tracker) -> bool:
        result = state.result()
        points = [0] * state.players
        for category in result.categories:
            for award in category.awards:
                if award.winner is not None:
                    points[award.winner] += award.value
                if award.value != t.dice[award.die]:
                    return True
        return list(result.victory_points) != points

    return claim("scoring.points", ["categories.dice"], end=end)


def ties_settled(chain: Sequence[TieBreak]) -> Claim:
    """The winners are the players with the most victory points; among several, the first step of ``chain`` on
    which they differ keeps the best (more Gold, a higher total, the letter closest to A, having won the category);
    players still tied share the victory."""
    steps = tuple(chain)

    def end(state: GameState, t: Tracker) -> bool:
        result = state.result()
        deck = {card.id: card for card in state.ruleset.deck}
        best = max(result.victory_points)
        left = [p for p in range(state.players) if result.victory_points[p] == best]
        for step in steps:
            if len(left) < 2:
                break
            keys: dict[int, float] = {}
            for p in left:
                hand = [deck[c] for c in state.hand(p)]
                if step.by is TieBreakBy.GOLD:
                    keys[p] = sum(card.value for card in hand if card.kind is CardKind.GOLD)
                elif step.by is TieBreakBy.CATEGORY_TOTAL:
                    keys[p] = sum(card.value for card in hand if card.category == step.category)
                elif step.by is TieBreakBy.CATEGORY_LETTER:
                    letters = [card.letter for card in hand if card.category == step.category and card.letter]
                    keys[p] = -ord(min(letters)) if letters else float("-inf")
                else:
                    category = next(r for r in result.categories if r.category == step.category)
                    first = min(category.awards, key=lambda award: award.place)
                    keys[p] = 1 if first.winner == p else 0
            top = max(keys.values())
            left = [p for p in left if keys[p] == top]
        return sorted(result.winners) != left

    return claim("ties.chain", ["scoring.final_tiebreak"], end=end)


def gift_phase_ends() -> Claim:
    """The auction phase starts only when the draw pile is empty, and auctions every card of the auction pile."""

    class _Check(Checker):
        def __init__(self) -> None:
            self.pile = 0
            self.auctioned: set[int] = set()

        def event(self, t: Tracker, e: Event) -> bool:
            if e.kind is E.TO_AUCTION_PILE:
                self.pile += 1
            elif e.kind is E.AUCTION_PHASE:
                return e.args[0] != self.pile
            elif e.kind is E.REVEALED:
                self.auctioned.add(-1 if e.card is None else e.card)
            elif e.kind is E.GAME_OVER:
                return len(self.auctioned) != self.pile
            return False

    return Claim("auction.every-card", ("(engine)",), _Check)
