"""Load a ruleset by id, alias or path: read YAML, follow ``extends``, apply options, build.

This first version reads YAML without location tracking; located errors, the JSON
Schema and semantic checks come in :mod:`biblios_kit.rules` as they land.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

import yaml

from biblios_kit.errors import UnknownOptionError, UnknownRulesetError
from biblios_kit.resources import rulesets_dir, user_rulesets_dir
from biblios_kit.rules.build import build_ruleset
from biblios_kit.rules.merge import deep_merge
from biblios_kit.rules.model import Ruleset


@dataclass(frozen=True)
class RulesetEntry:
    """A ruleset file found on disk: its id, aliases, where it lives and where it comes from."""

    id: str
    aliases: tuple[str, ...]
    path: Path
    origin: str
    """``"edition"``, ``"variant"`` (shipped in ``rulesets/variants``) or ``"user"``."""


def _normalize_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _normalize_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalize_keys(v) for v in value]
    return value


def read_document(path: Path) -> dict[str, Any]:
    """Read one YAML ruleset file into plain data (mapping keys as strings)."""
    with path.open("r", encoding="utf-8") as handle:
        data = yaml.safe_load(handle)
    return _normalize_keys(data if data is not None else {})


def _scan(folder: Path, origin: str) -> list[RulesetEntry]:
    entries = []
    if not folder.is_dir():
        return entries
    for path in sorted(folder.glob("*.yaml")) + sorted(folder.glob("*.yml")):
        try:
            with path.open("r", encoding="utf-8") as handle:
                head = yaml.safe_load(handle)
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        if isinstance(head, dict) and isinstance(head.get("id"), str):
            aliases = tuple(str(a) for a in head.get("aliases") or () if isinstance(a, str))
            entries.append(RulesetEntry(head["id"], aliases, path.resolve(), origin))
    return entries


def available_rulesets() -> list[RulesetEntry]:
    """Every ruleset found by id: shipped editions, shipped variants, then the user's own files."""
    shipped = rulesets_dir()
    return (
        _scan(shipped, "edition")
        + _scan(shipped / "variants", "variant")
        + _scan(user_rulesets_dir(), "user")
    )


def resolve_ruleset(name: str | Path, relative_to: Path | None = None) -> Path:
    """Find the file of a ruleset given by id, alias or path (relative paths from ``relative_to``)."""
    text = str(name)
    looks_like_path = text.endswith((".yaml", ".yml")) or "/" in text or "\\" in text
    if looks_like_path:
        candidate = Path(text)
        if not candidate.is_absolute() and relative_to is not None:
            candidate = relative_to / candidate
        if candidate.is_file():
            return candidate.resolve()
    entries = available_rulesets()
    for entry in entries:
        if text == entry.id or text in entry.aliases:
            return entry.path
    raise UnknownRulesetError(text, sorted({entry.id for entry in entries}))


def load_document(path: Path, _seen: tuple[Path, ...] = ()) -> tuple[dict[str, Any], tuple[str, ...]]:
    """Read a ruleset file and merge it over the rulesets it extends; return (document, chain of ids)."""
    document = read_document(path)
    parent = document.pop("extends", None)
    if parent is None:
        return document, ()
    parent_path = resolve_ruleset(parent, relative_to=path.parent)
    if parent_path in _seen or parent_path == path:
        raise ValueError(f"extends cycle: {' -> '.join(str(p) for p in (*_seen, path, parent_path))}")
    base, chain = load_document(parent_path, (*_seen, path))
    return deep_merge(base, document), (base["id"], *chain)


def apply_options(document: dict[str, Any], options: Iterable[str]) -> tuple[dict[str, Any], frozenset[str]]:
    """Merge the ``changes`` of each named option (plus those on by default) into the document."""
    declared = document.get("options", {})
    requested = list(dict.fromkeys(options))
    for name in requested:
        if name not in declared:
            raise UnknownOptionError(name, document.get("id", "?"), sorted(declared))
    active = [name for name, body in declared.items() if body.get("default", False)]
    active += [name for name in requested if name not in active]
    for name in active:
        document = deep_merge(document, declared[name].get("changes", {}))
    return document, frozenset(active)


@lru_cache(maxsize=64)
def _load_cached(path: Path, mtime_ns: int, options: tuple[str, ...]) -> Ruleset:
    document, chain = load_document(path)
    document, active = apply_options(document, options)
    document["active_options"] = sorted(active)
    return build_ruleset(document, active_options=active, source=str(path), extends=chain)


def load_ruleset(name: str | Path = "biblios", options: Iterable[str] = ()) -> Ruleset:
    """Load a ruleset by id, alias or path, with the named options switched on."""
    path = resolve_ruleset(name)
    return _load_cached(path, path.stat().st_mtime_ns, tuple(options))
