"""The ``rules`` and ``variant`` commands: output, exit status, files written, and a light ``--help``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from biblios_kit.cli.app import build_app
from biblios_kit.i18n import use_language
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.loader import check_file
from biblios_kit.rules.schema import SCHEMA_PATH, VARIANT_SCHEMA_PATH

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted(
    str(p.relative_to(ROOT)) for p in [*ROOT.glob("rulesets/*.yaml"), *ROOT.glob("rulesets/variants/*.yaml")]
)


@pytest.fixture(autouse=True)
def _config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    folder = tmp_path / "config"
    monkeypatch.setenv("BIBLIOS_KIT_CONFIG_DIR", str(folder))
    monkeypatch.chdir(ROOT)
    use_language("en")
    return folder


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(build_app(), list(args))
    return result.exit_code, result.output


def test_validate_every_shipped_ruleset() -> None:
    assert len(SHIPPED) >= 4
    code, output = run("rules", "validate", *SHIPPED)
    assert code == 0, output
    assert output.splitlines() == [f"{path}: OK" for path in SHIPPED]


def test_validate_by_id_and_missing_file() -> None:
    code, output = run("rules", "validate", "sns", "no/such/file.yaml")
    assert code == 2
    assert "rulesets/scripts-and-scribes.yaml: OK" in output
    assert "no/such/file.yaml: no such file, and no ruleset has this id or alias" in output
    assert "1 problem in 1 file" in output


def test_validate_localized_ok_line() -> None:
    code, output = run("rules", "validate", "rulesets/biblios.yaml", "--lang", "fr")
    assert code == 0
    assert output.startswith("rulesets/biblios.yaml")
    use_language("en")


def test_schema_command_prints_the_packaged_schema() -> None:
    code, output = run("rules", "schema")
    assert code == 0
    assert json.loads(output) == json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def test_list_shows_editions_variants_options_and_user_folder(_config: Path) -> None:
    folder = _config / "rulesets"
    folder.mkdir(parents=True)
    (folder / "broken.yaml").write_text("id: [\n", encoding="utf-8")
    code, output = run("variant", "new", "house")
    assert code == 0, output
    code, output = run("rules", "list")
    assert code == 0, output
    assert "  biblios (bib)  Biblios" in output
    assert "    option medieval-bluff: Medieval Bluff (off by default)" in output
    assert "  five-six-players  Biblios for five and six players  (extends biblios)" in output
    assert f"  folder: {folder}" in output
    assert "  house  Biblios (house rules: house)  (extends biblios)" in output
    assert f"[unreadable: run 'biblios-kit rules validate {folder / 'broken.yaml'}']" in output
    editions, variants, users = (
        output.index("Editions:"),
        output.index("Shipped variants:"),
        output.index("Your rulesets:"),
    )
    assert editions < output.index("scripts-and-scribes") < variants < output.index("second-place-dice") < users


def test_variant_new_writes_a_valid_commented_file(_config: Path) -> None:
    code, output = run("variant", "new", "quiet-auction", "--from", "scripts")
    target = _config / "rulesets" / "quiet-auction.yaml"
    assert code == 0, output
    assert output.strip() == f"wrote {target}"
    text = target.read_text(encoding="utf-8")
    assert text.splitlines()[0] == f"# yaml-language-server: $schema={VARIANT_SCHEMA_PATH.as_uri()}"
    assert 'extends: "scripts-and-scribes"' in text and "id: quiet-auction" in text
    assert check_file(target) == []
    ruleset = load_ruleset("quiet-auction")
    assert ruleset.extends == ("scripts-and-scribes",)
    assert ruleset.title.fr == "Scripts & Scribes (règles maison\u202f: quiet-auction)"
    # Uncommenting the examples gives a valid ruleset too.
    lines = text.splitlines()
    marker = next(i for i, line in enumerate(lines) if line.startswith("## "))  # the first example
    uncommented = "\n".join(lines[:marker] + [line.removeprefix("# ") for line in lines[marker:]])
    examples = target.with_name("examples.yaml")
    examples.write_text(uncommented.replace("id: quiet-auction", "id: examples"), encoding="utf-8")
    ruleset = load_ruleset(examples)
    assert ruleset.auction.overpay.value == "forbidden" and ruleset.penalty.kind.value == "none"
    assert ruleset.auction.gold_ceiling_hand and not ruleset.auction.cards_ceiling_hand  # ceiling: {gold: hand}
    assert [(item.kind.value, item.value, item.count) for item in ruleset.setups[5].starting_cards] == [("gold", 1, 1)]


def test_variant_new_refuses_overwrite_bad_names_and_taken_ids(_config: Path, tmp_path: Path) -> None:
    assert run("variant", "new", "mine")[0] == 0
    code, output = run("variant", "new", "mine")
    assert code == 2 and "already exists; add --force to overwrite it" in output
    assert run("variant", "new", "mine", "--force", "--from", "sns")[0] == 0
    assert load_ruleset("mine").extends == ("scripts-and-scribes",)
    code, output = run("variant", "new", "Not_An_Id")
    assert code == 2 and "'Not_An_Id' is not a valid id" in output
    code, output = run("variant", "new", "biblios", "--path", str(tmp_path / "b.yaml"))
    assert code == 2 and "the id 'biblios' is already used by" in output
    code, output = run("variant", "new", "other", "--from", "biblos")
    assert code == 2 and "unknown ruleset 'biblos'; did you mean 'biblios'?" in output


def test_variant_new_with_a_path_extends_by_relative_path(tmp_path: Path) -> None:
    base = tmp_path / "a" / "base.yaml"
    base.parent.mkdir()
    base.write_text(
        (ROOT / "rulesets" / "biblios.yaml")
        .read_text(encoding="utf-8")
        .replace("id: biblios", "id: my-base")
        .replace("aliases: [bib]", "aliases: []"),
        encoding="utf-8",
    )
    (tmp_path / "b").mkdir()
    code, output = run("variant", "new", "on-top", "--from", str(base), "--path", str(tmp_path / "b"))
    assert code == 0, output
    written = tmp_path / "b" / "on-top.yaml"
    assert 'extends: "../a/base.yaml"' in written.read_text(encoding="utf-8")
    assert load_ruleset(written).extends == ("my-base",)


def test_help_imports_no_heavy_module() -> None:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "biblios_kit", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "biblios_kit.cli.app" in imported  # the measurement really ran
    heavy = sorted(
        name
        for name in imported
        if name.split(".")[0] in ("jsonschema", "textual") or name.startswith("biblios_kit.engine")
    )
    assert heavy == []


def test_validate_a_folder(tmp_path: Path) -> None:
    code, output = run("rules", "validate", "rulesets/variants")
    assert code == 0
    assert output.splitlines() == [line for line in (f"{p}: OK" for p in SHIPPED) if "variants" in line]
    code, output = run("rules", "validate", str(tmp_path))
    assert code == 2 and f"{tmp_path}: the folder holds no ruleset files (*.yaml)" in output
