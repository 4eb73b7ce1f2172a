"""The JSON Schema matches the model's registered behaviours, is strict everywhere, and is documented."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from biblios_kit.errors import Hint
from biblios_kit.messages import hint_text
from biblios_kit.rules import model
from biblios_kit.rules.schema import SCHEMA_PATH, VARIANT_SCHEMA_PATH, behaviour_enums, ruleset_schema, schema_issues
from biblios_kit.rules.source import read_file

ROOT = Path(__file__).resolve().parent.parent


def values(enum: type[model.enum.Enum]) -> list[str]:
    return [member.value for member in enum]


def object_schemas(node: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        if "properties" in node:
            yield where, node
        for key, sub in node.items():
            yield from object_schemas(sub, f"{where}/{key}")
    elif isinstance(node, list):
        for index, sub in enumerate(node):
            yield from object_schemas(sub, f"{where}/{index}")


def test_schema_is_valid_draft_2020_12() -> None:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_enums_equal_the_registered_behaviours() -> None:
    enums = behaviour_enums()
    p = "properties"
    expected = {
        f"{p}.church.{p}.targets": model.ChurchTargets,
        f"{p}.auction.{p}.bidding_starts": model.BiddingStart,
        f"{p}.auction.{p}.currency.{p}.category": model.Currency,
        f"{p}.auction.{p}.currency.{p}.gold": model.Currency,
        f"{p}.auction.{p}.currency.{p}.church": model.Currency,
        f"{p}.auction.{p}.overpay": model.Overpay,
        f"{p}.auction.{p}.all_pass": model.AllPass,
        f"{p}.penalty.{p}.kind": model.PenaltyKind,
        f"{p}.scoring.{p}.category_tie": model.CategoryTie,
        f"{p}.scoring.{p}.points": model.PointsRule,
        f"$defs.setup.{p}.short_draw": model.ShortDraw,
        f"$defs.setup.{p}.remove.items.{p}.kind": model.CardKind,
        f"$defs.term_text.{p}.gender": model.Gender,
        f"$defs.term_text.{p}.number": model.GrammaticalNumber,
    }
    for where, enum in expected.items():
        assert enums.pop(where) == values(enum), where
    # 'by' names a criterion; 'most' and 'fewest' name a count (cards or value), everywhere a step is written
    steps = f"{p}.scoring.{p}.final_tiebreak.items.{p}"
    named = [by.value for by in model.TieBreakBy if by not in model.COUNT_BY]
    counts = [by.value for by in model.COUNT_BY]
    assert enums.pop(f"{steps}.by") == named
    assert enums.pop(f"{steps}.each_category.items.anyOf[0]") == named
    for where in (
        "most",
        "fewest",
        "each_category.items.anyOf[1].properties.most",
        "each_category.items.anyOf[1].properties.fewest",
    ):
        assert enums.pop(f"{steps}.{where}") == counts, where
    assert enums.pop(f"{steps}.kind") == [kind.value for kind in model.STARTING_CARD_KINDS][::-1]
    starting = enums.pop(f"$defs.setup.{p}.starting_cards.items.{p}.kind")
    assert starting == [kind.value for kind in model.STARTING_CARD_KINDS]
    assert enums == {f"{p}.church.{p}.cards.additionalProperties.{p}.signs.items": [1, -1]}
    schema = ruleset_schema()
    assert list(schema[p]["auction"][p]["currency"][p]) == values(model.CardKind)
    assert schema[p]["terms"]["required"] == list(model.TERM_KEYS)
    assert list(schema[p]["title"][p]) == list(model.LANGUAGES)


def test_every_object_is_closed_and_every_field_described() -> None:
    for where, node in object_schemas(ruleset_schema()):
        assert node.get("additionalProperties") is False, where
        for name, sub in node["properties"].items():
            assert sub.get("description"), f"{where}/{name}"


def all_property_names(node: Any) -> set[str]:
    names: set[str] = set()
    for _where, sub in object_schemas(node):
        names.update(sub["properties"])
    return names


def test_every_field_is_documented() -> None:
    docs = (ROOT / "docs" / "rulesets.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`([a-z_]+)`", docs))
    missing = sorted(all_property_names(ruleset_schema()) - documented - {"en", "fr", "es"})
    assert missing == []
    for lang in ("en", "fr", "es"):
        assert f"`{lang}`" in docs


@pytest.mark.parametrize("name", ["biblios.yaml", "scripts-and-scribes.yaml"])
def test_editions_validate_against_the_schema_alone(name: str) -> None:
    document = read_file(ROOT / "rulesets" / name)
    assert schema_issues(document.data) == []
    assert document.data["format"] == 1


@pytest.mark.parametrize("path", sorted((ROOT / "rulesets").rglob("*.yaml")), ids=lambda p: p.name)
def test_shipped_files_point_editors_at_the_schema(path: Path) -> None:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    match = re.fullmatch(r"# yaml-language-server: \$schema=(\S+)", first)
    assert match, first
    # Editions at the full schema; variants at the variant schema (every field optional, null removes).
    expected = VARIANT_SCHEMA_PATH if path.parent.name == "variants" else SCHEMA_PATH
    assert (path.parent / match.group(1)).resolve() == expected


def test_integers_are_not_floats() -> None:
    document = read_file(ROOT / "rulesets" / "biblios.yaml").data
    document["gold"]["1"] = 11.0
    issues = schema_issues(document)
    assert [(i.path, i.code, hint_text(Hint(i.code, i.fields))) for i in issues] == [
        (("gold", "1"), "wrong-type", "11.0 is a decimal number; expected a whole number from 0 to 200")
    ]
