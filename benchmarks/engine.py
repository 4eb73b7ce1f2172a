"""Engine benchmark: the kernel's paths compiled and interpreted, per-edition throughput, perft, memory, workers.

Run ``python benchmarks/engine.py`` (``make bench``); ``--json`` prints the figures as JSON.
The kernel section measures random four-player Biblios games through the three ways in:
``apply()`` (checked), the search API (``step()``, unchecked) and the simulation path
(``playout()`` without a log), plus clone + playout to the end from decision points (what a
search bot pays per playout) and perft nodes per second; it runs in this process (the
compiled kernel, where ``make`` built it) and again in a child process with
``BIBLIOS_KIT_PURE=1`` (the same source, interpreted), side by side. ``--workers`` adds the
``simulate --workers`` comparison and this machine's two-process ceiling (slow).
Each single-core figure is the best of ``--repeat`` short batches of ``--games`` games: on a
shared machine the fastest batch is the one least disturbed by other processes, so many
short batches estimate the undisturbed speed better than one long run. The worker figure
compares the wall time of ``simulate`` with 1 and 2 worker processes, alternating them and
keeping each one's best run (the host of this virtual machine changes speed from time to
time, so a single pair of runs can straddle a change); it needs two idle cores, so the load
average is printed with it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from biblios_kit import _kernel
from biblios_kit.engine import new_game
from biblios_kit.engine.perft import perft, position
from biblios_kit.rules import load_ruleset
from biblios_kit.sim import SimConfig, run_simulation

PERFT_FILE = Path(__file__).resolve().parent.parent / "tests" / "data" / "perft.txt"

EDITIONS = ("biblios", "scripts-and-scribes")


def best_of(repeat: int, run: Callable[[], int]) -> tuple[float, int, float]:
    """Run ``run`` ``repeat`` times; return the shortest wall time, its count, and the shortest CPU time.

    On a machine shared with other jobs the CPU time (``time.process_time``) of this process
    is the steadier figure: waiting for a core does not count, only running on it.
    """
    best, count, best_cpu = float("inf"), 0, float("inf")
    for _ in range(repeat):
        began, began_cpu = time.perf_counter(), time.process_time()
        count = run()
        best = min(best, time.perf_counter() - began)
        best_cpu = min(best_cpu, time.process_time() - began_cpu)
    return best, count, best_cpu


def random_games(ruleset_name: str, players: int, games: int, repeat: int) -> dict[str, float]:
    """Random games with the engine's playout fast path (uniform over legal actions).

    Measured with the event log (as the TUI and bots play) and without it (as ``simulate``
    plays random bots, ``new_game(..., events=False)``).
    """
    ruleset = load_ruleset(ruleset_name)
    figures: dict[str, float] = {}
    for label, events in (("", True), ("no_events_", False)):

        def run(events: bool = events) -> int:
            decisions = 0
            for i in range(games):
                state = new_game(ruleset, players, i, events=events)
                state.playout(random.Random(i))
                decisions += len(state.history)
            return decisions

        seconds, decisions, cpu = best_of(repeat, run)
        figures[label + "games_per_sec"] = games / seconds
        figures[label + "games_per_cpu_sec"] = games / cpu
        figures[label + "decisions_per_sec"] = decisions / seconds
        figures["decisions_per_game"] = decisions / games
    return figures


def api_games(ruleset_name: str, players: int, games: int, repeat: int) -> dict[str, float]:
    """Random games through the public API only: legal_actions(), then apply() (checked)."""
    ruleset = load_ruleset(ruleset_name)

    def run() -> int:
        decisions = 0
        for i in range(games):
            state = new_game(ruleset, players, i)
            rng = random.Random(i)
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply(legal[int(rng.random() * len(legal))])
            decisions += len(state.history)
        return decisions

    seconds, decisions, cpu = best_of(repeat, run)
    return {
        "games_per_sec": games / seconds,
        "games_per_cpu_sec": games / cpu,
        "decisions_per_sec": decisions / seconds,
    }


def clone_playouts(ruleset_name: str, players: int, playouts: int, repeat: int) -> dict[str, float]:
    """Clone a mid-game state (without its log) and play it out at random, as a search bot does."""
    ruleset = load_ruleset(ruleset_name)
    root = new_game(ruleset, players, 1)
    rng = random.Random(1)
    for _ in range(150):
        root.apply(root.random_action(rng))

    def run() -> int:
        for i in range(playouts):
            rng = random.Random(i)
            root.clone(events=False, rng=rng).playout(rng)
        return playouts

    seconds, _, cpu = best_of(repeat, run)
    began = time.perf_counter()
    for _ in range(1000):
        root.clone()
    clone_us = (time.perf_counter() - began) * 1000
    began = time.perf_counter()
    for i in range(50):
        root.resample(1, random.Random(i))
    resample_ms = (time.perf_counter() - began) * 20
    began = time.perf_counter()
    for _ in range(50):
        root.observation(1)
    observation_ms = (time.perf_counter() - began) * 20
    return {
        "playouts_per_sec": playouts / seconds,
        "playouts_per_cpu_sec": playouts / cpu,
        "clone_us": clone_us,
        "resample_ms": resample_ms,
        "observation_ms": observation_ms,
    }


def kernel_paths(games: int, repeat: int) -> dict[str, float]:
    """Random four-player Biblios games through apply(), the search API and the simulation path; clone+playout; perft."""
    ruleset = load_ruleset("biblios")

    def games_via(kind: str) -> Callable[[], int]:
        def run() -> int:
            decisions = 0
            for i in range(games):
                rng = random.Random(i)
                state = new_game(ruleset, 4, i, events=kind != "simulation")
                if kind == "simulation":
                    state.playout(rng)
                elif kind == "search":
                    while not state.is_terminal():
                        state.step(state.random_action(rng))
                else:
                    while not state.is_terminal():
                        state.apply(state.random_action(rng))
                decisions += state.decision_count
            return decisions

        return run

    figures: dict[str, float] = {}
    for kind in ("apply", "search", "simulation"):
        seconds, _decisions, cpu = best_of(repeat, games_via(kind))
        figures[f"{kind}_games_per_sec"] = games / seconds
        figures[f"{kind}_games_per_cpu_sec"] = games / cpu
    # clone + playout to the end from every 10th decision of a game, as a search bot's playouts start
    game = new_game(ruleset, 4, 7)
    rng = random.Random(7)
    roots = []
    while not game.is_terminal():
        if game.decision_count % 10 == 0:
            roots.append(game.clone())
        game.apply(game.random_action(rng))

    def playouts() -> int:
        for i, root in enumerate(roots):
            playout_rng = random.Random(i)
            root.clone(events=False, rng=playout_rng).playout(playout_rng)
        return len(roots)

    seconds, count, cpu = best_of(repeat, playouts)
    figures["clone_playout_us"] = seconds / count * 1e6
    figures["clone_playout_cpu_us"] = cpu / count * 1e6
    # perft over the positions of tests/data/perft.txt
    positions = []
    for line in PERFT_FILE.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            spec, players, seed, phase, occurrence, depth, _count = line.split()
            ruleset_id, *options = spec.split("+")
            state = new_game(load_ruleset(ruleset_id, options), int(players), int(seed))
            positions.append((position(state, int(seed), phase, int(occurrence)), int(depth)))
    seconds, nodes, cpu = best_of(max(1, repeat // 5), lambda: sum(perft(state, depth) for state, depth in positions))
    figures["perft_nodes_per_sec"] = nodes / seconds
    figures["perft_nodes_per_cpu_sec"] = nodes / cpu
    return figures


def both_builds(games: int, repeat: int) -> dict[str, dict[str, float]]:
    """:func:`kernel_paths` here and, in a child process with ``BIBLIOS_KIT_PURE=1``, interpreted."""
    here = {"build": _kernel.status(), **kernel_paths(games, repeat)}
    child = subprocess.run(
        [sys.executable, __file__, "--kernel-only", "--json", "--games", str(games), "--repeat", str(repeat)],
        env=dict(os.environ, **{_kernel.PURE_VARIABLE: "1"}),
        capture_output=True,
        text=True,
        check=True,
    )
    return {"this": here, "interpreted": json.loads(child.stdout)["kernel"]["this"]}


def memory(ruleset_name: str, players: int) -> dict[str, float]:
    """Peak Python allocation while playing one game, and one finished state's retained size."""
    ruleset = load_ruleset(ruleset_name)
    new_game(ruleset, players, 2).playout(random.Random(2))  # the rules' one-off tables and memos, not counted
    tracemalloc.start()
    state = new_game(ruleset, players, 3)
    state.playout(random.Random(3))
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"game_peak_kib": peak / 1024, "finished_state_kib": current / 1024}


def workers_scaling(games: int, repeat: int) -> dict[str, float]:
    """``simulate`` with 1 and 2 worker processes (4 players, biblios): wall-time throughput and CPU cost.

    The two are run in ``repeat`` pairs, one right after the other. Reported: each one's best
    run and the speedup between those; the median of the pairs' speedups; and the median over
    the pairs whose two runs spent about the same CPU time per game (within 10%), that is,
    pairs the machine ran at one speed throughout. With 2 workers this process plays next to
    one worker process, so the CPU time per game with 2 (this process and its worker) against
    1 shows what the split costs: equal figures mean two idle cores give about 2x.
    """
    out: dict[str, float] = {}
    pairs: list[tuple[float, float]] = []  # (speedup, CPU per game with 2 over CPU per game with 1)
    for _ in range(repeat):
        pair = []
        for workers in (1, 2):
            before_self = resource.getrusage(resource.RUSAGE_SELF)
            before_children = resource.getrusage(resource.RUSAGE_CHILDREN)
            stats = run_simulation(SimConfig("biblios", 4, games, seed=1, workers=workers))
            after_self = resource.getrusage(resource.RUSAGE_SELF)
            after_children = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after_self.ru_utime - before_self.ru_utime) + (after_children.ru_utime - before_children.ru_utime)
            rate, cpu_ms = f"workers_{workers}_games_per_sec", f"workers_{workers}_cpu_ms_per_game"
            out[rate] = max(out.get(rate, 0.0), stats.games_per_sec)
            out[cpu_ms] = min(out.get(cpu_ms, float("inf")), cpu / games * 1000)
            pair.append((stats.games_per_sec, cpu / games))
        pairs.append((pair[1][0] / pair[0][0], pair[1][1] / pair[0][1]))
    out["speedup"] = out["workers_2_games_per_sec"] / out["workers_1_games_per_sec"]
    out["cpu_ratio"] = out["workers_2_cpu_ms_per_game"] / out["workers_1_cpu_ms_per_game"]
    out["pairs"] = len(pairs)
    out["median_pair_speedup"] = statistics.median(speedup for speedup, _ in pairs)
    steady = [speedup for speedup, ratio in pairs if abs(ratio - 1) <= 0.1]
    out["steady_pairs"] = len(steady)
    out["median_steady_speedup"] = statistics.median(steady) if steady else float("nan")
    return out


def _spin() -> float:
    """CPU seconds of a fixed pure-Python loop (no allocation, no engine code)."""
    began = time.process_time()
    x = 0
    for i in range(2_000_000):
        x += i * i % 7
    return time.process_time() - began


def _simulate_alone() -> float:
    """CPU seconds of ``simulate``'s own work for 400 random four-player games, in this process only."""
    began = time.process_time()
    run_simulation(SimConfig("biblios", 4, 400, seed=2, workers=1))
    return time.process_time() - began


def _run_into(conn: Any, work: Callable[[], float]) -> None:
    conn.send(work())


def two_process_ceiling(repeat: int, work: Callable[[], float] = _spin) -> dict[str, float]:
    """What two processes can gain on this machine: ``work`` alone, then in two processes at once.

    ``ceiling`` is the combined speed of the two (this process and a forked one doing the same
    work at the same time) over the speed of one alone just before, median of ``repeat``
    tries. Two independent cores give 2.0; cores that slow each other down (shared caches, a
    shared physical core, a host that lowers the clock when both are busy) give less. With
    ``work`` a plain loop it measures the cores; with ``simulate``'s own work (no worker
    processes) it bounds what ``simulate --workers 2`` can reach, whatever its code does.
    """
    import multiprocessing

    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    ceilings, alone = [], float("inf")
    for _ in range(repeat):  # alone, then both at once, right after each other
        by_itself = work()
        receiver, sender = context.Pipe(duplex=False)
        child = context.Process(target=_run_into, args=(sender, work))
        child.start()
        mine = work()
        theirs = receiver.recv()
        child.join()
        ceilings.append(by_itself / mine + by_itself / theirs)
        alone = min(alone, by_itself)
    return {"alone_s": alone, "ceiling": statistics.median(ceilings)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run every measurement and print a table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=25, help="games per batch (default 25)")
    parser.add_argument("--repeat", type=int, default=20, help="batches per measurement, best kept (default 20)")
    parser.add_argument("--sim-games", type=int, default=2000, help="games for the worker comparison (default 2000)")
    parser.add_argument(
        "--sim-repeat",
        type=int,
        default=8,
        help="pairs of runs (1 worker, then 2) for the worker comparison (default 8)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--workers", action="store_true", help="also compare simulate with 1 and 2 workers (slow)")
    parser.add_argument("--kernel-only", action="store_true", help="measure only this process's kernel paths")
    args = parser.parse_args(argv)
    if args.kernel_only:
        only = {"kernel": {"this": {"build": _kernel.status(), **kernel_paths(args.games, args.repeat)}}}
        print(json.dumps(only))
        return only
    figures: dict[str, Any] = {
        "python": sys.version.split()[0],
        "random": {},
        "api": {},
        "clone_playout": {},
        "memory": {},
    }
    figures["load_at_start"] = os.getloadavg()[0]
    figures["kernel"] = both_builds(args.games, args.repeat)
    for edition in EDITIONS:
        for players in (2, 3, 4):
            key = f"{edition}/{players}"
            figures["random"][key] = random_games(edition, players, args.games, args.repeat)
        figures["api"][f"{edition}/4"] = api_games(edition, 4, max(1, args.games // 3), args.repeat)
        figures["clone_playout"][f"{edition}/4"] = clone_playouts(edition, 4, args.games * 2, args.repeat)
        figures["memory"][f"{edition}/4"] = memory(edition, 4)
    if args.workers:
        figures["load_before_workers"] = os.getloadavg()[0]
        figures["workers"] = workers_scaling(args.sim_games, args.sim_repeat)
        figures["two_process_ceiling"] = two_process_ceiling(args.sim_repeat)
        figures["two_process_ceiling_simulate"] = two_process_ceiling(args.sim_repeat, _simulate_alone)
    figures["max_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if args.json:
        print(json.dumps(figures, indent=1))
        return figures
    print(f"Python {figures['python']}; best of {args.repeat} batches of {args.games} games, one core")
    print(f"load average at the start: {figures['load_at_start']:.2f} (2 cores)")
    print("random 4-player Biblios games/s (CPU-time rate in brackets), by way in and build:")
    print(f"{'build':22} {'apply()':>14} {'step()':>14} {'playout()':>14} {'clone+playout':>16} {'perft nodes/s':>16}")
    for label, row in figures["kernel"].items():
        name = row["build"] if label == "this" else "interpreted (pure)"
        print(
            f"{name:22} "
            + " ".join(
                f"{row[f'{k}_games_per_sec']:6.0f} ({row[f'{k}_games_per_cpu_sec']:5.0f})"
                for k in ("apply", "search", "simulation")
            )
            + f" {row['clone_playout_us']:7.0f} us ({row['clone_playout_cpu_us']:4.0f})"
            + f" {row['perft_nodes_per_sec']:8.0f} ({row['perft_nodes_per_cpu_sec']:6.0f})"
        )
    print(
        f"{'ruleset/players':24} {'games/s':>8} {'(CPU)':>7} {'decisions/s':>12} "
        f"{'no log':>7} {'(CPU)':>7} {'decisions/game':>15}"
    )
    for key, row in figures["random"].items():
        print(
            f"{key:24} {row['games_per_sec']:8.0f} {row['games_per_cpu_sec']:7.0f} {row['decisions_per_sec']:12.0f} "
            f"{row['no_events_games_per_sec']:7.0f} {row['no_events_games_per_cpu_sec']:7.0f} {row['decisions_per_game']:15.1f}"
        )
    for key, row in figures["api"].items():
        print(
            f"{key + ' via apply()':24} {row['games_per_sec']:8.0f} {row['games_per_cpu_sec']:7.0f} "
            f"{row['decisions_per_sec']:12.0f}"
        )
    for key, row in figures["clone_playout"].items():
        print(
            f"{key:24} clone+playout {row['playouts_per_sec']:.0f}/s ({row['playouts_per_cpu_sec']:.0f} CPU); "
            f"clone {row['clone_us']:.1f} us; "
            f"resample {row['resample_ms']:.2f} ms; observation {row['observation_ms']:.2f} ms"
        )
    for key, row in figures["memory"].items():
        print(
            f"{key:24} peak {row['game_peak_kib']:.0f} KiB per game; finished state {row['finished_state_kib']:.0f} KiB"
        )
    if args.workers:
        w = figures["workers"]
        print(
            f"simulate, {args.sim_games} games (best of {args.sim_repeat} runs each): 1 worker {w['workers_1_games_per_sec']:.0f} games/s, "
            f"2 workers {w['workers_2_games_per_sec']:.0f} games/s, speedup {w['speedup']:.2f}x "
            f"(load average {figures['load_before_workers']:.2f} before); CPU per game "
            f"{w['workers_1_cpu_ms_per_game']:.2f} ms with 1 worker, {w['workers_2_cpu_ms_per_game']:.2f} ms with 2 "
            f"(ratio {w['cpu_ratio']:.2f})"
        )
        print(
            f"  {w['pairs']:.0f} pairs of runs: median speedup {w['median_pair_speedup']:.2f}x; "
            f"{w['steady_pairs']:.0f} pairs at one machine speed (CPU per game within 10%): median {w['median_steady_speedup']:.2f}x"
        )
        print(
            f"this machine's ceiling for two processes (the same work alone, then in two processes at once): "
            f"a plain loop {figures['two_process_ceiling']['ceiling']:.2f}x, "
            f"simulate's own work {figures['two_process_ceiling_simulate']['ceiling']:.2f}x"
        )
    print(f"max RSS {figures['max_rss_mib']:.0f} MiB")
    return figures


if __name__ == "__main__":
    main()
