"""``variant new`` writes a template that teaches (every example valid when uncommented); ``rules explain`` shows what a variant changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from biblios_kit.cli.app import build_app
from biblios_kit.cli.variant_cmds import example_blocks, template_examples, uncomment, variant_text
from biblios_kit.i18n import set_language
from biblios_kit.rulebook.explain import explain_changes, section_of
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.loader import check_file, compose, resolve_ruleset
from biblios_kit.rules.schema import SCHEMA_PATH, VARIANT_SCHEMA_PATH

BASES = ("biblios", "scripts-and-scribes", "five-six-players", "second-place-dice")
WANTED = {"dice", "categories", "church", "setup", "auction", "penalty", "scoring"}


@pytest.fixture(autouse=True)
def _own_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Your own rulesets folder is the test's, never the real one."""
    monkeypatch.setenv("BIBLIOS_KIT_CONFIG_DIR", str(tmp_path / "config"))


def _new(tmp_path: Path, base: str, lang: str = "en", name: str = "house") -> Path:
    target = tmp_path / f"{name}.yaml"
    result = CliRunner().invoke(
        build_app(), ["variant", "new", name, "--from", base, "--path", str(target), "--lang", lang]
    )
    assert result.exit_code == 0, result.output
    return target


@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_example_is_valid_uncommented_alone_and_together(tmp_path: Path, base: str, lang: str) -> None:
    path = _new(tmp_path, base, lang)
    lines = path.read_text(encoding="utf-8").splitlines()
    examples = example_blocks(lines)
    assert len(examples) >= len(WANTED)
    original = load_ruleset(resolve_ruleset(base))
    for chosen in [[example] for example in examples] + [examples]:
        trial = tmp_path / "trial.yaml"
        trial.write_text(uncomment(lines, chosen), encoding="utf-8")
        assert check_file(trial) == [], (chosen, trial.read_text(encoding="utf-8"))
        # ... and each one changes a rule (the template teaches edits, not no-ops).
        changes = explain_changes(original, load_ruleset(trial), lang)
        assert changes, chosen


def test_the_template_has_the_most_wanted_edits(tmp_path: Path) -> None:
    text = _new(tmp_path, "biblios").read_text(encoding="utf-8")
    for needle in (
        "#   - {place: 2, start: 2, min: 1, max: 6}",  # second-place dice
        "#     raise-two: null",  # removing church cards
        "#     raise-or-lower-one: {count: 2",  # changing church cards
        "#   5:",  # a new player count ...
        "#     gift_cards: 6",  # ... with its setup
        "#   overpay: forbidden",
        "#   all_pass: active-takes",
        "#   refuse_to_pay: true",
        "#   kind: none",
    ):
        assert needle in text, needle
    assert {
        key for key, _explanation, _code in template_examples(compose(resolve_ruleset("biblios")).document, _schema())
    } == WANTED


def test_the_template_points_to_what_an_installed_user_has(tmp_path: Path) -> None:
    text = _new(tmp_path, "biblios").read_text(encoding="utf-8")
    assert "docs/" not in text  # an installed user has no docs folder
    for command in ("biblios-kit rules schema", "biblios-kit rules validate FILE", "biblios-kit rules explain FILE"):
        assert command in text
    assert text.startswith(f"# yaml-language-server: $schema={VARIANT_SCHEMA_PATH.as_uri()}\n")


def test_the_template_speaks_the_users_language(tmp_path: Path) -> None:
    text = _new(tmp_path, "biblios", "es").read_text(encoding="utf-8")
    assert "## Los ajustes de las subastas." in text
    assert "The auction switches." not in text


def _schema() -> dict[str, object]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_examples_of_newer_fields_appear_when_the_schema_has_them() -> None:
    """Named starting cards, church cards naming the place of each die and a payable bid ceiling
    appear when the installed schema knows them (an older schema gets the older examples)."""
    base = compose(resolve_ruleset("biblios")).document
    schema = _schema()
    plain = "\n".join(line for _k, _e, code in template_examples(base, schema) for line in code)
    assert "    starting_cards: [{kind: gold, value: 1}]" in plain
    assert "      targets: [{place: 1}, {place: 1, optional: true}]}" in plain
    older = json.loads(json.dumps(schema))
    del older["$defs"]["setup"]["properties"]["starting_cards"]
    del older["properties"]["church"]["properties"]["cards"]["additionalProperties"]["properties"]["targets"]
    text = "\n".join(line for _k, _e, code in template_examples(base, older) for line in code)
    assert "starting_cards" not in text and "targets: [" not in text
    # the installed schema knows the payable ceiling ('hand'); an older one writes a number instead
    assert "  ceiling: {gold: hand}" in plain
    older = json.loads(json.dumps(schema))
    older["$defs"]["ceiling"]["anyOf"] = [c for c in older["$defs"]["ceiling"]["anyOf"] if c.get("const") != "hand"]
    text = "\n".join(line for _k, _e, code in template_examples(base, older) for line in code)
    assert "  ceiling: {gold: hand}" not in text and "  ceiling: {gold: " in text
    # scoring as data (points, set bonuses, count steps) only where the schema has it
    assert "  points: die-times-cards" in plain and "  bonus: [{categories: [monks, pigments], points: 2}]" in plain
    older = json.loads(json.dumps(schema))
    del older["properties"]["scoring"]["properties"]["bonus"]
    text = "\n".join(line for _k, _e, code in template_examples(base, older) for line in code)
    assert "bonus" not in text and "points: die" not in text


def test_variant_text_without_a_schema_uses_the_installed_one() -> None:
    base = compose(resolve_ruleset("biblios")).document
    assert variant_text("x", "biblios", base, "file:///s.json") == variant_text(
        "x", "biblios", base, "file:///s.json", _schema()
    )


# ---------------------------------------------------------------- rules explain


def test_explain_shows_just_what_the_variant_changes_in_french(tmp_path: Path) -> None:
    path = _new(tmp_path, "biblios")
    lines = path.read_text(encoding="utf-8").splitlines()
    auction = next(example for example in example_blocks(lines) if "# auction:" in lines[example[0] + 1])
    path.write_text(uncomment(lines, [auction]), encoding="utf-8")
    result = CliRunner().invoke(build_app(), ["rules", "explain", str(path), "--lang", "fr"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("Règles que Biblios (règles maison\u202f: house) change par rapport à Biblios\u202f:")
    assert "Phase d'Enchères" in out and "Payer plus que l'enchère" in out
    assert "interdit\u202f: le montant exact seulement" in out
    # Only the auction section: no other rule changed, and the title is not a rule.
    assert "Pénalités" not in out and "Matériel" not in out and "Aperçu" not in out


def test_explain_full_adds_the_sections_as_the_variant_has_them() -> None:
    result = CliRunner().invoke(build_app(), ["rules", "explain", "second-place-dice", "--full", "--lang", "es"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Componentes" in out and "dado del segundo puesto" in out
    assert "La sección tal como la tiene Biblios con dados de segundo puesto:" in out
    assert "La baraja tiene 87 cartas en total" in out


def test_explain_a_new_player_count(tmp_path: Path) -> None:
    changes = explain_changes(load_ruleset("biblios"), load_ruleset("five-six-players"), "en")
    setup = next(change for change in changes if change.section.id == "setup")
    topics = {difference.key: difference for difference in setup.differences}
    assert topics["setup:5"].left == "not available" and "cards per turn: 6" in topics["setup:5"].right


def test_explain_of_no_change_and_of_a_file_that_extends_nothing(tmp_path: Path) -> None:
    path = _new(tmp_path, "biblios")
    result = CliRunner().invoke(build_app(), ["rules", "explain", str(path)])
    assert result.exit_code == 0 and result.stdout == "Biblios (house rules: house) changes no rule of Biblios.\n"
    result = CliRunner().invoke(build_app(), ["rules", "explain", "biblios"])
    assert result.exit_code == 2 and "extends no ruleset" in result.stderr and "rules diff" in result.stderr
    result = CliRunner().invoke(build_app(), ["rules", "explain", "nope"])
    assert result.exit_code == 2 and "Traceback" not in result.output


@pytest.mark.parametrize(
    ("key", "section"),
    [("deck:0", "components"), ("setup:5", "setup"), ("scoring:tiebreak", "ties"), ("scoring:category-tie", "scoring"),
     ("auction:overpay", "auction"), ("option:medieval-bluff", "options"), ("term:gold", "components")],
)  # fmt: skip
def test_each_difference_is_filed_under_its_section(key: str, section: str) -> None:
    assert section_of(key) == section
    set_language("en")


def test_an_example_that_does_not_fit_the_base_is_left_out(tmp_path: Path) -> None:
    """A base whose dice cannot move (min = max): the "die of its own" example would not validate, so it is not written."""
    base = tmp_path / "still.yaml"
    base.write_text(
        "extends: biblios\nid: still-dice\nversion: '1.0'\ntitle: {en: S, fr: S, es: S}\n"
        "description: {en: S, fr: S, es: S}\ndice:\n  - {place: 1, start: 4, min: 4, max: 4}\n",
        encoding="utf-8",
    )
    target = tmp_path / "house.yaml"
    result = CliRunner().invoke(build_app(), ["variant", "new", "house", "--from", str(base), "--path", str(target)])
    assert result.exit_code == 0, result.output
    lines = target.read_text(encoding="utf-8").splitlines()
    assert "# categories:" not in lines and "# auction:" in lines
    assert "" not in lines[-1:] and "\n\n\n" not in target.read_text(encoding="utf-8")
    for example in example_blocks(lines):
        trial = tmp_path / "trial.yaml"
        trial.write_text(uncomment(lines, [example]), encoding="utf-8")
        assert check_file(trial) == []
    assert sorted(path.name for path in tmp_path.iterdir()) == ["house.yaml", "still.yaml", "trial.yaml"]
