"""Long-run invariant check: many random games over every shipped ruleset, option set and player count.

Run ``python benchmarks/invariants.py`` (100,000 games by default; ``--games N`` for a short
run, ``--workers W`` to use more cores). It is not part of the test suite: it takes minutes.
Every game is played with uniformly random legal actions through the engine's public API
(step by step with ``legal_actions`` and ``apply``, or with ``playout`` for the games only
checked at the end) and checked with ``observation`` and ``result``:

* **termination**: the game ends within :data:`MAX_DECISIONS` decisions, every
  non-final state has a player to move and at least one legal action, and the final
  state has none;
* **card conservation** (every ``--step-every``-th game, at every step, else at the end):
  hands, public space, draw pile, auction pile, removed and discarded cards, and the cards
  in play (drawn, kept, under auction, church being resolved) add up to the deck, and no
  card a player can see is in two places at once;
* **dice bounds**: every award die stays within its ruleset's bounds;
* **scoring**: category totals and Gold match the final hands, each die's points go to the
  player the result names, the first-place die goes to a player with the highest total,
  victory points are the sum of the dice won, the ranking places every player once in
  order of victory points, and the win shares add up to 1.

It prints the figures (games per ruleset, decisions, failures, speed) and exits with
status 1 if any invariant failed, listing the first failures with the seed to replay them.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from biblios_kit.engine import new_game
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.loader import available_rulesets
from biblios_kit.rules.model import CardKind, Ruleset

MAX_DECISIONS = 20_000
"""A game still running after this many decisions counts as not terminating."""


def shipped_choices() -> list[tuple[str, tuple[str, ...], int]]:
    """Every shipped edition and variant, with every combination of its options, at every player count."""
    choices = []
    for entry in available_rulesets():
        if entry.origin == "user":
            continue
        declared = sorted(load_ruleset(entry.id).options)
        for size in range(len(declared) + 1):
            for options in combinations(declared, size):
                ruleset = load_ruleset(entry.id, options)
                choices += [(entry.id, options, players) for players in ruleset.player_counts]
    return choices


@dataclass
class Tally:
    """The figures of a batch of games."""

    games: Counter[str] = field(default_factory=Counter)
    decisions: int = 0
    steps_checked: int = 0
    failures: list[str] = field(default_factory=list)
    failed_games: int = 0

    def add(self, other: Tally) -> None:
        self.games.update(other.games)
        self.decisions += other.decisions
        self.steps_checked += other.steps_checked
        self.failed_games += other.failed_games
        self.failures += other.failures[: max(0, 20 - len(self.failures))]


def _die_bounds(ruleset: Ruleset) -> list[tuple[int, int]]:
    """(min, max) of every award die, in the order of ``Observation.dice``."""
    return [(die.min, die.max) for category in ruleset.categories for die in category.dice]


def _check_step(state: Any, ruleset: Ruleset, bounds: list[tuple[int, int]], view: Any = None) -> Iterator[str]:
    """Conservation, visible-card uniqueness and dice bounds at one moment of a game (seen by ``view``)."""
    seat = state.current_player if state.current_player is not None else 0
    if view is None:
        view = state.observation(seat)
    seat = view.player
    in_play = [
        view.drawn,
        view.kept,
        view.auction.card if view.auction else None,
        view.church[1] if view.church else None,
    ]
    total = sum(view.hand_sizes) + len(view.public) + view.draw_pile + view.auction_pile + view.removed
    total += len(view.discard) + sum(card is not None for card in in_play) + (view.kept is None and view.kept_hidden)
    if total != len(ruleset.deck):
        yield f"{total} cards accounted for, the deck has {len(ruleset.deck)} (phase {view.phase.name})"
    seen = [*view.hand, *view.public, *view.discard, *(card for card in in_play if card is not None)]
    if len(seen) != len(set(seen)):
        yield f"a card is in two places: {sorted(card for card, n in Counter(seen).items() if n > 1)}"
    if sorted(view.hand) != list(view.hand) or len(view.hand) != view.hand_sizes[seat]:
        yield "the hand is not sorted or its size is wrong"
    for index, (face, (low, high)) in enumerate(zip(view.dice, bounds, strict=True)):
        if not low <= face <= high:
            yield f"die {index} shows {face}, outside {low}..{high}"


def _check_result(state: Any, ruleset: Ruleset, views: list[Any]) -> Iterator[str]:
    """Scoring checks on a finished game (``views``: every player's final observation)."""
    result = state.result()
    players = len(views)
    hands = [view.hand for view in views]
    if len({card for hand in hands for card in hand}) != sum(len(hand) for hand in hands):
        yield "a card is in two hands"
    dice = views[0].dice
    deck = ruleset.deck
    vp = [0] * players
    for category, entry in zip(ruleset.categories, result.categories, strict=True):
        totals = [sum(deck[c].value for c in hand if deck[c].category == category.id) for hand in hands]
        if list(entry.totals) != totals:
            yield f"{category.id}: totals {entry.totals}, the hands hold {totals}"
        for award in entry.awards:
            if award.value != dice[award.die]:
                yield f"{category.id}: die {award.die} scores {award.value} but shows {dice[award.die]}"
            if award.winner is not None:
                vp[award.winner] += award.value
                if award.place == 1 and totals[award.winner] != max(totals):
                    yield f"{category.id}: first place to player {award.winner} without the highest total"
    gold = [sum(deck[c].value for c in hand if deck[c].kind is CardKind.GOLD) for hand in hands]
    if list(result.gold) != gold:
        yield f"Gold {result.gold}, the hands hold {gold}"
    if list(result.victory_points) != vp:
        yield f"victory points {result.victory_points}, the dice won add up to {vp}"
    ranked = [p for placing in result.ranking for p in placing.players]
    if sorted(ranked) != list(range(players)):
        yield f"the ranking {ranked} does not place every player once"
    points = [result.victory_points[p] for p in ranked]
    if points != sorted(points, reverse=True):
        yield f"the ranking {ranked} is not in order of victory points {result.victory_points}"
    if abs(sum(result.win_share(p) for p in range(players)) - 1.0) > 1e-9:
        yield "the win shares do not add up to 1"


def play_batch(
    choices: list[tuple[str, tuple[str, ...], int]], seed: int, start: int, stop: int, step_every: int
) -> Tally:
    """Play games ``start .. stop-1`` (game ``i`` uses choice ``i mod len(choices)`` and seed ``(seed, i)``)."""
    tally = Tally()
    rulesets = {(name, options): load_ruleset(name, options) for name, options, _players in choices}
    bounds = {key: _die_bounds(ruleset) for key, ruleset in rulesets.items()}
    for index in range(start, stop):
        name, options, players = choices[index % len(choices)]
        ruleset = rulesets[(name, options)]
        label = f"{name}{'+' + '+'.join(options) if options else ''}/{players}p"
        game_seed = seed * 1_000_003 + index
        rng = random.Random(game_seed)
        state = new_game(ruleset, players, game_seed)
        every_step = step_every > 0 and index % step_every == 0
        problems: list[str] = []
        decisions = 0
        if not every_step:  # the engine's fast path plays the same random games (a test checks it)
            state.playout(rng)
            decisions = len(state.actions)
            if decisions >= MAX_DECISIONS:
                problems.append(f"ran for {decisions} decisions")
        while not state.is_terminal():
            if every_step:
                problems += _check_step(state, ruleset, bounds[(name, options)])
                tally.steps_checked += 1
            legal = state.legal_actions()
            if state.current_player is None or not legal:
                problems.append(f"no player to move or no legal action in phase {state.phase}")
                break
            state.apply(legal[int(rng.random() * len(legal))])
            decisions += 1
            if decisions >= MAX_DECISIONS:
                problems.append(f"still running after {MAX_DECISIONS} decisions")
                break
        if state.is_terminal():
            views = [state.observation(p) for p in range(players)]
            problems += _check_step(state, ruleset, bounds[(name, options)], views[0])
            if state.legal_actions() or state.current_player is not None:
                problems.append("the game is over but a player still has legal actions")
            problems += _check_result(state, ruleset, views)
        tally.games[label] += 1
        tally.decisions += decisions
        if problems:
            tally.failed_games += 1
            if len(tally.failures) < 20:
                tally.failures.append(f"{label} seed {game_seed}: " + "; ".join(dict.fromkeys(problems)))
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000, help="games to play (default 100,000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the run (default 0)")
    parser.add_argument("--workers", type=int, default=1, help="processes to play in (default 1)")
    parser.add_argument(
        "--step-every", type=int, default=10, help="check every step of one game in N (default 10; 0: end states only)"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.games < 1 or args.workers < 1 or args.step_every < 0:
        parser.error("--games and --workers must be at least 1, --step-every at least 0")

    choices = shipped_choices()
    began = time.perf_counter()
    tally = Tally()
    size = max(1, min(2_000, args.games // (4 * args.workers) or 1))
    batches = [(start, min(args.games, start + size)) for start in range(0, args.games, size)]
    if args.workers == 1:
        for start, stop in batches:
            tally.add(play_batch(choices, args.seed, start, stop, args.step_every))
    else:
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            futures = [pool.submit(play_batch, choices, args.seed, a, b, args.step_every) for a, b in batches]
            for future in futures:
                tally.add(future.result())
    seconds = time.perf_counter() - began
    games = sum(tally.games.values())
    figures = {
        "games": games,
        "configurations": len(choices),
        "games_per_configuration": dict(sorted(tally.games.items())),
        "decisions": tally.decisions,
        "steps_checked": tally.steps_checked,
        "failed_games": tally.failed_games,
        "first_failures": tally.failures,
        "seconds": round(seconds, 1),
        "games_per_second": round(games / seconds, 1) if seconds else 0.0,
        "workers": args.workers,
        "seed": args.seed,
    }
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        print(
            f"{games:,} random games over {len(choices)} configurations (ruleset, options, players), seed {args.seed}"
        )
        for label, count in sorted(tally.games.items()):
            print(f"  {label}: {count:,}")
        print(f"{tally.decisions:,} decisions; {tally.steps_checked:,} intermediate states checked")
        print(f"{seconds:.1f} s, {figures['games_per_second']} games/s with {args.workers} worker(s)")
        print(f"games breaking an invariant: {tally.failed_games}")
        for failure in tally.failures:
            print(f"  {failure}")
    return 1 if tally.failed_games else 0


if __name__ == "__main__":
    sys.exit(main())
