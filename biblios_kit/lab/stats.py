"""Statistics of an experiment with scipy: estimates with 95% intervals, the equal-seats test, and differences from the baseline.

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
  nothing are not tested. :func:`games_needed` says how many games a difference needs (power).
"""

from __future__ import annotations

import math
import statistics
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
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
    """The p-value after Holm's adjustment within its :attr:`family`."""
    low: float = 0.0
    """The 95% interval of the difference (the effect size): Newcombe's for a rate, Welch's for a mean."""
    high: float = 0.0
    family: str = "secondary"
    """``"primary"`` (declared up front, see :data:`PRIMARY`) or ``"secondary"``: each is corrected on its own."""

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


def constant(values: Sequence[float | None]) -> bool:
    """Whether a metric took one value in every game (nothing to test)."""
    present = {v for v in values if v is not None}
    return len(present) <= 1


def _newcombe(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Newcombe's hybrid score interval of the difference of two rates (``b`` minus ``a``), from Wilson intervals."""
    pa, pb = statistics.fmean(a), statistics.fmean(b)
    la, ha = wilson(pa, len(a))
    lb, hb = wilson(pb, len(b))
    d = pb - pa
    return (d - math.sqrt((pb - lb) ** 2 + (ha - pa) ** 2), d + math.sqrt((hb - pb) ** 2 + (pa - la) ** 2))


def _welch_interval(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Welch's 95% interval of the difference of two means (``b`` minus ``a``)."""
    from scipy.stats import t

    d = statistics.fmean(b) - statistics.fmean(a)
    if len(a) < 2 or len(b) < 2:
        return (d, d)
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    se = math.sqrt(va + vb)
    if se == 0:
        return (d, d)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    half = float(t.ppf(0.5 + CONFIDENCE / 2, df)) * se
    return (d - half, d + half)


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
        low, high = _newcombe(a, b)
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
        low, high = _welch_interval(a, b)
    return Difference(key, mean_a, mean_b, mean_b - mean_a, min(1.0, p), low=low, high=high)


def fair_share_test(key: str, shares: Sequence[float], players: int) -> Difference | None:
    """Test a seat's (or a studied bot's) win share against the fair share ``1/players`` (a one-sample z test).

    ``baseline`` is the fair share, ``diff`` the gap from it, with the Wilson interval of the rate moved by it.
    """
    if not shares:
        return None
    from scipy.stats import norm

    fair = 1 / players
    n = len(shares)
    rate = statistics.fmean(shares)
    z = (rate - fair) / math.sqrt(fair * (1 - fair) / n)
    low, high = wilson(rate, n)
    return Difference(
        key, fair, rate, rate - fair, min(1.0, 2 * float(norm.sf(abs(z)))), low=low - fair, high=high - fair
    )


def paired_gap(key: str, restricted: Sequence[float], free: Sequence[float], players: int) -> Difference | None:
    """Jaffe et al.'s gap: the restricted bot's win share minus the unrestricted bot's in the same seat of the same deal.

    ``restricted[i]`` and ``free[i]`` come from game ``i`` of the restricted arm and of the main arm
    (same seed, same seat); the test is a paired t test, the interval Student's on the paired
    differences. ``baseline`` is the unrestricted share, ``value`` the restricted one.
    """
    n = min(len(restricted), len(free))
    if n == 0:
        return None
    gaps = [restricted[i] - free[i] for i in range(n)]
    mean = statistics.fmean(gaps)
    if n < 2 or statistics.pstdev(gaps) == 0:
        p = 1.0 if mean == 0 else 0.0
        low = high = mean
    else:
        from scipy.stats import ttest_1samp

        p = float(ttest_1samp(gaps, 0.0).pvalue)
        low, high = t_interval(gaps)
    base = statistics.fmean(free[:n])
    return Difference(key, base, base + mean, mean, min(1.0, p), low=low, high=high)


POWER = 0.8
"""The power :func:`games_needed` plans for."""


def games_needed(rate: float, difference: float, two_samples: bool = True) -> int:
    """Games per cell needed to detect a ``difference`` in a rate near ``rate`` (power :data:`POWER`, level :data:`ALPHA`).

    Two samples (a ruleset against the baseline): ``n = (z_a + z_b)^2 * 2 p (1 - p) / d^2``;
    one sample (a rate against the fair share): half of it.
    """
    from scipy.stats import norm

    if difference <= 0:
        raise ValueError("the difference to detect must be positive")
    z = float(norm.ppf(1 - ALPHA / 2)) + float(norm.ppf(POWER))
    variance = max(rate * (1 - rate), 1e-9) * (2 if two_samples else 1)
    return math.ceil(z * z * variance / (difference * difference))


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
