"""Bot seeds: the one function that gives the bot in a seat its seed, for every caller.

``play`` (the TUI), the game server, ``simulate``, the lab and ``rules verify`` all seed their bots
with :func:`bot_seed`. Two derivations exist because games already recorded depend on them (golden
screens and saved games of ``play``, pinned figures and results files of ``simulate`` and the
lab); both are kept, each named, and the server asks for fresh entropy instead.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Literal

__all__ = ["BATCH", "TABLE", "Derivation", "bot_seed", "mix"]

Derivation = Literal["table", "batch"]
"""How a bot's seed is derived from its game's seed: :data:`TABLE` or :data:`BATCH`."""

TABLE: Derivation = "table"
"""Games at a table (``play``, the TUI): ``(seed * 1_000_003 + 7_919 * (seat + 1)) mod 2**62``."""

BATCH: Derivation = "batch"
"""Games played in batches (``simulate``, the lab, ``rules verify``): :func:`mix` ``(seed, seat)``, a
63-bit hash, the same hash that gives game ``i`` of a run its seed."""


def mix(seed: int, index: int) -> int:
    """A 63-bit hash (BLAKE2b) of ``seed`` and ``index``: distinct, reproducible seeds from one seed."""
    digest = hashlib.blake2b(f"{seed}:{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def bot_seed(seed: int | None, seat: int, derivation: Derivation = TABLE) -> int:
    """The seed of the bot in ``seat`` (0-based) of a game seeded ``seed``.

    With :data:`TABLE` (the default: ``play``) or :data:`BATCH` (``simulate``, the lab), the seed
    is a pure function of ``seed`` and ``seat``: the same game gets the same bots again. With
    ``seed=None`` it is 62 bits of the operating system's entropy (the server: nothing a player
    could learn or guess predicts its bots).
    """
    if seed is None:
        return secrets.randbits(62)
    if derivation == BATCH:
        return mix(seed, seat)
    if derivation != TABLE:
        raise ValueError(f"unknown bot seed derivation {derivation!r}")
    return (seed * 1_000_003 + 7_919 * (seat + 1)) % (1 << 62)
