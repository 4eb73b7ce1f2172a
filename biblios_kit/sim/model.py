"""The data of a simulation: what to play (:class:`SimConfig`) and what each game gave (:class:`GameSummary`).

Both the runner (which plays) and the statistics (which summarise) read these; neither
imports the other for them.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GameSummary", "SimConfig"]


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
