"""The end of a game followed with ``biblios-kit join``: the whole game from the server's record, and the rematch.

Once the game is over the server serves its record (``GET /api/tables/{id}/record``, refused
before the end: it names every card), so the end screen of a terminal seat shows what the
local end screen shows: every hand, the whole log and the replay. The record is replayed
here with the ruleset this machine loaded (never one the server sends), and it must end on the
result the views announced: a record of another game is not shown.

The rematch messages (``rematch``: every seat's vote; ``rematch_ready``: this seat's place at the
new table) are read as content: checked before use, names never taken from them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from biblios_kit.engine.records import from_json, replay
from biblios_kit.engine.scoring import GameResult
from biblios_kit.engine.state import GameState
from biblios_kit.errors import BibliosError
from biblios_kit.i18n import _, format_list
from biblios_kit.rules.model import Ruleset

TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a table id looks like (the server makes them with ``secrets.token_urlsafe``)."""
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,128}")
"""What a seat token looks like."""


def finished_game(ruleset: Ruleset, document: object, result: GameResult) -> GameState | None:
    """The finished game of the record ``document``, replayed with ``ruleset``; ``None`` when it is not
    a record of this ruleset that replays to ``result`` (the one the server's views sent)."""
    try:
        record = from_json(document)
        state = replay(record, ruleset)
    except (BibliosError, ValueError, TypeError, KeyError):
        return None
    if not state.is_terminal() or state.players != result.players:
        return None
    final = state.result()
    if final.winners != result.winners or final.victory_points != result.victory_points:
        return None
    return state


def check_votes(message: dict[str, Any], seats: int) -> list[bool | None]:
    """The votes of a ``rematch`` message for a table of ``seats`` seats (``ValueError`` if malformed)."""
    votes = message.get("votes")
    if not isinstance(votes, list) or len(votes) != seats or not all(v is None or isinstance(v, bool) for v in votes):
        raise ValueError("not a rematch message")
    return votes


def check_ready(message: dict[str, Any], table: str, seats: int) -> tuple[str, str]:
    """The new table and this seat's token of a ``rematch_ready`` message of ``table`` (``ValueError`` if malformed).

    Only the table id and the token are used: the new table is on the same server (the link
    the message carries is never followed).
    """
    new_table, token, seat = message.get("new_table"), message.get("token"), message.get("seat")
    if (
        message.get("table") != table
        or not isinstance(new_table, str)
        or not TABLE_ID.fullmatch(new_table)
        or not isinstance(token, str)
        or not TOKEN.fullmatch(token)
        or not isinstance(seat, int)
        or not 0 <= seat < seats
    ):
        raise ValueError("not a rematch_ready message")
    return new_table, token


def vote_changes(names: Sequence[str], before: Sequence[bool | None], after: Sequence[bool | None], me: int | None,
                 people: Sequence[int]) -> list[str]:  # fmt: skip
    """A sentence for each other person whose vote changed: opted in, or opted out."""
    lines = []
    for seat in people:
        if seat != me and seat < len(after) and before[seat] != after[seat] and after[seat] is not None:
            message = _("{player} wants a rematch.") if after[seat] else _("{player} does not want a rematch.")
            lines.append(message.format(player=names[seat]))
    return lines


def rematch_line(names: Sequence[str], votes: Sequence[bool | None], people: Sequence[int],
                 connected: Sequence[bool] | None) -> str:  # fmt: skip
    """One line for the end screen: who wants a rematch, who does not, who left without saying."""
    wanting = [names[seat] for seat in people if votes[seat] is True]
    refusing = [names[seat] for seat in people if votes[seat] is False]
    away = [names[seat] for seat in people if votes[seat] is None and connected is not None and not connected[seat]]
    parts = []
    if wanting:
        parts.append(_("Wants a rematch: {players}").format(players=format_list(wanting)))
    if refusing:
        parts.append(_("Does not want a rematch: {players}").format(players=format_list(refusing)))
    if away:
        parts.append(_("Away: {players}").format(players=format_list(away)))
    return " · ".join(parts)
