"""Claims: the predicate over games that each rule statement of the rulebook asserts.

The renderer (:mod:`biblios_kit.rulebook.render`) builds a statement's :class:`Claim` in the
same place, from the same ruleset fields, as the sentence that states it; ``rules verify``
(:mod:`biblios_kit.rulebook.verify`) then plays games and feeds every claim the game's
public event stream, its decisions (legal actions) and its final result. A claim never
reads the engine's internals: it rebuilds what it needs (hands, the public space, the
auction under way) from the events, in a :class:`Tracker` shared by all claims of a game.
"""

from __future__ import annotations

from biblios_kit.rulebook.claims.auction import (
    all_pass,
    bid_ceiling,
    bids_raise,
    first_bidder,
    never_penalized,
    no_bid_above_means,
    payment,
    penalty_kind,
    reauction,
    refusal,
    winner_takes,
)
from biblios_kit.rulebook.claims.church import (
    church_mandatory,
    church_use,
)
from biblios_kit.rulebook.claims.core import Checker, Claim, Tracker, claim
from biblios_kit.rulebook.claims.scoring import (
    category_winners,
    die_points,
    gift_phase_ends,
    ties_settled,
)
from biblios_kit.rulebook.claims.table import (
    cards_in_play,
    category_cards,
    church_dealt_used,
    church_never_in_hand,
    clockwise_turns,
    deck_composition,
    dice_bounds,
    dice_start,
    gift_destinations,
    gift_draw,
    gift_turns,
    gift_visibility,
    kept_taken_first,
    most_points_win,
    named_dealt_openly,
    one_at_a_time,
    picks_in_order,
    player_counts,
    public_leftovers,
    setup_dealt,
    setup_removed,
)

__all__ = [
    "Checker",
    "Claim",
    "Tracker",
    "all_pass",
    "bid_ceiling",
    "bids_raise",
    "cards_in_play",
    "category_cards",
    "category_winners",
    "church_dealt_used",
    "church_mandatory",
    "church_never_in_hand",
    "church_use",
    "claim",
    "clockwise_turns",
    "deck_composition",
    "dice_bounds",
    "dice_start",
    "die_points",
    "first_bidder",
    "gift_destinations",
    "gift_draw",
    "gift_phase_ends",
    "gift_turns",
    "gift_visibility",
    "kept_taken_first",
    "most_points_win",
    "named_dealt_openly",
    "never_penalized",
    "no_bid_above_means",
    "one_at_a_time",
    "payment",
    "penalty_kind",
    "picks_in_order",
    "player_counts",
    "public_leftovers",
    "reauction",
    "refusal",
    "setup_dealt",
    "setup_removed",
    "ties_settled",
    "winner_takes",
]
