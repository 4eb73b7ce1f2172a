"""Claims of the church section: which dice a church card moves, when it may be declined."""

from __future__ import annotations

from itertools import combinations, permutations

from biblios_kit.engine import DECLINE, Event, EventKind, GameState, Phase, church_parts
from biblios_kit.rulebook.claims.core import Checker, Claim, Tracker, claim
from biblios_kit.rules.model import ChurchEffect

E = EventKind


# -- church ----------------------------------------------------------------------------------------


def church_use(effects: dict[str, ChurchEffect], first_place_only: bool) -> Claim:
    """Each church card moves the dice its effect says: how many, which places, all by one same step."""
    by_id = dict(effects)

    memo: dict[tuple[str, tuple[int, ...]], bool] = {}

    def fits(places: list[int], effect: ChurchEffect) -> bool:
        key = (effect.id, tuple(sorted(places)))  # whether dice fit the targets does not depend on their order
        if key not in memo:
            memo[key] = _fits(places, effect)
        return memo[key]

    def _fits(places: list[int], effect: ChurchEffect) -> bool:
        if not effect.targets:
            return len(places) == effect.dice and (not first_place_only or all(p == 1 for p in places))
        required = [t for t in effect.targets if not t.optional]
        if not len(required) <= len(places) <= len(effect.targets) or not places:
            return False
        slots = list(effect.targets)
        for order in permutations(range(len(slots)), len(places)):
            chosen = [slots[i] for i in order]
            if all(s.place is None or s.place == p for s, p in zip(chosen, places)) and all(
                i in order for i, s in enumerate(slots) if not s.optional
            ):
                return True
        return False

    def allowed(state: GameState, effect: ChurchEffect) -> set[tuple[tuple[int, ...], int]]:
        """Every (dice, sign) the effect allows now, as the rulebook states it, within the dice's bounds."""
        places = [die.place for category in state.ruleset.categories for die in category.dice]
        bounds = [(die.min, die.max) for category in state.ruleset.categories for die in category.dice]
        faces = state.dice_values()
        sizes = [effect.dice] if not effect.targets else range(1, len(effect.targets) + 1)
        found: set[tuple[tuple[int, ...], int]] = set()
        for size in sizes:
            for dice in combinations(range(len(places)), size):
                if not fits([places[d] for d in dice], effect):
                    continue
                for sign in set(effect.signs):
                    if all(bounds[d][0] <= faces[d] + sign <= bounds[d][1] for d in dice):
                        found.add((dice, sign))
        return found

    class _Check(Checker):
        def __init__(self) -> None:
            self.moves: list[tuple[int, int, int]] = []

        def decision(self, state: GameState) -> bool:
            if state.phase is not Phase.CHURCH:
                return False
            player = state.current_player
            assert player is not None
            view = state.observation(player).church
            if view is None:
                return False
            card = next((c for c in state.ruleset.deck if c.id == view[1]), None)
            effect = by_id.get(card.effect.id) if card is not None and card.effect is not None else None
            if effect is None:
                return True
            legal = {church_parts(a) for a in state.legal_actions() if a != DECLINE}
            return legal != allowed(state, effect)

        def event(self, t: Tracker, e: Event) -> bool:
            if e.kind is E.DIE_MOVED:
                self.moves.append(e.args)  # type: ignore[arg-type]
                return False
            if e.kind is E.CHURCH_DECLINED:
                self.moves = []
                return False
            if e.kind is not E.CHURCH_USED:
                return bool(self.moves)  # dice moved with no card used
            moves, self.moves = self.moves, []
            card = t.card.get(-1 if e.card is None else e.card)
            if card is None or card.effect is None:
                return True
            effect = by_id.get(card.effect.id)
            if effect is None:
                return True
            steps = {new - old for _die, old, new in moves}
            dice = [die for die, _old, _new in moves]
            if len(steps) != 1 or next(iter(steps)) not in effect.signs or len(set(dice)) != len(dice):
                return True
            return not fits([t.die_place[d] for d in dice], effect)

    return Claim("church.use", ("church_cards", "church.targets"), _Check, decisions=True)


def church_mandatory(optional: bool) -> Claim:
    """A church card may be declined only when optional, or when it has no legal use."""

    def decision(state: GameState) -> bool:
        if state.phase is not Phase.CHURCH:
            return False
        legal = state.legal_actions()
        can_decline = DECLINE in legal
        has_use = any(a != DECLINE for a in legal)
        if optional:
            return not can_decline
        return can_decline and has_use

    return claim("church.optional", ["church.optional"], decision=decision)
