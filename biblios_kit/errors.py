"""The error tree of biblios-kit: one base class, precise subclasses, data not sentences."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

INTERRUPTED_STATUS = 130
"""The exit status of a command stopped by Ctrl+C (128 + SIGINT), as shells report it."""


class BibliosError(Exception):
    """Base class of every error biblios-kit raises on purpose."""


@dataclass(frozen=True)
class Hint:
    """A piece of a sentence as data: a ``code`` naming its template and the ``fields`` it fills in.

    A :class:`Problem` carries hints in its fields (a note added after its sentence, what a
    value was expected to be); :mod:`biblios_kit.messages` makes them text.
    """

    code: str
    fields: Mapping[str, object] = field(default_factory=dict)

    def __hash__(self) -> int:
        return hash((self.code, repr(sorted(self.fields.items()))))


@dataclass(frozen=True, eq=False)
class Problem:
    """One located problem in a ruleset file, as data: where it is, a ``code`` and the ``fields`` it concerns.

    ``line`` and ``column`` are 1-based (0 when unknown); ``path`` is the dotted field
    path inside the document (``""`` for the whole file). The sentence is made only when it
    is read (:attr:`message`, ``str()``), in the active language, by
    :func:`biblios_kit.messages.explain_problem`.
    """

    file: str
    line: int
    column: int
    path: str
    code: str
    """What is wrong, e.g. ``"unknown-name"`` or ``"wrong-type"`` (see ``biblios_kit.messages``)."""
    fields: Mapping[str, object] = field(default_factory=dict)
    """The values the problem concerns (the offending value, what was expected, the names that exist ...)."""
    options: tuple[str, ...] = ()
    """The options switched on when the problem appears (``()``: with no option)."""
    via: tuple[str, int, int] | None = None
    """Where a file this one extends is involved: that file, line and column (``None``: not involved)."""

    def _key(self) -> tuple[object, ...]:
        return (
            self.file,
            self.line,
            self.column,
            self.path,
            self.code,
            repr(sorted(self.fields.items())),
            self.options,
            self.via,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Problem) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    @property
    def where(self) -> str:
        """``file:line:column``, or the file alone when the position is unknown."""
        return f"{self.file}:{self.line}:{self.column}" if self.line else self.file

    @property
    def message(self) -> str:
        """What is wrong and what was expected, in the active language."""
        if _problem_explainer is not None:
            return _problem_explainer(self)
        details = ", ".join(f"{key}={value!r}" for key, value in self.fields.items())
        return f"{self.code} ({details})" if details else self.code

    def __str__(self) -> str:
        field_path = f" {self.path}:" if self.path else ""
        return f"{self.where}:{field_path} {self.message}"


_problem_explainer: Callable[[Problem], str] | None = None
"""What :attr:`Problem.message` calls: :func:`biblios_kit.messages.explain_problem` once imported."""


def set_problem_explainer(explainer: Callable[[Problem], str] | None) -> None:
    """Make ``explainer`` the sentence-maker of :attr:`Problem.message` (``None``: code and fields)."""
    global _problem_explainer
    _problem_explainer = explainer


class RulesetError(BibliosError):
    """A ruleset could not be loaded; ``problems`` lists every located problem found.

    ``str()`` renders every problem, one per line, in the language active at that moment.
    """

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        super().__init__(self.problems)

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.problems)


class UnknownRulesetError(BibliosError):
    """No shipped or user ruleset has this id, alias or path."""

    def __init__(self, name: str, known: list[str]) -> None:
        self.name = name
        self.known = known
        super().__init__(f"unknown ruleset {name!r}; known: {', '.join(known)}")


class UnknownOptionError(BibliosError):
    """An option name the ruleset does not declare."""

    def __init__(self, name: str, ruleset_id: str, known: list[str]) -> None:
        self.name = name
        self.ruleset_id = ruleset_id
        self.known = known
        super().__init__(f"unknown option {name!r} for ruleset {ruleset_id!r}; known: {', '.join(known) or '(none)'}")


class CodedError(BibliosError):
    """An error that is data: a ``code`` naming what went wrong and the ``fields`` it concerns.

    The engine raises these without making sentences; the CLI and the TUI turn them into
    text in the user's language with :func:`biblios_kit.messages.explain` (``str()`` of
    the error does the same in the active language, for logs and tracebacks).
    """

    def __init__(self, code: str, **fields: object) -> None:
        self.code = code
        """What went wrong, e.g. ``"illegal"`` or ``"bid-out-of-range"`` (see ``biblios_kit.messages``)."""
        self.fields = fields
        """The values the error concerns (the action, the player, the phase, what was expected ...)."""
        super().__init__(code)

    def __str__(self) -> str:
        if _explainer is not None:
            return _explainer(self)
        details = ", ".join(f"{key}={value!r}" for key, value in self.fields.items())
        return f"{self.code} ({details})" if details else self.code


_explainer: Callable[[CodedError], str] | None = None
"""What ``str()`` of a :class:`CodedError` calls: :func:`biblios_kit.messages.explain`, which registers
itself when imported (this module, below every layer, imports nothing above it)."""


def set_explainer(explainer: Callable[[CodedError], str] | None) -> None:
    """Make ``explainer`` the sentence-maker of ``str()`` for coded errors (``None``: code and fields)."""
    global _explainer
    _explainer = explainer


class EngineError(CodedError, ValueError):
    """A game the engine cannot set up (an unsupported player count, a deck too small for the setup)."""


class BotSpecError(CodedError, ValueError):
    """A bot spec that names no bot, has a malformed parameter, or a bot that cannot be loaded."""


class BotParamError(CodedError, ValueError):
    """A bot parameter that is unknown, not a number, or out of its range."""


class InvalidActionError(CodedError, ValueError):
    """An action that is malformed (cannot be parsed or is not an action at all)."""


class IllegalActionError(CodedError, ValueError):
    """A well-formed action that is not legal in the current state."""


class RecordError(CodedError):
    """A game record that cannot be read or replayed (corrupt, unknown version, changed ruleset).

    ``fields["where"]`` is the file it came from (``None``: a record in memory); the CLI and
    the TUI put it before the sentence. Code ``"record-located"`` carries a sentence already
    made by the layer above the engine (saves), in ``fields["message"]``.
    """
