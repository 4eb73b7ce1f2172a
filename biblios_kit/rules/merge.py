"""How ``extends`` and options combine YAML documents: mappings merge, ``null`` deletes, lists replace;
and what a patch may not do (remove a key its base does not have)."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

import yaml

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


def _flow(value: Any) -> str:
    """A value as one line of YAML flow style (``{count: 2, signs: [1]}``)."""
    return str(yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10**6, allow_unicode=True)).strip()


def _written(name: str, after: str) -> dict[str, object]:
    """The fields of an empty-value problem: the line as written (``4:``) and the removal (``4: null``).

    They are fields, not template text, so that no translation respaces the YAML (French puts a
    space before a colon)."""
    return {"name": name, "written": f"{name}{after}", "removal": f"{name}: null"}


def empty_values(
    patch: dict[str, Any], empties: Iterable[tuple[str | int, ...]], base_name: str, *, changes_only: bool = False
) -> tuple[list[Issue], dict[str, Any]]:
    """The keys of a variant left empty (``4:`` with nothing after it), and the patch without them.

    YAML reads an empty value as ``null``, which a patch takes for a removal; only a written
    ``null`` (or ``~``) is one. An empty entry of a collection followed by fields of such an
    entry (``raise-one:`` then ``count: 2`` one level too far left) is reported once, with the
    nesting meant; those fields leave the patch with it, so they are not read as entries.
    ``changes_only``: look only inside the options' ``changes`` (an edition's patches).
    """
    issues: list[Issue] = []
    # (list items have no removal meaning; the schema reports them)
    keyed = [tuple(str(step) for step in path) for path in empties if path and all(isinstance(s, str) for s in path)]
    hollow = _empty_mappings(patch, (), changes_only)
    if not keyed and not hollow:
        return issues, patch  # the usual case: no copy made
    patch = copy.deepcopy(patch)
    for steps in sorted(keyed):
        parent: Any = patch
        for step in steps[:-1]:
            parent = parent.get(step) if isinstance(parent, dict) else None
        name = steps[-1]
        if not isinstance(parent, dict) or name not in parent or parent[name] is not None:
            continue
        logical = steps[3:] if steps[0] == "options" and len(steps) > 3 and steps[2] == "changes" else steps
        if _collection(logical[:-1]) is None:
            issues.append(Issue(steps, "empty-field", _written(name, ":"), at_key=True))
            del parent[name]
            continue
        from biblios_kit.rules.schema import field_names

        entry_fields = field_names(logical) or set()
        keys = list(parent)
        beside: list[str] = []
        for key in keys[keys.index(name) + 1 :]:
            if key not in entry_fields:
                break
            beside.append(key)
        if beside:
            nesting = f"{name}: {_flow({key: parent[key] for key in beside})}"
            fields = {**_written(name, ":"), "fields": beside, "nesting": nesting, "base": base_name}
            issues.append(Issue(steps, "empty-entry-beside", fields, at_key=True))
            for key in beside:
                del parent[key]
        else:
            issues.append(Issue(steps, "empty-entry", {**_written(name, ":"), "base": base_name}, at_key=True))
        del parent[name]
    for here in hollow:
        parent = patch
        for step in here[:-1]:
            parent = parent[step]
        issues.append(Issue(here, "empty-mapping", _written(here[-1], ": {}"), at_key=True))
        del parent[here[-1]]
    return issues, patch


def _empty_mappings(patch: dict[str, Any], path: tuple[str, ...], changes_only: bool) -> list[tuple[str, ...]]:
    """The paths of the entries of a collection patched with ``{}``: they change nothing."""
    found: list[tuple[str, ...]] = []
    for key, value in patch.items():
        here = (*path, str(key))
        if not isinstance(value, dict):
            continue
        logical = here[3:] if here[0] == "options" and len(here) > 3 and here[2] == "changes" else here
        if not value and _collection(logical[:-1]) is not None and (logical != here or not changes_only):
            found.append(here)
        else:
            found += _empty_mappings(value, here, changes_only)
    return found
