"""CLI commands ``variant new`` (a commented house-rule file that validates as written) and ``rules explain``.

``variant new`` writes a variant with commented examples of the most wanted edits, each
valid when uncommented; ``rules explain FILE`` prints, in the user's language, just the
rules the variant changes from the ruleset it extends (:mod:`biblios_kit.rulebook.explain`).
"""

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


def register_explain(app: typer.Typer) -> None:
    """Add ``explain`` to the ``rules`` command group."""
    app.command(
        "explain", help=_("Show, in your language, just the rules a variant changes from the ruleset it extends.")
    )(explain_variant)


def explain_variant(
    variant: Annotated[str, typer.Argument(help=_("The variant: a file, or the id of a variant."), show_default=False)],
    full: Annotated[
        bool, typer.Option("--full", help=_("Also print each rulebook section concerned, as the variant has it."))
    ] = False,
    lang: LangOption = None,
) -> None:
    """Print the rules VARIANT changes from the ruleset it extends, section by section."""
    code = start(lang)
    from biblios_kit.cli.rulebook_cmds import load
    from biblios_kit.errors import RulesetError, UnknownRulesetError
    from biblios_kit.rulebook.explain import explain_changes, explain_text
    from biblios_kit.rules.loader import read_document, resolve_ruleset
    from biblios_kit.rules.schema import unknown_name_message

    try:
        path = resolve_ruleset(variant)
        parent = read_document(path).get("extends")
        if not isinstance(parent, str) or not parent:
            fail(
                f"{error_prefix()} "
                + _("{name} extends no ruleset; compare two rulesets with: biblios-kit rules diff A B").format(
                    name=variant
                )
            )
        base_path = resolve_ruleset(parent, relative_to=path.parent)
    except UnknownRulesetError as error:
        fail(f"{error_prefix()} " + unknown_name_message(_("ruleset"), error.name, error.known))
    except RulesetError as error:
        fail(f"{error_prefix()} " + "\n".join(map(str, error.problems)))
    changed = load(str(path), [])
    base = load(str(base_path), [])
    changes = explain_changes(base, changed, code)
    from biblios_kit.rulebook.describe import ruleset_label

    base_label, changed_label = ruleset_label(base, code), ruleset_label(changed, code)
    if base_label == changed_label:  # two rulesets with one title: their ids tell them apart
        base_label, changed_label = base.id, changed.id
    typer.echo(explain_text(changes, base_label, changed_label, code, full=full), nl=False)


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a valid double-quoted YAML scalar


def _comment(text: str) -> list[str]:
    return [f"# {line}".rstrip() for line in text.splitlines()]


def _inline(lines: list[tuple[str, str]]) -> list[str]:
    """YAML lines with their explanations aligned in one column of ``# ...`` comments."""
    width = max(len(code) for code, _note in lines) + 2
    return [f"{code.ljust(width)}# {note}" if note else code for code, note in lines]


def _flow(mapping: dict[str, Any]) -> str:
    """A small mapping as a YAML flow mapping (``{place: 1, start: 3}``)."""
    return "{" + ", ".join(f"{key}: {value}" for key, value in mapping.items()) + "}"


def _schema_features(schema: dict[str, Any]) -> dict[str, Any]:
    """What the installed ruleset schema accepts beyond the first format (examples are written only for those)."""
    defs = schema.get("$defs", {})
    setup = defs.get("setup", {}).get("properties", {})
    church = schema.get("properties", {}).get("church", {}).get("properties", {})
    ceilings = [
        choice["const"]
        for choice in defs.get("ceiling", {}).get("anyOf", [])
        if isinstance(choice, dict) and isinstance(choice.get("const"), str) and choice["const"] != "deck"
    ]
    return {
        "starting_cards": "starting_cards" in setup,
        "targets_by_place": "targets" in church.get("cards", {}).get("additionalProperties", {}).get("properties", {}),
        "payable_ceiling": ceilings[0] if ceilings else None,
        "scoring_as_data": "bonus" in schema.get("properties", {}).get("scoring", {}).get("properties", {}),
    }


def _other(value: str, choices: tuple[str, ...]) -> str:
    """The first of ``choices`` that is not ``value`` (an example changes something)."""
    return next(choice for choice in choices if choice != value)


def template_examples(base: dict[str, Any], schema: dict[str, Any]) -> list[tuple[str, list[str], list[str]]]:
    """The commented examples of a new variant of ``base``: (top-level key, explanation, YAML lines).

    Each example is valid merged over ``base`` on its own and together with the others
    (one example per top-level key). Examples of fields the installed schema does not know
    are left out.
    """
    features = _schema_features(schema)
    examples: list[tuple[str, list[str], list[str]]] = []

    dice = [die for die in base.get("dice", []) if isinstance(die, dict)]
    if dice and len(dice) < 6:
        place = max(int(die["place"]) for die in dice) + 1
        last = dice[-1]
        start = max(int(last["min"]), int(last["start"]) - 1)
        new_die = {"place": place, "start": start, "min": last["min"], "max": last["max"]}
        lines = [("dice:", "")] + [(f"  - {_flow(die)}", "") for die in dice]
        lines.append((f"  - {_flow(new_die)}", _("the player in place {place} scores this die").format(place=place)))
        examples.append(
            (
                "dice",
                _(
                    "Award dice of every category: one more die, for the runner-up (second-place dice).\n"
                    "A list replaces the whole list: keep the dice you want and change start, min or max."
                ).splitlines(),
                _inline(lines),
            )
        )

    categories = base.get("categories")
    if isinstance(categories, dict) and categories and dice:
        category = list(categories)[-1]
        first = dice[0]
        start = int(first["start"]) + 1 if int(first["start"]) < int(first["max"]) else int(first["start"]) - 1
        own = {"place": 1, "start": start, "min": first["min"], "max": first["max"]}
        examples.append(
            (
                "categories",
                [_("One category with an award die of its own, starting at {start}.").format(start=start)],
                _inline(
                    [("categories:", ""), (f"  {category}:", ""), ("    dice:", ""), (f"      - {_flow(own)}", "")]
                ),
            )
        )

    church = base.get("church")
    if isinstance(church, dict) and isinstance(church.get("cards"), dict) and church["cards"]:
        effects = list(church["cards"].items())
        lines = [
            ("church:", ""),
            (
                f"  optional: {'false' if church.get('optional', True) else 'true'}",
                _("may the owner decline to use the card"),
            ),
        ]
        target = _other(str(church.get("targets")), ("first-place", "any"))
        lines.append((f"  targets: {target}", "any | first-place: " + _("which dice the cards may move")))
        lines.append(("  cards:", ""))
        names = base.get("terms", {}).get("church_cards", {}) if isinstance(base.get("terms"), dict) else {}
        removed = effects[0][0] if len(effects) > 1 else None
        if removed is not None:
            lines.append((f"    {removed}: null", _("no more cards with this effect")))
        effect, body = effects[-1]
        changed = {"count": int(body["count"]) + 1, "signs": body["signs"], "dice": body["dice"]}
        flow = "{" + f"count: {changed['count']}, signs: {json.dumps(changed['signs'])}, dice: {changed['dice']}" + "}"
        lines.append(
            (
                f"    {effect}: {flow}",
                _("{count} cards instead of {before}").format(count=changed["count"], before=body["count"]),
            )
        )
        if features["targets_by_place"] and len(effects) > 2:
            named, named_body = effects[-2]
            flow = f"{{count: {named_body['count']}, signs: {json.dumps(named_body['signs'])}, dice: 2,"
            lines += [
                (f"    {named}: {flow}", _("the award place of each die: one first-place die,")),
                ("      targets: [{place: 1}, {place: 1, optional: true}]}", _("and a second if its owner wishes")),
            ]
        if removed is not None and isinstance(names, dict) and removed in names:
            lines += [("terms:", ""), (f"  church_cards: {{{removed}: null}}", _("its name goes with it"))]
        examples.append(
            (
                "church",
                _(
                    "Die-changing cards: remove the cards of an effect ('null'), change how many there are\n"
                    "and what they may do."
                ).splitlines(),
                _inline(lines),
            )
        )

    setup = base.get("setup")
    if isinstance(setup, dict) and setup:
        counts = sorted(int(count) for count in setup)
        players = counts[-1] + 1
        if players <= 10:
            from biblios_kit.rules.checks import deck_cards

            gift = players + 1
            deck = len(deck_cards(base))
            lines = [
                ("setup:", ""),
                (f"  {players}:", ""),
                ("    remove: []", _("cards of a kind removed face down:") + " [{kind: gold, value: 1, count: 1}]"),
                (f"    remove_random: {deck % gift}", _("then this many cards at random")),
                ("    starting_hand: 0", _("cards dealt to each player before play")),
            ]
            if features["starting_cards"]:
                lines.append(("    starting_cards: [{kind: gold, value: 1}]", _("named cards each player starts with")))
            lines += [
                (f"    gift_cards: {gift}", _("cards drawn per gift turn")),
                ("    short_draw: play-out", "play-out | discard: " + _("when the last turn is short")),
            ]
            examples.append(
                (
                    "setup",
                    [_("A new player count with its setup (here {players} players).").format(players=players)],
                    _inline(lines),
                )
            )

    auction = base.get("auction")
    if isinstance(auction, dict):
        starts = _other(str(auction.get("bidding_starts")), ("active", "left-of-active"))
        overpay = _other(str(auction.get("overpay")), ("forbidden", "lost"))
        all_pass = _other(str(auction.get("all_pass")), ("active-takes", "discard"))
        refuse = "false" if auction.get("refuse_to_pay") else "true"
        ceiling = features["payable_ceiling"] or max(10, 2 * (int(auction.get("opening_bid", 1)) + 1))
        lines = [
            ("auction:", ""),
            (f"  bidding_starts: {starts}", "left-of-active | active: " + _("who bids first on a revealed card")),
            (f"  opening_bid: {int(auction.get('opening_bid', 1)) + 1}", _("the lowest first bid")),
            (f"  overpay: {overpay}", "lost | forbidden: " + _("paying more than the bid")),
            (f"  all_pass: {all_pass}", "discard | active-takes: " + _("a card nobody bids on")),
            (f"  refuse_to_pay: {refuse}", _("may a winner who could pay refuse and take the penalty")),
            (f"  ceiling: {{gold: {ceiling}}}", _("the highest bid")),
        ]
        examples.append(("auction", [_("The auction switches.")], _inline(lines)))

    penalty = base.get("penalty")
    if isinstance(penalty, dict):
        kind = _other(str(penalty.get("kind")), ("none", "standard", "medieval-bluff"))
        exclude = "false" if penalty.get("exclude_from_reauction") else "true"
        lines = [
            ("penalty:", ""),
            (f"  kind: {kind}", "standard | medieval-bluff | none"),
            (f"  exclude_from_reauction: {exclude}", _("is the penalized player out of the re-auction of the card")),
        ]
        examples.append(("penalty", [_("The penalty of an auction winner who does not pay.")], _inline(lines)))

    scoring = base.get("scoring")
    if (
        features["scoring_as_data"]
        and isinstance(scoring, dict)
        and isinstance(categories, dict)
        and len(categories) >= 2
    ):
        tie = _other(str(scoring.get("category_tie")), ("nobody", "earliest-letter"))
        pair = ", ".join(list(categories)[:2])
        lines = [
            ("scoring:", ""),
            (f"  category_tie: {tie}", "earliest-letter | nobody: " + _("a tie on a category total")),
            (
                "  points: die-times-cards",
                "die | die-times-cards | die-times-value: " + _("what an award die is worth"),
            ),
            (f"  bonus: [{{categories: [{pair}], points: 2}}]", _("extra points for winning every category of a set")),
            (
                "  final_tiebreak: [{most: cards, kind: gold}, {fewest: cards}]",
                _("ties: the most Gold cards, then the fewest cards"),
            ),
        ]
        examples.append(("scoring", [_("How categories and the game are won.")], _inline(lines)))
    return examples


def example_blocks(lines: list[str]) -> list[tuple[int, int]]:
    """The (first, end) line ranges of a template's examples: a ``## `` line, then its ``# `` lines."""
    blocks = []
    index = 0
    while index < len(lines):
        if lines[index].startswith("## "):
            end = index
            while end < len(lines) and lines[end].startswith("#"):
                end += 1
            blocks.append((index, end))
            index = end
        else:
            index += 1
    return blocks


def uncomment(lines: list[str], blocks: list[tuple[int, int]]) -> str:
    """The template with the YAML lines of ``blocks`` uncommented (what a user does to use an example)."""
    result = list(lines)
    for first, end in blocks:
        for number in range(first, end):
            if result[number].startswith("# "):
                result[number] = result[number][2:]
    return "\n".join(result) + "\n"


def keep_valid_examples(text: str, target: Path) -> str:
    """``text`` without the examples that would not validate uncommented (a base the examples do not fit).

    Each example is checked on its own, uncommented, in a hidden temporary file next to
    ``target`` (so that a relative ``extends`` resolves as it will); the file is removed.
    """
    from biblios_kit.rules.loader import check_file

    lines = text.splitlines()
    blocks = example_blocks(lines)
    probe = target.with_name(f".{target.stem}.example.tmp")
    dropped: list[tuple[int, int]] = []
    try:
        for block in blocks:
            probe.write_text(uncomment(lines, [block]), encoding="utf-8")
            if check_file(probe, str(target)):
                dropped.append(block)
    finally:
        probe.unlink(missing_ok=True)
    for first, end in reversed(dropped):
        del lines[first - 1 if first and not lines[first - 1] else first : end]  # with the blank line before it
    return "\n".join(lines) + "\n"


def variant_text(name: str, extends: str, base: dict[str, Any], schema_uri: str,
                 schema: dict[str, Any] | None = None) -> str:  # fmt: skip
    """The YAML text of a new variant ``name`` extending ``extends`` (whose merged document is ``base``).

    ``schema`` is the ruleset schema (the installed one by default): examples are written
    only for the fields it knows.
    """
    from biblios_kit.rules.schema import SCHEMA_PATH, VARIANT_SCHEMA_LINE

    if schema is None:
        schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    title_field = base.get("title")
    titles = title_field if isinstance(title_field, dict) else {}
    lines = [VARIANT_SCHEMA_LINE.format(uri=schema_uri)]
    lines += _comment(
        _("House-rule variant {name!r} of {base!r}. Say here, in words, what your house rule changes.").format(
            name=name, base=base.get("id", extends)
        )
    )
    lines += _comment(
        _(
            "Every field not written here is taken from the ruleset named by 'extends'.\n"
            "Mappings merge key by key, 'null' removes a key, a list replaces the whole list.\n"
            "Every field, what it means and its values:  biblios-kit rules schema\n"
            "Check this file:                            biblios-kit rules validate FILE\n"
            "The rules it changes, in your language:     biblios-kit rules explain FILE"
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
    lines += _comment(
        _(
            "Examples. Each one starts with '##'. To use one, remove the '# ' at the start of its\n"
            "other lines, then change the values. Each example is valid on its own and with the others."
        )
    )
    for _key, explanation, code in template_examples(base, schema):
        lines.append("")
        lines += [f"## {line}" for line in explanation]
        lines += [f"# {line}" for line in code]
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
    from biblios_kit.atomic import write_text_atomic
    from biblios_kit.errors import RulesetError, UnknownRulesetError
    from biblios_kit.messages import unknown_name_message
    from biblios_kit.resources import user_rulesets_dir
    from biblios_kit.rules.loader import available_rulesets, check_file, compose, resolve_ruleset
    from biblios_kit.rules.schema import VARIANT_SCHEMA_PATH

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
        fail(f"{error_prefix()} --from: " + unknown_name_message("ruleset", base, error.known))
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
    text = variant_text(name, extends, composed.document, VARIANT_SCHEMA_PATH.as_uri())
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        text = keep_valid_examples(text, target)
        write_text_atomic(target, text)
    except OSError as error:
        fail(
            f"{error_prefix()} "
            + _("cannot write {path}: {reason}").format(path=target, reason=error.strerror or error)
        )
    problems = check_file(target)
    if problems:
        fail("\n".join(map(str, problems)))
    typer.echo(_("wrote {path}").format(path=target))
