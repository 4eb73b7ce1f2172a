"""Bot strength and speed: one bot against the others, seats rotated, 2 to 4 players, both editions.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bots.py --speed                  # decision times and self-play games/s
    .venv/bin/python benchmarks/bots.py                          # the strength tables of docs/bots.md
    .venv/bin/python benchmarks/bots.py --games 40 --players 2,4 --pairings medium/random --rulesets biblios

**Strength.** Each pairing ``a/b`` plays ``--games`` games per ruleset and player count: ``a``
in one seat, ``b`` in every other seat; game ``i`` gives ``a`` seat ``i mod players``
(seat advantage cancels), with the game and bot seeds of ``biblios_kit.sim.runner``
(reproducible, independent of ``--workers``); the ``k``-th ruleset listed uses seed
``--seed + k``, since the two editions have the same mechanics and would otherwise play the
very same games. It prints ``a``'s win rate (shared wins count as
fractions) with its 95% Wilson interval, ``a``'s fair share (1 / players), and each bot's
decision times (median and 95th percentile over the decisions with more than one legal
action, timed around ``choose`` only, in CPU time of this process: on a shared machine wall-clock
times vary with the load). ``--json FILE`` also writes every figure, each game's share
among them. ``--first K`` starts at game ``K``: ``--games 200 --first 200`` plays exactly the
games that ``--games 400`` adds to ``--games 200``, so a run can be extended without
replaying it. In ``--pairings``, the name ``style`` stands for hard's own style without search at that player count
(``medium:deny=0.3:spread=1.5`` at two players, ``medium:deny=0.3`` from three on).

``--paired`` plays each deal once per seat of ``a`` (games ``N k`` to ``N k + N - 1`` share deal
``k``), so the luck of the deal cancels; the interval is then mean +- 1.96 standard errors of
the per-deal means, narrower than the Wilson interval of independent games. This is how the
style weights in docs/bots.md were compared.

**Speed** (``--speed``): decision times (median, p95, mean; CPU time) of each level in
four-player self-play (``hard`` against medium at two and four players), and the games per
second of medium self-play at 2 and 4 players in this one process (CPU time and wall time:
on a shared machine the CPU figure is the steadier one).
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

DEFAULT_PAIRINGS = "medium/random,easy/medium,hard/medium,hard/style"
DEFAULT_RULESETS = "biblios,scripts-and-scribes"
STYLE_ALONE = "medium:deny=0.3:spread=1.5"
"""Hard's own two-player style without search (``STRONG`` in ``biblios_kit/bots/style.py``) as a bot spec."""
STYLE_ALONE_MULTI = "medium:deny=0.3"
"""Hard's own style from three players on (``STRONG_MULTI``) as a bot spec."""


def resolve(spec: str, players: int) -> str:
    """A pairing's bot spec for ``players``: ``style`` is hard's own style without search at that count."""
    if spec == "style":
        return STYLE_ALONE if players <= 2 else STYLE_ALONE_MULTI
    return spec


GameRow = tuple[int, float, list[float], list[float]]


def play_pairing_games(
    ruleset_name: str, a: str, b: str, indices: list[int], seed: int, paired: bool = False, players: int = 2
) -> list[GameRow]:
    """Play the games ``indices`` of pairing ``a``/``b``: (index, a's win share, a's times, b's times) each.

    ``a`` sits in seat ``index mod players``, ``b`` in the others. With ``paired``, games
    ``players k`` to ``players k + players - 1`` are the same deal.
    """
    from biblios_kit.bots.registry import make_bot
    from biblios_kit.engine import new_game
    from biblios_kit.rules import load_ruleset

    ruleset = load_ruleset(ruleset_name)
    out = []
    for index in indices:
        a_seat = index % players
        seats = [a if seat == a_seat else b for seat in range(players)]
        gseed = game_seed(seed, index // players if paired else index)
        state = new_game(ruleset, players, gseed)
        bots = [make_bot(spec, game_seed(gseed, seat), ruleset) for seat, spec in enumerate(seats)]
        a_times: list[float] = []
        b_times: list[float] = []
        while not state.is_terminal():
            p = state.current_player
            assert p is not None
            observation = state.observation(p)
            began = time.process_time()
            action = bots[p].choose(observation)
            spent = time.process_time() - began
            if len(observation.legal_actions) > 1:
                (a_times if p == a_seat else b_times).append(spent)
            state.apply(action)
        out.append((index, state.result().win_share(a_seat), a_times, b_times))
    return out


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of ``values``."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def paired_interval(shares: list[float], group: int = 2) -> tuple[float, float]:
    """95% interval of the mean of ``shares`` (in game order, ``group`` seatings per deal) from the per-deal means."""
    deals = [sum(shares[i : i + group]) / group for i in range(0, len(shares) - group + 1, group)]
    if len(deals) < 2:
        return 0.0, 1.0
    mean = statistics.fmean(shares)
    half = 1.96 * statistics.stdev(deals) / len(deals) ** 0.5
    return max(0.0, mean - half), min(1.0, mean + half)


def run_pairing(
    ruleset: str,
    a: str,
    b: str,
    games: int,
    workers: int,
    seed: int,
    paired: bool = False,
    players: int = 2,
    first: int = 0,
) -> dict[str, object]:
    """Play games ``first`` to ``first + games - 1`` of one pairing and return their figures."""
    chunk = max(1, min(10, games // (workers * 4) or 1))
    end = first + games
    batches = [list(range(start, min(end, start + chunk))) for start in range(first, end, chunk)]
    results: list[GameRow] = []
    began = time.perf_counter()
    if workers <= 1:
        for batch in batches:
            results.extend(play_pairing_games(ruleset, a, b, batch, seed, paired, players))
            share = sum(r[1] for r in results) / len(results)
            print(f"  {a} / {b}, {players} players: {len(results)} games, {100 * share:.1f}%", file=sys.stderr)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = [
                pool.submit(play_pairing_games, ruleset, a, b, batch, seed, paired, players) for batch in batches
            ]
            for future in as_completed(futures):
                results.extend(future.result())
    seconds = time.perf_counter() - began
    results.sort()
    shares = [r[1] for r in results]
    rate = sum(shares) / len(shares)
    low, high = paired_interval(shares, players) if paired else wilson_interval(rate, len(results))
    a_times = [t for r in results for t in r[2]]
    b_times = [t for r in results for t in r[3]]
    return {
        "ruleset": ruleset,
        "seed": seed,
        "players": players,
        "a": a,
        "b": b,
        "games": len(results),
        "first": first,
        "paired": paired,
        "a_win_rate": rate,
        "fair_share": 1 / players,
        "ci95": [low, high],
        "a_median_ms": 1000 * statistics.median(a_times) if a_times else None,
        "a_p95_ms": 1000 * percentile(a_times, 0.95),
        "b_median_ms": 1000 * statistics.median(b_times) if b_times else None,
        "b_p95_ms": 1000 * percentile(b_times, 0.95),
        "a_decisions": len(a_times),
        "b_decisions": len(b_times),
        "seconds": seconds,
        "shares": shares,
    }


def self_play(ruleset_name: str, spec: str, players: int, games: int, seed: int) -> dict[str, object]:
    """Play ``games`` games of ``spec`` in every seat in this process: games/s and decision times."""
    from biblios_kit.bots.registry import make_bot
    from biblios_kit.engine import new_game
    from biblios_kit.rules import load_ruleset

    ruleset = load_ruleset(ruleset_name)
    times: list[float] = []
    cpu = time.process_time()
    wall = time.perf_counter()
    for index in range(games):
        gseed = game_seed(seed, index)
        state = new_game(ruleset, players, gseed)
        bots = [make_bot(spec, game_seed(gseed, seat), ruleset) for seat in range(players)]
        while state.cur >= 0:
            observation = state.observation(state.cur)
            began = time.process_time()
            action = bots[state.cur].choose(observation)
            if len(observation.legal_actions) > 1:
                times.append(time.process_time() - began)
            state.apply(action)
    cpu = time.process_time() - cpu
    wall = time.perf_counter() - wall
    return {
        "ruleset": ruleset_name,
        "spec": spec,
        "players": players,
        "games": games,
        "games_per_cpu_s": games / cpu,
        "games_per_wall_s": games / wall,
        "median_ms": 1000 * statistics.median(times),
        "p95_ms": 1000 * percentile(times, 0.95),
        "mean_ms": 1000 * statistics.fmean(times),
        "decisions": len(times),
    }


def speed(games: int, hard_games: int, seed: int) -> list[dict[str, object]]:
    """Decision times of every level and medium self-play games/s (see the module docstring)."""
    rows = []
    print("| bot | players | games | games/s (CPU) | games/s (wall) | median ms | p95 ms | mean ms | decisions |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    runs = [("medium", 2, games), ("medium", 4, games), ("easy", 4, games), ("random", 4, games)]
    for spec, players, count in runs:
        row = self_play("biblios", spec, players, count, seed)
        rows.append(row)
        print(
            f"| {spec} | {players} | {count} | {row['games_per_cpu_s']:.1f} | {row['games_per_wall_s']:.1f} "
            f"| {row['median_ms']:.3f} | {row['p95_ms']:.3f} | {row['mean_ms']:.3f} | {row['decisions']} |",
            flush=True,
        )
    for players in (2, 4) if hard_games else ():
        pairing = run_pairing("biblios", "hard", "medium", hard_games, 1, seed, players=players)
        rows.append(pairing)
        print(
            f"| hard (against medium) | {players} | {hard_games} | | | {pairing['a_median_ms']:.1f} "
            f"| {pairing['a_p95_ms']:.1f} | | {pairing['a_decisions']} |",
            flush=True,
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print Markdown tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per pairing, ruleset and player count")
    parser.add_argument("--pairings", default=DEFAULT_PAIRINGS, help="comma-separated a/b bot spec pairs")
    parser.add_argument("--rulesets", default=DEFAULT_RULESETS, help="comma-separated ruleset ids")
    parser.add_argument("--players", default="2,3,4", help="comma-separated player counts")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--first", type=int, default=0, help="index of the first game: extend an earlier run without replaying it"
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    parser.add_argument(
        "--paired", action="store_true", help="play each deal with every seating (see the module docstring)"
    )
    parser.add_argument("--speed", action="store_true", help="measure speed instead of strength")
    parser.add_argument("--speed-games", type=int, default=100, help="self-play games per speed row")
    parser.add_argument("--hard-games", type=int, default=4, help="hard-against-medium games for hard's times")
    args = parser.parse_args(argv)
    if args.speed:
        rows = speed(args.speed_games, args.hard_games, args.seed)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=2))
        return 0
    pairings = [tuple(item.split("/")) for item in args.pairings.split(",") if item]
    counts = [int(x) for x in args.players.split(",") if x]
    rows = []
    print(
        "| ruleset | players | bot A | others | games | A wins | 95% CI | fair share "
        "| A median / p95 ms | others median / p95 ms | wall s |"
    )
    print("| --- | ---: | --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    for offset, ruleset in enumerate(args.rulesets.split(",")):
        seed = args.seed + offset  # the editions play the same games from the same seed: sample others
        for players in counts:
            for pair_a, pair_b in pairings:
                a, b = resolve(pair_a, players), resolve(pair_b, players)
                row = run_pairing(ruleset, a, b, args.games, args.workers, seed, args.paired, players, args.first)
                rows.append(row)
                interval = row["ci95"]
                assert isinstance(interval, list)
                low, high = interval
                print(
                    f"| {ruleset} | {players} | {a} | {b} | {row['games']} | {100 * row['a_win_rate']:.1f}% "  # type: ignore[operator]
                    f"| {100 * low:.1f}-{100 * high:.1f}% | {100 / players:.0f}% "
                    f"| {row['a_median_ms']:.2f} / {row['a_p95_ms']:.2f} "
                    f"| {row['b_median_ms']:.2f} / {row['b_p95_ms']:.2f} | {row['seconds']:.0f} |",
                    flush=True,
                )
                if args.json:
                    args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
