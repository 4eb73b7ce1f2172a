"""The server's tables: the authoritative game state of each, its seats and tokens, its bots and its listeners.

:class:`TableHub` is the one place where a game changes. An action request names a
table, a seat (proved by its token) and one action or several (a payment) in text form;
the hub checks every one on a copy of the state (an illegal or malformed action
changes nothing), commits them to the store (:mod:`biblios_kit.net.storage`), then makes
the copy the table's state and pushes each listener its new view. Bots play on the
server: their decisions run in a thread pool, never in the event loop.

With a store shared by several server processes (PostgreSQL), :meth:`TableHub.submit`
commits with the database's version check, :meth:`TableHub.follow` applies what the
other processes commit, and a table created elsewhere is read from the store when first
asked for.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import sqlite3
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from biblios_kit.bots.base import Bot
from biblios_kit.engine.actions import Action, format_action, parse_action
from biblios_kit.engine.state import GameState, Phase, new_game
from biblios_kit.errors import BibliosError, IllegalActionError, InvalidActionError
from biblios_kit.i18n import _, ngettext
from biblios_kit.names import clean_name, name_problem
from biblios_kit.net import presence
from biblios_kit.net.clocks import Clocks
from biblios_kit.net.presence import announce
from biblios_kit.net.protocol import PROTOCOL_VERSION, dumps
from biblios_kit.net.security import new_token, same_secret, token_digest
from biblios_kit.net.settings import TableSettings
from biblios_kit.net.storage import (
    PRESENCE_CHANGED,
    REMATCH_CHANGED,
    TABLE_CHANGED,
    SharedStorage,
    Storage,
    StorageError,
    VersionConflict,
)
from biblios_kit.net.store import MAX_SEED, StoredTable, TableExists
from biblios_kit.net.views import SPECTATOR, ViewCache, keep_observation_scans

log = logging.getLogger("biblios_kit.net")

HUMAN = "human"
"""The seat spec of a person (any other spec names a bot)."""

QUEUE_LIMIT = 256
"""Messages waiting for one slow listener before it is dropped."""

TAKEOVER_SECONDS = 1.0
"""With a shared store, how much longer a process waits before playing a bot's move after a change another
process made (that process plays it first; this one takes over only when it has not, e.g. it died)."""


def new_table_id() -> str:
    """A fresh table id (8 URL-safe characters), never starting with ``-``: typed after a command
    (``host invite <table> <seat>``), it would read as an option."""
    while (table := secrets.token_urlsafe(6)).startswith("-"):
        pass
    return table


class Rejected(Exception):
    """A request the hub refuses; ``code`` is stable (see docs/network.md), ``message`` is for people.

    ``view``, when set, is the requester's current view, sent with the error (a stale action).
    """

    def __init__(self, status: int, code: str, message: str, view: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.view = view


@dataclass(eq=False)
class Listener:
    """One connection following a table: which seat it sees and what was already sent to it."""

    seat: int
    """A seat number, or ``SPECTATOR``."""
    queue: asyncio.Queue[str | None] = field(default_factory=lambda: asyncio.Queue(QUEUE_LIMIT))
    """Serialized messages waiting to be written (``None`` asks the writer to close)."""
    events_sent: int = 0
    version_sent: int = -1
    info: bool = False
    """Whether it asked for ``table_info`` messages (who is connected: :mod:`biblios_kit.net.presence`)."""
    updates: bool = False
    """The client asked for ``update`` messages (only what changed) after its first whole view."""
    write: Callable[[str], bool] | None = None
    """Writes a message to the connection at once (the server's WebSocket), ``False`` when it cannot take
    it (too slow to read, or closing); without it, messages wait in :attr:`queue` for a writer task."""
    token: str | None = field(default=None, repr=False)
    """The seat's token the connection was opened with (its rematch place is made from it: :mod:`biblios_kit.net.rematch`)."""


@dataclass(eq=False)
class Table:
    """One game on the server."""

    id: str
    state: GameState
    seats: tuple[str, ...]
    """``"human"`` or a bot spec per seat."""
    names: tuple[str, ...]
    token_digests: tuple[str, ...]
    """SHA-256 of each human seat's token (``""`` for a bot seat)."""
    bot_delay: float
    options: tuple[str, ...]
    bots: dict[int, Bot] = field(default_factory=dict)
    listeners: set[Listener] = field(default_factory=set)
    bot_task: asyncio.Task[None] | None = None
    bot_wait: float = 0.0
    """Seconds added to the bot delay before the next bot move (:data:`TAKEOVER_SECONDS` after another process's change)."""
    settings: TableSettings = field(default_factory=TableSettings)
    elsewhere: frozenset[int] = frozenset()
    """With a shared store: the seats connected to other live processes (``table_info`` counts them connected)."""
    """Hints, spectators, open to the lobby (:mod:`biblios_kit.net.settings`)."""
    _cache: ViewCache | None = None
    _headers: dict[int, str] = field(default_factory=dict)
    """Seat -> the JSON of the view fields that never change (see :meth:`view_text`)."""

    @property
    def version(self) -> int:
        """Number of actions accepted so far."""
        return self.state.decision_count

    @property
    def finished(self) -> bool:
        """Whether the game is over."""
        return self.state.is_terminal()

    def renamed(self, names: tuple[str, ...]) -> bool:
        """Call the seats ``names`` from now on; whether that changed any."""
        if names == self.names:
            return False
        self.names = names
        self._headers.clear()  # the views' fixed part carries the names
        return True

    def seat_of(self, token: str | None) -> int | None:
        """The seat ``token`` acts for, or ``None`` (every seat is compared, in constant time)."""
        if not token:
            return None
        digest = token_digest(token)
        found = None
        for seat, expected in enumerate(self.token_digests):
            if expected and same_secret(digest, expected):
                found = seat
        return found

    def views(self) -> ViewCache:
        """The views of the current version (built lazily, once per seat)."""
        if self._cache is None:
            self._cache = ViewCache(self.state)
        self._cache.moved_to(self.state, self.version)
        return self._cache

    def view(self, seat: int, since: int = 0) -> dict[str, Any]:
        """The view message of ``seat`` (or ``SPECTATOR``), with the events from number ``since`` on."""
        cache = self.views()
        since = max(0, min(since, len(self.state.log)))
        return {
            **self._fixed(seat),
            "version": self.version,
            "observation": cache.observation(seat),
            "first_event": since,
            "events": cache.events(seat, since),
            "result": cache.result(),
        }

    def view_text(self, seat: int, since: int = 0) -> tuple[str, int]:
        """:meth:`view` as JSON text, and the number of events the seat has once it reads it.

        The same message as :func:`~biblios_kit.net.protocol.dumps` of :meth:`view` (keys in
        another order), made from parts serialized once: the fields that never change (per
        table and seat), the observation (per version and seat, shared by every connection of
        the seat: every spectator gets the same text) and each event (once per seat, or once
        for all seats when they all see it alike). Profiled at 1,000 tables of four seats,
        building and serializing whole view dictionaries was the largest part of the server's
        CPU per action (docs/performance.md).
        """
        cache = self.views()
        count = len(self.state.log)
        since = max(0, min(since, count))
        header = self._headers.get(seat)
        if header is None:
            header = self._headers[seat] = dumps(self._fixed(seat))[1:-1]
        text = (
            f'{{{header},"version":{self.version},"observation":{cache.observation_text(seat)},'
            f'"first_event":{since},"events":{cache.events_text(seat, since)},"result":{cache.result_text()}}}'
        )
        return text, count

    def update_text(self, seat: int, base: int, since: int) -> tuple[str, int] | None:
        """The ``update`` message taking ``seat``'s view from version ``base`` to now, and the seat's event count.

        ``None`` when no update can: ``base`` is not the version the table's views were last
        built at before this one, or the seat had no view of it (then it needs a whole view).
        An update carries ``version``, ``base``, the observation fields that changed (made
        once per version and seat, shared by every connection of the seat), the events from
        number ``since`` on, and ``result`` once the game is over (docs/network.md).
        """
        cache = self.views()
        if base != cache.previous or base == self.version:
            return None
        changes = cache.changes_text(seat)
        if changes is None:
            return None
        count = len(self.state.log)
        since = max(0, min(since, count))
        result = f',"result":{cache.result_text()}' if self.state.is_terminal() else ""
        text = (
            f'{{"type":"update","version":{self.version},"base":{base},"observation":{changes},'
            f'"first_event":{since},"events":{cache.events_text(seat, since)}{result}}}'
        )
        return text, count

    def _fixed(self, seat: int) -> dict[str, Any]:
        """The fields of ``seat``'s view that never change."""
        return {
            "type": "view",
            "protocol": PROTOCOL_VERSION,
            "table": self.id,
            "seat": None if seat == SPECTATOR else seat,
            "ruleset": {
                "id": self.state.ruleset.id,
                "options": list(self.options),
                "content_hash": self.state.ruleset.content_hash,
            },
            "seats": [{"name": name, "kind": spec} for name, spec in zip(self.names, self.seats)],
        }


@dataclass(frozen=True)
class Invitation:
    """What the creator of a table gets: one token per human seat."""

    table: str
    tokens: dict[int, str]
    """Seat number -> token (human seats only)."""


class TableHub:
    """Every table of one server, its store, its bot thread pool, and the listeners to notify."""

    def __init__(self, store: Storage, executor: Executor | None = None, *, max_tables: int = 10_000) -> None:
        self.store = store
        self.shared = store if isinstance(store, SharedStorage) else None
        """The store again when several processes share it, else ``None``."""
        self._locks: dict[str, asyncio.Lock] = {}
        """With a shared store: per table, held while a commit or a catch-up is under way."""
        self.executor = executor
        self.max_tables = max_tables
        self.tables: dict[str, Table] = {}
        self.broken: dict[str, str] = {}
        """Stored tables that could not be resumed, with the reason."""
        self.playing = 0
        """Tables whose game is not over (counted as they open and finish, not by a walk over every table)."""
        self.clocks = Clocks(self)
        """The tables' clocks and stand-ins (:mod:`biblios_kit.net.clocks`)."""
        if self.shared is not None:
            self.shared.relayed = self.clocks.relayed  # the clocks and events other processes tell
        self._sharing: asyncio.Task[None] | None = None
        """With a shared store: the pending write of the seats connected here (:meth:`share_presence_soon`)."""
        self._announce: set[str] = set()
        self._sharing_lock: asyncio.Lock | None = None
        """Held while the seats connected here are written and those elsewhere read (:meth:`share_presence`)."""
        self._presence_written = False
        """Whether the store holds seats this process said were connected."""
        self.rematch_heard: Callable[[Table], None] | None = None
        """Called when another process changed a finished table's rematch (set by :mod:`biblios_kit.net.rematch`)."""

    # ------------------------------------------------------------------ creating and loading

    def create(self, ruleset_id: str, options: Sequence[str], players: int, seats: Sequence[str],
               names: Sequence[str] = (), seed: int | None = None, bot_delay: float = 0.5,
               settings: TableSettings | None = None, free_seats: Sequence[int] = (), *,
               table_id: str | None = None, digests: Sequence[str] | None = None) -> Invitation:  # fmt: skip
        """Create a table (``Rejected`` for a bad ruleset, option, player count, seat spec or name list).

        ``free_seats``: human seats left without a token (a visitor of the lobby, or ``host invite``, fills them).
        ``table_id`` and ``digests`` (a rematch): the table's id and its seats' token digests, made by the
        caller (the invitation then carries no token); :class:`~biblios_kit.net.store.TableExists` when a
        table with that id is already stored.
        """
        from biblios_kit.bots.registry import BotSpecError, parse_spec
        from biblios_kit.rules import load_ruleset

        if self.playing >= self.max_tables:
            raise Rejected(503, "too_many_tables", _("this server already hosts as many games as it can"))
        try:
            ruleset = load_ruleset(ruleset_id, list(options))
        except BibliosError as error:
            raise Rejected(400, "bad_ruleset", str(error)) from None
        if players not in ruleset.player_counts:
            raise Rejected(
                400,
                "bad_players",
                _("{ruleset} is played by {counts} players, not {players}").format(
                    ruleset=ruleset.id, counts=", ".join(map(str, ruleset.player_counts)), players=players
                ),
            )
        specs = list(seats) + [HUMAN] * (players - len(seats))
        if len(specs) != players:
            message = ngettext("{count} seat given for {players} players", "{count} seats given for {players} players",
                               len(seats)).format(count=len(seats), players=players)  # fmt: skip
            raise Rejected(400, "bad_seats", message)
        for spec in specs:
            if spec != HUMAN:
                try:
                    parse_spec(spec)
                except BotSpecError as error:
                    raise Rejected(400, "bad_seats", f"{spec!r}: {error}") from None
        if len(names) > players or not all(isinstance(n, str) for n in names):
            raise Rejected(400, "bad_names", _("give at most one name per seat, each 1 to 40 characters"))
        for number, name in enumerate(names, 1):  # the rule of every entry point (names.py); "" is the default
            problem = name_problem(name) if name else None
            if problem:
                raise Rejected(400, "bad_names", _("name {number}: {problem}").format(number=number, problem=problem))
        # A seat without a name stores "": each viewer shows its default name in their own language.
        all_names = [clean_name(n) for n in names] + [""] * (players - len(names))
        if not 0 <= bot_delay <= 10:
            raise Rejected(400, "bad_bot_delay", _("the bot delay must be between 0 and 10 seconds"))
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED):
            raise Rejected(400, "bad_seed", _("the seed must be an integer from 0 to {limit}").format(limit=MAX_SEED))
        seed = seed if seed is not None else random.SystemRandom().randrange(1 << 31)
        try:
            state = new_game(ruleset, players, seed)
        except ValueError as error:
            raise Rejected(400, "bad_ruleset", str(error)) from None
        if table_id is not None and table_id in self.tables:
            raise TableExists(table_id)
        while table_id is None or table_id in self.tables:  # pragma: no branch - a collision: 2^-48
            table_id = new_table_id()
        if not all(isinstance(seat, int) and 0 <= seat < players and specs[seat] == HUMAN for seat in free_seats):
            raise Rejected(400, "bad_seats", _("a free seat must be a person's seat, counted from 0"))
        tokens: dict[int, str] = {}
        if digests is None:
            tokens = {seat: new_token() for seat, spec in enumerate(specs) if spec == HUMAN and seat not in free_seats}
            digests = tuple(token_digest(tokens[s]) if s in tokens else "" for s in range(players))
        digests = tuple(digests)
        active = tuple(sorted(ruleset.active_options))
        stored = StoredTable(table_id, ruleset.id, active, players, seed, tuple(specs), tuple(all_names), digests,
                             bot_delay, False, (), (settings or TableSettings()).to_json())  # fmt: skip
        try:
            self.store.create(stored)
        except TableExists:
            raise
        except (sqlite3.Error, OSError, StorageError) as error:  # the disk is full or gone: refuse, nothing changed
            log.exception("cannot store a new table")
            raise Rejected(503, "storage_error", _("the server cannot save the game right now")) from error
        table = self._open(stored, state)
        self._after_change(table)
        return Invitation(table_id, tokens)

    def load(self) -> int:
        """Resume every stored table (replaying its actions); returns how many. Failures go to :attr:`broken`."""
        count = 0
        for stored in self.store.load_all():
            count += self._resume(stored) is not None
        return count

    def _resume(self, stored: StoredTable) -> Table | None:
        """Open a stored table (replaying its actions); ``None`` (noted in :attr:`broken`) when it cannot be."""
        from biblios_kit.rules import load_ruleset

        try:
            ruleset = load_ruleset(stored.ruleset, list(stored.options))
            state = new_game(ruleset, stored.players, stored.seed)
            for text in stored.actions:
                state.apply_text(text)
        except (BibliosError, ValueError) as error:
            self.broken[stored.id] = str(error)
            log.error("table %s cannot be resumed: %s", stored.id, error)
            return None
        table = self._open(stored, state)
        if table.finished and not self.store.record_path(table.id).exists():
            self.store.save_record(table.id, state, table.seats)
        return table

    def _open(self, stored: StoredTable, state: GameState) -> Table:
        from biblios_kit.bots.registry import make_bot
        from biblios_kit.bots.seeds import bot_seed

        table = Table(stored.id, state, stored.seats, stored.names, stored.token_digests, stored.bot_delay,
                      stored.options, settings=TableSettings.from_json(stored.settings))  # fmt: skip
        for seat, spec in enumerate(stored.seats):
            if spec != HUMAN:
                table.bots[seat] = make_bot(spec, bot_seed(None, seat), state.ruleset)
        self.tables[table.id] = table
        self.playing += not table.finished
        self.clocks.opened(table)
        keep_observation_scans(len(self.tables), stored.players)
        return table

    def start(self) -> None:
        """Let the bots of every resumed table play (call once the event loop runs)."""
        for table in self.tables.values():
            self._schedule_bot(table)
        self.clocks.start()

    # ------------------------------------------------------------------ looking up

    def table(self, table_id: str) -> Table:
        """The table ``table_id`` (``Rejected`` 404 when there is none)."""
        table = self.tables.get(table_id)
        if table is None and self.shared is not None and table_id not in self.broken:
            table = self._created_elsewhere(table_id)
        if table is None:
            raise Rejected(404, "unknown_table", _("no table {table}").format(table=repr(table_id[:40])))
        return table

    def forget_table(self, table: Table) -> None:
        """``table`` was closed (here or by another process): no longer served; its bot and connections stop."""
        if self.tables.pop(table.id, None) is not None:
            self.playing -= not table.finished
        self.clocks.closed(table)
        presence.closed(table)

    def seat(self, table: Table, token: str | None) -> int:
        """The seat ``token`` acts for at ``table`` (``Rejected`` 401 for a missing or wrong token)."""
        if token is None:
            raise Rejected(401, "no_token", _("this request needs a seat token (Authorization: Bearer TOKEN)"))
        seat = table.seat_of(token)
        if seat is None:
            raise Rejected(403, "bad_token", _("this token is not a seat of table {table}").format(table=table.id))
        return seat

    # ------------------------------------------------------------------ changes

    def act(self, table: Table, seat: int, texts: Sequence[str], expected: int | None = None) -> list[str]:
        """Apply ``texts`` (actions in text form) for ``seat``, all or none; returns them normalized.

        ``expected`` is the version the client saw when it chose (``None``: not checked). A
        request for another version is stale, or a replay of one already applied: it is
        refused (409 ``stale_version``) with the seat's current view, and nothing changes.
        Every action is parsed and checked on a copy of the state (one without an event log:
        cheaper to make); only when all are legal are they committed to the store, and then
        applied to the table's state itself. The state object and its event log stay the same
        through the game, so the engine's observations stay incremental (it keeps what each
        player learnt from a log, per log) and the views only read the new events.
        """
        actions, accepted, finished = self._check(table, seat, texts, expected)
        first = table.state.decision_count
        try:
            self.store.append(table.id, first, accepted, finished=finished)
        except VersionConflict:  # a shared store, written by another process meanwhile (submit() catches up)
            raise self._stale(table, seat, first) from None
        except Exception as error:  # the disk is full or gone: refuse, nothing changed
            log.exception("table %s: cannot store actions", table.id)
            raise Rejected(503, "storage_error", _("the server cannot save the game right now")) from error
        self._apply(table, actions)
        return accepted

    async def submit(self, table: Table, seat: int, texts: Sequence[str], expected: int | None = None) -> list[str]:
        """:meth:`act` from the event loop: with a shared store, commit only if no other process acted first.

        With the SQLite store this is :meth:`act`. With a shared one, the commit waits for the
        database without blocking the loop, and the table is locked meanwhile (one commit or
        catch-up at a time per table in this process). When another process committed this
        version first, the table catches up with the store and the request is refused as stale
        (409 ``stale_version``, with the seat's current view), as a stale version is.
        """
        if self.shared is None:
            return self.act(table, seat, texts, expected)
        async with self._lock(table):
            actions, accepted, finished = self._check(table, seat, texts, expected)
            first = table.state.decision_count
            try:
                await self.shared.commit(table.id, first, accepted, finished)
            except VersionConflict:
                try:
                    await self._catch_up(table)
                except StorageError as error:  # the view sent is older; the next notification brings the rest
                    log.error("table %s: cannot read the actions of other processes: %s", table.id, error)
                raise self._stale(table, seat, first) from None
            except StorageError as error:
                log.error("table %s: cannot store actions: %s", table.id, error)
                raise Rejected(503, "storage_error", _("the server cannot save the game right now")) from error
            self._apply(table, actions)
            return accepted

    def _check(
        self, table: Table, seat: int, texts: Sequence[str], expected: int | None
    ) -> tuple[list[Action], list[str], bool]:
        """Check ``texts`` for ``seat`` on a copy of the state: the actions, their normal text, whether the game ends."""
        if expected is not None and expected != table.version:
            raise self._stale(table, seat, expected)
        state = table.state
        if state.is_terminal():
            raise Rejected(409, "game_over", _("the game is over"))
        trial = state.clone(events=False)
        accepted = []
        actions = []
        for number, text in enumerate(texts, start=1):
            where = f"{number}: " if len(texts) > 1 else ""
            if trial.current_player != seat:
                raise Rejected(409, "not_your_turn", where + _("it is not your turn"))
            try:
                action = parse_action(trial.ruleset, text)
            except InvalidActionError as error:
                raise Rejected(400, "invalid_action", where + str(error)) from None
            try:
                trial.apply(action)
            except (InvalidActionError, IllegalActionError) as error:
                raise Rejected(409, "illegal_action", where + str(error)) from None
            actions.append(action)
            accepted.append(format_action(trial.ruleset, action))
        return actions, accepted, trial.is_terminal()

    def _stale(self, table: Table, seat: int, expected: int) -> Rejected:
        """The refusal of an action that answers version ``expected`` while the table is at another."""
        message = _("this action answers version {expected} of the game, which is now at version {version}")
        return Rejected(409, "stale_version", message.format(expected=expected, version=table.version),
                        view=table.view(seat))  # fmt: skip

    def _apply(self, table: Table, actions: Sequence[Action]) -> None:
        """Apply committed ``actions`` to the table's state, then tell its listeners and bots."""
        state = table.state
        for action in actions:  # legal, as the trial showed; the RNG was copied, so chance goes the same way
            state.step(action)
        if state.is_terminal():
            self.playing -= 1
            try:
                self.store.save_record(table.id, state, table.seats)
            except OSError:
                log.exception("table %s: cannot write the game record", table.id)
        if self.shared is not None:
            self._drop_bot_move(table)
            table.bot_wait = 0.0  # this process made the change: its bots play first
        self._after_change(table)

    # ------------------------------------------------------------------ a store shared by several processes

    def _lock(self, table: Table) -> asyncio.Lock:
        lock = self._locks.get(table.id)
        if lock is None:
            lock = self._locks[table.id] = asyncio.Lock()
        return lock

    def _created_elsewhere(self, table_id: str) -> Table | None:
        """A table another process created, read from the shared store (``None`` when there is none)."""
        assert self.shared is not None
        if len(table_id) > 64:  # ids are 8 characters: no need to ask the database
            return None
        try:
            stored = self.shared.load(table_id)
        except StorageError as error:
            log.error("table %s: cannot read it from the store: %s", table_id, error)
            raise Rejected(503, "storage_error", _("the server cannot read the game right now")) from None
        if stored is None:
            return None
        table = self._resume(stored)
        if table is not None:
            self._schedule_bot(table)
        return table

    async def follow(self) -> None:
        """Apply what other processes commit to the tables this one has open (runs until cancelled).

        Each commit is announced by the store (:meth:`SharedStorage.changes`); a table behind it
        reads its new actions, applies them and pushes its listeners their views. When
        announcements may have been missed (at start, after a lost connection), every open
        table is compared with the stored versions.
        """
        assert self.shared is not None
        changes = self.shared.changes()
        try:
            async for change in changes:
                try:
                    if change is None:
                        for table_id, version in (await self.shared.versions()).items():
                            await self._heard(table_id, version)
                        await self._compare_access()
                        await self.hold_clocks()
                        await self.share_presence()
                        self._compare_rematches()
                    else:
                        await self._heard(*change)
                except StorageError as error:
                    log.error("cannot read the other processes' actions: %s", error)
                except Exception:  # a bug: this process must still follow the others
                    log.exception("unexpected error while following the other processes")
        finally:
            await changes.aclose()

    async def _heard(self, table_id: str, version: int) -> None:
        table = self.tables.get(table_id)
        if table is not None and version == PRESENCE_CHANGED:
            if table.listeners or self.clocks.judges_absence(table):
                await self.share_presence()
            return
        if table is not None and version == REMATCH_CHANGED:
            if self.rematch_heard is not None:
                self.rematch_heard(table)
            return
        if table is not None and version == TABLE_CHANGED:
            self._refresh(table)
            return
        if table is not None and version > table.version:
            async with self._lock(table):
                if version > table.version:  # not this process's own commit, applied meanwhile
                    await self._catch_up(table)

    def _refresh(self, table: Table) -> None:
        """Another process changed ``table``'s tokens or settings, or closed it: do the same here."""
        assert self.shared is not None
        stored = self.shared.load(table.id)
        if stored is None:
            self.forget_table(table)
        else:
            before = table.settings
            self._same_access(table, stored.token_digests, stored.names, stored.settings)
            if table.settings != before:
                self.clocks.settings_changed(table)

    async def _compare_access(self) -> None:
        """After announcements may have been missed: each open table's tokens, settings and closing, as stored."""
        assert self.shared is not None
        stored = await self.shared.access()
        for table in list(self.tables.values()):
            if table.finished:
                continue
            if table.id not in stored:
                self.forget_table(table)
            else:
                before = table.settings
                self._same_access(table, *stored[table.id])
                if table.settings != before:
                    self.clocks.settings_changed(table)

    async def hold_clocks(self) -> None:
        """Take the clock lock of every open table that has clocks or stand-ins and no live process runs (a shared store).

        The process that holds a table's lock runs its clocks (:mod:`biblios_kit.net.clocks`);
        a lock is let go when its process dies, so another one takes the clocks over here.
        """
        assert self.shared is not None
        wanted = [table.id for table in self.tables.values() if self.clocks.wanted(table)]
        held: set[str] = set()  # after a failure, none: the locks may have gone with the connection
        try:
            held = await self.shared.hold_clocks(wanted)
        finally:
            for table_id in wanted:
                table = self.tables.get(table_id)
                if table is not None:
                    self.clocks.own(table, table_id in held)

    async def share_presence(self, announce: Sequence[str] = ()) -> None:
        """Write the seats connected here of each table whose absence is judged, and read those connected elsewhere.

        The process that runs a table's clocks then counts a seat connected to any live process
        as present (:meth:`Clocks.elsewhere_now <biblios_kit.net.clocks.Clocks.elsewhere_now>`).
        """
        assert self.shared is not None
        if self._sharing_lock is None:
            self._sharing_lock = asyncio.Lock()
        async with self._sharing_lock:  # one at a time: a write of an older snapshot never lands after a newer one
            await self._share_presence(self.shared, announce)

    async def _share_presence(self, shared: SharedStorage, announce: Sequence[str]) -> None:
        connected = {}
        followed = False
        for table in self.tables.values():
            if table.listeners or self.clocks.judges_absence(table):
                followed = True
                seats = sorted({listener.seat for listener in table.listeners if listener.seat != SPECTATOR})
                if seats:
                    connected[table.id] = seats
        if not followed and not self._presence_written and not announce:
            return  # nobody follows a table here and no table counts absences: nothing to say or read
        elsewhere = await shared.share_presence(connected, announce)
        self._presence_written = bool(connected)
        for table in list(self.tables.values()):
            there = frozenset(elsewhere.get(table.id, ()))
            if there != table.elsewhere:
                table.elsewhere = there
                presence.announce(table)  # who is connected, as every process sees it
            self.clocks.elsewhere_now(table, there)

    def share_presence_soon(self, table_id: str) -> None:
        """The seats connected here to ``table_id`` changed: tell the other processes (a shared store)."""
        self._announce.add(table_id)
        if self._sharing is None or self._sharing.done():
            self._sharing = asyncio.get_running_loop().create_task(self._share_announced())

    async def _share_announced(self) -> None:
        while self._announce:
            announce, self._announce = sorted(self._announce), set()
            try:
                await self.share_presence(announce)
            except StorageError as error:  # the 5-second comparison says it again
                log.warning("cannot share who is connected: %s", error)

    def _compare_rematches(self) -> None:
        """After announcements may have been missed: the rematch of each finished table someone follows, as stored."""
        if self.rematch_heard is None:
            return
        for table in list(self.tables.values()):
            if table.finished and any(listener.info for listener in table.listeners):
                try:
                    self.rematch_heard(table)
                except (StorageError, Rejected) as error:
                    log.error("table %s: cannot read its rematch: %s", table.id, error)

    def _same_access(self, table: Table, digests: tuple[str, ...], names: tuple[str, ...],
                     settings_json: dict[str, object]) -> None:  # fmt: skip
        if digests != table.token_digests:
            presence.new_tokens(table, digests)
        if len(names) == len(table.seats):
            self.rename(table, names)
        settings = TableSettings.from_json(settings_json)
        if settings != table.settings:
            presence.new_settings(table, settings)

    async def _catch_up(self, table: Table) -> None:
        """Apply the actions other processes committed to ``table`` (its lock held), then tell its listeners and bots."""
        assert self.shared is not None
        texts = await self.shared.actions_since(table.id, table.version)
        if not texts:
            return
        state = table.state
        try:
            for text in texts:
                state.apply_text(text)
        except (BibliosError, ValueError) as error:  # never: another process checked them with the same rules
            log.error("table %s: a stored action cannot be applied: %s", table.id, error)
        if state.is_terminal():
            self.playing -= 1
            if not self.store.record_path(table.id).exists():
                try:
                    self.store.save_record(table.id, state, table.seats)
                except OSError:
                    log.exception("table %s: cannot write the game record", table.id)
        self._drop_bot_move(table)
        table.bot_wait = TAKEOVER_SECONDS
        self._after_change(table)

    def _drop_bot_move(self, table: Table) -> None:
        """Cancel a bot move pending for an older version (its lock held): the next one is scheduled without waiting.

        It would see the change and start again itself, but maybe only after the takeover wait,
        while this process is now the one to play first.
        """
        task = table.bot_task
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()
            table.bot_task = None

    def payment_options(self, table: Table, seat: int, texts: Sequence[str]) -> list[str] | None:
        """The payer's legal actions after paying ``texts`` (on a copy), or ``None`` once the payment is complete.

        Only the payer may ask, and only cards of their own hand are named.
        """
        state = table.state
        if state.current_player != seat or state.phase is not Phase.PAYMENT:
            raise Rejected(409, "not_your_turn", _("you have no payment to make now"))
        trial = state.clone()
        for text in texts:
            try:
                trial.apply(parse_action(trial.ruleset, text))
            except (InvalidActionError, IllegalActionError) as error:
                raise Rejected(409, "illegal_action", str(error)) from None
            if trial.current_player != seat:
                return None
        if trial.phase is not Phase.PAYMENT:
            return None
        return [format_action(trial.ruleset, a) for a in trial.legal_actions()]

    # ------------------------------------------------------------------ listeners

    def listen(self, table: Table, seat: int, since: int = 0, *, info: bool = False, updates: bool = False,
               write: Callable[[str], bool] | None = None, token: str | None = None) -> Listener:  # fmt: skip
        """Register a listener for ``seat`` of ``table`` and send its current view (events from ``since``).

        ``info``: it also gets the ``table_info`` messages (who is connected, the settings).
        With ``updates``, each later change is sent as an ``update`` message (what changed)
        rather than a whole view, whenever the listener has the view it starts from.
        ``write`` (see :attr:`Listener.write`) sends each message at once instead of queueing it.
        ``token``: the seat's token (a rematch sends the seat its new place, made from it).
        """
        listener = Listener(seat, info=info, updates=updates, write=write, token=token)
        table.listeners.add(listener)
        self._send_view(table, listener, since)
        announce(table)  # who is connected, to every connection (the new one after its view)
        self.clocks.joined(listener, table)
        self.clocks.presence(table)
        if self.shared is not None and seat != SPECTATOR:
            self.share_presence_soon(table.id)  # the other processes' seats see it connected
        return listener

    def forget(self, table: Table, listener: Listener) -> None:
        """Stop notifying ``listener``."""
        if listener in table.listeners:
            table.listeners.discard(listener)
            announce(table)
            if self.shared is not None and listener.seat != SPECTATOR:
                self.share_presence_soon(table.id)
        self.clocks.presence(table)

    def rename(self, table: Table, names: Sequence[str]) -> None:
        """``table``'s seats are now called ``names`` (a visitor took a free seat): every connection gets its whole
        view again, which carries the names."""
        if not table.renamed(tuple(names)):
            return
        for listener in list(table.listeners):
            self._send_view(table, listener, listener.events_sent)

    def _send_view(self, table: Table, listener: Listener, since: int | None = None) -> None:
        made = None
        if since is None and listener.updates and listener.version_sent >= 0:
            made = table.update_text(listener.seat, listener.version_sent, listener.events_sent)
        if made is None:
            made = table.view_text(listener.seat, listener.events_sent if since is None else since)
        text, listener.events_sent = made
        listener.version_sent = table.version
        self._deliver(table, listener, text)

    def _deliver(self, table: Table, listener: Listener, text: str) -> None:
        """Write ``text`` to ``listener`` (or queue it for its writer); a listener too slow to follow is dropped."""
        if listener.write is not None:
            if listener.write(text):
                return
        elif not listener.queue.full():
            listener.queue.put_nowait(text)
            return
        # Too slow to follow (or gone): drop it (it reconnects and gets a fresh view); None closes it.
        table.listeners.discard(listener)
        with contextlib.suppress(asyncio.QueueEmpty):
            listener.queue.get_nowait()
        listener.queue.put_nowait(None)

    def _after_change(self, table: Table) -> None:
        for listener in list(table.listeners):
            self._send_view(table, listener)
        self._schedule_bot(table)
        self.clocks.changed(table)

    # ------------------------------------------------------------------ bots

    def _schedule_bot(self, table: Table) -> None:
        seat = table.state.current_player
        if seat is None or seat not in table.bots:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # not serving yet: start() schedules it
        if table.bot_task is not None and not table.bot_task.done():
            return
        table.bot_task = loop.create_task(self._bot_move(table, seat, table.version))

    async def _bot_move(self, table: Table, seat: int, version: int) -> None:
        """Let the bot of ``seat`` decide in the thread pool, then apply its action if nothing changed meanwhile."""
        delay, table.bot_wait = table.bot_delay + table.bot_wait, 0.0
        if delay > 0:
            await asyncio.sleep(delay)
            if table.version != version:  # another process played it meanwhile (a shared store)
                table.bot_task = None
                self._schedule_bot(table)
                return
        observation = table.state.observation(seat)
        bot = table.bots[seat]
        loop = asyncio.get_running_loop()
        try:
            action = await loop.run_in_executor(self.executor, bot.choose, observation)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: bot %s failed; it plays its first legal action", table.id, table.seats[seat])
            action = observation.legal_actions[0]
        table.bot_task = None
        if table.version != version or table.state.current_player != seat:
            self._schedule_bot(table)
            return
        try:
            await self.submit(table, seat, [format_action(table.state.ruleset, action)], version)
        except Rejected as error:
            if error.code == "stale_version":  # another process played first (a shared store): nothing to do
                return
            # A bot bug: the game goes on with its first legal action.
            log.error("table %s: bot %s was refused: %s", table.id, table.seats[seat], error.message)
            if error.code in ("invalid_action", "illegal_action"):
                with contextlib.suppress(Rejected):
                    await self.submit(table, seat, [format_action(table.state.ruleset, observation.legal_actions[0])],
                                      version)  # fmt: skip

    async def stop(self) -> None:
        """Cancel the bots' pending moves and close the listeners."""
        self.clocks.stop()
        if self._sharing is not None:
            self._sharing.cancel()
        for table in self.tables.values():
            if table.bot_task is not None:
                table.bot_task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await table.bot_task
            for listener in list(table.listeners):
                with contextlib.suppress(asyncio.QueueFull):
                    listener.queue.put_nowait(None)
