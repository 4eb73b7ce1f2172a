"""``biblios-kit join``: the same Textual table as local play, driven by a game server.

The table screen renders a :class:`~biblios_kit.tui.table_session.TableSession` and sends it
actions. :class:`RemoteSession` is that session for one seat of a server's table: it holds the last view the server pushed (an
:class:`~biblios_kit.engine.Observation` rebuilt from JSON, the seat's redacted events,
the result), sends the person's actions over the WebSocket, and never holds a card the
seat may not see. :class:`RemoteApp` connects (and reconnects by itself), and tells
the table screen to redraw after each new view. Texts are rendered on the player's
machine, in the player's own language.

The client does not trust its server: seat names are cleaned (:func:`~biblios_kit.names.clean_name`)
before anything shows them, replies are read up to :data:`~biblios_kit.net.client.MAX_REPLY_BYTES`,
and a message too large or malformed stops the app with a clear message, never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from textual import events
from textual.binding import Binding

from biblios_kit.bots.base import Bot
from biblios_kit.engine.actions import format_action, parse_action
from biblios_kit.engine.events import Event
from biblios_kit.engine.observation import Observation
from biblios_kit.engine.scoring import GameResult
from biblios_kit.engine.state import GameState, Phase
from biblios_kit.errors import BibliosError
from biblios_kit.i18n import N_, _, current_language, format_list
from biblios_kit.names import clean_name, clean_text
from biblios_kit.net.client import (
    MAX_REPLY_BYTES,
    ApiError,
    SeatConnection,
    payment_options_of,
    server_error,
    too_large_reply,
    unreadable_reply,
)
from biblios_kit.net.protocol import event_from_json, observation_from_json, result_from_json
from biblios_kit.rulebook.describe import player_name
from biblios_kit.rules.model import Ruleset
from biblios_kit.tui import app as tui_app
from biblios_kit.tui.app import BibliosApp
from biblios_kit.tui.config import DEFAULT_AUTOPLAY, GameConfig
from biblios_kit.tui.table_session import SeatUnavailable, TableSession

HUMAN = "human"

STOPPING_ERRORS = frozenset({"bad_token", "unknown_table", "table_closed", "token_revoked", "no_spectators"})
"""Error codes after which this seat cannot go on: the app stops with the server's message."""

BELL_DELAY = 0.25
"""Seconds between a view that gives this seat a decision and the bell: a forced move is played by then."""

OWN_WORDS = {
    "table_closed": N_("This table was closed by the server."),
    "token_revoked": N_("This link no longer works: a new one was issued for this seat."),
    "no_spectators": N_("This table does not accept spectators."),
}
"""Errors this client words itself, in its player's language (the server's message is in the server's)."""


def presence_changes(names: Sequence[str], before: Sequence[bool], after: Sequence[bool],
                     me: int | None) -> list[str]:  # fmt: skip
    """A sentence for each other seat that connected or left between two ``table_info`` messages."""
    lines = []
    for seat, (was, now) in enumerate(zip(before, after)):
        if seat != me and seat < len(names) and was != now:
            message = _("{player} is at the table.") if now else _("{player} left the table.")
            lines.append(message.format(player=names[seat]))
    return lines


def presence_summary(names: Sequence[str], seats: Sequence[str], info: dict[str, Any]) -> str:
    """Who is connected, who is away, how many watch, and the table's settings: one paragraph."""
    connected = info["connected"]
    people = [seat for seat, kind in enumerate(seats) if kind == HUMAN and seat < len(names)]
    here = [names[seat] for seat in people if connected[seat]]
    away = [names[seat] for seat in people if not connected[seat]]
    lines = [_("Connected: {players}").format(players=format_list(here) or "—")]
    if away:
        lines.append(_("Away: {players}").format(players=format_list(away)))
    lines.append(_("Spectators: {count}").format(count=info["spectators"]))
    lines.append(_("Hints: allowed") if info["hints_allowed"] else _("Hints: not allowed"))
    lines.append(_("Spectators: allowed") if info["settings"]["spectators"] else _("Spectators: not allowed"))
    return "\n".join(lines)


def check_info(message: dict[str, Any], seats: int) -> dict[str, Any]:
    """``message`` if it is a ``table_info`` this client can show for a table of ``seats`` seats, else ``ValueError``."""
    connected = message.get("connected")
    settings = message.get("settings")
    if (
        not isinstance(connected, list)
        or len(connected) != seats
        or not all(isinstance(flag, bool) for flag in connected)
        or not isinstance(message.get("hints_allowed"), bool)
        or not isinstance(message.get("spectators"), int)
        or isinstance(message.get("spectators"), bool)
        or not isinstance(settings, dict)
        or not isinstance(settings.get("spectators"), bool)
    ):
        raise ValueError("not a table_info message")
    return message


class RemoteState:
    """The parts of a game state the table screen reads, from the views the server sent this seat."""

    def __init__(self, ruleset: Ruleset, observation: Observation, events: list[Event], version: int,
                 result: GameResult | None) -> None:  # fmt: skip
        self.ruleset = ruleset
        self.last = observation
        self.events = events
        self.version = version
        self.final = result
        self.pending = False
        """Actions were sent and the server has not answered yet: nothing more may be played."""

    @property
    def players(self) -> int:
        """Number of seats."""
        return self.last.players

    @property
    def current_player(self) -> int | None:
        """Who decides now, as of the last view."""
        return self.last.current_player

    @property
    def phase(self) -> Phase:
        """The phase, as of the last view."""
        return self.last.phase

    @property
    def decision_count(self) -> int:
        """Actions accepted by the server so far."""
        return self.version

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.final is not None or self.last.phase is Phase.GAME_OVER

    def legal_actions(self) -> list[int]:
        """This seat's legal actions (none while its last actions are on their way)."""
        return [] if self.pending else list(self.last.legal_actions)

    def dice_values(self) -> tuple[int, ...]:
        """The award dice."""
        return self.last.dice

    def events_for(self, player: int) -> list[Event]:
        """This seat's events (the server sends only this seat's redacted log)."""
        return self.events

    def result(self) -> GameResult:
        """The result the server sent at the end."""
        if self.final is None:
            raise ValueError("the game is not over yet")
        return self.final


class RemoteSession:
    """A :class:`~biblios_kit.tui.table_session.TableSession` for one seat of a table on a server: views in,
    actions out."""

    def __init__(self, connection: SeatConnection, ruleset: Ruleset, view: dict[str, Any], lang: str | None,
                 send: Callable[[list[str]], None]) -> None:  # fmt: skip
        # Unlike a local GameSession: no local state, no bot and no save.
        self.connection = connection
        self.send = send
        """Sends actions (text form) to the server; the app's event loop does the sending."""
        self.ruleset = ruleset
        self.seat: int | None = view["seat"]
        """This seat's number; ``None`` for a spectator (``join`` with a ``/watch/`` link: the public view)."""
        self.seats = tuple(clean_text(s["kind"], limit=100) or HUMAN for s in view["seats"])
        self.names = self._names(view["seats"])
        self.lang = lang
        self.autoplay = DEFAULT_AUTOPLAY
        self.save_to = None
        self.autosave = False
        self.bots: dict[int, Bot] = {}
        self.save_error: str | None = None
        self._cards = range(len(ruleset.deck))
        if self.seat is not None and (not isinstance(self.seat, int) or self.seat not in range(len(self.names))):
            raise ValueError("the view's seat is not one of the table's")
        self.remote = RemoteState(ruleset, self._observation(view), [], 0, None)
        self.final_state: GameState | None = None
        """The finished game, replayed from the record the server serves at the end (every card named)."""
        self.state = self.remote
        self.update(view)
        self._payments: dict[tuple[int, ...], tuple[int, ...] | None] = {}
        self.blocking_calls = 0
        """Payment questions that had to wait for the server (the others were fetched ahead)."""

    @staticmethod
    def _names(seats: list[Any]) -> tuple[str, ...]:
        # Names come from the server, which may be anyone's: cleaned before any screen or terminal sees them;
        # an empty one is the seat's default name, in this player's language.
        return tuple(player_name(clean_name(s["name"]), seat) for seat, s in enumerate(seats))

    def rename(self, view: dict[str, Any]) -> bool:
        """Take the seat names of a whole view (a visitor took a free seat, with a name); whether any changed.

        A view for another number of seats changes nothing; an ``update`` carries no names.
        """
        seats = view.get("seats")
        if not isinstance(seats, list) or len(seats) != len(self.names):
            return False
        names = self._names(seats)
        changed = names != self.names
        self.names = names
        return changed

    def _observation(self, view: dict[str, Any]) -> Observation:
        data = view["observation"]
        legal = [parse_action(self.ruleset, text) for text in data["legal_actions"]]
        observation = observation_from_json(data, legal)
        check_observation(self.ruleset, observation, len(self.names), spectator=self.seat is None)
        return observation

    def update(self, view: dict[str, Any]) -> bool:
        """Take a new view; returns whether the game moved on (a new version).

        ``ValueError`` (and nothing changes) for a view that is not what the protocol says.
        """
        remote = self.remote
        observation = self._observation(view)
        events = [event_from_json(e) for e in view["events"]]
        players = range(len(self.names))
        if any(not (e.player == -1 or e.player in players) or not (e.card is None or e.card in self._cards)
               for e in events):  # fmt: skip
            raise ValueError("an event names a player or card that does not exist")
        result = (
            None if view["result"] is None else check_result(self.ruleset, result_from_json(view["result"]), players)
        )
        if not isinstance(view["version"], int):
            raise ValueError("the version must be a number")
        moved = view["version"] != remote.version or remote.pending
        remote.last = observation
        remote.events.extend(events)
        remote.version = view["version"]
        if result is not None:
            remote.final = result
        remote.pending = False
        self._payments = {}
        return moved

    @property
    def players(self) -> int:
        """Number of seats."""
        return self.remote.players

    @property
    def humans(self) -> tuple[int, ...]:
        """The one seat played here (none for a spectator)."""
        return () if self.seat is None else (self.seat,)

    @property
    def current(self) -> int | None:
        """Who decides now, as of the last view."""
        return self.remote.current_player

    @property
    def phase(self) -> Phase:
        """The phase, as of the last view."""
        return self.remote.phase

    @property
    def over(self) -> bool:
        """Whether the game is over."""
        return self.remote.is_terminal()

    @property
    def full_state(self) -> GameState | None:
        """The finished game once its record came from the server (``None`` before: the game is on the server)."""
        return self.final_state

    def legal_actions(self) -> tuple[int, ...]:
        """This seat's legal actions (none while its last actions are on their way)."""
        return tuple(self.remote.legal_actions())

    def events_since(self, viewer: int | None, start: int) -> list[Event]:
        """This seat's events from index ``start`` (the server sends no other view: none for ``None``).

        A spectator's events are what everybody sees: the log of ``None``, the viewer a spectator's table has.
        """
        return self.remote.events[start:] if viewer is not None or self.seat is None else []

    def result(self) -> GameResult:
        """The result the server sent at the end."""
        return self.remote.result()

    def is_human(self, seat: int) -> bool:
        """Whether ``seat`` is played at this screen (the others play elsewhere, or are bots on the server)."""
        return seat == self.seat

    def observation(self, seat: int) -> Observation:
        """This seat's last view (the only one this client has)."""
        return self.remote.last

    def payment_options(self, prefix: Sequence[int]) -> tuple[int, ...] | None:
        """The payer's legal actions after paying ``prefix`` (``None`` once complete).

        The payment dialog asks synchronously. :meth:`RemoteApp.prefetch_payments` fills
        the answers in beforehand, without blocking; one it has not fetched yet is asked
        of the server with a short blocking call. The options depend on which cards were
        paid, not on their order, so answers are kept per set of cards.

        :class:`SeatUnavailable` when the server refuses (the game moved on meanwhile: the
        seat has no payment to make any more), cannot be reached, or answers nonsense.
        """
        key = tuple(sorted(prefix))
        if key not in self._payments:
            self.blocking_calls += 1
            texts = [format_action(self.ruleset, a) for a in key]
            server = self.connection.server
            try:
                options = payment_options_of(_post_json(self.connection, "payment-options", {"pay": texts}), server)
            except ApiError as error:
                raise SeatUnavailable(error.message) from None
            try:
                self.remember_payment(key, options)
            except ValueError:
                raise SeatUnavailable(unreadable_reply(server).message) from None
        return self._payments[key]

    def remember_payment(self, paid: tuple[int, ...], options: list[str] | None) -> tuple[int, ...] | None:
        """Keep the server's answer for the cards ``paid`` (sorted); returns the options as actions.

        ``ValueError`` (nothing kept) when an option is not an action of this ruleset.
        """
        parsed = None if options is None else tuple(parse_action(self.ruleset, text) for text in options)
        self._payments[paid] = parsed
        return parsed

    def knows_payment(self, paid: tuple[int, ...]) -> bool:
        """Whether the options after paying ``paid`` (sorted) are already known."""
        return paid in self._payments

    def apply(self, action: int) -> None:
        """Send ``action`` to the server (the screen redraws when the new view arrives)."""
        self.apply_all([action])

    def apply_all(self, actions: Sequence[int]) -> None:
        """Send several actions (a payment) to the server; they are applied all or none."""
        self.remote.pending = True
        self.send([format_action(self.ruleset, a) for a in actions])

    def save(self) -> None:
        """Nothing to save here: the server saves after every action."""


def check_observation(ruleset: Ruleset, obs: Observation, seats: int, *, spectator: bool = False) -> None:
    """``ValueError`` unless every card and player ``obs`` names exists and its dice are the ruleset's.

    ``spectator``: the public view, whose ``player`` is ``-1`` and which holds no hand.

    The table screen indexes the deck, the seats and the dice with these numbers: a server
    that sends others would crash it.
    """
    cards = range(len(ruleset.deck))
    players = range(seats)
    named_cards = [*obs.hand, *obs.public, *obs.discard, *obs.my_kept, *obs.my_auction_cards, *obs.revealed,
                   *obs.my_buried, *(card for _player, card in (*obs.acquired, *obs.gold_paid))]  # fmt: skip
    named_players = [obs.active_player, *(player for player, _card in (*obs.acquired, *obs.gold_paid))]
    if spectator:
        if obs.player != -1 or obs.hand or obs.legal_actions:
            raise ValueError("a spectator's view holds a seat's private information")
    else:
        named_players.append(obs.player)
    named_cards += [card for card in (obs.drawn, obs.kept) if card is not None]
    if obs.current_player is not None:
        named_players.append(obs.current_player)
    if obs.church is not None:
        named_players.append(obs.church[0])
        named_cards.append(obs.church[1])
    if obs.auction is not None:
        auction = obs.auction
        named_cards.append(auction.card)
        named_players += [*auction.out, *auction.excluded, *(player for player, _amount in auction.bids)]
        if auction.high_bidder is not None:
            named_players.append(auction.high_bidder)
    if obs.payment is not None:
        named_players.append(obs.payment.payer)
    if (
        obs.players != seats
        or len(obs.hand_sizes) != seats
        or len(obs.cards_paid) != seats
        or len(obs.cards_lost) != seats
        or len(obs.dice) != sum(len(category.dice) for category in ruleset.categories)
        or not all(1 <= face <= 6 for face in obs.dice)
        or not all(card in cards for card in named_cards)
        or not all(player in players for player in named_players)
    ):
        raise ValueError("the observation names a card, player or die that does not exist")


def check_result(ruleset: Ruleset, result: GameResult, players: range) -> GameResult:
    """``result`` if every player and category it names exists (the end screen indexes them), else ``ValueError``."""
    categories = {category.id for category in ruleset.categories}
    if (
        result.players != len(players)
        or len(result.victory_points) != len(players)
        or len(result.gold) != len(players)
        or not result.ranking
        or not all(p.players and all(player in players for player in p.players) for p in result.ranking)
        or not all(
            c.category in categories
            and len(c.totals) == len(players)
            and len(c.best_letters) == len(players)
            and all(a.category in categories and (a.winner is None or a.winner in players) for a in c.awards)
            for c in result.categories
        )
    ):
        raise ValueError("the result names a player or category that does not exist")
    return result


def _post_json(connection: SeatConnection, route: str, body: dict[str, Any]) -> dict[str, Any]:
    """A short blocking HTTP call to the table (for the payment dialog, which asks synchronously)."""
    request = urllib.request.Request(
        f"{connection.server}/api/tables/{connection.table}/{route}",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {connection.token}", "Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            reply = response.read(MAX_REPLY_BYTES + 1)
    except urllib.error.HTTPError as error:
        try:
            problem = json.loads(error.read(MAX_REPLY_BYTES + 1)).get("error")
        except (ValueError, AttributeError):
            problem = None
        raise server_error(problem, error.code) from None
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise ApiError("network", str(error)) from None
    if len(reply) > MAX_REPLY_BYTES:
        raise too_large_reply(connection.server)
    try:
        result = json.loads(reply)
    except ValueError:
        raise unreadable_reply(connection.server) from None
    if not isinstance(result, dict):
        raise unreadable_reply(connection.server)
    return result


class RemoteApp(BibliosApp):
    """The Textual app of ``biblios-kit join``: connects to a table and shows it as the local game does."""

    CSS_PATH = str(Path(tui_app.__file__).with_name("biblios.tcss"))
    """The local game's stylesheet (a relative path would be looked up next to this module)."""

    def __init__(self, server: str, table: str, token: str | None, lang: str | None = None, bell: bool = True) -> None:
        super().__init__(GameConfig(lang=lang), autosave=False, bot_delay=0)
        self.connection = SeatConnection(server, table, token, self._on_view, self._on_error, self._on_status,
                                         lang=lang or current_language(), on_info=self._on_info,
                                         on_unreachable=self._on_unreachable)  # fmt: skip
        self.remote_session: RemoteSession | None = None
        self.problem: str | None = None
        """Why the app stopped (a refused token, another version of the rules), shown after it exits."""
        self.ring = bell
        """Ring the terminal bell when it becomes this seat's turn (``join --no-bell``: not)."""
        self.rings = 0
        """How many times the bell rang (its turn came)."""
        self.table_info: dict[str, Any] | None = None
        """The last ``table_info`` message: who is connected, the table's settings."""
        self.rematch_votes: list[bool | None] | None = None
        """The last ``rematch`` message's votes (each seat: opted in, out, or not yet)."""
        self.rematch_asked = False
        """This seat opted in to a rematch (its ``rematch_ready`` moves it to the new table)."""
        self.moved_to: str | None = None
        """The link of this seat at the rematch's table, once it moved there (printed when ``join`` ends)."""
        self._ending = False
        self.clock: dict[str, Any] | None = None
        """The last ``clock`` message: whose turn, the time left, which seats a stand-in plays."""
        self.seen_events: set[str] = set()
        """The table events already told (the server sends them again after a reconnection)."""

    def on_mount(self, event: events.Mount) -> None:  # type: ignore[override]
        event.prevent_default()  # not the local game's start-up (setup screen, saved game)
        from biblios_kit.tui.screens.connecting import ConnectingScreen

        self.push_screen(ConnectingScreen(clean_text(self.connection.server, limit=200)))
        self.run_worker(self._connect(), exclusive=True, group="connection")

    def _localize_bindings(self) -> None:
        """The local game's keys, plus ``w`` (who is at the table) and ``t`` answered when hints are off."""
        super()._localize_bindings()
        for binding in (
            Binding("w", "who", _("Who is here")),
            Binding("g", "seat_back", _("Take my seat back")),
            Binding("v", "vote_stand_in", _("Vote for a stand-in")),
            # priority: it comes before the table's own hint key, and only when the table allows no hints
            Binding("t", "no_hints", _("Hint"), show=False, priority=True),
        ):
            self._bindings.key_to_bindings[binding.key] = [binding]
        if self.is_attached:
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``t`` is the app's only when the table allows no hints (else the table's hint key answers)."""
        if action == "no_hints":
            from biblios_kit.tui.screens.table import TableScreen

            return self.table_info is not None and not self.table_info["hints_allowed"] and isinstance(
                self.screen, TableScreen)  # fmt: skip
        if action == "who":
            return self.table_info is not None and self.remote_session is not None
        if action in ("seat_back", "vote_stand_in"):
            return self.stand_in_action(action)
        return super().check_action(action, parameters)

    def action_no_hints(self) -> None:
        """Hints are off at this table (its settings, which every seat sees, say so)."""
        self.notify(_("Hints are not allowed at this table."), severity="warning", timeout=4)

    def action_who(self) -> None:
        """Show who is connected, who is away, how many watch, and the table's settings."""
        session = self.remote_session
        if session is not None and self.table_info is not None:
            self.notify(presence_summary(session.names, session.seats, self.table_info), timeout=8)

    def stand_in_action(self, action: str) -> bool:
        """Whether ``g`` (take my seat back) or ``v`` (vote for a stand-in for the people away) applies now."""
        session, clock = self.remote_session, self.clock
        if session is None or session.seat is None:  # a spectator has no seat to take back, no vote
            return False
        if action == "seat_back":
            return clock is not None and clock["stand_in"][session.seat] in ("move_time", "absent", "vote")
        return bool(self.away_seats())

    def away_seats(self) -> list[int]:
        """The other people's seats that are away and not yet played by the stand-in."""
        session, clock, info = self.remote_session, self.clock, self.table_info
        if session is None or info is None:
            return []
        standing = clock["stand_in"] if clock is not None else [None] * len(session.seats)
        return [seat for seat, kind in enumerate(session.seats)
                if kind == HUMAN and seat != session.seat and not info["connected"][seat] and not standing[seat]]  # fmt: skip

    def action_seat_back(self) -> None:
        """Ask the server for this seat back from the stand-in bot."""
        self.run_worker(self._clock_request(self.connection.take_seat_back()), group="clocks")

    def action_vote_stand_in(self) -> None:
        """Vote to let the stand-in play for each person who is away."""
        for seat in self.away_seats():
            self.run_worker(self._clock_request(self.connection.vote_stand_in(seat)), group="clocks")

    async def _clock_request(self, request: Awaitable[dict[str, Any]]) -> None:
        from biblios_kit.net.client import ApiError

        try:
            reply = await request
        except ApiError as error:
            self.notify(clean_text(error.message, limit=200), severity="warning", timeout=5)
            return
        if reply.get("type") == "vote" and not reply.get("passed"):
            votes, needed = reply.get("votes"), reply.get("needed")
            if isinstance(votes, int) and isinstance(needed, int):
                self.notify(
                    _("Your vote is counted: {votes} of {needed}.").format(votes=votes, needed=needed), timeout=4
                )

    def _on_clock(self, message: dict[str, Any]) -> None:
        """A ``table_event`` (said in a notice) or a ``clock`` message (the time of this seat's turn, its stand-in)."""
        from biblios_kit.net.clock_texts import clock_time, event_sentence

        session = self.remote_session
        if session is None:
            return
        if message["type"] == "table_event":
            event = message.get("event")
            line = event_sentence(event, session.names) if isinstance(event, dict) else None
            key = json.dumps(event, sort_keys=True)[:500]
            if line is not None and key not in self.seen_events:
                self.seen_events.add(key)
                self.notify(line, timeout=6)
            return
        stand_in = message.get("stand_in")
        if not isinstance(stand_in, list) or len(stand_in) != len(session.names):
            return
        before, self.clock = self.clock, message
        me = session.seat
        if me is None:  # a spectator: nothing here is said to them
            return
        if stand_in[me] and (before is None or not before["stand_in"][me]):
            hint = _("A stand-in bot plays for you.")
            if stand_in[me] != "game_time":
                hint += " " + _("Press g to take your seat back.")
            self.notify(hint, severity="warning", timeout=10)
        to_move, left = message.get("to_move"), message.get("move_left")
        game = message.get("game_left")
        if to_move == me and message.get("running") and (before is None or before.get("to_move") != me):
            if isinstance(left, int | float):
                self.notify(_("Time left for this turn: {time}").format(time=clock_time(left)), timeout=5)
            elif isinstance(game, list) and len(game) > me and isinstance(game[me], int | float):
                self.notify(_("Time left in the game: {time}").format(time=clock_time(game[me])), timeout=5)
        self.refresh_bindings()

    def _on_info(self, message: dict[str, Any]) -> None:
        """Take a ``table_info`` message: tell who connected or left (a bad one is ignored).

        The ``table_event`` and ``clock`` messages of the table's clocks come here too (:meth:`_on_clock`).
        """
        session = self.remote_session
        if session is None:
            return
        if message.get("type") in ("table_event", "clock"):
            self._on_clock(message)
            return
        if message.get("type") in ("rematch", "rematch_ready"):
            self._on_rematch(session, message)
            return
        try:
            info = check_info(message, len(session.names))
        except ValueError:
            return
        before = self.table_info
        self.table_info = info
        if before is None:
            self.action_who()
        else:
            for line in presence_changes(session.names, before["connected"], info["connected"], session.seat):
                self.notify(line, timeout=4)
            if before["hints_allowed"] != info["hints_allowed"] or before["settings"] != info["settings"]:
                self.action_who()
        self.refresh_bindings()
        self.show_rematch_votes()

    def _on_unreachable(self, reason: str, delay: float) -> None:
        """An attempt to reach the server failed: said on the connecting screen (in a game, the status says it)."""
        from biblios_kit.tui.screens.connecting import ConnectingScreen

        if isinstance(self.screen, ConnectingScreen):
            self.screen.failed(reason, delay)

    async def switch_language(self, lang: str) -> None:
        """Switch the language (the server's error messages follow)."""
        await super().switch_language(lang)
        self.connection.lang = current_language()
        self.show_rematch_votes()

    async def _connect(self) -> None:
        """Run the connection; a message the client refuses (too large, malformed) ends the app with its reason."""
        try:
            await self.connection.run()
        except ApiError as error:
            await self.connection.close()
            self._stop(error.message)

    async def _on_view(self, view: dict[str, Any]) -> None:
        """Take a view; one that is not what the protocol says stops the connection (``ApiError`` ``bad_reply``)."""
        session = self.remote_session
        try:
            if session is None:
                self.remote_session = self._first_session(view)
                if self.remote_session is None:
                    return
                session = self.remote_session
                if session.over:
                    self.show_end(session)
                else:
                    self.start_session(session)
                return
            was_mine = bool(session.remote.legal_actions())
            moved = session.update(view)
            renamed = session.rename(view)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            raise unreadable_reply(self.connection.server) from None
        if renamed and not moved:
            self._redraw()
        if moved:
            remote = session.remote
            if not was_mine and remote.legal_actions() and not remote.is_terminal():
                self._your_turn(session)
            if remote.phase is Phase.PAYMENT and remote.current_player == session.seat and remote.legal_actions():
                await self.prefetch_payments(session, remote.version, levels=2)  # before the dialog opens
                self.run_worker(self.prefetch_payments(session, remote.version), group="payments")
            self._advance(session)

    def _first_session(self, view: dict[str, Any]) -> RemoteSession | None:
        """The session of the first view (``None`` after stopping the app: not a seat, another ruleset)."""
        if view.get("seat") is None and self.connection.token is not None:
            self._stop(_("this link is not a seat of the table"))
            return None
        from biblios_kit.rules import load_ruleset
        from biblios_kit.rules.loader import available_rulesets

        rules = view["ruleset"]
        # The server names a ruleset by id; only a ruleset this machine knows by that id is loaded,
        # never a path the server chose (a client does not read local files at a server's word).
        entry = next((entry for entry in available_rulesets() if entry.id == rules["id"]), None)
        if entry is None:
            self._stop(
                _("the server plays a ruleset this machine does not have: {ruleset}").format(
                    ruleset=clean_text(str(rules["id"]), limit=100)
                )
            )
            return None
        try:
            ruleset = load_ruleset(entry.path, rules["options"])
        except BibliosError as error:
            self._stop(str(error))
            return None
        if ruleset.content_hash != rules["content_hash"]:
            self._stop(
                _("the server plays another version of {ruleset}; update biblios-kit").format(
                    ruleset=clean_text(rules["id"], limit=100)
                )
            )
            return None
        return RemoteSession(self.connection, ruleset, view, self.config.lang, self._send)

    async def prefetch_payments(self, session: RemoteSession, version: int, levels: int = 8,
                                budget: int = 64) -> None:  # fmt: skip
        """Ask the server, without blocking, for the payer's options after each set of cards it may pay.

        Level by level (no card, one card, two ...), each level's questions at once, at most
        ``budget`` questions; stops when the game moves on (``version`` changed).
        """
        from biblios_kit.engine.actions import REFUSE
        from biblios_kit.net.client import ApiClient

        frontier: list[tuple[int, ...]] = [()]
        async with ApiClient(self.connection.server, self.connection.token) as client:
            for _level in range(levels):
                wanted = [paid for paid in frontier if not session.knows_payment(paid)][:budget]
                budget -= len(wanted)
                answers = await asyncio.gather(
                    *(client.payment_options(self.connection.table, [format_action(session.ruleset, a) for a in paid])
                      for paid in wanted),
                    return_exceptions=True,
                )  # fmt: skip
                if session.remote.version != version:
                    return
                for paid, answer in zip(wanted, answers):
                    if not isinstance(answer, BaseException):
                        with contextlib.suppress(ValueError):  # not actions: the dialog asks again itself
                            session.remember_payment(paid, answer)
                following: set[tuple[int, ...]] = set()
                for paid in frontier:
                    if session.knows_payment(paid):
                        options = session.payment_options(paid)
                        following.update(tuple(sorted((*paid, a))) for a in options or () if a != REFUSE)
                frontier = sorted(following)
                if not frontier or budget <= 0:
                    return

    def _redraw(self) -> None:
        """Draw the table again (the seats' names changed)."""
        from biblios_kit.tui.screens.table import TableScreen

        for screen in self.screen_stack:
            if isinstance(screen, TableScreen):
                screen.update_view()

    def _advance(self, session: RemoteSession) -> None:
        from biblios_kit.tui.screens.table import TableScreen

        for screen in self.screen_stack:
            if isinstance(screen, TableScreen):
                screen.advance()
                return
        if session.over:
            self.show_end(session)

    def _send(self, actions: list[str]) -> None:
        """Send the actions the table screen played (it calls ``apply_all`` synchronously) from a worker."""
        self.run_worker(self._send_now(actions), group="send")

    async def _send_now(self, actions: list[str]) -> None:
        session = self.remote_session
        assert session is not None
        try:
            await self.connection.send_actions(actions, session.remote.version)
        except ApiError as error:
            session.remote.pending = False
            self.notify(error.message, severity="error", timeout=6)
            self._advance(session)

    def _your_turn(self, session: RemoteSession) -> None:
        """It has become this seat's turn: the terminal bell (unless ``--no-bell``), once the table has drawn it.

        A forced move the table plays by itself (its *forced moves* setting) is sent at once, so
        the seat is no longer waiting a moment later: then nothing rings.
        """
        version = session.remote.version
        self.set_timer(BELL_DELAY, lambda: self._ring_if_waiting(session, version))

    def _ring_if_waiting(self, session: RemoteSession, version: int) -> None:
        remote = session.remote
        if self.ring and remote.version == version and remote.legal_actions() and not remote.is_terminal():
            self.rings += 1
            self.bell()

    def _on_error(self, code: str, message: str) -> None:
        if code in OWN_WORDS:
            message = _(OWN_WORDS[code])
        if code in STOPPING_ERRORS:
            self._stop(message)
        else:
            self.notify(message, severity="error", timeout=6)

    def _on_status(self, connected: bool) -> None:
        if connected:
            self.notify(_("Connected."), timeout=2)
        else:
            self.notify(_("Connection lost; reconnecting…"), severity="warning", timeout=4)

    def _stop(self, message: str) -> None:
        self.problem = clean_text(message)  # printed to the terminal after the app exits
        self.exit()

    def show_end(self, session: TableSession) -> None:
        """Show the end: the game record is fetched first (every hand, the log, the replay), then the end screen."""
        if not isinstance(session, RemoteSession):
            super().show_end(session)
            return
        if self._ending:
            return
        self._ending = True
        self.session = session
        self.run_worker(self._show_end(session), group="end")

    async def _show_end(self, session: RemoteSession) -> None:
        from biblios_kit.net.client import ApiClient
        from biblios_kit.net.remote_end import finished_game
        from biblios_kit.tui.screens.end import EndScreen

        if session.final_state is None:
            try:
                async with ApiClient(self.connection.server, self.connection.token) as client:
                    document = await client.record(self.connection.table)
                session.final_state = await asyncio.to_thread(
                    finished_game, session.ruleset, document, session.result()
                )
            except ApiError as error:
                self.notify(error.message, severity="warning", timeout=6)
        for _wait in range(40):  # the table's settings follow the first view: they say whether the review is allowed
            if self.table_info is not None:
                break
            await asyncio.sleep(0.05)
        review = self.table_info is not None and bool(self.table_info["hints_allowed"])
        self._replace_screens(EndScreen(session.ruleset, session.result(), session.names, session.full_state,
                                        rematch=session.seat is not None, review=review))  # fmt: skip
        self.show_rematch_votes()

    def ask_rematch(self) -> None:
        """This seat opts in to a rematch (the end screen's "Rematch"); the others are told."""
        if not self.rematch_asked:
            self.rematch_asked = True
            self.notify(_("You asked for a rematch: waiting for the others."), timeout=6)
            self.run_worker(self._vote(True), group="rematch")

    def leave_table(self) -> None:
        """Leave from the end screen: this seat opts out of the rematch first (the others see it), then quits."""
        self.run_worker(self._leave(), group="rematch")

    async def _leave(self) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._vote(False), 3)
        await self.action_quit()

    async def _vote(self, accept: bool) -> None:
        from biblios_kit.net.client import ApiClient

        try:
            async with ApiClient(self.connection.server, self.connection.token) as client:
                reply = await client.rematch(self.connection.table, accept)
        except ApiError as error:
            self.rematch_asked = False
            self.notify(error.message, severity="error", timeout=6)
            return
        if accept and isinstance(reply, dict) and reply.get("token") is not None:
            self._on_info({**reply, "type": "rematch_ready"})

    def _on_rematch(self, session: RemoteSession, message: dict[str, Any]) -> None:
        """Take a ``rematch`` (who opted in or out: told) or ``rematch_ready`` (this seat moves to the new table)."""
        from biblios_kit.net.remote_end import check_ready, check_votes, vote_changes

        try:
            if message["type"] == "rematch_ready":
                new_table, token = check_ready(message, self.connection.table, len(session.names))
                if self.rematch_asked:
                    self._move_to(new_table, token)
                return
            votes = check_votes(message, len(session.names))
        except ValueError:
            return
        before = self.rematch_votes or [None] * len(votes)
        people = [seat for seat, kind in enumerate(session.seats) if kind == HUMAN]
        for line in vote_changes(session.names, before, votes, session.seat, people):
            self.notify(line, timeout=6)
        self.rematch_votes = votes
        self.show_rematch_votes()

    def show_rematch_votes(self) -> None:
        """Keep the end screen's line of the rematch up to date (who wants it, who does not, who left)."""
        from biblios_kit.net.remote_end import rematch_line
        from biblios_kit.tui.screens.end import EndScreen

        session, screen = self.remote_session, self.screen
        if session is None or not isinstance(screen, EndScreen) or not screen.rematch:
            return
        people = [seat for seat, kind in enumerate(session.seats) if kind == HUMAN]
        votes = self.rematch_votes or [None] * len(session.names)
        connected = self.table_info["connected"] if self.table_info is not None else None
        screen.show_rematch(rematch_line(session.names, votes, people, connected))

    def _move_to(self, table: str, token: str) -> None:
        """Follow this seat to the rematch's table, on the same server, with its new token."""
        old = self.connection
        self.moved_to = f"{old.server}/play/{table}?token={token}"
        self.notify(_("Everyone wants a rematch: to the new table."), timeout=4)
        self.connection = SeatConnection(old.server, table, token, self._on_view, self._on_error, self._on_status,
                                         lang=old.lang, on_info=self._on_info,
                                         on_unreachable=self._on_unreachable)  # fmt: skip
        self.remote_session = None
        self.table_info = None
        self.rematch_votes = None
        self.rematch_asked = False
        self._ending = False
        self.run_worker(self._reconnect(old), group="move")

    async def _reconnect(self, old: SeatConnection) -> None:
        await old.close()
        self.run_worker(self._connect(), exclusive=True, group="connection")

    def show_setup(self, message: str = "") -> None:
        """A remote game has no setup screen: "New game" and errors leave the app."""
        self._stop(message) if message else self.exit()

    async def action_quit(self) -> None:
        """Leave (the seat stays yours: join again with the same link)."""
        await self.connection.close()
        self.exit()
