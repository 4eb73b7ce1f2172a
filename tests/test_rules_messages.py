"""Ruleset problems are data (a code and fields); their sentences are made at the edge, in en, fr and es."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import pytest

from biblios_kit.errors import Hint, Problem, RulesetError
from biblios_kit.i18n import in_language, use_language
from biblios_kit.messages import TEMPLATES, explain_problem, hint_text, unknown_name_message
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.loader import check_file
from biblios_kit.rules.schema import _PATTERN_HINTS, _SIMPLE

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path("tests/data/rulesets")
RULES = ROOT / "biblios_kit" / "rules"


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("BIBLIOS_KIT_CONFIG_DIR", str(tmp_path / "config"))
    use_language("en")


def codes_in_rules_source() -> set[str]:
    """Every code written as a literal where rules/ makes an Issue, a Problem or a Hint."""
    found: set[str] = set()
    for path in RULES.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            position = {"Issue": 1, "Hint": 0, "Problem": 4, "problem": 1}.get(name)
            if position is None or len(node.args) <= position:
                continue
            argument = node.args[position]
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                found.add(argument.value)
            elif isinstance(argument, ast.IfExp):
                found.update(
                    branch.value for branch in (argument.body, argument.orelse) if isinstance(branch, ast.Constant)
                )
    return found


def test_every_code_rules_uses_has_a_template() -> None:
    codes = codes_in_rules_source() | set(_SIMPLE.values()) | set(_PATTERN_HINTS.values())
    codes |= {"unknown-name", "unknown-name-close", "unknown-name-none"}
    codes |= {"remove-missing", "remove-missing-close", "remove-missing-none", "remove-missing-setup"}
    assert {"yaml-syntax", "gift-turn-too-small", "missing-field", "variant-needs-own", "no-such-entry"} <= codes
    missing = sorted(code for code in codes if code not in TEMPLATES)
    assert not missing, f"codes without a sentence: {missing}"


def fixture_problems() -> list[Problem]:
    problems: list[Problem] = []
    for path in sorted((ROOT / FIXTURES).glob("*.yaml")):
        problems += check_file(path, str(FIXTURES / path.name))
    return problems


def test_fixture_problems_are_data_and_read_well_in_every_language() -> None:
    problems = fixture_problems()
    assert len(problems) >= 25
    for problem in problems:
        assert problem.code in TEMPLATES, problem
        english = explain_problem(problem, "en")
        for lang in ("fr", "es"):
            translated = explain_problem(problem, lang)
            # No field left unrendered: a code, a Hint or a field list would show as such.
            assert problem.code not in translated and "Hint(" not in translated and "{" not in translated
            if problem.code not in ("unreadable-file", "yaml-alias", "yaml-anchor"):
                assert translated != english, (lang, english)


def test_a_problem_renders_in_the_language_active_when_it_is_read() -> None:
    with pytest.raises(RulesetError) as caught:
        load_ruleset(FIXTURES / "gift-too-small.yaml")
    error = caught.value
    where = "tests/data/rulesets/gift-too-small.yaml:7:19: setup.3.gift_cards: "
    assert str(error) == where + (
        "a turn of 3 cards in the Gift phase is too small for 3 players: one card is kept, one goes to the auction"
        " pile and each other player takes one, so expected at least 4"
    )
    with in_language("fr"):
        # The edition's own French terms, with their articles ("pendant la phase de Dons", "à la pile d'Enchères").
        assert str(error) == where + (
            "un tour de 3 cartes pendant la phase de Dons est trop petit pour 3 joueurs\u202f: une carte est gardée,"
            " une va à la pile d'Enchères et chaque autre joueur en prend une, il en faut donc au moins 4"
        )
    with in_language("es"):
        assert error.problems[0].message.startswith("un turno de 3 cartas en la fase de regalos es demasiado pequeño")
    (problem,) = error.problems
    assert (problem.code, problem.fields["gift"], problem.fields["players"], problem.fields["need"]) == (
        "gift-turn-too-small",
        3,
        3,
        4,
    )


def test_option_prefix_and_suggestion_note_are_parts_of_the_data() -> None:
    (option,) = check_file(ROOT / FIXTURES / "option-breaks-schema.yaml", "o.yaml")
    assert option.options == ("free-bids",) and option.code == "too-small"
    assert option.message == "with option free-bids: 0 is too small; expected at least 1"
    assert explain_problem(option, "es") == "con la opción free-bids: 0 es demasiado pequeño; se esperaba al menos 1"
    (unknown,) = check_file(ROOT / FIXTURES / "unknown-option.yaml", "u.yaml")
    assert unknown.fields["note"] == Hint("new-option-needs")
    assert unknown.message.endswith(
        "did you mean 'medieval-bluff'? (a new option needs 'title', 'description' and 'changes')"
    )


def test_expected_values_are_described_in_the_reader_language() -> None:
    (problem,) = check_file(ROOT / FIXTURES / "wrong-type.yaml", "w.yaml")
    assert problem.fields["actual"] == "string"
    assert problem.fields["expected"] == Hint("expect-range", {"kind": "integer", "low": 1, "high": 100})
    assert explain_problem(problem, "fr") == "'one' est un texte\u202f; attendu un nombre entier de 1 à 100"
    assert explain_problem(problem, "es") == "'one' es un texto; se esperaba un número entero de 1 a 100"
    either = Hint(
        "expect-any", {"alternatives": [Hint("kind", {"kind": "integer"}), Hint("expect-value", {"value": "deck"})]}
    )
    assert hint_text(either) == "a whole number or 'deck'"
    with in_language("es"):
        assert hint_text(either) == "un número entero o 'deck'"


def test_problems_survive_pickling_and_compare_as_data() -> None:
    problems = fixture_problems()
    assert pickle.loads(pickle.dumps(RulesetError(problems))).problems == problems
    assert len(set(problems)) == len(problems)


def test_unknown_name_message_for_the_layers_above() -> None:
    assert unknown_name_message("ruleset", "biblos", ["biblios", "scripts-and-scribes"]) == (
        "unknown ruleset 'biblos'; did you mean 'biblios'?"
    )
    with in_language("fr"):
        assert (
            unknown_name_message("ruleset", "zz", ["biblios"])
            == "introuvable\u202f: règles 'zz'\u202f; attendu l'un de\u202f: biblios"
        )
