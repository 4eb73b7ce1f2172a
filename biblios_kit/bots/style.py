"""The tunable judgement of the heuristic: how it values Gold, denial, the auction pile and bluffs."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


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

    def replace(self, **changes: float) -> "Style":
        """A copy with ``changes`` (field name to value), checked."""
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise ValueError(f"unknown parameter(s) {', '.join(unknown)}")
        style = dataclasses.replace(self, **{k: (int(v) if k == "futures" else float(v)) for k, v in changes.items()})
        style.check()
        return style

    def check(self) -> None:
        """Raise ValueError when a weight is out of its range."""
        if not 0 <= self.bluff <= 1:
            raise ValueError(f"bluff must lie in [0, 1], got {self.bluff}")
        for name in ("deny", "auction_share", "gift_gold", "auction_gold", "spread", "noise"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be at least 0, got {getattr(self, name)}")
        if self.futures < 0:
            raise ValueError(f"futures must be at least 0, got {self.futures}")


MEDIUM = Style()
"""The medium bot's style."""

STRONG = Style()
"""The style of the hard bot's own moves (tuned against medium)."""

STYLE_FIELDS = tuple(f.name for f in dataclasses.fields(Style))
"""Parameter names a bot spec may set (``medium:deny=0.3``)."""
