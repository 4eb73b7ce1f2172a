"""The ``hard`` bot: information-set Monte Carlo search over the bot's own view.

By default (``paired=1``, ``focus=1``, ``horizon=1``) hard plays its tuned style
(:func:`~biblios_kit.bots.style.strong_style`) and searches its **bidding** decisions, where
the style's judgement leaves the most to gain (docs/bots.md, "Where the search stands"):
each round deals a determinization of the hidden cards, plays pass and the lowest raise (and
the style's own bid) from it with common random numbers, and plays every resulting game **to
its end** with the heuristic for every seat (the style for the bot, medium for its rivals),
scoring the real result (:meth:`ISMCTSBot._compare`). It leaves the style's bid only when
another is better by ``gate`` standard errors of the paired differences.

``paired=0`` grows a tree instead (the default before): each iteration deals a fresh
determinization of the hidden cards from the bot's own observation
(the engine's model of hidden information, :class:`~biblios_kit.engine.worlds.Worlds`: no card
is ever put where the bot knows it is not), walks one tree keyed by actions, choosing among the
children legal in that world by UCB1 with availability counts (Cowling, Powley and
Whitehouse 2012) plus a progressive bias towards the medium heuristic's move at the
root, adds one node, lets the cheap :class:`~biblios_kit.bots.playout.PlayoutPolicy`
finish the current gift or auction turn (and ``depth`` more decisions), evaluates the
position, and backs the reward up the path.

With ``model=2`` (the default) the rivals' moves inside the tree, and every move of the
settling playout after the leaf, are the medium heuristic's own decisions, each seat
deciding on its own observation of the determinized world (which keeps only the public
history); the tree holds the bot's own moves
and searches for the best reply to heuristic play. ``model=1`` uses the cheap playout
policy for the rivals and the settling instead (about three times faster per iteration,
but weaker: level with medium in our measurements); with ``model=0`` the rivals' moves
are tree nodes too, each player maximising their own reward (single-observer ISMCTS).
The bot's own heuristic moves and the evaluation use the tuned
:func:`~biblios_kit.bots.style.strong_style` (``STRONG`` with two players, ``STRONG_MULTI`` with
more); the modelled rivals play medium's
:data:`~biblios_kit.bots.style.MEDIUM`.

In the tree, bids are searched over a few candidates (pass, the lowest raise, and the next
two), so the tree stays narrow; payments are not searched (the heuristic's least-waste payment
is exact). A decision with a single legal action is returned at once. The budget is a
number of iterations (deterministic for a seed) and/or a time limit; the tree holds at
most ``max_nodes`` nodes. All search state is local to a call, so a bot may think in a
worker thread (one call at a time per bot, enforced by a lock).
"""

from __future__ import annotations

import math
import random
import threading
import time
from dataclasses import dataclass

from biblios_kit.bots.context import checked_rules
from biblios_kit.bots.estimate import EstimateCache
from biblios_kit.bots.heuristic import decide
from biblios_kit.bots.params import check_names, number
from biblios_kit.bots.playout import PlayoutPolicy, rewards
from biblios_kit.bots.style import MEDIUM, Style, strong_style
from biblios_kit.engine.actions import BID, PASS, Action
from biblios_kit.engine.compiled import CompiledRules, compile_rules
from biblios_kit.engine.core import PH_BIDDING, PH_PAYMENT, Phase
from biblios_kit.engine.observation import Observation, observe
from biblios_kit.engine.state import GameState
from biblios_kit.engine.worlds import Worlds
from biblios_kit.rules.model import Ruleset

DEFAULT_ITERATIONS = 200
"""Default budget: evaluations (``paired=1``) or iterations (the tree); see docs/bots.md for times."""
DEFAULT_EXPLORATION = 0.7
DEFAULT_MAX_NODES = 100_000
DEFAULT_DEPTH = 0
DEFAULT_PRIOR = 1.0
DEFAULT_MODEL = 2
DEFAULT_PAIRED = 1
"""1: compare the root moves on common worlds (:meth:`ISMCTSBot._compare`); 0: grow a tree."""
DEFAULT_FOCUS = 1
"""1: the paired comparison searches bidding decisions only (the style decides the others); 0: every decision."""
DEFAULT_HORIZON = 1
"""1: the paired comparison plays each world to the end of the game; 0: to the end of the turn, then evaluates it."""
DEFAULT_GATES = (0.0, 2.0)
"""The default ``gate`` of the tree search and of the paired comparison."""


class Node:
    """One action's node: visits, summed reward of the player who chose it, availability."""

    __slots__ = ("avail", "children", "reward", "visits")

    def __init__(self) -> None:
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.avail = 1


def candidates(state: GameState) -> list[int]:
    """The actions the tree considers in ``state``: all legal ones, except bids (a few raises)."""
    if state.ph == PH_BIDDING:
        lo, hi = state.bid_range()
        return [PASS] + [BID + b for b in range(lo, min(hi, lo + 2) + 1)]
    return list(state.legal())


@dataclass(frozen=True)
class MoveStat:
    """One root move after a search: how often it was tried and its mean reward (a win chance in [0, 1])."""

    action: Action
    visits: int
    mean: float


@dataclass(frozen=True)
class Analysis:
    """What a search found: the move the bot plays, the style's own move, and every root move's statistics."""

    choice: Action
    """The move :meth:`ISMCTSBot.choose` would play from this observation (with the same RNG state)."""
    style_choice: Action
    """The move of the style the search evaluates with (the progressive bias's target)."""
    moves: tuple[MoveStat, ...]
    """Root moves, most visited first (only the choice, with no visits, when nothing was searched)."""

    def stat(self, action: Action) -> MoveStat | None:
        """The statistics of ``action``, or ``None`` if the search did not try it."""
        for move in self.moves:
            if move.action == action:
                return move
        return None


class ISMCTSBot:
    """Information-set MCTS (see the module docstring); deterministic for a seed with an iteration budget."""

    def __init__(
        self,
        seed: int,
        ruleset: Ruleset,
        name: str = "hard",
        iterations: int | None = DEFAULT_ITERATIONS,
        seconds: float | None = None,
        exploration: float = DEFAULT_EXPLORATION,
        epsilon: float = 0.1,
        max_nodes: int = DEFAULT_MAX_NODES,
        depth: int = DEFAULT_DEPTH,
        prior: float = DEFAULT_PRIOR,
        model: int = DEFAULT_MODEL,
        gate: float | None = None,
        paired: int = DEFAULT_PAIRED,
        focus: int = DEFAULT_FOCUS,
        horizon: int = DEFAULT_HORIZON,
    ) -> None:
        if iterations is None and seconds is None:
            raise ValueError("give an iteration budget, a time budget, or both")
        if iterations is not None and iterations < 1:
            raise ValueError(f"iterations must be at least 1, got {iterations}")
        if seconds is not None and seconds <= 0:
            raise ValueError(f"seconds must be positive, got {seconds}")
        if exploration < 0 or not 0 <= epsilon <= 1 or max_nodes < 1:
            raise ValueError("expected exploration >= 0, epsilon in [0, 1] and max_nodes >= 1")
        self.name = name
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = exploration
        self.epsilon = epsilon
        self.max_nodes = max_nodes
        self.depth = depth
        """Playout length in decisions before the position is evaluated (0: evaluate at the leaf)."""
        self.prior = prior
        """Weight of the progressive bias towards the medium heuristic's move at the root (0: none)."""
        self.model = model
        """2: inside the tree rivals play medium's decisions and the settling uses medium too;
        1: rivals and the settling use the cheap playout policy; 0: rivals' moves are searched too."""
        self.gate = DEFAULT_GATES[1 if paired else 0] if gate is None else gate
        """Standard errors of evidence needed to play another move than the heuristic's (0: off)."""
        self.paired = paired
        """1: compare the root moves on common worlds instead of growing a tree (see :meth:`_compare`)."""
        self.focus = focus
        """1 (``paired=1`` only): search bidding decisions only; the style decides every other one."""
        self.horizon = horizon
        """``paired=1`` only: 1 plays each world to the end of the game and scores the real result;
        0 plays to the end of the turn and evaluates the position (:meth:`PlayoutPolicy.evaluate`)."""
        self.rules = compile_rules(ruleset)
        """The rules it plays by (the ruleset with its options, given when it is made)."""
        self.last_iterations = 0
        """Iterations run by the last search (0 when no search was needed)."""
        self.last_nodes = 0
        """Tree nodes built by the last search (at most ``max_nodes``)."""
        self._lock = threading.Lock()

    def choose(self, observation: Observation) -> Action:
        """Search from ``observation`` and return the move to play (see the module docstring)."""
        legal = observation.legal_actions
        if not legal:
            raise ValueError(f"player {observation.player} has no decision to make")
        if len(legal) == 1:
            self.last_iterations = 0
            return legal[0]
        return self.analyse(observation).choice

    def analyse(self, observation: Observation, consider: tuple[Action, ...] = ()) -> Analysis:
        """Search from ``observation`` and return every root move's statistics, best first.

        ``consider`` adds legal actions the tree would not try on its own (a bid above the
        few raises it searches), so a move someone played can be compared with the others.
        A payment, or a decision with one legal action, is not searched (nor, with ``focus=1``,
        anything but a bid): the analysis then holds only the move the bot plays, with no
        statistics (``visits`` 0). Hints and reviews analyse with the tree (``paired=0``).
        """
        legal = observation.legal_actions
        if not legal:
            raise ValueError(f"player {observation.player} has no decision to make")
        with self._lock:
            rules = checked_rules(self.rules, observation)
            own = strong_style(observation.players)
            if len(legal) == 1 or observation.phase == Phase.PAYMENT:
                self.last_iterations = 0
                choice = legal[0] if len(legal) == 1 else decide(rules, observation, self.rng, own)
                return Analysis(choice, choice, (MoveStat(choice, 0, 0.0),))
            det = Worlds(rules, observation)
            extra = frozenset(a for a in consider if a in set(legal))
            policy = PlayoutPolicy(rules, self.epsilon, style=own)
            if self.paired:
                return self._compare(observation, det, policy, own, extra)
            root, prior = self._search(observation, det, policy, own, extra)
            choice = self._pick(observation, det.rules, root, prior, own)
            stats = sorted(
                (MoveStat(a, child.visits, child.reward / child.visits if child.visits else 0.0)
                 for a, child in root.children.items() if a in legal),
                key=lambda m: (-m.visits, -m.mean, m.action),
            )  # fmt: skip
            if prior is None:
                prior = choice
            return Analysis(choice, prior, tuple(stats))

    def _search(
        self,
        obs: Observation,
        det: Worlds,
        policy: PlayoutPolicy,
        own: Style,
        extra: frozenset[Action] = frozenset(),
    ) -> tuple[Node, Action | None]:
        """Run the search from ``obs``: (the root of the tree, the style's own move or ``None``)."""
        rng = self.rng
        me = obs.player
        legal = set(obs.legal_actions)
        rivals = PlayoutPolicy(det.rules, self.epsilon, sealed=False) if self.model else None
        root = Node()
        nodes = 1
        c = self.exploration
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        prior = decide(det.rules, obs, random.Random(rng.getrandbits(32)), own) if self.prior else None
        bias = self.prior
        limit = self.iterations if self.iterations is not None else 1 << 62
        estimates = [EstimateCache() for _ in range(obs.players)]
        """Per seat, its last estimate in the world being played (shared by its bidding rounds)."""
        done = 0
        while done < limit:
            if deadline is not None and done and time.perf_counter() >= deadline:
                break
            done += 1
            world = det.sample(rng)
            node = root
            path: list[tuple[Node, int]] = []
            expanded = False
            while world.cur >= 0 and not expanded:
                if world.ph == PH_PAYMENT:  # payments are not searched: least waste
                    world.step(policy.choose(world, rng))
                    continue
                if self.model == 2 and world.cur != me:  # rivals play medium on their view of this world
                    world.step(decide(det.rules, observe(world, world.cur), rng, MEDIUM, estimates[world.cur]))
                    continue
                if rivals is not None and world.cur != me:  # rivals follow the heuristic policy
                    world.step(rivals.choose(world, rng))
                    continue
                if node is not root:
                    options = candidates(world)
                else:
                    options = [a for a in candidates(world) if a in legal]
                    if extra:
                        options += sorted(extra.difference(options))
                if len(options) == 1:
                    world.step(options[0])
                    continue
                p = world.cur
                untried = []
                children = node.children
                for a in options:
                    child = children.get(a)
                    if child is None:
                        untried.append(a)
                    else:
                        child.avail += 1
                if untried and nodes < self.max_nodes:
                    a = prior if node is root and prior in untried else untried[int(rng.random() * len(untried))]
                    child = Node()
                    children[a] = child
                    nodes += 1
                    expanded = True
                else:
                    best, a = -1.0, options[0]
                    for option in options:
                        child = children.get(option)
                        if child is None or child.visits == 0:
                            continue
                        score = child.reward / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
                        if option == prior and node is root:
                            score += bias / (1 + child.visits)  # progressive bias towards the heuristic's move
                        if score > best:
                            best, a = score, option
                    child = children.get(a)
                    if child is None:  # node budget exhausted on an untried move: play it without a node
                        world.step(a)
                        break
                path.append((child, p))
                world.step(a)
                node = child
            if world.cur >= 0 and self.model == 2:
                _settle_by_heuristic(world, det.rules, rng, me, estimates, own)
            elif world.cur >= 0:
                policy.settle(world, rng)
            if world.cur >= 0 and self.depth:
                policy.play(world, rng, self.depth)
            reward = policy.evaluate(world) if world.cur >= 0 else rewards(world)
            for child, p in path:
                child.visits += 1
                child.reward += reward[p]
        self.last_iterations = done
        self.last_nodes = nodes
        return root, prior

    def _compare(
        self,
        obs: Observation,
        det: Worlds,
        policy: PlayoutPolicy,
        own: Style,
        extra: frozenset[Action] = frozenset(),
    ) -> Analysis:
        """Compare the root moves on common worlds and keep the style's move unless another one is
        better by ``gate`` standard errors of the paired differences.

        Each round deals one world and plays every move still in the running from it, with the
        same random numbers for each (common random numbers: the luck of the deal and of the
        rest of the turn cancels in the differences); the rest of the turn is played by
        medium's decisions for the rivals and the style's for us, then the position is
        evaluated. A move whose mean falls ``drop`` standard errors below the leader's is
        dropped, so the budget (``iterations`` evaluations) goes to the moves that are close.
        """
        rng = self.rng
        me = obs.player
        rules = det.rules
        legal = obs.legal_actions
        if obs.phase == Phase.BIDDING and obs.auction is not None:
            lo = obs.auction.min_bid
            # pass or the lowest raise: against rivals who raise by the minimum, a jump bid only
            # raises our own price, and the leaf evaluation undervalues Gold enough to prefer it
            options = [a for a in (PASS, BID + lo) if a in legal]
        else:
            options = list(legal)
        options += sorted(extra.difference(options))
        prior = decide(rules, obs, random.Random(rng.getrandbits(32)), own)
        if self.focus and obs.phase != Phase.BIDDING:  # the style's move, unsearched
            self.last_iterations = 0
            return Analysis(prior, prior, (MoveStat(prior, 0, 0.0),))
        if prior not in options:
            options.append(prior)
        limit = self.iterations if self.iterations is not None else 1 << 62
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        estimates = [EstimateCache() for _ in range(obs.players)]
        sums = dict.fromkeys(options, 0.0)
        diffs = dict.fromkeys(options, 0.0)  # sum and sum of squares of (reward - prior's reward)
        squares = dict.fromkeys(options, 0.0)
        rounds = dict.fromkeys(options, 0)
        alive = list(options)
        done = 0
        drop = 3.0
        while done < limit and len(alive) > 1:
            if deadline is not None and done and time.perf_counter() >= deadline:
                break
            world = det.sample(rng)
            seed = rng.getrandbits(32)
            got: dict[Action, float] = {}
            for a in alive:
                w = world.clone()
                w.step(a)
                r = random.Random(seed)
                if w.cur >= 0:
                    _settle_by_heuristic(w, rules, r, me, estimates, own, to_end=self.horizon == 1)
                got[a] = (policy.evaluate(w) if w.cur >= 0 else rewards(w))[me]
                done += 1
            base = got[prior]
            for a, value in got.items():
                sums[a] += value
                rounds[a] += 1
                d = value - base
                diffs[a] += d
                squares[a] += d * d
            n = rounds[prior]
            if n >= 8:  # drop the moves clearly behind the leader (paired with the style's move)
                lead = max(alive, key=lambda a: diffs[a] / rounds[a])
                keep = []
                for a in alive:
                    if a in (prior, lead) or a in extra:
                        keep.append(a)
                        continue
                    gap = diffs[lead] / n - diffs[a] / n
                    spread = _paired_se(diffs[lead] - diffs[a], squares[lead] + squares[a], n)
                    if gap <= drop * spread:
                        keep.append(a)
                alive = keep
        self.last_iterations = done
        self.last_nodes = len(options)
        means = {a: sums[a] / rounds[a] for a in options if rounds[a]}
        choice = prior
        best = max(means, key=lambda a: (means[a], a == prior)) if means else prior
        if best != prior and rounds[best]:
            n = rounds[best]
            se = _paired_se(diffs[best], squares[best], n)
            if diffs[best] / n > self.gate * se:
                choice = best
        stats = sorted(
            (MoveStat(a, rounds[a], means[a]) for a in options if rounds[a]),
            key=lambda m: (-m.mean, m.action),
        )
        return Analysis(choice, prior, tuple(stats))

    def _pick(self, obs: Observation, rules: CompiledRules, root: Node, prior: Action | None, own: Style) -> Action:
        """The move to play after the search: the most visited legal child, gated by ``gate``."""
        rng = self.rng
        legal = set(obs.legal_actions)
        ranked = [(child.visits, child.reward, a) for a, child in root.children.items() if a in legal]
        if not ranked:
            return decide(rules, obs, rng, own)
        best = max(ranked)[2]
        if self.gate and prior in root.children and best != prior:
            # Leave the heuristic's move only on evidence: the gap in mean reward must exceed
            # ``gate`` standard errors (rewards lie in [0, 1], so each variance is at most 1/4).
            b, h = root.children[best], root.children[prior]
            if b.visits and h.visits:
                gap = b.reward / b.visits - h.reward / h.visits
                if gap < self.gate * math.sqrt(0.25 / b.visits + 0.25 / h.visits):
                    return prior
        return best


def _paired_se(total: float, squares: float, n: int) -> float:
    """Standard error of the mean of ``n`` paired differences from their sum and sum of squares."""
    if n < 2:
        return 1.0
    mean = total / n
    variance = max(0.0, (squares - n * mean * mean) / (n - 1))
    return math.sqrt(variance / n) + 1e-9


def _settle_by_heuristic(
    world: GameState,
    rules: CompiledRules,
    rng: random.Random,
    me: int,
    estimates: list[EstimateCache] | None = None,
    own: Style | None = None,
    limit: int = 80,
    to_end: bool = False,
) -> None:
    """Play ``world`` on to the end of the turn (or of the game, ``to_end``), each seat deciding on
    its own view: the searching player ``me`` in its own style (``own``, by default the hard bot's
    for this player count), the rivals as medium (``estimates``: each seat's estimate cache)."""
    mine = strong_style(world.n) if own is None else own
    caches = estimates if estimates is not None else [EstimateCache() for _ in range(world.n)]
    active, auction = world.active, world.draw == [] and world.to_draw == 0
    if to_end:
        limit = 1 << 20
    while world.cur >= 0 and limit > 0 and (to_end or world.active == active):
        if not to_end and auction != (world.draw == [] and world.to_draw == 0):
            break
        if world.ph == PH_PAYMENT:
            legal = world.legal()
            world.step(
                legal[0]
                if len(legal) == 1
                else decide(
                    rules, observe(world, world.cur), rng, mine if world.cur == me else MEDIUM, caches[world.cur]
                )
            )
        else:
            world.step(
                decide(rules, observe(world, world.cur), rng, mine if world.cur == me else MEDIUM, caches[world.cur])
            )
        limit -= 1


def create_bot(name: str, seed: int, params: dict[str, object], ruleset: Ruleset) -> ISMCTSBot:
    """Registry hook: ``hard`` with optional ``iterations``, ``seconds``, ``exploration``, ``epsilon``,
    ``max_nodes``, ``depth`` (playout decisions before evaluating), ``prior`` (bias to the
    heuristic), ``model``, ``gate``, ``paired``, ``focus`` and ``horizon`` (see :class:`ISMCTSBot`).

    Giving only ``seconds`` searches for that long (not reproducible); giving both stops at
    whichever comes first.
    """
    check_names(
        params,
        (
            "iterations",
            "seconds",
            "exploration",
            "epsilon",
            "max_nodes",
            "depth",
            "prior",
            "model",
            "gate",
            "paired",
            "focus",
            "horizon",
        ),
    )
    timed_only = "seconds" in params and "iterations" not in params
    return ISMCTSBot(
        seed,
        ruleset,
        name,
        iterations=None if timed_only else int(number(params, "iterations", DEFAULT_ITERATIONS, low=1, whole=True)),
        seconds=number(params, "seconds", 1.0, low=0.0, above=True) if "seconds" in params else None,
        exploration=number(params, "exploration", DEFAULT_EXPLORATION, low=0.0),
        epsilon=number(params, "epsilon", 0.1, low=0.0, high=1.0),
        max_nodes=int(number(params, "max_nodes", DEFAULT_MAX_NODES, low=1, whole=True)),
        depth=int(number(params, "depth", DEFAULT_DEPTH, low=0, whole=True)),
        prior=number(params, "prior", DEFAULT_PRIOR, low=0.0),
        model=int(number(params, "model", DEFAULT_MODEL, low=0, high=2, whole=True)),
        gate=number(params, "gate", 0.0, low=0.0) if "gate" in params else None,
        paired=int(number(params, "paired", DEFAULT_PAIRED, low=0, high=1, whole=True)),
        focus=int(number(params, "focus", DEFAULT_FOCUS, low=0, high=1, whole=True)),
        horizon=int(number(params, "horizon", DEFAULT_HORIZON, low=0, high=1, whole=True)),
    )
