"""How much could a search gain over hard's own style? Each move's value by common-random-number rollouts.

Usage (from the repository root)::

    .venv/bin/python benchmarks/search_headroom.py --games 2 --rollouts 200

It plays two-player games of hard's style (``STRONG``) against itself and, at every third
decision with a choice (gift, pick, church and bidding; bids between pass and the lowest
raise, plus the style's own bid), values each legal move from the deciding player's
observation only: ``--rollouts`` times it deals a world consistent with that observation
(:class:`~biblios_kit.engine.worlds.Worlds`), plays every move from it, and plays each
resulting game **to the end** with the style for the player and medium for the rivals, all
moves of a world sharing the same random numbers (the luck cancels in the differences). The
reward is the search's final reward (:func:`~biblios_kit.bots.playout.rewards`: mostly the win
share). For each position it prints every move's mean difference from the style's move with
its standard error, then counts the positions where another move looks better and where it is
better by more than two standard errors.

This is the most a search built on these rollouts could learn with unlimited time: if the
style's move is already (nearly) the best one in this measure, no budget of a few hundred
rollouts can tell the moves apart (docs/bots.md, "Where the search stands").
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from biblios_kit.bots.estimate import EstimateCache
from biblios_kit.bots.heuristic import decide
from biblios_kit.bots.playout import rewards
from biblios_kit.bots.style import MEDIUM, STRONG, Style
from biblios_kit.engine import compile_rules, new_game
from biblios_kit.engine.actions import BID, PASS
from biblios_kit.engine.compiled import CompiledRules
from biblios_kit.engine.observation import Observation, observe
from biblios_kit.engine.state import GameState, Phase
from biblios_kit.engine.worlds import Worlds
from biblios_kit.rules import load_ruleset

SEARCHED = (Phase.GIFT, Phase.PICK, Phase.CHURCH, Phase.BIDDING)


def play_to_the_end(
    world: GameState, rules: CompiledRules, rng: random.Random, me: int, own: Style, caches: list[EstimateCache]
) -> None:
    """Play ``world`` to its end: ``me`` in ``own`` style, every other seat as medium, each on its own view."""
    while world.cur >= 0:
        legal = world.legal()
        if len(legal) == 1:
            world.step(legal[0])
            continue
        p = world.cur
        world.step(decide(rules, observe(world, p), rng, own if p == me else MEDIUM, caches[p]))


def moves_to_compare(obs: Observation, style_move: int) -> list[int]:
    """The legal moves valued: all of them, except bids (pass, the lowest raise and the style's bid)."""
    legal = obs.legal_actions
    if obs.phase == Phase.BIDDING and obs.auction is not None:
        wanted = {PASS, BID + obs.auction.min_bid, style_move}
        return sorted(a for a in legal if a in wanted)
    return list(legal)


def value_moves(
    rules: CompiledRules, obs: Observation, moves: list[int], style_move: int, rollouts: int, rng: random.Random
) -> list[tuple[int, float, float]]:
    """(move, mean reward difference from the style's move, its standard error) for each move."""
    det = Worlds(rules, obs)
    caches = [EstimateCache() for _ in range(obs.players)]
    sums = dict.fromkeys(moves, 0.0)
    squares = dict.fromkeys(moves, 0.0)
    for _ in range(rollouts):
        world = det.sample(rng)
        seed = rng.getrandbits(32)
        got = {}
        for move in moves:
            w = world.clone()
            w.step(move)
            play_to_the_end(w, rules, random.Random(seed), obs.player, STRONG, caches)
            got[move] = rewards(w)[obs.player]
        for move in moves:
            d = got[move] - got[style_move]
            sums[move] += d
            squares[move] += d * d
    out = []
    for move in moves:
        mean = sums[move] / rollouts
        variance = max(0.0, squares[move] / rollouts - mean * mean)
        out.append((move, mean, math.sqrt(variance / rollouts)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--rollouts", type=int, default=200, help="worlds per position (every move plays each)")
    parser.add_argument("--ruleset", default="biblios")
    parser.add_argument("--seed", type=int, default=100)
    args = parser.parse_args(argv)
    ruleset = load_ruleset(args.ruleset)
    rules = compile_rules(ruleset)
    rng = random.Random(args.seed)
    positions = better = significant = 0
    gaps: list[float] = []
    began = time.process_time()
    for game in range(args.games):
        state = new_game(ruleset, 2, args.seed + game)
        caches = [EstimateCache(), EstimateCache()]
        decisions = 0
        while not state.is_terminal():
            p = state.current_player
            assert p is not None
            obs = state.observation(p)
            style_move = decide(rules, obs, rng, STRONG, caches[p])
            if len(obs.legal_actions) > 1 and obs.phase in SEARCHED:
                decisions += 1
                moves = moves_to_compare(obs, style_move)
                if decisions % 3 == 0 and len(moves) > 1:
                    values = value_moves(rules, obs, moves, style_move, args.rollouts, rng)
                    best, mean, se = max(values, key=lambda v: v[1])
                    positions += 1
                    gaps.append(mean)
                    if best != style_move:
                        better += 1
                        significant += mean > 2 * se
                    row = ", ".join(f"{m}: {d:+.3f} ± {s:.3f}" for m, d, s in values)
                    print(f"game {game} {obs.phase.name.lower():8} style {style_move:>8}  {row}", flush=True)
            state.apply(style_move)
    print(
        f"{positions} positions, {args.rollouts} rollouts per move: another move looked better in {better}, "
        f"by more than two standard errors in {significant}; mean best gain {sum(gaps) / max(1, len(gaps)):+.4f}, "
        f"largest {max(gaps, default=0.0):+.4f} ({time.process_time() - began:.0f} s CPU)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
