"""The results file: one JSON line per finished game, written as games finish, read back to resume.

The first line is a header naming the experiment (its fingerprint and description); each
further line is a :data:`~biblios_kit.lab.plan.GameRow`. Lines are appended and flushed after
each job, so an interrupted run (Ctrl-C, a crash, a lost worker) keeps every finished game. A
last line cut short by a crash (no newline at its end) is ignored on reading. The format is
described in ``docs/lab.md``.

A results file is input like any other: only a regular file is read, line by line with a
cap on each line's length and nesting, and every game line is checked before it is used:
its cell, index, seed and seats must be those the experiment gives that game (a line copied
from another experiment is refused, naming the line), and its metrics must have the shape
:func:`~biblios_kit.lab.metrics.measure` gives. Anything else is a :class:`ResultsFileError`
located at its line. Writing never follows a symbolic link and never opens anything but a
regular file (a FIFO would hang, a device swallow the results).
"""

from __future__ import annotations

import contextlib
import math
import os
import stat
from pathlib import Path
from typing import IO, Any

from biblios_kit.bounded import InputError, decode_utf8, loads_json, open_regular, require_regular
from biblios_kit.lab.plan import Cell, Experiment, GameRow, seats_for
from biblios_kit.rules.model import Ruleset
from biblios_kit.sim.runner import game_seed

FORMAT = "biblios-kit-lab/2"
"""The header's ``format`` value."""

MAX_LINE_BYTES = 64 * 1024
"""Longest line read from a results file (a game line takes a few hundred bytes)."""

MAX_HEADER_BYTES = 4 * 1024 * 1024
"""Longest header line (it lists the experiment's rulesets: a large sweep has thousands)."""

MAX_LINE_DEPTH = 8
"""Deepest nesting of a results-file line (a game line nests three levels)."""

_ROW_FIELDS = ("cell", "index", "seed", "seats", "metrics")
_COUNTS = ("decisions", "auctions", "unsold", "penalties", "lead_changes", "tiebreak_depth", "overrides", "choices")
_METRICS = frozenset(
    ("win", "vp", "focus", "shared", "category_winner", "dice", "gift_leaders", "decided_at", *_COUNTS)
)


class ResultsFileError(ValueError):
    """A results file that cannot be used: unreadable, not a lab results file, another experiment's, or damaged.

    ``line`` is the 1-based line at fault (0 for the file as a whole).
    """

    def __init__(self, path: Path, reason: str, line: int = 0) -> None:
        self.path = path
        self.reason = reason
        self.line = line
        super().__init__(f"{self.where}: {reason}")

    @property
    def where(self) -> str:
        """``path:line``, or the path alone when the whole file is at fault."""
        return f"{self.path}:{self.line}" if self.line else str(self.path)


class _Shape:
    """What a game line of one cell must hold: its seats and focus, its metrics' sizes."""

    def __init__(self, cell: Cell, ruleset: Ruleset) -> None:
        self.cell = cell
        self.categories = len(ruleset.categories)
        self.dice = {
            f"{k}" if die.place == 1 else f"{k}:{die.place}"
            for k, category in enumerate(ruleset.categories, start=1)
            for die in category.dice
        }


def _shown(value: Any) -> str:
    """``value`` as it may be shown in a message: control characters escaped, 80 characters at most."""
    text = value if isinstance(value, str) and value.isprintable() else repr(value)
    return text if len(text) <= 80 else text[:79] + "…"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_share(value: Any) -> bool:
    """A number from 0 to 1 (a win share, a fraction of the game)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and 0 <= value <= 1


def _seats(value: Any, players: int, low: int) -> bool:
    """A list of seat numbers from ``low`` (-1 for "nobody") to ``players - 1``."""
    return isinstance(value, list) and all(_is_int(item) and low <= item < players for item in value)


def _bad_metric(metrics: dict[str, Any], shape: _Shape, focus: int) -> str | None:
    """The first metric of a game line that is missing or malformed, or ``None``."""
    players = shape.cell.players
    checks: dict[str, bool] = {
        "win": isinstance(metrics.get("win"), list)
        and len(metrics["win"]) == players
        and all(map(_is_share, metrics["win"])),
        "vp": isinstance(metrics.get("vp"), list)
        and len(metrics["vp"]) == players
        and all(map(_is_int, metrics["vp"])),
        "focus": metrics.get("focus") == focus and _is_int(metrics.get("focus")),
        "shared": isinstance(metrics.get("shared"), bool),
        "category_winner": _seats(metrics.get("category_winner"), players, -1)
        and len(metrics["category_winner"]) == shape.categories,
        "dice": isinstance(metrics.get("dice"), dict)
        and set(metrics["dice"]) == shape.dice
        and all(map(_is_int, metrics["dice"].values())),
        "gift_leaders": _seats(metrics.get("gift_leaders"), players, 0),
        "decided_at": _is_share(metrics.get("decided_at")),
    }
    for name in _COUNTS:
        checks[name] = _is_int(metrics.get(name)) and metrics[name] >= 0
    return next((name for name, good in checks.items() if not good), None)


def _check_row(row: Any, experiment: Experiment, shapes: dict[str, _Shape]) -> str | None:
    """Why the game line ``row`` cannot be a game of ``experiment`` (a translated reason), or ``None``."""
    from biblios_kit.i18n import _

    if not isinstance(row, dict):
        return _("not a game result")
    for name in _ROW_FIELDS:
        if name not in row:
            return _("{name} is missing or malformed").format(name=name)
    unknown = sorted(set(row) - set(_ROW_FIELDS))
    if unknown:
        return _("unknown field {name}").format(name=_shown(unknown[0]))
    shape = shapes.get(row["cell"]) if isinstance(row["cell"], str) else None
    if shape is None:
        return _("the cell {cell} is not one of this experiment").format(cell=_shown(row["cell"]))
    index = row["index"]
    if not _is_int(index) or not 0 <= index < experiment.games:
        return _("the game number must be from 0 to {last}").format(last=experiment.games - 1)
    expected = game_seed(experiment.seed, index)
    if row["seed"] != expected or not _is_int(row["seed"]):
        return _(
            "game {index} has the seed {seed} where this experiment has {expected}: "
            "the line comes from another experiment"
        ).format(index=index, seed=_shown(row["seed"]), expected=expected)
    seats, focus = seats_for(shape.cell.arm, experiment.bots, shape.cell.players, index)
    if row["seats"] != list(seats):
        return _("game {index} is not played by the seats this experiment gives it").format(index=index)
    metrics = row["metrics"]
    if not isinstance(metrics, dict):
        return _("{name} is missing or malformed").format(name="metrics")
    unknown = sorted(set(metrics) - _METRICS)
    if unknown:
        return _("unknown field {name}").format(name="metrics." + _shown(unknown[0]))
    bad = _bad_metric(metrics, shape, focus)
    if bad is not None:
        return _("{name} is missing or malformed").format(name=f"metrics.{bad}")
    return None


def _shapes(experiment: Experiment) -> dict[str, _Shape]:
    """The shape of every cell's game lines, by cell key."""
    built = [ref.build() for ref in experiment.rulesets]
    return {cell.key: _Shape(cell, built[cell.ruleset]) for cell in experiment.cells()}


def read_results(path: Path, experiment: Experiment) -> dict[tuple[str, int], GameRow]:
    """The games already in ``path`` for ``experiment``, by (cell key, game index).

    A missing file has none. Raises :class:`ResultsFileError` if the file is not a regular
    file, not a lab results file, belongs to another experiment, or has a damaged line
    (anywhere but an unfinished last one).
    """
    from biblios_kit.i18n import _

    rows: dict[tuple[str, int], GameRow] = {}
    lines: dict[tuple[str, int], int] = {}
    try:
        fd = open_regular(path)
    except FileNotFoundError:
        return rows
    except InputError as error:
        raise ResultsFileError(path, error.message) from None
    shapes: dict[str, _Shape] | None = None
    with os.fdopen(fd, "rb") as handle:
        number = 0
        while True:
            limit = MAX_HEADER_BYTES if number == 0 else MAX_LINE_BYTES
            try:
                raw = handle.readline(limit + 1)
            except OSError as error:
                raise ResultsFileError(path, error.strerror or str(error)) from None
            if not raw:
                break
            number += 1
            finished = raw.endswith(b"\n")
            if not finished and len(raw) > limit:
                raise ResultsFileError(
                    path, _("the line is longer than {limit} KiB").format(limit=limit // 1024), number
                )
            if not finished:
                break  # a line cut short by an interruption (the writer drops it): that game is played again
            try:
                value = loads_json(decode_utf8(raw), MAX_LINE_DEPTH)
            except InputError as error:
                if number == 1:
                    raise ResultsFileError(path, _("not a lab results file"), number) from None
                raise ResultsFileError(path, error.message, number) from None
            if number == 1:
                if not isinstance(value, dict) or value.get("format") != FORMAT:
                    raise ResultsFileError(path, _("not a lab results file"), number)
                if value.get("fingerprint") != experiment.fingerprint():
                    raise ResultsFileError(
                        path, _("the results of another experiment (other rulesets, players, bots, games or seed)")
                    )
                continue
            if shapes is None:
                shapes = _shapes(experiment)
            reason = _check_row(value, experiment, shapes)
            if reason is not None:
                raise ResultsFileError(path, reason, number)
            key = (value["cell"], value["index"])
            if key in lines:
                raise ResultsFileError(
                    path,
                    _("game {index} of cell {cell} is already on line {line}").format(
                        index=key[1], cell=key[0], line=lines[key]
                    ),
                    number,
                )
            lines[key] = number
            rows[key] = value
    return rows


def check_writable(path: Path) -> None:
    """Raise :class:`ResultsFileError` unless ``path`` is absent or a regular file (a symbolic link is refused)."""
    from biblios_kit.i18n import _

    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as error:
        raise ResultsFileError(path, error.strerror or str(error)) from None
    if stat.S_ISLNK(mode):
        raise ResultsFileError(path, _("a symbolic link; name the file it leads to instead"))
    try:
        require_regular(mode)
    except InputError as error:
        raise ResultsFileError(path, error.message) from None


class ResultsWriter:
    """Appends game rows to a results file, writing the header first when the file is new or replaced.

    The file is opened without following a symbolic link and must be a regular file
    (:class:`ResultsFileError` otherwise).
    """

    def __init__(self, path: Path, experiment: Experiment, resume: bool) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        check_writable(path)
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o666)
        except OSError as error:  # a link or a FIFO swapped in since the check
            raise ResultsFileError(path, error.strerror or str(error)) from None
        try:
            info = os.fstat(fd)
            require_regular(info.st_mode)
            fresh = not resume or self._trim_partial_line(fd, info.st_size) == 0
            if fresh:
                os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_END)
        except InputError as error:
            os.close(fd)
            raise ResultsFileError(path, error.message) from None
        except BaseException:
            os.close(fd)
            raise
        self.handle: IO[str] = os.fdopen(fd, "w", encoding="utf-8")
        if fresh:
            header: dict[str, Any] = {
                "format": FORMAT,
                "fingerprint": experiment.fingerprint(),
                "experiment": experiment.describe(),
            }
            self._write([header])

    @staticmethod
    def _trim_partial_line(fd: int, size: int) -> int:
        """Drop an unfinished last line (a crash mid-write), so appended lines start on a line of their own.

        Returns the size left. :func:`read_results` has checked the file: its last line is
        at most :data:`MAX_LINE_BYTES` long, so its start is within the bytes read here.
        """
        if size == 0:
            return 0
        length = min(size, MAX_LINE_BYTES + 2)
        tail = os.pread(fd, length, size - length)
        if tail.endswith(b"\n"):
            return size
        kept = size - length + tail.rfind(b"\n") + 1
        os.ftruncate(fd, kept)
        return kept

    def _write(self, items: list[dict[str, Any]]) -> None:
        import json

        self.handle.write("".join(json.dumps(item, separators=(",", ":")) + "\n" for item in items))
        self.handle.flush()
        with contextlib.suppress(OSError):  # a file system without fsync keeps the data all the same
            os.fsync(self.handle.fileno())

    def write(self, rows: list[GameRow]) -> None:
        """Append ``rows`` and flush them to disk."""
        if rows:
            self._write(rows)

    def close(self) -> None:
        """Close the file."""
        self.handle.close()
