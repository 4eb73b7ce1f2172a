"""Game records: a JSON document that replays a game exactly (see ``docs/game-records.md``).

A game is fully described by its ruleset (id, content hash, options), the number of
players, the seed and the actions in text form. :func:`save_record` writes atomically
(a temporary file in the same folder, then ``os.replace``); :func:`load_record` and
:func:`replay` turn every problem (corrupt or truncated JSON, unknown version, a
ruleset that changed since, an illegal action) into a :class:`~biblios_kit.errors.RecordError`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from biblios_kit.atomic import write_text_atomic
from biblios_kit.engine.actions import format_action, parse_action
from biblios_kit.engine.state import GameState, new_game
from biblios_kit.errors import BibliosError, IllegalActionError, InvalidActionError, RecordError
from biblios_kit.rules.model import Ruleset

FORMAT = "biblios-kit-game"
"""The value of the ``format`` key of every record."""
VERSION = 1
"""The record format version this code writes and reads."""


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

    def to_json(self) -> dict[str, Any]:
        """The JSON document (a dict ready for ``json.dump``)."""
        document: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "ruleset": {"id": self.ruleset, "content_hash": self.content_hash, "options": list(self.options)},
            "players": self.players,
            "seed": self.seed,
        }
        if self.bots is not None:
            document["bots"] = list(self.bots)
        document["actions"] = list(self.actions)
        if self.result is not None:
            document["result"] = dict(self.result)
        return document


def record_of(state: GameState, bots: list[str] | tuple[str, ...] | None = None) -> GameRecord:
    """The record of ``state`` so far (with the result when the game is over)."""
    if state.resampled_for >= 0:
        raise RecordError("a resampled state has no record (its hidden cards were re-dealt)")
    ruleset = state.ruleset
    if bots is not None and len(bots) != state.players:
        raise ValueError(f"expected {state.players} bot specs, got {len(bots)}")
    result = None
    if state.is_terminal():
        final = state.result()
        result = {"winners": list(final.winners), "victory_points": list(final.victory_points)}
    return GameRecord(
        ruleset=ruleset.id,
        content_hash=ruleset.content_hash,
        options=tuple(sorted(ruleset.active_options)),
        players=state.players,
        seed=state.seed,
        actions=tuple(format_action(state.rules, a) for a in state.history),
        bots=tuple(bots) if bots is not None else None,
        result=result,
    )


def _expect(condition: bool, where: str, message: str) -> None:
    if not condition:
        raise RecordError(f"{where}: {message}")


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def from_json(document: object, where: str = "record") -> GameRecord:
    """Check a decoded JSON document and build the :class:`GameRecord` (``RecordError`` if invalid)."""
    _expect(isinstance(document, dict), where, "expected a JSON object")
    assert isinstance(document, dict)
    _expect(document.get("format") == FORMAT, where, f"not a game record (format must be {FORMAT!r})")
    version = document.get("version")
    _expect(_int(version), where, "missing or non-integer 'version'")
    _expect(version == VERSION, where, f"unsupported record version {version!r} (this program reads version {VERSION})")
    ruleset = document.get("ruleset")
    _expect(isinstance(ruleset, dict), where, "'ruleset' must be an object with id, content_hash and options")
    assert isinstance(ruleset, dict)
    rid, digest, options = ruleset.get("id"), ruleset.get("content_hash"), ruleset.get("options", [])
    _expect(isinstance(rid, str) and bool(rid), where, "'ruleset.id' must be a non-empty string")
    _expect(isinstance(digest, str) and len(digest) == 64, where, "'ruleset.content_hash' must be a SHA-256 hex string")
    _expect(
        isinstance(options, list) and all(isinstance(o, str) for o in options), where, "'ruleset.options' must be a list of strings"
    )
    players, seed = document.get("players"), document.get("seed")
    _expect(_int(players) and players > 0, where, "'players' must be a positive integer")
    _expect(_int(seed), where, "'seed' must be an integer")
    actions = document.get("actions")
    _expect(
        isinstance(actions, list) and all(isinstance(a, str) for a in actions), where, "'actions' must be a list of strings"
    )
    bots = document.get("bots")
    _expect(
        bots is None or (isinstance(bots, list) and all(isinstance(b, str) for b in bots)), where, "'bots' must be a list of strings"
    )
    result = document.get("result")
    _expect(result is None or isinstance(result, dict), where, "'result' must be an object")
    return GameRecord(
        ruleset=rid,
        content_hash=digest,
        options=tuple(sorted(options)),
        players=players,
        seed=seed,
        actions=tuple(actions),
        bots=tuple(bots) if bots is not None else None,
        result=result,
    )


def save_record(record: GameRecord, path: str | os.PathLike[str], *, durable: bool = True) -> Path:
    """Write ``record`` to ``path`` atomically (temp file in the same folder, then rename).

    Readers never see a partial file. With ``durable`` the data is also flushed to disk
    before the rename (``fsync``, a few milliseconds; batch writers may skip it).
    """
    text = json.dumps(record.to_json(), ensure_ascii=False, indent=1) + "\n"
    return write_text_atomic(path, text, durable=durable)


def read_record_document(path: str | os.PathLike[str]) -> object:
    """Read a record file's JSON document (``RecordError`` if unreadable, not UTF-8 or not JSON)."""
    where = str(path)
    try:
        with open(path, "r", encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise RecordError(f"{where}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise RecordError(f"{where}: not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(f"{where}:{error.lineno}:{error.colno}: invalid or truncated JSON: {error.msg}") from None


def load_record(path: str | os.PathLike[str]) -> GameRecord:
    """Read and check a record file (``RecordError`` for anything unreadable or malformed)."""
    return from_json(read_record_document(path), str(path))


def replay(record: GameRecord, ruleset: Ruleset | None = None, where: str = "record") -> GameState:
    """Replay ``record`` action by action, checking each one is legal; return the final state.

    The ruleset is loaded by id with the record's options unless given; its content hash
    must match the record's (a changed ruleset would replay a different game).
    """
    if ruleset is None:
        from biblios_kit.rules import load_ruleset

        try:
            ruleset = load_ruleset(record.ruleset, record.options)
        except BibliosError as error:
            raise RecordError(f"{where}: cannot load ruleset {record.ruleset!r}: {error}") from None
    if ruleset.content_hash != record.content_hash:
        raise RecordError(
            f"{where}: ruleset {record.ruleset!r} has changed since this game was recorded "
            f"(content hash {ruleset.content_hash[:12]}, record has {record.content_hash[:12]})"
        )
    try:
        state = new_game(ruleset, record.players, record.seed)
    except ValueError as error:
        raise RecordError(f"{where}: {error}") from None
    for index, text in enumerate(record.actions, start=1):
        try:
            state.apply(parse_action(state.rules, text))
        except (InvalidActionError, IllegalActionError) as error:
            raise RecordError(f"{where}: action {index} ({text!r}): {error}") from None
    if record.result is not None:
        if not state.is_terminal():
            raise RecordError(f"{where}: the record has a result but the game is not over after its actions")
        final = state.result()
        stored = {"winners": record.result.get("winners"), "victory_points": record.result.get("victory_points")}
        replayed = {"winners": list(final.winners), "victory_points": list(final.victory_points)}
        if stored != replayed:
            raise RecordError(f"{where}: replay gives {replayed}, the record says {stored}")
    return state
