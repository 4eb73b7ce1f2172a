"""Every class of bad ruleset input gives one located line per problem and exit status 2, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from biblios_kit.cli.app import build_app
from biblios_kit.errors import RulesetError, UnknownOptionError, UnknownRulesetError
from biblios_kit.i18n import use_language
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.loader import UnknownOptionsError, check_file
from biblios_kit.rules.source import MAX_BYTES

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path("tests/data/rulesets")
CASES = sorted(p.name for p in (ROOT / FIXTURES).glob("*.yaml") if p.name != "cycle-b.yaml")


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("BIBLIOS_KIT_CONFIG_DIR", str(tmp_path / "config"))
    use_language("en")


def expected_lines(name: str) -> list[str]:
    """The ``# expect:`` lines of a fixture, as full ``file:line:column: ...`` lines."""
    raw = (ROOT / FIXTURES / name).read_bytes().decode("utf-8", errors="replace")
    return [
        f"{FIXTURES / name}:{line.removeprefix('# expect: ')}"
        for line in raw.splitlines()
        if line.startswith("# expect: ")
    ]


def test_every_bad_input_class_has_a_fixture() -> None:
    classes = {
        "syntax-error",
        "duplicate-key",
        "unknown-field",
        "wrong-type",
        "out-of-range",
        "unknown-extends",
        "cycle-a",
        "not-utf8",
        "alias-bomb",
        "recursive-alias",
        "removal-exceeds",
        "removal-unknown-card",
        "setup-does-not-fit",
        "gift-too-small",
        "tiebreak-unknown-category",
        "die-bounds",
        "duplicate-letters",
        "award-places",
        "ceiling-below-bid",
        "church-no-signs",
        "church-too-many-uses",
        "option-breaks-schema",
        "unknown-option",
        "missing-own-id",
        "remove-missing-card",
        "remove-missing-setup",
        "misspelt-category",
        "scoring-count-steps",
        "scoring-bonus",
    }
    assert classes <= {name.removesuffix(".yaml") for name in CASES}
    for name in CASES:
        assert expected_lines(name), name


@pytest.mark.parametrize("name", CASES)
def test_cli_reports_located_problems(name: str) -> None:
    result = CliRunner().invoke(build_app(), ["rules", "validate", str(FIXTURES / name)])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = [line for line in result.output.splitlines() if line.startswith(str(FIXTURES / name) + ":")]
    assert lines == expected_lines(name)
    assert "Traceback" not in result.output


@pytest.mark.parametrize("name", [name for name in CASES if name != "option-breaks-schema.yaml"])
def test_load_ruleset_raises_the_same_problems(name: str) -> None:
    with pytest.raises(RulesetError) as caught:
        load_ruleset(FIXTURES / name)
    # load_ruleset names files by their path relative to the working folder, like the CLI.
    assert sorted(str(problem) for problem in caught.value.problems) == sorted(expected_lines(name))


@pytest.mark.parametrize("options", [[], ["free-bids"]])
def test_option_problem_is_raised_whatever_options_are_used(options: list[str]) -> None:
    # A ruleset broken with an option on is refused with the option off too, as `rules validate` refuses it.
    with pytest.raises(RulesetError) as caught:
        load_ruleset(FIXTURES / "option-breaks-schema.yaml", options)
    assert [str(p) for p in caught.value.problems] == expected_lines("option-breaks-schema.yaml")


def test_oversized_file_is_refused_before_parsing(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(b"# " + b"x" * MAX_BYTES + b"\nid: big\n")
    result = CliRunner().invoke(build_app(), ["rules", "validate", str(big)])
    assert result.exit_code == 2
    assert f"{big}:1:1: the file is larger than 1024 KiB" in result.output


def test_unknown_option_is_located_and_still_an_unknown_option_error() -> None:
    with pytest.raises(UnknownOptionsError) as caught:
        load_ruleset("biblios", ["medieval-blaff", "refuse-to-pay"])
    error = caught.value
    assert isinstance(error, RulesetError) and isinstance(error, UnknownOptionError)
    assert error.name == "medieval-blaff" and error.known == ["medieval-bluff", "refuse-to-pay"]
    (problem,) = error.problems
    assert problem.file == "rulesets/biblios.yaml"
    options_line = (ROOT / "rulesets" / "biblios.yaml").read_text(encoding="utf-8").splitlines().index("options:") + 1
    assert (problem.line, problem.column, problem.path) == (options_line, 1, "options")
    assert "did you mean 'medieval-bluff'?" in problem.message


def test_unknown_ruleset_name() -> None:
    with pytest.raises(UnknownRulesetError) as caught:
        load_ruleset("biblos")
    assert "biblios" in caught.value.known


def test_problem_in_a_base_is_reported_in_the_variant_via_the_base(tmp_path: Path) -> None:
    edition = (ROOT / "rulesets" / "biblios.yaml").read_text(encoding="utf-8")
    broken = edition.replace("    remove_random: 7\n", "    remove_random: 90\n")
    assert broken != edition
    base_line = broken.splitlines().index("    remove_random: 90") + 1
    (tmp_path / "base.yaml").write_text(broken, encoding="utf-8")
    base = str(tmp_path / "base.yaml")
    (tmp_path / "child.yaml").write_text(
        "extends: base.yaml\nid: child\ntitle: {en: C, fr: C, es: C}\ndescription: {en: C, fr: C, es: C}\n"
        "auction:\n  overpay: exact\n",
        encoding="utf-8",
    )
    problems = check_file(tmp_path / "child.yaml", "child.yaml")
    # One run: the schema problem, and the semantic problem of a part the schema found valid. The base's
    # problem is reported in the file being checked (at its 'extends'), via the base's own line.
    assert [str(p) for p in problems] == [
        f"child.yaml:1:1: setup.4.remove_random: removes 90 random cards but only 87 are left after the named"
        f" removals (via {base}:{base_line}:20)",
        "child.yaml:6:12: auction.overpay: 'exact' is not allowed; expected one of: 'lost', 'forbidden'",
    ]
    assert problems[0].via == (base, base_line, 20)
    # Where the variant sets a part of the path, the problem points there.
    (tmp_path / "child.yaml").write_text(
        "extends: base.yaml\nid: child\ntitle: {en: C, fr: C, es: C}\ndescription: {en: C, fr: C, es: C}\n"
        "setup:\n  4: {starting_hand: 0}\n",
        encoding="utf-8",
    )
    (problem,) = check_file(tmp_path / "child.yaml", "child.yaml")
    assert (problem.file, problem.line, problem.column, problem.path) == ("child.yaml", 6, 3, "setup.4.remove_random")
    assert problem.via == (base, base_line, 20)
    # Checking the base itself reports it at its own line, with no 'via'.
    (problem,) = check_file(tmp_path / "base.yaml", "base.yaml")
    assert (problem.file, problem.line, problem.via) == ("base.yaml", base_line, None)


def test_cli_subprocess_exit_status_and_stderr() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "biblios_kit",
            "rules",
            "validate",
            str(FIXTURES / "alias-bomb.yaml"),
            "rulesets/biblios.yaml",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[0] == expected_lines("alias-bomb.yaml")[0]
    assert proc.stdout == "rulesets/biblios.yaml: OK\n"
    assert "Traceback" not in proc.stderr
