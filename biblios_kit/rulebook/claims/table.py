"""Claims of the overview, components, setup and gift sections: the deck, the deal, the turns and where cards go."""

from __future__ import annotations

from collections.abc import Sequence

from biblios_kit.engine import Event, EventKind, GameState
from biblios_kit.rulebook.claims.core import Checker, Claim, Tracker, card_matches, claim
from biblios_kit.rules.model import CardKind, Removal

E = EventKind


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
                            if not card_matches(card.kind, card.value, card.category, item):
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
