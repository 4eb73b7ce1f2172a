"""Final scoring as data: category totals and awards, victory points, the ranking and why."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from biblios_kit.engine.compiled import (
    KIND_CATEGORY,
    KIND_GOLD,
    POINTS_TIMES_CARDS,
    POINTS_TIMES_VALUE,
    TB_COUNT,
    TB_GOLD,
    TB_LETTER,
    TB_TOTAL,
    CompiledRules,
)
from biblios_kit.rules.model import TieBreak

if TYPE_CHECKING:
    from biblios_kit.engine.state import GameState


class WonBy(str, enum.Enum):
    """Why an award die went where it went."""

    TOTAL = "total"
    """The highest (or place-th highest) category total, untied."""
    LETTER = "letter"
    """A tie on the total, settled by the earliest letter."""
    NOBODY = "nobody"
    """Nobody holds enough cards of the category, or a tie the ruleset leaves unsettled."""


@dataclass(frozen=True, slots=True)
class DieAward:
    """One award die at the end of the game."""

    die: int
    """Index of the die (categories in board order, then place)."""
    category: str
    place: int
    value: int
    """The die's face: the victory points it is worth."""
    winner: int | None
    by: WonBy
    multiplier: int = 1
    """What the face is multiplied by for its winner (their cards or total in the category when the
    ruleset's ``scoring.points`` says so; 1 under the printed rule)."""

    @property
    def points(self) -> int:
        """The victory points the die gives its winner (0 when nobody takes it)."""
        return 0 if self.winner is None else self.value * self.multiplier


@dataclass(frozen=True, slots=True)
class BonusAward:
    """One set bonus of the ruleset at the end of the game."""

    bonus: int
    """Index of the bonus in the ruleset's ``scoring.bonus``."""
    points: int
    players: tuple[int, ...]
    """The players who won enough categories of the set (each scores ``points``)."""


@dataclass(frozen=True, slots=True)
class CategoryResult:
    """One category at the end of the game."""

    category: str
    totals: tuple[int, ...]
    """Sum of card values per player."""
    best_letters: tuple[str | None, ...]
    """Earliest letter each player holds in the category (``None`` if none)."""
    awards: tuple[DieAward, ...]
    """The category's award dice, by place."""


@dataclass(frozen=True, slots=True)
class Placing:
    """One place of the final ranking (several players when shared)."""

    place: int
    """1 for the winners; shared places use competition ranking (1, 1, 3)."""
    players: tuple[int, ...]
    by: TieBreak | None
    """What separated this place from its neighbours: ``None`` = victory points, else the tie-break step."""

    @property
    def shared(self) -> bool:
        """Whether several players share this place (identical on every criterion)."""
        return len(self.players) > 1


@dataclass(frozen=True, slots=True)
class GameResult:
    """Everything the end of a game decides."""

    players: int
    categories: tuple[CategoryResult, ...]
    victory_points: tuple[int, ...]
    gold: tuple[int, ...]
    """Total value of the Gold cards in each hand."""
    ranking: tuple[Placing, ...]
    bonuses: tuple[BonusAward, ...] = ()
    """The ruleset's set bonuses and who scored each (empty when it has none)."""

    @property
    def winners(self) -> tuple[int, ...]:
        """The player(s) in first place."""
        return self.ranking[0].players

    @property
    def shared(self) -> bool:
        """Whether first place is shared."""
        return len(self.ranking[0].players) > 1

    def win_share(self, player: int) -> float:
        """1 for a sole winner, 1/k for each of k players sharing first place, else 0."""
        winners = self.ranking[0].players
        return 1.0 / len(winners) if player in winners else 0.0

    def place_of(self, player: int) -> int:
        """The place of ``player`` (1 is first)."""
        for placing in self.ranking:
            if player in placing.players:
                return placing.place
        raise ValueError(f"no player {player!r}")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (enums as their string values)."""
        return {
            "players": self.players,
            "victory_points": list(self.victory_points),
            "gold": list(self.gold),
            "winners": list(self.winners),
            "shared": self.shared,
            "categories": [
                {
                    "category": c.category,
                    "totals": list(c.totals),
                    "best_letters": list(c.best_letters),
                    "awards": [
                        {"place": a.place, "value": a.value, "winner": a.winner, "by": a.by.value}
                        | ({"multiplier": a.multiplier} if a.multiplier != 1 else {})
                        for a in c.awards
                    ],
                }
                for c in self.categories
            ],
            "ranking": [
                {"place": p.place, "players": list(p.players), "by": None if p.by is None else _step_dict(p.by)}
                for p in self.ranking
            ],
        } | (
            {"bonuses": [{"bonus": b.bonus, "points": b.points, "players": list(b.players)} for b in self.bonuses]}
            if self.bonuses
            else {}
        )


def _step_dict(step: TieBreak) -> dict[str, Any]:
    """A tie-break step as JSON: ``by`` and ``category``, plus a count step's filters."""
    out: dict[str, Any] = {"by": step.by.value, "category": step.category}
    if step.counts:
        out["fewest"] = step.fewest
        out["kind"] = None if step.kind is None else step.kind.value
        out["value"] = step.value
    return out


def _category_places(totals: list[int], letters: list[int], tie_nobody: bool) -> list[tuple[int | None, WonBy]]:
    """Ordered (player or None, why) for places 1, 2, ... among the holders of a category."""
    holders = [p for p in range(len(totals)) if totals[p] > 0]
    holders.sort(key=lambda p: (-totals[p], letters[p]))
    places: list[tuple[int | None, WonBy]] = []
    i = 0
    while i < len(holders):
        j = i
        while j < len(holders) and totals[holders[j]] == totals[holders[i]]:
            j += 1
        group = holders[i:j]
        if len(group) == 1:
            places.append((group[0], WonBy.TOTAL))
        elif tie_nobody:
            places.extend((None, WonBy.NOBODY) for _ in group)
        else:
            for _k, p in enumerate(group):
                same = [q for q in group if letters[q] == letters[p]]
                places.append((p, WonBy.LETTER) if len(same) == 1 else (None, WonBy.NOBODY))
        i = j
    return places


def category_places(totals: list[int], letters: list[int], tie_nobody: bool) -> list[tuple[int | None, WonBy]]:
    """The place rule of one category: (player or None, why) for places 1, 2, ... from each player's
    total and best letter (public for the balance lab, which places categories as a game is played)."""
    return _category_places(totals, letters, tie_nobody)


def score_hands(rules: CompiledRules, hands: list[list[int]], dice: list[int]) -> GameResult:
    """Score final ``hands`` with the award ``dice`` faces under ``rules``."""
    n = len(hands)
    kind, value, cat, letter = rules.kind, rules.value, rules.cat, rules.letter
    none = 1 << 20
    totals = [[0] * n for _ in range(rules.n_cats)]
    counts = [[0] * n for _ in range(rules.n_cats)]
    best = [[none] * n for _ in range(rules.n_cats)]
    gold = [0] * n
    for p, hand in enumerate(hands):
        for c in hand:
            if kind[c] == KIND_CATEGORY:
                k = cat[c]
                totals[k][p] += value[c]
                counts[k][p] += 1
                if letter[c] < best[k][p]:
                    best[k][p] = letter[c]
            elif kind[c] == KIND_GOLD:
                gold[p] += value[c]
    vp = [0] * n
    first_place = [[0] * n for _ in range(rules.n_cats)]
    categories = []
    points_rule = rules.points
    for k in range(rules.n_cats):
        places = _category_places(totals[k], best[k], rules.tie_nobody)
        awards = []
        for d in rules.cat_dice[k]:
            place = rules.die_place[d]
            winner, why = places[place - 1] if place <= len(places) else (None, WonBy.NOBODY)
            times = 1
            if winner is not None:
                if points_rule == POINTS_TIMES_CARDS:
                    times = counts[k][winner]
                elif points_rule == POINTS_TIMES_VALUE:
                    times = totals[k][winner]
                vp[winner] += dice[d] * times
                if place == 1:
                    first_place[k][winner] = 1
            awards.append(DieAward(d, rules.cat_ids[k], place, dice[d], winner, why, times))
        categories.append(
            CategoryResult(
                category=rules.cat_ids[k],
                totals=tuple(totals[k]),
                best_letters=tuple(rules.letters[r] if r != none else None for r in best[k]),
                awards=tuple(awards),
            )
        )

    bonuses: list[BonusAward] = []
    for b, (bonus_points, at_least, of) in enumerate(rules.bonus):
        earned = tuple(p for p in range(n) if sum(first_place[k][p] for k in of) >= at_least)
        for p in earned:
            vp[p] += bonus_points
        bonuses.append(BonusAward(b, bonus_points, earned))

    weights = rules.tiebreak_weights

    def key(i: int, p: int) -> int:
        by, k = chain[i]
        if by == TB_COUNT:
            w = weights[i]
            return sum(w[c] for c in hands[p])
        if by == TB_GOLD:
            return gold[p]
        if by == TB_TOTAL:
            return totals[k][p]
        if by == TB_LETTER:
            return -best[k][p]
        return first_place[k][p]

    chain = rules.tiebreak
    steps = rules.ruleset.scoring.final_tiebreak

    def split(group: list[int], i: int, by: TieBreak | None) -> list[tuple[list[int], TieBreak | None]]:
        while i < len(chain):
            keys = {p: key(i, p) for p in group}
            if len(set(keys.values())) > 1:
                out: list[tuple[list[int], TieBreak | None]] = []
                for value_ in sorted(set(keys.values()), reverse=True):
                    sub = [p for p in group if keys[p] == value_]
                    out.extend(split(sub, i + 1, steps[i]) if len(sub) > 1 else [(sub, steps[i])])
                return out
            i += 1
        return [(group, by)]

    ranking: list[Placing] = []
    place = 1
    for points in sorted(set(vp), reverse=True):
        group = [p for p in range(n) if vp[p] == points]
        for players, by in split(group, 0, None) if len(group) > 1 else [(group, None)]:
            ranking.append(Placing(place, tuple(players), by))
            place += len(players)
    return GameResult(
        players=n,
        categories=tuple(categories),
        victory_points=tuple(vp),
        gold=tuple(gold),
        ranking=tuple(ranking),
        bonuses=tuple(bonuses),
    )


def score(state: GameState) -> GameResult:
    """Score a finished game."""
    return score_hands(state.rules, state.hands, state.dice)


__all__ = ["BonusAward", "CategoryResult", "DieAward", "GameResult", "Placing", "WonBy", "score", "score_hands"]
