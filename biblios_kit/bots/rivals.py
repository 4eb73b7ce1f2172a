"""Which style each rival plays, inferred from its own bids and passes (hard's ``rivals=2``).

Hard's bidding search plays each dealt world to the end with a model of every rival
(:meth:`~biblios_kit.bots.ismcts.ISMCTSBot._compare`). :class:`RivalModel` picks that model
per rival among a few candidate styles (:func:`rival_candidates`: medium's and hard's own)
by how well each explains the bidding decisions the rival was seen to make.

Only what the bot observes is used. At each of its decisions the bot reads the bidding of the
round under way (``Observation.auction.bids``: every bid and pass, in order); the entries it
has not read before are the rival decisions it learns of (a two-player rival's bid shows at
the bot's next bid, its pass at the bot's payment). For each, a few worlds are dealt from the
bot's own observation (:class:`~biblios_kit.engine.worlds.Worlds`, hidden cards at random
within what the bot knows) and, in each, every candidate style's limit for that rival is
worked out from the rival's view of that world
(:func:`~biblios_kit.bots.heuristic.bid_limit`, the very rule the heuristic bids by): the
style would raise when the price is within its limit and the rival can pay, bluff one raise
over it now and then, and pass otherwise. The chance of what the rival did, averaged over the
worlds (mixed with a small chance of a move no candidate explains), multiplies into that
style's likelihood. The rival is then modelled in the style with the largest likelihood
(the first candidate, medium, on a tie), so the model is deterministic for a seed.
"""

from __future__ import annotations

import math
import random

from biblios_kit.bots.estimate import Estimate
from biblios_kit.bots.heuristic import bid_limit
from biblios_kit.bots.style import MEDIUM, Style, strong_style
from biblios_kit.engine.compiled import PEN_NONE, CompiledRules
from biblios_kit.engine.observation import Observation, observe
from biblios_kit.engine.worlds import Worlds

WORLDS = 12
"""Worlds dealt to weigh each observed decision."""
CALIBRATION = (0.0, 0.3)
"""Log-likelihood added per decision weighed, per candidate (medium's, then hard's own style).
The worlds deal a rival's hidden cards at random while its real hand holds the cards it chose,
so they undervalue what it bids on and make every rival look like medium's keener bidder; this
offset was measured on synthetic games (docs/bots.md, "Where the search stands")."""
TABLE = 8
"""Rows of a search's table of rival styles (:meth:`RivalModel.table`)."""
SLIP = 0.04
"""Chance of a move the candidate style does not explain (keeps one odd move from ruling a style out)."""


def rival_candidates(players: int) -> tuple[Style, ...]:
    """The styles a rival may be modelled in at ``players``: medium's, then hard's own style without search."""
    return (MEDIUM, strong_style(players))


def bid_chance(limit: int, payable: int, amount: int, rival_leads: bool, bluff: float, free: bool) -> float:
    """The chance that the heuristic bids ``amount`` (the lowest raise) with this ``limit``.

    It bids when ``amount`` is within its limit and it can pay (``payable``, or ``free``: the
    ruleset has no penalty), and bluffs one raise over its limit (up to two over) with the
    chance ``bluff`` when a rival leads; otherwise it passes (``_bid`` in ``heuristic.py``).
    """
    if amount > payable and not free:
        return 0.0
    if amount <= limit:
        return 1.0
    if rival_leads and amount <= limit + 2:
        return bluff
    return 0.0


def round_decisions(bids: tuple[tuple[int, int], ...], seat: int) -> list[tuple[int, bool, bool]]:
    """``seat``'s decisions in a round's ``bids``: (the lowest raise then, whether it bid, whether a rival led)."""
    out = []
    high, leader = 0, -1
    for who, amount in bids:
        if who == seat:
            out.append((amount if amount else high + 1, amount > 0, leader >= 0 and leader != seat))
        if amount > high:
            high, leader = amount, who
    return out


class RivalModel:
    """Per rival, the log-likelihood of each candidate style given the bidding decisions seen so far."""

    def __init__(self, seed: int, candidates: tuple[Style, ...] | None = None, worlds: int = WORLDS) -> None:
        self.seed = seed
        self.fixed = candidates
        """The candidates (``None``: :func:`rival_candidates` for the game's player count)."""
        self.worlds = worlds
        self.rng = random.Random(seed)
        self.candidates: tuple[Style, ...] = ()
        self.calibration: tuple[float, ...] = ()
        self.scores: list[list[float]] = []
        """Per seat, per candidate: the summed (calibrated) log-likelihood of that seat's decisions
        seen in the rounds over."""
        self.seen: list[int] = []
        """Per seat, how many of its decisions were weighed."""
        self._round: tuple[int, int, tuple[int, ...]] | None = None
        self._read = 0
        self._progress = (-1, 0)
        self._pending: dict[int, list[float]] = {}
        """Per seat, the log-likelihoods of its decisions in the round under way (not yet in ``scores``)."""
        self._pending_seen: dict[int, int] = {}

    def _reset(self, obs: Observation) -> None:
        self.rng = random.Random(self.seed)
        self.candidates = self.fixed if self.fixed is not None else rival_candidates(obs.players)
        self.scores = [[0.0] * len(self.candidates) for _ in range(obs.players)]
        self.calibration = CALIBRATION if self.fixed is None else (0.0,) * len(self.candidates)
        self.seen = [0] * obs.players
        self._round = None
        self._read = 0
        self._pending = {}
        self._pending_seen = {}

    def update(self, rules: CompiledRules, obs: Observation) -> None:
        """Weigh the rivals' bids and passes in ``obs`` that were not read before.

        A rival's decisions in one round share its hand, so they are weighed together: the
        chance of all of them in each dealt world, averaged over the worlds, replaces what the
        round counted before (the round is weighed again when more of it is seen).
        """
        progress = (len(obs.revealed), -obs.draw_pile)
        if not self.scores or len(self.scores) != obs.players or progress < self._progress:
            self._reset(obs)  # a new game
        self._progress = progress
        auction = obs.auction
        if auction is None:
            return
        key = (len(obs.revealed), auction.card, auction.excluded)
        bids = auction.bids
        if key != self._round or self._read > len(bids):
            self._commit()
            self._round, self._read = key, 0
        fresh = {bids[i][0] for i in range(self._read, len(bids)) if bids[i][0] != obs.player}
        self._read = len(bids)
        if not fresh:
            return
        det = Worlds(rules, obs)
        worlds = [det.sample(self.rng) for _ in range(self.worlds)]
        free = rules.penalty == PEN_NONE
        for seat in sorted(fresh):
            decisions = round_decisions(bids, seat)
            views = [observe(world, seat) for world in worlds]
            pending = [0.0] * len(self.candidates)
            for k, style in enumerate(self.candidates):
                chance = 0.0
                for view in views:
                    limit, payable = bid_limit(Estimate(rules, view, style))
                    joint = 1.0
                    for price, bid, leads in decisions:
                        p = bid_chance(limit, payable, price, leads, style.bluff, free)
                        joint *= SLIP / 2 + (1.0 - SLIP) * (p if bid else 1.0 - p)
                    chance += joint
                pending[k] = math.log(chance / len(views)) + self.calibration[k] * len(decisions)
            self._pending[seat] = pending
            self._pending_seen[seat] = len(decisions)

    def _commit(self) -> None:
        """Add the round just over to the scores."""
        for seat, pending in self._pending.items():
            for k, value in enumerate(pending):
                self.scores[seat][k] += value
            self.seen[seat] += self._pending_seen[seat]
        self._pending = {}
        self._pending_seen = {}

    def likelihoods(self, seat: int) -> list[float]:
        """Per candidate, the (calibrated) log-likelihood of ``seat``'s decisions seen."""
        pending = self._pending.get(seat)
        if pending is None:
            return list(self.scores[seat])
        return [a + b for a, b in zip(self.scores[seat], pending, strict=True)]

    def posterior(self, seat: int) -> list[float]:
        """Per candidate, the chance that ``seat`` plays it (equal chances before any evidence)."""
        scores = self.likelihoods(seat)
        top = max(scores)
        weights = [math.exp(v - top) for v in scores]
        total = sum(weights)
        return [w / total for w in weights]

    def style_of(self, seat: int) -> Style:
        """The most likely style of ``seat`` (the first candidate on a tie or with nothing seen)."""
        scores = self.likelihoods(seat)
        best = 0
        for k in range(1, len(scores)):
            if scores[k] > scores[best] + 1e-9:
                best = k
        return self.candidates[best]

    def table(self, obs: Observation, own: Style, size: int = TABLE) -> list[list[Style]]:
        """``size`` rows of each seat's style, one row per round of a search from ``obs`` in turn:
        ``own`` for the bot, and each rival in each candidate style in a share of the rows equal
        to its posterior chance (stratified, not drawn: the same evidence gives the same rows)."""
        if len(self.scores) != obs.players:
            self._reset(obs)
        rows = [[own] * obs.players for _ in range(size)]
        for seat in range(obs.players):
            if seat == obs.player:
                continue
            bounds = []
            total = 0.0
            for chance in self.posterior(seat):
                total += chance
                bounds.append(total)
            for t in range(size):
                u = ((t + 3 * seat) % size + 0.5) / size
                k = 0
                while k < len(bounds) - 1 and u > bounds[k]:
                    k += 1
                rows[t][seat] = self.candidates[k]
        return rows
