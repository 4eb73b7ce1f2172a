"""Read a YAML ruleset file safely into plain data plus the line and column of every node.

The reader refuses what could hurt before anything is built: anything but a regular file
(a FIFO, a device), files over :data:`MAX_BYTES`, bytes that are not UTF-8, anchors and
aliases (alias bombs, recursive aliases), nesting deeper than :data:`MAX_DEPTH`, integers
of more than :data:`~biblios_kit.bounded.MAX_INT_DIGITS` digits. It reports duplicate keys
and YAML syntax errors as located :class:`~biblios_kit.errors.Problem` objects.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from biblios_kit import bounded
from biblios_kit.errors import Hint, Problem, RulesetError

MAX_BYTES = 1024 * 1024
"""Largest ruleset file accepted (1 MiB; the editions are about 6 KiB)."""
MAX_DEPTH = 32
"""Deepest nesting of mappings and lists accepted (the format needs 6)."""

PathKey = str | int
"""One step of a field path: a mapping key (always a string) or a list index."""
FieldPath = tuple[PathKey, ...]
"""A field path inside a document, e.g. ``("setup", "2", "remove", 0, "count")``."""

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml parses about 10x faster
_MERGE_TAG = "tag:yaml.org,2002:merge"
_INT_TAG = "tag:yaml.org,2002:int"
_NULL_TAG = "tag:yaml.org,2002:null"


def display_path(path: Path) -> str:
    """How a file is named in messages: relative to the working folder when inside it, else absolute."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)
    return str(path) if relative.startswith("..") else relative


def dotted(path: FieldPath) -> str:
    """Format a field path for messages: ``setup.2.remove[0].count``."""
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            out += f".{step}" if out else str(step)
    return out


@dataclass
class LocatedDocument:
    """A YAML document as plain data, with the 1-based position of every value and mapping key."""

    file: str
    """The file's name as shown in messages."""
    data: Any
    values: dict[FieldPath, tuple[int, int]] = field(default_factory=dict)
    """Position of the value node at each path (``()`` is the whole document)."""
    keys: dict[FieldPath, tuple[int, int]] = field(default_factory=dict)
    """Position of the key node of each mapping entry, by the entry's path."""
    collections: set[FieldPath] = field(default_factory=set)
    """Paths whose value is a mapping or a list (problems there point at their key)."""
    empties: set[FieldPath] = field(default_factory=set)
    """Paths whose value is empty (``4:`` with nothing after it): YAML reads it as ``null``, like
    ``4: null`` or ``4: ~``, but only a written ``null`` is meant as a removal."""
    path: Path | None = None
    """The file on disk, when it came from one."""
    digest: bytes = b""
    """A digest of the file's bytes (set by the loader's cache; identifies this version of the file)."""

    def has(self, path: FieldPath) -> bool:
        """Whether this document sets a value at ``path``."""
        return path in self.values

    def at(self, path: FieldPath, *, key: bool = False) -> tuple[int, int] | None:
        """Where a problem about ``path`` points: the value of a scalar, else the entry's key."""
        if path not in self.values:
            return None
        if (key or path in self.collections) and path in self.keys:
            return self.keys[path]
        return self.values[path]

    def position(self, path: FieldPath, *, key: bool = False) -> tuple[FieldPath, tuple[int, int]]:
        """The deepest existing prefix of ``path`` and its position (see :meth:`at`)."""
        for end in range(len(path), -1, -1):
            found = self.at(path[:end], key=key and end == len(path))
            if found is not None:
                return path[:end], found
        return (), (1, 1)

    def problem(
        self, path: FieldPath, code: str, fields: Mapping[str, object] | None = None, *, key: bool = False
    ) -> Problem:
        """A :class:`Problem` with ``code`` and ``fields``, located at the deepest node of ``path`` in this document."""
        _, (line, column) = self.position(path, key=key)
        return Problem(self.file, line, column, dotted(path), code, dict(fields or {}))


def _mark(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _text_position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


_YAML_PROBLEMS: tuple[tuple[str, str], ...] = (
    ("mapping values are not allowed", "yaml-colon-here"),
    ("mapping keys are not allowed", "yaml-complex-key"),
    ("block sequence entries are not allowed", "yaml-dash-here"),
    ("sequence entries are not allowed", "yaml-dash-here"),
    ("could not find expected ':'", "yaml-no-colon"),
    ("found a tab character", "yaml-tab"),
    ("found character", "yaml-bad-start"),
    ("found unexpected end of stream", "yaml-unclosed"),
    ("found unexpected document", "yaml-separator-in-text"),
    ("found unknown escape character", "yaml-bad-escape"),
    ("found invalid Unicode character escape code", "yaml-bad-hex-escape"),
    ("did not find expected hexdecimal number", "yaml-bad-hex-escape"),
    ("expected escape sequence of", "yaml-bad-hex-escape"),
    ("did not find expected key", "yaml-expected-key"),
    ("did not find expected '-' indicator", "yaml-expected-item"),
    ("did not find expected ',' or ']'", "yaml-flow-sequence"),
    ("expected ',' or ']'", "yaml-flow-sequence"),
    ("did not find expected ',' or '}'", "yaml-flow-mapping"),
    ("expected ',' or '}'", "yaml-flow-mapping"),
    ("did not find expected node content", "yaml-expected-value"),
    ("expected the node content", "yaml-expected-value"),
    ("but found another document", "yaml-several-documents"),
    ("expected a single document", "yaml-several-documents"),
    ("did not find expected <document start>", "yaml-after-end"),
    ("expected '<document start>'", "yaml-after-end"),
    ("found unexpected ':'", "yaml-colon-in-flow"),
    ("found an indentation indicator equal to 0", "yaml-block-header"),
    ("expected indentation indicator", "yaml-block-header"),
    ("expected chomping or indentation indicators", "yaml-block-header"),
    ("could not determine a constructor", "yaml-unknown-tag"),
    ("found undefined tag handle", "yaml-directive-or-tag"),
    ("found incompatible YAML document", "yaml-directive-or-tag"),
    ("found duplicate", "yaml-directive-or-tag"),
    ("found unknown directive name", "yaml-directive-or-tag"),
    ("Maximum nesting level", "yaml-too-deep"),
    ("control characters are not allowed", "yaml-control"),
    ("special characters are not allowed", "yaml-control"),
)
"""How PyYAML and libyaml word each syntax problem (the start of ``problem``, in English) -> our code.

The sentences are ``biblios_kit.messages.TEMPLATES[code]``, in the reader's language; a problem
not listed here gets ``yaml-invalid`` ("this is not valid YAML"), never PyYAML's English."""

_YAML_CONTEXTS: tuple[tuple[str, str | None], ...] = (
    ("simple key", "yaml-in-key"),
    ("single document", None),  # points at the first document, which is fine
    ("next token", None),  # the same place as the problem
    ("mapping", "yaml-in-mapping"),
    ("collection", "yaml-in-list"),
    ("sequence", "yaml-in-list"),
    ("quoted scalar", "yaml-in-quoted"),
    ("block scalar", "yaml-in-block-text"),
    ("directive", "yaml-in-directive"),
    ("tag", "yaml-in-tag"),
    ("anchor", "yaml-in-anchor"),
    ("alias", "yaml-in-anchor"),
    ("scalar", "yaml-in-value"),
    ("node", "yaml-in-value"),
)
"""PyYAML's and libyaml's ``context`` ("while parsing a block mapping") -> the code of our note about it."""


def _character(text: str, line: int, column: int) -> str | None:
    """The character at 1-based ``line`` and ``column`` of ``text`` (``None`` past the end)."""
    lines = text.split("\n")
    if 0 < line <= len(lines) and 0 < column <= len(lines[line - 1]):
        return lines[line - 1][column - 1]
    return None


def _shown_character(character: str) -> str:
    """A character as messages show it: printable ones quoted, the others as ``U+0001``."""
    return repr(character) if character.isprintable() else f"U+{ord(character):04X}"


def yaml_problem(problem: str, context: str, character: str | None) -> Hint:
    """Our words for a PyYAML or libyaml syntax problem (``problem``, ``context``: their English; ``character``:
    the one at the problem's position): a :class:`Hint` whose code has a sentence in every language."""
    if character == "\t" or problem.startswith("found a tab character"):
        return Hint("yaml-tab")
    if problem.startswith("expected <block end>"):  # PyYAML; libyaml says which it expected
        return Hint("yaml-expected-item" if "collection" in context else "yaml-expected-key")
    code = next((ours for english, ours in _YAML_PROBLEMS if problem.startswith(english)), "yaml-invalid")
    if code == "yaml-invalid" and ("directive" in context or "tag" in context):
        code = "yaml-directive-or-tag"
    elif code == "yaml-invalid" and ("anchor" in context or "alias" in context):
        code = "yaml-anchor-name"
    elif code == "yaml-invalid" and "block scalar" in context:
        code = "yaml-block-header"
    if code in ("yaml-bad-start", "yaml-control"):
        return Hint(code, {"char": _shown_character(character)}) if character else Hint("yaml-invalid")
    if code == "yaml-too-deep":
        return Hint("too-deep", {"limit": MAX_DEPTH})
    return Hint(code)


def _syntax_problem(file: str, text: str, error: yaml.YAMLError) -> Problem:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    if mark is not None:
        line, column = mark.line + 1, mark.column + 1
    elif isinstance(position := getattr(error, "position", None), int):
        line, column = _text_position(text, position)  # a ReaderError (control character)
    else:
        line, column = 1, 1
    problem = str(getattr(error, "problem", None) or getattr(error, "reason", None) or "")
    context = str(getattr(error, "context", None) or "")
    fields: dict[str, object] = {"detail": yaml_problem(problem, context, _character(text, line, column))}
    context_mark = getattr(error, "context_mark", None)
    if context and context_mark is not None and (context_mark.line, context_mark.column) != (line - 1, column - 1):
        note = next((ours for english, ours in _YAML_CONTEXTS if english in context), "yaml-in-part")
        if note == "yaml-in-mapping" and context_mark.column == 0:
            note = None  # the whole file's mapping: saying so helps nobody
        if note is not None:
            fields["note"] = Hint(note, {"line": context_mark.line + 1, "column": context_mark.column + 1})
    return Problem(file, line, column, "", "yaml-syntax", fields)


def _decode(file: str, raw: bytes) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        raise RulesetError([Problem(file, line, column, "", "not-utf8", {"byte": raw[error.start]})]) from None
    return text.removeprefix("\ufeff")


def _check_events(file: str, text: str) -> None:
    """Refuse anchors, aliases and deep nesting while only parsing, before any node is built."""
    depth = 0
    problems: list[Problem] = []
    for event in yaml.parse(text, Loader=_Loader):
        mark = event.start_mark
        assert mark is not None  # the parser marks every event it emits
        line, column = mark.line + 1, mark.column + 1
        if isinstance(event, yaml.AliasEvent):
            problems.append(Problem(file, line, column, "", "yaml-alias", {"name": event.anchor}))
        elif isinstance(event, yaml.NodeEvent) and event.anchor is not None:
            problems.append(Problem(file, line, column, "", "yaml-anchor", {"name": event.anchor}))
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                problems.append(Problem(file, line, column, "", "too-deep", {"limit": MAX_DEPTH}))
                break
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
        if problems:
            break  # one is enough: nothing after an alias can be trusted, and a bomb has thousands
    if problems:
        raise RulesetError(problems)


class _Builder:
    """Turn a composed node tree into plain data, recording positions and duplicate keys."""

    def __init__(self, loader: yaml.SafeLoader, document: LocatedDocument) -> None:
        self.loader = loader
        self.document = document
        self.problems: list[Problem] = []

    def build(self, node: yaml.Node, path: FieldPath) -> Any:
        self.document.values[path] = _mark(node)
        if isinstance(node, yaml.MappingNode):
            self.document.collections.add(path)
            result: dict[str, Any] = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE_TAG:
                    line, column = _mark(key_node)
                    self.problems.append(Problem(self.document.file, line, column, dotted(path), "plain-keys-only"))
                    continue
                if self._too_long(key_node, path):
                    continue
                try:
                    key = str(self.loader.construct_object(key_node))
                except (ValueError, TypeError, AttributeError, OverflowError):
                    self._unreadable(key_node, path)
                    continue
                key_path = (*path, key)
                if key in result:
                    line, column = _mark(key_node)
                    first_line = self.document.keys[key_path][0]
                    self.problems.append(
                        Problem(
                            self.document.file,
                            line,
                            column,
                            dotted(key_path),
                            "duplicate-key",
                            {"key": key, "first": first_line},
                        )
                    )
                    continue
                self.document.keys[key_path] = _mark(key_node)
                result[key] = self.build(value_node, key_path)
            return result
        if isinstance(node, yaml.SequenceNode):
            self.document.collections.add(path)
            return [self.build(item, (*path, index)) for index, item in enumerate(node.value)]
        if self._too_long(node, path):
            return None
        if node.tag == _NULL_TAG and node.value == "":
            self.document.empties.add(path)
        try:
            return self.loader.construct_object(node)
        except (ValueError, TypeError, AttributeError, OverflowError):  # 2024-02-30, "!!timestamp x", "!!int x"
            self._unreadable(node, path)
            return None

    def _unreadable(self, node: yaml.Node, path: FieldPath) -> None:
        """Report a scalar the constructor refuses (an impossible date, a tag that does not fit its text)."""
        line, column = _mark(node)
        value = node.value if isinstance(node.value, str) else ""
        self.problems.append(
            Problem(self.document.file, line, column, dotted(path), "unreadable-value", {"value": value[:60]})
        )

    def _too_long(self, node: yaml.Node, path: FieldPath) -> bool:
        """Report an integer scalar of more than MAX_INT_DIGITS digits (building it would be slow or fail)."""
        if node.tag != _INT_TAG or not isinstance(node.value, str):
            return False
        # Counted generously: hexadecimal, octal and binary digits, and the parts of a YAML 1.1
        # sexagesimal number (1:30:00) are letters or digits too; sign and underscores are not.
        digits = sum(character.isalnum() for character in node.value)
        if digits <= bounded.MAX_INT_DIGITS + 2:  # room for a 0x, 0o or 0b prefix
            return False
        line, column = _mark(node)
        self.problems.append(
            Problem(
                self.document.file, line, column, dotted(path), "number-too-long", {"limit": bounded.MAX_INT_DIGITS}
            )
        )
        return True


def parse_text(text: str, file: str, path: Path | None = None) -> LocatedDocument:
    """Parse YAML text into a :class:`LocatedDocument`; raise :class:`RulesetError` with every problem."""
    document = LocatedDocument(file, None, path=path)
    try:
        _check_events(file, text)
        loader = _Loader(text)
        try:
            root = loader.get_single_node()
            if root is None:
                raise RulesetError([Problem(file, 1, 1, "", "empty-file")])
            builder = _Builder(loader, document)
            document.data = builder.build(root, ())
        finally:
            loader.dispose()
    except yaml.YAMLError as error:
        raise RulesetError([_syntax_problem(file, text, error)]) from None
    except (ValueError, TypeError, AttributeError, OverflowError):  # pragma: no cover - the builder reports these
        raise RulesetError([Problem(file, 1, 1, "", "unreadable-document")]) from None
    if builder.problems:
        raise RulesetError(builder.problems)
    if not isinstance(document.data, dict):
        raise RulesetError([Problem(file, 1, 1, "", "not-a-mapping")])
    return document


def read_bytes(path: Path, file: str) -> bytes:
    """The bytes of a ruleset file: a regular file of at most :data:`MAX_BYTES` (raises :class:`RulesetError`).

    Read through :func:`biblios_kit.bounded.read_bytes`: a folder, FIFO or device (even
    behind a symbolic link) is refused before anything is read from it.
    """
    try:
        return bounded.read_bytes(path, MAX_BYTES)
    except bounded.TooLargeError:
        raise RulesetError([Problem(file, 1, 1, "", "file-too-large", {"limit": MAX_BYTES // 1024})]) from None
    except bounded.InputError as error:  # its message was made by the shared bounded reader
        raise RulesetError(
            [Problem(file, error.line, error.column, "", "unreadable-file", {"detail": error.message})]
        ) from None


def parse_bytes(raw: bytes, file: str, path: Path | None = None) -> LocatedDocument:
    """Decode (UTF-8) and parse the bytes of a ruleset file (raises :class:`RulesetError`)."""
    return parse_text(_decode(file, raw), file, path)


def read_file(path: Path, file: str | None = None) -> LocatedDocument:
    """Read and parse one ruleset file (at most :data:`MAX_BYTES`), raising :class:`RulesetError`."""
    shown = file if file is not None else display_path(path)
    return parse_bytes(read_bytes(path, shown), shown, path)


class Issue(NamedTuple):
    """A problem found in plain data, before it is located in a file: field path, code and fields.

    The code and fields are those of the :class:`~biblios_kit.errors.Problem` it becomes.
    """

    path: FieldPath
    code: str
    fields: Mapping[str, object] = {}
    at_key: bool = False
    """Point at the key of the entry at ``path`` rather than at its value."""
    related: tuple[FieldPath, ...] = ()
    """Other paths the problem involves (what a count depends on): when ``path`` lies in a file the
    validated one extends, the problem is reported where the validated file sets one of these."""
    mirror: tuple[FieldPath, Mapping[str, object]] | None = None
    """The same problem seen from its other side (the other half of a collision), as a path and
    fields: used when ``path`` lies in a file the validated one extends and the validated file
    sets the mirror's path."""

    def key(self) -> tuple[object, ...]:
        """What identifies the issue (its fields may hold lists, so the tuple itself is not hashable)."""
        return (self.path, self.code, repr(sorted(self.fields.items())), self.at_key)
