"""Ruleset problems are data (a code and fields); their sentences are made at the edge, in en, fr and es."""

from __future__ import annotations

import ast
import pickle
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
            # (Braces may be YAML a message shows, such as `4: {}`; a placeholder left is `{name}`.)
            assert problem.code not in translated and "Hint(" not in translated
            assert re.search(r"\{[a-z_]+(![rs])?\}", translated) is None, translated
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


# ---------------------------------------------------------------------- YAML syntax errors in the reader's language

BROKEN_YAML = {
    "colon-in-value": "a:\n  b: 1 c: 2\n",
    "tab-indent": "a:\n\tb: 1\n",
    "tab-after-colon": "a:\n  b:\t\t1\n  c:\n\t- 1\n",
    "tab-line": "a: 1\n\t\n",
    "tab-in-list": "a:\n  -\t1\n  - 2\n",
    "at-sign": "a: @x\n",
    "backtick": "a: `x`\n",
    "percent-line": "a: 1\n%x\n",
    "open-double-quote": 'a: "abc\n',
    "open-single-quote": "a: 'abc\n",
    "open-bracket": "a: [1, 2\n",
    "open-brace": "a: {x: 1\n",
    "bracket-then-brace": "a: [1, 2 3: x}\n",
    "brace-then-bracket": "a: {x: 1 ]\n",
    "unknown-escape": 'a: "\\q"\n',
    "bad-hex-escape": 'a: "\\xZZ"\n',
    "bad-indent": "a:\n    b: 1\n  c: 2\n",
    "item-in-mapping": "a: 1\n- 2\n",
    "item-after-colon": "a: - 1\n",
    "two-documents": "a: 1\n---\nb: 2\n",
    "key-without-colon": "a: 1\nb\nc: 2\n",
    "control-character": "a: \x01\n",
    "block-header-zero": "a: |0\n  x\n",
    "block-header-letter": "a: |x\n  x\n",
    "yaml-directive": "%YAML 2.0\n---\na: 1\n",
    "open-tag": "a: !<x y\n",
    "undefined-tag-handle": "a: !x!y 1\n",
    "unknown-tag": "a: !!python/name:os.system\n",
    "empty-anchor": "a: &\n",
    "empty-alias": "a: *\n",
    "separator-in-quotes": 'a: "x\n---\ny"\n',
    "quote-at-end": 'a: "',
    "closing-bracket": "a: 1\n]\n",
    "text-after-quotes": 'a: "x"y\n',
}
"""One YAML mistake each; every scanner, parser and composer problem PyYAML or libyaml reports for them."""

YAML_ENGLISH = re.compile(
    r"\b(while (scanning|parsing|composing)|found|expected|could not|not allowed|cannot start|token|"
    r"mapping values|block end|stream|scalar|indicator|but got)\b"
)
"""Words of PyYAML's and libyaml's messages that must never reach a French or Spanish reader."""


def _pyyaml_error(text: str, loader: Any) -> yaml.YAMLError:
    try:
        yaml.load(text, Loader=loader)  # a safe loader, given by the test
    except yaml.YAMLError as error:
        return error
    raise AssertionError(f"valid YAML: {text!r}")


LOADERS = [yaml.SafeLoader] + ([yaml.CSafeLoader] if hasattr(yaml, "CSafeLoader") else [])


@pytest.mark.parametrize("loader", LOADERS, ids=lambda loader: loader.__name__)
@pytest.mark.parametrize("name", sorted(BROKEN_YAML))
def test_yaml_syntax_errors_speak_the_readers_language(monkeypatch: pytest.MonkeyPatch, loader: Any, name: str) -> None:
    from biblios_kit.rules import source

    text = BROKEN_YAML[name]
    monkeypatch.setattr(source, "_Loader", loader)
    error = _pyyaml_error(text, loader)
    with pytest.raises(RulesetError) as caught:
        source.parse_text(text, "f.yaml")
    (problem,) = caught.value.problems
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    if mark is not None:  # the position is PyYAML's own
        assert (problem.line, problem.column) == (mark.line + 1, mark.column + 1)
    english = explain_problem(problem, "en")
    assert english.startswith("YAML syntax error: ") and "{" not in english
    for fragment in (getattr(error, "problem", None), getattr(error, "context", None)):
        if fragment:
            assert str(fragment) not in english
    for lang, start in (("fr", "erreur de syntaxe YAML\u202f: "), ("es", "error de sintaxis YAML: ")):
        translated = explain_problem(problem, lang)
        assert translated.startswith(start), translated
        assert not YAML_ENGLISH.search(translated), translated
        assert "{" not in translated and "Hint(" not in translated
        assert translated != english


@pytest.mark.parametrize("loader", LOADERS, ids=lambda loader: loader.__name__)
@pytest.mark.parametrize("name", ["tab-indent", "tab-after-colon", "tab-line", "tab-in-list"])
def test_a_tab_is_named_a_tab(monkeypatch: pytest.MonkeyPatch, loader: Any, name: str) -> None:
    from biblios_kit.rules import source

    monkeypatch.setattr(source, "_Loader", loader)
    with pytest.raises(RulesetError) as caught:
        source.parse_text(BROKEN_YAML[name], "f.yaml")
    (problem,) = caught.value.problems
    # (a note may follow: the value the tab interrupts)
    assert explain_problem(problem, "en").startswith("YAML syntax error: a tab character; YAML indents with spaces")
    assert explain_problem(problem, "fr").startswith(
        "erreur de syntaxe YAML\u202f: une tabulation\u202f; en YAML, l'indentation se fait avec des espaces"
    )
    assert explain_problem(problem, "es").startswith(
        "error de sintaxis YAML: un tabulador; en YAML la sangría se hace con espacios"
    )


def test_the_context_of_a_yaml_error_is_a_located_note() -> None:
    from biblios_kit.rules import source

    with pytest.raises(RulesetError) as caught:
        source.parse_text('id: x\nname: "never closed\n', "f.yaml")
    (problem,) = caught.value.problems
    assert (problem.line, problem.column) == (3, 1)
    assert explain_problem(problem, "en") == (
        "YAML syntax error: the file ends inside a quoted text: its closing quote is missing"
        " (the quoted text that starts on line 2, column 7)"
    )
    assert explain_problem(problem, "fr").endswith("(le texte entre guillemets qui commence ligne 2, colonne 7)")
    assert explain_problem(problem, "es").endswith("(el texto entre comillas que empieza en la línea 2, columna 7)")


YAML_TEXT = st.text(alphabet=st.sampled_from(list("ab:- \t\n\"'[]{}#&*!|>%@`,?\\x0")), max_size=40)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(YAML_TEXT)
def test_no_pyyaml_english_reaches_french_or_spanish(text: str) -> None:
    from biblios_kit.rules import source

    try:
        source.parse_text(text, "f.yaml")
    except RulesetError as error:
        for problem in error.problems:
            for lang in ("fr", "es"):
                translated = explain_problem(problem, lang)
                assert not YAML_ENGLISH.search(translated), (text, translated)
                assert "{" not in translated.replace("'}'", "").replace("'{'", ""), (text, translated)


# ---------------------------------------------------------------------- what was found, not "a list is a list"

BASE = "extends: biblios\nid: t\ntitle: {en: T, fr: T, es: T}\ndescription: {en: T, fr: T, es: T}\n"


@pytest.mark.parametrize(
    ("extra", "messages"),
    [
        (
            "auction: [1, 2]\n",
            (
                "expected a mapping of fields, found a list",
                "attendu une table de champs, trouvé une liste",
                "se esperaba un mapa de campos, pero se encontró una lista",
            ),
        ),
        (
            "auction: {opening_bid: {a: 1}}\n",
            (
                "expected a whole number from 1 to 100, found a mapping of fields",
                "attendu un nombre entier de 1 à 100, trouvé une table de champs",
                "se esperaba un número entero de 1 a 100, pero se encontró un mapa de campos",
            ),
        ),
        (
            "categories:\n  monks: {cards: [1]}\n",
            (
                "expected a mapping of fields, found a list",
                "attendu une table de champs, trouvé une liste",
                "se esperaba un mapa de campos, pero se encontró una lista",
            ),
        ),
        (
            "auction: {opening_bid: no}\n",
            (
                "expected a whole number from 1 to 100, found the yes/no value false",
                "attendu un nombre entier de 1 à 100, trouvé la valeur oui/non false",
                "se esperaba un número entero de 1 a 100, pero se encontró el valor sí/no false",
            ),
        ),
    ],
)
def test_a_wrong_type_says_what_was_expected_and_what_was_found(
    tmp_path: Path, extra: str, messages: tuple[str, str, str]
) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(BASE + extra, encoding="utf-8")
    (problem,) = check_file(path, "t.yaml")
    assert problem.code == "wrong-type-found"
    assert tuple(explain_problem(problem, lang) for lang in ("en", "fr", "es")) == messages


@pytest.mark.parametrize("value", [[1], {"a": 1}, None, True, False], ids=["list", "mapping", "null", "true", "false"])
@pytest.mark.parametrize("expected_kind", ["array", "object", "string", "integer", "boolean"])
def test_no_wrong_type_message_repeats_itself(value: object, expected_kind: str) -> None:
    from biblios_kit.rules.schema import found_hint, kind_of

    if kind_of(value) == expected_kind:
        return  # not a wrong type
    problem = Problem("t.yaml", 1, 1, "x", "wrong-type-found", {"expected": Hint("kind", {"kind": expected_kind}),
                                                                 "found": found_hint(value)})  # fmt: skip
    for lang in ("en", "fr", "es"):
        message = explain_problem(problem, lang)
        expected_part, found_part = re.split(
            r", (?:found|trouvé|pero se encontró) ", message.split(" ", 1)[1], maxsplit=1
        )
        expected_words = expected_part.removeprefix("esperaba ")
        assert expected_words != found_part and not found_part.startswith(expected_words), message


@pytest.mark.parametrize("value", ["2024-02-30", "!!timestamp x", "!!int x", "!!float x"])
def test_an_unreadable_value_is_located_not_a_crash(tmp_path: Path, value: str) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(BASE + f"auction: {{opening_bid: {value}}}\n", encoding="utf-8")
    (problem,) = check_file(path, "t.yaml")
    assert (problem.code, problem.line, problem.column, problem.path) == (
        "unreadable-value",
        5,
        24,
        "auction.opening_bid",
    )
    assert explain_problem(problem, "en").startswith("the value ")
    assert explain_problem(problem, "fr").startswith("la valeur ")
    assert explain_problem(problem, "es").startswith("el valor ")
