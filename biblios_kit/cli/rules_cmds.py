"""CLI commands ``rules list``, ``rules validate`` and ``rules schema``: thin wrappers over :mod:`biblios_kit.rules`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from biblios_kit.cli.common import USAGE_ERROR, LangOption, start
from biblios_kit.i18n import _, format_list, ngettext, pgettext


def register(app: typer.Typer) -> None:
    """Add ``list``, ``validate`` and ``schema`` to the ``rules`` command group."""
    app.command("list", help=_("List the shipped editions, variants and your own rulesets, with their options."))(
        list_rulesets
    )
    app.command("validate", help=_("Check ruleset files and print every problem as file:line:column: field: message."))(
        validate
    )
    app.command("schema", help=_("Print the JSON Schema of the ruleset format."))(schema)


def _text(value: Any, lang: str) -> str:
    if isinstance(value, dict):
        return str(value.get(lang) or value.get("en") or "")
    return ""


def list_rulesets(lang: LangOption = None) -> None:
    """List every ruleset found by id, grouped by origin, with its options and the user folder."""
    lang = start(lang)
    from biblios_kit.errors import RulesetError
    from biblios_kit.resources import user_rulesets_dir
    from biblios_kit.rules.loader import available_rulesets, compose, ruleset_files
    from biblios_kit.rules.source import display_path

    entries = available_rulesets()
    headings = {"edition": _("Editions:"), "variant": _("Shipped variants:"), "user": _("Your rulesets:")}
    seen: set[str] = set()
    for origin, heading in headings.items():
        group = [entry for entry in entries if entry.origin == origin]
        typer.echo(heading)
        if origin == "user":
            typer.echo("  " + _("folder: {path}").format(path=user_rulesets_dir()))
        if not group:
            typer.echo("  " + pgettext("no rulesets", "(none)"))
        for entry in group:
            names = (
                _("{id} ({aliases})").format(id=entry.id, aliases=format_list(entry.aliases))
                if entry.aliases
                else entry.id
            )
            try:
                composed = compose(entry.path)
            except RulesetError:
                typer.echo(
                    f"  {names}  "
                    + _("[invalid: run 'biblios-kit rules validate {path}']").format(path=display_path(entry.path))
                )
                continue
            document = composed.document
            line = f"  {names}  {_text(document.get('title'), lang)}"
            if composed.chain:
                line += "  " + _("(extends {chain})").format(chain=" > ".join(composed.chain))
            if entry.id in seen:
                line += "  " + _("[hidden by an earlier ruleset with the same id]")
            seen.add(entry.id)
            typer.echo(line)
            typer.echo("    " + display_path(entry.path))
            options = document.get("options")
            for option_id, body in options.items() if isinstance(options, dict) else ():
                state = _("on by default") if isinstance(body, dict) and body.get("default") else _("off by default")
                title = _text(body.get("title"), lang) if isinstance(body, dict) else ""
                typer.echo("    " + _("option {id}: {title} ({state})").format(id=option_id, title=title, state=state))
    found = {entry.path for entry in entries if entry.origin == "user"}
    broken = [path for path in ruleset_files(user_rulesets_dir()) if path.resolve() not in found]
    for path in broken:
        typer.echo("  " + _("[unreadable: run 'biblios-kit rules validate {path}']").format(path=path))


def _target(name: str) -> tuple[Path | None, str]:
    """The file to validate for a command-line argument (a path, or else a ruleset id or alias)."""
    from biblios_kit.errors import UnknownRulesetError
    from biblios_kit.rules.loader import resolve_ruleset
    from biblios_kit.rules.source import display_path

    path = Path(name)
    if path.exists():
        return path, name
    try:
        found = resolve_ruleset(name)
    except UnknownRulesetError:
        return None, name
    return found, display_path(found)


def validate(
    paths: Annotated[
        list[str],
        typer.Argument(
            help=_("Ruleset files, folders of them, or ids of known rulesets to check."), show_default=False
        ),
    ],
    lang: LangOption = None,
) -> None:
    """Check each ruleset file; print every problem on stderr (exit status 2) or an OK line per file."""
    start(lang)
    from biblios_kit.errors import Problem
    from biblios_kit.rules.loader import check_file, ruleset_files

    targets: list[tuple[Path | None, str]] = []
    for name in paths:
        path, shown = _target(name)
        if path is not None and path.is_dir():  # a folder: its *.yaml and *.yml files
            targets += [(file, str(Path(name) / file.name)) for file in ruleset_files(path)] or [(path, shown)]
        else:
            targets.append((path, shown))
    total = 0
    bad_files = 0
    for path, shown in targets:
        if path is None:
            problems = [Problem(shown, 0, 0, "", "no-such-ruleset")]
        elif path.is_dir():
            problems = [Problem(shown, 0, 0, "", "empty-folder")]
        else:
            problems = check_file(path, shown)
        if problems:
            bad_files += 1
            total += len(problems)
            for problem in problems:
                print(problem, file=sys.stderr)
        else:
            typer.echo(_("{file}: OK").format(file=shown))
    if total:
        print(
            ngettext("{count} problem", "{count} problems", total).format(count=total)
            + " "
            + ngettext("in {files} file", "in {files} files", bad_files).format(files=bad_files),
            file=sys.stderr,
        )
        raise typer.Exit(USAGE_ERROR)


def schema(
    variant: Annotated[
        bool,
        typer.Option(
            "--variant",
            help=_("Print the schema of variant files instead: every field optional, null where it removes an entry."),
        ),
    ] = False,
    lang: LangOption = None,
) -> None:
    """Print the packaged JSON Schema of a full ruleset, or with ``--variant`` that of a variant file."""
    start(lang)
    from biblios_kit.rules.schema import SCHEMA_PATH, VARIANT_SCHEMA_PATH

    sys.stdout.write((VARIANT_SCHEMA_PATH if variant else SCHEMA_PATH).read_text(encoding="utf-8"))
