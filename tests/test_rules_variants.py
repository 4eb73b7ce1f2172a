"""Variants for authors: the variant schema for editors, and precise, located errors for the usual slips."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml
from typer.testing import CliRunner

from biblios_kit.cli.app import build_app
from biblios_kit.errors import Problem
from biblios_kit.i18n import in_language, use_language
from biblios_kit.messages import explain_problem
from biblios_kit.rules.loader import check_file
from biblios_kit.rules.schema import (
    SCHEMA_PATH,
    VARIANT_SCHEMA_LINE,
    VARIANT_SCHEMA_PATH,
    schema_issues,
)
from biblios_kit.rules.source import read_file
from biblios_kit.rules.variant import variant_schema, variant_schema_text

ROOT = Path(__file__).resolve().parent.parent
BIBLIOS = ROOT / "rulesets" / "biblios.yaml"
HEAD = "extends: biblios\nid: house\ntitle: {en: H, fr: H, es: H}\ndescription: {en: H, fr: H, es: H}\n"
OWN = {"extends": "biblios", "id": "house", "title": {"en": "H", "fr": "H", "es": "H"}, "description": {"en": "H"}}


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("BIBLIOS_KIT_CONFIG_DIR", str(tmp_path / "config"))
    use_language("en")


def base_line(text: str) -> int:
    """The 1-based line of ``text`` in the shipped Biblios file."""
    return BIBLIOS.read_text(encoding="utf-8").splitlines().index(text) + 1


# --------------------------------------------------------------------------- the variant schema


def variant_validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(VARIANT_SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def diagnostics(validator: jsonschema.Draft202012Validator, document: object) -> list[str]:
    return [f"{'.'.join(map(str, error.absolute_path))}: {error.message}" for error in validator.iter_errors(document)]


def test_the_shipped_variant_schema_is_the_one_derived_from_the_ruleset_schema() -> None:
    # After a change to ruleset.schema.json: python -m biblios_kit.rules.variant
    assert VARIANT_SCHEMA_PATH.read_text(encoding="utf-8") == variant_schema_text()
    assert VARIANT_SCHEMA_PATH.parent == SCHEMA_PATH.parent


@pytest.mark.parametrize("path", sorted((ROOT / "rulesets" / "variants").glob("*.yaml")), ids=lambda p: p.name)
def test_shipped_variants_have_no_diagnostic_under_the_variant_schema(path: Path) -> None:
    assert diagnostics(variant_validator(), read_file(path).data) == []
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first == VARIANT_SCHEMA_LINE.format(uri="../../biblios_kit/rules/variant.schema.json")


def docs_examples() -> list[tuple[int, dict[str, object]]]:
    """Every YAML example of docs/rulesets.md that is a mapping, with its line."""
    text = (ROOT / "docs" / "rulesets.md").read_text(encoding="utf-8")
    found = []
    for match in re.finditer(r"```yaml\n(.*?)```", text, re.DOTALL):
        data = yaml.safe_load(match.group(1))
        if isinstance(data, dict):
            found.append((text.count("\n", 0, match.start()) + 1, data))
    return found


def test_docs_examples_have_no_diagnostic_under_the_variant_schema() -> None:
    examples = docs_examples()
    assert len(examples) >= 10
    assert any("extends" in data for _line, data in examples)  # whole variants
    assert any(None in _leaves(data) for _line, data in examples)  # removals
    validator = variant_validator()
    for line, data in examples:
        # A fragment (one field's example) is what a variant writes under its own identity fields.
        document = data if "extends" in data else {**OWN, **data}
        assert diagnostics(validator, json.loads(json.dumps(document))) == [], f"docs/rulesets.md:{line}"


def _leaves(value: object) -> list[object]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def test_docs_variant_examples_load(tmp_path: Path) -> None:
    for line, data in docs_examples():
        if "extends" in data:
            path = tmp_path / f"example-{line}.yaml"
            path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
            assert check_file(path) == [], f"docs/rulesets.md:{line}"


def test_the_variant_schema_allows_null_only_where_a_removal_is_valid() -> None:
    validator = variant_validator()
    removals = {
        "setup": {"2": None},
        "church": {"cards": {"raise-or-lower-one": None}},
        "categories": {"monks": {"dice": None}},
        "terms": {"church_cards": None},
        "options": {"medieval-bluff": None},
        "aliases": None,
    }
    assert diagnostics(validator, {**OWN, **removals}) == []
    # Removing what every ruleset needs is refused, and so is an unknown field or a wrong type.
    for bad in ({"auction": {"overpay": None}}, {"penalty": None}, {"penalty": {"knd": "none"}}, {"gold": {"1": "x"}}):
        assert diagnostics(validator, {**OWN, **bad}), bad
    # Values replaced whole keep the full schema: a die of a list, a term in one language.
    assert diagnostics(validator, {**OWN, "dice": [{"place": 1}]})
    assert diagnostics(validator, {**OWN, "terms": {"hand": {"fr": {"gender": "feminine"}}}})
    assert diagnostics(validator, {**OWN, "terms": {"hand": {"fr": {"text": "bourse", "gender": "feminine"}}}}) == []
    # A variant sets its own identity, and an option's changes is a patch like the variant.
    assert diagnostics(validator, {"extends": "biblios", "id": "x"}) == [
        ": 'title' is a required property",
        ": 'description' is a required property",
    ]
    option = {"title": {"en": "T"}, "changes": {"setup": {"4": None}, "auction": {"opening_bid": 0}}}
    assert diagnostics(validator, {**OWN, "options": {"o": option}}) == [
        "options.o.changes.auction.opening_bid: 0 is less than the minimum of 1"
    ]
    assert variant_schema()["required"] == ["extends", "id", "title", "description"]


def test_the_full_schema_still_rejects_an_incomplete_edition() -> None:
    edition = read_file(BIBLIOS).data
    incomplete = {key: value for key, value in edition.items() if key not in ("auction", "setup")}
    assert [(issue.code, dict(issue.fields)) for issue in schema_issues(incomplete)] == [
        ("missing-field", {"name": "setup"}),
        ("missing-field", {"name": "auction"}),
    ]
    variant = read_file(ROOT / "rulesets" / "variants" / "second-place-dice.yaml").data
    without_extends = {key: value for key, value in variant.items() if key != "extends"}
    assert {"format", "terms", "auction"} <= {
        str(issue.fields["name"]) for issue in schema_issues(without_extends) if issue.code == "missing-field"
    }


def test_rules_schema_prints_either_schema() -> None:
    runner = CliRunner()
    full = runner.invoke(build_app(), ["rules", "schema"])
    variant = runner.invoke(build_app(), ["rules", "schema", "--variant"])
    assert full.exit_code == variant.exit_code == 0
    assert full.output == SCHEMA_PATH.read_text(encoding="utf-8")
    assert variant.output == VARIANT_SCHEMA_PATH.read_text(encoding="utf-8")
    assert json.loads(variant.output)["title"] == "biblios-kit variant"


# --------------------------------------------------------------------------- precise errors for authors


def problems_of(tmp_path: Path, body: str) -> tuple[str, list[Problem]]:
    path = tmp_path / "house.yaml"
    path.write_text(HEAD + body, encoding="utf-8")
    return "house.yaml", check_file(path, "house.yaml")


def located(problem: Problem, lang: str = "en") -> str:
    field = f" {problem.path}:" if problem.path else ""
    return f"{problem.where}:{field} {explain_problem(problem, lang)}"


def test_removing_a_misspelt_church_card(tmp_path: Path) -> None:
    _file, problems = problems_of(tmp_path, "church:\n  cards:\n    raise-tow: null\n")
    (problem,) = problems
    assert located(problem) == (
        "house.yaml:7:5: church.cards.raise-tow: biblios has no church effect 'raise-tow' to remove;"
        " did you mean 'raise-two'?"
    )
    assert located(problem, "fr") == (
        "house.yaml:7:5: church.cards.raise-tow: rien à retirer\u202f: effet d'Église 'raise-tow' introuvable dans"
        " biblios\u202f; vouliez-vous dire 'raise-two'\u202f?"
    )
    assert located(problem, "es") == (
        "house.yaml:7:5: church.cards.raise-tow: nada que quitar: biblios no tiene efecto de Iglesia 'raise-tow';"
        " ¿quería decir 'raise-two'?"
    )


def test_patching_a_misspelt_category_is_one_error_not_its_missing_fields(tmp_path: Path) -> None:
    _file, problems = problems_of(tmp_path, "categories:\n  monk: {order: 9}\n")
    assert [located(p) for p in problems] == [
        "house.yaml:6:3: categories.monk: biblios has no category 'monk'; did you mean 'monks'?"
    ]
    assert located(problems[0], "fr") == (
        "house.yaml:6:3: categories.monk: catégorie 'monk' introuvable dans biblios\u202f; vouliez-vous dire 'monks'\u202f?"
    )


def test_a_complete_new_entry_is_an_addition_even_with_a_close_name(tmp_path: Path) -> None:
    body = (
        "categories:\n  monk:\n    order: 6\n    name: {en: Monk, fr: Moine, es: Monje}\n    colour: '#000000'\n"
        "    colour_name: {en: black, fr: noir, es: negro}\n    glyph: M\n    cards: {2: A}\n"
    )
    assert problems_of(tmp_path, body)[1] == []
    # An incomplete entry whose name is close to none of the base's stays a list of missing fields.
    _file, problems = problems_of(tmp_path, "categories:\n  relics: {order: 9}\n")
    assert {p.code for p in problems} == {"missing-field"} and {p.path for p in problems} == {"categories.relics"}


def test_removing_a_player_count_the_base_does_not_have(tmp_path: Path) -> None:
    _file, problems = problems_of(tmp_path, "setup:\n  7: null\n")
    (problem,) = problems
    assert located(problem) == (
        "house.yaml:6:3: setup.7: biblios has no setup for 7 players to remove; it has setups for 2, 3, and 4 players"
    )
    assert located(problem, "fr") == (
        "house.yaml:6:3: setup.7: rien à retirer\u202f: biblios n'a pas de mise en place pour 7 joueurs\u202f;"
        " il en a pour 2, 3 et 4 joueurs"
    )
    assert located(problem, "es") == (
        "house.yaml:6:3: setup.7: nada que quitar: biblios no tiene preparación para 7 jugadores;"
        " la tiene para 2, 3 y 4 jugadores"
    )


def test_removing_a_misspelt_option(tmp_path: Path) -> None:
    (problem,) = problems_of(tmp_path, "options:\n  medieval-bluf: null\n")[1]
    assert located(problem) == (
        "house.yaml:6:3: options.medieval-bluf: biblios has no option 'medieval-bluf' to remove;"
        " did you mean 'medieval-bluff'?"
    )
    assert located(problem, "fr") == (
        "house.yaml:6:3: options.medieval-bluf: rien à retirer\u202f: option 'medieval-bluf' introuvable dans biblios\u202f;"
        " vouliez-vous dire 'medieval-bluff'\u202f?"
    )


def test_a_collision_with_the_base_is_reported_at_the_variant_line_via_the_base(tmp_path: Path) -> None:
    (problem,) = problems_of(tmp_path, "categories:\n  monks: {order: 2}\n")[1]
    assert located(problem) == (
        "house.yaml:6:18: categories.monks.order: order 2 is also used by category 'pigments'; each category needs"
        f" its own place (via rulesets/biblios.yaml:{base_line('    order: 2')}:12)"
    )
    assert located(problem, "es").endswith(f"(vía rulesets/biblios.yaml:{base_line('    order: 2')}:12)")
    (letters,) = problems_of(tmp_path, "categories:\n  monks:\n    cards: {5: A}\n")[1]
    assert (letters.where, letters.path, letters.via) == (
        "house.yaml:7:16",
        "categories.monks.cards.5",
        ("rulesets/biblios.yaml", base_line("    cards: {2: ABCD, 3: EFG, 4: HI}"), 16),
    )


def test_a_deck_change_that_breaks_a_base_setup_is_reported_at_the_change(tmp_path: Path) -> None:
    problems = problems_of(tmp_path, "gold: {1: 1, 2: 11, 3: 11}\n")[1]
    (problem,) = problems
    assert (problem.where, problem.path) == ("house.yaml:5:8", "setup.2.remove[0].count")
    assert problem.via is not None and problem.via[0] == "rulesets/biblios.yaml"
    assert located(problem, "fr").startswith("house.yaml:5:8: setup.2.remove[0].count: retire 2 cartes")


def test_schema_and_semantic_problems_come_in_one_run(tmp_path: Path) -> None:
    problems = problems_of(tmp_path, "auction: {opening_bid: one}\ncategories:\n  monks: {order: 2}\n")[1]
    assert [(p.where, p.code) for p in problems] == [
        ("house.yaml:5:24", "wrong-type"),
        ("house.yaml:7:18", "order-taken"),
    ]
    with in_language("es"):
        assert problems[0].message == "'one' es un texto; se esperaba un número entero de 1 a 100"


OPTION = (
    "options:\n  no-duel:\n    title: {en: N, fr: N, es: N}\n    description: {en: N, fr: N, es: N}\n    changes:\n"
)


def test_an_option_declared_in_a_variant_keeps_its_removals(tmp_path: Path) -> None:
    from biblios_kit.rules import load_ruleset

    path = tmp_path / "house.yaml"
    path.write_text(HEAD + OPTION + "      setup: {2: null}\n", encoding="utf-8")
    assert sorted(load_ruleset(path).setups) == [2, 3, 4]
    assert sorted(load_ruleset(path, ["no-duel"]).setups) == [3, 4]


def test_an_option_removing_what_the_ruleset_lacks(tmp_path: Path) -> None:
    _file, problems = problems_of(tmp_path, OPTION + "      church:\n        cards: {raise-or-lower-on: null}\n")
    (problem,) = problems
    assert problem.options == ("no-duel",)
    assert located(problem) == (
        "house.yaml:11:17: church.cards.raise-or-lower-on: with option no-duel: house has no church effect"
        " 'raise-or-lower-on' to remove; did you mean 'raise-or-lower-one'?"
    )
    assert located(problem, "es") == (
        "house.yaml:11:17: church.cards.raise-or-lower-on: con la opción no-duel: nada que quitar: house no tiene"
        " efecto de Iglesia 'raise-or-lower-on'; ¿quería decir 'raise-or-lower-one'?"
    )
