"""Self-play games per CPU second in a plain loop, against the public API every version has.

Usage (from the repository root of any version, including those before ``benchmarks/bots.py
--speed`` existed)::

    .venv/bin/python benchmarks/selfplay_loop.py 40

Plays ``N`` Biblios games (40 by default) of medium at four and two players and of easy at four
players, as ``benchmarks/bots.py --speed`` does (game ``i`` dealt from ``game_seed(2026, i)``,
seat ``s`` played by ``make_bot(spec, game_seed(seed, s), ruleset)``) but without timing each decision,
and prints the games per second of CPU time (``time.process_time``) with a digest of every
game's actions: two builds or versions that print the same digest played the very same games.
``game_seed`` is written out here (the same blake2b as ``biblios_kit.sim.runner.game_seed``) so
that the script runs on older versions too. docs/performance.md, "Bots", compares versions with it.

``--split`` plays the four-player medium games only, timing each call, and prints where a game's
CPU time goes: ``observation()``, the bots' ``choose()``, ``apply()`` and the rest (the loop, the
set-up, the clock itself: about 0.25 µs a reading)::

    .venv/bin/python benchmarks/selfplay_loop.py 100 --split

``--medium4`` plays the four-player medium games only, after two warm-up games (``0 --medium4``:
the warm-up alone), for counting instructions: the difference of ::

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null .venv/bin/python benchmarks/selfplay_loop.py 30 --medium4
    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null .venv/bin/python benchmarks/selfplay_loop.py 0 --medium4

divided by 30 is the instructions of one game (``PYTHONHASHSEED=0``: every run hashes strings alike).
"""

from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from biblios_kit.bots.registry import make_bot
from biblios_kit.engine import new_game
from biblios_kit.rules import load_ruleset


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a run seeded ``seed`` (as ``biblios_kit.sim.runner``)."""
    digest = hashlib.blake2b(f"{seed}:{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def run(spec: str, players: int, games: int, seed: int = 2026) -> tuple[float, str]:
    """(games per CPU second, digest of the games' actions) of ``games`` self-play games of ``spec``."""
    ruleset = load_ruleset("biblios")
    played = hashlib.sha256()
    cpu = time.process_time()
    for index in range(games):
        gseed = game_seed(seed, index)
        state = new_game(ruleset, players, gseed)
        bots = [make_bot(spec, game_seed(gseed, seat), ruleset) for seat in range(players)]
        while not state.is_terminal():
            seat = state.current_player
            assert seat is not None
            state.apply(bots[seat].choose(state.observation(seat)))
        played.update(repr(state.actions).encode())
    cpu = time.process_time() - cpu
    return games / cpu, played.hexdigest()[:16]


def split(spec: str, players: int, games: int, seed: int = 2026) -> str:
    """Per game, the CPU time of ``observation()``, ``choose()``, ``apply()`` and the rest, as a line of text."""
    ruleset = load_ruleset("biblios")
    clock = time.process_time
    observing = choosing = applying = 0.0
    calls = 0
    cpu = clock()
    for index in range(games):
        gseed = game_seed(seed, index)
        state = new_game(ruleset, players, gseed)
        bots = [make_bot(spec, game_seed(gseed, seat), ruleset) for seat in range(players)]
        while not state.is_terminal():
            seat = state.current_player
            assert seat is not None
            began = clock()
            observation = state.observation(seat)
            observed = clock()
            action = bots[seat].choose(observation)
            chosen = clock()
            state.apply(action)
            applied = clock()
            observing += observed - began
            choosing += chosen - observed
            applying += applied - chosen
            calls += 1
    cpu = clock() - cpu
    rest = cpu - observing - choosing - applying
    per = 1000 / games
    return (
        f"{spec} {players}p: {games / cpu:.1f} games/CPU s; per game {cpu * per:.2f} ms: observation "
        f"{observing * per:.2f} ms ({calls / games:.0f} calls), choose {choosing * per:.2f} ms, "
        f"apply {applying * per:.2f} ms, rest {rest * per:.2f} ms"
    )


def main() -> int:
    flags = {arg for arg in sys.argv[1:] if arg.startswith("--")}
    args = [arg for arg in sys.argv[1:] if not arg.startswith("--")]
    games = int(args[0]) if args else 40
    if "--split" in flags:
        print(split("medium", 4, games), flush=True)
        return 0
    if "--medium4" in flags:  # the four-player medium row only, after two warm-up games
        run("medium", 4, 2)
        if games:
            rate, digest = run("medium", 4, games)
            print(f"medium 4p: {rate:.1f} games/CPU s  digest {digest}", flush=True)
        return 0
    for spec, players in (("medium", 4), ("medium", 2), ("easy", 4)):
        rate, digest = run(spec, players, games)
        print(f"{spec} {players}p: {rate:.1f} games/CPU s  digest {digest}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
