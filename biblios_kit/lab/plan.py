"""An experiment's plan: the rulesets compared, the cells (ruleset x player count x arm), and each game's seed and seats.

Every cell plays game ``i`` with the game seed ``game_seed(seed, i)`` of :mod:`biblios_kit.sim.runner`,
whatever the ruleset, so rulesets are compared on the same deals and bot seeds. Work is cut into
:class:`Job` s (a run of consecutive games of one cell); :func:`run_job` plays one and is the unit a
backend ships to a worker: it takes only plain data (the ruleset as its merged document), so a
worker on another machine needs the package and nothing else.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from biblios_kit.lab.metrics import GameMetrics, play_and_measure
from biblios_kit.rules.model import Ruleset
from biblios_kit.sim.runner import play_batch, seat_assignments


def _plain(value: Any) -> Any:
    """``value`` with read-only mappings and tuples turned into dicts and lists (JSON and pickle friendly)."""
    if isinstance(value, Mapping | MappingProxyType):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


@dataclass(frozen=True)
class RulesetRef:
    """A ruleset as plain data: what a worker rebuilds the :class:`Ruleset` from."""

    label: str
    """How reports name it (the id, or the id and the swept values)."""
    document: dict[str, Any] = field(repr=False, compare=False)
    """The merged, validated document with options applied (``Ruleset.document``)."""
    active_options: tuple[str, ...]
    source: str
    extends: tuple[str, ...]
    content_hash: str

    @classmethod
    def of(cls, ruleset: Ruleset, label: str | None = None) -> RulesetRef:
        """The reference of a loaded ruleset (named ``label``, else its id and options)."""
        if label is None:
            label = "+".join([ruleset.id, *sorted(ruleset.active_options)])
        return cls(
            label=label,
            document=_plain(ruleset.document),
            active_options=tuple(sorted(ruleset.active_options)),
            source=ruleset.source,
            extends=tuple(ruleset.extends),
            content_hash=ruleset.content_hash,
        )

    def build(self) -> Ruleset:
        """The :class:`Ruleset` (built once per process and content hash)."""
        cached = _BUILT.get(self.content_hash)
        if cached is None:
            from biblios_kit.rules.build import build_ruleset

            cached = build_ruleset(
                self.document, active_options=self.active_options, source=self.source, extends=self.extends
            )
            _BUILT[self.content_hash] = cached
        return cached


_BUILT: dict[str, Ruleset] = {}
"""Rulesets rebuilt in this process, by content hash."""


@dataclass(frozen=True)
class Arm:
    """How seats are filled in a cell.

    * ``main``: the experiment's bots (every distinct seat assignment in turn when they differ);
    * ``skill``: seat ``i mod players`` plays ``strong``, the others ``weak``;
    * ``restrict``: seat ``i mod players`` plays the experiment's bot with ``restriction``, the others unrestricted.
    """

    kind: str
    """``"main"``, ``"skill"`` or ``"restrict"``."""
    restriction: str = ""
    strong: str = ""
    weak: str = ""

    @property
    def name(self) -> str:
        """The arm's short name in reports and results files."""
        if self.kind == "restrict":
            return f"restrict:{self.restriction}"
        if self.kind == "skill":
            return f"skill:{self.strong}>{self.weak}"
        return "main"


MAIN = Arm("main")


def seats_for(arm: Arm, bots: tuple[str, ...], players: int, index: int) -> tuple[tuple[str, ...], int]:
    """The bot spec of every seat in game ``index`` of a cell, and the focus seat (-1 for ``main``)."""
    if arm.kind == "skill":
        focus = index % players
        return tuple(arm.strong if seat == focus else arm.weak for seat in range(players)), focus
    if arm.kind == "restrict":
        return (bots[0],) * players, index % players
    full = bots * players if len(bots) == 1 else bots
    assignments = seat_assignments(full, len(set(full)) > 1)
    return assignments[index % len(assignments)], -1


@dataclass(frozen=True)
class Cell:
    """One ruleset at one player count in one arm: the unit every statistic is computed over."""

    ruleset: int
    """Index into the experiment's rulesets (0 is the baseline)."""
    players: int
    arm: Arm

    @property
    def key(self) -> str:
        """The cell's name in results files: ``ruleset index|players|arm``."""
        return f"{self.ruleset}|{self.players}|{self.arm.name}"


@dataclass(frozen=True)
class Job:
    """Games ``start .. stop - 1`` of one cell: what one worker task plays."""

    ref: RulesetRef
    cell: str
    players: int
    arm: Arm
    bots: tuple[str, ...]
    seed: int
    start: int
    stop: int


GameRow = dict[str, Any]
"""One results-file line: ``cell``, ``index``, ``seed``, ``seats`` and the game's ``metrics``."""


def run_job(job: Job) -> list[GameRow]:
    """Play every game of ``job`` and return one row per game, in game order (a pure function of ``job``).

    The games go through ``simulate``'s batch loop (:func:`~biblios_kit.sim.runner.play_batch`): game
    ``i`` has the seed ``game_seed(job.seed, i)``.
    """
    ruleset = job.ref.build()
    restriction = job.arm.restriction if job.arm.kind == "restrict" else ""

    def play(index: int, seed: int) -> GameRow:
        seats, focus = seats_for(job.arm, job.bots, job.players, index)
        metrics: GameMetrics = play_and_measure(ruleset, job.players, seed, seats, focus, restriction)
        return {"cell": job.cell, "index": index, "seed": seed, "seats": list(seats), "metrics": metrics}

    return play_batch(job.seed, job.start, job.stop, play)


MAX_GAMES = 1_000_000
"""The most games a cell may play (``--games``, ``--max-games``): every game's metrics stay in memory for the report."""


@dataclass(frozen=True)
class Experiment:
    """Everything that determines an experiment's games and figures."""

    rulesets: tuple[RulesetRef, ...]
    """The baseline first."""
    players: tuple[int, ...]
    bots: tuple[str, ...]
    arms: tuple[Arm, ...] = (MAIN,)
    games: int = 100
    """Games per cell (with ``precision``, the cap)."""
    seed: int = 0
    precision: float | None = None
    """Play rounds of ``round_size`` games until every rate's 95% interval is at most this wide."""
    round_size: int = 200
    batch: int = 10
    """Games per job."""

    def cells(self) -> list[Cell]:
        """Every cell, rulesets outermost, then player counts, then arms."""
        return [Cell(r, p, arm) for r in range(len(self.rulesets)) for p in self.players for arm in self.arms]

    def jobs(self, cell: Cell, start: int, stop: int) -> Iterator[Job]:
        """The jobs that play games ``start .. stop - 1`` of ``cell``, ``batch`` games each, made one at a time."""
        ref = self.rulesets[cell.ruleset]
        for s in range(start, stop, self.batch):
            yield Job(ref, cell.key, cell.players, cell.arm, self.bots, self.seed, s, min(stop, s + self.batch))

    def describe(self) -> dict[str, Any]:
        """The experiment as JSON data (what its fingerprint is computed from)."""
        return {
            "rulesets": [{"label": r.label, "content_hash": r.content_hash} for r in self.rulesets],
            "players": list(self.players),
            "bots": list(self.bots),
            "arms": [arm.name for arm in self.arms],
            "games": self.games,
            "seed": self.seed,
            "precision": self.precision,
            "round_size": self.round_size,
        }

    def fingerprint(self) -> str:
        """A hash of :meth:`describe`: a results file belongs to the experiment with the same fingerprint."""
        text = json.dumps(self.describe(), sort_keys=True)
        return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()
