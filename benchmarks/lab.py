"""Lab throughput: its cost against ``simulate`` with the same bots, then an in-process loop against local Dask clusters.

Usage (from the repository root)::

    .venv/bin/python benchmarks/lab.py                        # 400 four-player games of medium bots
    .venv/bin/python benchmarks/lab.py --games 200 --bots easy --players 3
    valgrind --tool=cachegrind --cache-sim=no .venv/bin/python benchmarks/lab.py --side lab --games 30

First, the lab's own cost: CPU time per game of the lab's work unit (``run_job``: each game
played by ``simulate``'s game loop and measured as it is played) against ``simulate``'s
(``_play_range`` in this process: each game played and summarised), on the same games with the
same bots and the same Ruleset object, interleaved job by job (the least CPU time per game of
each side over three rounds is kept: the machine may be shared). Then every backend plays the
same experiment (biblios, one cell, ``--games`` games in tasks of ``--batch``), once untimed to
warm up, then timed. The in-process figure is the lab's own loop (``InProcessBackend``: each
game played and measured); the Dask figures include the cluster's scheduling and
pickling but not its start-up (timed separately). It prints games/s per backend, the
speed-up of 2 workers over 1, and the overhead of 1 worker against the in-process loop,
by wall time and by CPU time summed over every process (this process, the scheduler in it,
and the workers: a fairer figure on a machine shared with other work), then checks that
every backend gave identical figures.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from biblios_kit.lab.backends import Backend, DaskBackend, InProcessBackend
from biblios_kit.lab.plan import Experiment, RulesetRef, run_job
from biblios_kit.lab.runner import LabReport, run_experiment
from biblios_kit.rules import load_ruleset


def _cpu(backend: Backend) -> float:
    """CPU seconds used so far by this process and, on Dask, by every worker process."""
    used = time.process_time()
    if isinstance(backend, DaskBackend):
        used += sum(backend.client.run(time.process_time).values())
    return used


def _run(experiment: Experiment, backend: Backend, folder: Path, name: str) -> tuple[LabReport, float, float]:
    """Run ``experiment``; return its report, the wall seconds and the CPU seconds (all processes) it took."""
    cpu = _cpu(backend)
    began = time.perf_counter()
    report = run_experiment(experiment, backend, folder / f"{name}.jsonl")
    return report, time.perf_counter() - began, _cpu(backend) - cpu


def lab_overhead(experiment: Experiment, ruleset: str, rounds: int = 3) -> tuple[float, float]:
    """CPU seconds per game of the lab's jobs and of ``simulate``'s own loop on the same games.

    The two are interleaved job by job (``simulate`` plays a job's games, then the lab plays them),
    so that a machine shared with other work slows both alike; each side keeps its least total
    over ``rounds``.
    """
    from biblios_kit.sim.model import SimConfig
    from biblios_kit.sim.runner import _play_range  # simulate's loop: play and summarise games start..stop-1

    (players,) = experiment.players
    cell = experiment.cells()[0]
    config = SimConfig(ruleset, players, experiment.games, seed=experiment.seed, bots=experiment.bots * players)
    # The Ruleset object the lab's jobs play (RulesetRef.build), for simulate too: the engine caches its
    # compiled tables per content hash and checks an equal but distinct Ruleset object by deep
    # comparison (66 us a call, twice a game), which a run of either command, with one object per
    # ruleset, never pays. Two objects here made whichever side came second look 2-4% slower.
    rules = experiment.rulesets[0].build()
    lab = simulate = float("inf")
    for _round in range(rounds):
        lab_total = simulate_total = 0.0
        for job in experiment.jobs(cell, 0, experiment.games):
            began = time.process_time()
            _play_range(config, rules, job.start, job.stop)
            simulate_total += time.process_time() - began
            began = time.process_time()
            run_job(job)
            lab_total += time.process_time() - began
        lab = min(lab, lab_total / experiment.games)
        simulate = min(simulate, simulate_total / experiment.games)
    return lab, simulate


def one_side(experiment: Experiment, ruleset: str, side: str) -> None:
    """Play the experiment's games on one side only (``sim`` or ``lab``), after one untimed game of each.

    For counting instructions, which a shared machine does not disturb: run it under
    ``valgrind --tool=cachegrind --cache-sim=no`` with two numbers of games (10 and 30, say), for
    each side; the difference of the totals over the difference of games is one game's count
    (with ``PYTHONHASHSEED=0``, and the compiled build: ``biblios-kit --version`` says which runs).
    """
    from biblios_kit.sim.model import SimConfig
    from biblios_kit.sim.runner import _play_range

    (players,) = experiment.players
    cell = experiment.cells()[0]
    config = SimConfig(ruleset, players, experiment.games, seed=experiment.seed, bots=experiment.bots * players)
    rules = experiment.rulesets[0].build()
    warm = experiment.games + 1000  # a game of neither run: imports and caches
    _play_range(config, rules, warm, warm + 1)
    for job in experiment.jobs(cell, warm, warm + 1):
        run_job(job)
    for job in experiment.jobs(cell, 0, experiment.games):
        if side == "sim":
            _play_range(config, rules, job.start, job.stop)
        else:
            run_job(job)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--bots", default="medium")
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument("--ruleset", default="biblios")
    parser.add_argument("--overhead-only", action="store_true", help="only the lab's cost against simulate")
    parser.add_argument("--side", choices=("sim", "lab"), help="only play the games of one side (for cachegrind)")
    args = parser.parse_args()

    ref = RulesetRef.of(load_ruleset(args.ruleset))
    experiment = Experiment((ref,), (args.players,), (args.bots,), games=args.games, batch=args.batch, seed=1)
    if args.side:
        one_side(experiment, args.ruleset, args.side)
        return
    print(f"{args.games} games, {args.players} players, {args.bots} bots, {args.batch} games per task")
    lab, simulate = lab_overhead(experiment, args.ruleset)
    print(
        f"  lab against simulate  {1000 * lab:.2f} ms against {1000 * simulate:.2f} ms CPU per game: "
        f"{100 * (lab / simulate - 1):+.1f}% (load average {os.getloadavg()[0]:.2f})"
    )
    if args.overhead_only:
        return
    figures: dict[str, float] = {}
    cpu_per_game: dict[str, float] = {}
    reports: dict[str, LabReport] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _run(experiment, InProcessBackend(), folder, "warm")  # imports, ruleset compilation, caches
        reports["in-process"], seconds, cpu = _run(experiment, InProcessBackend(), folder, "in-process")
        figures["in-process"] = args.games / seconds
        cpu_per_game["in-process"] = cpu / args.games
        print(
            f"  in-process loop      {figures['in-process']:7.1f} games/s ({seconds:.1f} s; "
            f"{1000 * cpu / args.games:.1f} ms CPU per game)"
        )
        for workers in (1, 2):
            began = time.perf_counter()
            backend = DaskBackend(workers=workers)
            start_up = time.perf_counter() - began
            try:
                _run(experiment, backend, folder, f"warm-{workers}")  # workers import and compile once
                name = f"dask-{workers}"
                reports[name], seconds, cpu = _run(experiment, backend, folder, name)
            finally:
                backend.close()
            figures[name] = args.games / seconds
            cpu_per_game[name] = cpu / args.games
            print(
                f"  Dask, {workers} worker{'s' if workers > 1 else ' '}      {figures[name]:7.1f} games/s "
                f"({seconds:.1f} s; {1000 * cpu / args.games:.1f} ms CPU per game; cluster start-up {start_up:.1f} s)"
            )
    print(f"  2 workers / 1 worker: {figures['dask-2'] / figures['dask-1']:.2f}x")
    overhead = 1 - figures["dask-1"] / figures["in-process"]
    print(f"  overhead of 1 Dask worker against the in-process loop: {100 * overhead:.1f}% (wall time)")
    overhead = cpu_per_game["dask-1"] / cpu_per_game["in-process"] - 1
    print(f"  overhead of 1 Dask worker against the in-process loop: {100 * overhead:.1f}% (CPU time, all processes)")
    first = [c.to_json() for c in reports["in-process"].cells]
    same = all([c.to_json() for c in r.cells] == first for r in reports.values())
    print(f"  identical figures on every backend: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
