"""What the server sends: each seat's view (its observation, legal actions and redacted events) and the public view.

A seat's view comes only from the engine's redacted views, ``state.observation(seat)``
and ``state.events_for(seat)``. Spectators get the *public* view: what every seat
knows. Their observation keeps the fields every player sees and empties the private
ones, and an event shows its card only when every seat sees it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from biblios_kit.engine.actions import format_action
from biblios_kit.engine.events import Event
from biblios_kit.engine.observation import Observation
from biblios_kit.engine.state import GameState
from biblios_kit.net.protocol import event_to_json, observation_to_json

SPECTATOR = -1
"""The seat number of spectators in messages (``"seat": null``) and internally (-1)."""


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
    logs = [state.events_for(p) for p in range(state.players)]
    public = []
    for index, event in enumerate(logs[0]):
        if event.card is not None and any(log[index].card is None for log in logs[1:]):
            event = event._replace(card=None)
        public.append(event)
    return public


class ViewCache:
    """The views of one table, built once per seat and version and shared by every connection of that seat.

    Events only ever get appended to a game's log (and how each seat sees an event never
    changes), so each seat's events are turned into JSON once: a new version converts only
    the events that are new to that seat.
    """

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.version = -1
        self._observations: dict[int, dict[str, Any]] = {}
        self._events: dict[int, list[dict[str, Any]]] = {}
        self._events_version: dict[int, int] = {}

    def moved_to(self, state: GameState, version: int) -> None:
        """The table's state is now ``state`` at ``version``: forget the observations of the previous one."""
        if version != self.version:
            self.state = state
            self.version = version
            self._observations = {}

    def observation(self, seat: int) -> dict[str, Any]:
        """The observation JSON of ``seat`` (``SPECTATOR`` for the public view)."""
        cached = self._observations.get(seat)
        if cached is None:
            if seat == SPECTATOR:
                cached = observation_to_json(public_observation(self.state), [])
            else:
                cached = observation_to_json(self.state.observation(seat), legal_texts(self.state, seat))
            self._observations[seat] = cached
        return cached

    def events(self, seat: int) -> list[dict[str, Any]]:
        """Every event of the game as ``seat`` sees it, as JSON."""
        cached = self._events.setdefault(seat, [])
        if self._events_version.get(seat) != self.version:
            events = public_events(self.state) if seat == SPECTATOR else self.state.events_for(seat)
            cached.extend(event_to_json(e) for e in events[len(cached) :])
            self._events_version[seat] = self.version
        return cached
