"""The ``biblios-kit`` Typer application: command groups, registration, and the error boundary.

The language is chosen before the commands are built (from ``--lang`` anywhere on the
command line, ``BIBLIOS_LANG`` or the locale), so help texts, written as ``_("...")`` in
each command module, come out in the user's language.
"""

from __future__ import annotations

import sys
from typing import Sequence

import typer

from biblios_kit.errors import BibliosError
from biblios_kit.i18n import _, use_language


def build_app() -> typer.Typer:
    """Build the Typer application in the active language (tests call this too)."""
    app = typer.Typer(
        name="biblios-kit",
        help=_("Biblios and Scripts & Scribes: rulesets, rulebooks, simulations and a terminal game."),
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,  # plain help: rich formatting costs ~0.1 s of start-up
    )
    rules_app = typer.Typer(help=_("Look up, check and compare rulesets."), no_args_is_help=True, rich_markup_mode=None)
    variant_app = typer.Typer(help=_("Write house-rule variants."), no_args_is_help=True, rich_markup_mode=None)
    app.add_typer(rules_app, name="rules")
    app.add_typer(variant_app, name="variant")

    # Each module adds its commands; they keep heavy imports inside the command bodies.
    from biblios_kit.cli import play_cmds, replay_cmds, rulebook_cmds, rules_cmds, simulate_cmds, variant_cmds

    rules_cmds.register(rules_app)
    rulebook_cmds.register(rules_app)
    variant_cmds.register(variant_app)
    replay_cmds.register(app)
    simulate_cmds.register(app)
    play_cmds.register(app)
    return app


def lang_from_argv(argv: Sequence[str]) -> str | None:
    """The value of ``--lang X`` or ``--lang=X`` anywhere in ``argv``, if given."""
    for index, arg in enumerate(argv):
        if arg == "--lang" and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith("--lang="):
            return arg.split("=", 1)[1]
    return None


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``biblios-kit`` command: library errors become a message and exit status 2."""
    args = list(sys.argv[1:] if argv is None else argv)
    use_language(lang_from_argv(args), warn=False)  # each command warns (or fails) itself
    try:
        build_app()(args=args, prog_name="biblios-kit")
    except BibliosError as error:
        print(f"{_('error:')} {error}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
