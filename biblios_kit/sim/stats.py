"""The statistics of batches of games, shared by ``simulate`` and the lab: intervals and tests.

* Rates get a Wilson score interval; means a Student t interval, or a percentile bootstrap for
  skewed, discrete ones. Values missing for a game (``None``) are left out of that count.
* Equal seats: a chi-square goodness-of-fit test of the wins per seat against an even split.
* Fair share: a win rate against ``1/players`` (one-sample z test); paired gaps (a restricted
  bot against the unrestricted one on the same deals): a paired t test.
* The difference of two samples: a two-proportion z test for a rate, Welch's t test for a mean,
  each with the 95% interval of the difference (Newcombe, Welch); Holm's adjustment of a family
  of p-values; :func:`games_needed` says how many games a difference needs (power).

scipy is imported only by the functions that need it: ``simulate``'s own figures (Wilson
intervals) do not load it.
"""

from __future__ import annotations

import math
import statistics
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

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
    """``"primary"`` (declared up front, see :data:`biblios_kit.lab.stats.PRIMARY`) or ``"secondary"``: each is corrected on its own."""

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


Z95 = 1.959963984540054
"""The normal quantile of :data:`CONFIDENCE` (scipy's ``norm.ppf(0.975)``, written out so that a Wilson
interval needs no scipy)."""


def wilson_interval(rate: float, n: int) -> tuple[float, float]:
    """The Wilson score interval (95%) of a rate observed over ``n`` trials; it always contains the rate."""
    if n <= 0:
        return (0.0, 1.0)
    z = Z95
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
        low, high = wilson_interval(value, len(present))
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
    la, ha = wilson_interval(pa, len(a))
    lb, hb = wilson_interval(pb, len(b))
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
    low, high = wilson_interval(rate, n)
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
