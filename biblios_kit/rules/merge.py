"""How ``extends`` and options combine YAML documents: mappings merge, ``null`` deletes, lists replace."""

from __future__ import annotations

from typing import Any

ATOMIC: tuple[tuple[str, ...], ...] = (("terms", "*", "*"),)
"""Paths (``*`` matches any key) whose values a patch replaces whole instead of merging: a term
in one language ("fr: {text: hôtel}" must not keep the base term's ``gender: feminine``)."""


def _atomic(path: tuple[str, ...]) -> bool:
    return any(
        len(pattern) == len(path) and all(p in ("*", key) for p, key in zip(pattern, path)) for pattern in ATOMIC
    )


def deep_merge(base: Any, patch: Any, path: tuple[str, ...] = ()) -> Any:
    """Return ``base`` with ``patch`` applied, without modifying either.

    * A mapping patched by a mapping merges key by key, recursively (except at the
      :data:`ATOMIC` paths, replaced whole).
    * A key whose patch value is ``None`` (YAML ``null`` or ``~``) is removed.
    * Anything else (lists, scalars, a mapping replacing a non-mapping) replaces the base value.
    """
    if isinstance(base, dict) and isinstance(patch, dict) and not _atomic(path):
        merged = dict(base)
        for key, value in patch.items():
            if value is None:
                merged.pop(key, None)
            elif key in merged:
                merged[key] = deep_merge(merged[key], value, (*path, str(key)))
            else:
                merged[key] = _strip_nulls(value)
        return merged
    return _strip_nulls(patch)


def _strip_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_nulls(v) for k, v in value.items() if v is not None}
    return value
