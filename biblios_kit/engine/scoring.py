"""Final scoring as data: category totals and awards, victory points, the ranking and why."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

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


BY_TOTAL: Final = 0
"""Why a place went where it went, as the compiled tally keeps it: :attr:`WonBy.TOTAL` ..."""
BY_LETTER: Final = 1
"""... :attr:`WonBy.LETTER` ..."""
BY_NOBODY: Final = 2
"""... :attr:`WonBy.NOBODY`."""

NO_LETTER: Final = 1 << 20
"""The letter rank of a player holding no card of a category (after every real letter)."""

_WON_BY = (WonBy.TOTAL, WonBy.LETTER, WonBy.NOBODY)


def _places(totals: list[int], letters: list[int], tie_nobody: bool) -> tuple[list[int], list[int]]:
    """Places 1, 2, ... among the holders of a category: (player or -1, why: ``BY_*``) as two lists.

    The holders (players with a total above 0) are ranked by total, then by earliest letter, then
    by seat; players tied on the total are separated by their earliest letter, unless
    ``tie_nobody`` (then every tied place goes to nobody); a letter tie gives nobody that place.
    """
    holders: list[int] = []
    for p in range(len(totals)):
        if totals[p] > 0:  # insertion sort (a handful of players): stable, by (-total, letter)
            i = len(holders)
            holders.append(p)
            while i > 0:
                q = holders[i - 1]
                if totals[q] > totals[p] or (totals[q] == totals[p] and letters[q] <= letters[p]):
                    break
                holders[i] = q
                i -= 1
            holders[i] = p
    who: list[int] = []
    why: list[int] = []
    i = 0
    n = len(holders)
    while i < n:
        total = totals[holders[i]]
        j = i + 1
        while j < n and totals[holders[j]] == total:
            j += 1
        if j == i + 1:
            who.append(holders[i])
            why.append(BY_TOTAL)
        elif tie_nobody:
            for _k in range(i, j):
                who.append(-1)
                why.append(BY_NOBODY)
        else:
            for k in range(i, j):
                p = holders[k]
                same = 0
                for m in range(i, j):
                    if letters[holders[m]] == letters[p]:
                        same += 1
                if same == 1:
                    who.append(p)
                    why.append(BY_LETTER)
                else:
                    who.append(-1)
                    why.append(BY_NOBODY)
        i = j
    return who, why


def category_places(totals: list[int], letters: list[int], tie_nobody: bool) -> list[tuple[int | None, WonBy]]:
    """The place rule of one category: (player or None, why) for places 1, 2, ... from each player's
    total and best letter (public for the balance lab, which places categories as a game is played)."""
    who, why = _places(totals, letters, tie_nobody)
    return [(None if p < 0 else p, _WON_BY[w]) for p, w in zip(who, why)]


class Tally:
    """A finished game's scoring as plain numbers (compiled with the kernel): what :func:`score_hands` turns
    into a :class:`GameResult`, and what :class:`Outcome` keeps for simulations and searches."""

    def __init__(self, rules: CompiledRules, hands: list[list[int]], dice: list[int]) -> None:
        n = len(hands)
        n_cats = rules.n_cats
        kind, value, cat, letter = rules.kind, rules.value, rules.cat, rules.letter
        totals = [[0] * n for _ in range(n_cats)]
        counts = [[0] * n for _ in range(n_cats)]
        best = [[NO_LETTER] * n for _ in range(n_cats)]
        gold = [0] * n
        for p in range(n):
            for c in hands[p]:
                kc = kind[c]
                if kc == KIND_CATEGORY:
                    k = cat[c]
                    totals[k][p] += value[c]
                    counts[k][p] += 1
                    if letter[c] < best[k][p]:
                        best[k][p] = letter[c]
                elif kc == KIND_GOLD:
                    gold[p] += value[c]
        vp = [0] * n
        first_place = [[0] * n for _ in range(n_cats)]
        winners: list[list[int]] = []
        why: list[list[int]] = []
        times: list[list[int]] = []
        points_rule = rules.points
        for k in range(n_cats):
            who, because = _places(totals[k], best[k], rules.tie_nobody)
            die_winners: list[int] = []
            die_why: list[int] = []
            die_times: list[int] = []
            for d in rules.cat_dice[k]:
                place = rules.die_place[d]
                if place <= len(who):
                    winner, by = who[place - 1], because[place - 1]
                else:
                    winner, by = -1, BY_NOBODY
                multiplier = 1
                if winner >= 0:
                    if points_rule == POINTS_TIMES_CARDS:
                        multiplier = counts[k][winner]
                    elif points_rule == POINTS_TIMES_VALUE:
                        multiplier = totals[k][winner]
                    vp[winner] += dice[d] * multiplier
                    if place == 1:
                        first_place[k][winner] = 1
                die_winners.append(winner)
                die_why.append(by)
                die_times.append(multiplier)
            winners.append(die_winners)
            why.append(die_why)
            times.append(die_times)
        earned: list[list[int]] = []
        for bonus_points, at_least, of in rules.bonus:
            got = []
            for p in range(n):
                won = 0
                for k in of:
                    won += first_place[k][p]
                if won >= at_least:
                    got.append(p)
                    vp[p] += bonus_points
            earned.append(got)
        self.rules = rules
        self.hands = hands
        self.totals = totals
        """Per category, each player's total of card values."""
        self.best = best
        """Per category, each player's earliest letter (its rank; :data:`NO_LETTER` for none)."""
        self.gold = gold
        self.first_place = first_place
        """Per category, 1 for the player who won its first-place die."""
        self.winners = winners
        """Per category, per award die (in the ruleset's order): its winner, -1 for nobody."""
        self.why = why
        """The same, why (``BY_*``)."""
        self.times = times
        """The same, what the die's face is multiplied by for its winner."""
        self.earned = earned
        """Per set bonus, the players who scored it."""
        self.vp = vp
        """Victory points per player."""
        self.ranking = self._ranking()
        """The places, best first: (players, index of the tie-break step that separated them, -1 for victory points)."""

    def _tiebreak_key(self, i: int, p: int) -> int:
        by, k = self.rules.tiebreak[i]
        if by == TB_COUNT:
            w = self.rules.tiebreak_weights[i]
            total = 0
            for c in self.hands[p]:
                total += w[c]
            return total
        if by == TB_GOLD:
            return self.gold[p]
        if by == TB_TOTAL:
            return self.totals[k][p]
        if by == TB_LETTER:
            return -self.best[k][p]
        return self.first_place[k][p]

    def _split_tie(self, group: list[int], i: int, by: int) -> list[tuple[list[int], int]]:
        """``group`` (tied so far) ordered by the tie-break steps from ``i`` on."""
        chain = self.rules.tiebreak
        while i < len(chain):
            keys = [self._tiebreak_key(i, p) for p in group]
            if min(keys) != max(keys):
                out: list[tuple[list[int], int]] = []
                for key in sorted(set(keys), reverse=True):
                    sub = [p for p, other in zip(group, keys) if other == key]
                    out.extend(self._split_tie(sub, i + 1, i) if len(sub) > 1 else [(sub, i)])
                return out
            i += 1
        return [(group, by)]

    def _ranking(self) -> list[tuple[list[int], int]]:
        vp = self.vp
        ranking: list[tuple[list[int], int]] = []
        for points in sorted(set(vp), reverse=True):
            group = [p for p in range(len(vp)) if vp[p] == points]
            if len(group) > 1:
                ranking.extend(self._split_tie(group, 0, -1))
            else:
                ranking.append((group, -1))
        return ranking


class Outcome:
    """What a simulation or a search needs of a finished game, without building its :class:`GameResult`:
    the victory points, the winners after the tie-breaks, and each category's first-place winner."""

    def __init__(self, tally: Tally) -> None:
        self.victory_points: tuple[int, ...] = tuple(tally.vp)
        """Victory points per player (as :attr:`GameResult.victory_points`)."""
        self.winners: tuple[int, ...] = tuple(tally.ranking[0][0])
        """The player(s) in first place (as :attr:`GameResult.winners`)."""
        rules = tally.rules
        firsts = []
        for k in range(rules.n_cats):
            first = -1
            for j, d in enumerate(rules.cat_dice[k]):
                if rules.die_place[d] == 1:
                    first = tally.winners[k][j]
                    break
            firsts.append(first)
        self.category_firsts: tuple[int, ...] = tuple(firsts)
        """Per category, the winner of its first-place die (-1: nobody)."""

    @property
    def shared(self) -> bool:
        """Whether first place is shared."""
        return len(self.winners) > 1

    def win_share(self, player: int) -> float:
        """1 for a sole winner, 1/k for each of k players sharing first place, else 0."""
        return 1.0 / len(self.winners) if player in self.winners else 0.0


def outcome(rules: CompiledRules, hands: list[list[int]], dice: list[int]) -> Outcome:
    """The :class:`Outcome` of final ``hands`` with the award ``dice`` faces (the same numbers as
    :func:`score_hands`, several times faster)."""
    return Outcome(Tally(rules, hands, dice))


def score_hands(rules: CompiledRules, hands: list[list[int]], dice: list[int]) -> GameResult:
    """Score final ``hands`` with the award ``dice`` faces under ``rules``."""
    tally = Tally(rules, hands, dice)
    n = len(hands)
    categories = []
    for k in range(rules.n_cats):
        awards = []
        for j, d in enumerate(rules.cat_dice[k]):
            winner = tally.winners[k][j]
            awards.append(
                DieAward(
                    d,
                    rules.cat_ids[k],
                    rules.die_place[d],
                    dice[d],
                    None if winner < 0 else winner,
                    _WON_BY[tally.why[k][j]],
                    tally.times[k][j],
                )
            )
        categories.append(
            CategoryResult(
                category=rules.cat_ids[k],
                totals=tuple(tally.totals[k]),
                best_letters=tuple(rules.letters[r] if r != NO_LETTER else None for r in tally.best[k]),
                awards=tuple(awards),
            )
        )
    bonuses = tuple(
        BonusAward(b, bonus_points, tuple(tally.earned[b])) for b, (bonus_points, _n, _of) in enumerate(rules.bonus)
    )
    steps = rules.ruleset.scoring.final_tiebreak
    ranking: list[Placing] = []
    place = 1
    for players, step in tally.ranking:
        ranking.append(Placing(place, tuple(players), None if step < 0 else steps[step]))
        place += len(players)
    return GameResult(
        players=n,
        categories=tuple(categories),
        victory_points=tuple(tally.vp),
        gold=tuple(tally.gold),
        ranking=tuple(ranking),
        bonuses=bonuses,
    )


def score(state: GameState) -> GameResult:
    """Score a finished game."""
    return score_hands(state.rules, state.hands, state.dice)


def game_outcome(state: GameState) -> Outcome:
    """The :class:`Outcome` of a finished game (what :func:`score` decides, as numbers)."""
    return outcome(state.rules, state.hands, state.dice)


__all__ = [
    "BonusAward",
    "CategoryResult",
    "DieAward",
    "GameResult",
    "Outcome",
    "Placing",
    "Tally",
    "WonBy",
    "game_outcome",
    "outcome",
    "score",
    "score_hands",
]
