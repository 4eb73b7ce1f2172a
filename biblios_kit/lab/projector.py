"""The lab's per-game measurement loops, compiled with the bots (mypyc): positions, projected points, leads, event counts.

:mod:`biblios_kit.lab.metrics` plays a game through ``simulate``'s loop with :meth:`Positions.take`
as its turn-boundary hook, then projects every position taken (:class:`Projector`) and reads the
leads (:func:`leads`), the kernel's event log (:func:`event_counts`) and the result
(:func:`result_figures`). These are the lab's only loops that run per turn boundary, per event or
per die; they live here, typed for mypyc, so that measuring
a game costs a few percent of playing it (``benchmarks/lab.py``, ``docs/performance.md``). The
same source runs interpreted where nothing is compiled, with the same results.
"""

from __future__ import annotations

from typing import Final

from biblios_kit.engine.compiled import KIND_CATEGORY, POINTS_DIE, CompiledRules
from biblios_kit.engine.core import EV_CANNOT_PAY, EV_DISCARDED, EV_REFUSED, EV_REVEALED
from biblios_kit.engine.scoring import GameResult, category_places, outcome
from biblios_kit.engine.state import GameState

NO_LETTER: Final = 1 << 20
"""The best letter rank of a player with no card of a category (above every real rank)."""


class Positions:
    """The hands and dice at each turn boundary of a game being played: :meth:`take` is the runner's hook.

    Kept flat, in lists of ints that only grow: a copy of each hand per boundary would be some 160
    lists alive until the game ends (two players), which the garbage collector walks again and
    again while the bots play (the lab's overhead at two players: +6-7% of CPU time against +3-4%
    with the collector off, measured).
    """

    def __init__(self) -> None:
        self.done: list[int] = []
        """Decisions made before each position."""
        self.cards: list[int] = []
        """Every position's hands, one after the other (each hand in the state's order)."""
        self.sizes: list[int] = []
        """The length of each hand in :attr:`cards`, position by position, seat by seat."""
        self.faces: list[int] = []
        """Every position's dice faces, one after the other."""
        self.auction = -1
        """The index of the position where the auction phase starts (-1: the game had none)."""

    def take(self, state: GameState, done: int, auction: bool) -> None:
        """Copy the hands and dice of ``state`` (a :data:`~biblios_kit.sim.runner.Boundary`)."""
        if auction and self.auction < 0:
            self.auction = len(self.done)
        self.done.append(done)
        cards, sizes = self.cards, self.sizes
        for hand in state.hands:
            cards.extend(hand)
            sizes.append(len(hand))
        self.faces.extend(state.dice)


class Projector:
    """Projected victory points of a position: every hand scored with the dice as they stand.

    The same figures as :func:`~biblios_kit.engine.scoring.score_hands` (``victory_points``), made
    for being asked at every turn boundary of a game, in game order: only the cards a hand gained
    are counted (a hand that lost a card is counted again), only the categories they belong to are
    placed again, and nothing but the points is built. Where the ruleset's scoring is data
    (multiplied dice, set bonuses), each position is scored by the engine (``outcome``) instead.
    """

    def __init__(self, rules: CompiledRules, players: int) -> None:
        self.rules = rules
        n_cats = rules.n_cats
        self.hands: list[list[int]] = [[] for _ in range(players)]
        """Each hand as last projected (a copy of the state's list, in the state's order)."""
        self.totals: list[list[int]] = [[0] * players for _ in range(n_cats)]
        self.best: list[list[int]] = [[NO_LETTER] * players for _ in range(n_cats)]
        self.dice: list[list[tuple[int, int]]] = [
            [(d, rules.die_place[d]) for d in rules.cat_dice[k]] for k in range(n_cats)
        ]
        self.simple: list[bool] = [len(dice) == 1 and dice[0][1] == 1 for dice in self.dice]
        """Per category: whether it has one die, for first place only (the editions' case)."""
        self.top: list[int] = [0] * n_cats
        """Per simple category, the highest total now."""
        self.holder: list[int] = [-1] * n_cats
        """Per simple category, the player its die goes to now (-1 for nobody)."""
        self.awards: list[list[tuple[int, int]]] = [[] for _ in range(n_cats)]
        """Per category, (player, die) of each die it awards now."""
        self.faces: list[int] = list(rules.die_start)
        """The dice faces the points were last added up with."""
        self.vp: list[int] = [0] * players
        """The points of the dice as :attr:`awards` give them, with the faces :attr:`faces`."""
        self.last: tuple[int, ...] = tuple(self.vp)
        self.kind: tuple[int, ...] = rules.kind
        self.value: tuple[int, ...] = rules.value
        self.cat: tuple[int, ...] = rules.cat
        self.letter: tuple[int, ...] = rules.letter
        self.tie_nobody: bool = rules.tie_nobody
        self.mark: list[int] = [0] * rules.n_cards
        """Scratch marks of cards (the value of :attr:`stamp` when last marked), to compare two hands."""
        self.stamp = 0
        self.plain: bool = rules.points == POINTS_DIE and not rules.bonus
        """Whether a die is worth its face to its taker and there is no set bonus (the printed rule): the
        incremental count applies; otherwise (scoring as data) each position is scored by the engine."""

    def all(self, positions: Positions) -> list[tuple[int, tuple[int, ...]]]:
        """``(decisions made, projected points)`` of every position of ``positions``, in game order."""
        done, cards, sizes, dice = positions.done, positions.cards, positions.sizes, positions.faces
        players = len(self.hands)
        n_dice = len(self.faces)
        projected: list[tuple[int, tuple[int, ...]]] = []
        at = 0
        for i in range(len(done)):
            now: list[list[int]] = []
            for p in range(players):
                size = sizes[i * players + p]
                now.append(cards[at : at + size])
                at += size
            projected.append((done[i], self.project(now, dice[i * n_dice : (i + 1) * n_dice])))
        return projected

    def _count_in(self, p: int, cards: list[int], dirty: list[int]) -> None:
        """Add ``cards`` to player ``p``'s totals; add to ``dirty`` the categories whose dice may go elsewhere now.

        In a category with one first-place die, a player who stays below the highest total, or
        who held the die alone and only widens the lead, changes nothing: the category is not
        placed again (about half of the gains of a four-player game).
        """
        kind, value, cat, letter = self.kind, self.value, self.cat, self.letter
        all_totals, all_best, simple, top, holder = self.totals, self.best, self.simple, self.top, self.holder
        for c in cards:
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
                    continue  # still below the leaders: the die stays where it is
                if holder[k] == p:
                    top[k] = total  # the holder's lead grows
                    continue
            dirty.append(k)

    def _place(self, k: int) -> bool:
        """Which player each die of category ``k`` goes to now (the engine's place rule); whether that changed."""
        totals = self.totals[k]
        if self.simple[k]:  # the usual case: one die, for first place only
            top = max(totals)
            self.top[k] = top
            leader = -1
            if top > 0:
                tied = False
                for p in range(len(totals)):
                    if totals[p] == top:
                        if leader < 0:
                            leader = p
                        else:
                            tied = True
                if tied:  # tied totals: the best letter, alone, wins (as the engine's places say)
                    best = self.best[k]
                    letter = NO_LETTER
                    leader = -1
                    if not self.tie_nobody:
                        for p in range(len(totals)):
                            if totals[p] == top:
                                if best[p] < letter:
                                    letter = best[p]
                                    leader = p
                                elif best[p] == letter:
                                    leader = -1  # two leaders share the best letter: nobody alone
            before = self.holder[k]
            if leader == before:
                return False
            self.holder[k] = leader
            die = self.dice[k][0][0]
            face = self.faces[die]  # the points of the faces last added up: moved by this die
            if before >= 0:
                self.vp[before] -= face
            if leader >= 0:
                self.vp[leader] += face
                self.awards[k] = [(leader, die)]
            else:
                self.awards[k] = []
            return True
        awards: list[tuple[int, int]] = []
        places = category_places(totals, self.best[k], self.tie_nobody)
        for d, place in self.dice[k]:
            if place <= len(places):
                winner = places[place - 1][0]
                if winner is not None:
                    awards.append((winner, d))
        old = self.awards[k]
        if awards == old:
            return False
        self.awards[k] = awards
        vp, faces = self.vp, self.faces
        for p, d in old:
            vp[p] -= faces[d]
        for p, d in awards:
            vp[p] += faces[d]
        return True

    def project(self, now: list[list[int]], faces: list[int]) -> tuple[int, ...]:
        """The projected victory points of a position given by its hands and dice (lists this object keeps).

        Positions are projected in game order: a hand only grows by appending, so a hand that
        starts with the cards it had last time gained exactly the cards after them (the gift
        phase's case at every boundary: no set is built). The points are added up again only
        when a die changed hands or faces.
        """
        if not self.plain:
            return outcome(self.rules, now, faces).victory_points
        hands = self.hands
        dirty: list[int] = []
        for p in range(len(hands)):
            hand = now[p]
            old = hands[p]
            if hand == old:
                continue
            hands[p] = hand
            known = len(old)
            if len(hand) > known and hand[:known] == old:  # cards added, none left
                self._count_in(p, hand[known:], dirty)
                continue
            kind, mark = self.kind, self.mark  # which cards came and went, by marking them (no sets)
            self.stamp += 1
            stamp = self.stamp
            for c in old:
                mark[c] = stamp
            gained = [c for c in hand if mark[c] != stamp]
            self.stamp += 1
            stamp = self.stamp
            for c in hand:
                mark[c] = stamp
            lost_category = False
            for c in old:
                if mark[c] != stamp and kind[c] == KIND_CATEGORY:
                    lost_category = True
                    break
            if not lost_category:
                self._count_in(p, gained, dirty)  # only Gold or church cards left: add the new ones
            else:  # a category card left the hand: count it again
                all_totals, all_best = self.totals, self.best
                for k in range(len(all_totals)):
                    if (all_totals[k][p] or all_best[k][p] != NO_LETTER) and k not in dirty:
                        dirty.append(k)
                    all_totals[k][p] = 0
                    all_best[k][p] = NO_LETTER
                self._count_in(p, hand, dirty)
        changed = False
        for k in dirty:
            if self._place(k):
                changed = True
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


def leaders(vp: tuple[int, ...]) -> int:
    """The players with the most points in ``vp``, as a bit mask (bit ``p`` for player ``p``)."""
    best = max(vp)
    mask = 0
    for p in range(len(vp)):
        if vp[p] == best:
            mask |= 1 << p
    return mask


def leads(checkpoints: list[tuple[int, tuple[int, ...]]], winners: int, decisions: int) -> tuple[int, int]:
    """How often the sole leader changed between ``checkpoints``, and the decisions after which a
    winner (``winners``: a bit mask) led, alone or tied, at every checkpoint to the end."""
    changes = 0
    sole = -1
    masks: list[int] = []
    last_vp: tuple[int, ...] = ()
    mask = 0
    for _done, vp in checkpoints:
        if vp != last_vp:  # the points often stand from one boundary to the next
            mask = leaders(vp)
            last_vp = vp
        masks.append(mask)
        if mask & (mask - 1) == 0:  # one leader
            if sole >= 0 and mask != sole:
                changes += 1
            sole = mask
    decided = decisions
    for i in range(len(checkpoints) - 1, -1, -1):
        if not masks[i] & winners:
            break
        decided = checkpoints[i][0]
    return changes, decided


def event_counts(state: GameState) -> tuple[int, int, int]:
    """Cards revealed for auction, auctioned cards discarded, and penalties, read from the kernel's event log."""
    revealed = discarded = penalties = 0
    for raw in state.log:
        kind = raw[0]
        if kind == EV_REVEALED:
            revealed += 1
        elif kind == EV_DISCARDED:
            discarded += 1
        elif kind in (EV_CANNOT_PAY, EV_REFUSED):
            penalties += 1
    return revealed, discarded, penalties


def result_figures(result: GameResult) -> tuple[list[float], list[int], dict[str, int]]:
    """Per seat its win share; per category in board order its first-place winner (-1 for nobody); each
    award die's final face by category position from 1 (``"2"``), with ``:place`` for a lower place (``"2:2"``)."""
    winners = result.ranking[0].players
    share = 1.0 / len(winners)
    win = [share if p in winners else 0.0 for p in range(result.players)]
    category_winner: list[int] = []
    dice: dict[str, int] = {}
    for k, category in enumerate(result.categories, start=1):
        first = -1
        found = False
        for award in category.awards:
            if award.place == 1:
                if not found:
                    found = True
                    first = award.winner if award.winner is not None else -1
                dice[str(k)] = award.value
            else:
                dice[f"{k}:{award.place}"] = award.value
        category_winner.append(first)
    return win, category_winner, dice
