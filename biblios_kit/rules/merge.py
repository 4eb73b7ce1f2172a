"""How ``extends`` and options combine YAML documents: mappings merge, ``null`` deletes, lists replace;
and what a patch may not do (remove a key its base does not have)."""

from __future__ import annotations

from typing import Any

from biblios_kit.rules.source import Issue

ATOMIC: tuple[tuple[str, ...], ...] = (("terms", "*", "*"),)
"""Paths (``*`` matches any key) whose values a patch replaces whole instead of merging: a term
in one language ("fr: {text: hôtel}" must not keep the base term's ``gender: feminine``)."""


def _matches(path: tuple[str, ...], patterns: tuple[tuple[str, ...], ...]) -> bool:
    return any(
        len(pattern) == len(path) and all(p in ("*", key) for p, key in zip(pattern, path)) for pattern in patterns
    )


def _atomic(path: tuple[str, ...]) -> bool:
    return _matches(path, ATOMIC)


VERBATIM: tuple[tuple[str, ...], ...] = (("options", "*", "changes"),)
"""Paths whose new values are patches themselves (an option's ``changes``): their ``null`` removals
are kept for when the patch is applied, instead of being dropped as a new value's nulls are."""


def deep_merge(base: Any, patch: Any, path: tuple[str, ...] = ()) -> Any:
    """Return ``base`` with ``patch`` applied, without modifying either.

    * A mapping patched by a mapping merges key by key, recursively (except at the
      :data:`ATOMIC` paths, replaced whole).
    * A key whose patch value is ``None`` (YAML ``null`` or ``~``) is removed.
    * Anything else (lists, scalars, a mapping replacing a non-mapping) replaces the base value;
      the ``null`` values inside it are dropped, except under the :data:`VERBATIM` paths.
    """
    if isinstance(base, dict) and isinstance(patch, dict) and not _atomic(path):
        merged = dict(base)
        for key, value in patch.items():
            if value is None:
                merged.pop(key, None)
            elif key in merged:
                merged[key] = deep_merge(merged[key], value, (*path, str(key)))
            else:
                merged[key] = _strip_nulls(value, (*path, str(key)))
        return merged
    return _strip_nulls(patch, path)


def _strip_nulls(value: Any, path: tuple[str, ...] = ()) -> Any:
    if isinstance(value, dict) and not _matches(path, VERBATIM):
        return {k: _strip_nulls(v, (*path, str(k))) for k, v in value.items() if v is not None}
    return value


COLLECTIONS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("categories",), "category"),
    (("categories", "*", "cards"), "card value"),
    (("gold",), "Gold value"),
    (("church", "cards"), "church effect"),
    (("terms", "church_cards"), "church effect"),
    (("setup",), "player count"),
    (("options",), "option"),
)
"""The mappings a patch adds entries to and removes entries from, and what their entries are
(a ``WHAT_WORDS`` key of ``biblios_kit.messages``); every other mapping has fixed fields."""


def _collection(path: tuple[str, ...]) -> str | None:
    for pattern, what in COLLECTIONS:
        if len(pattern) == len(path) and all(p in ("*", key) for p, key in zip(pattern, path)):
            return what
    return None


def patch_issues(
    base: Any, patch: Any, base_name: str, path: tuple[str, ...] = ()
) -> tuple[list[Issue], list[tuple[tuple[str, ...], str, str, tuple[str, ...]]]]:
    """What a patch (a variant) does that the base does not allow, before merging.

    Returns the issues (a ``null`` removing a key the base does not have, with the closest
    key it has) and the entries the patch adds to a collection of the base, as
    ``(path, what, base_name, the base's keys)``: an incomplete one was probably meant as a
    patch of a misspelt key (see ``loader.check_document``). Unknown field names are left to
    :func:`biblios_kit.rules.schema.unknown_fields`.
    """
    from biblios_kit.rules.schema import field_names, suggestion

    issues: list[Issue] = []
    added: list[tuple[tuple[str, ...], str, str, tuple[str, ...]]] = []
    if not isinstance(patch, dict) or _atomic(path) or _matches(path, VERBATIM):
        return issues, added  # an option's changes are checked when the option is applied
    have = base if isinstance(base, dict) else {}
    what = _collection(path)
    fields = field_names(path) if what is None else None
    for key, value in patch.items():
        here = (*path, str(key))
        if key in have:
            if isinstance(value, dict):
                more_issues, more_added = patch_issues(have[key], value, base_name, here)
                issues += more_issues
                added += more_added
            continue
        if fields is not None and key not in fields:
            continue  # an unknown field: reported as such
        known = tuple(sorted(have))
        if value is None:
            close = suggestion(key, known)
            details: dict[str, object] = {"base": base_name, "name": key}
            if what == "player count":  # numbers: a close spelling is no clue
                code = "remove-missing-setup"
                details["counts"] = sorted(known, key=lambda count: (len(count), count))
            elif close is not None:
                code = "remove-missing-close"
                details.update(what=what or "field", close=close)
            elif known:
                code = "remove-missing"
                details.update(what=what or "field", known=list(known))
            else:
                code = "remove-missing-none"
                details["what"] = what or "field"
            issues.append(Issue(here, code, details, at_key=True))
        elif what is not None:
            added.append((here, what, base_name, known))
    return issues, added
