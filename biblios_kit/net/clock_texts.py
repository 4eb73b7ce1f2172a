"""The words of clocks and stand-ins, shared by the browser seat page and the terminal seat.

A ``table_event`` message carries data only (kind, seat, reason ...): each client words it in
its reader's language. The browser page gets :data:`CLOCK_UI_TEXTS` translated with its other
words (:mod:`biblios_kit.net.seat_page`); the terminal calls :func:`event_sentence`.
Names are the client's own (cleaned) seat names: content, never markup.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from biblios_kit.i18n import N_, _

MAX_SHOWN = 7 * 24 * 3600
"""The longest time a clock shows (the longest a table's clock may be)."""

EVENT_TEXTS: dict[str, str] = {
    "ev_time_out_move": N_("{player} ran out of time for this turn."),
    "ev_time_out_game": N_("{player} ran out of time for the game."),
    "ev_stand_in": N_("A stand-in bot plays for {player}."),
    "ev_stand_in_absent": N_("{player} has been away too long: a stand-in bot plays for them."),
    "ev_vote": N_("{voter} votes to let a stand-in bot play for {player} ({votes} of {needed} votes)."),
    "ev_vote_passed": N_("The vote passed: a stand-in bot plays for {player}."),
    "ev_back": N_("{player} is back and plays again."),
}
"""One sentence per table event (and per reason or clock where they differ)."""

CLOCK_UI_TEXTS: dict[str, str] = {
    **EVENT_TEXTS,
    "clock_move": N_("Time left for this turn: {time}"),
    "clock_game": N_("Time left in the game: {time}"),
    "stand_in_you": N_("A stand-in bot plays for you."),
    "back": N_("Take my seat back"),
    "vote": N_("Let a stand-in play for {player}"),
}
"""The words the seat page needs for clocks and stand-ins (keys of its ``ui`` texts)."""


def event_key(event: dict[str, Any]) -> str | None:
    """The key in :data:`EVENT_TEXTS` of a table event (``None`` for a kind this version does not know)."""
    kind = event.get("kind")
    if kind == "time_out":
        return "ev_time_out_game" if event.get("clock") == "game" else "ev_time_out_move"
    if kind == "stand_in":
        return "ev_stand_in_absent" if event.get("reason") == "absent" else "ev_stand_in"
    if kind in ("vote", "vote_passed", "back"):
        return f"ev_{kind}"
    return None


def event_sentence(event: dict[str, Any], names: Sequence[str]) -> str | None:
    """A table event in a sentence of the active language (``None`` when it cannot be read)."""
    key = event_key(event)
    seat, voter = _seat(event.get("seat"), names), _seat(event.get("by", 0), names)
    if key is None or seat is None or voter is None:
        return None
    votes, needed = event.get("votes", 0), event.get("needed", 0)
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in (votes, needed)):
        return None
    return _(EVENT_TEXTS[key]).format(player=names[seat], voter=names[voter], votes=votes, needed=needed)


def clock_time(seconds: float) -> str:
    """``seconds`` as ``m:ss`` (or ``h:mm:ss``); a server's nonsense (NaN, infinite, above a week) is bounded."""
    seconds = min(float(seconds), MAX_SHOWN) if math.isfinite(seconds) else 0.0
    whole = max(0, int(seconds + 0.999))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def _seat(value: object, names: Sequence[str]) -> int | None:
    """``value`` if it is a seat of ``names``, else ``None``."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(names) else None
