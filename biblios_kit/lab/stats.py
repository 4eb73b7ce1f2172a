"""An experiment's figures per cell: the metrics of its games, their estimates, the seat test, and the differences from the baseline.

The intervals and tests themselves are the ones ``simulate`` uses (:mod:`biblios_kit.sim.stats`):

* Rates (win rates, shared results, category decisions, comebacks) get a Wilson score interval;
  means get a Student t interval, or a percentile bootstrap for the skewed, discrete ones (winning
  margin, tie-break depth). Game-level values missing for a game (a comeback when the game had no
  auction phase) are left out of that metric's count.
* Equal seats: a chi-square goodness-of-fit test of the wins per seat against an even split.
* Fair share: each seat's win rate against ``1/players`` (one-sample z test); restricted play:
  the restricted bot's win share against the unrestricted bot's on the same deals (paired t test).
* A cell's difference from the same cell of the baseline ruleset: a two-proportion z test for a rate,
  Welch's t test for a mean, each with the 95% interval of the difference (Newcombe, Welch).
* Two families, each adjusted with Holm's method on its own: the primary one declared up front
  (:data:`PRIMARY`) and the rest (secondary). Constant metrics and restrictions that changed
  nothing are not tested.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from biblios_kit.sim.stats import (
    MEAN,
    RATE,
    Difference,
    Estimate,
    SeatTest,
    compare,
    constant,
    estimate,
    fair_share_test,
    holm,
    paired_gap,
    seat_test,
)


def _spread(vp: Sequence[int]) -> float:
    return statistics.pstdev(vp) if len(vp) > 1 else 0.0


def _margin(win: Sequence[float], vp: Sequence[int]) -> float:
    best_winner = max(v for w, v in zip(win, vp) if w > 0)
    others = [v for w, v in zip(win, vp) if w == 0]
    return float(best_winner - max(others)) if others else 0.0


BOOTSTRAPPED = frozenset({"margin", "tiebreak_depth"})
"""Means whose interval is bootstrapped (skewed, few distinct values)."""


def metric_values(arm_kind: str, players: int, games: Sequence[dict[str, Any]]) -> dict[str, tuple[str, list[Any]]]:
    """Per metric key, its kind and its value in each game (from each game's metrics), in report order.

    Keys: ``seat_win.S`` (main arm) or ``focus_win``; ``decisions``, ``auctions``, ``unsold``,
    ``vp_mean``, ``vp_spread``, ``margin``, ``shared``, ``tiebreak``, ``tiebreak_depth``,
    ``category_nobody.K``, ``category_by_winner.K`` (K = board position from 1),
    ``die.K`` (first-place die of category K) and ``die.K:P`` (its die for place P), ``penalties``, ``comeback``, ``lead_changes``, ``decided_at``.
    """
    out: dict[str, tuple[str, list[Any]]] = {}
    if arm_kind == "main":
        for seat in range(players):
            out[f"seat_win.{seat + 1}"] = (RATE, [g["win"][seat] for g in games])
    else:
        out["focus_win"] = (RATE, [g["win"][g["focus"]] for g in games])
    out["decisions"] = (MEAN, [g["decisions"] for g in games])
    out["auctions"] = (MEAN, [g["auctions"] for g in games])
    out["unsold"] = (MEAN, [g["unsold"] for g in games])
    out["vp_mean"] = (MEAN, [statistics.fmean(g["vp"]) for g in games])
    out["vp_spread"] = (MEAN, [_spread(g["vp"]) for g in games])
    out["margin"] = (MEAN, [_margin(g["win"], g["vp"]) for g in games])
    out["shared"] = (RATE, [float(g["shared"]) for g in games])
    out["tiebreak"] = (RATE, [float(g["tiebreak_depth"] > 0) for g in games])
    out["tiebreak_depth"] = (MEAN, [g["tiebreak_depth"] for g in games])
    categories = len(games[0]["category_winner"]) if games else 0
    for k in range(categories):
        winners = [g["category_winner"][k] for g in games]
        out[f"category_nobody.{k + 1}"] = (RATE, [float(w < 0) for w in winners])
        out[f"category_by_winner.{k + 1}"] = (
            RATE,
            [float(w >= 0 and g["win"][w] > 0) for w, g in zip(winners, games)],
        )
    for die in games[0]["dice"] if games else ():
        out[f"die.{die}"] = (MEAN, [g["dice"][die] for g in games])
    out["penalties"] = (MEAN, [g["penalties"] for g in games])
    out["comeback"] = (
        RATE,
        [None if not g["gift_leaders"] else float(all(g["win"][p] == 0 for p in g["gift_leaders"])) for g in games],
    )
    out["lead_changes"] = (MEAN, [g["lead_changes"] for g in games])
    out["decided_at"] = (MEAN, [g["decided_at"] for g in games])
    if arm_kind == "restrict":
        out["changed"] = (RATE, [float(g["overrides"] > 0) for g in games])
    return out


PRIMARY = ("seat_win.", "decisions", "lead_changes", "decided_at", "category_by_winner.")
"""The primary family, declared before any game is played: seat balance and first-player advantage
(each seat's win rate against the fair share, and against the baseline), game length (decisions),
tension (lead changes, when the game is decided) and the decisiveness of each category (how often
its winner wins the game), plus the gap each restriction opens (Jaffe et al.). These are corrected
together (Holm); every other comparison is secondary, corrected on its own."""


def is_primary(key: str, arm: str) -> bool:
    """Whether a comparison of metric ``key`` in arm ``arm`` belongs to the primary family."""
    return arm == "main" and any(key == k or (k.endswith(".") and key.startswith(k)) for k in PRIMARY)


@dataclass(frozen=True)
class RestrictionEffect:
    """How much a restriction bit: the restricted bot's choices it replaced, and the games it changed."""

    overridden: int
    """Choices of the restricted bot that the restriction replaced, over every game of the cell."""
    choices: int
    """Decisions the restricted bot made."""
    games_changed: int
    """Games in which the restriction replaced at least one choice (the others are the unrestricted game)."""
    games: int

    @property
    def share_of_decisions(self) -> float:
        """The share of the restricted bot's decisions that the restriction overrode."""
        return self.overridden / self.choices if self.choices else 0.0

    @property
    def share_of_games(self) -> float:
        """The share of games the restriction changed."""
        return self.games_changed / self.games if self.games else 0.0

    @property
    def no_effect(self) -> bool:
        """Whether the restriction never overrode a choice: these games are the unrestricted ones, nothing to compare."""
        return self.overridden == 0


@dataclass
class CellStats:
    """The figures of one cell."""

    cell: str
    ruleset: int
    label: str
    players: int
    arm: str
    games: int
    estimates: dict[str, Estimate]
    seats: SeatTest | None
    differences: dict[str, Difference] = field(default_factory=dict)
    fair: dict[str, Difference] = field(default_factory=dict)
    """Main arm: each seat's win rate against the fair share (``seat_win.S``), in the primary family."""
    effect: RestrictionEffect | None = None
    """Restricted-play arm: how much the restriction bit."""
    gap: Difference | None = None
    """Restricted-play arm: the restricted bot's win share minus the unrestricted bot's on the same deals and seats."""

    @property
    def no_effect(self) -> bool:
        """Whether this is a restricted-play cell whose restriction changed nothing (reported, never compared)."""
        return self.effect is not None and self.effect.no_effect

    @property
    def widest_rate(self) -> float:
        """The widest 95% interval among the cell's rates (what ``--precision`` bounds)."""
        return max((e.width for e in self.estimates.values() if e.kind == RATE), default=0.0)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (keys as in ``docs/lab.md``)."""
        return {
            "cell": self.cell,
            "ruleset": self.label,
            "players": self.players,
            "arm": self.arm,
            "games": self.games,
            "equal_seats": None if self.seats is None else {"chi2": self.seats.chi2, "p": self.seats.p},
            "fair_share": {key: _difference_json(d) for key, d in self.fair.items()},
            "restriction": None
            if self.effect is None
            else {
                "overridden": self.effect.overridden,
                "choices": self.effect.choices,
                "share_of_decisions": self.effect.share_of_decisions,
                "games_changed": self.effect.games_changed,
                "share_of_games": self.effect.share_of_games,
                "no_effect": self.effect.no_effect,
                "gap": None if self.gap is None else _difference_json(self.gap),
            },
            "metrics": {
                key: {
                    "kind": e.kind,
                    "value": e.value,
                    "ci95": [e.low, e.high],
                    "n": e.n,
                    **(_difference_json(d) if (d := self.differences.get(key)) is not None else {}),
                }
                for key, e in self.estimates.items()
            },
        }


def _difference_json(d: Difference) -> dict[str, Any]:
    return {
        "diff": d.diff,
        "diff_ci95": [d.low, d.high],
        "p": d.p,
        "p_holm": d.p_adjusted,
        "family": d.family,
        "significant": d.significant,
    }


def cell_stats(
    cell: str, ruleset: int, label: str, players: int, arm_kind: str, arm: str, games: Sequence[dict[str, Any]]
) -> CellStats:
    """The :class:`CellStats` of one cell from its games' metrics (in game order)."""
    estimates: dict[str, Estimate] = {}
    for key, (kind, values) in metric_values(arm_kind, players, games).items():
        found = estimate(key, kind, values, bootstrap=key in BOOTSTRAPPED)
        if found is not None:
            estimates[key] = found
    seats = None
    if arm_kind == "main" and games:
        seats = seat_test([sum(g["win"][s] for g in games) for s in range(players)])
    effect = None
    if arm_kind == "restrict":
        effect = RestrictionEffect(
            overridden=sum(g["overrides"] for g in games),
            choices=sum(g["choices"] for g in games),
            games_changed=sum(1 for g in games if g["overrides"] > 0),
            games=len(games),
        )
    return CellStats(cell, ruleset, label, players, arm, len(games), estimates, seats, effect=effect)


def add_differences(
    cells: Sequence[CellStats], games: Mapping[str, Sequence[dict[str, Any]]], arm_kinds: Mapping[str, str]
) -> None:
    """Fill every test of the experiment, then correct each family on its own (Holm).

    * Primary (:data:`PRIMARY`): each main-arm seat's win rate against the fair share
      (:attr:`CellStats.fair`), each restriction's gap (:attr:`CellStats.gap`, Jaffe et al.), and
      the primary metrics' differences from the baseline (ruleset 0, same players and arm).
    * Secondary: every other difference from the baseline.

    Not tested: a metric constant in both cells (nothing can differ), a restricted-play cell whose
    restriction overrode no choice in either ruleset (its games are the unrestricted games).
    """
    baseline = {(c.players, c.arm): c for c in cells if c.ruleset == 0}
    main = {(c.ruleset, c.players): c for c in cells if c.arm == "main"}
    found: list[tuple[CellStats, str, Difference]] = []
    for cell in cells:
        kind = arm_kinds[cell.arm]
        mine = metric_values(kind, cell.players, games[cell.cell])
        if kind == "main":
            for key, (_kind, values) in mine.items():
                if key.startswith("seat_win."):
                    fair = fair_share_test(key, values, cell.players)
                    if fair is not None:
                        found.append((cell, "fair", fair))
        free = main.get((cell.ruleset, cell.players))
        if kind == "restrict" and not cell.no_effect and free is not None:
            restricted = [g["win"][g["focus"]] for g in games[cell.cell]]
            unrestricted = [g["win"][r["focus"]] for g, r in zip(games[free.cell], games[cell.cell])]
            gap = paired_gap("focus_win", restricted, unrestricted, cell.players)
            if gap is not None:
                found.append((cell, "gap", gap))
        base = baseline.get((cell.players, cell.arm))
        if cell.ruleset == 0 or base is None or (cell.no_effect and base.no_effect):
            continue
        theirs = metric_values(kind, base.players, games[base.cell])
        for key, (metric_kind, values) in mine.items():
            if key not in theirs or key == "changed" or (constant(values) and constant(theirs[key][1])):
                continue
            difference = compare(key, metric_kind, theirs[key][1], values)
            if difference is not None:
                found.append((cell, "diff", difference))
    families: dict[str, list[int]] = {"primary": [], "secondary": []}
    for i, (cell, what, d) in enumerate(found):
        family = "primary" if what != "diff" or is_primary(d.key, cell.arm) else "secondary"
        families[family].append(i)
    for family, indexes in families.items():
        adjusted = holm([found[i][2].p for i in indexes])
        for i, p_adjusted in zip(indexes, adjusted):
            cell, what, d = found[i]
            final = replace(d, p_adjusted=p_adjusted, family=family)
            if what == "fair":
                cell.fair[d.key] = final
            elif what == "gap":
                cell.gap = final
            else:
                cell.differences[d.key] = final
