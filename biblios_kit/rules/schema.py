"""The ruleset JSON Schema: load it, validate documents, and turn errors into issues (codes and fields).

Nothing here makes a sentence: an :class:`~biblios_kit.rules.source.Issue` carries a code and
fields (the value, what was expected as a :class:`~biblios_kit.errors.Hint`), and
:mod:`biblios_kit.messages` makes the text in the user's language.
"""

from __future__ import annotations

import datetime
import difflib
import json
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from biblios_kit.errors import Hint
from biblios_kit.rules.source import FieldPath, Issue

SCHEMA_PATH = Path(__file__).resolve().parent / "ruleset.schema.json"
"""The packaged schema file (draft 2020-12)."""

VARIANT_SCHEMA_PATH = Path(__file__).resolve().parent / "variant.schema.json"
"""The packaged schema for variant files (derived from the ruleset schema by :func:`variant_schema`)."""
VARIANT_SCHEMA_LINE = "# yaml-language-server: $schema={uri}"
"""The first line of a variant file, for editors; ``uri`` is the variant schema's address
(``VARIANT_SCHEMA_PATH.as_uri()`` for a file written by ``variant new``, a relative path in ``rulesets/variants/``)."""
VARIANT_OWN_FIELDS = ("extends", "id", "title", "description")
"""Fields every variant file sets itself (never inherited)."""

SHOWN_LENGTH = 60
"""Longest text quoted in a message; a longer one is cut (a hostile file can hold a megabyte)."""
ID_PATTERN = "^[a-z0-9][a-z0-9-]*$"
NUMBER_PATTERN = "^[1-9][0-9]?$"

_PATTERN_HINTS: dict[str, str] = {
    ID_PATTERN: "hint-id",
    NUMBER_PATTERN: "hint-number",
    "^[A-Z]+$": "hint-letters",
    "^#[0-9a-fA-F]{6}$": "hint-colour",
}
"""The hint code (see ``biblios_kit.messages``) of each pattern the schema uses."""


@cache
def ruleset_schema() -> dict[str, Any]:
    """The parsed ruleset schema."""
    with SCHEMA_PATH.open("r", encoding="utf-8") as handle:
        schema: dict[str, Any] = json.load(handle)
    return schema


@cache
def _validator() -> Any:
    import jsonschema

    def is_integer(_checker: object, instance: object) -> bool:
        # YAML "2.0" is a float: refuse it where a whole number is expected (jsonschema accepts 2.0).
        return isinstance(instance, int) and not isinstance(instance, bool)

    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine("integer", is_integer)
    return jsonschema.validators.extend(base, type_checker=checker)(ruleset_schema())


def clip(text: str) -> str:
    """``text`` cut to :data:`SHOWN_LENGTH` characters (with an ellipsis) for messages."""
    return text if len(text) <= SHOWN_LENGTH else text[: SHOWN_LENGTH - 1] + "…"


def shown(value: Any) -> object:
    """A YAML value as a message field: texts clipped, collections by their kind (a :class:`Hint`)."""
    if isinstance(value, str):
        return clip(value)
    if value is None or isinstance(value, (bool, int, float, datetime.date)):
        return value
    if isinstance(value, list):
        return Hint("kind", {"kind": "list"})
    if isinstance(value, dict):
        return Hint("kind", {"kind": "mapping"})
    return Hint("raw", {"text": clip(repr(value))})


def kind_of(value: Any) -> str:
    """What kind of YAML value ``value`` is, as a kind key of ``biblios_kit.messages.KIND_WORDS``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "decimal"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, (datetime.date, datetime.datetime)):
        return "date"
    return type(value).__name__


def found_hint(value: Any) -> Hint:
    """What a value that is shown by its kind is, for ``expected ..., found ...``: a list, a mapping, empty, yes/no."""
    if value is None:
        return Hint("found-null")
    if isinstance(value, bool):
        return Hint("found-boolean", {"value": value})
    return Hint("kind", {"kind": kind_of(value)})


def suggestion(name: str, candidates: Iterable[str]) -> str | None:
    """The closest candidate to a misspelt ``name``, if any is close enough (``difflib``, cutoff 0.6)."""
    matches = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return matches[0] if matches else None


def unknown_name(what: str, name: str, candidates: Iterable[str]) -> tuple[str, dict[str, object]]:
    """The code and fields of ``unknown <what> 'x'; did you mean 'y'?`` (or of the list of valid names).

    ``what`` is a key of ``biblios_kit.messages.WHAT_WORDS`` (``"field"``, ``"category"`` ...).
    """
    known = sorted(candidates)
    close = suggestion(name, known)
    if close is not None:
        return "unknown-name-close", {"what": what, "name": clip(name), "close": close}
    if not known:
        return "unknown-name-none", {"what": what, "name": clip(name)}
    return "unknown-name", {"what": what, "name": clip(name), "known": known}


def unknown_name_message(what: str, name: str, candidates: Iterable[str]) -> str:
    """``unknown <what> 'x'; did you mean 'y'?`` or the list of valid names, as text.

    Kept for callers above this layer; new code uses :func:`unknown_name` and lets
    :mod:`biblios_kit.messages` make the sentence (``what`` may be a ``WHAT_WORDS`` key or a
    word already in the user's language).
    """
    from biblios_kit.errors import Problem

    code, fields = unknown_name(what, name, candidates)
    return Problem("", 0, 0, "", code, fields).message


def describe(schema: Mapping[str, Any]) -> Hint:
    """What a (sub)schema expects, as data: a value, a choice, a kind with its range, or alternatives."""
    schema = _resolve(schema)
    if "const" in schema:
        return Hint("expect-value", {"value": shown(schema["const"])})
    if "enum" in schema:
        return Hint("expect-one-of", {"choices": [shown(v) for v in schema["enum"]]})
    if "anyOf" in schema:
        return Hint("expect-any", {"alternatives": [describe(sub) for sub in schema["anyOf"]]})
    kind = schema.get("type")
    name = kind if isinstance(kind, str) else "value"
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        return Hint("expect-range", {"kind": name, "low": low, "high": high})
    if low is not None:
        return Hint("expect-at-least", {"kind": name, "low": low})
    return Hint("kind", {"kind": name})


def _resolve(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        resolved = dict(ruleset_schema()["$defs"][ref.removeprefix("#/$defs/")])
        resolved.update({k: v for k, v in schema.items() if k != "$ref"})
        return resolved
    return schema


def _named_choices(schema: Mapping[str, Any]) -> list[str]:
    """The words an ``anyOf``/``oneOf`` allows (its ``const`` and ``enum`` texts), for a "did you mean"."""
    words: list[str] = []
    for sub in (*schema.get("anyOf", ()), *schema.get("oneOf", ())):
        sub = _resolve(sub)
        values = [sub["const"]] if "const" in sub else list(sub.get("enum", ()))
        words += [value for value in values if isinstance(value, str)]
    return words


def _as_path(steps: Iterable[Any]) -> FieldPath:
    return tuple(step if isinstance(step, int) else str(step) for step in steps)


def _pattern_hint(pattern: str) -> Hint:
    code = _PATTERN_HINTS.get(pattern)
    return Hint(code) if code else Hint("hint-pattern", {"pattern": pattern})


_SIMPLE: dict[str, str] = {
    "minimum": "too-small",
    "maximum": "too-large",
    "minLength": "empty-text",
    "maxLength": "too-long",
    "minItems": "list-too-short",
    "maxItems": "list-too-long",
    "minProperties": "too-few-entries",
    "maxProperties": "too-many-entries",
    "uniqueItems": "repeated-item",
}
"""The code of each schema keyword whose problem needs only the value and the keyword's limit
(``limit``; ``count`` too, the name the list and mapping messages give it)."""


def _issues_for(error: Any) -> Iterator[Issue]:
    path = _as_path(error.absolute_path)
    validator, expected, value = error.validator, error.validator_value, error.instance
    if "propertyNames" in error.relative_schema_path:
        # jsonschema reports a bad key against its parent mapping; the key itself is ``value``.
        hint = _pattern_hint(error.schema.get("pattern", "")) if validator == "pattern" else describe(error.schema)
        yield Issue((*path, str(value)), "invalid-key", {"key": clip(str(value)), "hint": hint}, at_key=True)
        return
    if validator == "additionalProperties" and isinstance(value, dict):
        known = list(error.schema.get("properties", {}))
        for key in value:
            if key not in known:
                code, fields = unknown_name("field", key, known)
                yield Issue((*path, key), code, fields, at_key=True)
        return
    if validator == "required" and isinstance(value, dict):
        for name in expected:
            if name not in value:
                yield Issue(path, "missing-field", {"name": name})
        return
    if validator == "type":
        if value is None or isinstance(value, (bool, list, dict)):
            # "a list is a list": a value shown by its kind would repeat itself; say what was found instead
            found = {"expected": describe(error.schema), "found": found_hint(value)}
            yield Issue(path, "wrong-type-found", found)
        else:
            yield Issue(
                path,
                "wrong-type",
                {"value": shown(value), "actual": kind_of(value), "expected": describe(error.schema)},
            )
    elif validator in ("anyOf", "oneOf", "enum") and isinstance(value, (list, dict)):
        # a list among numbers and words: say what was found, not "a list is not allowed"
        seen: dict[str, object] = {"expected": describe(error.schema), "found": found_hint(value)}
        if path == ("church", "targets"):  # a list of places: meant for one card's own targets
            seen["note"] = Hint("targets-per-card", {"example": "church.cards.raise-one.targets: [{place: 2}]"})
        yield Issue(path, "wrong-type-found", seen)
    elif validator == "enum":
        choices: dict[str, object] = {"value": shown(value), "choices": [shown(choice) for choice in expected]}
        close = suggestion(value, [str(choice) for choice in expected]) if isinstance(value, str) else None
        if close is not None:
            choices["note"] = Hint("did-you-mean", {"close": close})
        yield Issue(path, "not-in-choices", choices)
    elif validator in _SIMPLE:
        yield Issue(path, _SIMPLE[validator], {"value": shown(value), "limit": expected, "count": expected})
    elif validator == "const":
        expected_value = Hint("expect-value", {"value": shown(expected)})
        yield Issue(path, "not-allowed-expected", {"value": shown(value), "expected": expected_value})
    elif validator == "pattern":
        yield Issue(path, "no-match", {"value": shown(value), "hint": _pattern_hint(expected)})
    elif validator in ("anyOf", "oneOf"):
        fields = {"value": shown(value), "expected": describe(error.schema)}
        close = suggestion(value, _named_choices(error.schema)) if isinstance(value, str) else None
        if close is not None:
            fields["note"] = Hint("did-you-mean", {"close": close})
        yield Issue(path, "not-allowed-expected", fields)
    else:  # a keyword the format does not use today; jsonschema's own text is still precise
        yield Issue(path, "schema-other", {"detail": error.message})


def schema_issues(document: Any) -> list[Issue]:
    """Every schema violation of ``document`` (string keys, as read), in document order."""
    issues: list[Issue] = []
    seen: set[tuple[object, ...]] = set()
    for error in _validator().iter_errors(document):
        for issue in _issues_for(error):
            if issue.key() not in seen:
                seen.add(issue.key())
                issues.append(issue)
    return issues


def unknown_fields(patch: Any, path: FieldPath = ()) -> list[Issue]:
    """Unknown field names in a partial document (a variant), checked against the schema's fields only.

    Types and values are checked later on the merged document; this light pass exists so a
    misspelt field is reported even where the merge would hide it (``null`` removing it).
    """
    issues: list[Issue] = []
    _walk_fields(patch, ruleset_schema(), path, issues)
    return issues


def _walk_fields(value: Any, schema: Mapping[str, Any], path: FieldPath, issues: list[Issue]) -> None:
    schema = _resolve(schema)
    if isinstance(value, dict):
        properties = schema.get("properties")
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if properties is not None and key in properties:
                _walk_fields(item, properties[key], (*path, key), issues)
            elif isinstance(extra, dict):
                _walk_fields(item, extra, (*path, key), issues)
            elif properties is not None and extra is False:
                code, fields = unknown_name("field", key, properties)
                issues.append(Issue((*path, key), code, fields, at_key=True))
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            _walk_fields(item, schema["items"], (*path, index), issues)


def field_names(path: Iterable[str | int]) -> set[str] | None:
    """The fixed field names of the mapping at ``path`` of a document (``None``: not a mapping with fixed fields)."""
    schema: Mapping[str, Any] | None = _resolve(ruleset_schema())
    for step in path:
        if schema is None:
            return None
        properties = schema.get("properties")
        extra = schema.get("additionalProperties")
        items = schema.get("items")
        if isinstance(step, int):
            schema = _resolve(items) if isinstance(items, dict) else None
        elif isinstance(properties, dict) and step in properties:
            schema = _resolve(properties[step])
        elif isinstance(extra, dict):
            schema = _resolve(extra)
        else:
            return None
    if schema is None or not isinstance(schema.get("properties"), dict):
        return None
    return set(schema["properties"])


def behaviour_enums() -> dict[str, list[Any]]:
    """Every enum of the schema by a dotted schema location (for the test that compares them to model.py)."""
    found: dict[str, list[Any]] = {}

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            if "enum" in node:
                found[where] = list(node["enum"])
            for key, sub in node.items():
                walk(sub, f"{where}.{key}" if where else key)
        elif isinstance(node, list):
            for index, sub in enumerate(node):
                walk(sub, f"{where}[{index}]")

    walk(ruleset_schema(), "")
    return found
