"""Play many games with bots, in one process or a process pool, reproducibly from one seed.

Game ``i`` of a run with seed ``s`` always uses the game seed :func:`game_seed` ``(s, i)``
and the same seat assignment, and summaries are combined in game order, so the figures do
not depend on the number of workers or on how games are split between them.
"""

from __future__ import annotations

import hashlib
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from itertools import permutations
from pathlib import Path
from typing import Callable

from biblios_kit.engine.state import GameState, new_game
from biblios_kit.rules.model import Ruleset


@dataclass(frozen=True)
class SimConfig:
    """What to simulate."""

    ruleset: str
    """Ruleset id, alias or path."""
    players: int
    games: int
    seed: int = 0
    options: tuple[str, ...] = ()
    bots: tuple[str, ...] = ("random",)
    """One bot spec per seat, or one spec for every seat."""
    rotate: bool = False
    """Play every distinct seat assignment of ``bots`` equally often (game ``i`` uses assignment ``i mod k``)."""
    workers: int = 1
    records: str | None = None
    """Folder to write each game's record into (``game-000001.json`` ...)."""


@dataclass(frozen=True, slots=True)
class GameSummary:
    """What the statistics need from one game."""

    index: int
    seats: tuple[str, ...]
    """Bot spec of each seat."""
    victory_points: tuple[int, ...]
    win_shares: tuple[float, ...]
    category_winners: tuple[int, ...]
    """First-place winner of each category (-1 for nobody)."""
    shared: bool
    decisions: int


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a run seeded ``seed`` (a 63-bit hash of both)."""
    digest = hashlib.blake2b(f"{seed}:{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def seat_assignments(bots: tuple[str, ...], rotate: bool) -> list[tuple[str, ...]]:
    """The seat assignments to cycle through: every distinct permutation when rotating, else ``bots``."""
    if not rotate:
        return [bots]
    return sorted(set(permutations(bots)))


def play_game(ruleset: Ruleset, players: int, seed: int, seats: tuple[str, ...]) -> GameState:
    """Play one game with the bots ``seats`` (specs), bot ``k`` seeded from (``seed``, ``k``)."""
    from biblios_kit.bots.random_bot import RandomBot
    from biblios_kit.bots.registry import make_bot

    bots = [make_bot(spec, game_seed(seed, seat)) for seat, spec in enumerate(seats)]
    fast = [type(bot) is RandomBot for bot in bots]
    if all(fast):  # the same actions as each RandomBot.choose(observation), far faster
        state = new_game(ruleset, players, seed, events=False)
        state.playout([bot.rng for bot in bots])  # type: ignore[attr-defined]
        return state
    state = new_game(ruleset, players, seed)
    apply, random_action, observation = state.apply, state.random_action, state.observation
    while state.cur >= 0:
        p = state.cur
        bot = bots[p]
        if fast[p]:  # same draw as RandomBot.choose(observation), without building the observation
            apply(random_action(bot.rng))  # type: ignore[attr-defined]
        else:
            apply(bot.choose(observation(p)))
    return state


def summarize_game(index: int, state: GameState, seats: tuple[str, ...]) -> GameSummary:
    """The :class:`GameSummary` of a finished game."""
    result = state.result()
    return GameSummary(
        index=index,
        seats=seats,
        victory_points=result.victory_points,
        win_shares=tuple(result.win_share(p) for p in range(state.players)),
        category_winners=tuple(
            next((a.winner if a.winner is not None else -1 for a in c.awards if a.place == 1), -1)
            for c in result.categories
        ),
        shared=result.shared,
        decisions=state.decision_count,
    )


def _play_range(config: SimConfig, start: int, stop: int) -> list[GameSummary]:
    """Play games ``start .. stop-1`` of ``config`` (runs in a worker process)."""
    from biblios_kit.engine.records import record_of, save_record
    from biblios_kit.rules import load_ruleset

    ruleset = load_ruleset(config.ruleset, config.options)
    assignments = seat_assignments(config.bots, config.rotate)
    out = []
    for index in range(start, stop):
        seats = assignments[index % len(assignments)]
        state = play_game(ruleset, config.players, game_seed(config.seed, index), seats)
        if config.records:
            save_record(record_of(state, seats), Path(config.records) / f"game-{index + 1:06d}.json", durable=False)
        out.append(summarize_game(index, state, seats))
    return out


def _chunks(games: int, workers: int) -> list[tuple[int, int]]:
    """Game index ranges for the workers: small enough that no worker idles long at the end."""
    size = max(1, min(100, games // (workers * 16)))
    return [(start, min(games, start + size)) for start in range(0, games, size)]


def run_games(config: SimConfig, progress: Callable[[int], None] | None = None) -> tuple[list[GameSummary], float]:
    """Play every game of ``config``; return the summaries in game order and the wall time in seconds."""
    began = time.perf_counter()
    summaries: list[GameSummary] = []
    if config.workers <= 1 or config.games < 2:
        for start, stop in _chunks(config.games, 1):
            batch = _play_range(config, start, stop)
            summaries.extend(batch)
            if progress:
                progress(len(batch))
    else:
        import multiprocessing

        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        context = multiprocessing.get_context(method)
        with ProcessPoolExecutor(max_workers=config.workers, mp_context=context) as pool:
            futures = [pool.submit(_play_range, config, start, stop) for start, stop in _chunks(config.games, config.workers)]
            from concurrent.futures import as_completed

            for future in as_completed(futures):
                batch = future.result()
                summaries.extend(batch)
                if progress:
                    progress(len(batch))
        summaries.sort(key=lambda s: s.index)
    return summaries, time.perf_counter() - began


def run_simulation(config: SimConfig, progress: Callable[[int], None] | None = None):  # noqa: ANN201
    """Run ``config`` and return its :class:`~biblios_kit.sim.stats.SimStats`."""
    from biblios_kit.rules import load_ruleset
    from biblios_kit.sim.stats import summarize

    ruleset = load_ruleset(config.ruleset, config.options)
    if config.players not in ruleset.setups:
        raise ValueError(
            f"ruleset {ruleset.id!r} supports {', '.join(map(str, ruleset.player_counts))} players, not {config.players}"
        )
    from biblios_kit.bots.registry import make_bot

    for spec in dict.fromkeys(config.bots):
        make_bot(spec, 0)  # fail early on a bad spec, before starting workers
    if len(config.bots) == 1 and config.players > 1:
        config = SimConfig(**{**config.__dict__, "bots": config.bots * config.players})
    if len(config.bots) != config.players:
        raise ValueError(f"expected one bot spec or {config.players} (one per seat), got {len(config.bots)}")
    if config.records:
        os.makedirs(config.records, exist_ok=True)
    summaries, seconds = run_games(config, progress)
    return summarize(config, ruleset, summaries, seconds)
