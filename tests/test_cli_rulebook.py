"""``rules show``, ``rules search`` and ``rules diff`` from the command line, in three languages."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from biblios_kit import i18n
from biblios_kit.cli.app import main
from biblios_kit.i18n import set_language

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def clean_language(monkeypatch: pytest.MonkeyPatch):
    for name in ("BIBLIOS_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(i18n, "_warned", set())
    monkeypatch.setenv("COLUMNS", "100")
    yield
    set_language("en")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the CLI in-process; return (exit status, stdout, stderr)."""
    try:
        main(list(args))
        code = 0
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def run_process(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("BIBLIOS_LANG", "LC_ALL", "LC_MESSAGES", "LANG")}
    return subprocess.run(
        [sys.executable, "-m", "biblios_kit", *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=60
    )


def test_done_when_medieval_bluff_penalty_in_spanish() -> None:
    result = run_process(
        "rules", "show", "penalty", "--ruleset", "biblios", "--option", "medieval-bluff", "--lang", "es"
    )
    assert result.returncode == 0, result.stderr
    assert "Penalizaciones" in result.stdout and "Farol medieval" in result.stdout
    assert "se retira del juego" in result.stdout
    assert "Puntuación" not in result.stdout  # only the section asked for


def test_done_when_diff_of_the_editions_in_french() -> None:
    result = run_process("rules", "diff", "biblios", "scripts-and-scribes", "--lang", "fr")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("Règles qui diffèrent entre Biblios et Scripts & Scribes\u202f:")  # titles, not ids
    for phrase in (
        "Nom du plateau",
        "plateau de valeur",
        "Départage final",
        "Bluff médiéval",
        "non disponible",
        "différences.",
    ):
        assert phrase in out


def test_done_when_search_encheres_in_french() -> None:
    result = run_process("rules", "search", "enchères", "--lang", "fr")
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert first == "Phase d'Enchères (auction)"
    assert "[Enchères]" in result.stdout


def test_show_whole_rulebook_as_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run(capsys, "rules", "show", "--ruleset", "sns", "--format", "markdown", "--lang", "es")
    assert code == 0
    assert out.startswith("# Scripts & Scribes: las reglas")
    assert "## Etapa de Donación" in out and "## Carta de Obispo" in out


@pytest.mark.parametrize(
    ("name", "title"), [("enchères", "Phase d'Enchères"), ("subasta", "Phase d'Enchères"), ("penalite", "Pénalités")]
)
def test_show_accepts_section_names_in_any_language(capsys: pytest.CaptureFixture[str], name: str, title: str) -> None:
    code, out, _err = run(capsys, "rules", "show", name, "--lang", "fr")
    assert code == 0
    assert f"{title}\n{'=' * len(title)}\n" in out


def test_show_a_variant_by_path(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run(
        capsys, "rules", "show", "setup", "--ruleset", str(ROOT / "rulesets" / "variants" / "five-six-players.yaml")
    )
    assert code == 0
    assert "\n6 " in out


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (("rules", "show", "nope"), ["unknown section 'nope'", "overview (Overview)", "ties (Final ties)"]),
        (("rules", "show", "nope", "--lang", "fr"), ["section inconnue 'nope'", "auction (Phase d'Enchères)"]),
        (("rules", "show", "--ruleset", "nope"), ["unknown ruleset 'nope'", "biblios", "scripts-and-scribes"]),
        (("rules", "show", "--option", "nope"), ["unknown option 'nope'", "medieval-bluff", "refuse-to-pay"]),
        (("rules", "show", "--ruleset", "sns", "--option", "medieval-bluff"), ["unknown option 'medieval-bluff'"]),
        (("rules", "show", "--lang", "de"), ["unknown language 'de'", "en, fr, es"]),
        (("rules", "show", "--format", "html"), ["unknown format 'html'", "text, markdown"]),
        (("rules", "search", "x", "--ruleset", "nope"), ["unknown ruleset 'nope'"]),
        (("rules", "diff", "biblios", "biblios+nope", "--lang", "es"), ["opción desconocida 'nope'", "medieval-bluff"]),
        (("rules", "diff", "biblios", "nope"), ["unknown ruleset 'nope'"]),
    ],
)
def test_bad_input_is_a_clear_error_with_status_2(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], needles: list[str]
) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err


def test_search_without_a_match_is_helpful(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rules", "search", "licorne", "--lang", "fr")
    assert code == 1
    assert out == ""
    assert "Rien ne correspond à «\u202flicorne\u202f»" in err and "penalty (Pénalités)" in err


@pytest.mark.parametrize(
    ("lang", "query", "heading", "marked"),
    [
        ("en", "medieval", "Options (options)", "[Medieval]"),
        ("es", "farol", "Fase de subasta (auction)", "[farol]"),
        ("fr", "évêque", "Carte évêque (church)", "[évêque]"),
    ],
)
def test_search_highlights_without_a_terminal(
    capsys: pytest.CaptureFixture[str], lang: str, query: str, heading: str, marked: str
) -> None:
    ruleset = "sns" if query == "évêque" else "biblios"
    code, out, _err = run(capsys, "rules", "search", query, "--ruleset", ruleset, "--lang", lang)
    assert code == 0
    assert heading in out.splitlines()
    assert marked in out
    assert "\x1b[" not in out  # no terminal: plain markers only


def test_search_with_options(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run(capsys, "rules", "search", "Medieval Bluff", "--option", "medieval-bluff")
    assert code == 0
    assert out.splitlines()[0] == "Penalties (penalty)"


def test_diff_without_differences(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run(capsys, "rules", "diff", "biblios", "bib", "--lang", "es")
    assert code == 0
    assert out.strip() == "Ninguna diferencia: biblios y bib tienen las mismas reglas."


def test_diff_of_option_sets(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run(capsys, "rules", "diff", "biblios+medieval-bluff", "biblios+refuse-to-pay")
    assert code == 0
    # the option sets by their titles, not the ids typed
    assert (
        "* Penalty\n    Biblios (Medieval Bluff): Medieval Bluff\n    Biblios (Refusing to pay): Standard penalty"
        in out
    )
    assert "* Refusing to pay when able to" in out
    assert out.rstrip().endswith("3 differences.")


def test_help_is_translated(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run(capsys, "rules", "show", "--help", "--lang", "fr")
    assert code == 0
    assert "Affiche les règles" in out or "Format de sortie" in out
