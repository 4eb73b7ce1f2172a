"""Claims of the scoring and ties sections, and the end of the phases."""

from __future__ import annotations

from collections.abc import Sequence

from biblios_kit.engine import Event, EventKind, GameState
from biblios_kit.rulebook.claims.core import Checker, Claim, Tracker, claim
from biblios_kit.rules.model import CardKind, PointsRule, SetBonus, TieBreak, TieBreakBy

E = EventKind


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


def die_points(points: PointsRule = PointsRule.DIE, bonus: Sequence[SetBonus] = ()) -> Claim:
    """Each die won is worth its face at the end of the game, times the taker's cards or total in its category
    when ``points`` says so; each set bonus goes to every player who won (took the first-place die of) enough
    categories of its set."""
    bonuses = tuple(bonus)

    def end(state: GameState, t: Tracker) -> bool:
        result = state.result()
        deck = {c.id: c for c in state.ruleset.deck}
        scores = [0] * state.players
        won: list[set[str]] = [set() for _ in range(state.players)]
        for category in result.categories:
            for award in category.awards:
                if award.value != t.dice[award.die]:
                    return True
                if award.winner is None:
                    continue
                held = [deck[c] for c in state.hand(award.winner) if deck[c].category == category.category]
                if points is PointsRule.DIE_TIMES_CARDS:
                    times = len(held)
                elif points is PointsRule.DIE_TIMES_VALUE:
                    times = sum(card.value for card in held)
                else:
                    times = 1
                scores[award.winner] += award.value * times
                if award.place == 1:
                    won[award.winner].add(category.category)
        for set_bonus in bonuses:
            for p in range(state.players):
                if len(won[p].intersection(set_bonus.categories)) >= set_bonus.at_least:
                    scores[p] += set_bonus.points
        return list(result.victory_points) != scores

    fields = ["categories.dice"]
    if points is not PointsRule.DIE:
        fields.append("scoring.points")
    if bonuses:
        fields.append("scoring.bonus")
    return claim("scoring.points", fields, end=end)


def ties_settled(chain: Sequence[TieBreak]) -> Claim:
    """The winners are the players with the most victory points; among several, the first step of ``chain`` on
    which they differ keeps the best (more Gold, a higher total, the letter closest to A, having won the category,
    more or fewer of the cards a count step counts, or a higher or lower total value of them);
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
                if step.counts:
                    counted = [card for card in hand if step.matches(card)]
                    total = len(counted) if step.by is TieBreakBy.CARDS else sum(card.value for card in counted)
                    keys[p] = -total if step.fewest else total
                elif step.by is TieBreakBy.GOLD:
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
