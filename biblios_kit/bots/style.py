"""The tunable judgement of the heuristic: how it values Gold, denial, the auction pile and bluffs."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from biblios_kit.bots.params import number, whole


@dataclass(frozen=True, slots=True)
class Style:
    """Weights of the heuristic's valuations (see docs/bots.md).

    ``medium`` plays :data:`MEDIUM`; ``easy`` adds noise; ``hard`` plays its own moves in
    :data:`STRONG`, a style tuned against medium with ``benchmarks/bots.py``.
    """

    deny: float = 0.6
    """Weight, when bidding, of what the card would give the strongest rival (split among rivals)."""
    bluff: float = 0.06
    """Chance of one raise over the limit when a rival leads and we can cover it."""
    auction_share: float = 0.45
    """A gift card put on the auction pile is worth this share of (our value - the rival's value)."""
    gift_gold: float = 0.3
    """VP of advantage per point of Gold during the gift phase."""
    auction_gold: float = 0.55
    """Scale of the auction-phase Gold value: rate x cards left / (players x own Gold + 1)."""
    spread: float = 0.45
    """How fast a category's outcome becomes uncertain with the value still unseen in it."""
    futures: int = 8
    """Futures sampled to value the rest of a gift turn."""
    noise: float = 0.0
    """VP (standard deviation) of Gaussian noise added to every option's score."""


MEDIUM = Style()
"""The medium bot's style."""

EASY = Style(noise=0.8)
"""The easy bot's style: medium's, with noise on every score (it also makes careless moves)."""

STRONG = Style(deny=0.3, spread=1.5)
"""The style of the hard bot's own moves: less eager to outbid a rival only to deny them the
card, and less sure of a category's outcome while much of it is unseen. Tuned with
1,000-game head-to-heads against medium (docs/bots.md)."""

STRONG_MULTI = Style(deny=0.3)
"""The style of the hard bot's own moves with three or more players: :data:`STRONG`'s lower
denial without its wider uncertainty, which loses against medium at 3 and 4 players
(docs/bots.md, "Hard's style at 3 and 4 players")."""


def strong_style(players: int) -> Style:
    """The style the hard bot plays its own moves in, for a game of ``players``."""
    return STRONG if players <= 2 else STRONG_MULTI


STYLE_FIELDS = tuple(f.name for f in dataclasses.fields(Style))
"""Parameter names a bot spec may set (``medium:deny=0.3``)."""


def style_from(params: dict[str, object], base: Style) -> Style:
    """``base`` with the style fields given in a bot spec's ``params`` (checked; others ignored)."""
    if not any(name in params for name in STYLE_FIELDS):
        return base
    return Style(
        deny=number(params, "deny", base.deny, low=0.0),
        bluff=number(params, "bluff", base.bluff, low=0.0, high=1.0),
        auction_share=number(params, "auction_share", base.auction_share, low=0.0),
        gift_gold=number(params, "gift_gold", base.gift_gold, low=0.0),
        auction_gold=number(params, "auction_gold", base.auction_gold, low=0.0),
        spread=number(params, "spread", base.spread, low=0.0),
        futures=whole(params, "futures", base.futures, low=0),
        noise=number(params, "noise", base.noise, low=0.0),
    )
