"""Random overrides applied through ``extends`` either load or fail with located problems, never anything else."""

from __future__ import annotations

import copy
import itertools
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biblios_kit.errors import RulesetError
from biblios_kit.i18n import use_language
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.loader import read_document
from biblios_kit.rules.model import Ruleset

ROOT = Path(__file__).resolve().parent.parent
BASE = read_document(ROOT / "rulesets" / "biblios.yaml")
_counter = itertools.count()


def paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += paths(value, (*prefix, index))
    return found


ALL_PATHS = paths(BASE)
WORDS = ["gold", "cards", "deck", "any", "none", "standard", "monks", "play-out", "discard", "A", "ABC", "x", ""]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=120),
    st.floats(allow_nan=False, allow_infinity=False, width=16),
    st.sampled_from(WORDS),
    st.text(max_size=6),
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(
            st.sampled_from(["place", "start", "min", "max", "by", "kind", "count", "2", "x"]), children, max_size=3
        ),
    ),
    max_leaves=6,
)


def override(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """A variant patch that sets ``path`` to ``value`` (a list on the way is copied whole: lists replace)."""
    for depth, step in enumerate(path):
        if isinstance(step, int):
            head = path[:depth]
            container = copy.deepcopy(_get(BASE, head))
            _set(container, path[depth:], value)
            return _nest(head, container)
    return _nest(path, value)


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        node = node[step]
    return node


def _set(node: Any, path: tuple[Any, ...], value: Any) -> None:
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value


def _nest(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    for step in reversed(path):
        value = {step: value}
    return value  # type: ignore[no-any-return]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    changes=st.lists(st.tuples(st.sampled_from(ALL_PATHS), values), min_size=1, max_size=3),
    extra_key=st.one_of(st.none(), st.sampled_from(["colour", "setup", "oops", "dice"])),
    options=st.lists(st.sampled_from(["medieval-bluff", "refuse-to-pay"]), max_size=2),
)
def test_random_overrides_validate_or_fail_located(
    tmp_path_factory: Any, changes: list[tuple[tuple[Any, ...], Any]], extra_key: str | None, options: list[str]
) -> None:
    use_language("en")
    patch: dict[str, Any] = {
        "extends": "biblios",
        "id": "fuzz",
        "title": BASE["title"],
        "description": BASE["description"],
    }
    for path, value in changes:
        if path[0] in ("id", "title", "description"):
            continue
        patch = _merge_patch(patch, override(path, value))
    if extra_key is not None:
        patch[extra_key] = patch.get(extra_key, 1)
    folder = tmp_path_factory.mktemp("fuzz")
    file = folder / f"fuzz-{next(_counter)}.yaml"
    file.write_text(yaml.safe_dump(patch, allow_unicode=True), encoding="utf-8")
    try:
        ruleset = load_ruleset(file, options)
    except RulesetError as error:
        assert error.problems
        for problem in error.problems:
            assert problem.line >= 1 and problem.column >= 1, problem
            assert problem.file.endswith((file.name, "biblios.yaml")), problem
            assert problem.message
        return
    assert isinstance(ruleset, Ruleset)
    assert len(ruleset.deck) == sum(1 for _ in ruleset.deck)
    for setup in ruleset.setups.values():
        assert setup.gift_cards >= setup.players + 1


def _merge_patch(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(out.get(key), dict) and isinstance(value, dict):
            out[key] = _merge_patch(out[key], value)
        else:
            out[key] = value
    return out
