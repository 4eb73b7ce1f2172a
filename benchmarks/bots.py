"""Bot strength and speed: head-to-head two-player pairings with seats rotated, both editions.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bots.py                       # the full benchmark of docs/bots.md
    .venv/bin/python benchmarks/bots.py --games 40 --pairings medium/random --rulesets biblios

Each pairing ``a/b`` plays ``--games`` two-player games per ruleset; game ``i`` gives seat 0
to ``a`` when ``i`` is even, to ``b`` otherwise (seat advantage cancels), with the game
and bot seeds of ``biblios_kit.sim.runner`` (reproducible, independent of ``--workers``).
It prints, per pairing and ruleset, ``a``'s win rate (shared wins count as fractions)
with its 95% Wilson interval, and each bot's decision times (median and 95th percentile,
over the decisions with more than one legal action, timed around ``choose`` only).
``--json FILE`` also writes every figure.

``--paired`` plays each deal twice, once with each seating (games ``2k`` and ``2k + 1`` share
deal ``k``), so the luck of the deal cancels; its interval is then mean +- 1.96 standard
errors of the per-deal means, narrower than the Wilson interval of independent games. This
is how the style weights in docs/bots.md were compared.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from biblios_kit.sim.runner import game_seed
from biblios_kit.sim.stats import wilson_interval

DEFAULT_PAIRINGS = "medium/random,easy/random,medium/easy,hard:iterations=40/medium"
DEFAULT_RULESETS = "biblios,scripts-and-scribes"


def play_pairing_games(
    ruleset_name: str, a: str, b: str, indices: list[int], seed: int, paired: bool = False
) -> list[tuple[int, float, list[float], list[float]]]:
    """Play the games ``indices`` of pairing ``a``/``b``: (index, a's win share, a's times, b's times) each.

    With ``paired``, games ``2k`` and ``2k + 1`` are the same deal with the seats swapped.
    """
    from biblios_kit.bots.registry import make_bot
    from biblios_kit.engine import new_game
    from biblios_kit.rules import load_ruleset

    ruleset = load_ruleset(ruleset_name)
    out = []
    for index in indices:
        seats = (a, b) if index % 2 == 0 else (b, a)
        gseed = game_seed(seed, index // 2 if paired else index)
        state = new_game(ruleset, 2, gseed)
        bots = [make_bot(spec, game_seed(gseed, seat)) for seat, spec in enumerate(seats)]
        for bot in bots:
            if hasattr(bot, "set_ruleset"):
                bot.set_ruleset(ruleset)
        times: list[list[float]] = [[], []]
        while not state.is_terminal():
            p = state.current_player
            assert p is not None
            observation = state.observation(p)
            began = time.perf_counter()
            action = bots[p].choose(observation)
            spent = time.perf_counter() - began
            if len(observation.legal_actions) > 1:
                times[p].append(spent)
            state.apply(action)
        a_seat = 0 if index % 2 == 0 else 1
        out.append((index, state.result().win_share(a_seat), times[a_seat], times[1 - a_seat]))
    return out


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of ``values``."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def paired_interval(shares: list[float]) -> tuple[float, float]:
    """95% interval of the mean of ``shares`` (in game order, two seatings per deal) from the per-deal means."""
    deals = [(shares[i] + shares[i + 1]) / 2 for i in range(0, len(shares) - 1, 2)]
    if len(deals) < 2:
        return 0.0, 1.0
    mean = statistics.fmean(shares)
    half = 1.96 * statistics.stdev(deals) / len(deals) ** 0.5
    return max(0.0, mean - half), min(1.0, mean + half)


def run_pairing(
    ruleset: str, a: str, b: str, games: int, workers: int, seed: int, paired: bool = False
) -> dict[str, object]:
    """Play one pairing and return its figures."""
    chunk = max(1, min(10, games // (workers * 4) or 1))
    batches = [list(range(start, min(games, start + chunk))) for start in range(0, games, chunk)]
    results: list[tuple[int, float, list[float], list[float]]] = []
    began = time.perf_counter()
    if workers <= 1:
        for batch in batches:
            results.extend(play_pairing_games(ruleset, a, b, batch, seed, paired))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(play_pairing_games, ruleset, a, b, batch, seed, paired) for batch in batches]
            for future in as_completed(futures):
                results.extend(future.result())
    seconds = time.perf_counter() - began
    results.sort()
    shares = [r[1] for r in results]
    rate = sum(shares) / len(shares)
    low, high = paired_interval(shares) if paired else wilson_interval(rate, len(results))
    a_times = [t for r in results for t in r[2]]
    b_times = [t for r in results for t in r[3]]
    return {
        "ruleset": ruleset,
        "a": a,
        "b": b,
        "games": len(results),
        "paired": paired,
        "a_win_rate": rate,
        "ci95": [low, high],
        "a_median_ms": 1000 * statistics.median(a_times) if a_times else None,
        "a_p95_ms": 1000 * percentile(a_times, 0.95),
        "b_median_ms": 1000 * statistics.median(b_times) if b_times else None,
        "b_p95_ms": 1000 * percentile(b_times, 0.95),
        "a_decisions": len(a_times),
        "b_decisions": len(b_times),
        "seconds": seconds,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per pairing and ruleset")
    parser.add_argument("--pairings", default=DEFAULT_PAIRINGS, help="comma-separated a/b bot spec pairs")
    parser.add_argument("--rulesets", default=DEFAULT_RULESETS, help="comma-separated ruleset ids")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    parser.add_argument(
        "--paired", action="store_true", help="play each deal with both seatings (see the module docstring)"
    )
    args = parser.parse_args(argv)
    pairings = [tuple(item.split("/")) for item in args.pairings.split(",") if item]
    rows = []
    print("| ruleset | bot A | bot B | games | A wins | 95% CI | A median / p95 ms | B median / p95 ms | wall s |")
    print("| --- | --- | --- | ---: | ---: | --- | ---: | ---: | ---: |")
    for ruleset in args.rulesets.split(","):
        for a, b in pairings:
            row = run_pairing(ruleset, a, b, args.games, args.workers, args.seed, args.paired)
            rows.append(row)
            low, high = row["ci95"]  # type: ignore[misc]
            print(
                f"| {ruleset} | {a} | {b} | {row['games']} | {100 * row['a_win_rate']:.1f}% "  # type: ignore[operator]
                f"| {100 * low:.1f}-{100 * high:.1f}% "
                f"| {row['a_median_ms']:.2f} / {row['a_p95_ms']:.2f} | {row['b_median_ms']:.2f} / {row['b_p95_ms']:.2f} "
                f"| {row['seconds']:.0f} |",
                flush=True,
            )
            if args.json:
                args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
