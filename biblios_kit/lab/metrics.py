"""Play one game of an experiment and measure it: the per-game figures every lab statistic is built from.

A game is played with bots made by :func:`~biblios_kit.bots.registry.make_bot`, seeded the way
:mod:`biblios_kit.sim.runner` seeds them (bot ``k`` from ``game_seed(seed, k)``), so a lab game and
a ``simulate`` game with the same seed and seats are the same game. The finished game is then
replayed from its seed and actions through the engine's public API, measuring the projected
victory points at every turn boundary (for comeback and tension); the events and the result give
the rest. Everything measured is plain JSON data (:data:`GameMetrics`), one results-file line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from biblios_kit.engine import EventKind, GameState, Phase, compile_rules, new_game
from biblios_kit.engine.scoring import score_hands
from biblios_kit.rules.model import Ruleset
from biblios_kit.sim.runner import game_seed, play_game

GameMetrics = dict[str, Any]
"""The figures of one game (JSON-ready); the keys are described in ``docs/lab.md``:

* ``win``: win share per seat (1, 1/k for a k-way shared win, or 0); ``vp``: victory points per seat;
* ``focus``: the seat under study in a restricted-play or skill game (else -1);
* ``decisions``, ``auctions`` (cards revealed for auction), ``unsold`` (auctioned cards discarded);
* ``shared`` (first place shared), ``tiebreak_depth`` (0 when victory points decided the winner,
  else the 1-based step of the final tie-break chain that did; the chain's length + 1 when still shared);
* ``category_winner``: first-place winner of each category in board order (-1 for nobody);
* ``dice``: final face of every award die, by category position from 1 (``"2"``), with ``:place``
  after it for a die of a place below the first (``"2:2"``); ``penalties``: players penalized (could not pay, or refused);
* ``gift_leaders``: the seats leading in projected victory points when the gift phase ends (empty
  when the game had no auction phase); ``lead_changes``: how often the sole leader in projected
  victory points changed between turn boundaries; ``decided_at``: the share of the game's decisions
  after which a winner led (alone or tied) at every turn boundary to the end.
"""


def play_restricted(
    ruleset: Ruleset, players: int, seed: int, seats: Sequence[str], focus: int, restriction_name: str
) -> GameState:
    """Play one game like :func:`~biblios_kit.sim.runner.play_game`, the bot of seat ``focus`` restricted."""
    from biblios_kit.bots.registry import make_bot
    from biblios_kit.lab.restrict import RestrictedBot, restriction

    bots = [make_bot(spec, game_seed(seed, seat), ruleset) for seat, spec in enumerate(seats)]
    rule = restriction(restriction_name)
    bots[focus] = RestrictedBot(bots[focus], rule, ruleset)
    state = new_game(ruleset, players, seed)
    while not state.is_terminal():
        player = state.current_player
        assert player is not None
        state.apply(bots[player].choose(state.observation(player)))
    return state


def play(
    ruleset: Ruleset, players: int, seed: int, seats: Sequence[str], focus: int = -1, restriction_name: str = ""
) -> tuple[int, ...]:
    """Play one game and return its actions (with ``restriction_name``, seat ``focus`` is restricted)."""
    if restriction_name:
        state = play_restricted(ruleset, players, seed, seats, focus, restriction_name)
    else:
        state = play_game(ruleset, players, seed, tuple(seats))
    return state.actions


def _leaders(vp: Sequence[int]) -> frozenset[int]:
    best = max(vp)
    return frozenset(p for p, v in enumerate(vp) if v == best)


def measure(ruleset: Ruleset, players: int, seed: int, actions: Sequence[int], focus: int = -1) -> GameMetrics:
    """Replay the game (``ruleset``, ``players``, ``seed``, ``actions``) and return its :data:`GameMetrics`."""
    rules = compile_rules(ruleset)
    state = new_game(ruleset, players, seed)
    seats = range(players)

    def projected() -> tuple[int, ...]:
        hands = [list(state.hand(p)) for p in seats]
        return score_hands(rules, hands, list(state.dice_values())).victory_points

    # (decisions made so far, projected victory points) at each turn boundary.
    checkpoints: list[tuple[int, tuple[int, ...]]] = [(0, projected())]
    gift_vp: tuple[int, ...] | None = None
    active = state.active_player
    for done, action in enumerate(actions, start=1):
        state.apply(action)
        if state.is_terminal():
            break
        if gift_vp is None and state.phase in (Phase.BIDDING, Phase.PAYMENT):
            gift_vp = projected()
            checkpoints.append((done, gift_vp))
            active = state.active_player
        elif state.active_player != active:
            active = state.active_player
            checkpoints.append((done, projected()))
    if not state.is_terminal():
        raise ValueError("the actions do not finish the game")
    result = state.result()
    decisions = len(actions)
    checkpoints.append((decisions, result.victory_points))
    winners = frozenset(result.winners)

    lead_changes = 0
    sole: int | None = None
    for _done, vp in checkpoints:
        leaders = _leaders(vp)
        if len(leaders) == 1:
            (leader,) = leaders
            if sole is not None and leader != sole:
                lead_changes += 1
            sole = leader
    decided = decisions
    for done, vp in reversed(checkpoints):
        if not _leaders(vp) & winners:
            break
        decided = done
    first = result.ranking[0]
    chain = ruleset.scoring.final_tiebreak
    if first.shared:
        depth = len(chain) + 1
    elif first.by is None:
        depth = 0
    else:
        depth = chain.index(first.by) + 1 if first.by in chain else len(chain)
    kinds = [event.kind for event in state.events_for(0)]
    return {
        "win": [result.win_share(p) for p in seats],
        "vp": list(result.victory_points),
        "focus": focus,
        "decisions": decisions,
        "auctions": kinds.count(EventKind.REVEALED),
        "unsold": kinds.count(EventKind.DISCARDED),
        "shared": result.shared,
        "tiebreak_depth": depth,
        "category_winner": [
            next((a.winner if a.winner is not None else -1 for a in c.awards if a.place == 1), -1)
            for c in result.categories
        ],
        "dice": {
            f"{k}" if award.place == 1 else f"{k}:{award.place}": award.value
            for k, c in enumerate(result.categories, start=1)
            for award in c.awards
        },
        "penalties": kinds.count(EventKind.CANNOT_PAY) + kinds.count(EventKind.REFUSED),
        "gift_leaders": sorted(_leaders(gift_vp)) if gift_vp is not None else [],
        "lead_changes": lead_changes,
        "decided_at": decided / decisions if decisions else 0.0,
    }


def play_and_measure(
    ruleset: Ruleset, players: int, seed: int, seats: Sequence[str], focus: int = -1, restriction_name: str = ""
) -> GameMetrics:
    """Play one game (see :func:`play`) and return its :data:`GameMetrics`."""
    actions = play(ruleset, players, seed, seats, focus, restriction_name)
    return measure(ruleset, players, seed, actions, focus)
