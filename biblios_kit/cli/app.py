"""The ``biblios-kit`` Typer application: command groups, registration, and the error boundary."""

from __future__ import annotations

import sys

import typer

from biblios_kit.errors import BibliosError

app = typer.Typer(
    name="biblios-kit",
    help="Biblios and Scripts & Scribes: rulesets, rulebooks, simulations and a terminal game.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
rules_app = typer.Typer(help="Look up, check and compare rulesets.", no_args_is_help=True)
variant_app = typer.Typer(help="Write house-rule variants.", no_args_is_help=True)
app.add_typer(rules_app, name="rules")
app.add_typer(variant_app, name="variant")


def _register() -> None:
    # Each module adds its commands; they keep heavy imports inside the command bodies.
    from biblios_kit.cli import play_cmds, replay_cmds, rulebook_cmds, rules_cmds, simulate_cmds, variant_cmds

    rules_cmds.register(rules_app)
    rulebook_cmds.register(rules_app)
    variant_cmds.register(variant_app)
    replay_cmds.register(app)
    simulate_cmds.register(app)
    play_cmds.register(app)


_register()


def main() -> None:
    """Entry point of the ``biblios-kit`` command: library errors become a message and exit status 2."""
    try:
        app()
    except BibliosError as error:
        from biblios_kit.i18n import _

        print(f"{_('error:')} {error}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
