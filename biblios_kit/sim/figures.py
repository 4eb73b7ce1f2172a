"""The figures of a simulation run: win rates with 95% intervals, victory points, categories, speed.

The intervals are those of :mod:`biblios_kit.sim.stats`, the statistics the lab uses too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from biblios_kit.rules.model import Ruleset
from biblios_kit.sim.stats import wilson_interval

if TYPE_CHECKING:
    from biblios_kit.sim.model import GameSummary, SimConfig


@dataclass(frozen=True)
class SimStats:
    """The figures of a run (see :meth:`to_json` for the JSON keys)."""

    ruleset: str
    options: tuple[str, ...]
    players: int
    games: int
    seed: int
    bots: tuple[str, ...]
    rotate: bool
    workers: int
    seat_win_rates: tuple[float, ...]
    """Mean win share per seat (a k-way shared win counts 1/k)."""
    seat_win_ci95: tuple[tuple[float, float], ...]
    mean_vp: tuple[float, ...]
    bot_win_rates: dict[str, tuple[float, tuple[float, float]]]
    """Per bot spec: mean win share over the seats it played, and its 95% interval."""
    bot_mean_vp: dict[str, float]
    category_win_shares: dict[str, tuple[float, ...]]
    """Per category, the share of games each seat won its first-place die."""
    category_unclaimed: dict[str, float]
    """Per category, the share of games nobody won it."""
    shared_rate: float
    """Share of games whose first place was shared."""
    mean_decisions: float
    seconds: float
    games_per_sec: float
    decisions_per_sec: float

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "ruleset": self.ruleset,
            "options": list(self.options),
            "players": self.players,
            "games": self.games,
            "seed": self.seed,
            "bots": list(self.bots),
            "rotate": self.rotate,
            "workers": self.workers,
            "seat_win_rates": list(self.seat_win_rates),
            "seat_win_ci95": [list(ci) for ci in self.seat_win_ci95],
            "mean_vp": list(self.mean_vp),
            "bot_win_rates": {
                spec: {"rate": rate, "ci95": list(ci)} for spec, (rate, ci) in self.bot_win_rates.items()
            },
            "bot_mean_vp": dict(self.bot_mean_vp),
            "category_win_shares": {cat: list(shares) for cat, shares in self.category_win_shares.items()},
            "category_unclaimed": dict(self.category_unclaimed),
            "shared_rate": self.shared_rate,
            "mean_decisions": self.mean_decisions,
            "seconds": self.seconds,
            "games_per_sec": self.games_per_sec,
            "decisions_per_sec": self.decisions_per_sec,
        }


def summarize(config: SimConfig, ruleset: Ruleset, summaries: list[GameSummary], seconds: float) -> SimStats:
    """Combine game summaries (in game order, so sums do not depend on the worker count)."""
    n, games = config.players, len(summaries)
    wins = [0.0] * n
    vp = [0.0] * n
    bot_wins: dict[str, float] = {}
    bot_vp: dict[str, float] = {}
    bot_seats: dict[str, int] = {}
    categories = [c.id for c in ruleset.categories]
    cat_wins = {cat: [0] * n for cat in categories}
    unclaimed = dict.fromkeys(categories, 0)
    shared = 0
    decisions = 0
    for s in summaries:
        for p in range(n):
            wins[p] += s.win_shares[p]
            vp[p] += s.victory_points[p]
            spec = s.seats[p]
            bot_wins[spec] = bot_wins.get(spec, 0.0) + s.win_shares[p]
            bot_vp[spec] = bot_vp.get(spec, 0.0) + s.victory_points[p]
            bot_seats[spec] = bot_seats.get(spec, 0) + 1
        for cat, winner in zip(categories, s.category_winners):
            if winner < 0:
                unclaimed[cat] += 1
            else:
                cat_wins[cat][winner] += 1
        shared += s.shared
        decisions += s.decisions
    g = max(games, 1)
    seat_rates = tuple(w / g for w in wins)
    return SimStats(
        ruleset=ruleset.id,
        options=tuple(sorted(ruleset.active_options)),
        players=n,
        games=games,
        seed=config.seed,
        bots=config.bots,
        rotate=config.rotate,
        workers=config.workers,
        seat_win_rates=seat_rates,
        seat_win_ci95=tuple(wilson_interval(r, games) for r in seat_rates),
        mean_vp=tuple(v / g for v in vp),
        bot_win_rates={
            spec: (bot_wins[spec] / bot_seats[spec], wilson_interval(bot_wins[spec] / bot_seats[spec], bot_seats[spec]))
            for spec in sorted(bot_seats)
        },
        bot_mean_vp={spec: bot_vp[spec] / bot_seats[spec] for spec in sorted(bot_seats)},
        category_win_shares={cat: tuple(w / g for w in cat_wins[cat]) for cat in categories},
        category_unclaimed={cat: unclaimed[cat] / g for cat in categories},
        shared_rate=shared / g,
        mean_decisions=decisions / g,
        seconds=seconds,
        games_per_sec=games / seconds if seconds > 0 else 0.0,
        decisions_per_sec=decisions / seconds if seconds > 0 else 0.0,
    )
