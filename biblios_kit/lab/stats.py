"""Statistics of an experiment with scipy: estimates with 95% intervals, the equal-seats test, and differences from the baseline.

* Rates (win rates, shared results, category decisions, comebacks) get a Wilson score interval;
  means get a Student t interval, or a percentile bootstrap for the skewed, discrete ones (winning
  margin, tie-break depth). Game-level values missing for a game (a comeback when the game had no
  auction phase) are left out of that metric's count.
* Equal seats: a chi-square goodness-of-fit test of the wins per seat against an even split.
* A cell's difference from the same cell of the baseline ruleset: a two-proportion z test for a rate,
  Welch's t test for a mean; the p-values of every comparison of an experiment are adjusted together
  with Holm's method and a difference is significant when its adjusted p-value is below 0.05.
"""

from __future__ import annotations

import math
import statistics
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

ALPHA = 0.05
"""The significance level (family-wise, after Holm's adjustment)."""

CONFIDENCE = 0.95
"""The level of every interval."""

BOOTSTRAP_RESAMPLES = 999

RATE = "rate"
MEAN = "mean"


@dataclass(frozen=True)
class Estimate:
    """A metric's value over a cell's games, with its 95% interval."""

    key: str
    kind: str
    """``"rate"`` (a share of games, Wilson interval) or ``"mean"`` (t or bootstrap interval)."""
    value: float
    low: float
    high: float
    n: int
    """Games counted."""

    @property
    def width(self) -> float:
        """The interval's width."""
        return self.high - self.low


@dataclass(frozen=True)
class Difference:
    """A metric's difference from the baseline's same cell, and its test."""

    key: str
    baseline: float
    value: float
    diff: float
    p: float
    p_adjusted: float = 1.0
    """The p-value after Holm's adjustment over every comparison of the experiment."""

    @property
    def significant(self) -> bool:
        """Whether the adjusted p-value is below :data:`ALPHA`."""
        return self.p_adjusted < ALPHA


@dataclass(frozen=True)
class SeatTest:
    """The chi-square test of equal win rates per seat."""

    chi2: float
    p: float

    @property
    def significant(self) -> bool:
        """Whether the seats differ at level :data:`ALPHA`."""
        return self.p < ALPHA


def _z() -> float:
    from scipy.stats import norm

    return float(norm.ppf(0.5 + CONFIDENCE / 2))


def wilson(rate: float, n: int) -> tuple[float, float]:
    """The Wilson score interval of a rate observed over ``n`` games."""
    if n <= 0:
        return (0.0, 1.0)
    z = _z()
    denominator = 1 + z * z / n
    centre = (rate + z * z / (2 * n)) / denominator
    half = z * math.sqrt(max(0.0, rate * (1 - rate) / n + z * z / (4 * n * n))) / denominator
    # Rounding can put a bound a hair past the rate itself at 0 or 1: the interval always contains it.
    return (max(0.0, min(rate, centre - half)), min(1.0, max(rate, centre + half)))


def t_interval(values: Sequence[float]) -> tuple[float, float]:
    """The Student t interval of the mean of ``values``."""
    from scipy.stats import t

    mean = statistics.fmean(values)
    if len(values) < 2:
        return (mean, mean)
    sem = statistics.stdev(values) / math.sqrt(len(values))
    if sem == 0:
        return (mean, mean)
    low, high = t.interval(CONFIDENCE, len(values) - 1, loc=mean, scale=sem)
    return (float(low), float(high))


def bootstrap_interval(values: Sequence[float], seed: int = 0) -> tuple[float, float]:
    """A percentile bootstrap interval of the mean of ``values`` (seeded, so reproducible)."""
    import numpy as np
    from scipy.stats import bootstrap

    mean = statistics.fmean(values)
    if len(values) < 2 or min(values) == max(values):
        return (mean, mean)
    result = bootstrap(
        (np.asarray(values, dtype=float),),
        np.mean,
        confidence_level=CONFIDENCE,
        n_resamples=BOOTSTRAP_RESAMPLES,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    interval = result.confidence_interval
    return (float(interval.low), float(interval.high))


def estimate(key: str, kind: str, values: Sequence[float | None], bootstrap: bool = False) -> Estimate | None:
    """The :class:`Estimate` of a metric from its per-game values (``None`` = not defined for that game)."""
    present = [float(v) for v in values if v is not None]
    if not present:
        return None
    value = statistics.fmean(present)
    if kind == RATE:
        low, high = wilson(value, len(present))
    elif bootstrap:
        low, high = bootstrap_interval(present)
    else:
        low, high = t_interval(present)
    return Estimate(key, kind, value, low, high, len(present))


def seat_test(wins: Sequence[float]) -> SeatTest | None:
    """Chi-square test that the seats' total wins (win shares summed over games) are an even split."""
    from scipy.stats import chisquare

    if len(wins) < 2 or sum(wins) <= 0:
        return None
    result = chisquare(list(wins))
    return SeatTest(float(result.statistic), float(result.pvalue))


def compare(key: str, kind: str, baseline: Sequence[float | None], other: Sequence[float | None]) -> Difference | None:
    """Test the difference of a metric between the baseline's games and another ruleset's."""
    a = [float(v) for v in baseline if v is not None]
    b = [float(v) for v in other if v is not None]
    if not a or not b:
        return None
    mean_a, mean_b = statistics.fmean(a), statistics.fmean(b)
    if kind == RATE:
        from scipy.stats import norm

        pooled = (mean_a * len(a) + mean_b * len(b)) / (len(a) + len(b))
        se = math.sqrt(pooled * (1 - pooled) * (1 / len(a) + 1 / len(b)))
        p = 2 * float(norm.sf(abs(mean_b - mean_a) / se)) if se > 0 else (1.0 if mean_a == mean_b else 0.0)
    else:
        from scipy.stats import ttest_ind

        if len(a) < 2 or len(b) < 2:
            p = 1.0
        else:
            with warnings.catch_warnings():  # nearly constant samples: scipy warns, the p-value is still right
                warnings.simplefilter("ignore", RuntimeWarning)
                p = float(ttest_ind(a, b, equal_var=False).pvalue)
            if math.isnan(p):  # both samples constant
                p = 1.0 if mean_a == mean_b else 0.0
    return Difference(key, mean_a, mean_b, mean_b - mean_a, min(1.0, p))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of ``p_values`` (same order as given)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


# --------------------------------------------------------------------------- metrics of a cell


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
    ``category_won.K``, ``category_nobody.K``, ``category_by_winner.K`` (K = board position from 1),
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
        out[f"category_won.{k + 1}"] = (RATE, [float(w >= 0) for w in winners])
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
    return out


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
            "metrics": {
                key: {
                    "kind": e.kind,
                    "value": e.value,
                    "ci95": [e.low, e.high],
                    "n": e.n,
                    **(
                        {
                            "diff": d.diff,
                            "p": d.p,
                            "p_holm": d.p_adjusted,
                            "significant": d.significant,
                        }
                        if (d := self.differences.get(key)) is not None
                        else {}
                    ),
                }
                for key, e in self.estimates.items()
            },
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
    return CellStats(cell, ruleset, label, players, arm, len(games), estimates, seats)


def add_differences(
    cells: Sequence[CellStats], games: Mapping[str, Sequence[dict[str, Any]]], arm_kinds: Mapping[str, str]
) -> None:
    """Fill each non-baseline cell's :attr:`CellStats.differences` against the baseline (ruleset 0) with the same
    players and arm, then adjust every p-value of the experiment together (Holm)."""
    baseline = {(c.players, c.arm): c for c in cells if c.ruleset == 0}
    found: list[tuple[CellStats, Difference]] = []
    for cell in cells:
        base = baseline.get((cell.players, cell.arm))
        if cell.ruleset == 0 or base is None:
            continue
        kind = arm_kinds[cell.arm]
        mine = metric_values(kind, cell.players, games[cell.cell])
        theirs = metric_values(kind, base.players, games[base.cell])
        for key, (metric_kind, values) in mine.items():
            if key not in theirs:
                continue
            difference = compare(key, metric_kind, theirs[key][1], values)
            if difference is not None:
                found.append((cell, difference))
    adjusted = holm([d.p for _cell, d in found])
    for (cell, difference), p_adjusted in zip(found, adjusted):
        cell.differences[difference.key] = Difference(
            difference.key, difference.baseline, difference.value, difference.diff, difference.p, p_adjusted
        )
