"""Fingerprints of many games, computed by whichever build of the kernel and the bots this process runs.

``tests/test_kernel_build.py`` runs :func:`fingerprint` in its own process (the compiled
kernel and bots, where a C compiler built them) and in a child process with
``BIBLIOS_KIT_PURE=1`` (the interpreted modules), and requires the same output: the same
games, decision by decision, whatever runs them. The games cover random playouts, perft
counts and bot games: easy, medium (with and without style parameters) and hard (its
default bidding search, the tree, and the paired comparison of every decision) on every shipped edition and option at two, three and
four players, and the hints and game reviews of ``bots/hints.py`` (moves, reasons and
every number of the analyses, floats to the last bit), and the lab's measurement of games as
they are played (``lab/projector.py``). Run as a script, it prints the build
and the fingerprint.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from conftest import SHIPPED_CHOICES, perft_position, perft_rows

from biblios_kit import _kernel
from biblios_kit.bots.hints import review, suggest
from biblios_kit.bots.registry import make_bot
from biblios_kit.engine import new_game
from biblios_kit.engine.perft import perft
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import Ruleset

BOT_SEATS = ("hard:iterations=20", "medium", "easy", "medium:deny=0.3:spread=1.5:futures=4")
"""The bots of a bot game, seat by seat (turned by one seat per game, so hard sits everywhere)."""

PAIRED = "hard:paired=0:iterations=20", "hard:focus=0:horizon=0:iterations=30"
"""Hard's tree and its paired comparison of every decision, each played in a few games against medium."""


def _bot_game(ruleset: Ruleset, players: int, specs: list[str], seed: int) -> str:
    """A game of the bots ``specs`` (one per seat) from ``seed``: every action and the victory points."""
    bots = [make_bot(spec, seed * 10 + seat, ruleset) for seat, spec in enumerate(specs)]
    state = new_game(ruleset, players, seed)
    while not state.is_terminal():
        seat = state.current_player
        assert seat is not None
        state.apply(bots[seat].choose(state.observation(seat)))
    return repr((specs, state.actions, state.result().victory_points))


def _bot_games() -> dict[str, str]:
    digests: dict[str, str] = {}
    turn = 0
    for ruleset_id, options in SHIPPED_CHOICES:
        ruleset = load_ruleset(ruleset_id, list(options))
        counts = [n for n in sorted(ruleset.setups) if n <= 4] or [min(ruleset.setups)]
        played = hashlib.sha256()
        for players in counts:
            specs = [BOT_SEATS[(turn + seat) % len(BOT_SEATS)] for seat in range(players)]
            played.update(_bot_game(ruleset, players, specs, 100 + turn).encode())
            turn += 1
        digests[f"bots:{ruleset_id}+{'+'.join(options)}"] = played.hexdigest()
    played = hashlib.sha256()
    for ruleset_id, players in (("biblios", 2), ("scripts-and-scribes", 3)):
        for spec in PAIRED:
            specs = [spec if seat == players - 1 else "medium" for seat in range(players)]
            played.update(_bot_game(load_ruleset(ruleset_id), players, specs, 7).encode())
    digests["bots:paired"] = played.hexdigest()
    return digests


def _hints() -> str:
    """Hints on a few positions of a medium game, and the review of a short game (reprs of every field)."""
    played = hashlib.sha256()
    ruleset = load_ruleset("biblios", ["medieval-bluff"])
    bots = [make_bot("medium", seat, ruleset) for seat in range(3)]
    state = new_game(ruleset, 3, 31)
    moves = 0
    while not state.is_terminal():
        seat = state.current_player
        assert seat is not None
        observation = state.observation(seat)
        if len(observation.legal_actions) > 1:
            moves += 1
            if moves % 23 == 1:
                played.update(repr(suggest(observation, ruleset, iterations=20)).encode())
        state.apply(bots[seat].choose(observation))
    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, 2, 5)
    rng = random.Random(5)
    while not state.is_terminal():
        state.apply(state.random_action(rng))
    found = review(ruleset, 2, 5, state.actions, humans=[1], per_player=3, iterations=8)
    played.update(repr(found).encode())
    return played.hexdigest()


def _lab() -> str:
    """The lab's measurement of games as they are played (its projector is compiled with the bots): every
    figure of games at two to four players, the printed scoring, second-place dice and scoring as data."""
    from biblios_kit.lab.metrics import play_and_measure

    measured = hashlib.sha256()
    for ruleset_id, options, players in (
        ("biblios", (), 2),
        ("biblios", (), 4),
        ("second-place-dice", (), 3),
        ("complete-library", ("count-the-books",), 3),
    ):
        ruleset = load_ruleset(ruleset_id, list(options))
        for seed in range(4):
            seats = tuple(("easy", "random", "medium")[(seed + seat) % 3] for seat in range(players))
            measured.update(json.dumps(play_and_measure(ruleset, players, seed, seats), sort_keys=True).encode())
    return measured.hexdigest()


def fingerprint() -> dict[str, str]:
    """A digest per kind of game: random playouts with and without a log, bot games, perft counts."""
    digests: dict[str, str] = {}
    for ruleset_id, options in SHIPPED_CHOICES:
        ruleset = load_ruleset(ruleset_id, list(options))
        for players in sorted(ruleset.setups):
            played = hashlib.sha256()
            for seed in range(6):
                state = new_game(ruleset, players, seed)
                state.playout([random.Random(seed * 10 + p) for p in range(players)])
                quiet = new_game(ruleset, players, seed, events=False)
                quiet.playout(random.Random(seed))
                result = state.result()
                played.update(repr((state.actions, state.log, result.victory_points, result.winners)).encode())
                played.update(repr((quiet.actions, quiet.rng.getstate())).encode())
            bots = [make_bot("medium" if p % 2 else "easy", p, ruleset) for p in range(players)]
            state = new_game(ruleset, players, 99)
            while not state.is_terminal():
                seat = state.current_player
                assert seat is not None
                state.apply(bots[seat].choose(state.observation(seat)))
            played.update(repr((state.actions, state.result().victory_points)).encode())
            digests[f"{ruleset_id}+{'+'.join(options)}-p{players}"] = played.hexdigest()
    counts = [perft(perft_position(*row[:5]), row[5]) for row in perft_rows()]
    digests["perft"] = ",".join(map(str, counts))
    digests.update(_bot_games())
    digests["hints"] = _hints()
    digests["lab"] = _lab()
    return digests


if __name__ == "__main__":
    print(json.dumps({"build": _kernel.status(), "fingerprint": fingerprint()}))
