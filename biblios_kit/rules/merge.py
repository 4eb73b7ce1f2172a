"""How ``extends`` and options combine YAML documents: mappings merge, ``null`` deletes, lists replace."""

from __future__ import annotations

from typing import Any


def deep_merge(base: Any, patch: Any) -> Any:
    """Return ``base`` with ``patch`` applied, without modifying either.

    * A mapping patched by a mapping merges key by key, recursively.
    * A key whose patch value is ``None`` (YAML ``null`` or ``~``) is removed.
    * Anything else (lists, scalars, a mapping replacing a non-mapping) replaces the base value.
    """
    if isinstance(base, dict) and isinstance(patch, dict):
        merged = dict(base)
        for key, value in patch.items():
            if value is None:
                merged.pop(key, None)
            elif key in merged:
                merged[key] = deep_merge(merged[key], value)
            else:
                merged[key] = _strip_nulls(value)
        return merged
    return _strip_nulls(patch)


def _strip_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_nulls(v) for k, v in value.items() if v is not None}
    return value
