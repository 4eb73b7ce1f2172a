"""Play one game of an experiment and measure it: the per-game figures every lab statistic is built from.

A game is played by ``simulate``'s own game loop (:func:`~biblios_kit.sim.runner.play_game`, with
its bots: seat ``k`` seeded ``bot_seed(seed, k, BATCH)``), so a lab game and a ``simulate`` game
with the same seed and seats are the same game. It is measured as it is played, not replayed:
the projected victory points at every turn boundary the loop reports (for comeback and
tension), then the kernel's event log and the result give the rest. The loops that run per turn
boundary or per event are in :mod:`biblios_kit.lab.projector` (compiled with the bots). Everything
measured is plain JSON data (:data:`GameMetrics`), one results-file line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from biblios_kit.bots.base import Bot
from biblios_kit.engine import GameState, Phase, compile_rules, new_game
from biblios_kit.engine.scoring import outcome
from biblios_kit.lab.projector import Positions, Projector, event_counts, leaders, leads, result_figures
from biblios_kit.rules.model import Ruleset
from biblios_kit.sim.runner import make_bots, play_game

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
  after which a winner led (alone or tied) at every turn boundary to the end;
* ``overrides``, ``choices``: in a restricted-play game, how many of the restricted bot's choices its
  restriction replaced, and how many decisions it made (0 and 0 in any other game).
"""


def _bots(seed: int, seats: Sequence[str], focus: int, restriction_name: str, ruleset: Ruleset) -> list[Bot]:
    """The bots of one game, made as ``simulate`` makes them; seat ``focus`` restricted when asked."""
    bots = make_bots(ruleset, seed, seats)
    if restriction_name:
        from biblios_kit.lab.restrict import RestrictedBot, restriction

        bots[focus] = RestrictedBot(bots[focus], restriction(restriction_name), ruleset)
    return bots


def play_restricted(
    ruleset: Ruleset, players: int, seed: int, seats: Sequence[str], focus: int, restriction_name: str
) -> GameState:
    """Play one game like :func:`~biblios_kit.sim.runner.play_game`, the bot of seat ``focus`` restricted."""
    return play_game(ruleset, players, seed, seats, _bots(seed, seats, focus, restriction_name, ruleset))


def play(
    ruleset: Ruleset, players: int, seed: int, seats: Sequence[str], focus: int = -1, restriction_name: str = ""
) -> tuple[int, ...]:
    """Play one game and return its actions (with ``restriction_name``, seat ``focus`` is restricted)."""
    if restriction_name:
        state = play_restricted(ruleset, players, seed, seats, focus, restriction_name)
    else:
        state = play_game(ruleset, players, seed, tuple(seats))
    return state.actions


def _players(mask: int) -> list[int]:
    """The players of a bit mask (bit ``p`` for player ``p``), in seat order."""
    return [p for p in range(mask.bit_length()) if mask >> p & 1]


def _summary(
    ruleset: Ruleset,
    state: GameState,
    checkpoints: list[tuple[int, tuple[int, ...]]],
    gift_vp: tuple[int, ...] | None,
    focus: int,
) -> GameMetrics:
    """The :data:`GameMetrics` of a finished game from its projected points at each turn boundary."""
    result = state.result()
    decisions = state.decision_count
    checkpoints.append((decisions, result.victory_points))
    winners = 0
    for p in result.winners:
        winners |= 1 << p
    lead_changes, decided = leads(checkpoints, winners, decisions)
    first = result.ranking[0]
    chain = ruleset.scoring.final_tiebreak
    if first.shared:
        depth = len(chain) + 1
    elif first.by is None:
        depth = 0
    else:
        depth = chain.index(first.by) + 1 if first.by in chain else len(chain)
    auctions, unsold, penalties = event_counts(state)  # the kernel's own event log, read as it stands
    win, category_winner, dice = result_figures(result)
    return {
        "win": win,
        "vp": list(result.victory_points),
        "focus": focus,
        "decisions": decisions,
        "auctions": auctions,
        "unsold": unsold,
        "shared": result.shared,
        "tiebreak_depth": depth,
        "category_winner": category_winner,
        "dice": dice,
        "penalties": penalties,
        "gift_leaders": _players(leaders(gift_vp)) if gift_vp is not None else [],
        "lead_changes": lead_changes,
        "decided_at": decided / decisions if decisions else 0.0,
        "overrides": 0,
        "choices": 0,
    }


def measure(ruleset: Ruleset, players: int, seed: int, actions: Sequence[int], focus: int = -1) -> GameMetrics:
    """Replay the game (``ruleset``, ``players``, ``seed``, ``actions``) and return its :data:`GameMetrics`.

    The reference the lab's own measure (:func:`play_and_measure`, made while the game is played)
    is tested against: it scores every turn boundary with the engine's scoring (``outcome``).
    ``overrides`` and ``choices`` are 0 (a replay knows nothing of a restriction).
    """
    rules = compile_rules(ruleset)
    state = new_game(ruleset, players, seed)
    seats = range(players)

    def projected() -> tuple[int, ...]:
        hands = [list(state.hand(p)) for p in seats]
        return outcome(rules, hands, list(state.dice_values())).victory_points

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
    if not state.is_terminal() or state.decision_count != len(actions):
        raise ValueError("the actions do not finish the game")
    return _summary(ruleset, state, checkpoints, gift_vp, focus)


def play_and_measure(
    ruleset: Ruleset, players: int, seed: int, seats: Sequence[str], focus: int = -1, restriction_name: str = ""
) -> GameMetrics:
    """Play one game (the game :func:`play` plays) and return its :data:`GameMetrics`, measured as it is played.

    The game is played by ``simulate``'s own loop (:func:`~biblios_kit.sim.runner.play_game`), which
    hands over each turn boundary: the hands and dice are copied there (:class:`~biblios_kit.lab.projector.Positions`)
    and projected once the game is over, in one loop (projecting between two bot decisions cost 2-3
    times as much, the caches full of the bot's work), and the counts come from the kernel's event
    log. Nothing is replayed. With ``restriction_name``, ``overrides`` counts the
    restricted bot's choices its restriction replaced and ``choices`` its decisions.
    """
    bots = _bots(seed, seats, focus, restriction_name, ruleset)
    positions = Positions()
    state = play_game(ruleset, players, seed, seats, bots, positions.take)
    checkpoints = Projector(compile_rules(ruleset), players).all(positions)
    gift_vp = checkpoints[positions.auction][1] if positions.auction >= 0 else None
    metrics = _summary(ruleset, state, checkpoints, gift_vp, focus)
    if restriction_name:
        restricted = bots[focus]
        metrics["overrides"] = restricted.overridden  # type: ignore[attr-defined]
        metrics["choices"] = restricted.choices  # type: ignore[attr-defined]
    return metrics
