"""The built wheel, installed into a fresh virtual environment, carries the rulesets, schema and compiled catalogs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow

PROBE = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    import biblios_kit
    from biblios_kit import i18n
    from biblios_kit.resources import locales_dir, rulesets_dir
    from biblios_kit.rules import load_ruleset
    from biblios_kit.rules.schema import SCHEMA_PATH, VARIANT_SCHEMA_PATH

    package = Path(biblios_kit.__file__).resolve().parent
    rulesets = {name: load_ruleset(name) for name in ("biblios", "scripts-and-scribes", "five-six-players")}
    i18n.set_language("fr")
    print(json.dumps({
        "package": str(package),
        "rulesets_dir": str(rulesets_dir()),
        "locales_dir": str(locales_dir()),
        "sources": {name: r.source for name, r in rulesets.items()},
        "decks": {name: len(r.deck) for name, r in rulesets.items()},
        "mo": sorted(str(p.relative_to(locales_dir())) for p in locales_dir().rglob("*.mo")),
        "catalog": type(i18n.translations("fr")).__name__,
        "error_fr": i18n._("error:"),
        "schema": SCHEMA_PATH.is_file(),
        "variant_schema": VARIANT_SCHEMA_PATH.is_file(),
    }))
    """
)


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{args}\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_wheel_installs_and_loads_from_its_own_data(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["BIBLIOS_KIT_CONFIG_DIR"] = str(tmp_path / "config")
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(dist)], tmp_path, env)
    (wheel,) = dist.glob("biblios_kit-*.whl")
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path, env)
    python = venv / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", str(wheel)], tmp_path, env)

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    info = json.loads(_run([str(python), "-c", PROBE], outside, env).stdout)
    package = Path(info["package"])
    assert package.is_relative_to(venv.resolve()) or package.is_relative_to(venv)
    assert Path(info["rulesets_dir"]) == package / "_data" / "rulesets"
    assert Path(info["locales_dir"]) == package / "_data" / "locales"
    for source in info["sources"].values():
        assert Path(source).is_relative_to(package / "_data" / "rulesets")
    assert info["decks"] == {"biblios": 87, "scripts-and-scribes": 87, "five-six-players": 90}
    assert info["schema"] is True
    assert info["variant_schema"] is True

    po_files = sorted(ROOT.glob("locales/*/LC_MESSAGES/*.po"))
    assert po_files, "the repository has no catalogs to compile"
    assert info["mo"] == sorted(str(p.relative_to(ROOT / "locales").with_suffix(".mo")) for p in po_files)
    assert info["catalog"] == "GNUTranslations"
    with (ROOT / "locales" / "fr" / "LC_MESSAGES" / "biblios_kit.po").open("rb") as handle:
        message = read_po(handle, locale="fr").get("error:")
    assert message is not None and message.string
    assert info["error_fr"] == message.string

    installed = venv / "bin" / "biblios-kit"
    proc = _run(
        [str(installed), "rules", "validate", info["sources"]["biblios"], info["sources"]["five-six-players"]],
        outside,
        env,
    )
    assert proc.stdout.count(": OK") == 2
