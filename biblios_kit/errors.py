"""The error tree of biblios-kit: one base class, precise subclasses, data not sentences."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


class BibliosError(Exception):
    """Base class of every error biblios-kit raises on purpose."""


@dataclass(frozen=True)
class Problem:
    """One located problem in a ruleset file.

    ``line`` and ``column`` are 1-based (0 when unknown); ``path`` is the dotted field
    path inside the document (``""`` for the whole file).
    """

    file: str
    line: int
    column: int
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}" if self.line else self.file
        field = f" {self.path}:" if self.path else ""
        return f"{where}:{field} {self.message}"


class RulesetError(BibliosError):
    """A ruleset could not be loaded; ``problems`` lists every located problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


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
