"""Bounded reading of input files: regular files only, a byte cap, and JSON with capped depth and numbers.

Every reader of a file a user can hand to biblios-kit (game records, saves, rulesets)
reads it through this module, so that no input can hang a command or exhaust memory:

* :func:`read_bytes` refuses anything but a regular file (a folder, a FIFO, a device such
  as ``/dev/zero`` even behind a symbolic link, a socket) before reading from it, and
  refuses files larger than the reader's cap;
* :func:`decode_utf8` turns bytes that are not UTF-8 into a located error;
* :func:`loads_json` refuses nesting deeper than a cap and integers longer than
  :data:`MAX_INT_DIGITS` digits before Python's parser sees them (deep nesting would raise
  ``RecursionError``, 4,300 digits ``ValueError``), and turns every syntax error into a
  located one.

Each failure is an :class:`InputError` carrying a translated message and, when known, the
1-based line and column; each reader wraps it in its own error (``RecordError``,
``RulesetError``) with the file's name. See ``docs/inputs.md``.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from biblios_kit.errors import BibliosError
from biblios_kit.i18n import N_, _

MAX_INT_DIGITS = 40
"""Longest integer accepted in a JSON or YAML input, in digits (a 128-bit number has 39)."""
DEFAULT_JSON_DEPTH = 32
"""Deepest nesting of JSON arrays and objects accepted unless a reader sets its own cap."""

# A JSON string, including its escapes (the unrolled form: linear time on any input).
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_LONG_NUMBER = re.compile(rf"\d{{{MAX_INT_DIGITS + 1},}}")
_COUNT = re.compile(r"[0-9]{1,9}")


def count_of(text: str) -> int | None:
    """A non-negative whole number written in ASCII digits (at most 9 of them), or ``None``.

    For every count a person or a client types (a seat number, ``--players``, ``?since=``):
    ``str.isdigit()`` also accepts "²" and "١", which ``int()`` refuses or reads as a number.
    """
    return int(text) if _COUNT.fullmatch(text) else None


class InputError(BibliosError):
    """An input file refused by a bounded reader: ``message`` is already translated.

    ``line`` and ``column`` are 1-based, 0 when the problem is the file as a whole.
    Readers catch it and raise their own error with the file's name in front.
    """

    def __init__(self, message: str, line: int = 0, column: int = 0) -> None:
        self.message = message
        self.line = line
        self.column = column
        super().__init__(message)

    def located(self, where: str) -> str:
        """``where:line:column: message`` (without the position when it is unknown)."""
        position = f"{where}:{self.line}:{self.column}" if self.line else where
        return f"{position}: {self.message}"


class TooLargeError(InputError):
    """A file over the reader's byte cap (``limit``); readers may word the message their own way."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(too_large(limit), 1, 1)


def _kind(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    if stat.S_ISDIR(mode):
        return _("a folder")
    if stat.S_ISFIFO(mode):
        return _("a named pipe (FIFO)")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return _("a device")
    if stat.S_ISSOCK(mode):
        return _("a socket")
    return _("not a regular file")


def _refuse_special(mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise InputError(_("{kind}, not a regular file; expected an ordinary file").format(kind=_kind(mode)))


def require_regular(mode: int) -> None:
    """Raise :class:`InputError` (saying what it is instead) unless ``mode`` is a regular file's ``st_mode``."""
    _refuse_special(mode)


def open_regular(path: str | os.PathLike[str]) -> int:
    """A read-only descriptor of the regular file ``path`` (raises :class:`InputError`, or ``FileNotFoundError``).

    Symbolic links are followed, but what they lead to must be a regular file: it is
    checked before the file is opened, and again on the opened file (non-blocking, so a
    FIFO swapped in between cannot hang the open). The caller closes the descriptor.
    """
    try:
        _refuse_special(os.stat(path).st_mode)
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise InputError(_("cannot read the file: {reason}").format(reason=error.strerror or error)) from None
    try:
        _refuse_special(os.fstat(fd).st_mode)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bytes(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (raises :class:`InputError`).

    Symbolic links are followed, but what they lead to must be a regular file (see
    :func:`open_regular`).
    """
    try:
        fd = open_regular(path)
    except FileNotFoundError as error:
        raise InputError(_("cannot read the file: {reason}").format(reason=error.strerror or error)) from None
    try:
        with os.fdopen(fd, "rb", closefd=False) as handle:
            raw = handle.read(limit + 1)
    except OSError as error:
        raise InputError(_("cannot read the file: {reason}").format(reason=error.strerror or error)) from None
    finally:
        os.close(fd)
    if len(raw) > limit:
        raise TooLargeError(limit)
    return raw


def too_large(limit: int) -> str:
    """The message for a file over ``limit`` bytes."""
    if limit >= 1024 * 1024:
        return _("the file is larger than {limit} MiB").format(limit=limit // (1024 * 1024))
    return _("the file is larger than {limit} KiB").format(limit=limit // 1024)


def position(text: str, index: int) -> tuple[int, int]:
    """The 1-based line and column of character ``index`` of ``text``."""
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def decode_utf8(raw: bytes) -> str:
    """``raw`` decoded as UTF-8 (a leading byte-order mark dropped); :class:`InputError` at the first bad byte."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        raise InputError(
            _("not UTF-8 text (byte 0x{byte:02x} is invalid)").format(byte=raw[error.start]), line, column
        ) from None
    return text.removeprefix("\ufeff")


def _mask_strings(text: str) -> str:
    """``text`` with the inside of every JSON string blanked out (same length, so positions hold)."""
    return _JSON_STRING.sub(lambda match: '"' + " " * (len(match.group()) - 2) + '"', text)


def _deeper_than(masked: str, max_depth: int) -> bool:
    """Whether the brackets of ``masked`` may nest deeper than ``max_depth`` (``False`` is certain).

    Each pass deletes the innermost pairs of one kind (``[]``, then ``{}``, in turn): a pass
    removes at most one level, so brackets all gone within ``max_depth`` passes nest at most
    that deep. This runs at the speed of ``str.replace`` (a few milliseconds for a 4 MiB
    file), where a Python loop over the brackets takes seconds; only when brackets are left
    (too deep, unbalanced, or many levels alternating ``[`` and ``{``) does the caller walk
    them one by one.
    """
    brackets = _NOT_BRACKET.sub("", masked)
    for level in range(max_depth):
        if not brackets:
            return False
        brackets = brackets.replace("[]" if level % 2 == 0 else "{}", "")
    return bool(brackets)


def _parse_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:  # the pre-scan finds these first; kept as a guard
        raise InputError(number_too_long())
    return int(digits)


def number_too_long() -> str:
    """The message for an integer over :data:`MAX_INT_DIGITS` digits."""
    return _("a number has more than {limit} digits").format(limit=MAX_INT_DIGITS)


# How Python's JSON parser words each syntax error (the start of ``JSONDecodeError.msg``), in
# words a translator can reach: the parser's own are English only.
_JSON_REASONS = (
    ("Expecting value", N_("a value was expected here")),
    ("Expecting property name enclosed in double quotes", N_("a key in double quotes was expected here")),
    ("Expecting ':' delimiter", N_("a colon was expected here")),
    ("Expecting ',' delimiter", N_("a comma was expected here")),
    ("Extra data", N_("there is more text after the end of the data")),
    ("Unterminated string", N_("a string starts here and is never closed")),
    ("Invalid control character", N_("a control character inside a string")),
    ("Invalid \\escape", N_("an invalid backslash escape inside a string")),
    ("Invalid \\uXXXX escape", N_("an invalid \\uXXXX escape inside a string")),
    ("Illegal trailing comma", N_("a comma just before a closing bracket or brace")),
)


def json_reason(message: str) -> str:
    """Python's JSON parser message ``message`` in the current language (one it does not know as it is)."""
    for english, ours in _JSON_REASONS:
        if message.startswith(english):
            return _(ours)
    return message


def loads_json(text: str, max_depth: int = DEFAULT_JSON_DEPTH) -> Any:
    """Parse JSON ``text``, refusing nesting deeper than ``max_depth`` and over-long integers.

    Raises :class:`InputError` (located at the offending character) for those and for every
    syntax error, so no ``RecursionError`` or ``ValueError`` escapes.
    """
    masked = _mask_strings(text)
    if _deeper_than(masked, max_depth):
        depth = 0
        for match in _BRACKET.finditer(masked):  # find where, character by character
            depth += 1 if match.group() in "[{" else -1
            if depth > max_depth:
                line, column = position(text, match.start())
                raise InputError(_("nesting is deeper than {limit} levels").format(limit=max_depth), line, column)
    long_number = _LONG_NUMBER.search(masked)
    if long_number is not None:
        line, column = position(text, long_number.start())
        raise InputError(number_too_long(), line, column)
    try:
        return json.loads(text, parse_int=_parse_int)
    except json.JSONDecodeError as error:
        raise InputError(
            _("invalid or truncated JSON: {reason}").format(reason=json_reason(error.msg)), error.lineno, error.colno
        ) from None
    except (RecursionError, ValueError) as error:  # pragma: no cover - the scans above refuse these first
        raise InputError(_("invalid JSON: {reason}").format(reason=error)) from None


def read_json(path: str | os.PathLike[str], limit: int, max_depth: int = DEFAULT_JSON_DEPTH) -> Any:
    """Read, decode and parse the JSON file ``path`` within the given bounds (raises :class:`InputError`)."""
    return loads_json(decode_utf8(read_bytes(Path(path), limit)), max_depth)
