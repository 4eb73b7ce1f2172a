"""Batch simulation: many games with bots, over worker processes, with statistics.

``run_simulation(SimConfig(...))`` returns a :class:`~biblios_kit.sim.figures.SimStats`; the
figures for a seed are identical whatever the number of workers.
"""

from biblios_kit.sim.figures import SimStats, summarize
from biblios_kit.sim.model import GameSummary, SimConfig
from biblios_kit.sim.runner import game_seed, play_game, run_simulation, seat_assignments
from biblios_kit.sim.stats import wilson_interval

__all__ = [
    "GameSummary",
    "SimConfig",
    "SimStats",
    "game_seed",
    "play_game",
    "run_simulation",
    "seat_assignments",
    "summarize",
    "wilson_interval",
]
