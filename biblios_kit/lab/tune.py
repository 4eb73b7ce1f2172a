"""``lab tune``: find the values of one or two numeric rule fields that meet a balance target, with few games.

Successive halving (Jamieson and Talwalkar, 2016) over the grid of candidate values: every
candidate plays a first round of games at each player count; candidates whose 95% intervals
show they cannot meet the target are dropped, the others are ranked by how far their estimates
are from the target and the better half plays twice as many games, until one candidate is left
whose 95% intervals lie inside the target (or that no longer meets it), or the cap is reached. A candidate's games are those of a lab sweep point (game ``i`` has the
seed ``game_seed(seed, i)``), played on any :class:`~biblios_kit.lab.backends.Backend` (in this
process or on Dask), and a later round only plays the games a candidate does not have yet.

Successive halving needs no model of the response and suits a small, discrete grid where each
evaluation is noisy; it is written here in a few lines on top of the lab's own statistics, so no
optimisation library is needed.

Targets (:class:`Target`):

* ``fair:TOL``: every seat's win rate within ``TOL`` of the fair share at every player count;
* ``METRIC=VALUE:TOL``: a rate or a mean of the report (``category_nobody.1``, ``shared``,
  ``decisions``...) within ``TOL`` of ``VALUE`` at every player count; ``METRIC>=VALUE`` / ``METRIC<=VALUE``: at
  least / at most ``VALUE`` (``category_nobody.3<=0.1``: the third category decided in at least
  90% of games).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from biblios_kit.errors import BibliosError
from biblios_kit.i18n import _, format_decimal, format_number, ngettext
from biblios_kit.lab.backends import Backend
from biblios_kit.lab.plan import MAIN, Cell, Experiment, GameRow, Job, RulesetRef
from biblios_kit.lab.stats import CellStats, cell_stats
from biblios_kit.sim.stats import Estimate


class TargetError(BibliosError, ValueError):
    """A ``--target`` or ``--set`` range that cannot be read (the message is translated)."""


@dataclass(frozen=True)
class Target:
    """What the tuned values must achieve at every player count."""

    kind: str
    """``"fair"``, ``"band"`` (within ``tolerance`` of ``value``), ``"at_least"`` or ``"at_most"``."""
    metric: str = ""
    value: float = 0.0
    tolerance: float = 0.0
    text: str = ""

    def bands(self, cell: CellStats) -> list[tuple[Estimate, float, float]]:
        """Each estimate the target constrains in ``cell``, with the band ``[low, high]`` it must lie in."""
        if self.kind == "fair":
            fair = 1 / cell.players
            return [
                (e, fair - self.tolerance, fair + self.tolerance)
                for key, e in cell.estimates.items()
                if key.startswith("seat_win.")
            ]
        e = cell.estimates.get(self.metric)
        if e is None:
            return []
        if self.kind == "at_least":
            return [(e, self.value, math.inf)]
        if self.kind == "at_most":
            return [(e, -math.inf, self.value)]
        return [(e, self.value - self.tolerance, self.value + self.tolerance)]

    def miss(self, cells: Sequence[CellStats]) -> tuple[float, float]:
        """How far the estimates are outside their bands (0 when met), and how far their 95% intervals are.

        The second figure is 0 unless even the interval lies wholly outside a band: then the
        candidate cannot meet the target at this precision.
        """
        point = interval = 0.0
        for cell in cells:
            for e, low, high in self.bands(cell):
                point = max(point, low - e.value, e.value - high)
                interval = max(interval, low - e.high, e.low - high)
        return max(0.0, point), max(0.0, interval)

    def closeness(self, cells: Sequence[CellStats]) -> float:
        """How far the estimates are from the middle of their bands (the tie-break among candidates that meet it)."""
        worst = 0.0
        for cell in cells:
            for e, low, high in self.bands(cell):
                middle = (low + high) / 2 if math.isfinite(low) and math.isfinite(high) else e.value
                worst = max(worst, abs(e.value - middle))
        return worst


_NUMBER = r"[0-9]+(?:\.[0-9]+)?"
_TARGET = re.compile(
    rf"^(?:fair:(?P<fair>{_NUMBER})|(?P<metric>[a-z_]+(?:\.[0-9]+)?)(?P<op>=|>=|<=)(?P<value>{_NUMBER})(?::(?P<tol>{_NUMBER}))?)$"
)


RATE_METRICS = frozenset({"shared", "tiebreak", "comeback"})
"""The rates of a cell a ``--target`` may name as they are."""
MEAN_METRICS = frozenset({"decisions", "auctions", "unsold", "margin", "lead_changes", "decided_at", "vp_mean"})
"""The means a ``--target`` may name (game length, tension...)."""
RATE_METRICS_BY_POSITION = frozenset({"seat_win", "category_nobody", "category_by_winner"})
"""The rates a ``--target`` names with a position (``seat_win.1``, ``category_nobody.3``)."""


def parse_target(text: str) -> Target:
    """Read a ``--target`` (see the module's docstring); raise :class:`TargetError` if it is malformed."""
    found = _TARGET.match(text.strip())
    if found is None:
        raise TargetError(
            _(
                "--target {text!r}: expected fair:TOLERANCE, METRIC=VALUE:TOLERANCE, METRIC>=VALUE or METRIC<=VALUE"
            ).format(text=text)
        )
    if found["fair"] is not None:
        tolerance = float(found["fair"])
        if not 0 < tolerance < 1:
            raise TargetError(_("--target {text!r}: the tolerance must be between 0 and 1").format(text=text))
        return Target("fair", tolerance=tolerance, text=text)
    metric, op, value = found["metric"], found["op"], float(found["value"])
    name, _dot, position = metric.partition(".")
    known = name in RATE_METRICS | MEAN_METRICS if not position else name in RATE_METRICS_BY_POSITION
    if not known:
        raise TargetError(
            _("--target {text!r}: {metric} is not a figure a target can name (for example {examples})").format(
                text=text, metric=metric, examples="category_nobody.1, shared, comeback, seat_win.1, decisions"
            )
        )
    if metric not in MEAN_METRICS and not 0 <= value <= 1:
        raise TargetError(_("--target {text!r}: a rate is between 0 and 1").format(text=text))
    if op == "=":
        if found["tol"] is None:
            raise TargetError(_("--target {text!r}: give the tolerance, METRIC=VALUE:TOLERANCE").format(text=text))
        return Target("band", metric, value, float(found["tol"]), text)
    return Target("at_least" if op == ">=" else "at_most", metric, value, 0.0, text)


def expand_range(text: str) -> str:
    """``FIELD=LOW..HIGH`` or ``FIELD=LOW..HIGH:STEP`` (whole numbers) as the ``FIELD=V1,V2,...`` of a sweep."""
    from biblios_kit.bounded import count_of

    name, sep, values = text.partition("=")
    found = re.fullmatch(r"([0-9]+)\.\.([0-9]+)(?::([0-9]+))?", values.strip())
    if not sep or found is None:
        return text
    low, high = count_of(found[1]), count_of(found[2])
    step = count_of(found[3]) if found[3] else 1
    if low is None or high is None or step is None or step < 1 or high < low:
        raise TargetError(_("--set {text}: a range is LOW..HIGH or LOW..HIGH:STEP, LOW at most HIGH").format(text=text))
    if (high - low) // step + 1 > 200:
        raise TargetError(_("--set {text}: at most 200 values").format(text=text))
    return f"{name}={','.join(str(v) for v in range(low, high + 1, step))}"


@dataclass
class Candidate:
    """One combination of the tuned values, its games and how far it is from the target."""

    label: str
    values: dict[str, str]
    ref: RulesetRef
    games: dict[int, dict[int, dict[str, Any]]] = field(default_factory=dict)
    """Per player count, game index -> the game's metrics."""
    cells: list[CellStats] = field(default_factory=list)
    miss: float = math.inf
    miss_interval: float = math.inf
    closeness: float = math.inf
    rounds: int = 0
    """Rounds this candidate played."""

    @property
    def meets(self) -> bool:
        """Whether its estimates meet the target."""
        return self.miss == 0

    @property
    def played(self) -> int:
        """Games played per player count."""
        return min((len(g) for g in self.games.values()), default=0)

    def confirmed(self, target: Target) -> bool:
        """Whether every constrained figure's 95% interval lies inside its band (met beyond the noise)."""
        return all(low <= e.low and e.high <= high for cell in self.cells for e, low, high in target.bands(cell))

    def rank(self) -> tuple[float, float, float]:
        """Sort key: those that meet the target first, the closest to its middle first."""
        return (self.miss, self.closeness, self.miss_interval)


@dataclass
class TuneResult:
    """What ``lab tune`` found."""

    target: Target
    candidates: list[Candidate]
    """Every candidate, best first."""
    rounds: list[tuple[int, int]]
    """Per round: (candidates played, games per player count each reached)."""
    games: int
    """Games played in all."""
    seconds: float

    @property
    def chosen(self) -> Candidate:
        """The best candidate."""
        return self.candidates[0]

    @property
    def runners_up(self) -> list[Candidate]:
        """The next best candidates (at most two)."""
        return self.candidates[1:3]


def tune(
    refs: Sequence[RulesetRef],
    values: Sequence[dict[str, str]],
    players: tuple[int, ...],
    bots: tuple[str, ...],
    target: Target,
    backend: Backend,
    seed: int = 0,
    first: int = 100,
    most: int = 3200,
    eta: int = 2,
    batch: int = 10,
    progress: Callable[[int, int], None] | None = None,
) -> TuneResult:
    """Successive halving over the candidates ``refs`` (their tuned ``values``): see the module's docstring.

    ``first`` games per player count in the first round, ``eta`` times more each round for the best
    ``1/eta`` of the candidates still in play, at most ``most`` games per player count.
    """
    began = time.perf_counter()
    experiment = Experiment(tuple(refs), players, bots, (MAIN,), games=most, seed=seed, batch=batch)
    candidates = [Candidate(ref.label, dict(v), ref) for ref, v in zip(refs, values)]
    alive = list(range(len(candidates)))
    rounds: list[tuple[int, int]] = []
    played = 0
    stop = min(first, most)
    while True:
        jobs: list[Job] = []
        for i in alive:
            for count in players:
                have = candidates[i].games.setdefault(count, {})
                start = len(have)
                if start < stop:
                    jobs.extend(experiment.jobs(Cell(i, count, MAIN), start, stop))
        for job, rows in backend.run(iter(jobs)):
            index, count = _cell_of(job.cell)
            store = candidates[index].games[count]
            for row in rows:
                store[row["index"]] = row["metrics"]
            played += len(rows)
            if progress is not None:
                progress(played, 0)
        for i in alive:
            _score(candidates[i], target)
            candidates[i].rounds += 1
        rounds.append((len(alive), stop))
        possible = [i for i in alive if candidates[i].miss_interval == 0]
        alive = sorted(possible or alive, key=lambda i: candidates[i].rank())
        if stop >= most:
            break
        if len(alive) == 1:  # the last one plays on until its intervals confirm it (or it stops meeting the target)
            last = candidates[alive[0]]
            if not last.meets or last.confirmed(target):
                break
        alive = alive[: max(1, math.ceil(len(alive) / eta))]
        stop = min(most, stop * eta)
    ranked = sorted(candidates, key=lambda c: (-c.rounds, *c.rank()))
    return TuneResult(target, ranked, rounds, played, time.perf_counter() - began)


def _cell_of(key: str) -> tuple[int, int]:
    ruleset, players, _arm = key.split("|", 2)
    return int(ruleset), int(players)


def _score(candidate: Candidate, target: Target) -> None:
    cells = []
    for count, games in sorted(candidate.games.items()):
        ordered: list[GameRow] = [games[i] for i in range(len(games))]
        cells.append(cell_stats(f"{candidate.label}|{count}", 0, candidate.label, count, "main", "main", ordered))
    candidate.cells = cells
    candidate.miss, candidate.miss_interval = target.miss(cells)
    candidate.closeness = target.closeness(cells)


def _estimate_text(e: Estimate, key: str) -> str:
    from biblios_kit.lab.report import format_estimate

    return format_estimate(e)


def candidate_lines(candidate: Candidate, target: Target, rulesets: Any = None) -> list[str]:
    """The figures a target constrains for one candidate, per player count, with their 95% intervals."""
    from biblios_kit.lab.names import metric_label

    lines = []
    for cell in candidate.cells:
        parts = [f"{metric_label(e.key, rulesets)} {_estimate_text(e, e.key)}" for e, _low, _high in target.bands(cell)]
        lines.append(
            _("{players} players ({games} games): {figures}").format(
                players=cell.players, games=format_number(cell.games), figures="; ".join(parts)
            )
        )
    return lines


def result_lines(result: TuneResult) -> list[str]:
    """``lab tune``'s report as lines of text in the active language."""
    chosen = result.chosen
    shown = ", ".join(f"{field}={value}" for field, value in chosen.values.items())
    ruleset = chosen.ref.build()
    lines = [
        (
            _("Chosen: {values}, which meets the target {target}.")
            if chosen.meets
            else _("Chosen: {values}, the closest to the target {target}, which no candidate met.")
        ).format(values=shown, target=result.target.text),
        *("  " + line for line in candidate_lines(chosen, result.target, ruleset)),
    ]
    if chosen.meets and not chosen.confirmed(result.target):
        lines.append(
            "  " + _("Its 95% intervals are wider than the target: play more games (--max-games) to confirm it.")
        )
    for runner in result.runners_up:
        values = ", ".join(f"{field}={value}" for field, value in runner.values.items())
        lines.append(
            (_("Runner-up: {values} (meets the target)") if runner.meets else _("Runner-up: {values}")).format(
                values=values
            )
        )
        lines.extend("  " + line for line in candidate_lines(runner, result.target, ruleset))
    rounds = "; ".join(
        ngettext("{candidates} candidate to {games} games", "{candidates} candidates to {games} games", n).format(
            candidates=n, games=format_number(games)
        )
        for n, games in result.rounds
    )
    lines.append(
        _("Successive halving: {rounds}. Games played: {games}; time: {minutes} min.").format(
            rounds=rounds, games=format_number(result.games), minutes=format_decimal(result.seconds / 60, 1)
        )
    )
    return lines


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def result_json(result: TuneResult) -> dict[str, Any]:
    """``lab tune``'s report as JSON data (described in ``docs/lab.md``)."""

    def entry(candidate: Candidate) -> dict[str, Any]:
        return {
            "values": candidate.values,
            "meets": candidate.meets,
            "confirmed": candidate.confirmed(result.target),
            "miss": candidate.miss,
            "games_per_player_count": candidate.played,
            "figures": {
                str(cell.players): {
                    e.key: {"value": e.value, "ci95": [e.low, e.high], "band": [_finite(low), _finite(high)]}
                    for e, low, high in result.target.bands(cell)
                }
                for cell in candidate.cells
            },
        }

    return {
        "target": result.target.text,
        "chosen": entry(result.chosen),
        "runners_up": [entry(c) for c in result.runners_up],
        "rounds": [{"candidates": n, "games": g} for n, g in result.rounds],
        "games": result.games,
        "seconds": result.seconds,
    }
