"""The compiled kernel is what the tests run, and the interpreted source plays exactly the same games."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from kernel_fingerprint import fingerprint

from biblios_kit import _kernel
from biblios_kit.cli.app import main

HERE = Path(__file__).parent


def test_the_kernel_runs_compiled_where_a_compiler_built_it() -> None:
    if os.environ.get(_kernel.PURE_VARIABLE):
        pytest.skip(f"{_kernel.PURE_VARIABLE} is set: this run tests the interpreted kernel")
    if not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler on this machine: the kernel is interpreted here by design")
    assert _kernel.status() == "compiled", "run `make setup` to compile the kernel (see docs/performance.md)"


@pytest.mark.slow
def test_interpreted_and_compiled_kernels_play_the_same_games() -> None:
    environment = dict(os.environ, **{_kernel.PURE_VARIABLE: "1"})
    child = subprocess.run(
        [sys.executable, str(HERE / "kernel_fingerprint.py")],
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    interpreted = json.loads(child.stdout)
    assert interpreted["build"] == "interpreted"
    assert interpreted["fingerprint"] == fingerprint()


def test_version_says_which_build_runs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert "biblios-kit" in out
    assert {"compiled": "compiled", "interpreted": "interpreted", "mixed": "partly compiled"}[_kernel.status()] in out


def test_pure_variable_forces_the_interpreted_source() -> None:
    environment = dict(os.environ, **{_kernel.PURE_VARIABLE: "1"})
    code = (
        "import biblios_kit.engine.state as s, biblios_kit._kernel as k; print(s.__file__.endswith('.py'), k.status())"
    )
    out = subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "interpreted"]


def test_public_boundary_raises_engine_errors_not_type_errors() -> None:
    from biblios_kit.engine import format_action, new_game, parse_action
    from biblios_kit.errors import EngineError, InvalidActionError
    from biblios_kit.rules import load_ruleset

    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, 3, 1)
    for bad in ("keep", 1.5, None, True, [0]):
        with pytest.raises(InvalidActionError):
            state.apply(bad)
        assert not state.is_legal(bad)
    with pytest.raises(InvalidActionError):
        parse_action(ruleset, 3)
    with pytest.raises(InvalidActionError):
        format_action(ruleset, "keep")
    with pytest.raises(EngineError):
        new_game(ruleset, "3", 1)
    with pytest.raises(ValueError):
        state.observation("0")


def test_the_build_the_runtime_and_make_name_the_same_kernel_modules() -> None:
    """hatch_build.py compiles, _kernel.py checks and the Makefile watches one list of modules."""
    import ast
    import re

    root = HERE.parent
    build = ast.parse((root / "hatch_build.py").read_text(encoding="utf-8"))
    kernel = next(
        ast.literal_eval(node.value)
        for node in build.body
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "KERNEL" for t in node.targets)
    )
    compiled = {path.removesuffix(".py").replace("/", ".") for path in kernel}
    assert compiled == set(_kernel.MODULES)
    watched = re.search(r"^KERNEL := \$\(addprefix biblios_kit/engine/,(.*)\)$", (root / "Makefile").read_text(), re.M)
    assert watched is not None
    assert {f"biblios_kit.engine.{name.removesuffix('.py')}" for name in watched.group(1).split()} == compiled
