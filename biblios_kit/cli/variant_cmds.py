"""CLI command ``variant new``: write a commented house-rule file that extends a ruleset and validates as written."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Annotated, Any

import typer

from biblios_kit.cli.common import LangOption, error_prefix, fail, start
from biblios_kit.i18n import _

_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")  # the schema's id pattern (kept here so no schema load is needed)

# Title and description of a new variant in each language a ruleset carries (data, not UI text).
_TITLES = {
    "en": "{title} (house rules: {name})",
    "fr": "{title} (règles maison\u202f: {name})",
    "es": "{title} (reglas de la casa: {name})",
}
_DESCRIPTIONS = {
    "en": "House rules based on {title}.",
    "fr": "Règles maison fondées sur {title}.",
    "es": "Reglas de la casa basadas en {title}.",
}


def register(app: typer.Typer) -> None:
    """Add ``new`` to the ``variant`` command group."""
    app.command("new", help=_("Write a new house-rule variant file that extends a ruleset."))(new_variant)


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a valid double-quoted YAML scalar


def _comment(text: str) -> list[str]:
    return [f"# {line}".rstrip() for line in text.splitlines()]


def variant_text(name: str, extends: str, base: dict[str, Any], schema_uri: str) -> str:
    """The YAML text of a new variant ``name`` extending ``extends`` (whose merged document is ``base``)."""
    title_field = base.get("title")
    titles = title_field if isinstance(title_field, dict) else {}
    lines = [f"# yaml-language-server: $schema={schema_uri}"]
    lines += _comment(
        _("House-rule variant {name!r} of {base!r}. Say here, in words, what your house rule changes.").format(
            name=name, base=base.get("id", extends)
        )
    )
    lines += _comment(
        _(
            "Every field not written here is taken from the ruleset named by 'extends'.\n"
            "Mappings merge key by key, 'null' removes a key, a list replaces the whole list.\n"
            "Field reference: docs/rulesets.md. Check the file with: biblios-kit rules validate FILE"
        )
    )
    lines += [f"extends: {_quoted(extends)}", f"id: {name}", 'version: "1.0"', "title:"]
    for lang in ("en", "fr", "es"):
        title = str(titles.get(lang) or base.get("id", extends))
        lines.append(f"  {lang}: {_quoted(_TITLES[lang].format(title=title, name=name))}")
    lines.append("description:")
    for lang in ("en", "fr", "es"):
        title = str(titles.get(lang) or base.get("id", extends))
        lines.append(f"  {lang}: {_quoted(_DESCRIPTIONS[lang].format(title=title))}")
    lines.append("")
    lines += _comment(_("Examples: remove the '#' in front of the lines you want, then change the values."))
    players = sorted(base.get("setup", {}) if isinstance(base.get("setup"), dict) else {}, key=int)
    examples = [
        "auction:",
        "  overpay: forbidden      # " + _("Gold paid must match the bid exactly"),
        "  all_pass: active-takes  # " + _("a card nobody bids on goes to the active player"),
        "  ceiling: {gold: hand, cards: hand}  # " + _("nobody may bid more than they can pay"),
        "penalty:",
        "  kind: none              # " + _("no penalty for a winner who cannot pay"),
    ]
    if players:
        examples += [
            "setup:",
            f"  {players[-1]}:",
            "    starting_hand: 1      # " + _("each player starts with one hidden card"),
            "    starting_cards: [{kind: gold, value: 1, count: 1}]  # "
            + _("and with a Gold 1, dealt face up before it"),
        ]
    lines += [f"# {line}" for line in examples]
    return "\n".join(lines) + "\n"


def new_variant(
    name: Annotated[
        str,
        typer.Argument(help=_("Id of the new variant (lowercase letters, digits and hyphens)."), show_default=False),
    ],
    base: Annotated[str, typer.Option("--from", help=_("Ruleset to extend: id, alias or path."))] = "biblios",
    path: Annotated[
        Path | None,
        typer.Option("--path", help=_("File (or folder) to write; default: your rulesets folder."), show_default=False),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help=_("Overwrite an existing file."))] = False,
    lang: LangOption = None,
) -> None:
    """Write ``NAME.yaml`` extending ``--from`` and check that it validates as written."""
    start(lang)
    from biblios_kit.errors import RulesetError, UnknownRulesetError
    from biblios_kit.resources import user_rulesets_dir
    from biblios_kit.rules.loader import available_rulesets, check_file, compose, resolve_ruleset
    from biblios_kit.rules.schema import SCHEMA_PATH, unknown_name_message

    if not _ID.match(name):
        fail(
            f"{error_prefix()} "
            + _(
                "{name!r} is not a valid id: use lowercase letters, digits and hyphens, starting with a letter or digit"
            ).format(name=name)
        )
    try:
        base_path = resolve_ruleset(base)
    except UnknownRulesetError as error:
        fail(f"{error_prefix()} --from: " + unknown_name_message(_("ruleset"), base, error.known))
    try:
        composed = compose(base_path)
    except RulesetError as error:
        fail(
            f"{error_prefix()} " + _("the ruleset to extend has problems:") + "\n" + "\n".join(map(str, error.problems))
        )

    if path is None:
        target = user_rulesets_dir() / f"{name}.yaml"
    elif path.is_dir():
        target = path / f"{name}.yaml"
    else:
        target = path
    if target.suffix not in (".yaml", ".yml"):
        fail(f"{error_prefix()} " + _("{path}: a ruleset file name must end in .yaml").format(path=target))
    if target.exists() and not force:
        fail(f"{error_prefix()} " + _("{path} already exists; add --force to overwrite it").format(path=target))
    entries = available_rulesets()
    for entry in entries:
        if (entry.id == name or name in entry.aliases) and (not target.exists() or not entry.path.samefile(target)):
            fail(
                f"{error_prefix()} " + _("the id {name!r} is already used by {path}").format(name=name, path=entry.path)
            )

    # By id when the base is found by id (it then moves with its folder); else a path relative to the new file.
    by_id = any(entry.path == base_path for entry in entries) and isinstance(composed.document.get("id"), str)
    if by_id:
        extends = str(composed.document["id"])
    else:
        extends = Path(
            os.path.relpath(base_path, target.parent.resolve() if target.parent.exists() else target.parent.absolute())
        ).as_posix()
    text = variant_text(name, extends, composed.document, SCHEMA_PATH.as_uri())
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as error:
        fail(
            f"{error_prefix()} "
            + _("cannot write {path}: {reason}").format(path=target, reason=error.strerror or error)
        )
    problems = check_file(target)
    if problems:
        fail("\n".join(map(str, problems)))
    typer.echo(_("wrote {path}").format(path=target))
