"""What the server sends: each seat's view (its observation, legal actions and redacted events) and the public view.

A seat's view comes only from the engine's redacted views, ``state.observation(seat)``
and ``state.events_for(seat)``. Spectators get the *public* view: what every seat
knows. Their observation keeps the fields every player sees and empties the private
ones, and an event shows its card only when every seat sees it.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from biblios_kit.engine.actions import format_action
from biblios_kit.engine.events import Event, RawEvent, to_event, visible
from biblios_kit.engine.observation import Observation
from biblios_kit.engine.state import GameState
from biblios_kit.net.protocol import dumps, event_text, observation_changes_text, observation_to_json, result_to_json

SPECTATOR = -1
"""The seat number of spectators in messages (``"seat": null``) and internally (-1)."""


def keep_observation_scans(tables: int, players: int = 4) -> None:
    """Let the engine keep what each player learnt from the event log of ``tables`` tables at once.

    ``state.observation(player)`` reads only the events added since its last call for the
    same log and player, from a small cache of the engine (64 entries: enough for a game and
    its bots). A server building the views of a thousand tables would evict every entry
    before its next use, and each observation would read the whole log again; the cache
    grows here to every seat of every open table (plus spectators' public views, which
    observe every seat).
    """
    from biblios_kit.engine import observation

    observation.keep_scans(tables * (players + 1) + 64)


def legal_texts(state: GameState, seat: int) -> list[str]:
    """``seat``'s legal actions in text form when it is their decision, else an empty list."""
    if state.current_player != seat:
        return []
    rules = state.ruleset
    return [format_action(rules, a) for a in state.legal_actions()]


def public_observation(state: GameState) -> Observation:
    """The observation of a spectator: the fields every seat sees, the private ones empty.

    ``acquired`` keeps the (player, card) pairs every seat saw; ``kept_hidden`` says
    whether some active player has a face-down kept card.
    """
    views = [state.observation(p) for p in range(state.players)]
    base = views[0]
    common = set(base.acquired)
    for view in views[1:]:
        common &= set(view.acquired)
    kept_somewhere = any(v.kept is not None for v in views) or base.kept_hidden
    return replace(
        base,
        player=SPECTATOR,
        hand=(),
        drawn=None,
        kept=None,
        kept_hidden=kept_somewhere,
        my_kept=(),
        my_auction_cards=(),
        acquired=tuple(pair for pair in base.acquired if pair in common),
        my_buried=(),
        legal_actions=(),
        unpaid=(),  # its cards are those seat 0 saw enter a hand
    )


def public_events(state: GameState) -> list[Event]:
    """The event log as a spectator sees it: a card is shown only when every seat sees it."""
    return [public_event(raw, state.players) for raw in state.log]


def public_event(raw: RawEvent, players: int) -> Event:
    """One event of the engine's log as a spectator sees it: its card only if every one of ``players`` sees it."""
    event = to_event(raw)
    if event.card is not None and not all(visible(raw, p) for p in range(players)):
        event = event._replace(card=None)
    return event


class ViewCache:
    """The views of one table, built once per seat and version and shared by every connection of that seat.

    Events only ever get appended to a game's log (and how each seat sees an event never
    changes), so each seat's events are turned into JSON once: a new version converts only
    the events that are new to that seat, read from the engine's log from where the seat's
    list ends (``state.events_for`` would redact the whole log again: some 900 events by the
    end of a four-player game, for every seat after every action).
    """

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.version = -1
        self._seen: dict[int, tuple[Observation, list[str]]] = {}
        """Seat -> its engine observation and legal actions in text form, at :attr:`version`."""
        self._before: dict[int, tuple[Observation, list[str]]] = {}
        """The same at :attr:`previous`, the version the cache moved from (what updates start from)."""
        self.previous = -1
        self._observations: dict[int, dict[str, Any]] = {}
        self._texts: dict[int, str] = {}
        self._changes: dict[int, str] = {}
        self._written: dict[int, dict[str, tuple[Any, str]]] = {}
        """Seat -> the last text of each list field of its updates (see ``observation_changes_text``)."""
        self._result: tuple[dict[str, Any] | None, str] | None = None
        self._events: dict[int, list[str]] = {}
        self._shared: list[str | None] = []
        """Per event: its text when every seat sees it alike, else ``None``."""

    def moved_to(self, state: GameState, version: int) -> None:
        """The table's state is now ``state`` at ``version``: forget the observations of the previous one.

        The engine's observations of the version left are kept as the base of updates
        (:meth:`changes_text`).
        """
        if version != self.version:
            self.state = state
            self._before = self._seen
            self.previous = self.version
            self.version = version
            self._seen = {}
            self._observations = {}
            self._texts = {}
            self._changes = {}
            self._result = None

    def seen(self, seat: int) -> tuple[Observation, list[str]]:
        """What ``seat`` (``SPECTATOR``: the public) sees now: the engine's observation and the legal actions as text."""
        cached = self._seen.get(seat)
        if cached is None:
            if seat == SPECTATOR:
                cached = public_observation(self.state), []
            else:
                cached = self.state.observation(seat), legal_texts(self.state, seat)
            self._seen[seat] = cached
        return cached

    def observation(self, seat: int) -> dict[str, Any]:
        """The observation JSON of ``seat`` (``SPECTATOR`` for the public view)."""
        cached = self._observations.get(seat)
        if cached is None:
            cached = self._observations[seat] = observation_to_json(*self.seen(seat))
        return cached

    def changes_text(self, seat: int) -> str | None:
        """The fields of ``seat``'s observation that changed since :attr:`previous`, as a JSON object's text.

        ``None`` when the seat's observation at :attr:`previous` was not built (no view of
        that version was sent to this seat): the seat then needs a whole view. Computed once
        per version and seat, from the engine's two observations of that seat (each already
        redacted for it: an update tells nothing its whole view would not).
        """
        text = self._changes.get(seat)
        if text is None:
            before = self._before.get(seat)
            if before is None:
                return None
            now = self.seen(seat)
            written = self._written.setdefault(seat, {})
            text = self._changes[seat] = observation_changes_text(before[0], now[0], before[1], now[1], written)
        return text

    def observation_text(self, seat: int) -> str:
        """:meth:`observation` as JSON text (serialized once per version and seat)."""
        text = self._texts.get(seat)
        if text is None:
            text = self._texts[seat] = dumps(self.observation(seat))
        return text

    def result(self) -> dict[str, Any] | None:
        """The result JSON once the game is over, else ``None``."""
        return self._result_parts()[0]

    def result_text(self) -> str:
        """:meth:`result` as JSON text (``null`` before the end)."""
        return self._result_parts()[1]

    def _result_parts(self) -> tuple[dict[str, Any] | None, str]:
        if self._result is None:
            result = result_to_json(self.state.result()) if self.state.is_terminal() else None
            self._result = result, dumps(result)
        return self._result

    def events(self, seat: int, since: int = 0) -> list[dict[str, Any]]:
        """The events of the game from number ``since`` on, as ``seat`` sees them, as JSON."""
        return list(json.loads(self.events_text(seat, since)))

    def events_text(self, seat: int, since: int = 0) -> str:
        """:meth:`events` as JSON text (a list)."""
        return "[" + ",".join(self.event_texts(seat)[since:]) + "]"

    def event_texts(self, seat: int) -> list[str]:
        """Every event of the game as ``seat`` sees it, each as JSON text, in order (the list grows in place).

        An event without a card, or whose card every seat sees, reads the same for everybody:
        its text is made once for all seats.
        """
        texts = self._events.setdefault(seat, [])
        log = self.state.log  # the engine's raw events; to_event redacts one as events_for does
        if len(texts) < len(log):
            players = self.state.players
            shared = self._shared
            for raw in log[len(shared) :]:
                seen_by_all = raw[2] < 0 or all(visible(raw, p) for p in range(players))
                shared.append(event_text(to_event(raw)) if seen_by_all else None)
            for index in range(len(texts), len(log)):
                text = shared[index]
                if text is None:
                    raw = log[index]
                    event = public_event(raw, players) if seat == SPECTATOR else to_event(raw, seat)
                    text = event_text(event)
                texts.append(text)
        return texts
