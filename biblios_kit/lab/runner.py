"""Run an experiment on a backend: skip the games already in the results file, stream the new ones to it, compute the figures.

With a fixed number of games, every cell plays games ``0 .. games - 1``. With a precision, cells
play rounds of ``round_size`` games; after each round a cell stops once the widest 95% interval
among its rates is at most the precision, or at the cap (``games``). Which games a cell plays
depends only on the results of its earlier games, so an interrupted run resumed from its results
file, or a run on another backend, ends with the same games and the same figures.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biblios_kit.lab.backends import Backend
from biblios_kit.lab.plan import Cell, Experiment, GameRow, Job
from biblios_kit.lab.results import ResultsWriter, check_writable, read_results
from biblios_kit.lab.stats import CellStats, add_differences, cell_stats

Progress = Callable[[int, int], None]
"""Called with (games finished, games planned so far) as jobs finish."""


@dataclass
class LabReport:
    """An experiment's figures: one :class:`~biblios_kit.lab.stats.CellStats` per cell, and how the run went."""

    experiment: Experiment
    cells: list[CellStats]
    played: int
    """Games played by this run (not counting those resumed from the results file)."""
    resumed: int
    """Games taken from the results file."""
    seconds: float
    workers: int
    results_file: str
    sweep: list[dict[str, Any]] = field(default_factory=list)
    """For a sweep: per ruleset (in order), the swept fields and their values."""
    skipped: list[str] = field(default_factory=list)
    """Sweep values skipped because they are invalid, with their located errors."""
    games: dict[str, list[dict[str, Any]]] = field(default_factory=dict, repr=False)
    """Each cell's per-game metrics, in game order (for plots)."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (described in ``docs/lab.md``)."""
        return {
            "experiment": self.experiment.describe(),
            "fingerprint": self.experiment.fingerprint(),
            "results_file": self.results_file,
            "played": self.played,
            "resumed": self.resumed,
            "seconds": self.seconds,
            "workers": self.workers,
            "sweep": self.sweep,
            "skipped": self.skipped,
            "cells": [cell.to_json() for cell in self.cells],
        }


class _Run:
    """The state of one run: games known per cell, the results file, progress."""

    def __init__(
        self, experiment: Experiment, backend: Backend, path: Path, resume: bool, progress: Progress | None
    ) -> None:
        self.experiment = experiment
        self.backend = backend
        self.progress = progress
        check_writable(path)  # before reading: a symbolic link or a FIFO is refused at once
        known = read_results(path, experiment) if resume else {}
        self.rows: dict[str, dict[int, GameRow]] = {cell.key: {} for cell in experiment.cells()}
        for (cell, index), row in known.items():
            if cell in self.rows:
                self.rows[cell][index] = row
        self.writer = ResultsWriter(path, experiment, resume)
        self.played = 0
        """Games played and written by this run."""
        self.finished = 0
        """Games of the jobs finished so far (for progress)."""
        self.planned = 0

    def _missing(self, cells: list[Cell], start: int, stop: int) -> Iterator[Job]:
        """The jobs with a game of ``start .. stop - 1`` not known yet, made as the backend asks for them."""
        for cell in cells:
            have = self.rows[cell.key]
            for job in self.experiment.jobs(cell, start, stop):
                if any(index not in have for index in range(job.start, job.stop)):
                    yield job  # a job is written whole, so only an interrupted write leaves it partial

    def play(self, cells: list[Cell], start: int, stop: int) -> None:
        """Make sure games ``start .. stop - 1`` of ``cells`` are known: play the missing ones.

        Jobs are planned lazily (the backend takes them as it has room), so a large
        experiment starts at once and holds only the jobs in flight.
        """
        for cell in cells:
            have = self.rows[cell.key]
            self.planned += stop - start - sum(1 for index in have if start <= index < stop)
        if self.progress:
            self.progress(self.finished, self.planned)
        for job, rows in self.backend.run(self._missing(cells, start, stop)):
            have = self.rows[job.cell]
            new = [row for row in rows if row["index"] not in have]
            self.writer.write(new)
            for row in new:
                have[row["index"]] = row
            self.played += len(new)
            self.finished += len(new)
            if self.progress:
                self.progress(self.finished, self.planned)

    def games(self, cell: Cell, stop: int) -> list[dict[str, Any]]:
        """The metrics of games ``0 .. stop - 1`` of ``cell``, in game order."""
        have = self.rows[cell.key]
        return [have[index]["metrics"] for index in range(stop)]


def _stats(experiment: Experiment, cell: Cell, games: list[dict[str, Any]]) -> CellStats:
    ref = experiment.rulesets[cell.ruleset]
    return cell_stats(cell.key, cell.ruleset, ref.label, cell.players, cell.arm.kind, cell.arm.name, games)


def run_experiment(
    experiment: Experiment,
    backend: Backend,
    results: Path,
    resume: bool = False,
    progress: Progress | None = None,
) -> LabReport:
    """Play ``experiment`` on ``backend``, streaming games to ``results``, and return its :class:`LabReport`.

    With ``resume``, games already in ``results`` are not played again (the file must belong to
    the same experiment and be sound, else :class:`~biblios_kit.lab.results.ResultsFileError`).
    Finished games are in ``results`` whatever ends the run (Ctrl-C, an error, a backend
    whose workers are gone), so ``resume`` continues it.
    """
    began = time.perf_counter()
    run = _Run(experiment, backend, results, resume, progress)
    cells = experiment.cells()
    stops: dict[str, int] = {}
    try:
        if experiment.precision is None:
            run.play(cells, 0, experiment.games)
            stops = {cell.key: experiment.games for cell in cells}
        else:
            active = list(cells)
            done = 0
            while active:
                stop = min(experiment.games, done + experiment.round_size)
                run.play(active, done, stop)
                still = []
                for cell in active:
                    stops[cell.key] = stop
                    widest = _stats(experiment, cell, run.games(cell, stop)).widest_rate
                    if widest > experiment.precision and stop < experiment.games:
                        still.append(cell)
                active, done = still, stop
    finally:
        run.writer.close()
    all_games = {cell.key: run.games(cell, stops[cell.key]) for cell in cells}
    stats = [_stats(experiment, cell, all_games[cell.key]) for cell in cells]
    add_differences(stats, all_games, {cell.arm.name: cell.arm.kind for cell in cells})
    return LabReport(
        experiment=experiment,
        cells=stats,
        played=run.played,
        resumed=sum(map(len, all_games.values())) - run.played,
        seconds=time.perf_counter() - began,
        workers=backend.workers,
        results_file=str(results),
        games=all_games,
    )
