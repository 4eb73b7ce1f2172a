"""How many different uses a church effect has, counted without listing them.

The engine lists every use of a church card once, when it compiles a ruleset (see
``biblios_kit.engine.compiled``), and checks each against the dice's bounds when the card is
played. A card allowed to move any 10 of 30 dice would have 60 million uses: the semantic
checks (``biblios_kit.rules.checks``) refuse any effect above :data:`MAX_CHURCH_USES`, and
the engine refuses one that reaches it unchecked, both with :func:`church_uses`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from math import comb

MAX_CHURCH_USES = 5000
"""Most different uses (sets of dice times steps) one church effect may have.

The shipped rulesets reach at most 160: the two-dice cards of the Italian five-player
variant (two of the five first-place dice and up to two of the five second-place ones).
Biblios itself reaches 10 (any 2 of 5 dice), second-place dice 45 (any 2 of 10). The
schema alone would allow any 10 of 72 dice with two steps (over 10^12 uses). At 5,000 a
card's uses are counted at once and listed in milliseconds when a ruleset is compiled.
"""


def church_uses(
    die_places: Sequence[int],
    dice: int,
    targets: Sequence[tuple[int, bool]],
    signs: int,
    first_place_only: bool = False,
) -> int:
    """The exact number of different uses of a church effect: the sets of dice it may move, times ``signs``.

    ``die_places`` holds the award place of every die of the board (1 for a first-place die).
    Without ``targets`` the card moves any ``dice`` different dice of the board (first-place
    dice only when ``first_place_only``: ``church.targets: first-place``), so there are
    C(movable, dice) sets. With ``targets`` (place, optional) per die, place 0 standing for
    ``any``, the card moves one different die per target, every required one and any of the
    optional ones, at least one die in all; two ways of filling the targets that move the
    same dice are one use (the engine lists each set of dice once).

    Counted by places, never by listing: a set holding ``k[p]`` dice of each place ``p`` can
    be moved exactly when every required target of place ``p`` gets one of them
    (``k[p] >= required[p]``) and the dice left over from the targets of their own place fit
    the ``any`` targets: between ``sum(max(0, k[p] - required[p] - optional[p]))`` and
    ``sum(k[p] - required[p])`` of them go to ``any`` targets, a number that must meet the
    range from the required ``any`` targets to all of them. Each such ``k`` stands for
    ``prod(C(n[p], k[p]))`` sets, where ``n[p]`` dice of the board have place ``p``.
    """
    if not targets:
        movable = sum(1 for place in die_places if place == 1) if first_place_only else len(die_places)
        return comb(movable, dice) * signs
    on_board = Counter(die_places)
    required = Counter(place for place, optional in targets if place and not optional)
    optional = Counter(place for place, is_optional in targets if place and is_optional)
    any_required = sum(1 for place, optional_ in targets if not place and not optional_)
    any_all = sum(1 for place, _optional in targets if not place)
    # (dice forced onto `any` targets, dice that could go to them), each capped where the
    # outcome no longer changes -> number of sets of dice of the places seen so far.
    ways: dict[tuple[int, int], int] = {(0, 0): 1}
    for place in sorted(set(on_board) | set(required) | set(optional)):
        n, need, extra = on_board[place], required[place], optional[place]
        following: dict[tuple[int, int], int] = {}
        for (forced, possible), count in ways.items():
            for k in range(need, n + 1):
                key = (min(forced + max(0, k - need - extra), any_all + 1), min(possible + k - need, any_required))
                following[key] = following.get(key, 0) + count * comb(n, k)
        ways = following
    total = sum(count for (forced, possible), count in ways.items() if forced <= any_all and possible >= any_required)
    if not any_required and not required:
        total -= 1  # moving no die at all is declining the card, not a use
    return total * signs
