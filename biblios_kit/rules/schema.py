"""The ruleset JSON Schema: load it, validate documents, and turn errors into plain-language issues."""

from __future__ import annotations

import datetime
import difflib
import json
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from biblios_kit.i18n import N_, _, ngettext
from biblios_kit.rules.source import FieldPath, Issue

SCHEMA_PATH = Path(__file__).resolve().parent / "ruleset.schema.json"
"""The packaged schema file (draft 2020-12)."""

SHOWN_LENGTH = 60
"""Longest text quoted in a message; a longer one is cut (a hostile file can hold a megabyte)."""
ID_PATTERN = "^[a-z0-9][a-z0-9-]*$"
NUMBER_PATTERN = "^[1-9][0-9]?$"

_PATTERN_HINTS: dict[str, str] = {
    ID_PATTERN: N_("an id (lowercase letters, digits and hyphens, like 'holy-books')"),
    NUMBER_PATTERN: N_("a whole number from 1 to 99 (like 2)"),
    "^[A-Z]+$": N_("a run of capital letters, one per card (like 'ABCD')"),
    "^#[0-9a-fA-F]{6}$": N_("a colour written #rrggbb (like '#c0392b')"),
}

_TYPE_NAMES: dict[str, str] = {
    "integer": N_("a whole number"),
    "number": N_("a number"),
    "string": N_("a text"),
    "boolean": N_("true or false"),
    "array": N_("a list"),
    "object": N_("a mapping of fields"),
    "null": N_("null"),
}


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


def show(value: Any) -> str:
    """A short rendering of a YAML value for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value if len(value) <= SHOWN_LENGTH else value[: SHOWN_LENGTH - 1] + "…")
    if isinstance(value, (int, float, datetime.date)):
        return str(value)
    if isinstance(value, list):
        return _("a list")
    if isinstance(value, dict):
        return _("a mapping")
    return repr(value)


def kind_of(value: Any) -> str:
    """What kind of YAML value ``value`` is, in words."""
    if value is None:
        return _("null")
    if isinstance(value, bool):
        return _("true or false")
    if isinstance(value, int):
        return _("a whole number")
    if isinstance(value, float):
        return _("a decimal number")
    if isinstance(value, str):
        return _("a text")
    if isinstance(value, list):
        return _("a list")
    if isinstance(value, dict):
        return _("a mapping of fields")
    if isinstance(value, (datetime.date, datetime.datetime)):
        return _("a date (quote it to make it a text)")
    return type(value).__name__


def suggestion(name: str, candidates: Iterable[str]) -> str | None:
    """The closest candidate to a misspelt ``name``, if any is close enough."""
    matches = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return matches[0] if matches else None


def unknown_name_message(what: str, name: str, candidates: Iterable[str]) -> str:
    """``unknown <what> 'x'; did you mean 'y'?`` or the list of valid names."""
    known = sorted(candidates)
    close = suggestion(name, known)
    if close is not None:
        return _("unknown {what} {name!r}; did you mean {close!r}?").format(what=what, name=name, close=close)
    if not known:
        return _("unknown {what} {name!r}; none is defined here").format(what=what, name=name)
    return _("unknown {what} {name!r}; expected one of: {known}").format(what=what, name=name, known=", ".join(known))


def describe(schema: Mapping[str, Any]) -> str:
    """What a (sub)schema expects, in words: ``a whole number from 1``, ``'deck'``, ``one of: a, b``."""
    schema = _resolve(schema)
    if "const" in schema:
        return show(schema["const"])
    if "enum" in schema:
        return _("one of: {choices}").format(choices=", ".join(show(v) for v in schema["enum"]))
    if "anyOf" in schema:
        return _(" or ").join(describe(sub) for sub in schema["anyOf"])
    kind = schema.get("type")
    name = _(_TYPE_NAMES.get(kind, kind)) if isinstance(kind, str) else _("a value")
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        return _("{kind} from {low} to {high}").format(kind=name, low=low, high=high)
    if low is not None:
        return _("{kind} of at least {low}").format(kind=name, low=low)
    return name


def _resolve(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        resolved = dict(ruleset_schema()["$defs"][ref.removeprefix("#/$defs/")])
        resolved.update({k: v for k, v in schema.items() if k != "$ref"})
        return resolved
    return schema


def _as_path(steps: Iterable[Any]) -> FieldPath:
    return tuple(step if isinstance(step, int) else str(step) for step in steps)


def _pattern_hint(pattern: str) -> str:
    hint = _PATTERN_HINTS.get(pattern)
    return _(hint) if hint else _("text matching {pattern}").format(pattern=pattern)


def _issues_for(error: Any) -> Iterator[Issue]:
    path = _as_path(error.absolute_path)
    validator, expected, value = error.validator, error.validator_value, error.instance
    if "propertyNames" in error.relative_schema_path:
        # jsonschema reports a bad key against its parent mapping; the key itself is ``value``.
        yield Issue(
            (*path, str(value)),
            _("the key {key!r} is not valid here: expected {hint}").format(
                key=str(value) if len(str(value)) <= SHOWN_LENGTH else str(value)[: SHOWN_LENGTH - 1] + "…",
                hint=_pattern_hint(error.schema.get("pattern", ""))
                if validator == "pattern"
                else describe(error.schema),
            ),
            at_key=True,
        )
        return
    if validator == "additionalProperties" and isinstance(value, dict):
        known = list(error.schema.get("properties", {}))
        for key in value:
            if key not in known:
                yield Issue((*path, key), unknown_name_message(_("field"), key, known), at_key=True)
        return
    if validator == "required" and isinstance(value, dict):
        for name in expected:
            if name not in value:
                yield Issue(path, _("missing required field {name!r}").format(name=name))
        return
    if validator == "type":
        message = _("{value} is {actual}; expected {expected}").format(
            value=show(value), actual=kind_of(value), expected=describe(error.schema)
        )
    elif validator == "enum":
        choices = [str(choice) for choice in expected]
        close = suggestion(str(value), choices) if isinstance(value, str) else None
        message = _("{value} is not allowed; expected one of: {choices}").format(
            value=show(value), choices=", ".join(show(choice) for choice in expected)
        )
        if close is not None:
            message += " " + _("(did you mean {close!r}?)").format(close=close)
    elif validator == "const":
        message = _("{value} is not allowed; expected {expected}").format(value=show(value), expected=show(expected))
    elif validator == "minimum":
        message = _("{value} is too small; expected at least {limit}").format(value=show(value), limit=expected)
    elif validator == "maximum":
        message = _("{value} is too large; expected at most {limit}").format(value=show(value), limit=expected)
    elif validator == "minLength":
        message = _("must not be empty")
    elif validator == "maxLength":
        message = ngettext(
            "{value} is too long; expected at most {limit} character",
            "{value} is too long; expected at most {limit} characters",
            expected,
        ).format(value=show(value), limit=expected)
    elif validator == "pattern":
        message = _("{value} is not valid here: expected {hint}").format(
            value=show(value), hint=_pattern_hint(expected)
        )
    elif validator == "minItems":
        message = ngettext(
            "the list is too short; expected at least {count} item",
            "the list is too short; expected at least {count} items",
            expected,
        ).format(count=expected)
    elif validator == "minProperties":
        message = ngettext(
            "expected at least {count} entry",
            "expected at least {count} entries",
            expected,
        ).format(count=expected)
    elif validator == "maxItems":
        message = ngettext(
            "the list is too long; expected at most {count} item",
            "the list is too long; expected at most {count} items",
            expected,
        ).format(count=expected)
    elif validator == "maxProperties":
        message = ngettext(
            "too many entries; expected at most {count} entry",
            "too many entries; expected at most {count} entries",
            expected,
        ).format(count=expected)
    elif validator == "uniqueItems":
        message = _("the list repeats an item; each item may appear only once")
    elif validator in ("anyOf", "oneOf"):
        message = _("{value} is not allowed; expected {expected}").format(
            value=show(value), expected=describe(error.schema)
        )
    else:  # a keyword the format does not use today; jsonschema's own text is still precise
        message = error.message
    yield Issue(path, message)


def schema_issues(document: Any) -> list[Issue]:
    """Every schema violation of ``document`` (string keys, as read), in document order."""
    issues: list[Issue] = []
    seen: set[Issue] = set()
    for error in _validator().iter_errors(document):
        for issue in _issues_for(error):
            if issue not in seen:
                seen.add(issue)
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
                issues.append(Issue((*path, key), unknown_name_message(_("field"), key, properties), at_key=True))
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            _walk_fields(item, schema["items"], (*path, index), issues)


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
