"""The batch runner of ``simulate`` and the lab: many games with bots, reproducibly from one seed.

:func:`play_game` is the one game loop (the lab measures its games at the turn boundaries it
reports) and :func:`play_batch` the one loop over a run's games; ``simulate`` spreads them over
worker processes here, the lab over its backends (:mod:`biblios_kit.lab.backends`).

Game ``i`` of a run with seed ``s`` always uses the game seed :func:`game_seed` ``(s, i)``
and the same seat assignment, and summaries are combined in game order, so the figures do
not depend on the number of workers or on how games are split between them.
"""

from __future__ import annotations

import os
import random
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import permutations
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from biblios_kit.bots.base import Bot
from biblios_kit.bots.seeds import BATCH, bot_seed, mix
from biblios_kit.engine.compiled import compile_rules
from biblios_kit.engine.core import PH_BIDDING, PH_PAYMENT
from biblios_kit.engine.state import GameState, new_game
from biblios_kit.errors import BibliosError, EngineError
from biblios_kit.rules.model import Ruleset
from biblios_kit.sim.model import GameSummary, SimConfig

if TYPE_CHECKING:
    from biblios_kit.sim.figures import SimStats

R = TypeVar("R")

INTERRUPTED = "interrupted"
""":attr:`SimulationStopped.reason` of a run stopped by Ctrl-C (``KeyboardInterrupt``)."""
WORKER_DIED = "worker-died"
""":attr:`SimulationStopped.reason` of a run whose worker process died (killed, out of memory)."""


class SimulationStopped(BibliosError):
    """A run that stopped before playing every game; it carries the games that did finish.

    ``reason`` is :data:`INTERRUPTED` or :data:`WORKER_DIED`; ``summaries`` are the games
    finished, in game order (with several workers they need not be the first ones);
    ``stats`` is their :class:`~biblios_kit.sim.figures.SimStats` (set by
    :func:`run_simulation`, ``None`` when no game finished). Data, not sentences: the CLI
    words the message.
    """

    def __init__(self, reason: str, planned: int, summaries: list[GameSummary], seconds: float) -> None:
        self.reason = reason
        self.planned = planned
        self.summaries = summaries
        self.seconds = seconds
        self.stats: SimStats | None = None
        super().__init__(f"simulation stopped ({reason}) after {len(summaries)} of {planned} games")


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a run seeded ``seed`` (a 63-bit hash of both, :func:`~biblios_kit.bots.seeds.mix`)."""
    return mix(seed, index)


def seat_assignments(bots: tuple[str, ...], rotate: bool) -> list[tuple[str, ...]]:
    """The seat assignments to cycle through: every distinct permutation when rotating, else ``bots``."""
    if not rotate:
        return [bots]
    return sorted(set(permutations(bots)))


def make_bots(ruleset: Ruleset, seed: int, seats: Sequence[str]) -> list[Bot]:
    """The bots of one game seeded ``seed``: seat ``k`` plays ``seats[k]``, seeded ``bot_seed(seed, k, BATCH)``."""
    from biblios_kit.bots.registry import make_bot

    return [make_bot(spec, bot_seed(seed, seat, BATCH), ruleset) for seat, spec in enumerate(seats)]


Boundary = Callable[[GameState, int, bool], None]
"""Called at each turn boundary of a game being played, with the state, the decisions made so far,
and whether this boundary is the auction phase's start (see :func:`play_game`)."""


def play_game(
    ruleset: Ruleset,
    players: int,
    seed: int,
    seats: Sequence[str],
    bots: Sequence[Bot] | None = None,
    boundary: Boundary | None = None,
) -> GameState:
    """Play one game with the bots ``seats`` (specs), made by :func:`make_bots` unless ``bots`` are given.

    This is the one game loop of ``simulate`` and the lab. With ``boundary``, it is called before
    the first decision, after the decision that starts the auction phase (``True``: the first
    decision after which the phase is bidding or payment) and, other than that one, after every
    decision that changes the active player (``False``), never after the last decision; the game
    then keeps its event log.
    Without ``boundary``, a game of random bots only is played by the engine's playout, without an
    event log (the same actions, far faster).
    """
    from biblios_kit.bots.random_bot import RandomBot

    if bots is None:
        bots = make_bots(ruleset, seed, seats)
    fast = [type(bot) is RandomBot for bot in bots]
    if boundary is None and all(fast):  # the same actions as each RandomBot.choose(observation), far faster
        state = new_game(ruleset, players, seed, events=False)
        state.playout([bot.rng for bot in bots])  # type: ignore[attr-defined]
        return state
    state = new_game(ruleset, players, seed)
    apply, random_action, observation = state.apply, state.random_action, state.observation
    if boundary is None:
        while state.cur >= 0:
            p = state.cur
            bot = bots[p]
            if fast[p]:  # same draw as RandomBot.choose(observation), without building the observation
                apply(random_action(bot.rng))  # type: ignore[attr-defined]
            else:
                apply(bot.choose(observation(p)))
        return state
    # The same loop, watching for turn boundaries: the lab measures the game there, as it is played.
    # Two loops, so that each decision costs one or two field reads more than above (the lab's
    # overhead against simulate is measured in benchmarks/lab.py).
    active = state.active
    boundary(state, 0, False)
    while state.cur >= 0:  # the gift phase, up to the decision that starts the auction phase
        p = state.cur
        bot = bots[p]
        if fast[p]:
            apply(random_action(bot.rng))  # type: ignore[attr-defined]
        else:
            apply(bot.choose(observation(p)))
        ph = state.ph
        if ph in (PH_BIDDING, PH_PAYMENT):
            active = state.active
            if state.cur >= 0:
                boundary(state, state.decision_count, True)
            break
        if state.active != active:
            active = state.active
            if state.cur >= 0:
                boundary(state, state.decision_count, False)
    while state.cur >= 0:  # the auction phase
        p = state.cur
        bot = bots[p]
        if fast[p]:
            apply(random_action(bot.rng))  # type: ignore[attr-defined]
        else:
            apply(bot.choose(observation(p)))
        if state.active != active:
            active = state.active
            if state.cur >= 0:
                boundary(state, state.decision_count, False)
    return state


def play_batch(seed: int, start: int, stop: int, play: Callable[[int, int], R], rows: list[R] | None = None) -> list[R]:
    """The one batch loop of ``simulate`` and the lab: ``play(index, game_seed(seed, index))`` for games ``start .. stop-1``.

    ``play`` plays game ``index`` of a run seeded ``seed`` and returns its row (a summary, a
    game's metrics...). Each row is appended to ``rows`` (a new list by default) as soon as its
    game ends, so a caller interrupted in the middle still has the games finished.
    """
    if rows is None:
        rows = []
    for index in range(start, stop):
        rows.append(play(index, mix(seed, index)))
    return rows


def summarize_game(index: int, state: GameState, seats: tuple[str, ...]) -> GameSummary:
    """The :class:`GameSummary` of a finished game."""
    return GameSummary(*_summary_row(index, state, seats))


SummaryRow = tuple[int, tuple[str, ...], tuple[int, ...], tuple[float, ...], tuple[int, ...], bool, int]
"""The fields of a :class:`GameSummary` as a plain tuple (what worker processes send back: cheap to pickle)."""


def _summary_row(index: int, state: GameState, seats: tuple[str, ...]) -> SummaryRow:
    """The :class:`GameSummary` fields of a finished game, as a :data:`SummaryRow`."""
    outcome = state.outcome()  # the numbers only: building the whole GameResult took a sixth of a random game's time
    return (
        index,
        seats,
        outcome.victory_points,
        tuple(outcome.win_share(p) for p in range(state.players)),
        outcome.category_firsts,
        outcome.shared,
        state.decision_count,
    )


def _plain_random(spec: str, ruleset: Ruleset) -> bool:
    """Whether ``spec`` makes the random bot, whose whole game the engine's playout can play."""
    from biblios_kit.bots.random_bot import RandomBot
    from biblios_kit.bots.registry import check_spec

    return type(check_spec(spec, ruleset)) is RandomBot


def _play_range(
    config: SimConfig, ruleset: Ruleset, start: int, stop: int, rows: list[SummaryRow] | None = None
) -> list[SummaryRow]:
    """Play games ``start .. stop-1`` of ``config`` (through :func:`play_batch`); return their summaries as rows."""
    assignments = seat_assignments(config.bots, config.rotate)
    plain = {spec: _plain_random(spec, ruleset) for spec in config.bots}
    # Random bots only: the seat RNGs are made once and re-seeded per game (Random.seed(s)
    # leaves the state Random(s) starts with, the RNG make_bot("random", s) gives its bot).
    rngs = [random.Random() for _ in range(config.players)]
    if config.records:
        from biblios_kit.engine.records import record_of, save_record

    def play(index: int, seed: int) -> SummaryRow:
        seats = assignments[index % len(assignments)]
        if all(plain[spec] for spec in seats):
            for seat, rng in enumerate(rngs):
                rng.seed(bot_seed(seed, seat, BATCH))
            state = new_game(ruleset, config.players, seed, events=False)
            state.playout(rngs)
        else:
            state = play_game(ruleset, config.players, seed, seats)
        if config.records:
            save_record(record_of(state, seats), Path(config.records) / f"game-{index + 1:06d}.json", durable=False)
        return _summary_row(index, state, seats)

    return play_batch(config.seed, start, stop, play, rows)


_PARENT_CHECK_INTERVAL = 0.5
"""Seconds between a worker's checks that the main process is still there."""

_worker_ruleset: Ruleset | None = None
"""The ruleset of the run, in a worker process (set by :func:`_init_worker`)."""


def _init_worker(config: SimConfig) -> None:
    """Set a worker process up once: load (and compile) the ruleset of the run.

    Workers ignore Ctrl-C (SIGINT goes to the whole terminal process group): the main
    process handles it, stops them and reports the games finished. A worker whose main
    process is gone (killed outright) exits within a second instead of playing on for
    nobody.
    """
    global _worker_ruleset
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()
    # The kernel ends a worker whose main process dies (the pool forks its workers from the main
    # thread); the watching thread below is the fallback elsewhere, and it can be starved for a
    # long time by a compiled playout loop that never releases the GIL.
    from biblios_kit.lifeline import death_signal

    death_signal(signal.SIGKILL)

    def watch_parent() -> None:
        while True:
            time.sleep(_PARENT_CHECK_INTERVAL)
            if os.getppid() != parent:
                os._exit(1)  # nobody is left to read this worker's results

    threading.Thread(target=watch_parent, name="watch-parent", daemon=True).start()
    from biblios_kit.rules import load_ruleset

    _worker_ruleset = load_ruleset(config.ruleset, config.options)
    compile_rules(_worker_ruleset).event_tables(config.players)


def _worker_range(config: SimConfig, start: int, stop: int) -> list[SummaryRow]:
    """Play games ``start .. stop-1`` in a worker process."""
    assert _worker_ruleset is not None, "worker not initialised"
    return _play_range(config, _worker_ruleset, start, stop)


def _chunks(games: int, workers: int) -> list[tuple[int, int]]:
    """Game index ranges to hand out: large first, smaller towards the end, so that no process idles long at the end.

    Each chunk is an eighth of what is left per process (at most 100 games, at least 4), so a
    run of 2,000 games on 2 processes has 72 chunks, the last ones of 4 games.
    """
    out = []
    start = 0
    while start < games:
        size = max(4, min(100, (games - start) // (8 * workers)))
        out.append((start, min(games, start + size)))
        start += size
    return out


def run_games(config: SimConfig, progress: Callable[[int], None] | None = None) -> tuple[list[GameSummary], float]:
    """Play every game of ``config``; return the summaries in game order and the wall time in seconds.

    With ``workers`` W above 1, this process plays too, next to W - 1 worker processes: chunks
    of games are handed out in order to whichever process is free.
    """
    from biblios_kit.rules import load_ruleset

    began = time.perf_counter()
    ruleset = load_ruleset(config.ruleset, config.options)
    rows: list[SummaryRow] = []

    current: list[SummaryRow] = []  # the rows of the chunk this process is playing, kept if the run stops

    def take(batch: list[SummaryRow]) -> None:
        rows.extend(batch)
        if progress:
            progress(len(batch))

    def play_here(start: int, stop: int) -> None:
        current.clear()
        _play_range(config, ruleset, start, stop, current)
        batch = list(current)
        current.clear()
        take(batch)

    chunks = _chunks(config.games, config.workers)
    try:
        if config.workers <= 1 or len(chunks) < 2:
            for start, stop in chunks:
                play_here(start, stop)
        else:
            _play_shared(config, ruleset, chunks, take, play_here)
    except KeyboardInterrupt:
        stopped = _summaries(rows + current)
        raise SimulationStopped(INTERRUPTED, config.games, stopped, time.perf_counter() - began) from None
    except BrokenProcessPool:
        stopped = _summaries(rows + current)
        raise SimulationStopped(WORKER_DIED, config.games, stopped, time.perf_counter() - began) from None
    return _summaries(rows), time.perf_counter() - began


def _summaries(rows: list[SummaryRow]) -> list[GameSummary]:
    """The summaries of ``rows``, in game order."""
    return [GameSummary(*row) for row in sorted(rows)]


_POOL_SWITCH_INTERVAL = 0.0005
"""Seconds between the interpreter's thread switches while worker processes run (see :func:`_play_shared`)."""


def submit_held(pool: Executor, function: Callable[..., R], /, *args: Any) -> Future[R]:
    """``pool.submit(function, *args)`` with Ctrl+C held back until it returns.

    A submission may fork the pool's workers, and Python drops a ``KeyboardInterrupt`` raised
    in its fork hooks (``Exception ignored in _releaseLock``): the run would go on as if the
    key had not been pressed. Held (``SIGINT`` blocked in this thread), the signal arrives as
    the submission returns, and stops the run as everywhere else.
    """
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        return pool.submit(function, *args)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _play_shared(
    config: SimConfig,
    ruleset: Ruleset,
    chunks: list[tuple[int, int]],
    take: Callable[[list[SummaryRow]], None],
    play_here: Callable[[int, int], None],
) -> None:
    """Play ``chunks`` in ``config.workers - 1`` worker processes (their batches go to ``take``) and in this
    process (through ``play_here``)."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, wait

    # Compile before the workers start: forked workers inherit the tables (and the modules).
    compile_rules(ruleset).event_tables(config.players)
    if config.records:
        import biblios_kit.engine.records  # noqa: F401
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    children = config.workers - 1
    # This thread plays games while the pool's own threads pass chunks and results to and
    # from the workers; each of their steps waits for the interpreter lock, by default up to
    # 5 ms. A shorter interval while the pool runs lets workers start sooner and never wait
    # for their next chunk (about 4% on two cores, measured); it is restored afterwards.
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(min(switch_interval, _POOL_SWITCH_INTERVAL))
    queue = deque(chunks)
    pending: set[Future[list[SummaryRow]]] = set()
    others = set(multiprocessing.active_children())  # children this process had before the pool

    def collect(block: bool) -> None:
        done = wait(pending, return_when=FIRST_COMPLETED)[0] if block else {f for f in pending if f.done()}
        for future in done:
            pending.discard(future)
            take(future.result())

    try:
        with ProcessPoolExecutor(
            max_workers=children,
            mp_context=multiprocessing.get_context(method),
            initializer=_init_worker,
            initargs=(config,),
        ) as pool:
            try:
                while queue or pending:
                    # Each worker has a chunk in play and one waiting, so it never waits for this process.
                    while queue and len(pending) < 2 * children:
                        start, stop = queue.popleft()
                        pending.add(submit_held(pool, _worker_range, config, start, stop))
                    if queue:
                        start, stop = queue.popleft()
                        play_here(start, stop)
                        collect(block=False)
                    else:
                        collect(block=True)
            except KeyboardInterrupt:
                # Stop at once: the workers' chunks in play would only be thrown away.
                for child in set(multiprocessing.active_children()) - others:
                    child.terminate()
                pool.shutdown(wait=True, cancel_futures=True)
                raise
            except BaseException:
                pool.shutdown(wait=True, cancel_futures=True)  # drop the chunks not started yet
                raise
    finally:
        sys.setswitchinterval(switch_interval)


def run_simulation(config: SimConfig, progress: Callable[[int], None] | None = None) -> SimStats:
    """Run ``config`` and return its :class:`~biblios_kit.sim.figures.SimStats`.

    A run stopped by Ctrl-C or by a dead worker process raises :class:`SimulationStopped`
    with the figures of the games that finished.
    """
    from biblios_kit.rules import load_ruleset
    from biblios_kit.sim.figures import summarize

    ruleset = load_ruleset(config.ruleset, config.options)
    if config.players not in ruleset.setups:
        raise EngineError(
            "sim-players", ruleset=ruleset.id, counts=tuple(ruleset.player_counts), players=config.players
        )
    from biblios_kit.bots.registry import check_spec

    for spec in dict.fromkeys(config.bots):
        check_spec(spec, ruleset)  # fail early on a bad spec, before starting workers
    if len(config.bots) == 1 and config.players > 1:
        config = SimConfig(**{**config.__dict__, "bots": config.bots * config.players})
    if len(config.bots) != config.players:
        raise ValueError(f"expected one bot spec or {config.players} (one per seat), got {len(config.bots)}")
    if config.records:
        os.makedirs(config.records, exist_ok=True)
        from biblios_kit.atomic import remove_stale_temporaries

        remove_stale_temporaries(config.records)  # left by an earlier run that was killed mid-write
    try:
        summaries, seconds = run_games(config, progress)
    except SimulationStopped as stopped:
        if stopped.summaries:
            stopped.stats = summarize(config, ruleset, stopped.summaries, stopped.seconds)
        raise
    return summarize(config, ruleset, summaries, seconds)
