"""The compiled kernel and bots are what the tests run, and the interpreted source plays exactly the same games."""

from __future__ import annotations

import ast
import dataclasses
import enum
import importlib.machinery
import inspect
import json
import os
import shutil
import subprocess
import sys
import types
import typing
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
    assert _kernel.status() == "compiled", "run `make setup` to compile the kernel and the bots (docs/performance.md)"


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


def _hatch_build(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """``hatch_build.py`` imported with a stand-in for hatchling (a build requirement, not installed here)."""
    interface = types.ModuleType("hatchling.builders.hooks.plugin.interface")

    class BuildHookInterface:
        pass

    interface.BuildHookInterface = BuildHookInterface  # type: ignore[attr-defined]
    for name in ("hatchling", "hatchling.builders", "hatchling.builders.hooks", "hatchling.builders.hooks.plugin"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, interface.__name__, interface)
    monkeypatch.syspath_prepend(str(HERE.parent))
    monkeypatch.delitem(sys.modules, "hatch_build", raising=False)
    import hatch_build

    return hatch_build


def test_the_build_the_runtime_and_make_name_the_same_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    """hatch_build.py compiles, _kernel.py checks and the Makefile watches one list of modules."""
    root = HERE.parent
    assert _hatch_build(monkeypatch).groups(root) == _kernel.GROUPS
    assert [name for name, _modules in _kernel.GROUPS] == ["biblios_kit_kernel", "biblios_kit_bots"]
    kernel, bots = (set(modules) for _name, modules in _kernel.GROUPS)
    assert all(name.startswith("biblios_kit.engine.") for name in kernel)
    assert all(name.startswith("biblios_kit.bots.") for name in bots - {"biblios_kit.lab.projector"})
    assert len(_kernel.MODULES) == len(kernel | bots)
    sources = [_kernel.source_path(name) for name in _kernel.MODULES]
    assert all((root / source).is_file() for source in sources)
    if shutil.which("make") is None:
        pytest.skip("no make on this machine")
    watched = subprocess.run(
        ["make", "-s", "--no-print-directory", "kernel-sources", f"PYTHON={sys.executable}"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    assert watched.stdout.split() == sources


def _fake_build(package: Path, stale: dict[str, float]) -> None:
    """Sources and extensions of every compiled module under ``package`` (a stand-in for biblios_kit):
    sources at time 100, extensions at 200; ``stale`` gives some sources a later time, and a
    negative time removes that module's extension."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    package.mkdir(parents=True, exist_ok=True)
    for group, modules in _kernel.GROUPS:
        library = package.parent / f"{group}__mypyc{suffix}"
        library.write_bytes(b"")
        os.utime(library, (200, 200))
        for module in modules:
            source = package.joinpath(*module.split(".")[1:]).with_suffix(".py")
            source.parent.mkdir(parents=True, exist_ok=True)
            source.write_text("")
            extension = source.with_name(source.stem + suffix)
            extension.write_bytes(b"")
            os.utime(extension, (200, 200))
            when = stale.get(module, 100.0)
            if when < 0:
                extension.unlink()
            else:
                os.utime(source, (when, when))


@pytest.mark.parametrize(
    "stale,first",
    [
        ({}, 2),
        ({"biblios_kit.bots.heuristic": 300.0}, 1),
        ({"biblios_kit.bots.ismcts": -1.0}, 1),
        ({"biblios_kit.engine.observation": 300.0}, 0),
        ({"biblios_kit.engine.state": -1.0, "biblios_kit.bots.style": 300.0}, 0),
    ],
)
def test_an_edited_or_missing_module_runs_its_group_and_the_groups_after_it_interpreted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stale: dict[str, float], first: int
) -> None:
    """The bots' compiled code calls the kernel's: bots compiled over an interpreted kernel would mix
    two definitions of each class, so an edited kernel module sends the bots back to source too,
    while an edited (or uncompiled) bot module leaves the kernel compiled."""
    package = tmp_path / "biblios_kit"
    _fake_build(package, stale)
    monkeypatch.setattr(_kernel, "_PACKAGE_DIR", package)
    monkeypatch.delenv(_kernel.PURE_VARIABLE, raising=False)
    assert _kernel._interpreted_from() == first
    for index, (_group, modules) in enumerate(_kernel.GROUPS):
        for module in modules:
            has_extension = stale.get(module, 0.0) >= 0
            assert _kernel._use_source(module) == (index >= first and has_extension)
    monkeypatch.setenv(_kernel.PURE_VARIABLE, "1")
    assert _kernel._interpreted_from() == 0


def test_a_bot_module_that_does_not_compile_leaves_the_kernel_compiled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build drops the groups that fail, last first, compiles the rest again, and removes the old
    extensions of the groups it dropped (they were built against another build of the kernel)."""
    hatch_build = _hatch_build(monkeypatch)
    root = tmp_path / "root"
    _fake_build(root / "biblios_kit", {})
    shutil.copy(HERE.parent / "biblios_kit" / "_kernel.py", root / "biblios_kit" / "_kernel.py")
    attempts: list[list[str]] = []

    def build(
        root: Path, build_dir: Path, wanted: tuple[tuple[str, tuple[str, ...]], ...], inplace: bool
    ) -> list[Path]:
        attempts.append([name for name, _modules in wanted])
        if "biblios_kit_bots" in attempts[-1]:
            raise SystemExit("biblios_kit/bots/estimate.py:1: error: a type error")
        return []

    warnings: list[str] = []
    hook = object.__new__(hatch_build.BuildHook)
    hook.app = types.SimpleNamespace(display_warning=warnings.append, display_info=warnings.append)
    monkeypatch.setattr(hatch_build, "_mypyc_build", build)
    monkeypatch.setattr(hatch_build.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.delenv(_kernel.PURE_VARIABLE, raising=False)
    hook._compile_kernel(root, "editable", {"force_include": {}})
    assert attempts == [["biblios_kit_kernel", "biblios_kit_bots"], ["biblios_kit_kernel"]]
    assert len(warnings) == 1 and "biblios_kit_bots stays interpreted" in warnings[0]
    left = {path.relative_to(root).as_posix().split(".")[0] for path in root.rglob("*") if path.suffix == ".so"}
    kernel = _kernel.GROUPS[0][1]
    assert left == {"biblios_kit_kernel__mypyc", *(module.replace(".", "/") for module in kernel)}
    # what was built is dated now (a copy of an up-to-date extension keeps its old time)
    assert all(path.stat().st_mtime > 200 for path in root.rglob("*.so"))
    monkeypatch.setattr(_kernel, "_PACKAGE_DIR", root / "biblios_kit")
    assert _kernel._interpreted_from() == 1


def test_whole_number_parameters_reach_the_bots_as_ints_in_every_build() -> None:
    """``params.number`` returns a float; a whole-number field of a frozen dataclass must get an int
    (compiled, the dataclass refuses a float; interpreted, a float would slip through)."""
    from biblios_kit.bots.heuristic import HeuristicBot
    from biblios_kit.bots.registry import make_bot
    from biblios_kit.bots.style import STYLE_FIELDS, Style
    from biblios_kit.rules import load_ruleset

    biblios = load_ruleset("biblios")
    bot = make_bot("medium:futures=4:deny=1:spread=2.5", 1, biblios)
    assert isinstance(bot, HeuristicBot)
    assert bot.style == dataclasses.replace(Style(), futures=4, deny=1.0, spread=2.5)
    assert type(bot.style.futures) is int and type(bot.style.deny) is float
    every = {name: index + 1 for index, name in enumerate(STYLE_FIELDS) if name != "bluff"}
    bot = make_bot("medium:" + ":".join(f"{name}={value}" for name, value in every.items()), 1, biblios)
    assert isinstance(bot, HeuristicBot)
    assert {name: getattr(bot.style, name) for name in every} == every
    for name, kind in typing.get_type_hints(Style).items():
        assert type(getattr(bot.style, name)) is kind


def test_the_bots_own_sample_draws_what_random_sample_draws() -> None:
    """``heuristic._sample`` (a copy of ``random.Random.sample`` the compiler can compile) takes the
    same random numbers and returns the same cards, on both of its paths (small and large pools)."""
    import random

    from biblios_kit.bots.heuristic import _sample

    for seed in range(300):
        size = seed % 70
        population = list(range(100, 100 + size))
        for k in sorted({0, 1, 2, 3, 5, 6, 7, 12, size}):
            if k > size:
                continue
            ours, theirs = random.Random(seed), random.Random(seed)
            assert _sample(ours, population, k) == theirs.sample(population, k)
            assert ours.getstate() == theirs.getstate()
    with pytest.raises(ValueError):
        _sample(random.Random(0), [1, 2], 3)


def test_the_views_written_out_inits_set_every_field_from_its_own_parameter() -> None:
    """``Observation``, ``AuctionView`` and ``PaymentView`` write their ``__init__`` out (compiled, the
    dataclass's own would run interpreted): each field gets its own argument, by keyword or by
    position, and the instances stay frozen dataclasses, equal and hashed by their fields."""
    from biblios_kit.engine.observation import AuctionView, Observation, PaymentView

    def value(kind: object, index: int) -> object:
        """A value of type ``kind`` that tells ``index`` apart (compiled, the fields check their types)."""
        if kind is bool:
            return index % 2 == 1
        if kind is int:
            return index
        if kind is str:
            return f"s{index}"
        if isinstance(kind, type) and issubclass(kind, enum.Enum):
            return list(kind)[index % len(kind)]
        if isinstance(kind, type) and dataclasses.is_dataclass(kind):
            return None  # only in 'View | None' fields, one of each
        args = typing.get_args(kind)
        if typing.get_origin(kind) is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return (value(args[0], index),)
            return tuple(value(arg, index) for arg in args)
        return value(next(arg for arg in args if arg is not type(None)), index)  # 'X | None'

    def _source_annotations(cls: type) -> dict[str, object]:
        module = sys.modules[cls.__module__]
        tree = ast.parse(Path(module.__file__ or "").with_name("observation.py").read_text(encoding="utf-8"))
        (node,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__]
        return {
            a.target.id: eval(ast.unparse(a.annotation), vars(module))
            for a in node.body
            if isinstance(a, ast.AnnAssign) and isinstance(a.target, ast.Name)
        }

    for cls in (Observation, AuctionView, PaymentView):
        names = [field.name for field in dataclasses.fields(cls)]
        assert list(inspect.signature(cls).parameters) == names
        hints = _source_annotations(cls)  # compiled, the class's own annotations are erased to 'tuple', 'type'...
        values = {name: value(hints[name], index) for index, name in enumerate(names)}
        by_name, by_place = cls(**values), cls(*values.values())
        assert {name: getattr(by_name, name) for name in names} == values
        assert by_name == by_place and hash(by_name) == hash(by_place)
        other = value(hints[names[0]], len(names))
        assert dataclasses.replace(by_name, **{names[0]: other}) != by_name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(by_name, names[0], other)
