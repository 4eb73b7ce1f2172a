"""The ``biblios-kit`` Typer application: command groups, registration, and the error boundary.

The language is chosen before the commands are built (from ``--lang`` anywhere on the
command line, ``BIBLIOS_LANG`` or the locale), so help texts, written as ``_("...")`` in
each command module, come out in the user's language.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Sequence
from typing import Annotated

import typer

from biblios_kit.errors import INTERRUPTED_STATUS, BibliosError
from biblios_kit.i18n import N_, _, use_language
from biblios_kit.linebreak import keep_no_break_spaces

INTERNAL_ERROR_STATUS = 70
"""Exit status of an unexpected error (sysexits' EX_SOFTWARE); bad input exits with 2."""
DEBUG_VARIABLE = "BIBLIOS_KIT_DEBUG"
"""Set to show the traceback of an unexpected error instead of writing a crash report."""

COMMANDS: tuple[str, ...] = ("rules", "variant", "replay", "simulate", "lab", "play", "host", "join")
"""The top-level commands and groups, in the order help lists them."""


def build_app(command: str | None = None) -> typer.Typer:
    """Build the Typer application in the active language (tests call this too).

    With ``command`` (the top-level name on the command line), only the modules that add
    that command are imported and registered: a command line runs one command, and building
    the others costs ``biblios-kit play`` about 4% of its start-up. Without it, or for a
    name that is not a command, everything is registered, so help and "no such command"
    list every command.
    """
    keep_no_break_spaces()  # Rich tables wrap French "91,2 %" and "Joueurs :" as one word
    app = typer.Typer(
        name="biblios-kit",
        help=_("Biblios and Scripts & Scribes: rulesets, rulebooks, simulations and a terminal game."),
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,  # plain help: rich formatting costs ~0.1 s of start-up
    )
    app.callback()(_root)
    rules_app = typer.Typer(help=_("Look up, check and compare rulesets."), no_args_is_help=True, rich_markup_mode=None)
    variant_app = typer.Typer(help=_("Write house-rule variants."), no_args_is_help=True, rich_markup_mode=None)
    app.add_typer(rules_app, name="rules")
    app.add_typer(variant_app, name="variant")

    # Each module adds its commands; they keep heavy imports inside the command bodies.
    for name in [command] if command in COMMANDS else COMMANDS:
        _register(name, app, rules_app, variant_app)
    return app


_BUILDS = {
    "compiled": N_("compiled"),
    "interpreted": N_("interpreted"),
    "mixed": N_("partly compiled"),
}


def _show_version(value: bool) -> None:
    if value:
        from biblios_kit import __version__, _kernel

        build = _(_BUILDS[_kernel.status()])
        typer.echo(_("biblios-kit {version} (rules kernel: {build})").format(version=__version__, build=build))
        raise typer.Exit()


def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_show_version,
            is_eager=True,
            help=_("Show the version and whether the rules kernel runs compiled, then exit."),
        ),
    ] = False,
) -> None:
    """Biblios and Scripts & Scribes: rulesets, rulebooks, simulations and a terminal game."""


def _register(name: str, app: typer.Typer, rules_app: typer.Typer, variant_app: typer.Typer) -> None:
    """Import the modules that add the top-level command or group ``name`` and register them."""
    if name == "rules":
        from biblios_kit.cli import rulebook_cmds, rules_cmds, variant_cmds

        rules_cmds.register(rules_app)
        rulebook_cmds.register(rules_app)
        variant_cmds.register_explain(rules_app)
    elif name == "variant":
        from biblios_kit.cli import variant_cmds

        variant_cmds.register(variant_app)
    elif name == "replay":
        from biblios_kit.cli import replay_cmds

        replay_cmds.register(app)
    elif name == "simulate":
        from biblios_kit.cli import simulate_cmds

        simulate_cmds.register(app)
    elif name == "lab":
        from biblios_kit.cli import lab_cmds

        lab_cmds.register(app)
    elif name == "play":
        from biblios_kit.cli import play_cmds

        play_cmds.register(app)
    elif name == "host":
        from biblios_kit.cli import net_cmds

        net_cmds.register_host(app)
    elif name == "join":
        from biblios_kit.cli import net_cmds

        net_cmds.register_join(app)


def command_in(argv: Sequence[str]) -> str | None:
    """The top-level command named in ``argv`` (its first argument that is not an option), if any."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


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
        build_app(command_in(args))(args=args, prog_name="biblios-kit")
    except BibliosError as error:
        print(f"{_('error:')} {error}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(INTERRUPTED_STATUS)
    except Exception:  # a bug of ours: the user gets a sentence and a file to report, not a traceback
        if os.environ.get(DEBUG_VARIABLE):
            raise
        report = write_crash_report(traceback.format_exc())
        print(
            f"{_('error:')} "
            + _("internal error, this is a bug in biblios-kit. Please report it with the details in {path}.").format(
                path=report
            ),
            file=sys.stderr,
        )
        sys.exit(INTERNAL_ERROR_STATUS)


def write_crash_report(details: str) -> str:
    """Keep ``details`` (a traceback) in a new file of the user's data folder and return its name.

    When the file cannot be written the details are written to standard error instead, so
    nothing is lost; the returned name then says so.
    """
    import time

    from biblios_kit.atomic import write_text_atomic
    from biblios_kit.resources import user_data_dir

    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = user_data_dir() / "crash-reports" / f"crash-{stamp}-{os.getpid()}.txt"
    header = f"biblios-kit {sys.argv[1:]!r}\n"
    try:
        write_text_atomic(path, header + details)
    except OSError:
        print(details, file=sys.stderr)
        return "<stderr>"
    return str(path)
