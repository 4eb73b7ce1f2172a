"""Hatchling build hook: compile the message catalogs, and the rules kernel and the bots with mypyc.

* The gettext catalogs (``locales/*/LC_MESSAGES/*.po``) become ``.mo`` files inside the wheel.
* The modules of ``biblios_kit/_kernel.py``'s ``GROUPS`` (the kernel, then the bots with the
  lab's measurement loops) are compiled to C extensions with mypyc, the compiler mypy and
  black ship with, from the very same Python source, one shared library per group. A
  regular wheel carries the extensions; an editable install (``pip install -e .``, what
  ``make`` does) builds them in place, next to their sources. When a group does not
  compile, the groups after it are dropped and the rest is compiled again: an error in a
  bot module leaves the bots interpreted and the kernel compiled. Without a working C
  compiler, or with ``BIBLIOS_KIT_PURE=1`` in the environment, nothing is compiled and the
  same modules run interpreted, with the same results (``biblios-kit --version`` says which).
"""

from __future__ import annotations

import importlib.util
import io
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

Groups = tuple[tuple[str, tuple[str, ...]], ...]


def groups(root: Path) -> Groups:
    """The groups of modules to compile: ``GROUPS`` of ``biblios_kit/_kernel.py`` (the one list;
    that file imports the standard library only, so it is read here without the package)."""
    spec = importlib.util.spec_from_file_location("_biblios_kit_groups", root / "biblios_kit" / "_kernel.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found: Groups = module.GROUPS
    return found


class BuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Compile catalogs (always), the kernel and the bots (when a C compiler is available)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        self._compile_catalogs(root, build_data)
        if self.target_name == "wheel":
            self._compile_kernel(root, version, build_data)

    def _compile_catalogs(self, root: Path, build_data: dict[str, Any]) -> None:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        out_dir = root / "build" / "mo"
        for po_path in sorted((root / "locales").glob("*/LC_MESSAGES/*.po")):
            lang = po_path.parent.parent.name
            with po_path.open("rb") as handle:
                catalog = read_po(handle, locale=lang)
            buffer = io.BytesIO()
            write_mo(buffer, catalog)
            target = out_dir / lang / f"{po_path.stem}.mo"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(buffer.getvalue())
            build_data["force_include"][str(target)] = f"biblios_kit/_data/locales/{lang}/LC_MESSAGES/{po_path.stem}.mo"

    def _compile_kernel(self, root: Path, version: str, build_data: dict[str, Any]) -> None:
        if os.environ.get("BIBLIOS_KIT_PURE"):
            self.app.display_info("biblios-kit: BIBLIOS_KIT_PURE is set, the kernel and the bots stay interpreted")
            return
        if not shutil.which(os.environ.get("CC", "cc")) and not shutil.which("gcc"):
            self.app.display_warning("biblios-kit: no C compiler found, the kernel and the bots stay interpreted")
            return
        editable = version == "editable"
        build_dir = root / "build" / "mypyc"
        wanted = list(groups(root))
        built: list[Path] = []
        while wanted:
            try:
                built = _mypyc_build(root, build_dir, tuple(wanted), inplace=editable)
                break
            except (Exception, SystemExit) as error:  # mypyc exits on a type error
                tried = ", ".join(n for n, _m in wanted)
                name, _modules = wanted.pop()
                again = f"; compiling {', '.join(n for n, _m in wanted)} again" if wanted else ""
                self.app.display_warning(
                    f"biblios-kit: mypyc could not compile {tried} ({error!r}, errors above); {name} stays interpreted{again}"
                )
        if editable:
            # Old extensions of a group that did not compile would run against the new build of the
            # groups before it: remove them (their modules then run from source).
            for name, modules in groups(root)[len(wanted) :]:
                for stale in _extensions(root, name, modules):
                    stale.unlink()
            # The build copies an extension it found up to date with its old time: date every built
            # one now, or a source touched without a change (a checkout) would keep it unused
            # (biblios_kit/_kernel.py runs a source newer than its extension interpreted).
            for name, modules in wanted:
                for built_here in _extensions(root, name, modules):
                    os.utime(built_here)
            return  # the extensions sit next to their sources, which the editable install points to
        if not wanted:
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        for path in built:
            build_data["force_include"][str(path)] = path.relative_to(build_dir / "lib").as_posix()


def _extensions(folder: Path, group: str, modules: tuple[str, ...]) -> list[Path]:
    """The compiled files of ``group`` under ``folder`` (its shared library and each module's shim)."""
    names = [f"{group}__mypyc", *(module.replace(".", "/") for module in modules)]
    return sorted(
        path
        for name in names
        for path in folder.joinpath(name).parent.glob(f"{Path(name).name}.*")
        if path.suffix in (".so", ".pyd")
    )


def _mypyc_build(root: Path, build_dir: Path, wanted: Groups, inplace: bool) -> list[Path]:
    """Compile the modules of ``wanted`` with mypyc, one shared library per group; return the
    built extension files (under ``build_dir/lib``)."""
    from mypyc.build import mypycify
    from setuptools import Distribution

    previous = Path.cwd()
    os.chdir(root)
    try:
        # An explicit empty mypy configuration: the project's [tool.mypy] names packages to check,
        # which mypyc must not mix with the files it is given.
        modules = mypycify(
            ["--config-file", str(_empty_config(build_dir)), *(_source(m) for _n, ms in wanted for m in ms)],
            opt_level="3",
            separate=[([_source(module) for module in modules], name) for name, modules in wanted],
            target_dir=str(build_dir / "c"),
        )
        distribution = Distribution({"name": "biblios-kit-kernel", "ext_modules": modules})
        command = distribution.get_command_obj("build_ext")
        command.build_lib = str(build_dir / "lib")  # type: ignore[attr-defined]
        command.build_temp = str(build_dir / "temp")  # type: ignore[attr-defined]
        command.inplace = inplace  # type: ignore[attr-defined]
        command.parallel = os.cpu_count() or 1  # type: ignore[attr-defined]
        distribution.run_command("build_ext")
    finally:
        os.chdir(previous)
    if inplace:
        return []
    return [path for name, modules in wanted for path in _extensions(build_dir / "lib", name, modules)]


def _source(module: str) -> str:
    return module.replace(".", "/") + ".py"


def _empty_config(build_dir: Path) -> Path:
    config = build_dir / "mypy.ini"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f"[mypy]\npython_version = {sys.version_info[0]}.{sys.version_info[1]}\nignore_missing_imports = True\n"
        # separate groups make mypyc run mypy incrementally: its cache stays in the build directory
        f"cache_dir = {build_dir / 'mypy_cache'}\n"
    )
    return config
