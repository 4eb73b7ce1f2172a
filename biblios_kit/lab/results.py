"""The results file: one JSON line per finished game, written as games finish, read back to resume.

The first line is a header naming the experiment (its fingerprint and description); each
further line is a :data:`~biblios_kit.lab.plan.GameRow`. Lines are appended and flushed after
each job, so an interrupted run (Ctrl-C, a crash, a lost worker) keeps every finished game. A
last line cut short by a crash is ignored on reading. The format is described in ``docs/lab.md``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any

from biblios_kit.lab.plan import Experiment, GameRow

FORMAT = "biblios-kit-lab/1"
"""The header's ``format`` value."""


class ResultsFileError(ValueError):
    """A results file that cannot be resumed: unreadable, not a lab results file, or another experiment's."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


def read_results(path: Path, experiment: Experiment) -> dict[tuple[str, int], GameRow]:
    """The games already in ``path`` for ``experiment``, by (cell key, game index).

    Raises :class:`ResultsFileError` if the file is not a lab results file or belongs to another experiment.
    """
    from biblios_kit.i18n import _

    rows: dict[tuple[str, int], GameRow] = {}
    try:
        with path.open(encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except FileNotFoundError:
        return rows
    except OSError as error:
        raise ResultsFileError(path, error.strerror or str(error)) from None
    if not lines:
        return rows
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ResultsFileError(path, _("not a lab results file"))
    if header.get("fingerprint") != experiment.fingerprint():
        raise ResultsFileError(
            path, _("the results of another experiment (other rulesets, players, bots, games or seed)")
        )
    for number, line in enumerate(lines[1:], start=2):
        try:
            row = json.loads(line)
            key = (str(row["cell"]), int(row["index"]))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            if number == len(lines):
                break  # a line cut short by an interruption: that game is played again
            raise ResultsFileError(path, _("line {line} is not a game result").format(line=number)) from None
        rows[key] = row
    return rows


class ResultsWriter:
    """Appends game rows to a results file, writing the header first when the file is new or replaced."""

    def __init__(self, path: Path, experiment: Experiment, resume: bool) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        fresh = not resume or not path.exists() or path.stat().st_size == 0
        if not fresh:
            self._trim_partial_line()
        self.handle: IO[str] = path.open("w" if fresh else "a", encoding="utf-8")
        if fresh:
            header: dict[str, Any] = {
                "format": FORMAT,
                "fingerprint": experiment.fingerprint(),
                "experiment": experiment.describe(),
            }
            self._write([header])

    def _trim_partial_line(self) -> None:
        """Drop an unfinished last line (a crash mid-write), so appended lines start on a line of their own."""
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            with self.path.open("r+b") as handle:
                handle.truncate(cut)

    def _write(self, items: list[dict[str, Any]]) -> None:
        self.handle.write("".join(json.dumps(item, separators=(",", ":")) + "\n" for item in items))
        self.handle.flush()
        os.fsync(self.handle.fileno())

    def write(self, rows: list[GameRow]) -> None:
        """Append ``rows`` and flush them to disk."""
        if rows:
            self._write(rows)

    def close(self) -> None:
        """Close the file."""
        self.handle.close()
