"""Play one game of an experiment and measure it: the per-game figures every lab statistic is built from.

A game is played by ``simulate``'s own game loop (:func:`~biblios_kit.sim.runner.play_game`, with
its bots: seat ``k`` seeded ``bot_seed(seed, k, BATCH)``), so a lab game and a ``simulate`` game
with the same seed and seats are the same game. It is measured as it is played, not replayed:
the projected victory points at every turn boundary the loop reports (for comeback and
tension), then the kernel's event log and the result give the rest. Everything measured is plain JSON data (:data:`GameMetrics`), one results-file line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from biblios_kit.bots.base import Bot
from biblios_kit.engine import GameState, Phase, compile_rules, new_game
from biblios_kit.engine.compiled import KIND_CATEGORY, POINTS_DIE
from biblios_kit.engine.core import EV_CANNOT_PAY, EV_DISCARDED, EV_REFUSED, EV_REVEALED
from biblios_kit.engine.scoring import category_places, score_hands
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


def _leaders(vp: Sequence[int]) -> frozenset[int]:
    best = max(vp)
    return frozenset(p for p, v in enumerate(vp) if v == best)


def _changes(old: Sequence[int], new: Sequence[int]) -> tuple[list[int], list[int]]:
    """The cards hand ``new`` gained and lost since hand ``old`` (every card of the deck is one id: no repeats)."""
    before = set(old)
    after = set(new)
    return [c for c in new if c not in before], [c for c in old if c not in after]


class _Projector:
    """Projected victory points of a position: every hand scored with the dice as they stand.

    The same figures as :func:`~biblios_kit.engine.scoring.score_hands` (``victory_points``), made
    for being asked at every turn boundary of a game as it is played: only the cards a hand gained
    are counted (a hand that lost a card is counted again), only the categories they belong to are
    placed again, and nothing but the points is built. The lab measures about 35 boundaries per
    four-player game; ``score_hands`` there cost a third of a medium-bot game's time, this a few
    percent (see ``benchmarks/lab.py``).
    """

    def __init__(self, rules: Any, players: int) -> None:
        self.rules = rules
        n_cats = rules.n_cats
        none = 1 << 20
        self.hands: list[list[int]] = [[] for _ in range(players)]
        """Each hand as last projected (a copy of the state's list, in the state's order)."""
        self.totals = [[0] * players for _ in range(n_cats)]
        self.best = [[none] * players for _ in range(n_cats)]
        self.dice = [[(d, rules.die_place[d]) for d in rules.cat_dice[k]] for k in range(n_cats)]
        self.simple = [len(dice) == 1 and dice[0][1] == 1 for dice in self.dice]
        """Per category: whether it has one die, for first place only (the editions' case)."""
        self.top = [0] * n_cats
        """Per simple category, the highest total now."""
        self.holder = [-1] * n_cats
        """Per simple category, the player its die goes to now (-1 for nobody)."""
        self.awards: list[list[tuple[int, int]]] = [[] for _ in range(n_cats)]
        """Per category, (player, die) of each die it awards now."""
        self.faces: list[int] = list(rules.die_start)
        """The dice faces the points were last added up with."""
        self.vp = [0] * players
        """The points of the dice as :attr:`awards` give them, with the faces :attr:`faces`."""
        self.last: tuple[int, ...] = (0,) * players
        self.kind, self.value, self.cat, self.letter = rules.kind, rules.value, rules.cat, rules.letter
        self.plain = rules.points == POINTS_DIE and not rules.bonus
        """Whether a die is worth its face to its taker and there is no set bonus (the printed rule): the
        incremental count applies; otherwise (scoring as data) each position is scored by the engine."""

    def _count_in(self, p: int, cards: Sequence[int], dirty: list[int]) -> None:
        """Add ``cards`` to player ``p``'s totals; add to ``dirty`` the categories whose dice may go elsewhere now.

        In a category with one first-place die, a player who stays below the highest total, or
        who held the die alone and only widens the lead, changes nothing: the category is not
        placed again (about half of the gains of a four-player game). :meth:`project` inlines this
        loop for the usual case.
        """
        kind, value, cat, letter = self.kind, self.value, self.cat, self.letter
        for c in cards:
            if kind[c] != KIND_CATEGORY:
                continue
            k = cat[c]
            totals = self.totals[k]
            total = totals[p] + value[c]
            totals[p] = total
            best = self.best[k]
            if letter[c] < best[p]:
                best[p] = letter[c]
            if k in dirty:
                continue
            if self.simple[k]:
                if total < self.top[k]:
                    continue  # still below the leaders: the die stays where it is
                if self.holder[k] == p:
                    self.top[k] = total  # the holder's lead grows
                    continue
            dirty.append(k)

    def _place(self, k: int) -> bool:
        """Which player each die of category ``k`` goes to now (the engine's place rule); whether that changed."""
        totals = self.totals[k]
        dice = self.dice[k]
        awards: list[tuple[int, int]] = []
        if self.simple[k]:  # the usual case: only first place scores
            top = max(totals)
            self.top[k] = top
            self.holder[k] = -1
            if top > 0:
                leaders = [p for p, total in enumerate(totals) if total == top]
                if len(leaders) > 1:  # tied totals: the best letter, alone, wins (as the engine's places say)
                    best = self.best[k]
                    letter = min(best[p] for p in leaders)
                    leaders = [] if self.rules.tie_nobody else [p for p in leaders if best[p] == letter]
                if len(leaders) == 1:
                    self.holder[k] = leaders[0]
                    awards.append((leaders[0], dice[0][0]))
        else:
            places = category_places(totals, self.best[k], self.rules.tie_nobody)
            for d, place in dice:
                if place <= len(places):
                    winner = places[place - 1][0]
                    if winner is not None:
                        awards.append((winner, d))
        old = self.awards[k]
        if awards == old:
            return False
        self.awards[k] = awards
        vp, faces = self.vp, self.faces  # the points of the faces last added up: moved by this category's dice
        for p, d in old:
            vp[p] -= faces[d]
        for p, d in awards:
            vp[p] += faces[d]
        return True

    def points(self, state: GameState) -> tuple[int, ...]:
        """The projected victory points of every player in ``state``."""
        return self.project([hand[:] for hand in state.hands], state.dice[:])

    def project(self, now: list[list[int]], faces: list[int]) -> tuple[int, ...]:
        """The projected victory points of a position given by its hands and dice (lists this object keeps).

        The lab takes these copies of the state's plain fields (``hands``, ``dice``) at each turn
        boundary and projects them all once the game is over: the copies cost little in the game's
        loop, and the projection runs in one tight loop instead of between two bot decisions (2-3
        times faster there, measured). Positions are projected in game order: a hand only grows by
        appending, so a hand that starts with the cards it had last time gained exactly the cards
        after them (the gift phase's case at every boundary: no set is built). The points are added
        up again only when a die changed hands or faces.
        """
        if not self.plain:
            return score_hands(self.rules, now, faces).victory_points
        hands = self.hands
        dirty: list[int] = []
        kind, value, cat, letter = self.kind, self.value, self.cat, self.letter
        all_totals, all_best, simple, top, holder = self.totals, self.best, self.simple, self.top, self.holder
        for p in range(len(hands)):
            hand = now[p]
            old = hands[p]
            if hand == old:
                continue
            hands[p] = hand
            known = len(old)
            if len(hand) > known and hand[:known] == old:  # cards added, none left: _count_in, inlined
                for c in hand[known:]:
                    if kind[c] != KIND_CATEGORY:
                        continue
                    k = cat[c]
                    totals = all_totals[k]
                    total = totals[p] + value[c]
                    totals[p] = total
                    best = all_best[k]
                    if letter[c] < best[p]:
                        best[p] = letter[c]
                    if k in dirty:
                        continue
                    if simple[k]:
                        if total < top[k]:
                            continue
                        if holder[k] == p:
                            top[k] = total
                            continue
                    dirty.append(k)
                continue
            gained, lost = _changes(old, hand)
            if not any(kind[c] == KIND_CATEGORY for c in lost):  # only Gold or church cards left: add the new ones
                self._count_in(p, gained, dirty)
            else:  # a category card left the hand: count it again
                none = 1 << 20
                for k in range(len(all_totals)):
                    if (all_totals[k][p] or all_best[k][p] != none) and k not in dirty:
                        dirty.append(k)
                    all_totals[k][p] = 0
                    all_best[k][p] = none
                self._count_in(p, hand, dirty)
        changed = False
        for k in dirty:
            changed = self._place(k) or changed
        if faces != self.faces:  # a die moved: add the points up again with its new faces
            vp = self.vp
            for p in range(len(vp)):
                vp[p] = 0
            for awards in self.awards:
                for p, d in awards:
                    vp[p] += faces[d]
            self.faces = faces
        elif not changed:
            return self.last
        self.last = tuple(self.vp)
        return self.last


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
    winners = frozenset(result.winners)
    seats = range(state.players)

    lead_changes = 0
    sole: int | None = None
    memo: dict[tuple[int, ...], frozenset[int]] = {}  # the points often stand from one boundary to the next
    leading = [memo.get(vp) or memo.setdefault(vp, _leaders(vp)) for _done, vp in checkpoints]
    for leaders in leading:
        if len(leaders) == 1:
            (leader,) = leaders
            if sole is not None and leader != sole:
                lead_changes += 1
            sole = leader
    decided = decisions
    for (done, _vp), leaders in zip(reversed(checkpoints), reversed(leading)):
        if not leaders & winners:
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
    kinds = [raw[0] for raw in state.log]  # the kernel's own event log, read as it stands
    return {
        "win": [result.win_share(p) for p in seats],
        "vp": list(result.victory_points),
        "focus": focus,
        "decisions": decisions,
        "auctions": kinds.count(EV_REVEALED),
        "unsold": kinds.count(EV_DISCARDED),
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
        "penalties": kinds.count(EV_CANNOT_PAY) + kinds.count(EV_REFUSED),
        "gift_leaders": sorted(_leaders(gift_vp)) if gift_vp is not None else [],
        "lead_changes": lead_changes,
        "decided_at": decided / decisions if decisions else 0.0,
        "overrides": 0,
        "choices": 0,
    }


def measure(ruleset: Ruleset, players: int, seed: int, actions: Sequence[int], focus: int = -1) -> GameMetrics:
    """Replay the game (``ruleset``, ``players``, ``seed``, ``actions``) and return its :data:`GameMetrics`.

    The reference the lab's own measure (:func:`play_and_measure`, made while the game is played)
    is tested against: it scores every turn boundary with the engine's ``score_hands``.
    ``overrides`` and ``choices`` are 0 (a replay knows nothing of a restriction).
    """
    rules = compile_rules(ruleset)
    state = new_game(ruleset, players, seed)
    seats = range(players)

    def projected() -> tuple[int, ...]:
        hands = [list(state.hand(p)) for p in seats]
        return score_hands(rules, hands, list(state.dice_values())).victory_points

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
    hands over each turn boundary: the hands and dice are copied there and projected once the game
    is over, and the counts come from the kernel's event log. Nothing is replayed. With ``restriction_name``, ``overrides`` counts the
    restricted bot's choices its restriction replaced and ``choices`` its decisions.
    """
    bots = _bots(seed, seats, focus, restriction_name, ruleset)
    positions: list[tuple[int, list[list[int]], list[int]]] = []
    take = positions.append
    auction_at: list[int] = []

    def boundary(state: GameState, done: int, auction: bool) -> None:
        take((done, [hand[:] for hand in state.hands], state.dice[:]))
        if auction:
            auction_at.append(len(positions) - 1)

    state = play_game(ruleset, players, seed, seats, bots, boundary)
    project = _Projector(compile_rules(ruleset), players).project
    checkpoints = [(done, project(hands, dice)) for done, hands, dice in positions]
    gift_vp = checkpoints[auction_at[0]][1] if auction_at else None
    metrics = _summary(ruleset, state, checkpoints, gift_vp, focus)
    if restriction_name:
        restricted = bots[focus]
        metrics["overrides"] = restricted.overridden  # type: ignore[attr-defined]
        metrics["choices"] = restricted.choices  # type: ignore[attr-defined]
    return metrics
