"""Worked examples for any ruleset, found by playing it with the engine and told in the rulebook's language.

Each example is a real stretch of a real game of that ruleset (its deck, dice, options and
tie-break chain): a gift turn whose last card is forced, a church card used, an auction
paid in Gold with a surplus that is lost, a penalty (Medieval Bluff when that option is on),
a category tie between players holding several cards of it, settled by letter, a
victory-point tie settled by Gold (as the printed rulebooks show) and one settled by the
final tie-break chain past its first step when the chain has more. An :class:`Example` keeps the game (player count, seed, every action), so
:func:`verify` can replay it through the engine's public API, action by action, and check
every fact the text states.

Games are played with a simple seeded policy (cautious bids, the biggest Gold card first)
until every kind of example is found or the search budget runs out (:data:`SEEDS` games,
:data:`DEEPER_SEEDS` for a tie that Gold does not settle); an example a ruleset cannot
produce (no Gold, exact payment, no ties within the budget) is left out. Results are
cached per ruleset content hash.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache

from biblios_kit.engine import BID, PASS, PAY, REFUSE, Event, EventKind, GameResult, GameState, Phase, WonBy, new_game
from biblios_kit.rules.model import CardKind, Overpay, Ruleset, TieBreak, TieBreakBy

KINDS: tuple[str, ...] = ("gift", "church", "overpay", "penalty", "category-tie", "gold-tie", "final-tie")
"""The kinds of worked example, in rulebook order."""

SECTION_OF: dict[str, str] = {
    "gift": "gift",
    "church": "church",
    "overpay": "auction",
    "penalty": "penalty",
    "category-tie": "scoring",
    "gold-tie": "ties",
    "final-tie": "ties",
}
"""The rulebook section each kind of example belongs to."""

NAMES: tuple[str, ...] = ("Ana", "Bruno", "Carla", "Dario", "Elena", "Fabio")
"""The players of the examples (names read the same in every language)."""

SEEDS = 120
"""How many games the search plays for one ruleset to find every kind (about 5 ms each)."""
DEEPER_SEEDS = 400
"""How many games (with eager bidders) the search may play to find a victory-point tie that Gold does not settle.

Such a tie (equal victory points and equal Gold) comes in about one such game in twelve;
the search stops at the first."""
DEEPEST_STEP = 4
"""The last tie-break step (0 is the first) an example may be settled by: each earlier step is one line."""


@dataclass(frozen=True, slots=True)
class Example:
    """One worked example: a slice of a real game's event log and the facts its text states.

    ``first``/``last`` delimit the events (``last`` excluded) in the log seen by ``viewer``
    (``None``: as a spectator sees it). ``facts`` holds the numbers and names the closing
    sentence uses; :func:`verify` recomputes them.
    """

    kind: str
    players: int
    seed: int
    actions: tuple[int, ...]
    viewer: int | None
    first: int
    last: int
    facts: tuple[tuple[str, object], ...] = field(default=())

    def fact(self, name: str) -> object:
        """The fact called ``name``."""
        return dict(self.facts)[name]


def spectator_events(state: GameState) -> list[Event]:
    """The event log as a spectator sees it: a card is named only when every player sees it."""
    views = [state.events_for(seat) for seat in range(state.players)]
    return [next((event for event in versions if event.card is None), versions[0]) for versions in zip(*views)]


def events_seen(state: GameState, viewer: int | None) -> list[Event]:
    """The event log as ``viewer`` sees it (a spectator when ``None``)."""
    return spectator_events(state) if viewer is None else state.events_for(viewer)


def _gold_in_hand(ruleset: Ruleset, hand: Sequence[int]) -> int:
    return sum(ruleset.deck[card].value for card in hand if ruleset.deck[card].kind is CardKind.GOLD)


def choose(state: GameState, rng: random.Random, eager: bool = False) -> int:
    """The examples' policy: random placements, cautious bids, the biggest Gold card first when paying.

    ``eager`` players bid more often, never beyond their means: they spend their Gold, so
    more games end with players level on victory points and on Gold (one game in twelve
    instead of one in forty), the tie the final-tie example needs.
    """
    ruleset = state.ruleset
    legal = state.legal()
    phase = state.phase
    if phase is Phase.BIDDING:
        seat = state.current_player
        assert seat is not None
        obs = state.observation(seat)
        assert obs.auction is not None
        means = _gold_in_hand(ruleset, obs.hand) if obs.auction.currency == "gold" else len(obs.hand) - 1
        lowest, highest = state.bid_range()
        slack, chance = (0, 0.9) if eager else (1, 0.55)
        if lowest <= highest and lowest <= means + slack and rng.random() < chance:
            return BID + lowest
        return PASS if PASS in legal else rng.choice(legal)
    if phase is Phase.PAYMENT:
        payments = [action for action in legal if PAY <= action < PAY + 1_000]
        if payments:
            return max(payments, key=lambda action: (ruleset.deck[action - PAY].value, -action))
        return next((action for action in legal if action != REFUSE), legal[0])
    return rng.choice(legal)


def play(ruleset: Ruleset, players: int, seed: int, eager: bool = False) -> tuple[GameState, tuple[int, ...]]:
    """A whole game of ``ruleset`` with :func:`choose`, and its actions."""
    state = new_game(ruleset, players=players, seed=seed)
    rng = random.Random(seed)
    actions: list[int] = []
    while not state.is_terminal():
        action = choose(state, rng, eager)
        state.apply(action)
        actions.append(action)
    return state, tuple(actions)


def replay(ruleset: Ruleset, example: Example) -> GameState:
    """The example's game replayed through the public API; ``ValueError`` on an illegal action."""
    state = new_game(ruleset, players=example.players, seed=example.seed)
    for index, action in enumerate(example.actions):
        if not state.is_legal(action):
            raise ValueError(f"action {index} of the {example.kind} example is not legal")
        state.apply(action)
    return state


# -- finding each kind in a finished game ----------------------------------------------------------


def choice_counts(state: GameState) -> dict[int, int]:
    """For each event of ``state``'s log made by a player's decision, how many legal actions that decision had.

    The game is replayed from its seed through the public API; an event index maps to the
    count of the action that produced it (1: the move was forced).
    """
    replayed = new_game(state.ruleset, players=state.players, seed=state.seed)
    counts: dict[int, int] = {}
    for action in state.actions:
        before, legal = len(replayed.events), len(replayed.legal())
        replayed.apply(action)
        for index in range(before, len(replayed.events)):
            counts[index] = legal
    return counts


PLACED = {EventKind.KEPT: "keep", EventKind.TO_AUCTION_PILE: "auction_pile", EventKind.TO_PUBLIC: "public_space"}
"""Where a gift card goes, by the event that places it."""


def _find_gift(state: GameState) -> tuple[int | None, int, int, dict[str, object]] | None:
    viewer = 0
    events = state.events_for(viewer)
    starts = [i for i, event in enumerate(events) if event.kind is EventKind.GIFT_TURN and event.player == viewer]
    if not starts:
        return None
    first = starts[0]
    last = next((i for i in range(first + 1, len(events)) if events[i].kind is EventKind.GIFT_TURN), len(events))
    part = events[first:last]
    if any(event.kind in (EventKind.CHURCH_USED, EventKind.CHURCH_DECLINED) for event in part):
        return None
    gained = [event.player for event in part if event.kind in (EventKind.KEPT, EventKind.PICKED)]
    if sorted(gained) != list(range(state.players)):
        return None
    placed = [first + i for i, event in enumerate(part) if event.kind in PLACED]
    if not placed or choice_counts(state).get(placed[-1]) != 1:
        return None  # the example shows a last card with nowhere else to go
    return viewer, first, last, {"gained": len(gained), "forced": PLACED[events[placed[-1]].kind]}


def _find_church(state: GameState) -> tuple[int | None, int, int, dict[str, object]] | None:
    """A church card used, told as its owner sees it: from the moment they acquire it to its use.

    The engine logs the dice moved, then the card used; a card kept on a gift turn that
    moves two dice (the printed rulebooks' example) is preferred to any other.
    """
    acquiring = (EventKind.KEPT, EventKind.PICKED, EventKind.TOOK)
    best: tuple[int, int, int, int, tuple[tuple[int, ...], ...]] | None = None
    for index, event in enumerate(state.events):
        if event.kind is not EventKind.CHURCH_USED or event.card is None:
            continue
        owner, card = event.player, event.card
        events = state.events_for(owner)
        start = max((i for i in range(index) if events[i].card == card and events[i].kind in acquiring), default=None)
        if start is None:
            continue
        kept = events[start].kind is EventKind.KEPT
        if start > 0 and events[start - 1].kind is EventKind.DREW and events[start - 1].card == card:
            start -= 1
        moves = tuple(tuple(e.args) for e in events[start:index] if e.kind is EventKind.DIE_MOVED)
        if not moves:
            continue
        score = 2 * kept + (len(moves) > 1)
        if best is None or score > best[0]:
            best = (score, owner, start, index + 1, moves)
    if best is None:
        return None
    _score, owner, start, end, moves = best
    return owner, start, end, {"player": NAMES[owner], "moves": moves}


def _find_overpay(state: GameState) -> tuple[int | None, int, int, dict[str, object]] | None:
    ruleset = state.ruleset
    if ruleset.auction.overpay is not Overpay.LOST:
        return None
    events = spectator_events(state)
    for index, event in enumerate(events):
        if event.kind is not EventKind.WON or event.card is None:
            continue
        if ruleset.deck[event.card].kind is CardKind.GOLD:
            continue
        paid: list[int] = []
        end = index + 1
        while end < len(events) and events[end].kind is EventKind.PAID_GOLD:
            card = events[end].card
            assert card is not None
            paid.append(ruleset.deck[card].value)
            end += 1
        bid = event.args[0]
        if paid and sum(paid) > bid and len(paid) >= 2:
            start = max(i for i in range(index + 1) if events[i].kind is EventKind.REVEALED)
            if end < len(events) and events[end].kind is EventKind.TOOK:
                end += 1
            winner = NAMES[event.player]
            return None, start, end, {"player": winner, "bid": bid, "paid": sum(paid), "lost": sum(paid) - bid}
    return None


def _find_penalty(state: GameState) -> tuple[int | None, int, int, dict[str, object]] | None:
    events = spectator_events(state)
    taken = (EventKind.PENALTY_TAKEN, EventKind.PENALTY_REMOVED)
    for index, event in enumerate(events):
        if event.kind is not EventKind.CANNOT_PAY:
            continue
        end = index + 1
        while end < len(events) and events[end].kind in (*taken, EventKind.PENALTY_EMPTY):
            end += 1
        if not any(e.kind in taken for e in events[index + 1 : end]):
            continue
        start = max(i for i in range(index + 1) if events[i].kind is EventKind.REVEALED)
        if end - start > 14:
            continue
        return None, start, end, {"player": NAMES[event.player]}
    return None


def _find_category_tie(state: GameState) -> tuple[int | None, int, int, dict[str, object]] | None:
    result = state.result()
    for category in result.categories:
        for award in category.awards:
            if award.by is not WonBy.LETTER or award.place != 1 or award.winner is None:
                continue
            total = category.totals[award.winner]
            tied = [p for p, t in enumerate(category.totals) if t == total and p != award.winner]
            if not tied:
                continue
            other = tied[0]
            mine, theirs = (
                _category_cards(state, award.winner, category.category),
                _category_cards(state, other, category.category),
            )
            if len(mine) < 2 or len(theirs) < 2:
                continue  # the example adds several cards up on each side
            return (
                None,
                0,
                0,
                {
                    "category": category.category,
                    "total": total,
                    "winner": NAMES[award.winner],
                    "winner_letter": category.best_letters[award.winner] or "",
                    "other": NAMES[other],
                    "other_letter": category.best_letters[other] or "",
                    "value": award.points,  # the die's face, times the winner's cards or total where the rules say so
                    "winner_cards": mine,
                    "other_cards": theirs,
                },
            )
    return None


def _category_cards(state: GameState, player: int, category: str) -> tuple[int, ...]:
    """The cards of ``category`` in ``player``'s final hand, in deck order."""
    deck = state.ruleset.deck
    return tuple(sorted(card for card in state.hand(player) if deck[card].category == category))


def step_value(result: GameResult, step: TieBreak, player: int, ruleset: Ruleset, hand: Sequence[int] = ()) -> object:
    """What ``player`` has on one tie-break step: Gold total, a category total or letter, whether they won it,
    or for a count step the number (or total value) of the cards of their final ``hand`` it counts."""
    if step.counts:
        counted = [ruleset.deck[c] for c in hand if step.matches(ruleset.deck[c])]
        return len(counted) if step.by is TieBreakBy.CARDS else sum(card.value for card in counted)
    if step.by is TieBreakBy.GOLD:
        return result.gold[player]
    index = [c.id for c in ruleset.categories].index(step.category or "")
    category = result.categories[index]
    if step.by is TieBreakBy.CATEGORY_TOTAL:
        return category.totals[player]
    if step.by is TieBreakBy.CATEGORY_LETTER:
        return category.best_letters[player] or "-"
    return any(award.winner == player and award.place == 1 for award in category.awards)


def _find_gold_tie(state: GameState) -> tuple[int | None, int, int, dict[str, object]] | None:
    """A victory-point tie of the final ranking settled by Gold, the first step of the chain (as the rulebooks show it)."""
    chain = state.ruleset.scoring.final_tiebreak
    if not chain or chain[0].by is not TieBreakBy.GOLD:
        return None
    return _find_final_tie(state, deepest=0)


def _find_final_tie(
    state: GameState, deepest: int = DEEPEST_STEP
) -> tuple[int | None, int, int, dict[str, object]] | None:
    """The victory-point tie of the final ranking settled by the latest step of the chain (up to ``deepest``)."""
    result = state.result()
    ruleset = state.ruleset
    chain = ruleset.scoring.final_tiebreak
    best: tuple[int, int, int] | None = None
    for number, placing in enumerate(result.ranking[:-1]):
        if placing.by is None or placing.shared:
            continue
        winner, other = placing.players[0], result.ranking[number + 1].players[0]
        if result.victory_points[winner] != result.victory_points[other]:
            continue
        deciding = chain.index(placing.by)
        if deciding <= deepest and (best is None or deciding > best[0]):
            best = (deciding, winner, other)
    if best is None:
        return None
    deciding, winner, other = best
    return (
        None,
        0,
        0,
        {
            "winner": NAMES[winner],
            "other": NAMES[other],
            "vp": result.victory_points[winner],
            "deciding": deciding,
            "values": tuple(
                (
                    step_value(result, step, winner, ruleset, state.hand(winner)),
                    step_value(result, step, other, ruleset, state.hand(other)),
                )
                for step in chain[: deciding + 1]
            ),
        },
    )


FINDERS: dict[str, Callable[[GameState], tuple[int | None, int, int, dict[str, object]] | None]] = {
    "gift": _find_gift,
    "church": _find_church,
    "overpay": _find_overpay,
    "penalty": _find_penalty,
    "category-tie": _find_category_tie,
    "gold-tie": _find_gold_tie,
    "final-tie": _find_final_tie,
}


def example_players(ruleset: Ruleset) -> int:
    """The player count of the examples: three when the ruleset allows it (as the rulebooks' examples)."""
    counts = ruleset.player_counts
    return 3 if 3 in counts else counts[0]


@cache
def _examples(content_hash: str, ruleset: Ruleset) -> tuple[Example, ...]:
    del content_hash  # the cache key: the ruleset's rules, options applied
    players = example_players(ruleset)
    found: dict[str, Example] = {}

    def keep(
        kind: str, seed: int, actions: tuple[int, ...], hit: tuple[int | None, int, int, dict[str, object]]
    ) -> None:
        viewer, first, last, facts = hit
        found[kind] = Example(kind, players, seed, actions, viewer, first, last, tuple(facts.items()))

    for seed in range(1, SEEDS + 1):
        wanted = [kind for kind in FINDERS if kind not in found]
        if not wanted:
            break
        state, actions = play(ruleset, players, seed)
        for kind in wanted:
            hit = FINDERS[kind](state)
            if hit is not None:
                keep(kind, seed, actions, hit)
    tie = found.get("final-tie")
    if len(ruleset.scoring.final_tiebreak) > 1 and (tie is None or tie.fact("deciding") == 0):
        # a tie past the first step (Gold) shows more of the chain: eager bidders make one sooner
        for seed in range(1, DEEPER_SEEDS + 1):
            state, actions = play(ruleset, players, seed, eager=True)
            hit = _find_final_tie(state)
            if hit is not None and (hit[3]["deciding"] != 0 or "final-tie" not in found):
                keep("final-tie", seed, actions, hit)
                if hit[3]["deciding"] != 0:
                    break
    final = found.get("final-tie")
    if final is not None and final.fact("deciding") == 0:
        found.pop("gold-tie", None)  # a chain of Gold alone: the two would be the same tie
    return tuple(found[kind] for kind in KINDS if kind in found)


def find_examples(ruleset: Ruleset) -> tuple[Example, ...]:
    """The worked examples of ``ruleset`` (options applied), in :data:`KINDS` order; cached per ruleset."""
    return _examples(ruleset.content_hash, ruleset)


def verify(ruleset: Ruleset, example: Example) -> None:
    """Replay ``example``'s game through the engine and check it yields the same events and facts.

    Raises ``ValueError`` when an action is illegal or a stated fact does not hold.
    """
    state = replay(ruleset, example)
    if not state.is_terminal():
        raise ValueError(f"the {example.kind} example's game does not finish")
    hit = FINDERS[example.kind](state)
    if hit is None:
        raise ValueError(f"the {example.kind} example is not in its game")
    viewer, first, last, facts = hit
    if (viewer, first, last, tuple(facts.items())) != (example.viewer, example.first, example.last, example.facts):
        raise ValueError(f"the {example.kind} example's facts differ on replay")


# -- telling an example -----------------------------------------------------------------------------


def example_lines(ruleset: Ruleset, example: Example, lang: str) -> list[str]:
    """The event sentences of ``example`` in ``lang`` (empty for the examples told from the final result)."""
    from biblios_kit.rulebook.describe import EventDescriber

    if example.first == example.last:
        return []
    state = replay(ruleset, example)
    events = events_seen(state, example.viewer)[example.first : example.last]
    return EventDescriber(ruleset, NAMES[: example.players], lang).narrate(events)
