"""The saved game of the TUI: one engine game record in the user data folder, written atomically.

The file is an ordinary game record (``biblios_kit.engine.records``: ruleset id, content
hash, options, players, seed, actions, ``bots`` = who sits in each seat) that
``biblios-kit replay`` and :func:`~biblios_kit.engine.records.load_record` read as is.
The TUI adds one key the record format ignores, ``"table"``, with the seat names, the
language and the *forced moves* setting (``autoplay``), so a resumed game looks and plays
the way it was left (names are read through :func:`~biblios_kit.names.clean_name`: no
control character of an edited save reaches the screen); a save without the setting (written before it was saved) gets the
default. The file is read with the bounds of every game record (``docs/inputs.md``);
temporary files left by interrupted saves are removed by the first save of a process.

Error messages are translated when raised, in the language active at that moment.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biblios_kit.atomic import remove_stale_temporaries, write_text_atomic
from biblios_kit.engine.records import GameRecord, from_json, read_record_document, record_of, replay
from biblios_kit.engine.state import GameState
from biblios_kit.errors import BibliosError, RecordError
from biblios_kit.i18n import _, ngettext
from biblios_kit.names import clean_name
from biblios_kit.resources import saved_game_path as save_path
from biblios_kit.resources import saves_dir as saves_dir
from biblios_kit.tui.config import AUTOPLAY_MODES, DEFAULT_AUTOPLAY

HUMAN = "human"
"""The seat spec of a person (any other spec names a bot)."""
MAX_LANG_LENGTH = 100
"""Longest language code taken from a save; a longer one falls back to the default."""


@dataclass(frozen=True)
class SavedGame:
    """A saved game, replayed: the state, who sits where, their names, the language it was played in and its
    *forced moves* setting."""

    state: GameState
    seats: tuple[str, ...]
    """``"human"`` or a bot spec per seat."""
    names: tuple[str, ...]
    lang: str | None
    record: GameRecord
    autoplay: str = DEFAULT_AUTOPLAY
    """The *forced moves* setting (one of :data:`~biblios_kit.tui.config.AUTOPLAY_MODES`); the default when the
    save does not record one, or records a value this version does not know."""

    @property
    def finished(self) -> bool:
        """Whether the saved game is over."""
        return self.state.is_terminal()


def document_of(state: GameState, seats: tuple[str, ...] | list[str], names: tuple[str, ...] | list[str],
                lang: str | None, *, autoplay: str = DEFAULT_AUTOPLAY) -> dict[str, Any]:  # fmt: skip
    """The JSON document saved for ``state``: the engine record plus the ``table`` key."""
    if len(names) != state.players:
        raise ValueError(f"expected {state.players} names, got {len(names)}")
    if autoplay not in AUTOPLAY_MODES:
        raise ValueError(f"unknown forced-moves setting {autoplay!r}")
    document = record_of(state, bots=list(seats)).to_json()
    document["table"] = {"names": list(names), "lang": lang, "autoplay": autoplay}
    return document


_tidied: set[Path] = set()
"""Folders whose stale temporary files this process has already removed."""


def tidy_saves_folder(folder: Path | None = None) -> list[Path]:
    """Remove the temporary files interrupted saves left in the saves folder (once per process and folder).

    Only our own abandoned temporary files go (see
    :func:`~biblios_kit.atomic.remove_stale_temporaries`); returns the files removed.
    """
    target = folder or saves_dir()
    if target in _tidied:
        return []
    _tidied.add(target)
    return remove_stale_temporaries(target)


def save_game(state: GameState, seats: tuple[str, ...] | list[str], names: tuple[str, ...] | list[str],
              lang: str | None, path: Path | None = None, *, autoplay: str = DEFAULT_AUTOPLAY) -> Path:  # fmt: skip
    """Save ``state`` (atomically) as the game in progress; returns the path written.

    The first save of a process also removes the temporary files that interrupted saves
    left in the same folder.
    """
    target = path or save_path()
    write_save(target, save_text(state, seats, names, lang, autoplay=autoplay))
    return target


def save_text(state: GameState, seats: tuple[str, ...] | list[str], names: tuple[str, ...] | list[str],
              lang: str | None, *, autoplay: str = DEFAULT_AUTOPLAY) -> str:  # fmt: skip
    """The text :func:`save_game` writes for ``state``."""
    return json.dumps(document_of(state, seats, names, lang, autoplay=autoplay), ensure_ascii=False) + "\n"


def write_save(target: Path, text: str) -> None:
    """Write a :func:`save_text` atomically and durably at ``target`` (the second half of :func:`save_game`)."""
    tidy_saves_folder(target.parent)
    write_text_atomic(target, text)


def load_game(path: Path | None = None) -> SavedGame:
    """Read and replay the saved game; every problem (corrupt, incompatible, illegal) is a :class:`RecordError`."""
    source = path or save_path()
    where = str(source)
    if not source.exists() and not source.is_symlink():  # anything else is read (and refused) below
        raise RecordError("record-located", where=where, message=_("no saved game"))
    document = read_record_document(source)
    record = from_json(document, where)
    try:
        state = replay(record, where=where)
    except RecordError:
        raise
    except BibliosError as error:  # pragma: no cover - replay wraps what it knows
        raise RecordError("record-located", where=where, message=str(error)) from None
    seats = tuple(record.bots) if record.bots is not None else (HUMAN,) * record.players
    if len(seats) != record.players:
        message = ngettext(
            "{key} must list {players} seat, one per player (it lists {seats})",
            "{key} must list {players} seats, one per player (it lists {seats})",
            record.players,
        ).format(key="'bots'", players=record.players, seats=len(seats))
        raise RecordError("record-located", where=where, message=message)
    table = document.get("table") if isinstance(document, dict) else None
    defaults = [_("Player {number}").format(number=seat + 1) for seat in range(record.players)]
    names = tuple(defaults)
    lang: str | None = None
    autoplay = DEFAULT_AUTOPLAY
    if isinstance(table, dict):
        raw_names = table.get("names")
        if isinstance(raw_names, list) and len(raw_names) == record.players:
            # A save is a file anyone can edit: every name is cleaned (names.py), a bad one gets its default.
            names = tuple(clean_name(raw, default) for raw, default in zip(raw_names, defaults))
        if isinstance(table.get("lang"), str) and len(table["lang"]) <= MAX_LANG_LENGTH:
            lang = table["lang"]
        if table.get("autoplay") in AUTOPLAY_MODES:  # older saves have none: the default
            autoplay = table["autoplay"]
    return SavedGame(state=state, seats=seats, names=names, lang=lang, record=record, autoplay=autoplay)


def has_save(path: Path | None = None) -> bool:
    """Whether a saved-game file exists (readable or not)."""
    return (path or save_path()).is_file()


def set_aside(path: Path | None = None) -> Path | None:
    """Rename an unwanted save to ``<name>.old`` (replacing an older one) so a new game can start; returns it."""
    source = path or save_path()
    if not source.exists():
        return None
    target = source.with_suffix(source.suffix + ".old")
    os.replace(source, target)
    return target


def delete_save(path: Path | None = None) -> None:
    """Remove the saved game, if any."""
    (path or save_path()).unlink(missing_ok=True)
