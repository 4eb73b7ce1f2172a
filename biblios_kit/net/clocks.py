"""Clocks and absent players: the stand-in bot that plays for a seat whose time ran out or whose person is away.

A table's settings (:mod:`biblios_kit.net.settings`) may give each person a time per turn
(``move_seconds``), a time for the whole game (``game_seconds``) and a limit to how long a
seat may stay disconnected (``absent_seconds``); all are off by default. :class:`Clocks`
keeps them for every table of a hub with the event loop's timers (one per table for the
seat to move, one per disconnected seat: no polling). When a time runs out, the table's
``stand_in`` bot plays the seat: it is put among the table's bots, so the hub plays it as
any server bot. People at a table may also vote a disconnected seat to the stand-in; it
passes when more than half of the other people's seats agree.

The person gets the seat back at once when they connect again, play an action, or ask for
it (``back``); a seat whose game time ran out stays with the stand-in to the end.

Each event (a time ran out, a stand-in took over, a person came back, a vote) is sent to
every connection that asked for ``table_info`` as a ``table_event`` message, again to a
connection that joins later, and written beside the game record
(``records/<table>.events.json``: the record format has no place for it). The same file
keeps the game clocks and the stand-ins, so a server restarted resumes them (the seat to
move gets a fresh turn; absences count from the restart). After each change, and whenever
a stand-in comes or goes, a ``clock`` message tells the connections whose turn it is,
the time left and which seats a stand-in plays.

With a store shared by several processes, only the process that holds a table's clock lock
(:meth:`~biblios_kit.net.storage.SharedStorage.hold_clocks`: a PostgreSQL session-level
advisory lock) runs its clocks and takes absent seats over (the others learn the moves
through the store), so two processes never start two takeovers for one seat. A process
tries to take the lock of each open table with clocks after a change it made and at each
comparison with the store (every 5 s); the lock goes with its process's connection, so when
that process dies another one takes the clocks over within seconds (the seat to move gets a
fresh turn; stand-ins saved in a shared data folder are read again). Absence is judged by
the connections of every process: each one writes which seats are connected to it
(:meth:`~biblios_kit.net.storage.SharedStorage.share_presence`), and the owner counts a seat
connected anywhere as present (:meth:`Clocks.connected`). Events are relayed to the other
processes' connections, and so are the ``clock`` messages of the process that runs the
clocks (the others send none of their own).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from biblios_kit.atomic import write_text_atomic
from biblios_kit.i18n import _
from biblios_kit.net.presence import connected_seats, local_seats, send_to
from biblios_kit.net.protocol import dumps
from biblios_kit.net.views import SPECTATOR

if TYPE_CHECKING:
    from biblios_kit.net.tables import Listener, Table, TableHub

log = logging.getLogger("biblios_kit.net")

HUMAN = "human"

EVENT_KINDS = ("time_out", "stand_in", "back", "vote", "vote_passed")
"""The ``kind`` of a table event: a time ran out, a stand-in took over a seat, its person came back, a vote
for a stand-in was cast, a vote passed."""

REASONS = ("move_time", "game_time", "absent", "vote")
"""Why a stand-in plays a seat."""

MAX_EVENTS = 1_000
"""Most events kept per table (the oldest go first)."""


class ClockError(Exception):
    """A clock request the hub refuses (turned into ``Rejected`` by the caller): status, stable code, message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


@dataclass
class TableClock:
    """The clocks, stand-ins, votes and events of one table."""

    game_left: list[float]
    """Seconds of game time left per seat (meaningful when ``game_seconds`` is on)."""
    stand_ins: dict[int, str] = field(default_factory=dict)
    """Seat -> why the stand-in plays it (one of :data:`REASONS`)."""
    votes: dict[int, set[int]] = field(default_factory=dict)
    """Absent seat -> the seats that voted to give it to the stand-in."""
    events: list[dict[str, Any]] = field(default_factory=list)
    turn_seat: int | None = None
    """The person whose turn the clock counts, or ``None``."""
    turn_started: float = 0.0
    """Loop time the current turn began (the move clock counts from here)."""
    charged: float = 0.0
    """Loop time up to which the turn's seat was charged game time."""
    deadline: float | None = None
    """Loop time the turn's seat runs out of time (``None``: no clock runs)."""
    timer: asyncio.TimerHandle | None = None
    absent_timers: dict[int, asyncio.TimerHandle] = field(default_factory=dict)
    away: set[int] = field(default_factory=set)
    """Seats without a connection (as last seen)."""
    owner: bool = False
    """Whether this process runs the table's clocks (always with one process; with several, the clock lock's holder)."""
    saved_final: bool = False
    elsewhere: frozenset[int] = frozenset()
    """Seats connected to other processes (a shared store), as they last said."""
    relayed: dict[str, Any] | None = None
    """The last ``clock`` message the process that runs the clocks relayed (a shared store), as received."""
    relayed_at: float = 0.0
    """Loop time it was received."""
    local: list[bool] = field(default_factory=list)
    """Per seat, whether it was connected to this process when last told to the others."""


class Clocks:
    """The clocks of every table of a hub (see the module's docstring)."""

    def __init__(self, hub: TableHub) -> None:
        self.hub = hub
        self.tables: dict[str, TableClock] = {}
        self.started = False
        self._outbox: list[tuple[str, str]] = []
        """With a shared store: messages to relay to the other processes, in order."""
        self._relaying: asyncio.Task[None] | None = None
        self._claiming: asyncio.Task[None] | None = None
        """With a shared store: the pending attempt to take the clock locks after a change this process made."""

    # ------------------------------------------------------------------ hooks called by the hub

    def opened(self, table: Table) -> None:
        """A table was created or resumed: read its saved clocks and stand-ins, if any."""
        clock = self.tables[table.id] = TableClock(game_left=[table.settings.game_seconds] * len(table.seats))
        saved = self._read(table)
        if saved is not None:
            self._restore(table, clock, saved)
        if self.started:  # a table created while serving: its absences count from now
            self.presence(table)

    def _restore(self, table: Table, clock: TableClock, saved: dict[str, Any]) -> None:
        """Take the events, game clocks and stand-ins saved beside the record."""
        events = saved.get("events")
        if isinstance(events, list):
            clock.events = [event for event in events if isinstance(event, dict)][-MAX_EVENTS:]
        left = saved.get("game_left")
        if isinstance(left, list) and len(left) == len(table.seats):
            clock.game_left = [float(x) if isinstance(x, int | float) and x >= 0 else 0.0 for x in left]
        stand_ins = saved.get("stand_in")
        if isinstance(stand_ins, list) and len(stand_ins) == len(table.seats) and not table.finished:
            for seat, reason in enumerate(stand_ins):
                if reason in REASONS and table.seats[seat] == HUMAN:
                    clock.stand_ins[seat] = reason
                    self._seat_bot(table, seat)

    def start(self) -> None:
        """The event loop runs: start every table's clocks."""
        self.started = True
        for table in list(self.hub.tables.values()):
            if self.hub.shared is None:  # with several processes, the one that makes the next change runs them
                self.changed(table)
            self.presence(table)

    def changed(self, table: Table) -> None:
        """``table``'s game changed (or its settings): charge the time used, start the clock of the seat to move."""
        clock = self.tables.get(table.id)
        if clock is None or not self.started:
            return
        if self.hub.shared is None:
            clock.owner = True
        elif table.bot_wait == 0.0 and not clock.owner and self.wanted(table):  # this process made the change
            self._claim_soon()
        owner = clock.owner
        if table.finished and clock.events and not clock.saved_final:
            clock.saved_final = True
            self._stop_timers(clock)
            self._save(table, clock)
        if not table.settings.clocked and not clock.stand_ins and clock.turn_seat is None:
            return  # a table without clocks (the default): nothing to do at each action
        loop = asyncio.get_running_loop()
        now = loop.time()
        self._charge(table, clock, now)
        seat = table.state.current_player
        timed = table.settings.move_seconds or table.settings.game_seconds
        if (
            table.finished
            or seat is None
            or table.seats[seat] != HUMAN
            or seat in clock.stand_ins
            or not owner
            or not timed
        ):
            self._stop_turn(clock)
        elif seat != clock.turn_seat:
            clock.turn_seat, clock.turn_started, clock.charged = seat, now, now
        self._arm(table, clock, now)
        if table.finished:
            self._stop_timers(clock)
            self._save(table, clock)
        if table.settings.clocked or clock.stand_ins:
            self._send(table, self.clock_message(table))

    def judges_absence(self, table: Table) -> bool:
        """Whether ``table``'s absences count: a game not over, with ``absent_seconds``."""
        return not table.finished and bool(table.settings.absent_seconds) and table.id in self.tables

    def connected(self, table: Table) -> list[bool]:
        """Per seat, whether it is connected, here or (a shared store) to another live process."""
        clock = self.tables.get(table.id)
        elsewhere = clock.elsewhere if clock is not None else frozenset()
        return [here or seat in elsewhere for seat, here in enumerate(connected_seats(table))]

    def elsewhere_now(self, table: Table, seats: frozenset[int]) -> None:
        """The seats of ``table`` connected to other processes are now ``seats``: absences start or end."""
        clock = self.tables.get(table.id)
        if clock is not None and clock.elsewhere != seats:
            clock.elsewhere = seats
            self.presence(table)

    def wanted(self, table: Table) -> bool:
        """Whether ``table`` needs a process to run its clocks: a game not over, with clocks or a stand-in."""
        clock = self.tables.get(table.id)
        return clock is not None and not table.finished and (table.settings.clocked or bool(clock.stand_ins))

    def own(self, table: Table, owned: bool) -> None:
        """This process now runs ``table``'s clocks (it took the clock lock), or no longer does (a shared store)."""
        clock = self.tables.get(table.id)
        if clock is None or not self.started or owned == clock.owner:
            return
        clock.owner = owned
        if not owned:
            self._stop_turn(clock)
            if clock.timer is not None:
                clock.timer.cancel()
                clock.timer = None
            return
        saved = self._read(table)  # what the previous owner saved, when the processes share a data folder
        if saved is not None:
            self._restore(table, clock, saved)
        self.changed(table)  # the seat to move gets a fresh turn
        limit = table.settings.absent_seconds
        if limit:  # the seats this process saw leave: their absence counts again from now
            loop = asyncio.get_running_loop()
            for seat in sorted(clock.away - clock.absent_timers.keys() - clock.stand_ins.keys()):
                if table.token_digests[seat]:
                    clock.absent_timers[seat] = loop.call_later(limit, self._absent, table.id, seat)
        self.hub._schedule_bot(table)

    def _claim_soon(self) -> None:
        """Try to take the clock locks now (once at a time), rather than at the next comparison."""
        if self._claiming is None or self._claiming.done():
            self._claiming = asyncio.get_running_loop().create_task(self._claim())

    async def _claim(self) -> None:
        from biblios_kit.net.storage import StorageError

        try:
            await self.hub.hold_clocks()
        except StorageError as error:
            log.warning("cannot take the clock locks: %s", error)

    def presence(self, table: Table) -> None:
        """Someone connected or left ``table``: absences start or end, a person back gets their seat."""
        clock = self.tables.get(table.id)
        if clock is None or not self.started:
            return
        if self.hub.shared is not None and self.judges_absence(table):
            local = local_seats(table)
            if local != clock.local:
                clock.local = local
                self.hub.share_presence_soon(table.id)  # the process that runs the clocks judges absence
        connected = self.connected(table)
        loop = asyncio.get_running_loop()
        for seat, spec in enumerate(table.seats):
            if spec != HUMAN:
                continue
            if connected[seat]:
                if seat not in clock.away:
                    continue
                clock.away.discard(seat)
                clock.votes.pop(seat, None)
                timer = clock.absent_timers.pop(seat, None)
                if timer is not None:
                    timer.cancel()
                if clock.stand_ins.get(seat) in ("move_time", "absent", "vote"):  # back: the seat is theirs again
                    self._give_back(table, clock, seat)
            elif seat not in clock.away:
                clock.away.add(seat)
                limit = table.settings.absent_seconds
                if limit and table.token_digests[seat] and not table.finished:  # a free seat waits for its visitor
                    clock.absent_timers[seat] = loop.call_later(limit, self._absent, table.id, seat)

    def settings_changed(self, table: Table) -> None:
        """``table``'s settings changed: the clocks follow the new ones (absences count again from now)."""
        clock = self.tables.get(table.id)
        if clock is None or not self.started:
            return
        for timer in clock.absent_timers.values():
            timer.cancel()
        clock.absent_timers.clear()
        clock.away.clear()
        if not table.settings.game_seconds:
            clock.game_left = [0.0] * len(table.seats)
        elif not any(clock.game_left):
            clock.game_left = [table.settings.game_seconds] * len(table.seats)
        self.changed(table)
        self.presence(table)

    def joined(self, listener: Listener, table: Table) -> None:
        """A connection that asked for ``table_info`` gets the table's past events and its clocks."""
        clock = self.tables.get(table.id)
        if clock is None or not listener.info:
            return
        for event in clock.events:
            send_to(listener, dumps({"type": "table_event", "table": table.id, "event": event}))
        if self.hub.shared is not None and not clock.owner:
            if clock.relayed is not None:  # the clocks another process runs, counted down since
                send_to(listener, dumps(self._aged(clock.relayed, clock.relayed_at)))
        elif table.settings.clocked or clock.stand_ins:
            send_to(listener, dumps(self.clock_message(table)))

    def relayed(self, table_id: str, text: str) -> None:
        """A ``clock`` or ``table_event`` message another process relayed: this process's connections get it too."""
        table = self.hub.tables.get(table_id)
        clock = self.tables.get(table_id)
        try:
            message = json.loads(text)
        except ValueError:
            return
        if table is None or clock is None or not isinstance(message, dict) or message.get("table") != table_id:
            return
        if message.get("type") == "table_event" and isinstance(message.get("event"), dict):
            clock.events.append(message["event"])
            del clock.events[:-MAX_EVENTS]
        elif message.get("type") == "clock":
            if clock.owner:
                return  # this process runs them now
            clock.relayed, clock.relayed_at = message, asyncio.get_running_loop().time()
        else:
            return
        self._tell(table, text)

    def _aged(self, message: dict[str, Any], received: float) -> dict[str, Any]:
        """A relayed ``clock`` message with the time gone by since it was received taken off the running clock."""
        if not message.get("running"):
            return message
        gone = asyncio.get_running_loop().time() - received
        aged = dict(message)
        if isinstance(aged.get("move_left"), int | float):
            aged["move_left"] = max(0.0, round(aged["move_left"] - gone, 1))
        left, seat = aged.get("game_left"), aged.get("to_move")
        if isinstance(left, list) and isinstance(seat, int) and 0 <= seat < len(left):
            left = list(left)
            if isinstance(left[seat], int | float):
                left[seat] = max(0.0, round(left[seat] - gone, 1))
            aged["game_left"] = left
        return aged

    def closed(self, table: Table) -> None:
        """``table`` is no longer served: its timers stop."""
        clock = self.tables.pop(table.id, None)
        if clock is not None:
            self._stop_timers(clock)

    def stop(self) -> None:
        """The server stops: every timer stops, the game clocks are saved."""
        if self._claiming is not None:
            self._claiming.cancel()
        if self._relaying is not None:
            self._relaying.cancel()
        for table_id, clock in self.tables.items():
            self._stop_timers(clock)
            table = self.hub.tables.get(table_id)
            if table is not None and self.started and not table.finished:
                self._charge(table, clock, asyncio.get_running_loop().time())
                self._save(table, clock)
        self.started = False

    # ------------------------------------------------------------------ requests of a seat

    def acted(self, table: Table, seat: int) -> None:
        """The person of ``seat`` played an action: a stand-in playing for them steps aside (unless out of game time)."""
        clock = self.tables.get(table.id)
        if clock is not None and clock.stand_ins.get(seat) not in (None, "game_time"):
            self._give_back(table, clock, seat)

    def back(self, table: Table, seat: int) -> dict[str, Any]:
        """The person of ``seat`` asks for their seat back (``ClockError`` when no stand-in plays it)."""
        clock = self.tables.get(table.id)
        reason = None if clock is None else clock.stand_ins.get(seat)
        if clock is None or reason is None:
            raise ClockError(409, "no_stand_in", _("no stand-in plays your seat"))
        if reason == "game_time":
            raise ClockError(409, "out_of_time", _("your time for the game ran out: the stand-in plays to the end"))
        self._give_back(table, clock, seat)
        return {"type": "back", "seat": seat}

    def vote(self, table: Table, voter: int, seat: object) -> dict[str, Any]:
        """``voter`` votes to give the absent ``seat`` to the stand-in; it passes with more than half of the others.

        Returns ``{"type": "vote", "seat", "votes", "needed", "passed"}`` (``ClockError`` for a refused vote).
        """
        clock = self.tables.get(table.id)
        if voter == SPECTATOR:
            raise ClockError(403, "spectator", _("spectators cannot vote"))
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(table.seats):
            raise ClockError(400, "bad_request", _('"seat" must be a seat number, counted from 0'))
        if clock is None or table.finished:
            raise ClockError(409, "game_over", _("the game is over"))
        if seat == voter:
            raise ClockError(409, "not_absent", _("you cannot vote on your own seat"))
        if table.seats[seat] != HUMAN or seat in clock.stand_ins:
            raise ClockError(409, "not_absent", _("a bot already plays that seat"))
        if self.connected(table)[seat]:
            raise ClockError(409, "not_absent", _("that seat's player is connected"))
        voters = self.voters(table, seat)
        needed = len(voters) // 2 + 1
        ballot = clock.votes.setdefault(seat, set())
        ballot.add(voter)
        self._event(table, clock, "vote", seat, by=voter, votes=len(ballot), needed=needed)
        passed = len(ballot) >= needed
        if passed:
            clock.votes.pop(seat, None)
            self._event(table, clock, "vote_passed", seat)
            self._take_over(table, clock, seat, "vote")
        return {"type": "vote", "seat": seat, "votes": len(ballot), "needed": needed, "passed": passed}

    @staticmethod
    def voters(table: Table, seat: int) -> list[int]:
        """The seats that vote on giving ``seat`` to the stand-in: the other people's seats that have a token."""
        return [s for s, spec in enumerate(table.seats) if spec == HUMAN and s != seat and table.token_digests[s]]

    # ------------------------------------------------------------------ messages

    def clock_message(self, table: Table) -> dict[str, Any]:
        """The ``clock`` message of ``table`` now: the seat to move, its time left, the game clocks, the stand-ins."""
        clock = self.tables[table.id]
        settings = table.settings
        now = asyncio.get_running_loop().time() if self.started else 0.0
        to_move = table.state.current_player if not table.finished else None
        move_left = None
        if settings.move_seconds and clock.turn_seat is not None and clock.turn_seat == to_move:
            move_left = max(0.0, round(clock.turn_started + settings.move_seconds - now, 1))
        game_left = None
        if settings.game_seconds:
            game_left = [round(left, 1) for left in clock.game_left]
            if clock.turn_seat is not None:
                game_left[clock.turn_seat] = max(
                    0.0, round(clock.game_left[clock.turn_seat] - (now - clock.charged), 1)
                )
        return {
            "type": "clock",
            "table": table.id,
            "to_move": to_move,
            "running": clock.deadline is not None,
            "move_left": move_left,
            "game_left": game_left,
            "stand_in": [clock.stand_ins.get(seat) for seat in range(len(table.seats))],
            "bot": settings.stand_in,
        }

    def events(self, table: Table) -> list[dict[str, Any]]:
        """The table's events so far."""
        clock = self.tables.get(table.id)
        return list(clock.events) if clock is not None else []

    def events_path(self, table: Table) -> Any:
        """Where the table's events, game clocks and stand-ins are kept: beside its game record."""
        return self.hub.store.records_dir / f"{table.id}.events.json"

    # ------------------------------------------------------------------ inside

    def _charge(self, table: Table, clock: TableClock, now: float) -> None:
        if clock.turn_seat is not None and table.settings.game_seconds:
            left = clock.game_left[clock.turn_seat] - (now - clock.charged)
            clock.game_left[clock.turn_seat] = max(0.0, left)
        clock.charged = now

    @staticmethod
    def _stop_turn(clock: TableClock) -> None:
        clock.turn_seat = None
        clock.deadline = None

    def _arm(self, table: Table, clock: TableClock, now: float) -> None:
        """Set the one timer of the table for the turn's seat (or none)."""
        if clock.timer is not None:
            clock.timer.cancel()
            clock.timer = None
        seat = clock.turn_seat
        settings = table.settings
        clock.deadline = None
        if seat is None:
            return
        ends = []
        if settings.move_seconds:
            ends.append(clock.turn_started + settings.move_seconds)
        if settings.game_seconds:
            ends.append(now + clock.game_left[seat])
        if not ends:
            return
        clock.deadline = min(ends)
        loop = asyncio.get_running_loop()
        clock.timer = loop.call_later(max(0.0, clock.deadline - now), self._time_out, table.id, seat, table.version)

    def _time_out(self, table_id: str, seat: int, version: int) -> None:
        table = self.hub.tables.get(table_id)
        clock = self.tables.get(table_id)
        if table is None or clock is None or clock.turn_seat != seat or table.state.current_player != seat:
            return
        clock.timer = None
        now = asyncio.get_running_loop().time()
        self._charge(table, clock, now)
        game_out = bool(table.settings.game_seconds) and clock.game_left[seat] <= 0.01
        which = "game" if game_out else "move"
        self._event(table, clock, "time_out", seat, clock=which)
        self._take_over(table, clock, seat, "game_time" if game_out else "move_time")

    def _absent(self, table_id: str, seat: int) -> None:
        table = self.hub.tables.get(table_id)
        clock = self.tables.get(table_id)
        if table is None or clock is None:
            return
        clock.absent_timers.pop(seat, None)
        if table.finished or seat in clock.stand_ins or self.connected(table)[seat] or not clock.owner:
            return
        self._take_over(table, clock, seat, "absent")

    def _take_over(self, table: Table, clock: TableClock, seat: int, reason: str) -> None:
        clock.stand_ins[seat] = reason
        self._seat_bot(table, seat)
        self._event(table, clock, "stand_in", seat, reason=reason, bot=table.settings.stand_in)
        if clock.turn_seat == seat:
            self._stop_turn(clock)
            if clock.timer is not None:
                clock.timer.cancel()
                clock.timer = None
        self._save(table, clock)
        self._send(table, self.clock_message(table))
        self.hub._schedule_bot(table)

    def _seat_bot(self, table: Table, seat: int) -> None:
        """Put the stand-in among ``table``'s bots for ``seat`` (the hub plays it)."""
        from biblios_kit.bots.registry import BotSpecError, make_bot
        from biblios_kit.bots.seeds import bot_seed

        spec = table.settings.stand_in
        try:
            table.bots[seat] = make_bot(spec, bot_seed(None, seat), table.state.ruleset)
        except (BotSpecError, ImportError, ValueError):
            log.exception("table %s: stand-in %r cannot be made; medium plays", table.id, spec)
            table.bots[seat] = make_bot("medium", bot_seed(None, seat), table.state.ruleset)

    def _give_back(self, table: Table, clock: TableClock, seat: int) -> None:
        clock.stand_ins.pop(seat, None)
        table.bots.pop(seat, None)
        task = table.bot_task
        if task is not None and not task.done() and table.state.current_player == seat:
            task.cancel()
            table.bot_task = None
        self._event(table, clock, "back", seat)
        self.changed(table)  # the seat to move again is theirs: a fresh turn
        self._save(table, clock)

    def _event(self, table: Table, clock: TableClock, kind: str, seat: int, /, **fields: Any) -> None:
        event = {"kind": kind, "seat": seat, "version": table.version,
                 "time": round(time.time(), 3), **fields}  # fmt: skip
        clock.events.append(event)
        del clock.events[:-MAX_EVENTS]
        log.info("table %s: %s", table.id, json.dumps(event))
        self._send(table, {"type": "table_event", "table": table.id, "event": event})

    def _send(self, table: Table, message: dict[str, Any]) -> None:
        """Send ``message`` to the table's connections that take ``table_info``; with a shared store, to the other
        processes' too (a ``clock`` message only from the process that runs the clocks: the others' would say none runs)."""
        shared = self.hub.shared
        if shared is not None and message["type"] == "clock":
            clock = self.tables.get(table.id)
            if clock is None or not clock.owner:
                return
        text = dumps(message)
        self._tell(table, text)
        if shared is not None:
            self._outbox.append((table.id, text))
            if self._relaying is None or self._relaying.done():
                self._relaying = asyncio.get_running_loop().create_task(self._relay())

    async def _relay(self) -> None:
        from biblios_kit.net.storage import StorageError

        assert self.hub.shared is not None
        while self._outbox:
            table_id, text = self._outbox.pop(0)
            try:
                await self.hub.shared.relay(table_id, text)
            except StorageError as error:
                log.warning("table %s: cannot relay a message to the other processes: %s", table_id, error)

    @staticmethod
    def _tell(table: Table, text: str) -> None:
        wanting: Iterable[Listener] = [listener for listener in table.listeners if listener.info]
        for listener in wanting:
            send_to(listener, text)

    @staticmethod
    def _stop_timers(clock: TableClock) -> None:
        if clock.timer is not None:
            clock.timer.cancel()
            clock.timer = None
        for timer in clock.absent_timers.values():
            timer.cancel()
        clock.absent_timers.clear()

    def _read(self, table: Table) -> dict[str, Any] | None:
        try:
            with open(self.events_path(table), encoding="utf-8") as file:
                data = json.load(file)
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as error:
            log.error("table %s: cannot read its events: %s", table.id, error)
            return None
        return data if isinstance(data, dict) else None

    def _save(self, table: Table, clock: TableClock) -> None:
        """Write the table's events, game clocks and stand-ins beside its record (only once there is something)."""
        if not clock.events and not table.settings.game_seconds:
            return
        data = {
            "table": table.id,
            "events": clock.events,
            "game_left": [round(left, 3) for left in clock.game_left],
            "stand_in": [clock.stand_ins.get(seat) for seat in range(len(table.seats))],
        }
        try:
            path = self.events_path(table)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(path, json.dumps(data, ensure_ascii=False), durable=False)
        except OSError:
            log.exception("table %s: cannot write its events", table.id)
