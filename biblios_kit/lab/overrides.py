"""``--set FIELD=V1,V2,...``: the rulesets of a sweep, each value applied as a variant of the swept ruleset.

A field is named by its path in the ruleset format, dots between the parts (``dice.0.start``,
``setup.3.gift_cards``, ``gold.2``); list items are numbered from 0. A value is read as YAML, so
a field holding a mapping or a list takes one in flow style (``categories.monks.cards={2: ABCD,
3: EFG, 4: I, 5: H}`` makes Monks card H worth 5); commas inside brackets do not separate values. Each value (or each
combination of values, with several ``--set``) becomes a small variant file that ``extends`` the
swept ruleset, loaded like any variant: merged by :func:`~biblios_kit.rules.merge.deep_merge`
(a list is written out whole, with the one item changed, since lists replace), then checked by
the JSON Schema and the semantic checks. An invalid value is reported with its checker's
message and skipped; a field that does not exist is an error.
"""

from __future__ import annotations

import copy
import itertools
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from biblios_kit.bounded import count_of
from biblios_kit.errors import BibliosError, RulesetError
from biblios_kit.i18n import _
from biblios_kit.rules.model import Ruleset


class SetError(BibliosError, ValueError):
    """A ``--set`` that is malformed or names a field the ruleset does not have."""


@dataclass(frozen=True)
class Setting:
    """One ``--set``: a field path and the values to try."""

    text: str
    """The field as given (``dice.0.start``)."""
    path: tuple[str | int, ...]
    """The field's path in the ruleset document (list indices as ints, mapping keys as found)."""
    values: tuple[Any, ...]
    texts: tuple[str, ...]
    """The values as given."""


def _string_keys(value: Any) -> Any:
    """``value`` with every mapping key as a string, as the ruleset loader reads documents."""
    if isinstance(value, dict):
        return {str(key): _string_keys(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_string_keys(item) for item in value]
    return value


def _parse_value(text: str) -> Any:
    """A value as YAML reads it (``3`` an int, ``true`` a boolean, ``ABCD`` a string, ``{2: AB}`` a mapping).

    Text that YAML cannot read, or whose tag cannot build a value (``!!timestamp x``, ``2024-02-30``,
    ``!!int x``), stays text: the sweep's checks then refuse it at that field like any other wrong value.
    """
    try:
        return _string_keys(yaml.safe_load(text))
    except (yaml.YAMLError, ValueError, TypeError, AttributeError, OverflowError, RecursionError):
        return text


def _known(node: Any) -> str:
    if isinstance(node, dict):
        return ", ".join(str(k) for k in node)
    if isinstance(node, list):
        return f"0..{len(node) - 1}" if node else "-"
    return "-"


def _step(node: Any, part: str, field: str) -> tuple[Any, str | int]:
    """The child of ``node`` named ``part`` and its key; raise :class:`SetError` if there is none."""
    number = count_of(part.removeprefix("-"))
    if number is not None and part.startswith("-"):
        number = -number
    if isinstance(node, dict):
        for key in (part, number):
            if key is not None and key in node:
                return node[key], key
    elif isinstance(node, list) and number is not None and 0 <= number < len(node):
        return node[number], number
    raise SetError(
        _("--set {field}: the ruleset has no field {part!r} here (known: {known})").format(
            field=field, part=part, known=_known(node)
        )
    )


def parse_setting(text: str, document: dict[str, Any]) -> Setting:
    """Parse ``FIELD=V1,V2,...`` against the swept ruleset's ``document``; raise :class:`SetError`."""
    field, sep, raw = text.partition("=")
    field = field.strip()
    if not sep or not field or not raw.strip():
        raise SetError(_("--set expects FIELD=VALUE[,VALUE...], got {text!r}").format(text=text))
    node: Any = document
    path: list[str | int] = []
    # ``dice[0].start`` (how checkers print paths) means ``dice.0.start``.
    for part in field.replace("[", ".").replace("]", "").split("."):
        node, key = _step(node, part.strip(), field)
        path.append(key)
    texts = tuple(v.strip() for v in split_values(raw) if v.strip())
    if not texts:
        raise SetError(_("--set expects FIELD=VALUE[,VALUE...], got {text!r}").format(text=text))
    return Setting(field, tuple(path), tuple(_parse_value(v) for v in texts), texts)


def split_values(raw: str) -> list[str]:
    """Split ``V1,V2,...`` at the commas outside YAML brackets (``{2: AB, 3: C},{2: A, 3: BC}`` is two values)."""
    values: list[str] = []
    depth = 0
    current: list[str] = []
    for char in raw:
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth = max(0, depth - 1)
        if char == "," and depth == 0:
            values.append("".join(current))
            current = []
        else:
            current.append(char)
    values.append("".join(current))
    return values


def _replacing(old: Any, new: Any) -> Any:
    """``new`` as a patch that replaces ``old``: mappings merge, so keys ``new`` drops are deleted (``None``)."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return new
    dropped: dict[Any, Any] = {key: None for key in old if key not in new}
    return {**dropped, **{key: _replacing(old.get(key), item) for key, item in new.items()}}


def patch_for(document: dict[str, Any], assignments: Iterable[tuple[tuple[str | int, ...], Any]]) -> dict[str, Any]:
    """The variant patch that sets each (path, value) of ``document``.

    Mappings merge, so a mapping field is patched by nested mappings (a mapping value replacing a
    mapping deletes the keys it drops); lists replace, so a field inside a list is patched by
    writing the whole list (copied from ``document``) with that item changed.
    """
    patch: dict[str, Any] = {}
    for path, value in assignments:
        cut = len(path)  # the path up to the first list (excluded leaf), written as nested mappings
        source: Any = document
        for i, key in enumerate(path[:-1]):
            source = source[key]
            if isinstance(source, list):
                cut = i + 1
                break
        if cut == len(path) and isinstance(source, dict):
            value = _replacing(source[path[-1]], value)
        head, tail = path[:cut], path[cut:]
        node: Any = patch
        source = document
        for key in head[:-1]:
            node = node.setdefault(key, {})
            source = source[key]
        last = head[-1]
        if not tail:
            node[last] = value
            continue
        if last not in node:
            node[last] = copy.deepcopy(source[last])
        target = node[last]
        for key in tail[:-1]:
            target = target[key]
        target[tail[-1]] = value
    return patch


@dataclass(frozen=True)
class SweepPoint:
    """One combination of values: its label, the values by field, and the loaded ruleset."""

    label: str
    values: dict[str, str]
    ruleset: Ruleset


def sweep_rulesets(
    name: str, options: Sequence[str], settings_text: Sequence[str]
) -> tuple[list[SweepPoint], list[str]]:
    """The rulesets of a sweep of ruleset ``name`` (with ``options``) and the messages of the skipped values.

    Raises :class:`~biblios_kit.errors.UnknownRulesetError` or :class:`RulesetError` for the swept
    ruleset itself and :class:`SetError` for a malformed ``--set`` or an unknown field.
    """
    from biblios_kit.rules.loader import compose, load_ruleset, resolve_ruleset

    base_path = resolve_ruleset(name)
    base = load_ruleset(base_path, options)  # the swept ruleset must load as it is
    document = compose(base_path).document
    settings = [parse_setting(text, document) for text in settings_text]
    fields = [s.text for s in settings]
    if len(set(fields)) != len(fields):
        raise SetError(_("--set names the same field twice"))
    points: list[SweepPoint] = []
    skipped: list[str] = []
    with tempfile.TemporaryDirectory(prefix="biblios-lab-") as folder:
        combos = itertools.product(*(range(len(s.values)) for s in settings))
        for number, combo in enumerate(combos):
            chosen = {s.text: s.texts[i] for s, i in zip(settings, combo)}
            shown = ", ".join(f"{field}={value}" for field, value in chosen.items())
            variant: dict[str, Any] = {
                "extends": str(base_path),
                "id": f"{base.id}-sweep-{number}",
                "title": dict(document["title"]),
                "description": dict(document["description"]),
            }
            variant.update(patch_for(document, [(s.path, s.values[i]) for s, i in zip(settings, combo)]))
            path = Path(folder) / f"sweep-{number}.yaml"
            path.write_text(yaml.safe_dump(variant, allow_unicode=True, sort_keys=False), encoding="utf-8")
            try:
                ruleset = load_ruleset(path, options)
            except RulesetError as error:
                for problem in error.problems:
                    skipped.append(
                        _("--set {values}: {field}: {message} (skipped)").format(
                            values=shown, field=problem.path or "-", message=problem.message
                        )
                    )
                continue
            points.append(SweepPoint(f"{base.id} {shown}", chosen, ruleset))
    return points, skipped
