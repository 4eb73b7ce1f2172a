"""Fingerprints of many games, computed by whichever build of the kernel this process runs.

``tests/test_kernel_build.py`` runs :func:`fingerprint` in its own process (the compiled
kernel, where a C compiler built it) and in a child process with ``BIBLIOS_KIT_PURE=1``
(the interpreted modules), and requires the same output: the same games, decision by
decision, whatever runs them. Run as a script, it prints the build and the fingerprint.
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
from biblios_kit.bots.registry import make_bot
from biblios_kit.engine import new_game
from biblios_kit.engine.perft import perft
from biblios_kit.rules import load_ruleset


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
            bots = [make_bot("medium" if p % 2 else "easy", seed=p) for p in range(players)]
            state = new_game(ruleset, players, 99)
            while not state.is_terminal():
                seat = state.current_player
                assert seat is not None
                state.apply(bots[seat].choose(state.observation(seat)))
            played.update(repr((state.actions, state.result().victory_points)).encode())
            digests[f"{ruleset_id}+{'+'.join(options)}-p{players}"] = played.hexdigest()
    counts = [perft(perft_position(*row[:5]), row[5]) for row in perft_rows()]
    digests["perft"] = ",".join(map(str, counts))
    return digests


if __name__ == "__main__":
    print(json.dumps({"build": _kernel.status(), "fingerprint": fingerprint()}))
