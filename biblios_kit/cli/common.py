"""Pieces shared by the CLI commands: the ``--lang`` option and error exits (status 2, no traceback)."""

from __future__ import annotations

import sys
from typing import Annotated, NoReturn

import typer

from biblios_kit.i18n import _, use_language

LangOption = Annotated[
    str | None,
    typer.Option("--lang", help=_("Language: en, fr or es (default: BIBLIOS_LANG, then the system locale).")),
]
"""The ``--lang`` option every command takes."""

USAGE_ERROR = 2
"""Exit status for bad input of any kind."""


def start(lang: str | None) -> str:
    """Activate the language for this command (warning once if unsupported) and return it."""
    return use_language(lang)


def fail(message: str) -> NoReturn:
    """Print ``message`` on stderr and exit with status 2."""
    print(message, file=sys.stderr)
    raise typer.Exit(USAGE_ERROR)


def error_prefix() -> str:
    """The localized ``error:`` prefix."""
    return _("error:")
