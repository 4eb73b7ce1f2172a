"""Game records: a JSON document that replays a game exactly (see ``docs/game-records.md``).

A game is fully described by its ruleset (id, content hash, options), the number of
players, the seed, the points where it was reseeded (:mod:`biblios_kit.engine.reseed`)
and the actions in text form. A record of a ruleset that is not shipped also carries the
ruleset itself (the merged document with its options applied), so it replays on a
machine that does not have the file: the document is checked again (schema, semantic
checks, content hash) and never names a file. :func:`save_record` writes atomically
(a temporary file in the same folder, then ``os.replace``); :func:`load_record` and
:func:`replay` turn every problem (corrupt or truncated JSON, unknown version, a
ruleset that changed since, an illegal action) into a :class:`~biblios_kit.errors.RecordError`.

The engine makes no sentences: a :class:`~biblios_kit.errors.RecordError` carries a code and
fields, and :mod:`biblios_kit.messages` words it in the language active when it is shown.
File names, versions, hashes and action texts stay as they are.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import reprlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, TypeGuard

from biblios_kit.atomic import write_text_atomic
from biblios_kit.bounded import MAX_INT_DIGITS, InputError, read_json
from biblios_kit.engine.actions import format_action, parse_action
from biblios_kit.engine.reseed import reseed
from biblios_kit.engine.state import GameState, new_game
from biblios_kit.errors import BibliosError, RecordError
from biblios_kit.rules.model import Ruleset

_ID = re.compile(r"[a-z0-9][a-z0-9-]*")
"""A ruleset id, as the ruleset schema defines it."""
FORMAT = "biblios-kit-game"
"""The value of the ``format`` key of every record."""
VERSION = 2
"""The newest record format version: this code reads versions 1 and 2.

A record is written as version 1 (readable by older programs) unless it needs version 2:
reseed points or an embedded ruleset, which an older program would ignore and so replay
another game."""
VERSIONS = (1, 2)
"""The record format versions this code reads."""
MAX_BYTES = 4 * 1024 * 1024
"""Largest record file read (4 MiB; a finished game takes a few KiB, an embedded ruleset about 6 KiB)."""
MAX_DEPTH = 40
"""Deepest nesting of a record's JSON (the format needs 3; an embedded ruleset sits 3 levels down and a
ruleset file may nest 32 levels)."""
MAX_DOCUMENT_BYTES = 1024 * 1024
"""Largest embedded ruleset, as canonical JSON (the limit of a ruleset file)."""
MAX_ACTIONS = 100_000
"""Most actions a record may hold (a game of the shipped rulesets takes a few hundred)."""
MAX_RESEEDS = 1_000
"""Most reseed points a record may hold, unless it has more actions (then one per action, plus one).

A saved game gets one each time it is continued, and one only per point: continued
again before anyone moves, the new reseed replaces the last (see
:func:`~biblios_kit.engine.reseed.reseed`). So a game's record has at most one per
action plus one, and a record with more (it took a minute to replay 100,000) is refused.
"""
MAX_ACTION_LENGTH = 200
"""Longest action text accepted (the longest real one is a few dozen characters)."""
MAX_PLAYERS = 10
"""Most players a record may name (the ruleset checks allow 2 to 10)."""


@dataclass(frozen=True)
class GameRecord:
    """One game as data: enough to replay it move for move."""

    ruleset: str
    """Ruleset id (as in ``Ruleset.id``)."""
    content_hash: str
    """``Ruleset.content_hash`` with the options applied: a changed rule makes replay refuse."""
    options: tuple[str, ...]
    """Active options, sorted."""
    players: int
    seed: int
    actions: tuple[str, ...]
    """Every action in text form, in order."""
    bots: tuple[str, ...] | None = None
    """Who played each seat (bot specs or ``"human"``), if known; informative only."""
    result: Mapping[str, Any] | None = field(default=None, compare=False)
    """Winners and victory points when the game was saved finished; replay checks them."""
    reseeds: tuple[tuple[int, int], ...] = ()
    """Where the game was reseeded: (number of actions applied before, new seed), in order."""
    ruleset_document: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    """The ruleset itself (``Ruleset.document``: merged, options applied) when it is not a shipped one."""

    @property
    def version(self) -> int:
        """The format version this record needs (1 unless it has reseeds or an embedded ruleset)."""
        return 2 if self.reseeds or self.ruleset_document is not None else 1

    def to_json(self) -> dict[str, Any]:
        """The JSON document (a dict ready for ``json.dump``)."""
        ruleset: dict[str, Any] = {"id": self.ruleset, "content_hash": self.content_hash, "options": list(self.options)}
        if self.ruleset_document is not None:
            ruleset["document"] = plain(self.ruleset_document)
        document: dict[str, Any] = {
            "format": FORMAT,
            "version": self.version,
            "ruleset": ruleset,
            "players": self.players,
            "seed": self.seed,
        }
        if self.bots is not None:
            document["bots"] = list(self.bots)
        if self.reseeds:
            document["reseeds"] = [{"after": after, "seed": seed} for after, seed in self.reseeds]
        document["actions"] = list(self.actions)
        if self.result is not None:
            document["result"] = dict(self.result)
        return document


def plain(value: Any) -> Any:
    """``value`` with read-only mappings and tuples turned into dicts and lists (for JSON)."""
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


_shipped: dict[tuple[str, str, tuple[str, ...]], bool] = {}
"""Whether a ruleset (id, content hash, options) is a shipped one, as found once per process."""


def is_shipped(ruleset: Ruleset) -> bool:
    """Whether ``ruleset`` is exactly a shipped edition or variant (same id, options and content hash).

    A record of a shipped ruleset names it by id; any other (your own file, a changed copy,
    a ruleset built by the balance lab) is embedded in the record.
    """
    options = tuple(sorted(ruleset.active_options))
    key = (ruleset.id, ruleset.content_hash, options)
    known = _shipped.get(key)
    if known is None:
        from biblios_kit.rules import load_ruleset
        from biblios_kit.rules.loader import available_rulesets

        known = False
        for entry in available_rulesets():
            if entry.id == ruleset.id and entry.origin != "user":
                try:
                    known = load_ruleset(entry.path, options).content_hash == ruleset.content_hash
                except BibliosError:
                    known = False
                break
        _shipped[key] = known
    return known


def record_of(state: GameState, bots: list[str] | tuple[str, ...] | None = None, *,
              embed: bool | None = None) -> GameRecord:  # fmt: skip
    """The record of ``state`` so far (with the result when the game is over).

    The ruleset is embedded when it is not a shipped one (``embed`` forces the choice).
    """
    if state.resampled_for >= 0:
        raise RecordError("record-resampled")
    ruleset = state.ruleset
    if bots is not None and len(bots) != state.players:
        raise ValueError(f"expected {state.players} bot specs, got {len(bots)}")
    result = None
    if state.is_terminal():
        final = state.result()
        result = {"winners": list(final.winners), "victory_points": list(final.victory_points)}
    if embed is None:
        embed = not is_shipped(ruleset)
    return GameRecord(
        ruleset=ruleset.id,
        content_hash=ruleset.content_hash,
        options=tuple(sorted(ruleset.active_options)),
        players=state.players,
        seed=state.seed,
        actions=tuple(format_action(state.rules, a) for a in state.history),
        bots=tuple(bots) if bots is not None else None,
        result=result,
        reseeds=tuple(state.reseeds),
        ruleset_document=ruleset.document if embed else None,
    )


def _fail(where: str | None, code: str, **fields: object) -> NoReturn:
    """Raise a :class:`RecordError` of ``code`` located at ``where`` (a file name; ``None``: "game record")."""
    raise RecordError(code, where=where, **fields)


def _int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _strings(value: object) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def from_json(document: object, where: str | None = None) -> GameRecord:
    """Check a decoded JSON document and build the :class:`GameRecord` (``RecordError`` if invalid).

    ``where`` (a file name) prefixes the error messages; by default they say "game record".
    """
    if not isinstance(document, dict):
        _fail(where, "record-not-object")
    if document.get("format") != FORMAT:
        _fail(where, "record-bad-format", format=repr(FORMAT))
    version = document.get("version")
    if not _int(version):
        _fail(where, "record-bad-version", key="'version'")
    if version not in VERSIONS:
        _fail(where, "record-unsupported-version", version=version, supported=VERSION)
    ruleset = document.get("ruleset")
    if not isinstance(ruleset, dict):
        _fail(where, "record-bad-ruleset", key="'ruleset'")
    rid, digest, options = ruleset.get("id"), ruleset.get("content_hash"), ruleset.get("options", [])
    if not isinstance(rid, str) or not rid:
        _fail(where, "record-empty-string", key="'ruleset.id'")
    if not isinstance(digest, str) or len(digest) != 64:
        _fail(where, "record-bad-hash", key="'ruleset.content_hash'")
    if not _strings(options):
        _fail(where, "record-not-strings", key="'ruleset.options'")
    if len(rid) > MAX_ACTION_LENGTH or len(options) > MAX_ACTION_LENGTH:
        _fail(where, "record-too-long", key="'ruleset'")
    if not _ID.fullmatch(rid):  # an id, never a path: a record must not make the loader read any file
        _fail(where, "record-bad-ruleset-id", key="'ruleset.id'", value=reprlib.repr(rid))
    embedded = ruleset.get("document")
    if embedded is not None and version < 2:
        _fail(where, "record-needs-version-2", key="'ruleset.document'")
    if embedded is not None and not isinstance(embedded, dict):
        _fail(where, "record-not-mapping", key="'ruleset.document'")
    players, seed = document.get("players"), document.get("seed")
    if not _int(players) or players <= 0:
        _fail(where, "record-not-positive", key="'players'")
    if players > MAX_PLAYERS:
        _fail(where, "record-above-limit", key="'players'", limit=MAX_PLAYERS)
    if not _int(seed):
        _fail(where, "record-not-integer", key="'seed'")
    if abs(seed) >= 10**MAX_INT_DIGITS:
        _fail(where, "record-too-many-digits", key="'seed'", limit=MAX_INT_DIGITS)
    actions = document.get("actions")
    if not _strings(actions):
        _fail(where, "record-not-strings", key="'actions'")
    if len(actions) > MAX_ACTIONS:
        _fail(where, "record-too-many-actions", key="'actions'", count=len(actions), limit=MAX_ACTIONS)
    for number, text in enumerate(actions, start=1):
        if len(text) > MAX_ACTION_LENGTH:
            _fail(where, "record-action-too-long", number=number, length=len(text), limit=MAX_ACTION_LENGTH)
    bots = document.get("bots")
    if bots is not None and (not _strings(bots) or any(len(spec) > MAX_ACTION_LENGTH for spec in bots)):
        _fail(where, "record-not-strings", key="'bots'")
    result = document.get("result")
    if result is not None and not isinstance(result, dict):
        _fail(where, "record-not-mapping", key="'result'")
    reseeds = _reseeds(document.get("reseeds"), version, len(actions), where)
    return GameRecord(
        ruleset=rid,
        content_hash=digest,
        options=tuple(sorted(options)),
        players=players,
        seed=seed,
        actions=tuple(actions),
        bots=tuple(bots) if bots is not None else None,
        result=result,
        reseeds=reseeds,
        ruleset_document=embedded,
    )


def _reseeds(value: object, version: int, actions: int, where: str | None) -> tuple[tuple[int, int], ...]:
    """The checked ``reseeds`` list of a record: ``{"after": N, "seed": S}`` objects in game order."""
    if value is None:
        return ()
    key = "'reseeds'"
    if version < 2:
        _fail(where, "record-needs-version-2", key=key)
    if not isinstance(value, list):
        _fail(where, "record-bad-reseeds", key=key)
    limit = max(MAX_RESEEDS, actions + 1)
    if len(value) > limit:
        _fail(where, "record-too-many-reseeds", key=key, count=len(value), actions=actions, limit=limit)
    points: list[tuple[int, int]] = []
    for item in value:
        if not isinstance(item, dict) or set(item) != {"after", "seed"}:
            _fail(where, "record-bad-reseeds", key=key)
        after, seed = item["after"], item["seed"]
        if not _int(after) or not _int(seed) or not 0 <= after <= actions or (points and after < points[-1][0]):
            _fail(where, "record-bad-reseeds", key=key)
        if abs(seed) >= 10**MAX_INT_DIGITS:
            _fail(where, "record-too-many-digits", key=key, limit=MAX_INT_DIGITS)
        points.append((after, seed))
    return tuple(points)


def distinct_reseeds(points: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """``points`` with only the last of several reseeds at the same point (they give the same game).

    A reseed deals every unseen card again from its seed alone, whatever their order
    before, so a reseed followed by another at the same point is the second one alone
    (a game continued, then left and continued again before anyone moved).
    """
    kept: list[tuple[int, int]] = []
    for point in points:
        if kept and kept[-1][0] == point[0]:
            kept[-1] = point
        else:
            kept.append(point)
    return tuple(kept)


def save_record(record: GameRecord, path: str | os.PathLike[str], *, durable: bool = True) -> Path:
    """Write ``record`` to ``path`` atomically (temp file in the same folder, then rename).

    Readers never see a partial file. With ``durable`` the data is also flushed to disk
    before the rename (``fsync``, a few milliseconds; batch writers may skip it).
    """
    text = json.dumps(record.to_json(), ensure_ascii=False, indent=1) + "\n"
    return write_text_atomic(path, text, durable=durable)


def read_record_document(path: str | os.PathLike[str]) -> object:
    """Read a record file's JSON document within the bounds of ``docs/inputs.md`` (``RecordError`` if refused).

    Only a regular file of at most :data:`MAX_BYTES` is read; it must be UTF-8 JSON nested
    at most :data:`MAX_DEPTH` levels, with no integer over
    :data:`~biblios_kit.bounded.MAX_INT_DIGITS` digits.
    """
    where = str(path)
    try:
        return read_json(path, MAX_BYTES, MAX_DEPTH)
    except InputError as error:
        raise RecordError("record-unreadable", where=where, reason=error) from None


def load_record(path: str | os.PathLike[str]) -> GameRecord:
    """Read and check a record file (``RecordError`` for anything unreadable or malformed)."""
    return from_json(read_record_document(path), str(path))


def replay(record: GameRecord, ruleset: Ruleset | None = None, where: str | None = None) -> GameState:
    """Replay ``record`` action by action, checking each one is legal; return the final state.

    The ruleset is the one embedded in the record (checked again), else loaded by id with
    the record's options, unless given; its content hash must match the record's (a
    changed ruleset would replay a different game). The game is reseeded at the record's
    reseed points. ``where`` (a file name) prefixes the error messages; by default they say
    "game record".
    """
    if ruleset is None and record.ruleset_document is not None:
        ruleset = embedded_ruleset(record, where)
    if ruleset is None:
        from biblios_kit.rules import load_ruleset

        try:
            ruleset = load_ruleset(record.ruleset, record.options)
        except BibliosError as error:
            _fail(where, "record-ruleset-unloadable", ruleset=repr(record.ruleset), error=error)
    if ruleset.content_hash != record.content_hash:
        _fail(
            where,
            "record-ruleset-changed",
            ruleset=repr(record.ruleset),
            current=ruleset.content_hash[:12],
            recorded=record.content_hash[:12],
        )
    if record.players not in ruleset.player_counts:
        _fail(
            where,
            "record-player-count",
            ruleset=repr(record.ruleset),
            players=record.players,
            choices=tuple(ruleset.player_counts),
        )
    try:
        state = new_game(ruleset, record.players, record.seed)
    except ValueError as error:  # a setup the deck cannot deal: the engine's own explanation
        _fail(where, "record-setup", reason=error)
    points = distinct_reseeds(record.reseeds)
    reseeds = list(reversed(points))

    def deal_again(seed: int) -> None:
        # reseed() appends its point to state.reseeds, copying the tuple: emptied first, so
        # each call is constant work and the whole list is set once at the end (replay
        # stays linear in the number of points).
        state.reseeds = ()
        reseed(state, seed)

    for number, text in enumerate(record.actions, start=1):
        if reseeds and reseeds[-1][0] == number - 1:
            deal_again(reseeds.pop()[1])
        try:
            action = parse_action(state.rules, text)
        except ValueError as error:  # InvalidActionError, or a number the parser cannot take
            _fail(where, "record-invalid-action", number=number, action=repr(text), reason=error)
        try:
            state.apply(action)
        except ValueError as error:  # InvalidActionError or IllegalActionError
            _fail(where, "record-illegal-action", number=number, action=repr(text), reason=error)
    if reseeds:  # reseeded after the last action (a game continued, then saved at once)
        deal_again(reseeds.pop()[1])
    state.reseeds = points
    if record.result is not None:
        if not state.is_terminal():
            _fail(where, "record-not-over")
        final = state.result()
        stored = {"winners": record.result.get("winners"), "victory_points": record.result.get("victory_points")}
        replayed = {"winners": list(final.winners), "victory_points": list(final.victory_points)}
        if stored != replayed:
            _fail(where, "record-result-differs", replayed=replayed, stored=reprlib.repr(stored))
    return state


_embedded: dict[str, Ruleset] = {}
"""Embedded rulesets already checked and built, by content hash (a folder of records of one variant)."""


def embedded_ruleset(record: GameRecord, where: str | None = None) -> Ruleset:
    """The ruleset embedded in ``record``, checked as a ruleset file is; never reads a file.

    Its content hash must be the record's (an edited rule gives the same error as a changed
    ruleset file), its id and options the record's, and it must pass the ruleset schema and
    the semantic checks; every problem is a :class:`RecordError`. A document once checked
    is built once per process (the content hash identifies it).
    """
    from biblios_kit.rules.build import build_ruleset, content_hash
    from biblios_kit.rules.loader import Layer, check_document
    from biblios_kit.rules.source import LocatedDocument

    document = record.ruleset_document
    if document is None:
        raise ValueError("the record embeds no ruleset")
    canonical = json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    if len(canonical.encode("utf-8")) > MAX_DOCUMENT_BYTES:
        _fail(where, "record-too-long", key="'ruleset.document'")
    digest = content_hash(document)
    if digest != record.content_hash:
        _fail(
            where,
            "record-ruleset-changed",
            ruleset=repr(record.ruleset),
            current=digest[:12],
            recorded=record.content_hash[:12],
        )
    rules = dict(document)
    active = rules.pop("active_options", None)
    if rules.get("id") != record.ruleset or active != list(record.options):
        _fail(where, "record-embedded-mismatch", ruleset=repr(record.ruleset))
    # Keyed by the whole document: two documents with the same rules may differ in what the checks refuse.
    document_key = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    built = _embedded.get(document_key)
    if built is not None:
        return built
    field_name = "ruleset.document"
    # No line numbers: the document has none of its own; each problem names its field.
    problems = [
        dataclasses.replace(p, file=field_name, line=0, column=0, via=None)
        for p in check_document(rules, [Layer(LocatedDocument(field_name, rules))])
    ]
    if problems:
        _fail(where, "record-embedded-invalid", ruleset=repr(record.ruleset), problems="\n".join(map(str, problems)))
    source = f"{where}: {field_name}" if where else field_name
    try:
        built = build_ruleset(document, active_options=record.options, source=source)
    except (KeyError, TypeError, ValueError) as error:  # pragma: no cover - the checks above refuse what cannot build
        _fail(where, "record-embedded-invalid", ruleset=repr(record.ruleset), problems=str(error))
    if len(_embedded) >= 64:
        _embedded.clear()
    _embedded[document_key] = built
    return built
